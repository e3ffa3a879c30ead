// SPDX-License-Identifier: MIT
// The body table (engine/cloth.c, engine/particles.c): cloths and groups of free particles.
#pragma once

#include "constraints.h"
#include "core.h"

// A body: a cloth, or a group of free particles (kind). Both live in one table so that
// particles of every body share the world's flat arrays and the contact code.
typedef enum pbd_body_kind {
	PBD_BODY_CLOTH = 0,
	PBD_BODY_PARTICLES = 1,
} pbd_body_kind;

// A body of the world: a cloth, or a group of free particles (no triangles, no constraints).
typedef struct pbd_body {
	uint32_t generation;
	bool live;
	uint8_t kind;              // pbd_body_kind
	float particle_radius;     // particles: their radius
	int first;                 // first particle in the world arrays
	int count;                 // particles
	int triangle_count;
	uint32_t *triangles;       // local indices, 3 per triangle
	pbd_cloth_material material;
	float areal_density;       // mean mass per rest area, kg/m^2
	pbd_distance_constraints distance;
	pbd_bending_constraints bending;
	pbd_tethers tethers;
	bool holds_changed;        // pins or attachments changed since the tethers were built
	float *out_positions;      // packed float[3] per particle, refreshed after each step
	float *out_normals;
	float *out_velocities;
	// The triangles around each vertex, in increasing order: around vertex i are
	// vertex_triangles[vertex_triangle_start[i] .. vertex_triangle_start[i + 1] - 1]. A sum
	// over them per vertex adds in the order a loop over the triangles would, so per-triangle
	// quantities (air forces, normals) are computed on all threads and summed bit for bit
	// as one thread would.
	int *vertex_triangle_start;
	uint32_t *vertex_triangles;
	pbd_v3 *triangle_scratch;  // one vector per triangle, written and read within one stage
} pbd_body;

// The table; slots are reused, generations catch stale ids.
typedef struct pbd_bodies {
	pbd_body *slots;
	int capacity;
} pbd_bodies;

// A live body of the given kind by id; *why says why not (stale, unknown).
pbd_body *pbd_body_lookup(const pbd_world *world, uint32_t index1, uint32_t generation, int kind, pbd_result *why);
pbd_body *pbd_cloth_lookup(const pbd_world *world, pbd_cloth_id id, pbd_result *why);
// Frees what a body holds (constraints, triangles, readback buffers) and marks its slot free.
void pbd_body_release(pbd_world *world, pbd_body *body);
// Removes a body's particles from the world arrays and frees it.
void pbd_body_remove(pbd_world *world, pbd_body *body);
// A free body slot (the table grows); -1 when out of memory.
int pbd_body_slot(pbd_world *world);
// Fills the body's readback buffers (positions, normals, velocities) from the particles.
void pbd_body_refresh_outputs(pbd_world *world, pbd_body *body);
// Frees every body and the table.
void pbd_bodies_free(pbd_world *world);

// Friction of a contact: the geometric mean of both sides' coefficients, mixed when the
// contact is solved from the bodies' (and collider's) coefficients as they are now, so that a
// setter takes effect at the next step; candidates live across steps and were once stale.
typedef struct pbd_friction_pair {
	float static_friction, kinetic_friction;
} pbd_friction_pair;

static inline pbd_friction_pair pbd_mix_friction(float static_a, float kinetic_a, float static_b, float kinetic_b)
{
	return (pbd_friction_pair){sqrtf(static_a * static_b), sqrtf(kinetic_a * kinetic_b)};
}
