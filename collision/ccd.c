// SPDX-License-Identifier: MIT
// Continuous collision detection and the step's guard against crossings.
//
// Narrow phase: additive CCD (Li, Kaufman, Jiang 2021; seeds 000/002). The distance between
// two primitives moving linearly changes at most as fast as l = |largest motion of one side|
// + |largest motion of the other| (after removing their shared mean motion), so from time t
// the pair cannot touch before t + (d(t) - min_distance) / l. Stepping by 0.9 of that bound
// never steps past a contact: no false negatives, as long as the distance itself is computed
// correctly, which double precision does for these queries. A pair is reported when its gap
// above min_distance has closed to a tenth of what it was, so grazing approaches are reported
// too (false positives that cost only motion); the reported time is one at which the pair is
// still apart.
#include <float.h>
#include <string.h>

#include "../engine/world.h"

#define ACCD_SHRINK 0.9
#define ACCD_GAP 0.1
#define ACCD_MAX_ITERATIONS 256

typedef double (*distance_fn)(const pbd_d3 x[4]);

static double vt_distance(const pbd_d3 x[4])
{
	double bary[3];
	return sqrt(pbd_point_triangle_distance2(x[0], x[1], x[2], x[3], bary));
}

static double ee_distance(const pbd_d3 x[4])
{
	double s, t;
	return sqrt(pbd_segment_segment_distance2(x[0], x[1], x[2], x[3], &s, &t));
}

static double len(pbd_d3 a) { return sqrt(d3_len2(a)); }

bool pbd_ccd_coordinates_in_range(const pbd_d3 x0[4], const pbd_d3 x1[4])
{
	for (int k = 0; k < 4; ++k) {
		const double c[6] = {x0[k].x, x0[k].y, x0[k].z, x1[k].x, x1[k].y, x1[k].z};
		for (int j = 0; j < 6; ++j)
			if (!(fabs(c[j]) <= PBD_CCD_COORDINATE_LIMIT))  // also false for NaN
				return false;
	}
	return true;
}

// split: primitives are x[0..split-1] and x[split..3].
static bool accd(const pbd_d3 x0[4], const pbd_d3 x1[4], int split, distance_fn distance, double min_distance,
		 double *toi)
{
	*toi = 0.0;
	if (!pbd_ccd_coordinates_in_range(x0, x1))
		return true;
	pbd_d3 dx[4], mean = d3(0, 0, 0);
	for (int k = 0; k < 4; ++k) {
		dx[k] = d3_sub(x1[k], x0[k]);
		mean = d3_add(mean, dx[k]);
	}
	mean = d3_scale(mean, 0.25);
	double la = 0.0, lb = 0.0;
	for (int k = 0; k < 4; ++k) {
		double m = len(d3_sub(dx[k], mean));
		if (k < split)
			la = fmax(la, m);
		else
			lb = fmax(lb, m);
	}
	double lp = la + lb;
	// Rounding of the computed distance, so that a pair that just reaches contact at t = 1
	// (d = lp (1 - t) exactly) is not rejected by one unit in the last place.
	double scale = 0.0;
	for (int k = 0; k < 4; ++k)
		scale = fmax(scale, fmax(fmax(fabs(x0[k].x), fabs(x0[k].y)), fmax(fabs(x0[k].z), fmax(fabs(x1[k].x),
								fmax(fabs(x1[k].y), fabs(x1[k].z))))));
	double rounding = 64.0 * DBL_EPSILON * scale;
	double d = distance(x0);
	if (d <= rounding)
		return true;  // touching at the start
	// A pair that starts closer than min_distance may not halve its gap: it can always move
	// apart, and never through.
	min_distance = fmin(min_distance, 0.5 * d);
	if (lp <= 0.0)
		return false;  // rigid translation: the distance never changes
	double gap = ACCD_GAP * (d - min_distance);
	double t = 0.0;
	for (int it = 0; it < ACCD_MAX_ITERATIONS; ++it) {
		// What is left of the motion cannot close the gap: no contact in [t, 1].
		if (d - min_distance - rounding > lp * (1.0 - t))
			return false;
		t += ACCD_SHRINK * (d - min_distance) / lp;
		if (t >= 1.0)
			return false;  // unreachable by the test above, kept for rounding
		pbd_d3 xt[4];
		for (int k = 0; k < 4; ++k)
			xt[k] = d3_mad(x0[k], dx[k], t);
		d = distance(xt);
		if (d - min_distance < gap) {
			*toi = t;
			return true;
		}
	}
	*toi = t;  // gave up stepping: stop at the last time known to be clear
	return true;
}

bool pbd_ccd_vertex_triangle(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi)
{
	return accd(x0, x1, 1, vt_distance, min_distance, toi);
}

bool pbd_ccd_edge_edge(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi)
{
	return accd(x0, x1, 2, ee_distance, min_distance, toi);
}

bool pbd_ccd_refined(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance, double *toi)
{
	double accd_toi;
	bool hit = edge_edge ? pbd_ccd_edge_edge(x0, x1, min_distance, &accd_toi)
			     : pbd_ccd_vertex_triangle(x0, x1, min_distance, &accd_toi);
	if (!hit)
		return false;
	// The additive time is the conservative one (the pair is still apart then); the inclusion
	// test only decides whether there is a contact at all.
	double box_start;
	if (!pbd_ccd_inclusion(x0, x1, edge_edge, min_distance, PBD_CCD_TOLERANCE, PBD_CCD_BOX_BUDGET, &box_start))
		return false;
	*toi = accd_toi;
	return true;
}

bool pbd_ccd_sphere_sphere(pbd_d3 a0, pbd_d3 a1, pbd_d3 b0, pbd_d3 b1, double distance, double *toi)
{
	// |r0 + t dr| = distance: a quadratic in t.
	pbd_d3 r0 = d3_sub(a0, b0), dr = d3_sub(d3_sub(a1, a0), d3_sub(b1, b0));
	double a = d3_len2(dr), b = 2.0 * d3_dot(r0, dr), r0_len2 = d3_len2(r0);
	*toi = 0.0;
	if (r0_len2 <= 0.0)
		return true;  // centres coincide: no direction to move apart in
	// A pair that already starts closer than `distance` may move apart or keep its distance,
	// but not close more than half of what is left (as in the additive test).
	if (r0_len2 <= distance * distance)
		distance = 0.5 * sqrt(r0_len2);
	double c = r0_len2 - distance * distance;
	if (a <= 0.0 || b >= 0.0)
		return false;  // not approaching
	double disc = b * b - 4.0 * a * c;
	if (disc < 0.0)
		return false;
	// The smaller root, in the cancellation-free form 2c / (-b + sqrt(disc)).
	double t = 2.0 * c / (-b + sqrt(disc));
	if (t > 1.0)
		return false;
	*toi = t;
	return true;
}

// ------------------------------------------------------------------------------- the guard

static pbd_d3 at(const pbd_v4 *a) { return d3(a->x, a->y, a->z); }

// Pulls a particle's motion back to the fraction t of x -> p (kinematic particles keep their
// path: they cannot be stopped, the dynamic side of the pair stops instead).
// Returns whether the particle's motion changed (it records the round in its stamp).
bool pbd_guard_limit_motion(pbd_world *w, uint32_t i, double t, uint32_t round)
{
	if (w->p[i].w == 0.0f)
		return false;
	pbd_v3 x = v3_of4(pbd_motion_starts(w)[i]), p = v3_of4(w->p[i]);
	pbd_v3 q = t <= 0.0 ? x : v3_lerp(x, p, (float)t);
	if (q.x == p.x && q.y == p.y && q.z == p.z)
		return false;
	v4_set3(&w->p[i], q);
	w->ccd_stamp[i] = round;
	return true;
}

// A pair needs a (re)test in round r when r is 0 or one of its particles changed in round r-1.
static bool needs_test(const pbd_world *w, const uint32_t *ids, int n, uint32_t round)
{
	if (round == 1)
		return true;
	for (int j = 0; j < n; ++j)
		if (w->ccd_stamp[ids[j]] == round - 1)
			return true;
	return false;
}

static bool moved(const pbd_world *w, uint32_t i)
{
	const pbd_v4 *x = pbd_motion_starts(w);
	return w->p[i].x != x[i].x || w->p[i].y != x[i].y || w->p[i].z != x[i].z;
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
		const float *x = &start[ids[j]].x, *p = &w->p[ids[j]].x;
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
	const float *d = w->drift;
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
		x1[j] = at(&w->p[ids[j]]);
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

int pbd_guard_pair(const pbd_world *w, uint32_t n, uint32_t ids[4], float *thickness, float *clearance)
{
	if ((int64_t)n < w->vt_count) {
		const pbd_vt_contact *c = &w->vt[n];
		const uint32_t *t = w->tri + 3 * c->tri;
		ids[0] = c->q, ids[1] = t[0], ids[2] = t[1], ids[3] = t[2];
		*thickness = c->thickness;
		*clearance = c->clearance;
		return 1;
	}
	const pbd_ee_contact *c = &w->ee[n - (uint32_t)w->vt_count];
	const uint32_t *ea = w->edge + 2 * c->a, *eb = w->edge + 2 * c->b;
	ids[0] = ea[0], ids[1] = ea[1], ids[2] = eb[0], ids[3] = eb[1];
	*thickness = c->thickness;
	*clearance = c->clearance;
	return 2;
}

static void mark_live_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	pbd_world *w = context;
	for (int n = start; n < end; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split = pbd_guard_pair(w, (uint32_t)n, ids, &thickness, &clearance);
		w->guard_live[n] = can_meet(w, ids, split, thickness, clearance);
	}
}

// Room for `need` items in a scratch array that only grows.
static bool reserve(pbd_world *w, void **array, int *capacity, int need, size_t size)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(need, 2 * *capacity);
	if (!pbd_grow_array(w, array, (size_t)*capacity, (size_t)cap, size))
		return false;
	*capacity = cap;
	return true;
}

// Most candidate pairs of a resting or slowly moving cloth cannot meet within the substep:
// they are ruled out once, on both threads, and the rounds go over the rest in pair order.
static bool collect_live_pairs(pbd_world *w)
{
	int total = w->vt_count + w->ee_count;
	if (!reserve(w, (void **)&w->guard_live, &w->guard_live_capacity, total, sizeof *w->guard_live))
		return false;
	pbd_parallel_for(w, mark_live_range, total, 2048, w);
	int live = 0;
	for (int n = 0; n < total; ++n)
		live += w->guard_live[n];
	if (!reserve(w, (void **)&w->guard_pairs, &w->guard_pairs_capacity, live, sizeof *w->guard_pairs))
		return false;
	w->guard_live_peak = maxi(w->guard_live_peak, total);
	w->guard_pairs_peak = maxi(w->guard_pairs_peak, live);
	w->guard_pair_count = 0;
	for (int n = 0; n < total; ++n)
		if (w->guard_live[n])
			w->guard_pairs[w->guard_pair_count++] = (uint32_t)n;
	return true;
}

// Rounds are numbered from 1 (stamps start at 0 = never changed).
static int guard_round(pbd_world *w, uint32_t round, bool final_round, int64_t *tested)
{
	guard_pass g = {w, round, final_round, tested};
	int hits = 0;
	// Without the list (out of memory) every pair is swept.
	bool listed = w->guard_pair_count >= 0;
	int count = listed ? w->guard_pair_count : w->vt_count + w->ee_count;
	for (int n = 0; n < count; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split = pbd_guard_pair(w, listed ? w->guard_pairs[n] : (uint32_t)n, ids, &thickness, &clearance);
		hits += guard_quad(&g, ids, split, thickness, clearance);
	}
	for (int k = 0; k < w->pp_count; ++k) {
		const pbd_pp_contact *c = &w->pp[k];
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
		if (pbd_ccd_sphere_sphere(at(&x[c->i]), at(&w->p[c->i]), at(&x[c->j]), at(&w->p[c->j]),
					  0.5 * c->thickness, &toi)) {
			double f = final_round ? 0.0 : safe_fraction(toi);
			bool changed = pbd_guard_limit_motion(w, c->i, f, round);
			changed |= pbd_guard_limit_motion(w, c->j, f, round);
			hits += changed;
		}
	}
	return hits;
}

// After the guard's rounds: particles inside a moving collider, and the corners of triangles
// cutting a moving round collider, go back to their starts (see world.h).
int pbd_collider_settle(pbd_world *w, uint32_t stamp)
{
	int changed = 0;
	for (int k = 0; k < w->collider_capacity; ++k) {
		const pbd_collider *c = &w->colliders[k];
		if (!c->live || !pbd_collider_moves(c))
			continue;
		float bound = pbd_shape_bounding_radius(&c->shape);
		for (int i = 0; i < w->particle_count; ++i)
			if (pbd_collider_near_at_end(c, bound, v3_of4(w->p[i]), 0.0f))
				changed += pbd_guard_limit_motion(w, (uint32_t)i, 0.0, stamp);
		if (!pbd_collider_is_round(c))
			continue;
		for (int t = 0; t < w->tri_count; ++t) {
			const uint32_t *v = w->tri + 3 * t;
			const pbd_v3 corner[3] = {v3_of4(w->p[v[0]]), v3_of4(w->p[v[1]]), v3_of4(w->p[v[2]])};
			if (pbd_round_collider_within_at_end(c, corner, c->shape.radius))
				for (int j = 0; j < 3; ++j)
					changed += pbd_guard_limit_motion(w, v[j], 0.0, stamp);
		}
	}
	return changed;
}

int pbd_ccd_guard(pbd_world *w, int64_t *tested)
{
	// Each round can only shorten motions, and only pairs touching a particle that the last
	// round changed are tested again. After a few rounds, pairs that still report have their
	// particles put back at x, the state the previous substep left free of intersections,
	// until no pair changes (a pair whose moving side is kinematic cannot be stopped; it
	// reports but changes nothing, which ends the loop).
	enum { LIMIT_ROUNDS = 4, MAX_ROUNDS = 64 };
	if (!reserve(w, (void **)&w->ccd_stamp, &w->ccd_stamp_capacity, w->particle_count, sizeof *w->ccd_stamp))
		return 0;
	if (w->particle_count > 0)  // an empty world has no array at all
		memset(w->ccd_stamp, 0, (size_t)w->particle_count * sizeof *w->ccd_stamp);
	pbd_pairs_sweep_drift(w);
	if (!collect_live_pairs(w))
		w->guard_pair_count = -1;
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
		if (round > MAX_ROUNDS || w->collider_capacity == 0 || pbd_collider_settle(w, round) == 0)
			break;
		++round;
	}
	return caught;
}

void pbd_ccd_free(pbd_world *w)
{
	pbd_free_array(w, w->ccd_stamp, (size_t)w->ccd_stamp_capacity, sizeof *w->ccd_stamp);
	pbd_free_array(w, w->guard_live, (size_t)w->guard_live_capacity, sizeof *w->guard_live);
	pbd_free_array(w, w->guard_pairs, (size_t)w->guard_pairs_capacity, sizeof *w->guard_pairs);
}

void pbd_ccd_trim(pbd_world *w)
{
	pbd_trim_array(w, (void **)&w->guard_live, &w->guard_live_capacity, w->guard_live_peak, 0, sizeof *w->guard_live);
	pbd_trim_array(w, (void **)&w->guard_pairs, &w->guard_pairs_capacity, w->guard_pairs_peak, 0,
		       sizeof *w->guard_pairs);
	w->guard_live_peak = w->guard_pairs_peak = 0;
}
