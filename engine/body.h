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
	// A cloth created as a grid of grid_res_x x grid_res_y vertices (row after row, two
	// triangles a quad) until it tears; 0 x 0 for a mesh or a torn grid.
	int grid_res_x, grid_res_y;
	pbd_cloth_material material;
	float areal_density;       // mean mass per rest area, kg/m^2
	pbd_distance_constraints distance;
	pbd_bending_constraints bending;
	pbd_tethers tethers;
	bool holds_changed;        // pins or attachments changed since the tethers were built
	// A moving collider flung it about: until this step (stats.steps) its own motion counts
	// for the substeps (engine/collider.c). 0: never.
	int64_t flung_until;
	float flung_speed;         // m/s, the fastest collider that flung it
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
	// Tearing (engine/tear.c): the vertex of the cloth as created that each vertex comes from
	// (NULL until the first split: each its own).
	uint32_t *origin;
	float *tear_share;         // per vertex: its share of the tear strain (NULL: all 1)
	// The least distance the lips of its tears keep from each other (0: never torn). Places of
	// one cloth that touch at rest keep no distance (a seam); the copies of a split vertex
	// start a hair apart in the rest shape, and pairs of them, and of their edges, could have
	// no distance at rest at all: they keep this instead, so torn pieces never pass through
	// each other.
	float tear_gap;
} pbd_body;

// The table; slots are reused, generations catch stale ids.
typedef struct pbd_bodies {
	pbd_body *slots;
	int capacity;
} pbd_bodies;

// A live body of the given kind by id; *why says why not (stale, unknown).
pbd_body *pbd_body_lookup(const pbd_world *world, uint32_t index1, uint32_t generation, int kind, pbd_result *why);
pbd_body *pbd_cloth_lookup(const pbd_world *world, pbd_cloth_id id, pbd_result *why);
// The same for a call of the API: a stale or unknown id also sets the world's message.
pbd_body *pbd_cloth_find(const pbd_world *world, pbd_cloth_id id, pbd_result *why);
// Frees what a body holds (constraints, triangles, readback buffers) and marks its slot free.
void pbd_body_release(pbd_world *world, pbd_body *body);
// Removes a body's particles from the world arrays and frees it.
void pbd_body_remove(pbd_world *world, pbd_body *body);
// A free body slot (the table grows); -1 when out of memory.
int pbd_body_slot(pbd_world *world);
// Fills the body's readback buffers (positions, normals, velocities) from the particles.
void pbd_body_refresh_outputs(pbd_world *world, pbd_body *body);
// The constraints, edges, triangles around each vertex and readback buffers of cloth c after
// a tear, built into *out (a copy of c's header) for `count` vertices with the given rest
// positions, inverse masses (0: held) and triangles; c is not touched. `source` gives, for each
// vertex, the vertex of c it was copied from (the grid's shear pairs are kept where both ends'
// sources were a pair and still face each other across an edge). out->triangles takes the
// triangles over. On failure (out of memory) nothing is kept and the caller still owns them.
pbd_result pbd_cloth_rebuild(pbd_world *world, const pbd_body *c, int count, const pbd_v3 *rest,
			     const float *inv_mass, uint32_t *triangles, const uint32_t *source, pbd_body *out);
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
