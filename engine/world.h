// SPDX-License-Identifier: MIT
// The world's internal layout: object tables and flat particle arrays.
#pragma once

#include <pbd/pbd.h>

#include "collision.h"
#include "constraints.h"
#include "core.h"

#define PBD_COOKIE 0x7062640a
#define PBD_ERROR_CAPACITY 256
#define PBD_MAX_GRID_RES 4096
#define PBD_MAX_PARTICLES (1 << 24)
#define PBD_MAX_COUNT 1000

typedef struct pbd_pose {
	pbd_v3 p;
	pbd_quat q;
} pbd_pose;

typedef struct pbd_collider {
	uint32_t generation;
	bool live;
	pbd_shape_query shape;
	pbd_pose pose_start;   // pose at the start of the current step
	pbd_pose pose_end;     // pose the step moves it to
	pbd_pose sub_start;    // poses at the start and end of the current substep
	pbd_pose sub_end;
	float static_friction;
	float kinetic_friction;
} pbd_collider;

typedef struct pbd_cloth {
	uint32_t generation;
	bool live;
	int first;                 // first particle in the world arrays
	int count;                 // particles
	int triangle_count;
	uint32_t *triangles;       // local indices, 3 per triangle
	pbd_cloth_material material;
	float areal_density;       // mean mass per rest area, kg/m^2
	pbd_distance_constraints distance;
	pbd_bending_constraints bending;
	pbd_tethers tethers;
	float *out_positions;      // packed float[3] per particle, refreshed after each step
	float *out_normals;
	float *out_velocities;
} pbd_cloth;

typedef struct pbd_collider_contact {
	uint32_t particle;         // world particle index
	uint32_t collider;         // collider slot
	float radius;              // distance the particle keeps from the surface
	float static_friction;     // combined coefficients
	float kinetic_friction;
} pbd_collider_contact;

struct pbd_world {
	pbd_allocator allocator;
	pbd_world_settings settings;
	double time;               // simulated seconds, drives wind gusts

	// Cloth and collider tables; slots are reused, generations catch stale ids.
	pbd_cloth *cloths;
	int cloth_capacity;
	pbd_collider *colliders;
	int collider_capacity;

	// Particles of every cloth, in cloth order.
	int particle_count;
	int particle_capacity;
	pbd_v4 *x;                 // position at the start of the substep; w = inverse mass
	pbd_v4 *p;                 // predicted position; w = inverse mass
	pbd_v3 *v;                 // velocity
	pbd_v3 *force;             // per-step scratch: aerodynamic force
	float *inv_mass_free;      // inverse mass when not pinned
	uint8_t *pinned;           // 1 while kinematic
	pbd_v3 *pin_from;          // kinematic path over the step
	pbd_v3 *pin_to;
	uint32_t *owner;           // cloth slot of each particle

	pbd_collider_contact *contacts;
	int contact_count;
	int contact_capacity;

	pbd_world_stats stats;
	size_t bytes_live;
	size_t bytes_peak;
	int64_t allocations;
	char error[PBD_ERROR_CAPACITY];
};

// Every per-particle array of the world, for code that grows, shifts or frees them together.
#define PBD_PARTICLE_ARRAYS(X) X(x) X(p) X(v) X(force) X(inv_mass_free) X(pinned) X(pin_from) X(pin_to) X(owner)

// memory.c
void *pbd_alloc(pbd_world *world, size_t size);
void pbd_free(pbd_world *world, void *ptr, size_t size);
// Allocates count * size bytes, zeroed; NULL on overflow or failure.
void *pbd_alloc_array(pbd_world *world, size_t count, size_t size);
void pbd_free_array(pbd_world *world, void *ptr, size_t count, size_t size);
// Grows *array from old_count to new_count elements, keeping the contents.
bool pbd_grow_array(pbd_world *world, void **array, size_t old_count, size_t new_count, size_t size);

// errors.c
pbd_result pbd_fail(pbd_world *world, pbd_result code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

// cloth.c / collider.c
pbd_cloth *pbd_cloth_lookup(const pbd_world *world, pbd_cloth_id id, pbd_result *why);
pbd_collider *pbd_collider_lookup(const pbd_world *world, pbd_collider_id id, pbd_result *why);
void pbd_cloth_release_all(pbd_world *world, pbd_cloth *cloth);
void pbd_cloth_refresh_outputs(pbd_world *world, pbd_cloth *cloth);

// constraints/particle_collider.c: projects the contacts found this substep; returns how
// many were touching.
int pbd_collider_contacts_solve(pbd_world *world);
// collision/collider_contacts.c: particle-collider pairs that may touch this substep.
bool pbd_collider_contacts_find(pbd_world *world);

// Checks shared by the setters.
pbd_result pbd_check_material(pbd_world *world, const pbd_cloth_material *m);
pbd_result pbd_check_settings(pbd_world *world, const pbd_world_settings *s);
bool pbd_finite_n(const float *f, int n);
