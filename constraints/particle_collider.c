// SPDX-License-Identifier: MIT
// Particle against collider shape: C = distance(p, shape) - r >= 0, then friction.
// Generalises the particle-plane constraint of seed 004 (eq. 33.2.2) to any shape with a
// signed distance; the collider is kinematic, so the particle takes the whole correction.
#include "../engine/world.h"

#include <stdatomic.h>
#include <string.h>

// Moves a point that rides on the collider from its substep-end pose back to its
// substep-start pose: the collider's own displacement at that point over the substep.
// A collider that did not turn moves every point by its translation, exactly: the round
// trip through its frame would leave a rounding vector of ~1e-8 m, the same in every
// substep, which static friction would then hold the contact to (a cloth resting on a
// tilted plane crept down it at 2e-5 m/s, stretched, and broke away).
static pbd_v3 collider_displacement(const pbd_collider *c, pbd_v3 point)
{
	if (memcmp(&c->sub_start.q, &c->sub_end.q, sizeof c->sub_end.q) == 0)
		return v3_sub(c->sub_end.p, c->sub_start.p);
	pbd_v3 local = quat_rotate(quat_conj(c->sub_end.q), v3_sub(point, c->sub_end.p));
	pbd_v3 before = v3_add(quat_rotate(c->sub_start.q, local), c->sub_start.p);
	return v3_sub(point, before);
}

// Pushes one particle out of its collider and applies friction; returns whether it touched.
static bool solve_contact(pbd_world *world, const pbd_collider_contact *ct)
{
	pbd_v4 *p = &world->particles.p[ct->particle];
	if (p->w == 0.0f)
		return false;
	const pbd_collider *c = &world->colliders.slots[ct->collider];
	pbd_v3 n;
	pbd_v3 pos = v3_of4(*p);
	float depth = ct->radius - pbd_shape_signed_distance(&c->shape, c->sub_end.p, c->sub_end.q, pos, &n);
	if (depth <= 0.0f)
		return false;
	pos = v3_mad(pos, n, depth);
	pbd_v3 moved = v3_sub(pos, v3_of4(world->particles.x[ct->particle]));
	pbd_v3 relative = v3_sub(moved, collider_displacement(c, pos));
	pbd_friction_pair mu = pbd_collider_friction(world, world->particles.owner[ct->particle], c);
	pos = v3_add(pos, pbd_friction_correction(relative, n, depth, mu.static_friction, mu.kinetic_friction));
	v4_set3(p, pos);
	return true;
}

typedef struct contact_job {
	pbd_world *world;
	int first;            // first contact of the collider's block
	atomic_int touching;
} contact_job;

static void solve_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	contact_job *job = context;
	int touching = 0;
	for (int k = job->first + start; k < job->first + end; ++k)
		touching += solve_contact(job->world, &job->world->collider_contacts.items[k]);
	atomic_fetch_add(&job->touching, touching);
}

// Contacts come in one block per collider, a particle at most once in a block: a block's
// contacts touch distinct particles, so threads share a block and any split gives the same
// positions. Blocks go one after the other (a particle between two colliders).
int pbd_collider_contacts_solve(pbd_world *world)
{
	contact_job job = {world, 0, 0};
	for (int first = 0; first < world->collider_contacts.count;) {
		int end = first + 1;
		while (end < world->collider_contacts.count &&
		       world->collider_contacts.items[end].collider == world->collider_contacts.items[first].collider)
			++end;
		job.first = first;
		pbd_parallel_for(world, solve_range, end - first, 512, &job);
		first = end;
	}
	return atomic_load(&job.touching);
}

// The side of the collider a triangle was on at the start of the substep (its positions x,
// the collider at its substep-start pose), when it was clear of the collider then.
static bool side_at_start(const pbd_world *w, const pbd_collider *c, const uint32_t *v, float reach, pbd_v3 *side)
{
	const pbd_v3 corner[3] = {v3_of4(w->particles.x[v[0]]), v3_of4(w->particles.x[v[1]]),
				  v3_of4(w->particles.x[v[2]])};
	double bary[3];
	float d;
	return pbd_round_collider_triangle(c, &c->sub_start, corner, INFINITY, bary, &d, side) && d >= reach;
}

// Friction on the motion of a point of the cloth between vertices (of a triangle or an edge)
// relative to the collider's surface under it, as for a vertex: without it, a cloth resting on
// a sphere over its triangles (the vertex contacts then never touch) slides off as if the
// sphere were ice. The correction is shared like the push, by the point's weights among the
// free vertices.
static void point_friction(pbd_world *w, const pbd_collider *c, const uint32_t *v, const double *weight, int count,
			   pbd_v3 n, float depth, float wsum)
{
	pbd_friction_pair mu = pbd_collider_friction(w, w->particles.owner[v[0]], c);
	pbd_v3 point = v3(0, 0, 0), moved = v3(0, 0, 0);
	for (int j = 0; j < count; ++j) {
		pbd_v3 pj = v3_of4(w->particles.p[v[j]]);
		point = v3_mad(point, pj, (float)weight[j]);
		moved = v3_mad(moved, v3_sub(pj, v3_of4(w->particles.x[v[j]])), (float)weight[j]);
	}
	pbd_v3 relative = v3_sub(moved, collider_displacement(c, point));
	pbd_v3 corr = v3_scale(pbd_friction_correction(relative, n, depth, mu.static_friction, mu.kinetic_friction), 1.0f / wsum);
	for (int j = 0; j < count; ++j)
		if (w->particles.p[v[j]].w > 0.0f)
			v4_set3(&w->particles.p[v[j]], v3_mad(v3_of4(w->particles.p[v[j]]), corr, (float)weight[j]));
}

// Moves the free vertices of a triangle or an edge (count 3 or 2) by their weights so that
// the point with those weights moves `depth` along n, then applies friction there; false when
// its free vertices cannot move that point (pinned, or with too small a share of it).
static bool push_point(pbd_world *w, const pbd_collider *c, const uint32_t *v, const double *weight, int count,
		       pbd_v3 n, float depth)
{
	float inverse_mass[3], share[3], wsum = 0.0f;
	for (int j = 0; j < count; ++j) {
		inverse_mass[j] = w->particles.p[v[j]].w;
		share[j] = (float)weight[j];
		wsum += (float)(weight[j] * weight[j]) * (inverse_mass[j] > 0.0f ? 1.0f : 0.0f);
	}
	if (!pbd_contact_movable(inverse_mass, share, count) || wsum <= 0.0f)
		return false;
	float dl = depth / wsum;
	for (int j = 0; j < count; ++j)
		if (inverse_mass[j] > 0.0f)
			v4_set3(&w->particles.p[v[j]], v3_mad(v3_of4(w->particles.p[v[j]]), n, share[j] * dl));
	point_friction(w, c, v, weight, count, n, depth, wsum);
	return true;
}

static bool push_triangle(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const double bary[3], pbd_v3 n,
			  float depth)
{
	return push_point(w, c, v, bary, 3, n, depth);
}

// A round collider (sphere, capsule) against the inside of cloth triangles: a stretched
// triangle can reach over a collider between its vertices, which vertex contacts do not see.
// C = |closest point of the triangle - core| - (R + r) >= 0; the collider cannot give way,
// so the triangle's vertices take the correction by barycentric weights. A triangle that a
// fast collider has carried past its core would be pushed out through the far side: it is
// pushed back out on the side it was on at the start of the substep instead (along that
// side's direction, C = (closest point - core) . side - (R + r) >= 0), as a vertex is by the
// collider sweep. Returns how many triangles were deep: pushed by more than TRIANGLE_DEEP
// of the cloth's half thickness (resting cloth sinks a little each substep; that needs no
// second pass).
#define TRIANGLE_DEEP 0.1f

static int push_triangles_off(pbd_world *w, const pbd_collider *c, int *touching)
{
	int deep = 0;
	pbd_round_core_box core = pbd_round_core_box_at(c, &c->sub_end);
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		pbd_v4 *p[3] = {&w->particles.p[v[0]], &w->particles.p[v[1]], &w->particles.p[v[2]]};
		if (p[0]->w == 0.0f && p[1]->w == 0.0f && p[2]->w == 0.0f)
			continue;
		double bary[3];
		float d;
		pbd_v3 n;
		float reach = c->shape.radius + w->particles.radius[v[0]];
		const pbd_v3 corner[3] = {v3_of4(*p[0]), v3_of4(*p[1]), v3_of4(*p[2])};
		if (pbd_round_core_beyond(&core, corner, reach) ||
		    !pbd_round_collider_triangle(c, &c->sub_end, corner, reach, bary, &d, &n))
			continue;
		if (d >= reach)
			continue;
		pbd_v3 side;
		bool past_core = side_at_start(w, c, v, reach, &side) && v3_dot(n, side) < 0.7f;
		// Closest at a vertex: the vertex's own contact handles it, unless it went past.
		if (!past_core && (bary[0] >= 1.0 || bary[1] >= 1.0 || bary[2] >= 1.0))
			continue;
		if (past_core) {
			pbd_v3 closest = v3_add(v3_add(v3_scale(corner[0], (float)bary[0]), v3_scale(corner[1], (float)bary[1])),
						v3_scale(corner[2], (float)bary[2]));
			d = v3_dot(v3_sub(closest, pbd_round_collider_core(c, &c->sub_end, closest)), side);
			n = side;
		}
		float depth = reach - d;
		if (!push_triangle(w, c, v, bary, n, depth))
			continue;
		deep += depth > TRIANGLE_DEEP * w->particles.radius[v[0]];
		(*touching)++;
	}
	return deep;
}

// ---- A box's edges and corners against the inside of cloth triangles and edges.
//
// A box keeps each vertex off its surface, but a cloth lying across a ridge or over a table's
// edge rests on the box's edge between its vertices, and the edge would sink into the cloth's
// mid-surface there. C = |closest point of the triangle - closest point of the box edge| - r
// >= 0 for each of the box's twelve edges (a corner is an edge's end), the triangle's
// vertices taking the correction by barycentric weights as for a round collider; the cloth's
// edges against the box's edges, and the box's corners against the triangles, below.
//
// Moving boxes too. With the triangle pushes alone, a bar pushed through a curtain at 10 m/s
// was left inside the cloth in more frames than without them (79 of its 201 against 13); with
// the edge and corner pairs as well, in none of them, at 3 and 10 m/s and 1 and 10 substeps
// (pbd-bench --fast-colliders: 20, 22, 7 and 7 frames without any of these for a moving box).

// Pushes a triangle off the box edge nearest it; true when it was within reach. tri_box is
// the triangle's box grown by its radius.
static bool push_triangle_off_edge(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const pbd_box_features *box,
				   pbd_aabb tri_box, int *deep)
{
	const pbd_d3 t[3] = {d3_of(v3_of4(w->particles.p[v[0]])), d3_of(v3_of4(w->particles.p[v[1]])),
			     d3_of(v3_of4(w->particles.p[v[2]]))};
	float r = w->particles.radius[v[0]];
	double best = (double)r * r, s = 0.0, bary[3] = {0, 0, 0};
	int edge = -1;
	for (int k = 0; k < 12; ++k) {
		if (!pbd_aabb_overlap(box->bounds[k], tri_box))
			continue;
		double sk, bk[3];
		double d2 = pbd_segment_triangle_distance2(box->from[k], box->to[k], t, &sk, bk);
		if (d2 < best) {
			best = d2, s = sk, edge = k;
			bary[0] = bk[0], bary[1] = bk[1], bary[2] = bk[2];
		}
	}
	// Closest at a vertex: the vertex's own contact keeps it off the box.
	if (edge < 0 || bary[0] >= 1.0 || bary[1] >= 1.0 || bary[2] >= 1.0)
		return false;
	pbd_d3 on_edge = d3_mad(box->from[edge], d3_sub(box->to[edge], box->from[edge]), s);
	pbd_d3 on_tri = d3_add(d3_add(d3_scale(t[0], bary[0]), d3_scale(t[1], bary[1])), d3_scale(t[2], bary[2]));
	pbd_d3 away = d3_sub(on_tri, on_edge);
	double d = sqrt(d3_len2(away));
	pbd_v3 out = box->out[edge], n = out;
	// Away from the edge when the triangle's point lies outside it; when the edge pierces the
	// triangle, or the point lies behind the edge (inside the box), out past the edge along its
	// outward direction: away from the edge would push it deeper.
	double ahead = d3_dot(away, d3_of(out));
	if (d > 1e-7 && ahead > 0.0)
		n = v3((float)(away.x / d), (float)(away.y / d), (float)(away.z / d));
	else
		d = ahead;  // <= 0: how far behind the edge
	float depth = r - (float)d;
	if (!push_triangle(w, c, v, bary, n, depth))
		return false;
	*deep += depth > TRIANGLE_DEEP * r;
	return true;
}

// Pushes a triangle off the box corners that stand under its inside. A box corner can poke
// through a triangle whose vertices and edges all lie outside the box (a cloth hooked on a
// table's corner, its triangles stretched round it), the box edges through it close to the
// corner; pushing the triangle out along an edge's outward direction then moves it mostly
// within its own plane. The corner is a vertex-triangle pair: C = (triangle point - corner) .
// n - r >= 0 at the corner's projection onto the triangle, n the triangle's normal turned out
// of the box (toward the corner's outward direction). Corners more than CORNER_REACH radii
// through the triangle are left to the vertices' own contacts, and so are triangles standing
// nearly edge-on to the corner's outward direction (|cos| < CORNER_FACING), whose side of the
// corner rounding could flip: the edges' pairs keep those off.
#define CORNER_REACH 8.0f
#define CORNER_FACING 0.25

static bool push_triangle_off_corners(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const pbd_box_features *box,
				      pbd_aabb tri_box, int *deep)
{
	float r = w->particles.radius[v[0]], grow = (CORNER_REACH - 1.0f) * r;
	pbd_aabb reach_box = {v3_sub(tri_box.lo, v3(grow, grow, grow)), v3_add(tri_box.hi, v3(grow, grow, grow))};
	bool touched = false;
	for (int k = 0; k < 8; ++k) {
		pbd_v3 at = v3((float)box->corner[k].x, (float)box->corner[k].y, (float)box->corner[k].z);
		if (!pbd_aabb_overlap((pbd_aabb){at, at}, reach_box))
			continue;
		// Read at each corner: a push at the one before moved the triangle.
		const pbd_d3 t[3] = {d3_of(v3_of4(w->particles.p[v[0]])), d3_of(v3_of4(w->particles.p[v[1]])),
				     d3_of(v3_of4(w->particles.p[v[2]]))};
		pbd_d3 normal = d3_cross(d3_sub(t[1], t[0]), d3_sub(t[2], t[0]));
		double length = sqrt(d3_len2(normal));
		if (length <= 0.0)
			return touched;
		double facing = d3_dot(normal, d3_of(box->corner_out[k])) / length;
		if (fabs(facing) < CORNER_FACING)
			continue;
		pbd_d3 n = d3_scale(normal, (facing > 0.0 ? 1.0 : -1.0) / length);
		double sep = d3_dot(d3_sub(t[0], box->corner[k]), n);
		if (sep >= (double)r || sep < -(double)CORNER_REACH * r)
			continue;
		double bary[3];
		pbd_point_triangle_distance2(d3_mad(box->corner[k], n, sep), t[0], t[1], t[2], bary);
		if (bary[0] <= 0.0 || bary[1] <= 0.0 || bary[2] <= 0.0)  // over an edge: the edge's pair
			continue;
		float depth = r - (float)sep;
		if (!push_triangle(w, c, v, bary, v3((float)n.x, (float)n.y, (float)n.z), depth))
			continue;
		*deep += depth > TRIANGLE_DEEP * r;
		touched = true;
	}
	return touched;
}

// Pushes a cloth edge off the box edge nearest it; true when it was within reach or crossed
// it. A triangle that wraps tightly round a box edge can have all three vertices outside the
// box and its inside clear of the edge's reach, while the cloth edge between the two faces
// (a chord) cuts through the box under the edge. Pushing the triangle's point nearest the
// edge out does not free it then: a crumpled triangle can stand across the box edge like a
// fin, the edge through it, and the push moves it within its own plane. The chord itself is
// the contact, as an edge-edge pair, C = (chord point - box edge point) . n - r >= 0:
//  - a chord point beyond both faces of the box edge: n away from the edge;
//  - a chord point inside the box, behind both faces: n across both edges,
//    out of the box (or the edge's outward direction, for a chord along the edge);
//  - a chord point over one face only is the face's, which the chord's vertices keep it off.
// Only a chord's inside: its ends are vertices, which their own contacts keep off the box.
// edge_box is the edge's box grown by its radius.
#define CHORD_REACH 8.0  // radii: a chord point farther from the box edge is left to its vertices

static bool inside_box(const pbd_collider *c, pbd_d3 point)
{
	pbd_v3 at = v3((float)point.x, (float)point.y, (float)point.z);
	return pbd_shape_distance(&c->shape, c->sub_end.p, c->sub_end.q, at) < 0.0f;
}

static bool push_edge_off_box(pbd_world *w, const pbd_collider *c, const uint32_t v[2], const pbd_box_features *box,
			      pbd_aabb edge_box, int *deep)
{
	const pbd_d3 a = d3_of(v3_of4(w->particles.p[v[0]])), b = d3_of(v3_of4(w->particles.p[v[1]]));
	float r = w->particles.radius[v[0]];
	pbd_v3 best_n = v3(0, 0, 0);
	double best_sep = INFINITY, best_t = 0.0;
	for (int k = 0; k < 12; ++k) {
		if (!pbd_aabb_overlap(box->bounds[k], edge_box))
			continue;
		double s, t;
		double d2 = pbd_segment_segment_distance2(box->from[k], box->to[k], a, b, &s, &t);
		if (t <= 0.0 || t >= 1.0 || d2 >= CHORD_REACH * CHORD_REACH * r * r)
			continue;
		pbd_d3 on_box = d3_mad(box->from[k], d3_sub(box->to[k], box->from[k]), s);
		pbd_d3 away = d3_sub(d3_mad(a, d3_sub(b, a), t), on_box);
		double beyond1 = d3_dot(away, d3_of(box->side[k][0])), beyond2 = d3_dot(away, d3_of(box->side[k][1]));
		double d = sqrt(d2), sep;
		pbd_d3 n;
		if (beyond1 > 0.0 && beyond2 > 0.0) {
			if (d >= (double)r)
				continue;
			n = d3_scale(away, 1.0 / d), sep = d;
		} else if (beyond1 <= 0.0 && beyond2 <= 0.0 && inside_box(c, d3_mad(a, d3_sub(b, a), t))) {
			pbd_d3 out = d3_of(box->out[k]);
			pbd_d3 across = d3_cross(d3_sub(box->to[k], box->from[k]), d3_sub(b, a));
			double length = sqrt(d3_len2(across)), facing = length > 0.0 ? d3_dot(across, out) / length : 0.0;
			if (fabs(facing) < 0.25)
				n = out, sep = d3_dot(away, out);
			else
				n = d3_scale(across, (facing > 0.0 ? 1.0 : -1.0) / length), sep = d3_dot(away, n);
		} else {
			continue;
		}
		if (sep < best_sep && sep < (double)r)
			best_sep = sep, best_t = t, best_n = v3((float)n.x, (float)n.y, (float)n.z);
	}
	if (best_sep >= (double)r)
		return false;
	const double weight[2] = {1.0 - best_t, best_t};
	float depth = r - (float)best_sep;
	if (!push_point(w, c, v, weight, 2, best_n, depth))
		return false;
	*deep += depth > TRIANGLE_DEEP * r;
	return true;
}

// Whether any of `count` particles started the substep inside a box that stands still. A cloth
// placed through a box cannot be pushed clear of its edges: the vertices inside stay inside (the
// guard sends them back to their starts), and the edges' and corners' pushes on the triangles
// round them only set those rocking, a few vertices swinging 4 mm each substep for good. Such
// triangles and edges are left to their vertices' contacts. A moving box sweeps over starts as
// a matter of course, and its pushes are what keep it out of the cloth.
static bool started_inside_still_box(const pbd_world *w, const pbd_collider *c, const uint32_t *v, int count)
{
	if (pbd_collider_moves(c))
		return false;
	for (int j = 0; j < count; ++j)
		if (inside_box(c, d3_of(v3_of4(w->particles.x[v[j]]))))
			return true;
	return false;
}

static int push_edges_off_box(pbd_world *w, const pbd_collider *c, const pbd_box_features *box, int *touching)
{
	int deep = 0;
	for (int e = 0; e < w->topology.edge_count; ++e) {
		const uint32_t *v = w->topology.edge + 2 * e;
		const pbd_v4 *p0 = &w->particles.p[v[0]], *p1 = &w->particles.p[v[1]];
		if (p0->w == 0.0f && p1->w == 0.0f)
			continue;
		float r = w->particles.radius[v[0]];
		const pbd_v3 ends[2] = {v3_of4(*p0), v3_of4(*p1)};
		pbd_aabb edge_box = pbd_points_box(ends, 2, r);
		if (!pbd_aabb_overlap(box->all, edge_box) || pbd_box_edges_beyond(box, edge_box) ||
		    started_inside_still_box(w, c, v, 2))
			continue;
		*touching += push_edge_off_box(w, c, v, box, edge_box, &deep);
	}
	return deep;
}

static int push_triangles_off_box(pbd_world *w, const pbd_collider *c, int *touching)
{
	int deep = 0;
	pbd_box_features box;
	pbd_box_features_at(c, &c->sub_end, &box);
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		const pbd_v4 *p0 = &w->particles.p[v[0]], *p1 = &w->particles.p[v[1]], *p2 = &w->particles.p[v[2]];
		if (p0->w == 0.0f && p1->w == 0.0f && p2->w == 0.0f)
			continue;
		float r = w->particles.radius[v[0]];
		const pbd_v3 corner[3] = {v3_of4(*p0), v3_of4(*p1), v3_of4(*p2)};
		pbd_aabb tri_box = pbd_points_box(corner, 3, r);
		if (!pbd_aabb_overlap(box.all, tri_box) || pbd_box_edges_beyond(&box, tri_box) ||
		    started_inside_still_box(w, c, v, 3))
			continue;
		*touching += push_triangle_off_edge(w, c, v, &box, tri_box, &deep);
		*touching += push_triangle_off_corners(w, c, v, &box, tri_box, &deep);
	}
	return deep + push_edges_off_box(w, c, &box, touching);
}

int pbd_collider_triangles_solve(pbd_world *world, int *touching)
{
	int deep = 0;
	*touching = 0;
	for (int i = 0; i < world->colliders.capacity; ++i) {
		const pbd_collider *c = &world->colliders.slots[i];
		if (!c->live)
			continue;
		if (pbd_collider_is_round(c))
			deep += push_triangles_off(world, c, touching);
		else if (c->shape.type == PBD_SHAPE_BOX)
			deep += push_triangles_off_box(world, c, touching);
	}
	return deep;
}

// Pushes that do not settle in COLLIDER_TRIANGLE_PASSES are rare (a crumpled cloth sliding over
// a ridge at 1 substep: a triangle in 2 of 120 frames), but each would leave the box's edge
// within the cloth. A triangle that was across the edge at its start as well (a cloth placed
// through a box) is left to the pushes, which move it out over the substeps; holding it would
// keep it there. Putting a corner back can leave a neighbouring triangle across, so the scan
// repeats, at most BOX_HOLD_SCANS times.
#define BOX_HOLD_SCANS 16

static int hold_triangles_off_box(pbd_world *w, const pbd_collider *c)
{
	int held = 0;
	pbd_box_features box;
	pbd_box_features_at(c, &c->sub_end, &box);
	for (int scan = 0; scan < BOX_HOLD_SCANS; ++scan) {
		int moved = 0;
		for (int t = 0; t < w->topology.tri_count; ++t) {
			const uint32_t *v = w->topology.tri + 3 * t;
			if (!pbd_box_triangle_crossed(&box, w->particles.p, w->particles.x, v, w->particles.radius[v[0]]))
				continue;
			for (int j = 0; j < 3; ++j) {
				pbd_v4 *p = &w->particles.p[v[j]];
				pbd_v3 start = v3_of4(w->particles.x[v[j]]);
				if (p->w > 0.0f && (p->x != start.x || p->y != start.y || p->z != start.z)) {
					v4_set3(p, start);
					moved++;
				}
			}
		}
		held += moved;
		if (moved == 0)
			break;
	}
	return held;
}

int pbd_box_triangles_hold(pbd_world *world)
{
	int held = 0;
	for (int i = 0; i < world->colliders.capacity; ++i) {
		const pbd_collider *c = &world->colliders.slots[i];
		if (c->live && c->shape.type == PBD_SHAPE_BOX && !pbd_collider_moves(c))
			held += hold_triangles_off_box(world, c);
	}
	return held;
}
