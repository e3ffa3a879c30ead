// SPDX-License-Identifier: MIT
// Contact candidates (pairs.h): keeps the vertex-triangle, edge-edge and particle pairs up to
// date as particles move. Every particle keeps to a track (tracks.c); each substep the
// particles that left theirs get new tracks and only their pairs are found again
// (pair_search.c); when many left at once, or bodies changed, everything is searched anew.
#include <string.h>

#include "pair_search.h"

// A full search instead of an update once more than this share of the particles has had new
// tracks since the last one: the stale entries the grids pass over then cost more than a new build.
#ifndef FULL_SEARCH_SHARE
#define FULL_SEARCH_SHARE 4
#endif

// True when no two particles of the world can form a pair: one body that does not collide
// with itself (a hanging flag, a benchmark without self-collision).
static bool nothing_to_pair(const pbd_world *w)
{
	int bodies = 0;
	bool self = false;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		bodies++;
		self |= c->kind == PBD_BODY_PARTICLES || c->material.self_collision;
	}
	return bodies <= 1 && !self;
}

static void forget(pbd_pairs *pr)
{
	pr->vt_count = pr->ee_count = pr->pp_count = 0;
	pr->valid = false;
}

// Whether every candidate pair names particles, triangles and edges of the world, each pair
// once in its order (a < b for edge pairs).
static bool pairs_well_formed(const pbd_world *w)
{
	const pbd_pairs *pr = &w->pairs;
	for (int k = 0; k < pr->vt_count; ++k)
		if ((int)pr->vt[k].q >= w->particles.count || (int)pr->vt[k].tri >= w->topology.tri_count)
			return false;
	for (int k = 0; k < pr->ee_count; ++k)
		if (pr->ee[k].a >= pr->ee[k].b || (int)pr->ee[k].b >= w->topology.edge_count)
			return false;
	for (int k = 0; k < pr->pp_count; ++k)
		if ((int)pr->pp[k].i >= w->particles.count || (int)pr->pp[k].j >= w->particles.count ||
		    pr->pp[k].i == pr->pp[k].j)
			return false;
	return true;
}

static void note_peaks(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	pr->vt_peak = maxi(pr->vt_peak, pr->vt_count);
	pr->ee_peak = maxi(pr->ee_peak, pr->ee_count);
	pr->pp_peak = maxi(pr->pp_peak, pr->pp_count);
	w->stats.candidate_pairs_peak = maxi(w->stats.candidate_pairs_peak, pbd_candidate_count(w));
	PBD_ASSERT(pairs_well_formed(w));
}

static bool reserve_strays(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	const pbd_array_ref strays[] = {{(void **)&pr->strays, sizeof *pr->strays}};
	return pbd_reserve_scratch_arrays(w, strays, 1, &pr->strays_capacity, w->particles.count);
}

// ---- The canonical order
//
// The solvers and the guard go through the pairs in list order, and the result depends on it
// (Gauss-Seidel). The lists are kept in one order, by triangle then vertex, by edge then edge,
// by particle then particle, whatever search found them: a pair found by an update lands
// where a full search would have put it, so the step's results do not depend on when pairs
// were found, only on which pairs touch.

static uint64_t vt_key(const pbd_vt_contact *c) { return (uint64_t)c->tri << 32 | c->q; }
static uint64_t ee_key(const pbd_ee_contact *c) { return (uint64_t)c->a << 32 | c->b; }
static uint64_t pp_key(const pbd_pp_contact *c) { return (uint64_t)c->i << 32 | c->j; }

static bool reserve_sort(pbd_world *w, int n, size_t item_size)
{
	pbd_pairs *pr = &w->pairs;
	if (n > pr->sort_capacity) {
		int cap = maxi(n, 2 * pr->sort_capacity);
		pbd_free_array(w, pr->sort_keys, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_keys);
		pbd_free_array(w, pr->sort_index, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_index);
		pr->sort_keys = pbd_alloc_array(w, (size_t)cap * 2, sizeof *pr->sort_keys);
		pr->sort_index = pbd_alloc_array(w, (size_t)cap * 2, sizeof *pr->sort_index);
		if (!pr->sort_keys || !pr->sort_index) {
			// One of the two may have come: it goes back at the size it was asked for.
			pbd_free_array(w, pr->sort_keys, (size_t)cap * 2, sizeof *pr->sort_keys);
			pbd_free_array(w, pr->sort_index, (size_t)cap * 2, sizeof *pr->sort_index);
			pr->sort_keys = NULL, pr->sort_index = NULL, pr->sort_capacity = 0;
			return false;
		}
		pr->sort_capacity = cap;
	}
	size_t bytes = (size_t)n * item_size;
	if (bytes > pr->sort_items_bytes) {
		size_t cap = bytes > 2 * pr->sort_items_bytes ? bytes : 2 * pr->sort_items_bytes;
		pbd_free(w, pr->sort_items, pr->sort_items_bytes);
		pr->sort_items = pbd_alloc(w, cap);
		pr->sort_items_bytes = pr->sort_items ? cap : 0;
		if (!pr->sort_items)
			return false;
	}
	return true;
}

// Sorts keys[0..n) with their places (LSD radix, 11 bits a pass, passes whose digit is the
// same for every key skipped). Stable; keys and index end in the first halves of the scratch.
static void radix_sort(uint64_t *keys, uint32_t *index, int n)
{
	uint64_t *tk = keys + n;
	uint32_t *ti = index + n;
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (int k = 0; k < n; ++k)
		all_or |= keys[k], all_and &= keys[k];
	for (int shift = 0; shift < 64; shift += 11) {
		uint64_t mask = (uint64_t)0x7ff << shift;
		if (((all_or ^ all_and) & mask) == 0)
			continue;  // every key has this digit
		int count[2048 + 1] = {0};
		for (int k = 0; k < n; ++k)
			count[((keys[k] >> shift) & 0x7ff) + 1]++;
		for (int d = 0; d < 2048; ++d)
			count[d + 1] += count[d];
		for (int k = 0; k < n; ++k) {
			int to = count[(keys[k] >> shift) & 0x7ff]++;
			tk[to] = keys[k];
			ti[to] = index[k];
		}
		memcpy(keys, tk, (size_t)n * sizeof *keys);
		memcpy(index, ti, (size_t)n * sizeof *index);
	}
}

// Puts list[head .. n) (new pairs) in order and merges them with list[0 .. head) (in order).
#define CANONICAL_ORDER(type, key)                                                                 \
	static bool order_##type(pbd_world *w, type *list, int head, int n)                       \
	{                                                                                        \
		int fresh = n - head;                                                            \
		if (fresh == 0)                                                                  \
			return true;                                                             \
		if (!reserve_sort(w, n, sizeof *list))                                          \
			return false;                                                            \
		pbd_pairs *pr = &w->pairs;                                                       \
		for (int k = 0; k < fresh; ++k) {                                               \
			pr->sort_keys[k] = key(&list[head + k]);                                 \
			pr->sort_index[k] = (uint32_t)(head + k);                                \
		}                                                                                \
		radix_sort(pr->sort_keys, pr->sort_index, fresh);                                \
		type *out = pr->sort_items;                                                      \
		int a = 0, b = 0, o = 0;                                                         \
		while (a < head || b < fresh) {                                                  \
			if (b == fresh || (a < head && key(&list[a]) < pr->sort_keys[b]))        \
				out[o++] = list[a++];                                            \
			else                                                                     \
				out[o++] = list[pr->sort_index[b++]];                            \
		}                                                                                \
		memcpy(list, out, (size_t)n * sizeof *list);                                    \
		return true;                                                                     \
	}
CANONICAL_ORDER(pbd_vt_contact, vt_key)
CANONICAL_ORDER(pbd_ee_contact, ee_key)
CANONICAL_ORDER(pbd_pp_contact, pp_key)

// The pairs from vt, ee, pp on (the ones just found) into their places.
static bool canonical_order(pbd_world *w, int vt, int ee, int pp)
{
	pbd_pairs *pr = &w->pairs;
	return order_pbd_vt_contact(w, pr->vt, vt, pr->vt_count) && order_pbd_ee_contact(w, pr->ee, ee, pr->ee_count) &&
	       order_pbd_pp_contact(w, pr->pp, pp, pr->pp_count);
}

// ---- The near pairs (near_pairs.h)

// Whether the near pairs' windows that failed their certification are all listed (windows
// holding a carried start count as failed).
static bool near_settled(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	if (!pbd_near_carried_listed(w))
		return false;
	for (int k = 0; k < n->window_count; ++k)
		if (pbd_near_pending(n, k))
			return false;
	return true;
}

// Finds the pairs of the windows that failed (and of those holding a carried start) and are not
// listed yet.
static bool search_pending_near(pbd_world *w)
{
	pbd_near_carried_listed(w);
	return pbd_pair_search_near_windows(w);
}

// A search anew lists the windows that fail their certification over the motion now.
static bool list_near_anew(pbd_world *w)
{
	pbd_near_forget_listed(&w->pairs.near);
	pbd_near_certify(w);
	return search_pending_near(w);
}

// Lists the pending windows' pairs and puts them in their places.
static bool list_pending_near(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	int vt = pr->vt_count, ee = pr->ee_count, pp = pr->pp_count;
	if (!search_pending_near(w) || !canonical_order(w, vt, ee, pp)) {
		forget(pr);
		return false;
	}
	if (pr->vt_count != vt || pr->ee_count != ee || pr->pp_count != pp)
		note_peaks(w);
	return true;
}

bool pbd_pairs_certify(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (!pr->valid || pr->nothing_to_pair || pr->near.window_count == 0)
		return true;
	pbd_near_certify(w);
	return list_pending_near(w);
}

void pbd_pairs_recertify_stopped(pbd_world *w)
{
	if (w->pairs.valid)
		pbd_near_recertify_stopped(w);
}

// Every particle gets a new track in a new frame, and every pair is searched anew.
static bool full_search(pbd_world *w, float h, bool strayed)
{
	pbd_pairs *pr = &w->pairs;
	forget(pr);
	pr->over_limit = false;
	pr->nothing_to_pair = nothing_to_pair(w);
	if (pr->nothing_to_pair) {
		pr->valid = true;  // nothing to track either, until bodies change
		return true;
	}
	int n = w->particles.count;
	if (!pbd_tracks_reserve(w, n) || !reserve_strays(w))
		return false;
	pr->update_serial++;
	pbd_tracks_points(w, h);  // takes this substep's velocities (the slacks need them)
	pbd_tracks_set_frame(w, h);
	for (int i = 0; i < n; ++i)
		pbd_tracks_set(w, (uint32_t)i, h, strayed && pr->tracks.straying[i]);
	pr->moved_count = 0;
	pbd_tracks_points(w, h);
	w->stats.broad_phase_builds++;
	if (!pbd_pair_search_full(w) || !list_near_anew(w) || !canonical_order(w, 0, 0, 0)) {
		forget(pr);
		return false;
	}
	pr->valid = true;
	note_peaks(w);
	return true;
}

// The strays get new tracks (in the frame of the last full search) and their pairs are found
// again; everyone else keeps theirs.
static bool update_strays(pbd_world *w, float h)
{
	pbd_pairs *pr = &w->pairs;
	pr->update_serial++;
	for (int k = 0; k < pr->stray_count; ++k) {
		pbd_tracks_set(w, pr->strays[k], h, true);
		pbd_track_points(w, pr->strays[k]);
	}
	if (!pbd_pair_search_mark(w)) {
		forget(pr);
		return false;
	}
	pbd_pair_search_drop(w);
	pr->moved_count += pr->stray_count;
	w->stats.broad_phase_updates++;
	w->stats.broad_phase_strays += pr->stray_count;
	int vt = pr->vt_count, ee = pr->ee_count, pp = pr->pp_count;
	if (!pbd_pair_search_strays(w) || !pbd_pair_search_near_moved(w) || !search_pending_near(w) ||
	    !canonical_order(w, vt, ee, pp)) {
		forget(pr);
		return false;
	}
	note_peaks(w);
	return true;
}

bool pbd_pairs_hold(pbd_world *w, float h)
{
	pbd_pairs *pr = &w->pairs;
	if (!pr->valid || w->topology.dirty)
		return false;
	if (pr->nothing_to_pair)
		return true;
	if (!near_settled(w))
		return false;
	pbd_tracks_points(w, h);
	return pbd_tracks_find_strays(w, h) == 0;
}

bool pbd_pairs_update(pbd_world *w, float h, bool force)
{
	pbd_pairs *pr = &w->pairs;
	if (w->topology.dirty) {
		// The step rebuilds it first (pbd_topology_update); out of memory it stays dirty, the
		// search finds nothing and the substep is held.
		forget(pr);
		return false;
	}
	if (force || !pr->valid)
		return full_search(w, h, false);
	if (pr->nothing_to_pair)
		return true;
	pbd_tracks_points(w, h);
	int strays = pbd_tracks_find_strays(w, h);
	if (strays == 0)
		return list_pending_near(w);
	// Many new tracks since the last full search: anew. A grid mostly of stale entries is only
	// built again (the patches' boxes are those the pairs were found with).
	if ((int64_t)FULL_SEARCH_SHARE * (strays + pr->moved_count) > w->particles.count)
		return full_search(w, h, true);
	if (pr->patch_grid.extra_count > pr->patch_grid.item_count && !pbd_pair_search_regrid(w)) {
		forget(pr);
		return false;
	}
	return update_strays(w, h);
}

// The sort's scratch only matters while pairs are put in order: it goes back once it is far
// larger than the lists' recent peak.
static void trim_sort(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	int peak = maxi(pr->vt_peak, maxi(pr->ee_peak, pr->pp_peak));
	if (pr->sort_capacity <= PBD_TRIM_FACTOR * maxi(peak, 32))
		return;
	pbd_free_array(w, pr->sort_keys, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_keys);
	pbd_free_array(w, pr->sort_index, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_index);
	pbd_free(w, pr->sort_items, pr->sort_items_bytes);
	pr->sort_keys = NULL;
	pr->sort_index = NULL;
	pr->sort_items = NULL;
	pr->sort_capacity = 0;
	pr->sort_items_bytes = 0;
	w->trims++;
}

void pbd_pairs_trim(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	pbd_pair_search_trim(w);
	trim_sort(w);
	pbd_trim_array(w, (void **)&pr->vt, &pr->vt_capacity, pr->vt_peak, pr->vt_count, sizeof *pr->vt);
	pbd_trim_array(w, (void **)&pr->ee, &pr->ee_capacity, pr->ee_peak, pr->ee_count, sizeof *pr->ee);
	pbd_trim_array(w, (void **)&pr->pp, &pr->pp_capacity, pr->pp_peak, pr->pp_count, sizeof *pr->pp);
	pr->vt_peak = pr->vt_count;
	pr->ee_peak = pr->ee_count;
	pr->pp_peak = pr->pp_count;
}

static void mean_free_velocity(const pbd_world *w, double mean[3])
{
	mean[0] = mean[1] = mean[2] = 0.0;
	int n = 0;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		mean[0] += w->particles.v[i].x, mean[1] += w->particles.v[i].y, mean[2] += w->particles.v[i].z;
		n++;
	}
	for (int k = 0; k < 3 && n > 0; ++k)
		mean[k] /= n;
}

// The mean acceleration only shapes the tracks' frame: a world with nothing to pair (one
// cloth without self-collision) needs neither it nor the two passes over every particle.
// (Bodies do not change within a step: both ends see the same.)
void pbd_pairs_step_begin(pbd_world *w)
{
	if (!nothing_to_pair(w))
		mean_free_velocity(w, w->pairs.step_mean_v);
}

void pbd_pairs_step_end(pbd_world *w, float dt)
{
	if (w->pairs.valid)
		pbd_near_unlist_certified(w);
	if (nothing_to_pair(w)) {
		w->pairs.mean_accel = v3(0, 0, 0);
		return;
	}
	double end[3];
	mean_free_velocity(w, end);
	w->pairs.mean_accel =
		v3((float)((end[0] - w->pairs.step_mean_v[0]) / dt), (float)((end[1] - w->pairs.step_mean_v[1]) / dt),
		   (float)((end[2] - w->pairs.step_mean_v[2]) / dt));
}

void pbd_pairs_free(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	pbd_pair_search_free(w);
	pbd_tracks_free(w);
	pbd_free_array(w, pr->strays, (size_t)pr->strays_capacity, sizeof *pr->strays);
	pbd_free_array(w, pr->sort_keys, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_keys);
	pbd_free_array(w, pr->sort_index, (size_t)pr->sort_capacity * 2, sizeof *pr->sort_index);
	pbd_free(w, pr->sort_items, pr->sort_items_bytes);
	pbd_free_array(w, pr->vt, (size_t)pr->vt_capacity, sizeof *pr->vt);
	pbd_free_array(w, pr->ee, (size_t)pr->ee_capacity, sizeof *pr->ee);
	pbd_free_array(w, pr->pp, (size_t)pr->pp_capacity, sizeof *pr->pp);
}

void pbd_pairs_clear(pbd_world *w)
{
	forget(&w->pairs);
}
