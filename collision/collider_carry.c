// SPDX-License-Identifier: MIT
// Substep starts carried by moving colliders, for the guard.
//
// The guard falls back toward x, the positions the previous substep left free of crossings.
// A collider that moves fast has swept over some of those positions by the end of the
// substep, and falling back there would put cloth inside it. So before the guard, the starts
// of the particles that the moved collider covers (or whose triangles it cuts) are carried
// with it, by its rigid motion over the substep; and so, transitively, are the starts of the
// particles that carried ones would meet on the way. The carried set moves rigidly, so it
// cannot cross itself; a pair of a carried and a still particle that would come within the
// guard's gap carries the still one as well, and a particle that cannot be carried (a
// kinematic one) blocks: the carried particles of its pair go back to x. The carried starts
// are then free of crossings and clear of the collider, and the search and the guard run from
// them (pbd_motion_starts); x is left as it is, so velocities still come from it.
#include <string.h>

#include "../engine/world.h"

// Rounds of closing the carried set before giving up (everything then stays at x).
#define CARRY_MAX_ROUNDS 64

// Where a point fixed to the collider at its substep-start pose is at the substep end.
static pbd_v3 carry_point(const pbd_collider *c, pbd_v3 x)
{
	pbd_v3 local = quat_rotate(quat_conj(c->sub_start.q), v3_sub(x, c->sub_start.p));
	return v3_add(quat_rotate(c->sub_end.q, local), c->sub_end.p);
}

static pbd_v3 start_of(const pbd_world *w, uint32_t i)
{
	return v3_of4(w->carry.by[i] >= 0 ? w->carry.to[i] : w->particles.x[i]);
}

// Carries particle i with collider k; false when it cannot be (kinematic, or blocked before).
static bool carry(pbd_world *w, uint32_t i, int32_t k)
{
	if (w->carry.by[i] >= 0)
		return true;
	if (w->carry.by[i] == PBD_CARRY_BLOCKED || w->particles.p[i].w == 0.0f)
		return false;
	w->carry.by[i] = k;
	w->carry.to[i] = w->particles.x[i];
	v4_set3(&w->carry.to[i], carry_point(&w->colliders.slots[k], v3_of4(w->particles.x[i])));
	w->carry.count++;
	return true;
}

static void block(pbd_world *w, uint32_t i)
{
	if (w->carry.by[i] >= 0)
		w->carry.count--;
	w->carry.by[i] = PBD_CARRY_BLOCKED;
}

// The collider that carries one of the particles, or -1.
static int32_t carrier(const pbd_world *w, const uint32_t *ids, int n)
{
	for (int j = 0; j < n; ++j)
		if (w->carry.by[ids[j]] >= 0)
			return w->carry.by[ids[j]];
	return -1;
}

// Carries every particle of a group with collider k; when one cannot be, none of the group
// moves (its carried particles are blocked). Returns whether anything changed.
static bool carry_group(pbd_world *w, const uint32_t *ids, int n, int32_t k)
{
	bool changed = false;
	for (int j = 0; j < n; ++j) {
		bool was = w->carry.by[ids[j]] >= 0;
		if (!carry(w, ids[j], k)) {
			for (int m = 0; m < n; ++m)
				if (w->carry.by[ids[m]] >= 0 || m == j) {
					changed |= w->carry.by[ids[m]] != PBD_CARRY_BLOCKED;
					block(w, ids[m]);
				}
			return changed;
		}
		changed |= !was;
	}
	return changed;
}

// The particles the moved collider covers at their start, and the vertices of triangles it
// cuts there (round colliders, whose triangles vertex contacts do not see).
static void seed(pbd_world *w, int32_t k)
{
	const pbd_collider *c = &w->colliders.slots[k];
	float bound = pbd_shape_bounding_radius(&c->shape);
	for (int i = 0; i < w->particles.count; ++i)
		if (w->particles.p[i].w != 0.0f && w->carry.by[i] < 0 &&
		    pbd_collider_near_at_end(c, bound, v3_of4(w->particles.x[i]), w->particles.radius[i]))
			carry(w, (uint32_t)i, k);
	if (!pbd_collider_is_round(c))
		return;
	pbd_round_core_box core = pbd_round_core_box_at(c, &c->sub_end);
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		const pbd_v3 corner[3] = {v3_of4(w->particles.x[v[0]]), v3_of4(w->particles.x[v[1]]),
					  v3_of4(w->particles.x[v[2]])};
		float reach = c->shape.radius + w->particles.radius[v[0]];
		if (pbd_round_collider_within_at_end(c, &core, corner, reach))
			carry_group(w, v, 3, k);
	}
}

// A triangle with carried and still corners is sheared on the way: when that brings it into
// the collider, the rest of it is carried too.
static bool close_triangles(pbd_world *w)
{
	bool changed = false;
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		int32_t k = carrier(w, v, 3);
		if (k < 0 || (w->carry.by[v[0]] >= 0 && w->carry.by[v[1]] >= 0 && w->carry.by[v[2]] >= 0))
			continue;
		const pbd_collider *c = &w->colliders.slots[k];
		if (!pbd_collider_is_round(c))
			continue;
		const pbd_v3 corner[3] = {start_of(w, v[0]), start_of(w, v[1]), start_of(w, v[2])};
		pbd_round_core_box core = pbd_round_core_box_at(c, &c->sub_end);
		if (pbd_round_collider_within_at_end(c, &core, corner, c->shape.radius + w->particles.radius[v[0]]))
			changed |= carry_group(w, v, 3, k);
	}
	return changed;
}

// Whether the motion x -> carried start of a pair with carried and still particles brings
// them within the guard's gap.
static bool quad_meets(const pbd_world *w, const uint32_t ids[4], int split, float thickness, int64_t *tested)
{
	pbd_d3 x0[4], x1[4];
	for (int j = 0; j < 4; ++j) {
		x0[j] = d3_of(v3_of4(w->particles.x[ids[j]]));
		x1[j] = d3_of(start_of(w, ids[j]));
	}
	(*tested)++;
	double toi, gap = pbd_guard_gap(thickness);
	return split == 1 ? pbd_ccd_vertex_triangle(x0, x1, gap, &toi) : pbd_ccd_edge_edge(x0, x1, gap, &toi);
}

static bool mixed(const pbd_world *w, const uint32_t *ids, int n)
{
	bool some = false, all = true;
	for (int j = 0; j < n; ++j) {
		bool c = w->carry.by[ids[j]] >= 0;
		some |= c;
		all &= c;
	}
	return some && !all;
}

// One pass over the candidate pairs; returns whether the carried set changed.
static bool close_pairs(pbd_world *w, int64_t *tested)
{
	bool changed = false;
	int total = w->pairs.vt_count + w->pairs.ee_count;
	for (int n = 0; n < total; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split = pbd_pair_particles(w, (uint32_t)n, ids, &thickness, &clearance);
		if (!mixed(w, ids, 4) || !quad_meets(w, ids, split, thickness, tested))
			continue;
		changed |= carry_group(w, ids, 4, carrier(w, ids, 4));
	}
	for (int n = 0; n < w->pairs.pp_count; ++n) {
		const pbd_pp_contact *c = &w->pairs.pp[n];
		uint32_t ids[2] = {c->i, c->j};
		if (!mixed(w, ids, 2))
			continue;
		(*tested)++;
		double toi;
		if (pbd_ccd_sphere_sphere(d3_of(v3_of4(w->particles.x[c->i])), d3_of(start_of(w, c->i)),
					  d3_of(v3_of4(w->particles.x[c->j])), d3_of(start_of(w, c->j)),
					  0.5 * c->thickness, &toi))
			changed |= carry_group(w, ids, 2, carrier(w, ids, 2));
	}
	return changed;
}

// The per-particle scratch of the carry.
#define CARRY_ARRAYS(w)                                                                       \
	(pbd_array_ref[]) { {(void **)&(w)->carry.by, sizeof *(w)->carry.by},                 \
			    {(void **)&(w)->carry.to, sizeof *(w)->carry.to},                 \
			    {(void **)&(w)->carry.start, sizeof *(w)->carry.start} }
#define CARRY_ARRAY_COUNT 3

// Scratch for every particle; its contents are rebuilt each substep, so it is replaced
// rather than grown.
static bool reserve(pbd_world *w)
{
	return pbd_reserve_scratch_arrays(w, CARRY_ARRAYS(w), CARRY_ARRAY_COUNT, &w->carry.capacity,
					  w->particles.count);
}

// Grows the carried set until no pair of carried and still particles meets on the way.
static bool close_set(pbd_world *w, int64_t *tested)
{
	for (int round = 0; round < CARRY_MAX_ROUNDS; ++round) {
		bool changed = close_pairs(w, tested);
		changed |= close_triangles(w);
		if (!changed)
			return true;
	}
	return false;
}

bool pbd_collider_carry_seed(pbd_world *w)
{
	pbd_carry *cr = &w->carry;
	cr->count = 0;
	bool moving = false;
	for (int k = 0; k < w->colliders.capacity; ++k)
		moving |= w->colliders.slots[k].live && pbd_collider_moves(&w->colliders.slots[k]);
	if (!moving || w->particles.count == 0 || !reserve(w))
		return false;
	for (int i = 0; i < w->particles.count; ++i)
		cr->by[i] = PBD_NOT_CARRIED;
	for (int32_t k = 0; k < w->colliders.capacity; ++k)
		if (w->colliders.slots[k].live && pbd_collider_moves(&w->colliders.slots[k]))
			seed(w, k);
	return cr->count > 0;
}

bool pbd_collider_carry_close(pbd_world *w, int64_t *tested)
{
	return close_set(w, tested);
}

bool pbd_collider_carry_finish(pbd_world *w, bool closed)
{
	pbd_carry *cr = &w->carry;
	if (!closed || cr->count == 0) {
		cr->count = 0;
		return false;
	}
	PBD_ASSERT(cr->capacity >= w->particles.count);
	for (int i = 0; i < w->particles.count; ++i)
		cr->start[i] = cr->by[i] >= 0 ? cr->to[i] : w->particles.x[i];
	cr->active = true;
	return true;
}

void pbd_collider_carry_end(pbd_world *w)
{
	w->carry.active = false;
	w->carry.count = 0;
}

void pbd_collider_carry_free(pbd_world *w)
{
	pbd_free_arrays(w, CARRY_ARRAYS(w), CARRY_ARRAY_COUNT, (size_t)w->carry.capacity);
	w->carry.capacity = 0;
}
