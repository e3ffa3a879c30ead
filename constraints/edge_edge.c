// SPDX-License-Identifier: MIT
// Edge-edge contact: the closest points of two edges keep the thickness h between them, on
// the side they started the substep on: C = (pa - pb).n0 - h >= 0 with n0 the direction from
// b to a at the substep start (so edges that crossed are pushed back, not further through).
#include <string.h>

#include "../engine/world.h"

// The direction from edge b to edge a at the substep start (x): the side the pair keeps.
static pbd_v3 start_normal(const pbd_world *w, const uint32_t *ea, const uint32_t *eb)
{
	pbd_d3 a0 = d3_of(v3_of4(w->particles.x[ea[0]])), a1 = d3_of(v3_of4(w->particles.x[ea[1]]));
	pbd_d3 b0 = d3_of(v3_of4(w->particles.x[eb[0]])), b1 = d3_of(v3_of4(w->particles.x[eb[1]]));
	double s, t;
	pbd_segment_segment_distance2(a0, a1, b0, b1, &s, &t);
	pbd_d3 d = d3_sub(d3_mad(a0, d3_sub(a1, a0), s), d3_mad(b0, d3_sub(b1, b0), t));
	double l = sqrt(d3_len2(d));
	if (l < 1e-12) {
		// Touching at the start: the edges' common normal is the best guess of the side.
		d = d3_cross(d3_sub(a1, a0), d3_sub(b1, b0));
		l = sqrt(d3_len2(d));
		if (l < 1e-18)
			return v3(0, 1, 0);
	}
	return v3((float)(d.x / l), (float)(d.y / l), (float)(d.z / l));
}

// How far particle i is from its substep start, pbd_distance_up(p, x): a pair's corners are
// asked for it again and again in one pass (a layered cloth's vertex is a corner of dozens
// of pairs), so it is worked out once and again only after the pass moves the particle.
static float moved_of(pbd_world *w, uint32_t i)
{
	pbd_tracks *t = &w->pairs.tracks;
	if (t->moved_stamp[i] != t->moved_serial) {
		t->moved[i] = pbd_distance_up(v3_of4(w->particles.p[i]), v3_of4(w->particles.x[i]));
		t->moved_stamp[i] = t->moved_serial;
	}
	return t->moved[i];
}

// A new pass: every particle's motion is worked out anew when asked.
static void forget_moved(pbd_tracks *t)
{
	if (++t->moved_serial == 0) {
		memset(t->moved_stamp, 0, (size_t)t->capacity * sizeof *t->moved_stamp);
		t->moved_serial = 1;
	}
}

// Whether the pair is surely on the side it started the substep on without finding that side:
// most pairs the solver looks at are apart, and the side costs a second closest-point search.
// At the substep's start every particle is within its slack of its track, so the edges were at
// least the clearance less their largest slacks apart. For convex sets with closest points a*
// and b*, every a - b has at least |a* - b*| along n = (a* - b*) / |a* - b*|; moving each corner
// by at most m changes that by at most 2m. So while the start distance exceeds twice the
// largest motion x -> p, the current closest points lie on the start side, and the solver
// would find the pair apart (the margin covers the rounding of its side test). This is the
// room that leaves: the pair at distance l stayed when it exceeds 1e-5 * l + 1e-9.
static double start_side_room(pbd_world *w, const pbd_ee_contact *c, const uint32_t *ea, const uint32_t *eb)
{
	const float *slack = w->pairs.tracks.slack;
	float start = c->clearance - maxf(slack[ea[0]], slack[ea[1]]) - maxf(slack[eb[0]], slack[eb[1]]);
	const uint32_t ids[4] = {ea[0], ea[1], eb[0], eb[1]};
	float moved = 0.0f;
	for (int j = 0; j < 4; ++j)
		moved = maxf(moved, moved_of(w, ids[j]));
	return (double)start * (1.0 - 1e-5) - 2.0 * moved * (1.0 + 1e-5);
}

static bool stayed_on_start_side(double room, double l) { return room > 1e-5 * l + 1e-9; }

int pbd_edge_edge_solve(pbd_world *w)
{
	int touching = 0;
	if (w->pairs.ee_count > 0)
		forget_moved(&w->pairs.tracks);
	for (int k = 0; k < w->pairs.ee_count; ++k) {
		const pbd_ee_contact *c = &w->pairs.ee[k];
		const uint32_t *ea = w->topology.edge + 2 * c->a, *eb = w->topology.edge + 2 * c->b;
		if (pbd_ee_apart(&w->pairs, c, ea, eb, c->thickness))
			continue;
		pbd_v4 *v[4] = {&w->particles.p[ea[0]], &w->particles.p[ea[1]], &w->particles.p[eb[0]],
				&w->particles.p[eb[1]]};
		pbd_d3 a0 = d3_of(v3_of4(*v[0])), a1 = d3_of(v3_of4(*v[1])), b0 = d3_of(v3_of4(*v[2])),
		       b1 = d3_of(v3_of4(*v[3]));
		// Boxes first: most pairs are apart by more than the thickness.
		float h = c->thickness;
		if (minf(v[0]->x, v[1]->x) - h > maxf(v[2]->x, v[3]->x) || minf(v[2]->x, v[3]->x) - h > maxf(v[0]->x, v[1]->x) ||
		    minf(v[0]->y, v[1]->y) - h > maxf(v[2]->y, v[3]->y) || minf(v[2]->y, v[3]->y) - h > maxf(v[0]->y, v[1]->y) ||
		    minf(v[0]->z, v[1]->z) - h > maxf(v[2]->z, v[3]->z) || minf(v[2]->z, v[3]->z) - h > maxf(v[0]->z, v[1]->z))
			continue;
		// Then the bounds of the distance: most of the rest are apart and on their start side,
		// as the closest points below would find (the distance is at least `lower`, at most
		// `upper`, and the side test only gets harder with the distance).
		double lower, upper, room = 0.0;
		bool room_known = false;  // the room is worked out once, and only when needed
		pbd_segment_segment_bounds(a0, a1, b0, b1, &lower, &upper);
		if (lower >= h) {
			room = start_side_room(w, c, ea, eb);
			room_known = true;
			if (stayed_on_start_side(room, upper))
				continue;
		}
		double s, t;
		double dist2 = pbd_segment_segment_distance2(a0, a1, b0, b1, &s, &t);
		pbd_d3 d = d3_sub(d3_mad(a0, d3_sub(a1, a0), s), d3_mad(b0, d3_sub(b1, b0), t));
		double l = sqrt(dist2);
		if (l >= h && stayed_on_start_side(room_known ? room : start_side_room(w, c, ea, eb), l))
			continue;  // apart, on the side it started on: nothing to do
		pbd_v3 n = start_normal(w, ea, eb);
		// Signed along the start side; keep the current direction when it agrees with it.
		double along = d3_dot(d, d3_of(n));
		if (along > 0.0 && l > 1e-9)
			n = v3((float)(d.x / l), (float)(d.y / l), (float)(d.z / l));
		float sep = along > 0.0 ? (float)l : (float)along;
		if (sep >= c->thickness)
			continue;
		float wgt[4] = {(float)(1.0 - s), (float)s, -(float)(1.0 - t), -(float)t};
		const float inverse_mass[4] = {v[0]->w, v[1]->w, v[2]->w, v[3]->w};
		if (!pbd_contact_movable(inverse_mass, wgt, 4))
			continue;
		float wsum = 0.0f;
		for (int j = 0; j < 4; ++j)
			wsum += v[j]->w * wgt[j] * wgt[j];
		if (wsum <= 0.0f)
			continue;
		touching++;
		float depth = c->thickness - sep;
		float dl = depth / wsum;
		for (int j = 0; j < 4; ++j)
			v4_set3(v[j], v3_mad(v3_of4(*v[j]), n, v[j]->w * wgt[j] * dl));
		// Friction on the relative motion of the two closest points.
		pbd_v3 moved = v3(0, 0, 0);
		const uint32_t ids[4] = {ea[0], ea[1], eb[0], eb[1]};
		for (int j = 0; j < 4; ++j)
			moved = v3_mad(moved, v3_sub(v3_of4(*v[j]), v3_of4(w->particles.x[ids[j]])), wgt[j]);
		pbd_friction_pair mu =
			pbd_bodies_friction(w, w->topology.edge_owner[c->a], w->topology.edge_owner[c->b]);
		pbd_v3 corr = pbd_friction_correction(moved, n, depth, mu.static_friction, mu.kinetic_friction);
		float f = 1.0f / wsum;
		for (int j = 0; j < 4; ++j) {
			v4_set3(v[j], v3_mad(v3_of4(*v[j]), corr, v[j]->w * wgt[j] * f));
			pbd_pairs_redrift(&w->pairs, ids[j], v3_of4(w->particles.p[ids[j]]));
			w->pairs.tracks.moved_stamp[ids[j]] = w->pairs.tracks.moved_serial - 1u;  // moved: ask again
		}
	}
	return touching;
}
