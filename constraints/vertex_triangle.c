// SPDX-License-Identifier: MIT
// Vertex-triangle contact (seed 004, eq. 33.2.1): C = side (q - p1).n - h >= 0, kept on the
// side the vertex started the substep on, only while q projects inside the triangle (its
// edges are handled by edge-edge contacts). The correction is shared by inverse masses and
// barycentric weights, then friction acts on the relative tangential motion.
#include "../engine/world.h"

// Barycentric slack: a vertex just past an edge still counts, so nothing slips between a
// triangle and its neighbour.
#define PBD_INSIDE_TOLERANCE 0.02f

// Moves q along n and the triangle's corners against it by `depth` shared through inverse
// masses (for a ball, the cloth's capped: particle_cloth_mass_ratio) and barycentric weights
// b, then applies friction to their relative motion.
static bool push_apart(pbd_world *w, const pbd_vt_contact *c, pbd_v3 n, float depth, const float b[3])
{
	const uint32_t *t = w->topology.tri + 3 * c->tri;
	pbd_v4 *q = &w->particles.p[c->q];
	pbd_v4 *tv[3] = {&w->particles.p[t[0]], &w->particles.p[t[1]], &w->particles.p[t[2]]};
	float tw[3] = {tv[0]->w, tv[1]->w, tv[2]->w};
	if (c->ball)
		for (int j = 0; j < 3; ++j)
			tw[j] = pbd_ball_contact_inverse_mass(tw[j], q->w, w->settings.particle_cloth_mass_ratio);
	const float inverse_mass[4] = {q->w, tw[0], tw[1], tw[2]}, weight[4] = {1.0f, b[0], b[1], b[2]};
	if (!pbd_contact_movable(inverse_mass, weight, 4))
		return false;
	float wsum = q->w + b[0] * b[0] * tw[0] + b[1] * b[1] * tw[1] + b[2] * b[2] * tw[2];
	if (wsum <= 0.0f)
		return false;
	float dl = depth / wsum;
	v4_set3(q, v3_mad(v3_of4(*q), n, q->w * dl));
	for (int j = 0; j < 3; ++j)
		v4_set3(tv[j], v3_mad(v3_of4(*tv[j]), n, -tw[j] * b[j] * dl));
	// Friction on the motion of q relative to the triangle's point under it.
	pbd_v3 moved = v3_sub(v3_of4(*q), v3_of4(w->particles.x[c->q]));
	for (int j = 0; j < 3; ++j)
		moved = v3_mad(moved, v3_sub(v3_of4(*tv[j]), v3_of4(w->particles.x[t[j]])), -b[j]);
	pbd_friction_pair mu = pbd_bodies_friction(w, w->particles.owner[c->q], w->topology.tri_owner[c->tri]);
	pbd_v3 corr = pbd_friction_correction(moved, n, depth, mu.static_friction, mu.kinetic_friction);
	float f = 1.0f / wsum;
	v4_set3(q, v3_mad(v3_of4(*q), corr, q->w * f));
	for (int j = 0; j < 3; ++j)
		v4_set3(tv[j], v3_mad(v3_of4(*tv[j]), corr, -tw[j] * b[j] * f));
	return true;
}

// A free particle (a ball) against the closed triangle: C = |q - closest point| - h >= 0.
// Cloth vertices leave edges to the edge-edge contacts, but a ball has no edges, and a
// stretched triangle's edge could otherwise pass through its centre. Over the triangle's
// face the ball is kept on the side its centre started the substep on, as for a vertex.
static bool ball_triangle(pbd_world *w, const pbd_vt_contact *c)
{
	const uint32_t *t = w->topology.tri + 3 * c->tri;
	pbd_v3 q = v3_of4(w->particles.p[c->q]);
	double bary[3];
	pbd_d3 a = d3_of(v3_of4(w->particles.p[t[0]])), b = d3_of(v3_of4(w->particles.p[t[1]])),
	       cc = d3_of(v3_of4(w->particles.p[t[2]]));
	pbd_v3 xa = v3_of4(w->particles.x[t[0]]);
	pbd_v3 xn = v3_cross(v3_sub(v3_of4(w->particles.x[t[1]]), xa), v3_sub(v3_of4(w->particles.x[t[2]]), xa));
	float side = v3_dot(v3_sub(v3_of4(w->particles.x[c->q]), xa), xn) >= 0.0f ? 1.0f : -1.0f;
	pbd_d3 nd = d3_cross(d3_sub(b, a), d3_sub(cc, a));
	double nl = sqrt(d3_len2(nd));
	if (nl <= 0.0)
		return false;
	pbd_v3 face = v3_scale(v3((float)nd.x, (float)nd.y, (float)nd.z), side / (float)nl);
	float height = v3_dot(v3_sub(q, v3((float)a.x, (float)a.y, (float)a.z)), face);
	double d2 = pbd_point_triangle_distance2(d3_of(q), a, b, cc, bary);
	bool over_face = bary[0] > 0.0 && bary[1] > 0.0 && bary[2] > 0.0;
	pbd_v3 n;
	float depth;
	if (over_face || height <= 0.0f) {
		// Over the face, or behind its plane: back to the side it came from.
		if (height >= c->thickness)
			return false;
		n = face;
		depth = c->thickness - height;
		if (!over_face && d2 >= (double)c->thickness * c->thickness)
			return false;  // behind the plane but off the triangle: not this triangle's business
	} else {
		if (d2 >= (double)c->thickness * c->thickness)
			return false;
		pbd_d3 closest = d3_add(d3_scale(a, bary[0]), d3_add(d3_scale(b, bary[1]), d3_scale(cc, bary[2])));
		float d = (float)sqrt(d2);
		n = v3_scale(v3((float)(q.x - closest.x), (float)(q.y - closest.y), (float)(q.z - closest.z)), 1.0f / d);
		depth = c->thickness - d;
	}
	float b3[3] = {(float)bary[0], (float)bary[1], (float)bary[2]};
	return push_apart(w, c, n, depth, b3);
}

// Barycentric coordinates (v, u) of the projection of rel = q - p1 onto the plane of the edges
// e1, e2; false for a degenerate triangle. The products are fourth powers of lengths: when they
// overflow float (triangles thousands of kilometres across) the same is done in double.
static bool projection_barycentrics(pbd_v3 e1, pbd_v3 e2, pbd_v3 rel, float *v, float *u)
{
	float d00 = v3_dot(e1, e1), d01 = v3_dot(e1, e2), d11 = v3_dot(e2, e2);
	float d20 = v3_dot(rel, e1), d21 = v3_dot(rel, e2);
	float denom = d00 * d11 - d01 * d01;
	float vn = d11 * d20 - d01 * d21, un = d00 * d21 - d01 * d20;
	if (isfinite(denom) && isfinite(vn) && isfinite(un)) {
		if (denom <= 0.0f)
			return false;
		*v = vn / denom;
		*u = un / denom;
		return true;
	}
	double e00 = v3_dot_d(e1, e1), e01 = v3_dot_d(e1, e2), e11 = v3_dot_d(e2, e2);
	double e20 = v3_dot_d(rel, e1), e21 = v3_dot_d(rel, e2);
	double ddenom = e00 * e11 - e01 * e01;
	if (!(ddenom > 0.0))
		return false;
	*v = (float)((e11 * e20 - e01 * e21) / ddenom);
	*u = (float)((e00 * e21 - e01 * e20) / ddenom);
	return true;
}

// The pair's particles moved: the pairs after it in the loop must see their new drifts.
static void redrift(pbd_world *w, uint32_t q, const uint32_t *t)
{
	pbd_pairs_redrift(&w->pairs, q, v3_of4(w->particles.p[q]));
	for (int j = 0; j < 3; ++j)
		pbd_pairs_redrift(&w->pairs, t[j], v3_of4(w->particles.p[t[j]]));
}

int pbd_vertex_triangle_solve(pbd_world *w)
{
	int touching = 0;
	for (int k = 0; k < w->pairs.vt_count; ++k) {
		const pbd_vt_contact *c = &w->pairs.vt[k];
		if (c->ball) {
			// Not skipped by its clearance: a ball that crossed the triangle's plane over its
			// face is pushed back however far it went.
			if (ball_triangle(w, c)) {
				touching++;
				redrift(w, c->q, w->topology.tri + 3 * c->tri);
			}
			continue;
		}
		const uint32_t *t = w->topology.tri + 3 * c->tri;
		if (pbd_vt_apart(&w->pairs, c, t, c->thickness))
			continue;
		pbd_v4 *q = &w->particles.p[c->q], *p0 = &w->particles.p[t[0]], *p1 = &w->particles.p[t[1]],
		       *p2 = &w->particles.p[t[2]];
		pbd_v3 a = v3_of4(*p0), e1 = v3_sub(v3_of4(*p1), a), e2 = v3_sub(v3_of4(*p2), a);
		pbd_v3 n = v3_cross(e1, e2);
		float nl = v3_len(n);
		if (nl < 1e-12f)
			continue;
		n = v3_scale(n, 1.0f / nl);
		pbd_v3 rel = v3_sub(v3_of4(*q), a);
		float d = v3_dot(rel, n);
		if (d >= c->thickness || d <= -c->thickness)
			continue;
		// Only now, near the plane: the side q started the substep on (x does not change
		// during the substep, so every iteration agrees).
		pbd_v3 xa = v3_of4(w->particles.x[t[0]]);
		pbd_v3 xn =
			v3_cross(v3_sub(v3_of4(w->particles.x[t[1]]), xa), v3_sub(v3_of4(w->particles.x[t[2]]), xa));
		float side = v3_dot(v3_sub(v3_of4(w->particles.x[c->q]), xa), xn) >= 0.0f ? 1.0f : -1.0f;
		n = v3_scale(n, side);
		d *= side;
		if (d >= c->thickness)
			continue;
		float v, u;
		if (!projection_barycentrics(e1, e2, rel, &v, &u))
			continue;
		float b[3] = {1.0f - v - u, v, u};
		if (b[0] < -PBD_INSIDE_TOLERANCE || b[1] < -PBD_INSIDE_TOLERANCE || b[2] < -PBD_INSIDE_TOLERANCE)
			continue;
		for (int j = 0; j < 3; ++j)
			b[j] = clampf(b[j], 0.0f, 1.0f);
		float bs = b[0] + b[1] + b[2];
		for (int j = 0; j < 3; ++j)
			b[j] /= bs;
		if (push_apart(w, c, n, c->thickness - d, b)) {
			touching++;
			redrift(w, c->q, t);
		}
	}
	return touching;
}
