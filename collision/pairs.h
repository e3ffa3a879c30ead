// SPDX-License-Identifier: MIT
// Contact candidates (collision/pairs.c): the vertex-triangle, edge-edge and particle pairs
// that may come within their thickness while every particle keeps to its track. The contact
// solvers (constraints/), the carry and the guard (collision/collider_carry.c,
// collision/guard.c) read them.
//
// Tracks (collision/tracks.c). Every particle has a track: a point moving at a constant
// velocity in a frame that moves with the free particles' mean motion, and a slack, how far
// the particle may stray from it. A pair is kept when its two sides' tracks, widened by their
// slacks, can come within the pair's thickness before one of the tracks runs out; a pair that
// is not kept cannot touch while its particles keep to their tracks. Each substep the step
// asks for an update (pbd_pairs_update): particles that strayed from their tracks or whose
// tracks ran out get new ones, and only their pairs are found again (collision/pair_search.c);
// when many did, everything is searched anew. A cloth falling, flying or resting as one keeps
// its pairs however fast it goes, and a vertex that a hit sends off costs one small search.
#pragma once

#include "broad_phase.h"
#include "core.h"
#include "near_pairs.h"

// The grid columns [ilo, ihi] and rows [jlo, jhi] that a patch of a grid cloth spans.
typedef struct pbd_grid_span {
	uint16_t ilo, ihi, jlo, jhi;
} pbd_grid_span;

// Contact candidates of one substep, solved by constraints/.
typedef struct pbd_vt_contact {
	uint32_t q;                // the vertex (or free particle)
	uint32_t tri;              // index into the topology's triangles (topology.h)
	float thickness;           // distance kept between the vertex and the triangle
	// A lower bound of how far apart the pair's tracks stay while they hold, less the
	// solver's reach past the triangle's edges (see pbd_vt_apart, pbd_ee_apart).
	float clearance;
	bool ball;                 // q is a free particle: kept off the whole closed triangle
} pbd_vt_contact;

typedef struct pbd_ee_contact {
	uint32_t a, b;             // indices into the topology's edges, a < b
	float thickness;
	float clearance;           // as for pbd_vt_contact
} pbd_ee_contact;

typedef struct pbd_pp_contact {
	uint32_t i, j;
	float thickness;           // kept between the centres: the sum of the radii
	uint8_t cloth_side;        // a free particle against a cloth vertex: 1 when i is the cloth's, 2 when j is
} pbd_pp_contact;

// The search runs in chunks (threads take chunks); each chunk fills its own lists, which are
// joined in chunk order, so the pairs come out in the same order for any thread count.
// Chunks do not allocate (the world's allocator is not assumed thread-safe): a chunk that
// runs out of room counts what it needed and is searched again after growing.
#define PBD_PAIR_CHUNKS 16
typedef struct pbd_pair_chunk {
	pbd_vt_contact *vt;
	pbd_ee_contact *ee;
	pbd_pp_contact *pp;
	int vt_count, ee_count, pp_count;        // found (may exceed the capacity: then only counted)
	int vt_capacity, ee_capacity, pp_capacity;
	int vt_peak, ee_peak, pp_peak;           // most found since the last trim (pbd_trim_array)
	int64_t limit;                           // a search past this many pairs is over the limit
	bool near;                               // it lists the near pairs' (near_pairs.h), which others pass over
} pbd_pair_chunk;

// Per particle: its track. The track's frame position at time t is at + vel (t - anchor);
// its world position adds the frame's offset (pbd_tracks.frame_*), after turning it about the
// frame's pivot when the frame spins.
typedef struct pbd_tracks {
	pbd_v3 *at;                // frame position at the anchor time
	pbd_v3 *vel;               // velocity in the frame (0: at rest)
	double *anchor;            // when the track was set
	double *expiry;            // when it runs out (INFINITY: never)
	float *slack;              // how far the particle may stray from it
	pbd_v3 *from, *to;         // the track's world positions at this substep's start and end
	pbd_v3 *here;              // its frame position at this substep's start (a spinning frame)
	float *bend;               // how far its world path bends off from -> to (a spinning frame)
	float *drift;              // how far the particle is from its track now (pbd_pairs_drift)
	uint32_t *stamp;           // the update that last gave the particle a new track
	uint8_t *straying;         // scratch: 1 when the particle left its track (pbd_tracks_find_strays)
	pbd_v3 *v_last;            // velocity at the last substep's start
	pbd_v3 *accel;             // acceleration over the last substep (slack of new tracks)
	// Restlessness: a particle that strays again soon after its last new track (a jammed cloth
	// that grinds in place) gets more slack, and a track at rest when its net motion is slow.
	double *strayed_at;        // when it last strayed (0: never)
	pbd_v3 *strayed_from;      // where its motion started then (world)
	uint8_t *restless;         // doublings of its least slack, 0..PBD_TRACK_RESTLESS_LEVELS
	// How far each particle is from its substep start x (pbd_distance_up(p, x)) as the
	// edge-edge solver last saw it, kept while moved_stamp equals moved_serial (edge_edge.c).
	float *moved;
	uint32_t *moved_stamp;
	uint32_t moved_serial;
	int capacity;
	double v_last_time;        // when v_last was taken (NAN: never)
	// The frame: at time t its offset is vel (t - time) + acc (t - time)^2 / 2. A spinning frame
	// also turns at a constant rate about its pivot, which moves with the offset: a frame point
	// y is at pivot + offset + turn (y - pivot) in the world (tracks.c).
	double frame_time;
	pbd_v3 frame_vel, frame_acc;
	bool spin;
	pbd_v3 pivot, spin_axis;   // the pivot at frame_time; the unit axis of the turn
	float spin_rate;           // radians per second about spin_axis
	double points_time;        // the substep start `from` and `to` were computed for (NAN: none)
	float points_h;
} pbd_tracks;

// Per body slot, for the patches' tolerances (collision/patches.c): how close to the nearest
// other primitive of its cloth each particle (against triangles), triangle and edge lies in
// the rest shape (pairs that share a particle, and those beyond `reach`, left out), and the
// rest shape and corners that was measured on, in the body's own numbering. A cloth is
// measured again only when they change: one cloth tearing leaves the others' as they were.
typedef struct pbd_rest_closest {
	int count, tri_count, edge_count;
	float reach;
	bool torn;
	void *block;  // the arrays below, in one allocation of `bytes` (NULL: not measured)
	size_t bytes;
	double *vertex, *triangle, *edge;
	pbd_v3 *rest;
	uint32_t *tri, *edge_corners;
} pbd_rest_closest;

// A patch's rigid fit (collision/patches.c): at `time` its particles' tracks were within
// `residual` (slacks included) of rot r + shift (r their rest positions, rot a rotation), and
// their velocities within `spread` of the rigid field vel + omega x (x - centre), until the
// first of them runs out (expiry).
typedef struct pbd_patch_fit {
	float rot[9];
	pbd_v3 shift, centre, vel, omega;
	float residual, spread, radius;  // radius: the farthest particle from the centre
	double time;
	double expiry;
} pbd_patch_fit;

typedef struct pbd_pairs {
	pbd_vt_contact *vt;
	int vt_count, vt_capacity, vt_peak;  // peaks: most since the last trim
	pbd_ee_contact *ee;
	int ee_count, ee_capacity, ee_peak;
	pbd_pp_contact *pp;
	int pp_count, pp_capacity, pp_peak;
	// Whether the last search stopped at settings.max_candidate_pairs (it then kept no
	// pairs, and the tracks are void).
	bool over_limit;
	// Whether the pairs hold for the tracks (false: search everything anew), and whether no
	// two particles of the world can pair at all (one body without self-collision).
	bool valid;
	bool nothing_to_pair;

	// Scratch of the canonical order (pairs.c): keys and places of the pairs being sorted.
	uint64_t *sort_keys;
	uint32_t *sort_index;
	void *sort_items;
	int sort_capacity;
	size_t sort_items_bytes;

	pbd_tracks tracks;
	uint32_t update_serial;    // counts updates; a particle's stamp names the one that set its track
	uint32_t *strays;          // the particles that need new tracks in this update
	int stray_count, strays_capacity;
	int moved_count;           // particles given new tracks since the last full search

	// The search's boxes (frame coordinates), grids and scratch.
	pbd_aabb *boxes;           // of the particles
	// Per particle: at least how far its track moves from the search until it runs out (speed
	// times that time, rounded up), which bounds how far two tracks close in (pair_search.c).
	float *travel;
	int box_capacity;
	// The boxes of the triangles and edges in patch order (patch_tris, then patch_edges from
	// slot tri_count + 4), a column per bound and coordinate (lo x y z, hi x y z), each
	// prim_stride floats long (6 * prim_stride in all) with room for reading four past a
	// patch's last: a patch's primitives are tested four at a time where they lie, with no copying.
	float *prim_box;
	// Their corners in the same slots, three columns of prim_stride (an edge's third unused):
	// pairs that share a corner are passed over four at a time with the boxes.
	uint32_t *prim_corner;
	int prim_stride;
	// Patches (collision/patches.c): pieces of a few triangles of a cloth, or one free particle.
	int patch_count, patch_capacity;
	int *patch_tri_start;      // triangles of patch p: patch_tris[patch_tri_start[p] ..]
	uint32_t *patch_tris;
	int *patch_own_start;      // the particles it owns (each particle is owned by one patch)
	uint32_t *patch_own;
	int *patch_edge_start;     // the edges it owns
	uint32_t *patch_edges;
	int *patch_corner_start;   // every particle of its triangles (and its own)
	uint32_t *patch_corners;
	int patch_tris_capacity, patch_own_capacity, patch_edges_capacity, patch_corners_capacity;
	uint32_t *tri_patch, *edge_patch, *vertex_patch;  // the patch of each triangle, edge, particle (owner)
	int tri_patch_capacity, edge_patch_capacity, vertex_patch_capacity;
	int *particle_patch_start; // the patches each particle is a corner of
	uint32_t *particle_patches;
	int particle_patches_capacity;
	uint32_t *patch_body;
	pbd_v3 *patch_rest_centre;
	float *patch_rest_radius;
	uint32_t patches_version;  // the topology version they were cut for
	int patches_particles;
	// Per patch: how far it and a patch of its cloth may stray from one shared rigid motion
	// and still have no contact between them, from the closest rest pair its primitives are
	// in (0: never passed over). Valid while tolerances_valid (patches.c).
	float *patch_tolerance;
	bool tolerances_valid;
	pbd_rest_closest *rest_closest;  // per body slot (patches.c)
	int rest_closest_capacity;
	pbd_patch_fit *fits;       // per patch, when last searched
	pbd_aabb *patch_boxes;     // per patch: the box of its primitives (frame coordinates)
	pbd_aabb *patch_moved_boxes;  // per patch an update searches: the box of its primitives that moved
	uint32_t *patch_moved_tris, *patch_moved_edges;  // and which of them moved (bit k: its k-th)
	uint32_t *patch_version;   // per patch: how often its box changed since the full search
	uint32_t *patch_stamp;     // per patch: the update it was last searched in
	pbd_grid patch_grid;
	uint32_t *affected;        // the patches of this update's strays, in order
	int affected_capacity, affected_count;
	// The triangles and edges (primitive numbers as above) of each particle, in order.
	int *adjacent_start;
	uint32_t *adjacent;
	int adjacent_start_capacity, adjacent_capacity;
	uint32_t adjacency_version;  // the topology version it was built for
	int adjacency_particles;
	pbd_pair_chunk chunks[PBD_PAIR_CHUNKS];  // the search's per-chunk output
	pbd_near near;             // the grid cloths' pairs near at rest (near_pairs.h)
	// Per patch of a covered cloth: the grid columns and rows its particles take.
	pbd_grid_span *patch_span;

	// The free particles' mean velocity when the step began, and their mean acceleration
	// over the last step: the frame of the next full search.
	double step_mean_v[3];
	pbd_v3 mean_accel;
} pbd_pairs;

// Brings the pairs up to date for the substep of length h that starts now: every particle
// must keep to its track over its motion (x -> p, and through the carried start while the
// carry holds one); those that do not get new tracks and their pairs are found again, or
// everything is searched anew (also when `force`, or when bodies changed). Returns false when
// memory ran out or the pairs would exceed settings.max_candidate_pairs (over_limit): then no
// pairs are kept. The side each pair keeps is worked out by the solvers from x.
bool pbd_pairs_update(pbd_world *world, float h, bool force);
// Certifies the near pairs' windows (near_pairs.h) over the motion the guard will sweep, and
// lists the pairs of those that fail; false when out of memory or over the limit (no pairs).
bool pbd_pairs_certify(pbd_world *w);
// After the guard's rounds: the windows whose particles it stopped are certified again (those
// that fail are listed by the next update: pbd_pairs_hold is false until then).
void pbd_pairs_recertify_stopped(pbd_world *w);
// Whether every particle keeps to its track over the substep that starts now and every near
// window that failed is listed (nothing to update).
bool pbd_pairs_hold(pbd_world *world, float h);
// Each pair stores its clearance: a lower bound of the distance between its tracks while they
// hold, less a slack (vertex-triangle: the solver's reach past the triangle's edges). Each
// particle's drift bounds how far it is from its track. Distances change no faster than the
// points move, so while clearance - drift (of the vertex, and of the triangle's corners counted
// 1.2 times for the triangle's growth) stays above a distance, the pair is farther apart than
// that: the solvers and the guard skip it without looking at it. A resting, falling or flying
// cloth's pairs are almost all decided so.
// For the contacts: drifts of p, at the substep's end (each pass, before its contacts).
void pbd_pairs_drift(pbd_world *world, float h);
// For the guard: drifts of the whole motion from its start to p, however the guard shortens it.
void pbd_pairs_sweep_drift(pbd_world *world);
// |a - b|, rounded up: a drift never comes out short.
static inline float pbd_distance_up(pbd_v3 a, pbd_v3 b)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
	return (float)(sqrt(dx * dx + dy * dy + dz * dz) * (1.0 + 1e-6));
}
// pbd_distance_up(a, b) <= bound, the same answer, mostly without the square root: when the
// squares are clearly within (by far more than the doubles' rounding), the root is too, and
// rounding it to a float never takes it past a float bound.
static inline bool pbd_within_up(pbd_v3 a, pbd_v3 b, float bound)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
	double d2 = dx * dx + dy * dy + dz * dz, b2 = (double)bound * bound;
	if (bound >= 0.0f && d2 * ((1.0 + 1e-6) * (1.0 + 1e-6)) <= b2 * (1.0 - 1e-12))
		return true;
	return pbd_distance_up(a, b) <= bound;
}
// The contact drift of particle i after a contact moved its p to `p` (the others keep
// theirs): the contact solvers keep the drifts true as they go.
static inline void pbd_pairs_redrift(pbd_pairs *pairs, uint32_t i, pbd_v3 p)
{
	float d = pbd_distance_up(p, pairs->tracks.to[i]);
	pairs->tracks.drift[i] = isfinite(d) ? d : INFINITY;
}
static inline bool pbd_vt_apart(const pbd_pairs *pairs, const pbd_vt_contact *c, const uint32_t *t, float keep)
{
	const float *d = pairs->tracks.drift;
	float corner = maxf(d[t[0]], maxf(d[t[1]], d[t[2]]));
	return c->clearance - keep > d[c->q] + 1.2f * corner;
}
static inline bool pbd_ee_apart(const pbd_pairs *pairs, const pbd_ee_contact *c, const uint32_t *ea,
				const uint32_t *eb, float keep)
{
	const float *d = pairs->tracks.drift;
	return c->clearance - keep > maxf(d[ea[0]], d[ea[1]]) + maxf(d[eb[0]], d[eb[1]]);
}
// The free particles' mean velocity at the step's start and end: its change sets the frame
// of the next full search.
void pbd_pairs_step_begin(pbd_world *world);
void pbd_pairs_step_end(pbd_world *world, float dt);
// Forgets the pairs and the tracks (bodies or settings changed): the next update searches anew.
void pbd_pairs_clear(pbd_world *world);
// Contact memory comes back after a transient (a hit, a drag): every PBD_TRIM_STEPS steps the
// step asks each contact module to shrink the lists and scratch that were far larger than the
// most they held over those steps (pbd_trim_array): the pairs and their grids here, the
// guard's scratch, the collider contacts.
#define PBD_TRIM_STEPS 150
void pbd_pairs_trim(pbd_world *world);
void pbd_pairs_free(pbd_world *world);
