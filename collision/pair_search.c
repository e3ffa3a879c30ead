// SPDX-License-Identifier: MIT
// The searches of the pairs module (pairs.h): which vertex-triangle, edge-edge and particle
// pairs can come within their thickness while their particles keep to their tracks.
//
// Every primitive gets a box in frame coordinates around its particles' tracks from now until
// they run out, grown by the slacks and radii, and every patch (patches.c) the box of its
// primitives. A spatial hash of the patches' boxes (broad_phase.c) gives the pairs of patches
// that may touch; a pair of one cloth's patches that still follow one rigid motion is passed
// over whole, and in the others each pair of primitives whose boxes overlap is kept when the
// distance of its tracks now, less how far the tracks can close in and the slacks, is within
// its thickness.
//
// A full search fits and boxes every patch and asks every patch for its pairs. An update for a
// few straying particles finds again only the pairs with a primitive that moved (one of its
// particles strayed): the patches they belong to are boxed anew and added to the hash anew
// (older entries of a patch are passed over), and each asks the hash with the box of its
// primitives that moved, a small part of its own box.
#include <stdalign.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pair_search.h"

static const pbd_body *body(const pbd_world *w, uint32_t slot) { return &w->bodies.slots[slot]; }

static bool is_free(const pbd_world *w, uint32_t i)
{
	return body(w, w->particles.owner[i])->kind == PBD_BODY_PARTICLES;
}

// In an update: whether a particle strayed (its track is this update's), and whether any of a
// primitive's particles did. Only pairs with such a primitive are dropped and found again: a
// pair whose particles all kept to their tracks stays what its search found it to be until
// the first of those tracks runs out, and then that particle strays.
static bool moved(const pbd_world *w, uint32_t i) { return w->pairs.tracks.stamp[i] == w->pairs.update_serial; }

static bool triangle_moved(const pbd_world *w, uint32_t t)
{
	const uint32_t *v = w->topology.tri + 3 * t;
	return moved(w, v[0]) | moved(w, v[1]) | moved(w, v[2]);
}

static bool edge_moved(const pbd_world *w, uint32_t e)
{
	const uint32_t *v = w->topology.edge + 2 * e;
	return moved(w, v[0]) | moved(w, v[1]);
}

// A lower bound of the distance between two point sets from their boxes: the widest gap
// along one axis. Cheap; decides most pairs before an exact distance is needed.
static float gap_along_axes(const pbd_v3 *a, int na, const pbd_v3 *b, int nb)
{
	pbd_aabb p = pbd_points_box(a, na, 0.0f), q = pbd_points_box(b, nb, 0.0f);
	float gx = maxf(q.lo.x - p.hi.x, p.lo.x - q.hi.x);
	float gy = maxf(q.lo.y - p.hi.y, p.lo.y - q.hi.y);
	float gz = maxf(q.lo.z - p.hi.z, p.lo.z - q.hi.z);
	return maxf(0.0f, maxf(gx, maxf(gy, gz)));
}

// Whether a pair of one cloth is the near pairs' (near_pairs.h): the searches of patches pass
// over it, and only the near pairs' own searches (chunk->near) list it.
static bool near_owns_vt(const pbd_world *w, uint32_t slot, uint32_t q, uint32_t tri)
{
	const pbd_near_body *b = pbd_near_body_of(&w->pairs.near, slot);
	return b && pbd_near_owns_vt(w, b, q, tri);
}

static bool near_owns_ee(const pbd_world *w, uint32_t slot, uint32_t a, uint32_t b)
{
	const pbd_near_body *nb = pbd_near_body_of(&w->pairs.near, slot);
	return nb && pbd_near_owns_ee(w, nb, a, b);
}

// Whether every pair of patches p and q (of one covered cloth) is the near pairs': together
// they span at most the cloth's reach along both grid axes.
static bool near_owns_patches(const pbd_world *w, uint32_t slot, uint32_t p, uint32_t q)
{
	const pbd_near_body *b = pbd_near_body_of(&w->pairs.near, slot);
	if (!b)
		return false;
	pbd_grid_span s = w->pairs.patch_span[p], t = w->pairs.patch_span[q];
	return pbd_near_spans(b, s.ilo < t.ilo ? s.ilo : t.ilo, s.ihi > t.ihi ? s.ihi : t.ihi, s.jlo < t.jlo ? s.jlo : t.jlo,
			      s.jhi > t.jhi ? s.jhi : t.jhi);
}

// A pair's clearance (pbd_pairs_drift) in float, rounded down: the bound must stay a bound.
static float clearance_of(double d)
{
	float c = (float)(d * (1.0 - 1e-6) - 1e-12);
	return isfinite(c) ? c : -INFINITY;
}

// Two points of one sheet that are g apart along it can face each other across at most 2g/pi:
// the sheet must fold back on itself in between. So a pair of one cloth that is closer than
// twice the thickness in the rest shape keeps half its rest distance instead of the thickness
// (PBD_KEPT_REST_SHARE, below the 2/pi a fold allows): near neighbours on a fine mesh are then
// not in contact while the cloth lies flat or folds, and still never pass through each other.
// Neighbours that touch in the rest shape (a seam of unwelded vertices) are never pairs; in a
// torn cloth they keep at least the gap its tears opened (pbd_body.tear_gap).
#define REST_FOLD PBD_KEPT_REST_SHARE
static float kept_distance(const pbd_body *b, float thickness, double rest)
{
	double k = fmax(rest * REST_FOLD, (double)b->tear_gap);
	return k < thickness ? (float)k : thickness;
}

// No less than the rest distance of a vertex-triangle or edge-edge pair (as
// pbd_point_triangle_distance2 or pbd_segment_segment_distance2 compute it): the distance of
// their closest two corners, widened far beyond the rounding of either. Since kept_distance
// grows with the rest distance, a pair farther apart now than what this bound would keep is
// farther than what it keeps: most pairs of a cloth lying flat or gently curved are decided so,
// without the exact distance at rest.
static double rest_corner_bound(const pbd_v3 *a, int na, const pbd_v3 *b, int nb)
{
	double best = INFINITY;
	for (int j = 0; j < na; ++j)
		for (int k = 0; k < nb; ++k) {
			double dx = (double)a[j].x - b[k].x, dy = (double)a[j].y - b[k].y, dz = (double)a[j].z - b[k].z;
			best = fmin(best, dx * dx + dy * dy + dz * dz);
		}
	return sqrt(best) * (1.0 + 1e-9);
}

// A pair of one cloth closer than thickness / REST_FOLD along every axis in the rest shape
// keeps less than the thickness (kept_distance): its rest corners, and their bound.
typedef struct rest_pair {
	bool near;
	pbd_v3 a[3], b[3];
	double corners;  // rest_corner_bound
} rest_pair;

static rest_pair rest_pair_of(const pbd_world *w, bool one_cloth, float thickness, const uint32_t *a, int na,
			      const uint32_t *b, int nb)
{
	rest_pair r = {.near = false};
	if (!one_cloth)
		return r;
	const pbd_v3 *rest = w->particles.rest;
	for (int j = 0; j < na; ++j)
		r.a[j] = rest[a[j]];
	for (int k = 0; k < nb; ++k)
		r.b[k] = rest[b[k]];
	r.near = gap_along_axes(r.a, na, r.b, nb) < thickness / REST_FOLD;
	if (r.near)
		r.corners = rest_corner_bound(r.a, na, r.b, nb);
	return r;
}

// What a near pair keeps at most: its rest distance is at most that of the rest points at the
// closest points' weights now (wa of a's corners, wb of b's), and at most the corners' bound,
// and kept_distance grows with it. A pair farther apart now than this (less how far its tracks
// close in) is farther than what it keeps: it is turned away before the tracks' own tests, as
// it would be after them. The weights count only when they are those of points on the
// primitives: a sliver's closest point now can have weights rounded far outside [0, 1].
static double kept_at_most(const pbd_body *body, float thickness, const rest_pair *r, const double *wa, int na,
			   const double *wb, int nb)
{
	pbd_d3 pa = {0, 0, 0}, pb = {0, 0, 0};
	bool on = true;
	for (int j = 0; j < na; ++j) {
		on = on && wa[j] >= 0.0 && wa[j] <= 1.0;
		pa = d3_add(pa, d3_scale(d3_of(r->a[j]), wa[j]));
	}
	for (int k = 0; k < nb; ++k) {
		on = on && wb[k] >= 0.0 && wb[k] <= 1.0;
		pb = d3_add(pb, d3_scale(d3_of(r->b[k]), wb[k]));
	}
	double there = on ? sqrt(d3_len2(d3_sub(pa, pb))) * (1.0 + 1e-9) : INFINITY;
	return kept_distance(body, thickness, fmin(there, r->corners));
}

// When the first of two sets of tracks runs out (a NaN is passed over, as fmin would; the
// library's fmin is a call here).
static double tracks_end(const pbd_tracks *t, const uint32_t *a, int na, const uint32_t *b, int nb)
{
	double end = INFINITY;
	for (int j = 0; j < na; ++j)
		end = t->expiry[a[j]] < end ? t->expiry[a[j]] : end;
	for (int k = 0; k < nb; ++k)
		end = t->expiry[b[k]] < end ? t->expiry[b[k]] : end;
	return end;
}

// How far two sets of tracks can close in on each other from now until the first of them runs
// out: the largest difference of their velocities times that time (0 when they move alike).
static double closing(const pbd_tracks *t, const uint32_t *a, int na, const uint32_t *b, int nb, double now)
{
	float rel2 = 0.0f;  // the largest squared difference: one square root, the same result
	for (int j = 0; j < na; ++j)
		for (int k = 0; k < nb; ++k)
			rel2 = maxf(rel2, v3_len2(v3_sub(t->vel[a[j]], t->vel[b[k]])));
	float rel = sqrtf(rel2);
	if (rel == 0.0f)
		return 0.0;
	return (double)rel * (tracks_end(t, a, na, b, nb) - now) * (1.0 + 1e-5);
}

// How far apart two sets of tracks stay along a unit direction n from now until the first of
// them runs out: a lower bound of their distance. Every point of a primitive is a weighted mean
// of its corners, so the difference of two points along n is a weighted mean of the corners'
// differences, each linear in time: the least of those at either end of the window bounds it.
// Along the direction between the closest points now it is their distance less only how fast
// the tracks close in along it, where `closing` counts every relative speed as if head-on: a
// pair sliding past, or moving apart, keeps its distance. Positions are taken from `origin`, a
// point near them. -INFINITY when not finite.
static double separation_along(const pbd_tracks *t, const uint32_t *a, int na, const uint32_t *b, int nb, double now,
			       pbd_d3 n, pbd_d3 origin)
{
	double window = tracks_end(t, a, na, b, nb) - now;
	double at[2][3], rate[2][3];  // each corner along n: where it is now, and its velocity
	for (int side = 0; side < 2; ++side)
		for (int j = 0; j < (side ? nb : na); ++j) {
			uint32_t i = side ? b[j] : a[j];
			at[side][j] = d3_dot(d3_sub(d3_of(pbd_tracks_here(t)[i]), origin), n);
			rate[side][j] = d3_dot(d3_of(t->vel[i]), n);
		}
	double least = INFINITY;
	bool finite = true;
	for (int j = 0; j < na; ++j)
		for (int k = 0; k < nb; ++k) {
			double apart = at[0][j] - at[1][k], closes = rate[0][j] - rate[1][k];
			// Closing in needs a velocity, and a moving track runs out: the window is finite then.
			double at_end = closes < 0.0 ? apart + closes * window : apart;
			finite = finite && isfinite(at_end);
			least = at_end < least ? at_end : least;
		}
	return finite ? least : -INFINITY;
}

// The larger of two lower bounds of how far apart two sets of tracks stay while they hold: the
// distance now (d, between points p and q) less how far they can close in at all, and how far
// apart they stay along the direction from q to p.
static double tracks_apart(const pbd_tracks *t, const uint32_t *a, int na, const uint32_t *b, int nb, double now,
			   double d, double close, pbd_d3 p, pbd_d3 q)
{
	double bound = d - close;
	pbd_d3 n = d3_sub(p, q);
	double length = sqrt(d3_len2(n));  // d, up to rounding: the direction must be a unit one
	if (close > 0.0 && length > 0.0) {
		double along = separation_along(t, a, na, b, nb, now, d3_scale(n, 1.0 / length), q);
		bound = along > bound ? along : bound;
	}
	return bound;
}

// Whether the boxes of two sets of tracks from now until the first of them runs out, grown by
// their slacks, come within `reach` of each other along every axis (the tracks of a pair
// moving apart, or past each other at a distance, do not).
static bool tracks_near(const pbd_tracks *t, const uint32_t *a, int na, const uint32_t *b, int nb, double now,
			float reach)
{
	double end = tracks_end(t, a, na, b, nb);
	pbd_aabb box[2];
	for (int side = 0; side < 2; ++side) {
		const uint32_t *ids = side ? b : a;
		int n = side ? nb : na;
		box[side] = (pbd_aabb){v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)};
		for (int j = 0; j < n; ++j) {
			pbd_v3 p = pbd_track_at(t, ids[j], now);
			pbd_v3 q = isfinite(end) ? pbd_track_at(t, ids[j], end) : p;
			float g = t->slack[ids[j]];
			box[side].lo = v3(minf(box[side].lo.x, minf(p.x, q.x) - g), minf(box[side].lo.y, minf(p.y, q.y) - g),
					  minf(box[side].lo.z, minf(p.z, q.z) - g));
			box[side].hi = v3(maxf(box[side].hi.x, maxf(p.x, q.x) + g), maxf(box[side].hi.y, maxf(p.y, q.y) + g),
					  maxf(box[side].hi.z, maxf(p.z, q.z) + g));
		}
	}
	float r = reach * (1.0f + 1e-5f);
	return box[0].lo.x - r <= box[1].hi.x && box[1].lo.x - r <= box[0].hi.x && box[0].lo.y - r <= box[1].hi.y &&
	       box[1].lo.y - r <= box[0].hi.y && box[0].lo.z - r <= box[1].hi.z && box[1].lo.z - r <= box[0].hi.z;
}

static bool all_kinematic(const pbd_world *w, const uint32_t *ids, int n)
{
	for (int j = 0; j < n; ++j)
		if (w->particles.p[ids[j]].w != 0.0f)
			return false;
	return true;
}

static float max_slack(const pbd_tracks *t, const uint32_t *ids, int n)
{
	float s = 0.0f;
	for (int j = 0; j < n; ++j)
		s = maxf(s, t->slack[ids[j]]);
	return s;
}

// How far particle i's track moves from now until it runs out, rounded up by far more than
// the rounding of `closing` (0 for a track at rest; NaN, which no test passes on, when not
// finite). The tracks of a pair then close in by no more than the largest travel of one side
// plus that of the other: |va - vb| <= |va| + |vb|, and the pair's window is the shortest.
// Kept from the search until the track is replaced: its time left only shrinks.
static float track_travel(const pbd_world *w, uint32_t i)
{
	const pbd_tracks *t = &w->pairs.tracks;
	pbd_v3 v = t->vel[i];
	if (v.x == 0.0f && v.y == 0.0f && v.z == 0.0f)
		return 0.0f;
	double speed = sqrt(v3_dot_d(v, v));
	return (float)(speed * (t->expiry[i] - w->time) * (1.0 + 1e-4));
}

static float max_travel(const float *travel, const uint32_t *ids, int n)
{
	float s = travel[ids[0]];
	for (int j = 1; j < n; ++j)
		s = maxf(s, travel[ids[j]]);
	return s;
}

// Stores a pair when the chunk has room; counts it either way (see pbd_pair_chunk).
#define CHUNK_PUSH(chunk, list, value)                                  \
	do {                                                            \
		if ((chunk)->list##_count < (chunk)->list##_capacity)   \
			(chunk)->list[(chunk)->list##_count] = (value); \
		(chunk)->list##_count++;                                \
	} while (0)

static void try_vt(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t q, uint32_t tri)
{
	const uint32_t *t = w->topology.tri + 3 * tri;
	if (q == t[0] || q == t[1] || q == t[2])
		return;
	uint32_t oq = w->particles.owner[q], ot = w->topology.tri_owner[tri];
	if (oq == ot && !body(w, ot)->material.self_collision)
		return;
	if (oq == ot && !chunk->near && near_owns_vt(w, oq, q, tri))
		return;
	float thickness = w->particles.radius[q] + w->particles.radius[t[0]];
	if (thickness <= 1e-7f)
		return;
	const pbd_tracks *tr = &w->pairs.tracks;
	const pbd_v3 *here = pbd_tracks_here(tr);
	pbd_v3 xq = here[q], xt[3] = {here[t[0]], here[t[1]], here[t[2]]};
	double reach = (double)tr->slack[q] + max_slack(tr, t, 3);
	// The solver also acts on a vertex a little past the triangle's edges (a barycentric
	// tolerance of 0.02: at most that share of the longest edge).
	double edge2 = fmax(v3_dot_d(v3_sub(xt[1], xt[0]), v3_sub(xt[1], xt[0])),
			    fmax(v3_dot_d(v3_sub(xt[2], xt[1]), v3_sub(xt[2], xt[1])),
				 v3_dot_d(v3_sub(xt[0], xt[2]), v3_sub(xt[0], xt[2]))));
	double tolerance = 0.025 * sqrt(edge2);
	// The gap first against the tracks' travels (which bound how far they close in, as in
	// try_ee), then against how far they really close in.
	float gap = gap_along_axes(&xq, 1, xt, 3);
	const float *travel = w->pairs.travel;
	if (gap > thickness + reach + tolerance + ((double)travel[q] + max_travel(travel, t, 3)))
		return;
	double close = closing(tr, &q, 1, t, 3, w->time);
	double beyond = close + reach + tolerance;  // what the distance now may exceed the thickness by
	if (gap > thickness + beyond)
		return;
	// The distance before the tracks' boxes: it turns away most of the pairs the boxes let
	// through, and a pair must pass both.
	double bary[3];
	pbd_d3 pq = d3_of(xq), p0 = d3_of(xt[0]), p1 = d3_of(xt[1]), p2 = d3_of(xt[2]);
	double d = sqrt(pbd_point_triangle_distance2(pq, p0, p1, p2, bary));
	if (!(d <= thickness + beyond))
		return;
	beyond = reach + tolerance;  // what the tracks' distance may exceed the thickness by
	const double one = 1.0;
	rest_pair rest = rest_pair_of(w, oq == ot, thickness, &q, 1, t, 3);
	if (rest.near && d - close > kept_at_most(body(w, oq), thickness, &rest, &one, 1, bary, 3) + beyond)
		return;
	const uint32_t quad[4] = {q, t[0], t[1], t[2]};
	if (all_kinematic(w, quad, 4))
		return;
	pbd_d3 closest = d3_add(d3_add(d3_scale(p0, bary[0]), d3_scale(p1, bary[1])), d3_scale(p2, bary[2]));
	double apart = tracks_apart(tr, &q, 1, t, 3, w->time, d, close, pq, closest);
	if (!(apart <= thickness + beyond))
		return;
	if (close > 0.0 && !tracks_near(tr, &q, 1, t, 3, w->time, thickness + (float)tolerance))
		return;
	if (rest.near) {
		if (apart > kept_distance(body(w, oq), thickness, rest.corners) + beyond)
			return;
		thickness = kept_distance(body(w, oq), thickness,
					  sqrt(pbd_point_triangle_distance2(d3_of(rest.a[0]), d3_of(rest.b[0]), d3_of(rest.b[1]),
									    d3_of(rest.b[2]), bary)));
		if (thickness <= 1e-7f || apart > thickness + beyond)
			return;
	}
	pbd_vt_contact pair = {q, tri, thickness, clearance_of(apart - tolerance),
			       body(w, oq)->kind == PBD_BODY_PARTICLES};
	CHUNK_PUSH(chunk, vt, pair);
}

static void try_ee(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t a, uint32_t b)
{
	const uint32_t *ea = w->topology.edge + 2 * a, *eb = w->topology.edge + 2 * b;
	if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1])
		return;
	uint32_t oa = w->topology.edge_owner[a], ob = w->topology.edge_owner[b];
	if (oa == ob && !body(w, oa)->material.self_collision)
		return;
	if (oa == ob && !chunk->near && near_owns_ee(w, oa, a, b))
		return;
	float thickness = w->particles.radius[ea[0]] + w->particles.radius[eb[0]];
	if (thickness <= 1e-7f)
		return;
	const pbd_tracks *tr = &w->pairs.tracks;
	const pbd_v3 *here = pbd_tracks_here(tr);
	pbd_v3 xa[2] = {here[ea[0]], here[ea[1]]}, xb[2] = {here[eb[0]], here[eb[1]]};
	double slacks = (double)max_slack(tr, ea, 2) + max_slack(tr, eb, 2);
	// The distance first, as in try_vt, its lower bound before that: it turns most pairs away,
	// at first against the tracks' travels (which bound how far they close in) before how far
	// they close in is worked out.
	pbd_d3 a0 = d3_of(xa[0]), a1 = d3_of(xa[1]), b0 = d3_of(xb[0]), b1 = d3_of(xb[1]);
	double lower, upper;
	pbd_segment_segment_bounds(a0, a1, b0, b1, &lower, &upper);
	const float *travel = w->pairs.travel;
	if (lower > thickness + slacks + ((double)max_travel(travel, ea, 2) + max_travel(travel, eb, 2)))
		return;
	double close = closing(tr, ea, 2, eb, 2, w->time), beyond = close + slacks;
	if (lower > thickness + beyond || gap_along_axes(xa, 2, xb, 2) > thickness + beyond)
		return;
	double s, u;
	double d = sqrt(pbd_segment_segment_distance2(a0, a1, b0, b1, &s, &u));
	if (!(d <= thickness + beyond))
		return;
	beyond = slacks;  // what the tracks' distance may exceed the thickness by
	const double wa[2] = {1.0 - s, s}, wb[2] = {1.0 - u, u};
	rest_pair rest = rest_pair_of(w, oa == ob, thickness, ea, 2, eb, 2);
	if (rest.near && d - close > kept_at_most(body(w, oa), thickness, &rest, wa, 2, wb, 2) + beyond)
		return;
	const uint32_t quad[4] = {ea[0], ea[1], eb[0], eb[1]};
	if (all_kinematic(w, quad, 4))
		return;
	double apart = tracks_apart(tr, ea, 2, eb, 2, w->time, d, close, d3_mad(a0, d3_sub(a1, a0), s),
				    d3_mad(b0, d3_sub(b1, b0), u));
	if (!(apart <= thickness + beyond))
		return;
	if (close > 0.0 && !tracks_near(tr, ea, 2, eb, 2, w->time, thickness))
		return;
	if (rest.near) {
		if (apart > kept_distance(body(w, oa), thickness, rest.corners) + beyond)
			return;
		thickness = kept_distance(body(w, oa), thickness,
					  sqrt(pbd_segment_segment_distance2(d3_of(rest.a[0]), d3_of(rest.a[1]), d3_of(rest.b[0]),
									     d3_of(rest.b[1]), &s, &u)));
		if (thickness <= 1e-7f || apart > thickness + beyond)
			return;
	}
	pbd_ee_contact pair = {a < b ? a : b, a < b ? b : a, thickness, clearance_of(apart)};
	CHUNK_PUSH(chunk, ee, pair);
}

// A free particle i against particle j (free, or a cloth vertex: vertex against vertex of
// cloth is left to the triangle and edge contacts).
static void try_pp(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t i, uint32_t j)
{
	const uint32_t ij[2] = {i, j};
	if (all_kinematic(w, ij, 2))
		return;
	const pbd_tracks *tr = &w->pairs.tracks;
	float thickness = w->particles.radius[i] + w->particles.radius[j];
	double close = closing(tr, &i, 1, &j, 1, w->time);
	const pbd_v3 *here = pbd_tracks_here(tr);
	pbd_d3 xi = d3_of(here[i]), xj = d3_of(here[j]);
	double d = sqrt(d3_len2(d3_sub(xi, xj))), slacks = (double)tr->slack[i] + tr->slack[j];
	if (!(d <= thickness + slacks + close) || !(tracks_apart(tr, &i, 1, &j, 1, w->time, d, close, xi, xj) <= thickness + slacks))
		return;
	if (close > 0.0 && !tracks_near(tr, &i, 1, &j, 1, w->time, thickness))
		return;
	pbd_pp_contact pair = {i, j, thickness, (uint8_t)(is_free(w, j) ? 0 : 2)};
	CHUNK_PUSH(chunk, pp, pair);
}

// ---- Boxes

// The frame box of particle i's track from now until it runs out, grown by its slack and radius.
static pbd_aabb particle_box(const pbd_world *w, uint32_t i)
{
	const pbd_tracks *t = &w->pairs.tracks;
	pbd_v3 a = pbd_track_at(t, i, w->time);
	pbd_v3 b = isfinite(t->expiry[i]) ? pbd_track_at(t, i, t->expiry[i]) : a;
	float g = t->slack[i] + w->particles.radius[i];
	return (pbd_aabb){v3(minf(a.x, b.x) - g, minf(a.y, b.y) - g, minf(a.z, b.z) - g),
			  v3(maxf(a.x, b.x) + g, maxf(a.y, b.y) + g, maxf(a.z, b.z) + g)};
}

static void grow(pbd_aabb *b, pbd_aabb r)
{
	b->lo = v3(minf(b->lo.x, r.lo.x), minf(b->lo.y, r.lo.y), minf(b->lo.z, r.lo.z));
	b->hi = v3(maxf(b->hi.x, r.hi.x), maxf(b->hi.y, r.hi.y), maxf(b->hi.z, r.hi.z));
}

// The box of a triangle or edge: its corners' boxes (one cloth, one radius).
static pbd_aabb union_of(const pbd_aabb *vbox, const uint32_t *ids, int n)
{
	pbd_aabb b = vbox[ids[0]];
	for (int k = 1; k < n; ++k)
		grow(&b, vbox[ids[k]]);
	return b;
}

static pbd_aabb *vertex_boxes(pbd_world *w) { return w->pairs.boxes; }

// ---- The primitives' boxes, in patch order (pbd_pairs.prim_box)

// The slots of the k-th triangle (patch_tris[k]) and the k-th edge (patch_edges[k]).
static int tri_slot(const pbd_world *w, int k) { PBD_UNUSED(w); return k; }
static int edge_slot(const pbd_world *w, int k) { return w->topology.tri_count + 4 + k; }

static float *prim_column(const pbd_pairs *pr, int c) { return pr->prim_box + (size_t)c * (size_t)pr->prim_stride; }
static uint32_t *prim_corner_column(const pbd_pairs *pr, int c)
{
	return pr->prim_corner + (size_t)c * (size_t)pr->prim_stride;
}

static void prim_store(pbd_pairs *pr, int slot, pbd_aabb b)
{
	const float v[6] = {b.lo.x, b.lo.y, b.lo.z, b.hi.x, b.hi.y, b.hi.z};
	for (int c = 0; c < 6; ++c)
		prim_column(pr, c)[slot] = v[c];
}

static pbd_aabb prim_load(const pbd_pairs *pr, int slot)
{
	float v[6];
	for (int c = 0; c < 6; ++c)
		v[c] = prim_column(pr, c)[slot];
	return (pbd_aabb){v3(v[0], v[1], v[2]), v3(v[3], v[4], v[5])};
}

// Patch p now, from its particles' boxes: its triangles' and edges' boxes, its own box and its
// rigid fit. The patch's box holds every box of its own (an edge's lies in its triangle's), so
// a primitive whose box meets another's meets that one's patch too.
static void refresh_patch(pbd_world *w, int p)
{
	pbd_pairs *pr = &w->pairs;
	pbd_aabb *vbox = vertex_boxes(w);
	pbd_aabb box = vbox[pr->patch_corners[pr->patch_corner_start[p]]];
	for (int k = pr->patch_tri_start[p]; k < pr->patch_tri_start[p + 1]; ++k) {
		pbd_aabb t = union_of(vbox, w->topology.tri + 3 * pr->patch_tris[k], 3);
		prim_store(pr, tri_slot(w, k), t);
		grow(&box, t);
	}
	for (int k = pr->patch_edge_start[p]; k < pr->patch_edge_start[p + 1]; ++k) {
		pbd_aabb e = union_of(vbox, w->topology.edge + 2 * pr->patch_edges[k], 2);
		prim_store(pr, edge_slot(w, k), e);
		grow(&box, e);
	}
	for (int k = pr->patch_own_start[p]; k < pr->patch_own_start[p + 1]; ++k)
		grow(&box, vbox[pr->patch_own[k]]);
	pr->patch_boxes[p] = box;
	pbd_patch_fit_now(w, p);
}

// Items start..end of a list, or of all (list NULL).
typedef struct refresh_job {
	pbd_world *w;
	const uint32_t *list;
} refresh_job;

// Particle boxes: of every particle (full search), or of the strays (their tracks are new; the
// others' boxes still cover what is left of theirs).
static void particle_box_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const refresh_job *job = context;
	for (int k = start; k < end; ++k) {
		uint32_t i = job->list ? job->list[k] : (uint32_t)k;
		vertex_boxes(job->w)[i] = particle_box(job->w, i);
		job->w->pairs.travel[i] = track_travel(job->w, i);
	}
}

// In an update: the box of the primitives of affected patch p that moved (empty when none),
// and which of its triangles and edges they are.
static void refresh_moved_box(pbd_world *w, int p)
{
	pbd_pairs *pr = &w->pairs;
	pbd_aabb box = {v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)};
	for (int k = pr->patch_own_start[p]; k < pr->patch_own_start[p + 1]; ++k)
		if (moved(w, pr->patch_own[k]))
			grow(&box, vertex_boxes(w)[pr->patch_own[k]]);
	uint32_t tris = 0, edges = 0;
	int first = pr->patch_tri_start[p];
	for (int k = first; k < pr->patch_tri_start[p + 1]; ++k)
		if (triangle_moved(w, pr->patch_tris[k])) {
			grow(&box, prim_load(pr, tri_slot(w, k)));
			tris |= 1u << (k - first);
		}
	first = pr->patch_edge_start[p];
	for (int k = first; k < pr->patch_edge_start[p + 1]; ++k)
		if (edge_moved(w, pr->patch_edges[k])) {
			grow(&box, prim_load(pr, edge_slot(w, k)));
			edges |= 1u << (k - first);
		}
	pr->patch_moved_boxes[p] = box;
	pr->patch_moved_tris[p] = tris;
	pr->patch_moved_edges[p] = edges;
}

static void refresh_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const refresh_job *job = context;
	for (int k = start; k < end; ++k) {
		int p = job->list ? (int)job->list[k] : k;
		refresh_patch(job->w, p);
		if (job->list)
			refresh_moved_box(job->w, p);
	}
}

// Cell size: the mean size of the patches' boxes (their largest side), but at least a
// particle's diameter: a query then visits about eight cells of a few patches each.
static float cell_size(const pbd_world *w)
{
	const pbd_pairs *pr = &w->pairs;
	double sum = 0.0;
	int n = 0;
	for (int p = 0; p < pr->patch_count; p += 3, ++n) {
		pbd_v3 d = v3_sub(pr->patch_boxes[p].hi, pr->patch_boxes[p].lo);
		sum += maxf(d.x, maxf(d.y, d.z));
	}
	float mean = n ? (float)(sum / n) : 0.0f;
	float cell = fmaxf(fmaxf(mean, 2.0f * w->topology.max_radius), 1e-4f);
	return isfinite(cell) ? cell : 1e-4f;
}

// ---- Pairs of patches

// Room for a patch's triangles or edges that pass the quick filter: a patch has at most
// PBD_PATCH_TRIANGLES triangles, and owns at most three edges of each.
#define PATCH_NEAR_MAX (3 * PBD_PATCH_TRIANGLES)

static bool is_affected(const pbd_world *w, uint32_t p) { return w->pairs.patch_stamp[p] == w->pairs.update_serial; }

// A patch's triangles or edges where their boxes lie (pbd_pairs.prim_box): the columns from
// its first, its primitive numbers, and how many. Bit k of a mask over them names the k-th.
typedef struct prim_span {
	const float *lo[3], *hi[3];
	const uint32_t *corner[3];
	const uint32_t *id;
	int count;
} prim_span;

static prim_span span_at(const pbd_pairs *pr, int slot, const uint32_t *id, int count)
{
	PBD_ASSERT(count <= PATCH_NEAR_MAX);
	prim_span s = {.id = id, .count = count};
	for (int c = 0; c < 3; ++c) {
		s.lo[c] = prim_column(pr, c) + slot;
		s.hi[c] = prim_column(pr, 3 + c) + slot;
		s.corner[c] = prim_corner_column(pr, c) + slot;
	}
	return s;
}

static prim_span tri_span(const pbd_world *w, uint32_t p)
{
	const pbd_pairs *pr = &w->pairs;
	int k = pr->patch_tri_start[p];
	return span_at(pr, tri_slot(w, k), pr->patch_tris + k, pr->patch_tri_start[p + 1] - k);
}

static prim_span edge_span(const pbd_world *w, uint32_t p)
{
	const pbd_pairs *pr = &w->pairs;
	int k = pr->patch_edge_start[p];
	return span_at(pr, edge_slot(w, k), pr->patch_edges + k, pr->patch_edge_start[p + 1] - k);
}

static uint32_t span_all(const prim_span *s) { return s->count >= 32 ? ~0u : (1u << s->count) - 1u; }

static pbd_aabb span_box(const prim_span *s, int k)
{
	return (pbd_aabb){v3(s->lo[0][k], s->lo[1][k], s->lo[2][k]), v3(s->hi[0][k], s->hi[1][k], s->hi[2][k])};
}

// Which of boxes k..k+3 of s overlap b (pbd_aabb_overlap), as the low four bits (those past
// the span's end are read, and left to the caller's mask).
static unsigned overlaps4(const prim_span *s, int k, pbd_aabb b)
{
#if defined(__SSE2__)
	__m128 in = _mm_and_ps(_mm_cmple_ps(_mm_set1_ps(b.lo.x), _mm_loadu_ps(s->hi[0] + k)),
			       _mm_cmple_ps(_mm_loadu_ps(s->lo[0] + k), _mm_set1_ps(b.hi.x)));
	in = _mm_and_ps(in, _mm_and_ps(_mm_cmple_ps(_mm_set1_ps(b.lo.y), _mm_loadu_ps(s->hi[1] + k)),
				       _mm_cmple_ps(_mm_loadu_ps(s->lo[1] + k), _mm_set1_ps(b.hi.y))));
	in = _mm_and_ps(in, _mm_and_ps(_mm_cmple_ps(_mm_set1_ps(b.lo.z), _mm_loadu_ps(s->hi[2] + k)),
				       _mm_cmple_ps(_mm_loadu_ps(s->lo[2] + k), _mm_set1_ps(b.hi.z))));
	return (unsigned)_mm_movemask_ps(in);
#else
	unsigned bits = 0;
	for (int j = 0; j < 4; ++j)
		bits |= (unsigned)pbd_aabb_overlap(b, span_box(s, k + j)) << j;
	return bits;
#endif
}

// Which of triangles k..k+3 of s have corner v, as the low four bits.
static unsigned has_corner4(const prim_span *s, int k, uint32_t v)
{
#if defined(__SSE2__)
	__m128i x = _mm_set1_epi32((int)v);
	__m128i in = _mm_or_si128(_mm_cmpeq_epi32(x, _mm_loadu_si128((const __m128i *)(s->corner[0] + k))),
				  _mm_cmpeq_epi32(x, _mm_loadu_si128((const __m128i *)(s->corner[1] + k))));
	in = _mm_or_si128(in, _mm_cmpeq_epi32(x, _mm_loadu_si128((const __m128i *)(s->corner[2] + k))));
	return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in));
#else
	unsigned bits = 0;
	for (int j = 0; j < 4; ++j)
		bits |= (unsigned)(s->corner[0][k + j] == v || s->corner[1][k + j] == v || s->corner[2][k + j] == v) << j;
	return bits;
#endif
}

// Which of edges k..k+3 of s share a corner with edge (a, b), as the low four bits.
static unsigned shares_corner4(const prim_span *s, int k, uint32_t a, uint32_t b)
{
#if defined(__SSE2__)
	__m128i c0 = _mm_loadu_si128((const __m128i *)(s->corner[0] + k));
	__m128i c1 = _mm_loadu_si128((const __m128i *)(s->corner[1] + k));
	__m128i xa = _mm_set1_epi32((int)a), xb = _mm_set1_epi32((int)b);
	__m128i in = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(xa, c0), _mm_cmpeq_epi32(xa, c1)),
				  _mm_or_si128(_mm_cmpeq_epi32(xb, c0), _mm_cmpeq_epi32(xb, c1)));
	return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in));
#else
	unsigned bits = 0;
	for (int j = 0; j < 4; ++j) {
		uint32_t c0 = s->corner[0][k + j], c1 = s->corner[1][k + j];
		bits |= (unsigned)(c0 == a || c0 == b || c1 == a || c1 == b) << j;
	}
	return bits;
#endif
}

// The primitives of s in mask `wanted` whose boxes overlap b, but for those in `shared` (an
// expression of group_, the first of four: which of them share a corner with the other side),
// in order: runs `visit` with k set to each one's place in s.
#define FOR_EACH_OVERLAP(s, wanted, b, shared, k, visit)                                           \
	for (uint32_t left_ = (wanted); left_;) {                                                   \
		int group_ = __builtin_ctz(left_) & ~3;                                              \
		unsigned bits_ = overlaps4((s), group_, (b)) & ~(shared) & (left_ >> group_) & 0xFu; \
		left_ = group_ + 4 < 32 ? left_ & (~0u << (group_ + 4)) : 0u;               \
		while (bits_) {                                                             \
			int k = group_ + __builtin_ctz(bits_);                              \
			bits_ &= bits_ - 1;                                                 \
			visit;                                                              \
		}                                                                           \
	}

static int64_t chunk_total(const pbd_pair_chunk *c) { return (int64_t)c->vt_count + c->ee_count + c->pp_count; }

static bool chunk_over_limit(const pbd_pair_chunk *c) { return chunk_total(c) > c->limit; }

// Which pairs of two patches a search wants: all of them (a full search); in an update those
// with a primitive that moved, or only those whose primitive of a moved (see update_share).
typedef enum pair_share { SHARE_ALL, SHARE_EITHER_MOVED, SHARE_A_MOVED } pair_share;

// Which of patch p's triangles or edges an update found moved (none when p is not affected).
static uint32_t moved_tris(const pbd_world *w, uint32_t p) { return is_affected(w, p) ? w->pairs.patch_moved_tris[p] : 0u; }
static uint32_t moved_edges(const pbd_world *w, uint32_t p) { return is_affected(w, p) ? w->pairs.patch_moved_edges[p] : 0u; }

// Every pair of primitives of patches a and b (a == b: of one patch) whose boxes overlap and
// that `share` wants is tested (pair_search's try_*). A pair of one cloth's patches that move
// rigidly together is passed over whole (patches.c).
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pair_patches(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t a, uint32_t b, pair_share share)
{
	const pbd_pairs *pr = &w->pairs;
	uint32_t body_a = pr->patch_body[a], body_b = pr->patch_body[b];
	if (body_a == body_b) {
		const pbd_body *bd = &w->bodies.slots[body_a];
		if (bd->kind == PBD_BODY_CLOTH && (!bd->material.self_collision || near_owns_patches(w, body_a, a, b) ||
						   pbd_patches_rigid_together(w, (int)a, (int)b)))
			return;
	}
	const pbd_aabb *vbox = pr->boxes;
	const uint32_t *own = pr->patch_own;
	bool strays = share != SHARE_ALL, either = share == SHARE_EITHER_MOVED;
	// A primitive pairs only with those of the other patch whose boxes its own box meets; those
	// lie in the other patch's box. When only pairs with a primitive of a that moved are wanted,
	// b's must reach the box of those. (Each box lies in its patch's box, and a moved one in
	// the box of those that moved: no pair that meets is passed over.)
	pbd_aabb reach[2] = {strays && !either ? pr->patch_moved_boxes[a] : pr->patch_boxes[a], pr->patch_boxes[b]};
	// Once the chunk is over the limit, so is the whole search (and nothing of it is kept): the
	// tests below stop then, not after the patch pair, which can hold millions of pairs when
	// the thickness dwarfs the cloth.
	for (int side = 0; side < (a == b ? 1 : 2) && !chunk_over_limit(chunk); ++side) {
		uint32_t p = side ? b : a, q = side ? a : b;  // p's own vertices against q's triangles
		prim_span tris = tri_span(w, q);
		uint32_t all = span_all(&tris), q_moved = strays ? moved_tris(w, q) : 0u;
		for (int i = pr->patch_own_start[p]; i < pr->patch_own_start[p + 1] && !chunk_over_limit(chunk); ++i) {
			uint32_t v = own[i];
			// In an update: with all triangles when the vertex moved and its pairs are wanted,
			// else with those that moved when theirs are (b's with a's, or either).
			uint32_t wanted = all;
			if (strays && !(moved(w, v) && (either || side == 0)))
				wanted = either || side == 1 ? q_moved : 0u;
			if (!wanted || !pbd_aabb_overlap(vbox[v], reach[1 - side]))
				continue;
			FOR_EACH_OVERLAP(&tris, wanted, vbox[v], has_corner4(&tris, group_, v), k,
					 try_vt(w, chunk, v, tris.id[k]))
		}
	}
	prim_span mine = edge_span(w, a), others = a == b ? mine : edge_span(w, b);
	uint32_t a_moved = strays ? moved_edges(w, a) : 0u, b_moved = strays ? moved_edges(w, b) : 0u;
	uint32_t outer = strays && !either ? a_moved : span_all(&mine);
	for (uint32_t left = outer; left && !chunk_over_limit(chunk); left &= left - 1u) {
		int i = __builtin_ctz(left);
		pbd_aabb box = span_box(&mine, i);
		if (!pbd_aabb_overlap(box, reach[1]))
			continue;
		uint32_t e = mine.id[i];
		bool e_still = strays && !(a_moved >> i & 1u);
		// Of one patch: each pair once, with the later edges.
		uint32_t wanted = a == b ? (e_still ? a_moved : span_all(&mine)) & (~1u << i)
					 : (e_still ? b_moved : span_all(&others));
		uint32_t e0 = mine.corner[0][i], e1 = mine.corner[1][i];
		FOR_EACH_OVERLAP(&others, wanted, box, shares_corner4(&others, group_, e0, e1), k,
				 try_ee(w, chunk, e, others.id[k]))
	}
	if (w->bodies.slots[body_a].kind != PBD_BODY_PARTICLES && w->bodies.slots[body_b].kind != PBD_BODY_PARTICLES)
		return;
	for (int i = pr->patch_own_start[a]; i < pr->patch_own_start[a + 1] && !chunk_over_limit(chunk); ++i)
		for (int k = a == b ? i + 1 : pr->patch_own_start[b]; k < pr->patch_own_start[b + 1]; ++k) {
			uint32_t x = own[i], y = own[k];
			if (!pbd_aabb_overlap(vbox[x], vbox[y]))
				continue;
			if (strays && !moved(w, x) && (!either || !moved(w, y)))
				continue;
			bool fx = is_free(w, x), fy = is_free(w, y);
			// Free particles pair with each other (lower index first) and with cloth vertices.
			if (fx && fy)
				try_pp(w, chunk, x < y ? x : y, x < y ? y : x);
			else if (fx)
				try_pp(w, chunk, x, y);
			else if (fy)
				try_pp(w, chunk, y, x);
		}
}

// In an update, affected patch a asked the hash with the box of its primitives that moved and
// found patch b. Each pair with a primitive that moved is wanted once: a's own; with a patch
// that is not affected (nothing of it moved), those whose primitive of a moved. Of two affected
// patches the lower one takes every such pair when its question found the other (the box of
// its moved primitives reaches the other's box); when it did not, none of its moved primitives
// can pair with the other's, and the higher one takes the pairs of its own that moved.
static bool update_share(const pbd_world *w, uint32_t a, uint32_t b, pair_share *share)
{
	const pbd_pairs *pr = &w->pairs;
	if (a == b) {
		*share = SHARE_EITHER_MOVED;
		return true;
	}
	if (!is_affected(w, b)) {
		*share = SHARE_A_MOVED;
		return true;
	}
	uint32_t lower = a < b ? a : b, higher = a < b ? b : a;
	bool lower_takes = pbd_aabb_overlap(pr->patch_moved_boxes[lower], pr->patch_boxes[higher]);
	if (lower_takes != (a == lower))
		return false;
	*share = lower_takes ? SHARE_EITHER_MOVED : SHARE_A_MOVED;
	return true;
}

// The two searches each get their own copy, without the other's tests.
static void pair_patches_full(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t a, uint32_t b)
{
	pair_patches(w, chunk, a, b, SHARE_ALL);
}

static void pair_patches_update(const pbd_world *w, pbd_pair_chunk *chunk, uint32_t a, uint32_t b)
{
	pair_share share;
	if (!update_share(w, a, b, &share))
		return;
	if (share == SHARE_EITHER_MOVED)
		pair_patches(w, chunk, a, b, SHARE_EITHER_MOVED);
	else
		pair_patches(w, chunk, a, b, SHARE_A_MOVED);
}

// ---- Queries, in chunks

typedef struct patch_query {
	uint32_t *found;          // the patches found (room for found_capacity)
	int found_count, found_capacity, found_needed;
} patch_query;

static void visit_patch(uint32_t id, void *user)
{
	patch_query *q = user;
	if (q->found_count < q->found_capacity)
		q->found[q->found_count] = id;
	q->found_count++;
}

// What a search's items are, besides patches: windows of near pairs whose pairs are wanted
// (near.items), or the particles of an update (strays) whose near pairs are.
typedef enum near_items { NEAR_NONE, NEAR_WINDOWS, NEAR_MOVED } near_items;

typedef struct search_job {
	pbd_world *w;
	int count;                // queries: patches (full search) or affected patches
	bool strays;
	int64_t limit;            // settings.max_candidate_pairs, or INT64_MAX for none
	// Pairs the chunks have found so far, all together (NULL: not counted). Once past the
	// limit the search is over it whatever is left, so chunks stop there: a limited search
	// does work in proportion to its limit.
	_Atomic int64_t *found;
	near_items near;
} search_job;

typedef struct near_visit {
	const pbd_world *w;
	pbd_pair_chunk *chunk;
} near_visit;

static void visit_near_vt(void *context, uint32_t q, uint32_t tri)
{
	const near_visit *v = context;
	try_vt(v->w, v->chunk, q, tri);
}

static void visit_near_ee(void *context, uint32_t a, uint32_t b)
{
	const near_visit *v = context;
	try_ee(v->w, v->chunk, a, b);
}

// The near pairs of one item: every pair of a window, or those of a particle that moved.
static void search_near_item(const search_job *job, pbd_pair_chunk *chunk, int item)
{
	const pbd_pairs *pr = &job->w->pairs;
	near_visit v = {job->w, chunk};
	pbd_near_visitor visit = {visit_near_vt, visit_near_ee, &v};
	if (job->near == NEAR_WINDOWS)
		pbd_near_window_pairs(job->w, pr->near.items[item], pbd_near_wanted(&pr->near, pr->near.items[item]), &visit);
	else
		pbd_near_moved_pairs(job->w, pr->strays[item], pr->tracks.stamp, pr->update_serial, &visit);
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

// The patches whose boxes overlap patch `self`'s, in increasing order (in a full search those
// at or after it: each pair once). Returns how many, or -1 when `room` was too small.
static int find_patches(const pbd_world *w, uint32_t self, bool strays, uint32_t *room, int capacity)
{
	patch_query q = {room, 0, capacity, 0};
	// An update asks with the box of the patch's primitives that moved.
	const pbd_aabb *box = strays ? &w->pairs.patch_moved_boxes[self] : &w->pairs.patch_boxes[self];
	pbd_grid_query(&w->pairs.patch_grid, *box, strays ? -1 : (int64_t)self - 1, visit_patch, &q);
	if (q.found_count > capacity)
		return -1 - q.found_count;
	qsort(room, (size_t)q.found_count, sizeof *room, compare_u32);
	return q.found_count;
}

// Chunk k runs its share of the queries, in the order a single search would take them.
static void search_chunk(const search_job *job, int k)
{
	pbd_world *w = job->w;
	pbd_pairs *pr = &w->pairs;
	pbd_pair_chunk *chunk = &pr->chunks[k];
	chunk->vt_count = chunk->ee_count = chunk->pp_count = 0;
	chunk->limit = job->limit;
	chunk->near = job->near != NEAR_NONE;
	int lo = (int)((int64_t)job->count * k / PBD_PAIR_CHUNKS), hi = (int)((int64_t)job->count * (k + 1) / PBD_PAIR_CHUNKS);
	uint32_t local[256];
	// Past the limit the whole search is over it: the rest would be work for nothing.
	int64_t counted = 0;  // of this chunk's pairs, those added to job->found
	for (int item = lo; item < hi && !chunk_over_limit(chunk); ++item) {
		if (job->found) {
			// What the other chunks found counts against this one's limit.
			int64_t fresh = chunk_total(chunk) - counted;
			int64_t others = atomic_fetch_add(job->found, fresh) - counted;
			counted += fresh;
			chunk->limit = job->limit - others;
			if (chunk_over_limit(chunk))
				break;
		}
		if (job->near != NEAR_NONE) {
			search_near_item(job, chunk, item);
			continue;
		}
		uint32_t self = job->strays ? pr->affected[item] : (uint32_t)item;
		int n = find_patches(w, self, job->strays, local, 256);
		uint32_t *found = local;
		if (n < 0) {
			// Rare: more than fit on the stack (a very dense pile); visit them unsorted, one by
			// one, in the grid's own order, which is fixed.
			found = NULL;
		}
		if (found) {
			for (int j = 0; j < n; ++j)
				(job->strays ? pair_patches_update : pair_patches_full)(w, chunk, self, found[j]);
		} else {
			const pbd_aabb *box = job->strays ? &pr->patch_moved_boxes[self] : &pr->patch_boxes[self];
			for (uint32_t other = 0; other < (uint32_t)pr->patch_count; ++other) {
				if ((!job->strays && other < self) || !pbd_aabb_overlap(*box, pr->patch_boxes[other]))
					continue;
				(job->strays ? pair_patches_update : pair_patches_full)(w, chunk, self, other);
			}
		}
	}
	if (job->found)
		atomic_fetch_add(job->found, chunk_total(chunk) - counted);
}

static void search_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	for (int k = start; k < end; ++k)
		search_chunk(context, k);
}

static bool chunk_fits(const pbd_pair_chunk *c)
{
	return c->vt_count <= c->vt_capacity && c->ee_count <= c->ee_capacity && c->pp_count <= c->pp_capacity;
}

// Room for what a list needs, and half as much again for the pairs to come.
static bool grow_list(pbd_world *w, void **list, int *capacity, int need, size_t size)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(64, need + need / 2);
	if (!pbd_grow_array(w, list, (size_t)*capacity, (size_t)cap, size))
		return false;
	*capacity = cap;
	return true;
}

static bool grow_chunk(pbd_world *w, pbd_pair_chunk *c)
{
	return grow_list(w, (void **)&c->vt, &c->vt_capacity, c->vt_count, sizeof *c->vt) &&
	       grow_list(w, (void **)&c->ee, &c->ee_capacity, c->ee_count, sizeof *c->ee) &&
	       grow_list(w, (void **)&c->pp, &c->pp_capacity, c->pp_count, sizeof *c->pp);
}

// Runs the job's queries over the chunks (on every thread), then again, one at a time, the
// chunks that ran out of room once they have grown. False when out of memory or over the limit.
static bool run_search(pbd_world *w, search_job *job, int64_t already)
{
	int limit = w->settings.max_candidate_pairs;
	job->limit = limit > 0 ? limit - already : INT64_MAX;
	_Atomic int64_t found = 0;
	job->found = limit > 0 ? &found : NULL;
	pbd_parallel_for(w, search_range, PBD_PAIR_CHUNKS, 1, job);
	job->found = NULL;  // a chunk searched again below must find all of its pairs
	int64_t total = 0;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k)
		total += chunk_total(&w->pairs.chunks[k]);
	if (total > job->limit) {
		// Nothing is kept (a partial list would look complete), and the lists do not grow.
		w->pairs.over_limit = true;
		w->stats.searches_over_limit++;
		return false;
	}
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		if (chunk_fits(&w->pairs.chunks[k]))
			continue;
		if (!grow_chunk(w, &w->pairs.chunks[k]))
			return false;
		search_chunk(job, k);  // the same search again: it now fits
	}
	return pbd_pair_chunks_join(w, INT64_MAX);
}

bool pbd_pair_chunks_join(pbd_world *w, int64_t limit)
{
	pbd_pairs *pr = &w->pairs;
	int vt = pr->vt_count, ee = pr->ee_count, pp = pr->pp_count;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		vt += pr->chunks[k].vt_count;
		ee += pr->chunks[k].ee_count;
		pp += pr->chunks[k].pp_count;
	}
	if ((int64_t)vt + ee + pp > limit)
		return false;
	if (!grow_list(w, (void **)&pr->vt, &pr->vt_capacity, vt, sizeof *pr->vt) ||
	    !grow_list(w, (void **)&pr->ee, &pr->ee_capacity, ee, sizeof *pr->ee) ||
	    !grow_list(w, (void **)&pr->pp, &pr->pp_capacity, pp, sizeof *pr->pp))
		return false;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &pr->chunks[k];
		if (c->vt_count)
			memcpy(pr->vt + pr->vt_count, c->vt, (size_t)c->vt_count * sizeof *c->vt);
		if (c->ee_count)
			memcpy(pr->ee + pr->ee_count, c->ee, (size_t)c->ee_count * sizeof *c->ee);
		if (c->pp_count)
			memcpy(pr->pp + pr->pp_count, c->pp, (size_t)c->pp_count * sizeof *c->pp);
		pr->vt_count += c->vt_count;
		pr->ee_count += c->ee_count;
		pr->pp_count += c->pp_count;
		c->vt_peak = maxi(c->vt_peak, c->vt_count);
		c->ee_peak = maxi(c->ee_peak, c->ee_count);
		c->pp_peak = maxi(c->pp_peak, c->pp_count);
		c->vt_count = c->ee_count = c->pp_count = 0;
	}
	return true;
}

// ---- Scratch

// Room for the boxes of every particle and primitive (the columns' padding is zeroed once:
// it is read, never used).
static bool reserve_boxes(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	const pbd_array_ref boxes[] = {{(void **)&pr->boxes, sizeof *pr->boxes}, {(void **)&pr->travel, sizeof *pr->travel}};
	if (!pbd_reserve_scratch_arrays(w, boxes, 2, &pr->box_capacity, w->particles.count))
		return false;
	int stride = w->topology.tri_count + w->topology.edge_count + 8;
	if (pr->prim_stride == stride)
		return true;
	pbd_free_array(w, pr->prim_box, (size_t)6 * (size_t)pr->prim_stride, sizeof *pr->prim_box);
	pbd_free_array(w, pr->prim_corner, (size_t)3 * (size_t)pr->prim_stride, sizeof *pr->prim_corner);
	pr->prim_box = pbd_alloc_array(w, (size_t)6 * (size_t)stride, sizeof *pr->prim_box);
	pr->prim_corner = pbd_alloc_array(w, (size_t)3 * (size_t)stride, sizeof *pr->prim_corner);
	if (!pr->prim_box || !pr->prim_corner) {
		pbd_free_array(w, pr->prim_box, (size_t)6 * (size_t)stride, sizeof *pr->prim_box);
		pbd_free_array(w, pr->prim_corner, (size_t)3 * (size_t)stride, sizeof *pr->prim_corner);
		pr->prim_box = NULL;
		pr->prim_corner = NULL;
		pr->prim_stride = 0;
		return false;
	}
	pr->prim_stride = stride;
	return true;
}

// The corners of the triangles and edges in their slots (the patches are new).
static void store_corners(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	for (int k = 0; k < w->topology.tri_count; ++k)
		for (int c = 0; c < 3; ++c)
			prim_corner_column(pr, c)[tri_slot(w, k)] = w->topology.tri[3 * pr->patch_tris[k] + c];
	for (int k = 0; k < w->topology.edge_count; ++k)
		for (int c = 0; c < 2; ++c)
			prim_corner_column(pr, c)[edge_slot(w, k)] = w->topology.edge[2 * pr->patch_edges[k] + c];
}

// The triangles and the edges (primitive numbers: triangles, then edges) of each particle, in
// order; rebuilt when the topology is.
static bool build_adjacency(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->adjacency_version == w->topology.version && pr->adjacency_particles == w->particles.count)
		return true;
	int np = w->particles.count, nt = w->topology.tri_count, ne = w->topology.edge_count;
	pbd_free_array(w, pr->adjacent_start, (size_t)pr->adjacent_start_capacity, sizeof *pr->adjacent_start);
	pbd_free_array(w, pr->adjacent, (size_t)pr->adjacent_capacity, sizeof *pr->adjacent);
	pr->adjacent_start_capacity = pr->adjacent_capacity = 0;
	pr->adjacent_start = pbd_alloc_array(w, (size_t)np + 1, sizeof *pr->adjacent_start);
	pr->adjacent = pbd_alloc_array(w, (size_t)(3 * nt + 2 * ne) + 1, sizeof *pr->adjacent);
	if (!pr->adjacent_start || !pr->adjacent) {
		pbd_free_array(w, pr->adjacent_start, (size_t)np + 1, sizeof *pr->adjacent_start);
		pbd_free_array(w, pr->adjacent, (size_t)(3 * nt + 2 * ne) + 1, sizeof *pr->adjacent);
		pr->adjacent_start = NULL;
		pr->adjacent = NULL;
		return false;
	}
	pr->adjacent_start_capacity = np + 1;
	pr->adjacent_capacity = 3 * nt + 2 * ne + 1;
	int *start = pr->adjacent_start;
	for (int k = 0; k < 3 * nt; ++k)
		start[w->topology.tri[k] + 1]++;
	for (int k = 0; k < 2 * ne; ++k)
		start[w->topology.edge[k] + 1]++;
	for (int i = 0; i < np; ++i)
		start[i + 1] += start[i];
	for (int k = 0; k < nt + ne; ++k) {
		const uint32_t *v = k < nt ? w->topology.tri + 3 * k : w->topology.edge + 2 * (k - nt);
		for (int j = 0; j < (k < nt ? 3 : 2); ++j)
			pr->adjacent[start[v[j]]++] = (uint32_t)k;
	}
	for (int i = np; i > 0; --i)
		start[i] = start[i - 1];
	start[0] = 0;
	pr->adjacency_version = w->topology.version;
	pr->adjacency_particles = np;
	return true;
}

// ---- The searches

// The patches' grid from their boxes now, every patch at version 0.
static bool build_grid(pbd_world *w, float cell)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->patch_count > 0)
		memset(pr->patch_version, 0, (size_t)pr->patch_count * sizeof *pr->patch_version);
	return pbd_grid_build(w, &pr->patch_grid, pr->patch_boxes, pr->patch_version, pr->patch_count, cell);
}

bool pbd_pair_search_full(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (!build_adjacency(w) || !pbd_near_build(w) || !pbd_patches_build(w) || !pbd_patches_tolerances(w) ||
	    !reserve_boxes(w))
		return false;
	int patches = pr->patch_count;
	pr->affected_count = 0;
	refresh_job all = {w, NULL};
	pbd_parallel_for(w, particle_box_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &all);
	pbd_parallel_for(w, refresh_range, patches, 64, &all);
	if (patches > 0)
		memset(pr->patch_stamp, 0, (size_t)patches * sizeof *pr->patch_stamp);
	store_corners(w);
	if (!build_grid(w, cell_size(w)))
		return false;
	search_job job = {w, patches, false, 0, NULL, NEAR_NONE};
	return run_search(w, &job, 0);
}

// The patches of the straying particles, marked with the update's serial and listed in order.
static bool list_affected(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->affected_capacity < pr->patch_count) {
		pbd_free_array(w, pr->affected, (size_t)pr->affected_capacity, sizeof *pr->affected);
		pr->affected = pbd_alloc_array(w, (size_t)pr->patch_count, sizeof *pr->affected);
		pr->affected_capacity = pr->affected ? pr->patch_count : 0;
		if (!pr->affected)
			return false;
	}
	int n = 0;
	for (int k = 0; k < pr->stray_count; ++k) {
		uint32_t i = pr->strays[k];
		for (int a = pr->particle_patch_start[i]; a < pr->particle_patch_start[i + 1]; ++a) {
			uint32_t p = pr->particle_patches[a];
			if (is_affected(w, p))
				continue;
			pr->patch_stamp[p] = pr->update_serial;
			pr->affected[n++] = p;
		}
	}
	qsort(pr->affected, (size_t)n, sizeof *pr->affected, compare_u32);
	pr->affected_count = n;
	return true;
}

void pbd_pair_search_drop(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	int kept = 0;
	for (int k = 0; k < pr->vt_count; ++k)
		if (!moved(w, pr->vt[k].q) && !triangle_moved(w, pr->vt[k].tri))
			pr->vt[kept++] = pr->vt[k];
	pr->vt_count = kept;
	kept = 0;
	for (int k = 0; k < pr->ee_count; ++k)
		if (!edge_moved(w, pr->ee[k].a) && !edge_moved(w, pr->ee[k].b))
			pr->ee[kept++] = pr->ee[k];
	pr->ee_count = kept;
	kept = 0;
	for (int k = 0; k < pr->pp_count; ++k)
		if (!moved(w, pr->pp[k].i) && !moved(w, pr->pp[k].j))
			pr->pp[kept++] = pr->pp[k];
	pr->pp_count = kept;
}

bool pbd_pair_search_mark(pbd_world *w)
{
	return list_affected(w);
}

bool pbd_pair_search_strays(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	refresh_job strays = {w, pr->strays}, patches = {w, pr->affected};
	pbd_parallel_for(w, particle_box_range, pr->stray_count, PBD_PARTICLES_PER_RANGE, &strays);
	pbd_parallel_for(w, refresh_range, pr->affected_count, 16, &patches);
	for (int k = 0; k < pr->affected_count; ++k) {
		pr->patch_version[pr->affected[k]]++;
		if (!pbd_grid_insert(w, &pr->patch_grid, pr->affected[k]))
			return false;
	}
	search_job job = {w, pr->affected_count, true, 0, NULL, NEAR_NONE};
	return run_search(w, &job, (int64_t)pr->vt_count + pr->ee_count + pr->pp_count);
}

static int64_t listed_pairs(const pbd_pairs *pr) { return (int64_t)pr->vt_count + pr->ee_count + pr->pp_count; }

bool pbd_pair_search_near_windows(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	n->item_count = 0;
	for (int k = 0; k < n->window_count; ++k)
		if (pbd_near_pending(n, k))
			n->items[n->item_count++] = k;
	if (n->item_count == 0)
		return true;
	search_job job = {w, n->item_count, false, 0, NULL, NEAR_WINDOWS};
	if (!run_search(w, &job, listed_pairs(&w->pairs)))
		return false;
	for (int k = 0; k < n->item_count; ++k)
		n->listed[n->items[k]] |= pbd_near_wanted(n, n->items[k]);
	n->windows_listed += n->item_count;
	return true;
}

bool pbd_pair_search_near_moved(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->near.body_count == 0 || pr->stray_count == 0)
		return true;
	search_job job = {w, pr->stray_count, true, 0, NULL, NEAR_MOVED};
	return run_search(w, &job, listed_pairs(pr));
}

bool pbd_pair_search_regrid(pbd_world *w)
{
	return build_grid(w, w->pairs.patch_grid.cell);
}

void pbd_pair_search_trim(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	// The chunks' lists are scratch of each search; the world's lists hold the current pairs.
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &pr->chunks[k];
		pbd_trim_array(w, (void **)&c->vt, &c->vt_capacity, c->vt_peak, 0, sizeof *c->vt);
		pbd_trim_array(w, (void **)&c->ee, &c->ee_capacity, c->ee_peak, 0, sizeof *c->ee);
		pbd_trim_array(w, (void **)&c->pp, &c->pp_capacity, c->pp_peak, 0, sizeof *c->pp);
		c->vt_peak = c->ee_peak = c->pp_peak = 0;
	}
	pbd_grid_trim(w, &pr->patch_grid);
}

void pbd_pair_search_free(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	pbd_grid_free(w, &pr->patch_grid);
	pbd_patches_free(w);
	pbd_near_free(w);
	pbd_rest_closest_free(w);
	pbd_free_array(w, pr->boxes, (size_t)pr->box_capacity, sizeof *pr->boxes);
	pbd_free_array(w, pr->travel, (size_t)pr->box_capacity, sizeof *pr->travel);
	pbd_free_array(w, pr->prim_box, (size_t)6 * (size_t)pr->prim_stride, sizeof *pr->prim_box);
	pbd_free_array(w, pr->prim_corner, (size_t)3 * (size_t)pr->prim_stride, sizeof *pr->prim_corner);
	pr->prim_box = NULL;
	pr->prim_corner = NULL;
	pr->prim_stride = 0;
	pbd_free_array(w, pr->affected, (size_t)pr->affected_capacity, sizeof *pr->affected);
	pbd_free_array(w, pr->adjacent_start, (size_t)pr->adjacent_start_capacity, sizeof *pr->adjacent_start);
	pbd_free_array(w, pr->adjacent, (size_t)pr->adjacent_capacity, sizeof *pr->adjacent);
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &pr->chunks[k];
		pbd_free_array(w, c->vt, (size_t)c->vt_capacity, sizeof *c->vt);
		pbd_free_array(w, c->ee, (size_t)c->ee_capacity, sizeof *c->ee);
		pbd_free_array(w, c->pp, (size_t)c->pp_capacity, sizeof *c->pp);
		*c = (pbd_pair_chunk){0};
	}
}
