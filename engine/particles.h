// SPDX-License-Identifier: MIT
// The particles of every body in flat arrays, in body order (engine/particles.c). Bodies own
// a contiguous run of them (pbd_body.first, .count).
#pragma once

#include "core.h"

typedef struct pbd_particles {
	int count;
	int capacity;
	pbd_v4 *x;                 // position at the start of the substep; w = inverse mass
	pbd_v4 *p;                 // predicted position; w = inverse mass
	pbd_v3 *v;                 // velocity
	pbd_v3 *force;             // per-step scratch: aerodynamic force
	float *inv_mass_free;      // inverse mass when not pinned
	uint8_t *pinned;           // 1 while kinematic
	pbd_v3 *pin_from;          // kinematic path over the step
	pbd_v3 *pin_to;
	uint32_t *owner;           // body slot of each particle
	float *radius;             // how far the particle's surface reaches: half the cloth's
				   // thickness for a cloth vertex, the particle's radius for a free one
	pbd_v3 *rest;              // rest position in the body's own frame (rest-distance exemption)
} pbd_particles;

// Every per-particle array, for code that grows, shifts or frees them together.
#define PBD_PARTICLE_ARRAYS(X) \
	X(x) X(p) X(v) X(force) X(inv_mass_free) X(pinned) X(pin_from) X(pin_to) X(owner) X(radius) X(rest)

// Room for `extra` more particles (all arrays or none); false when out of memory.
bool pbd_reserve_particles(pbd_world *world, int extra);
// Removes particles first .. first + count - 1, moving the later ones down.
void pbd_particles_remove(pbd_world *world, int first, int count);
// Opens room for `count` particles at `at`, moving the later ones up (room reserved with
// pbd_reserve_particles); the new slots hold whatever the caller writes.
void pbd_particles_insert(pbd_world *world, int at, int count);
void pbd_particles_free(pbd_world *world);
