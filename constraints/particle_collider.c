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
		if (!pbd_round_collider_triangle(c, &c->sub_end, corner, reach, bary, &d, &n))
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
		const float inverse_mass[3] = {p[0]->w, p[1]->w, p[2]->w};
		const float weight[3] = {(float)bary[0], (float)bary[1], (float)bary[2]};
		if (!pbd_contact_movable(inverse_mass, weight, 3))
			continue;
		float wsum = 0.0f;
		for (int j = 0; j < 3; ++j)
			wsum += (float)(bary[j] * bary[j]) * (p[j]->w > 0.0f ? 1.0f : 0.0f);
		if (wsum <= 0.0f)
			continue;
		float depth = reach - d, dl = depth / wsum;
		for (int j = 0; j < 3; ++j)
			if (p[j]->w > 0.0f)
				v4_set3(p[j], v3_mad(v3_of4(*p[j]), n, (float)bary[j] * dl));
		triangle_friction(w, c, v, bary, n, depth, wsum);
		deep += depth > TRIANGLE_DEEP * w->particles.radius[v[0]];
		(*touching)++;
	}
	return deep;
}

int pbd_collider_triangles_solve(pbd_world *world, int *touching)
{
	int deep = 0;
	*touching = 0;
	for (int i = 0; i < world->colliders.capacity; ++i) {
		const pbd_collider *c = &world->colliders.slots[i];
		if (c->live && pbd_collider_is_round(c))
			deep += push_triangles_off(world, c, touching);
	}
	return deep;
}
