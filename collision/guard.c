// SPDX-License-Identifier: MIT
// The guard (guard.h): no crossing of the motion x -> p lands.
#include <string.h>

#include "../engine/world.h"

static pbd_d3 at(const pbd_v4 *a) { return d3(a->x, a->y, a->z); }

// Pulls a particle's motion back to the fraction t of x -> p (kinematic particles keep their
// path: they cannot be stopped, the dynamic side of the pair stops instead).
// Returns whether the particle's motion changed (it records the round in its stamp).
bool pbd_guard_limit_motion(pbd_world *w, uint32_t i, double t, uint32_t round)
{
	if (w->particles.p[i].w == 0.0f)
		return false;
	pbd_v3 x = v3_of4(pbd_motion_starts(w)[i]), p = v3_of4(w->particles.p[i]);
	pbd_v3 q = t <= 0.0 ? x : v3_lerp(x, p, (float)t);
	if (q.x == p.x && q.y == p.y && q.z == p.z)
		return false;
	v4_set3(&w->particles.p[i], q);
	w->guard.stamp[i] = round;
	w->guard.stamped++;
	if ((int)i < w->guard.stopped_capacity && !w->guard.stopped[i]) {  // for pbd_world_get_contacts
		w->guard.stopped[i] = 1;
		w->guard.stopped_count++;
	}
	return true;
}

// A pair needs a (re)test in round r when r is 0 or one of its particles changed in round r-1.
static bool needs_test(const pbd_world *w, const uint32_t *ids, int n, uint32_t round)
{
	if (round == 1)
		return true;
	for (int j = 0; j < n; ++j)
		if (w->guard.stamp[ids[j]] == round - 1)
			return true;
	return false;
}

static bool moved(const pbd_world *w, uint32_t i)
{
	const pbd_v4 *x = pbd_motion_starts(w);
	return w->particles.p[i].x != x[i].x || w->particles.p[i].y != x[i].y || w->particles.p[i].z != x[i].z;
}

// True when the swept boxes (x and p) of the two sides, grown by `gap`, do not overlap: the
// pair cannot come within `gap` during this substep and the sweep can be skipped.
static bool swept_apart(const pbd_world *w, const uint32_t *ids, int split, float gap)
{
	float lo[2][3], hi[2][3];
	for (int s = 0; s < 2; ++s)
		for (int k = 0; k < 3; ++k) {
			lo[s][k] = INFINITY;
			hi[s][k] = -INFINITY;
		}
	const pbd_v4 *start = pbd_motion_starts(w);
	for (int j = 0; j < 4; ++j) {
		int s = j < split ? 0 : 1;
		const float *x = &start[ids[j]].x, *p = &w->particles.p[ids[j]].x;
		for (int k = 0; k < 3; ++k) {
			lo[s][k] = minf(lo[s][k], minf(x[k], p[k]));
			hi[s][k] = maxf(hi[s][k], maxf(x[k], p[k]));
		}
	}
	for (int k = 0; k < 3; ++k)
		if (lo[0][k] - gap > hi[1][k] || lo[1][k] - gap > hi[0][k])
			return true;
	return false;
}

// Back off a little more than the time of impact found: positions are rounded to float
// after the limit, which must not land them closer than the CCD allowed.
static double safe_fraction(double toi)
{
	return toi > 0.0 ? toi * 0.98 : 0.0;
}

typedef struct guard_pass {
	pbd_world *w;
	uint32_t round;
	bool final_round;
	int64_t *tested;
} guard_pass;

// Whether a pair's sweep can meet at all: some particle moves and the swept boxes, grown by
// the gap, overlap. The guard only ever shortens motions toward x, which keeps a still
// particle still and shrinks every swept box, so a pair ruled out here before the first
// round stays ruled out in every round.
// Pairs whose clearance the particles' sweep drifts cannot use up are ruled out first, without
// reading their positions; the drifts too only shrink as the guard shortens motions.
static bool can_meet(const pbd_world *w, const uint32_t ids[4], int split, float thickness, float clearance)
{
	const float *d = w->pairs.tracks.drift;
	float gap = pbd_guard_gap(thickness);
	float used = split == 1 ? d[ids[0]] + 1.2f * maxf(d[ids[1]], maxf(d[ids[2]], d[ids[3]]))
			       : maxf(d[ids[0]], d[ids[1]]) + maxf(d[ids[2]], d[ids[3]]);
	if (clearance - gap > used)
		return false;
	if (!moved(w, ids[0]) && !moved(w, ids[1]) && !moved(w, ids[2]) && !moved(w, ids[3]))
		return false;
	return !swept_apart(w, ids, split, gap);
}

// Sweeps one vertex-triangle (split 1) or edge-edge (split 2) pair; on a hit pulls its
// particles back to the time of impact (or to x in the final rounds). Returns whether any
// particle's motion changed.
static bool guard_quad(const guard_pass *g, const uint32_t ids[4], int split, float thickness, float clearance)
{
	pbd_world *w = g->w;
	if (!needs_test(w, ids, 4, g->round))
		return false;
	if (!can_meet(w, ids, split, thickness, clearance))
		return false;
	float gap = pbd_guard_gap(thickness);
	pbd_d3 x0[4], x1[4];
	const pbd_v4 *start = pbd_motion_starts(w);
	for (int j = 0; j < 4; ++j) {
		x0[j] = at(&start[ids[j]]);
		x1[j] = at(&w->particles.p[ids[j]]);
	}
	(*g->tested)++;
	double toi;
	bool hit = split == 1 ? pbd_ccd_vertex_triangle(x0, x1, gap, &toi) : pbd_ccd_edge_edge(x0, x1, gap, &toi);
	if (!hit)
		return false;
	double f = g->final_round ? 0.0 : safe_fraction(toi);
	bool changed = false;
	for (int j = 0; j < 4; ++j)
		changed |= pbd_guard_limit_motion(w, ids[j], f, g->round);
	return changed;
}

static void mark_live_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	pbd_world *w = context;
	for (int n = start; n < end; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split = pbd_pair_particles(w, (uint32_t)n, ids, &thickness, &clearance);
		w->guard.live[n] = can_meet(w, ids, split, thickness, clearance);
	}
}

// Room for `need` items in a scratch array that only grows.
// Most candidate pairs of a resting or slowly moving cloth cannot meet within the substep:
// they are ruled out once, on both threads, and the rounds go over the rest in pair order.
static bool collect_live_pairs(pbd_world *w)
{
	int total = w->pairs.vt_count + w->pairs.ee_count;
	if (!pbd_reserve_array(w, (void **)&w->guard.live, &w->guard.live_capacity, total, sizeof *w->guard.live))
		return false;
	pbd_parallel_for(w, mark_live_range, total, 2048, w);
	int live = 0;
	for (int n = 0; n < total; ++n)
		live += w->guard.live[n];
	if (!pbd_reserve_array(w, (void **)&w->guard.pairs, &w->guard.pairs_capacity, live, sizeof *w->guard.pairs))
		return false;
	w->guard.live_peak = maxi(w->guard.live_peak, total);
	w->guard.pairs_peak = maxi(w->guard.pairs_peak, live);
	w->guard.pair_count = 0;
	for (int n = 0; n < total; ++n)
		if (w->guard.live[n])
			w->guard.pairs[w->guard.pair_count++] = (uint32_t)n;
	return true;
}

// Rounds are numbered from 1 (stamps start at 0 = never changed).
static int guard_round(pbd_world *w, uint32_t round, bool final_round, int64_t *tested)
{
	guard_pass g = {w, round, final_round, tested};
	int hits = 0;
	// Without the list (out of memory) every pair is swept.
	bool listed = w->guard.pair_count >= 0;
	int count = listed ? w->guard.pair_count : w->pairs.vt_count + w->pairs.ee_count;
	for (int n = 0; n < count; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split =
			pbd_pair_particles(w, listed ? w->guard.pairs[n] : (uint32_t)n, ids, &thickness, &clearance);
		hits += guard_quad(&g, ids, split, thickness, clearance);
	}
	for (int k = 0; k < w->pairs.pp_count; ++k) {
		const pbd_pp_contact *c = &w->pairs.pp[k];
		uint32_t ids[2] = {c->i, c->j};
		if (!needs_test(w, ids, 2, round))
			continue;
		if (!moved(w, c->i) && !moved(w, c->j))
			continue;
		(*tested)++;
		double toi;
		// Spheres may not pass through each other: they must not get closer than half
		// their radii's sum while moving.
		const pbd_v4 *x = pbd_motion_starts(w);
		if (pbd_ccd_sphere_sphere(at(&x[c->i]), at(&w->particles.p[c->i]), at(&x[c->j]),
					  at(&w->particles.p[c->j]), 0.5 * c->thickness, &toi)) {
			double f = final_round ? 0.0 : safe_fraction(toi);
			bool changed = pbd_guard_limit_motion(w, c->i, f, round);
			changed |= pbd_guard_limit_motion(w, c->j, f, round);
			hits += changed;
		}
	}
	return hits;
}

// A box's edges and corners are kept off the inside of cloth triangles by the pushes before
// the guard (constraints/particle_collider.c). A triangle whose corners the guard stopped at
// different points of their paths can stand across a box edge again (a cloth slipping over a
// table's corner at 1 substep: 56 of 120 frames): its corners go back to their starts too,
// when it was clear of the edges there.
static int settle_box_triangles(pbd_world *w, const pbd_collider *c, uint32_t stamp)
{
	int changed = 0;
	pbd_box_features box;
	pbd_box_features_at(c, &c->sub_end, &box);
	const pbd_v4 *starts = pbd_motion_starts(w);  // where pbd_guard_limit_motion sends them
	for (int t = 0; t < w->topology.tri_count; ++t) {
		const uint32_t *v = w->topology.tri + 3 * t;
		if (w->guard.stamp[v[0]] == 0 && w->guard.stamp[v[1]] == 0 && w->guard.stamp[v[2]] == 0)
			continue;
		if (pbd_box_triangle_crossed(&box, w->particles.p, starts, v, w->particles.radius[v[0]]))
			for (int j = 0; j < 3; ++j)
				changed += pbd_guard_limit_motion(w, v[j], 0.0, stamp);
	}
	return changed;
}

// Particles whose motion the guard shortened and that it left inside a still collider go back
// to their starts. The guard stops a particle on the straight path x -> p, and a particle that
// slid around a collider (both ends outside it) has a path that cuts through it: a cloth
// dragged fast across a sphere was left with vertices 6 mm inside it.
static int settle_still(pbd_world *w, const pbd_collider *c, uint32_t stamp)
{
	int changed = 0;
	if (w->guard.stamped == 0)
		return 0;  // the guard moved nothing: nothing it moved can be inside
	float bound = pbd_shape_bounding_radius(&c->shape);
	for (int i = 0; i < w->particles.count; ++i)
		if (w->guard.stamp[i] != 0 &&
		    pbd_collider_near_at_end(c, bound, v3_of4(w->particles.p[i]), w->particles.radius[i]))
			changed += pbd_guard_limit_motion(w, (uint32_t)i, 0.0, stamp);
	if (c->shape.type == PBD_SHAPE_BOX)
		changed += settle_box_triangles(w, c, stamp);
	return changed;
}

// After the guard's rounds: particles inside a moving collider, and the corners of triangles
// cutting a moving round collider, go back to their starts; so do the particles the guard left
// inside a still one (see guard.h).
int pbd_collider_settle(pbd_world *w, uint32_t stamp)
{
	int changed = 0;
	for (int k = 0; k < w->colliders.capacity; ++k) {
		const pbd_collider *c = &w->colliders.slots[k];
		if (!c->live)
			continue;
		if (!pbd_collider_moves(c)) {
			changed += settle_still(w, c, stamp);
			continue;
		}
		float bound = pbd_shape_bounding_radius(&c->shape);
		for (int i = 0; i < w->particles.count; ++i)
			if (pbd_collider_near_at_end(c, bound, v3_of4(w->particles.p[i]), 0.0f))
				changed += pbd_guard_limit_motion(w, (uint32_t)i, 0.0, stamp);
		if (!pbd_collider_is_round(c))
			continue;
		pbd_round_core_box core = pbd_round_core_box_at(c, &c->sub_end);
		for (int t = 0; t < w->topology.tri_count; ++t) {
			const uint32_t *v = w->topology.tri + 3 * t;
			const pbd_v3 corner[3] = {v3_of4(w->particles.p[v[0]]), v3_of4(w->particles.p[v[1]]),
						  v3_of4(w->particles.p[v[2]])};
			if (pbd_round_collider_within_at_end(c, &core, corner, c->shape.radius))
				for (int j = 0; j < 3; ++j)
					changed += pbd_guard_limit_motion(w, v[j], 0.0, stamp);
		}
	}
	return changed;
}

int pbd_guard_run(pbd_world *w, int64_t *tested)
{
	// Each round can only shorten motions, and only pairs touching a particle that the last
	// round changed are tested again. After a few rounds, pairs that still report have their
	// particles put back at x, the state the previous substep left free of intersections,
	// until no pair changes (a pair whose moving side is kinematic cannot be stopped; it
	// reports but changes nothing, which ends the loop).
	enum { LIMIT_ROUNDS = 4, MAX_ROUNDS = 64 };
	if (!pbd_reserve_array(w, (void **)&w->guard.stamp, &w->guard.stamp_capacity, w->particles.count, sizeof *w->guard.stamp))
		return 0;
	if (!pbd_reserve_array(w, (void **)&w->guard.stopped, &w->guard.stopped_capacity, w->particles.count,
			       sizeof *w->guard.stopped))
		w->guard.stopped_lost = true;  // the stops of this step go unrecorded; the guard runs on
	// The stamps are all zero (as allocated) unless the last run changed a motion.
	if (w->guard.stamped > 0)
		memset(w->guard.stamp, 0, (size_t)w->guard.stamp_capacity * sizeof *w->guard.stamp);
	w->guard.stamped = 0;
	if (!collect_live_pairs(w))
		w->guard.pair_count = -1;
	int caught = 0;
	uint32_t round = 1;
	for (;;) {
		for (; round <= MAX_ROUNDS; ++round) {
			int hits = guard_round(w, round, round > LIMIT_ROUNDS, tested);
			caught += hits;
			if (hits == 0)
				break;
		}
		// Moving colliders: what the rounds left inside one goes back to its start, and the
		// rounds run again on the pairs that changed. Both only move particles back toward
		// their starts, so this ends, at worst with every particle there.
		if (round > MAX_ROUNDS || w->colliders.capacity == 0 || pbd_collider_settle(w, round) == 0)
			break;
		++round;
	}
	return caught;
}

void pbd_guard_forget_stops(pbd_world *w)
{
	if (w->guard.stopped_count > 0)
		memset(w->guard.stopped, 0, (size_t)w->guard.stopped_capacity * sizeof *w->guard.stopped);
	w->guard.stopped_count = 0;
	w->guard.stopped_lost = false;
}

void pbd_guard_free(pbd_world *w)
{
	pbd_free_array(w, w->guard.stopped, (size_t)w->guard.stopped_capacity, sizeof *w->guard.stopped);
	pbd_free_array(w, w->guard.stamp, (size_t)w->guard.stamp_capacity, sizeof *w->guard.stamp);
	pbd_free_array(w, w->guard.live, (size_t)w->guard.live_capacity, sizeof *w->guard.live);
	pbd_free_array(w, w->guard.pairs, (size_t)w->guard.pairs_capacity, sizeof *w->guard.pairs);
}

void pbd_guard_trim(pbd_world *w)
{
	pbd_trim_array(w, (void **)&w->guard.live, &w->guard.live_capacity, w->guard.live_peak, 0,
		       sizeof *w->guard.live);
	pbd_trim_array(w, (void **)&w->guard.pairs, &w->guard.pairs_capacity, w->guard.pairs_peak, 0,
		       sizeof *w->guard.pairs);
	w->guard.live_peak = w->guard.pairs_peak = 0;
}
