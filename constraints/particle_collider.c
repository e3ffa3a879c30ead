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

// Friction on the motion of a triangle's point of contact relative to the collider's surface
// under it, as for a vertex: without it, a cloth resting on a sphere over its triangles (the
// vertex contacts then never touch) slides off as if the sphere were ice. The correction is
// shared like the push, by barycentric weights among the free corners.
static void triangle_friction(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const double bary[3],
			      pbd_v3 n, float depth, float wsum)
{
	pbd_friction_pair mu = pbd_collider_friction(w, w->particles.owner[v[0]], c);
	pbd_v3 point = v3(0, 0, 0), moved = v3(0, 0, 0);
	for (int j = 0; j < 3; ++j) {
		pbd_v3 pj = v3_of4(w->particles.p[v[j]]);
		point = v3_mad(point, pj, (float)bary[j]);
		moved = v3_mad(moved, v3_sub(pj, v3_of4(w->particles.x[v[j]])), (float)bary[j]);
	}
	pbd_v3 relative = v3_sub(moved, collider_displacement(c, point));
	pbd_v3 corr = v3_scale(pbd_friction_correction(relative, n, depth, mu.static_friction, mu.kinetic_friction), 1.0f / wsum);
	for (int j = 0; j < 3; ++j)
		if (w->particles.p[v[j]].w > 0.0f)
			v4_set3(&w->particles.p[v[j]], v3_mad(v3_of4(w->particles.p[v[j]]), corr, (float)bary[j]));
}

// Moves a triangle's free corners by their barycentric weights so that its point at `bary`
// moves `depth` along n, then applies friction there; false when its free corners cannot
// move that point (pinned, or with too small a share of it).
static bool push_triangle(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const double bary[3], pbd_v3 n,
			  float depth)
{
	pbd_v4 *p[3] = {&w->particles.p[v[0]], &w->particles.p[v[1]], &w->particles.p[v[2]]};
	const float inverse_mass[3] = {p[0]->w, p[1]->w, p[2]->w};
	const float weight[3] = {(float)bary[0], (float)bary[1], (float)bary[2]};
	if (!pbd_contact_movable(inverse_mass, weight, 3))
		return false;
	float wsum = 0.0f;
	for (int j = 0; j < 3; ++j)
		wsum += (float)(bary[j] * bary[j]) * (p[j]->w > 0.0f ? 1.0f : 0.0f);
	if (wsum <= 0.0f)
		return false;
	float dl = depth / wsum;
	for (int j = 0; j < 3; ++j)
		if (p[j]->w > 0.0f)
			v4_set3(p[j], v3_mad(v3_of4(*p[j]), n, (float)bary[j] * dl));
	triangle_friction(w, c, v, bary, n, depth, wsum);
	return true;
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

// ---- A box's edges and corners against the inside of cloth triangles.
//
// A box keeps each vertex off its surface, but a cloth lying across a ridge or over a table's
// edge rests on the box's edge between its vertices, and the edge would sink into the cloth's
// mid-surface there. C = |closest point of the triangle - closest point of the box edge| - r
// >= 0 for each of the box's twelve edges (a corner is an edge's end), the triangle's
// vertices taking the correction by barycentric weights as for a round collider.
//
// Boxes that stand still in the substep only: for a box moving through the cloth (a bar
// pushed through a curtain at 10 m/s) these pushes, tried, left the bar inside the cloth in
// more frames than without them (79 of its 201 frames against 13), the carried starts and the
// pushes out along the edge working against each other.

// Closest points of segment p0-p1 and triangle (a, b, c): the segment's parameter and the
// triangle's barycentric coordinates; the squared distance (0 where the segment pierces it).
static double segment_triangle_closest(pbd_d3 p0, pbd_d3 p1, const pbd_d3 t[3], double *s, double bary[3])
{
	pbd_d3 e1 = d3_sub(t[1], t[0]), e2 = d3_sub(t[2], t[0]), d = d3_sub(p1, p0);
	pbd_d3 n = d3_cross(e1, e2);
	double denom = d3_dot(n, d);
	if (fabs(denom) > 1e-30) {  // where the segment's line meets the plane, if inside
		double u = d3_dot(n, d3_sub(t[0], p0)) / denom;
		if (u >= 0.0 && u <= 1.0) {
			pbd_d3 q = d3_mad(p0, d, u);
			double b[3];
			if (pbd_point_triangle_distance2(q, t[0], t[1], t[2], b) <= 1e-24 * (d3_len2(e1) + d3_len2(e2))) {
				*s = u;
				bary[0] = b[0], bary[1] = b[1], bary[2] = b[2];
				return 0.0;
			}
		}
	}
	double best = INFINITY, b[3];
	for (int end = 0; end < 2; ++end) {  // the segment's ends against the triangle
		double d2 = pbd_point_triangle_distance2(end ? p1 : p0, t[0], t[1], t[2], b);
		if (d2 < best) {
			best = d2, *s = end;
			bary[0] = b[0], bary[1] = b[1], bary[2] = b[2];
		}
	}
	for (int k = 0; k < 3; ++k) {  // the segment against the triangle's edges
		double u, v;
		double d2 = pbd_segment_segment_distance2(p0, p1, t[k], t[(k + 1) % 3], &u, &v);
		if (d2 < best) {
			best = d2, *s = u;
			bary[k] = 1.0 - v, bary[(k + 1) % 3] = v, bary[(k + 2) % 3] = 0.0;
		}
	}
	return best;
}

typedef struct box_edges {
	pbd_d3 from[12], to[12];
	pbd_v3 out[12];      // each edge's outward direction: between its two faces' normals
	pbd_aabb bounds[12];  // each edge's box
	pbd_aabb all;         // the box's
} box_edges;

static void box_edges_at(const pbd_collider *c, const pbd_pose *pose, box_edges *out)
{
	const pbd_v3 e = c->shape.half_extents;
	const float half[3] = {e.x, e.y, e.z};
	int n = 0;
	out->all = (pbd_aabb){v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)};
	for (int axis = 0; axis < 3; ++axis)
		for (int s1 = -1; s1 <= 1; s1 += 2)
			for (int s2 = -1; s2 <= 1; s2 += 2, ++n) {
				float a[3], b[3];
				int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
				a[axis] = -half[axis], b[axis] = half[axis];
				a[a1] = b[a1] = (float)s1 * half[a1];
				a[a2] = b[a2] = (float)s2 * half[a2];
				pbd_v3 wa = v3_add(quat_rotate(pose->q, v3(a[0], a[1], a[2])), pose->p);
				pbd_v3 wb = v3_add(quat_rotate(pose->q, v3(b[0], b[1], b[2])), pose->p);
				out->from[n] = d3_of(wa), out->to[n] = d3_of(wb);
				float o[3] = {0.0f, 0.0f, 0.0f};
				o[a1] = (float)s1, o[a2] = (float)s2;
				out->out[n] = v3_scale(quat_rotate(pose->q, v3(o[0], o[1], o[2])), 0.70710678f);
				pbd_v3 lo = v3(minf(wa.x, wb.x), minf(wa.y, wb.y), minf(wa.z, wb.z));
				pbd_v3 hi = v3(maxf(wa.x, wb.x), maxf(wa.y, wb.y), maxf(wa.z, wb.z));
				out->bounds[n] = (pbd_aabb){lo, hi};
				out->all.lo = v3(minf(out->all.lo.x, lo.x), minf(out->all.lo.y, lo.y), minf(out->all.lo.z, lo.z));
				out->all.hi = v3(maxf(out->all.hi.x, hi.x), maxf(out->all.hi.y, hi.y), maxf(out->all.hi.z, hi.z));
			}
}

// Pushes a triangle off the box edge nearest it; true when it was within reach. tri_box is
// the triangle's box grown by its radius.
static bool push_triangle_off_edge(pbd_world *w, const pbd_collider *c, const uint32_t v[3], const box_edges *box,
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
		double d2 = segment_triangle_closest(box->from[k], box->to[k], t, &sk, bk);
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

static int push_triangles_off_box(pbd_world *w, const pbd_collider *c, int *touching)
{
	int deep = 0;
	box_edges box;
	box_edges_at(c, &c->sub_end, &box);
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		const pbd_v4 *p0 = &w->particles.p[v[0]], *p1 = &w->particles.p[v[1]], *p2 = &w->particles.p[v[2]];
		if (p0->w == 0.0f && p1->w == 0.0f && p2->w == 0.0f)
			continue;
		float r = w->particles.radius[v[0]];
		pbd_aabb tri_box = {v3(minf(p0->x, minf(p1->x, p2->x)) - r, minf(p0->y, minf(p1->y, p2->y)) - r,
				       minf(p0->z, minf(p1->z, p2->z)) - r),
				    v3(maxf(p0->x, maxf(p1->x, p2->x)) + r, maxf(p0->y, maxf(p1->y, p2->y)) + r,
				       maxf(p0->z, maxf(p1->z, p2->z)) + r)};
		if (!pbd_aabb_overlap(box.all, tri_box))
			continue;
		*touching += push_triangle_off_edge(w, c, v, &box, tri_box, &deep);
	}
	return deep;
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
		else if (c->shape.type == PBD_SHAPE_BOX && !pbd_collider_moves(c))
			deep += push_triangles_off_box(world, c, touching);
	}
	return deep;
}
