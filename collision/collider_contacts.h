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

// Where a cloth's particles are at a substep's end: the box around p, the longest motion
// x -> p and the largest radius.
typedef struct pbd_body_extent {
	pbd_aabb box;
	float travel, radius;
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
} pbd_collider_contacts;

// The particle-collider pairs that may touch this substep; false when out of memory.
bool pbd_collider_contacts_find(pbd_world *world);
// Forgets the contacts (bodies changed: their indices are void).
void pbd_collider_contacts_clear(pbd_world *world);
void pbd_collider_contacts_trim(pbd_world *world);
void pbd_collider_contacts_free(pbd_world *world);
