// SPDX-License-Identifier: MIT
// Contact candidates (collision/pairs.c): the vertex-triangle, edge-edge and particle pairs
// that may come within their thickness, found by the broad phase and valid while every
// particle stays in its region. The contact solvers (constraints/), the carry and the guard
// (collision/collider_carry.c, collision/guard.c) read them.
#pragma once

#include "broad_phase.h"
#include "core.h"

// Contact candidates of one substep (collision/pairs.c), solved by constraints/.
typedef struct pbd_vt_contact {
	uint32_t q;                // the vertex (or free particle)
	uint32_t tri;              // index into the topology's triangles (topology.h)
	float thickness;           // distance kept between the vertex and the triangle
	// A lower bound of how far apart the pair is at the search (see pbd_vt_apart, pbd_ee_apart).
	float clearance;
	bool ball;                 // q is a free particle: kept off the whole closed triangle
} pbd_vt_contact;

typedef struct pbd_ee_contact {
	uint32_t a, b;             // indices into the topology's edges
	float thickness;
	float clearance;           // as for pbd_vt_contact
} pbd_ee_contact;

typedef struct pbd_pp_contact {
	uint32_t i, j;
	float thickness;           // kept between the centres: the sum of the radii
	uint8_t cloth_side;        // a free particle against a cloth vertex: 1 when i is the cloth's, 2 when j is
} pbd_pp_contact;

// The pair search runs in chunks (threads take chunks); each chunk fills its own lists, which
// are joined in chunk order, so the pairs come out in the same order for any thread count.
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
} pbd_pair_chunk;

typedef struct pbd_pairs {
	pbd_vt_contact *vt;
	int vt_count, vt_capacity, vt_peak;  // peaks: most since the last trim
	pbd_ee_contact *ee;
	int ee_count, ee_capacity, ee_peak;
	pbd_pp_contact *pp;
	int pp_count, pp_capacity, pp_peak;
	// Whether the last search stopped at settings.max_candidate_pairs (it then kept no
	// pairs, and the regions are void).
	bool over_limit;

	// The search's grids and scratch.
	pbd_grid vertex_grid;
	pbd_grid edge_grid;
	pbd_aabb *boxes;
	int box_capacity;
	pbd_pair_chunk chunks[PBD_PAIR_CHUNKS];  // the search's per-chunk output

	// Where the pairs hold.
	pbd_aabb *regions;         // per particle: where its motion must stay for the pairs to hold
	pbd_v3 *search_at;         // per particle: x at the search
	float *drift;              // per particle: how far it may be from search_at (pbd_pairs_drift)
	pbd_v3 drift_shift;        // the frame's motion the contacts' drifts were measured with
	int region_capacity;       // of regions, search_at and drift
	int region_count;          // particles the current pairs cover (0: find them again)
	// The regions are boxes in a frame that moves with the free particles' mean motion (so a
	// cloth flying or falling as one keeps its pairs): at tau seconds after region_time the
	// frame has moved frame_vel tau + frame_acc tau^2 / 2.
	double region_time;
	pbd_v3 frame_vel, frame_acc;
	double step_mean_v[3];     // the free particles' mean velocity when the step began
	pbd_v3 mean_accel;         // their mean acceleration over the last step
} pbd_pairs;

// Finds the pairs for the substep of length h (x -> p, or from the carried starts). False
// when memory ran out or the pairs would exceed settings.max_candidate_pairs (over_limit):
// then no pairs are kept. The side each pair keeps is worked out by the solvers from x, only
// for pairs that come close.
bool pbd_pairs_find(pbd_world *world, int substeps_left, float h);
// Whether the pairs still hold for the substep of length h that starts now (x -> p).
bool pbd_pairs_covered(const pbd_world *world, float h);
// Whether the pairs also hold for the carried starts (the carry's particles move x -> carried
// start -> p).
bool pbd_pairs_cover_carried(const pbd_world *world, float h);
// Each pair stores its clearance: its distance at the search, less a slack (vertex-triangle:
// the solver's tolerance past the triangle's edges). Each particle's drift bounds how far it
// has got from where it was at the search, in the frame of the search (a shift shared by
// all particles changes no distance). Distances change no faster than the particles move,
// so while clearance - drift (of the vertex, and of the triangle's corners counted 1.2
// times for the triangle's growth) stays above a distance, the pair is farther apart than
// that: the solvers and the guard skip it without looking at it. A resting or slowly moving
// cloth's pairs are almost all decided so.
// For the contacts: drifts of p, at the substep's end (each pass, before its contacts).
void pbd_pairs_drift(pbd_world *world, float h);
// For the guard: drifts of the whole motion x -> p, however the guard shortens it.
void pbd_pairs_sweep_drift(pbd_world *world);
// |a - b|, rounded up: a drift never comes out short.
static inline float pbd_distance_up(pbd_v3 a, pbd_v3 b)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
	return (float)(sqrt(dx * dx + dy * dy + dz * dz) * (1.0 + 1e-6));
}
// The contact drift of particle i after a contact moved its p to `p` (the others keep
// theirs): the contact solvers keep the drifts true as they go.
static inline void pbd_pairs_redrift(pbd_pairs *pairs, uint32_t i, pbd_v3 p)
{
	float d = pbd_distance_up(v3_sub(p, pairs->drift_shift), pairs->search_at[i]);
	pairs->drift[i] = isfinite(d) ? d : INFINITY;
}
static inline bool pbd_vt_apart(const pbd_pairs *pairs, const pbd_vt_contact *c, const uint32_t *t, float keep)
{
	const float *d = pairs->drift;
	float corner = maxf(d[t[0]], maxf(d[t[1]], d[t[2]]));
	return c->clearance - keep > d[c->q] + 1.2f * corner;
}
static inline bool pbd_ee_apart(const pbd_pairs *pairs, const pbd_ee_contact *c, const uint32_t *ea,
				const uint32_t *eb, float keep)
{
	const float *d = pairs->drift;
	return c->clearance - keep > maxf(d[ea[0]], d[ea[1]]) + maxf(d[eb[0]], d[eb[1]]);
}
// The free particles' mean velocity at the step's start and end: its change moves the frame
// of the next searches.
void pbd_pairs_step_begin(pbd_world *world);
void pbd_pairs_step_end(pbd_world *world, float dt);
// Forgets the pairs (bodies changed: their indices are void).
void pbd_pairs_clear(pbd_world *world);
// Contact memory comes back after a transient (a hit, a drag): every PBD_TRIM_STEPS steps the
// step asks each contact module to shrink the lists and scratch that were far larger than the
// most they held over those steps (pbd_trim_array): the pairs and their grids here, the
// guard's scratch, the collider contacts.
#define PBD_TRIM_STEPS 150
void pbd_pairs_trim(pbd_world *world);
void pbd_pairs_free(pbd_world *world);
