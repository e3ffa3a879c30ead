// SPDX-License-Identifier: MIT
// Particle-collider contacts (collision/collider_contacts.c): the particles that may touch a
// collider this substep, solved by constraints/particle_collider.c.
#pragma once

#include "broad_phase.h"
#include "core.h"

typedef struct pbd_collider_contact {
	uint32_t particle;         // world particle index
	uint32_t collider;         // collider slot
	float radius;              // distance the particle keeps from the surface
} pbd_collider_contact;

// Where a cloth's particles are at a substep's end: the box around p and the longest motion
// x -> p (the radius is the body's: every particle of a body has it).
typedef struct pbd_body_extent {
	pbd_aabb box;
	float travel;
} pbd_body_extent;

typedef struct pbd_collider_contacts {
	pbd_collider_contact *items;
	int count;
	int capacity;
	int peak;                  // most contacts since the last trim
	uint8_t *keep;             // scratch of the search: per particle, keep or not
	int keep_capacity;
	pbd_body_extent *extents; // and per body slot: where its particles are
	int extent_capacity;
	// The particle passes that run anyway (predict, the limit of motion) measure the extents
	// on the way, so that the search needs no pass of its own: per worker and body slot what
	// a worker's particles spanned, merged after the pass (minima and maxima in any order).
	pbd_body_extent *partial;
	int partial_capacity;
	bool measured;            // the extents are the particles' as they are now
	bool predicted;           // the extents were measured after this substep's prediction
} pbd_collider_contacts;

// Particles per piece of a measuring pass: the pass moves a piece, then measures it while it
// is still in the first-level cache.
#define PBD_EXTENT_PIECE 256

// Before a particle pass: whether it is to measure the extents (there is a live collider and
// room for the workers' shares); clears the shares.
bool pbd_extents_begin(pbd_world *world);
// Particles start .. end - 1 (of any bodies), just moved, into worker's share.
void pbd_extents_measure(pbd_world *world, int worker, int start, int end);
// After the pass: the extents of every live cloth, for the next search.
void pbd_extents_finish(pbd_world *world);

// A later pass of the same substep (the limit of motion) need not measure again: the
// particles lie within their longest motion x -> p of where they started, and those starts
// within the measured travel of the predicted box. It clears the shares (whether the
// prediction was measured: false, and the search measures on its own), records the largest
// squared motion of particles start .. end - 1 (INFINITY when one is not finite), and
// finishes with the predicted extents grown by it. The whole-cloth test only culls: a box a
// few motions wider passes the same cloths over.
bool pbd_extents_begin_moved(pbd_world *world);
void pbd_extents_moved(pbd_world *world, int worker, int start, int end, float motion2);
void pbd_extents_finish_moved(pbd_world *world);

// The particle-collider pairs that may touch this substep; false when out of memory.
bool pbd_collider_contacts_find(pbd_world *world);
// Forgets the contacts (bodies changed: their indices are void).
void pbd_collider_contacts_clear(pbd_world *world);
void pbd_collider_contacts_trim(pbd_world *world);
void pbd_collider_contacts_free(pbd_world *world);
