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

// Cloth vertices held to a frame the game moves (engine/attachment.c). Vertices are named
// by their index in the cloth, so they survive other cloths being removed.
typedef struct pbd_attachment {
	uint32_t generation;
	bool live;
	uint32_t body;             // body slot of the cloth
	uint32_t body_generation;
	int count;
	uint32_t *vertices;        // cloth-local vertex indices
	pbd_v3 *offset;            // each vertex's place in the frame
	float *lambda;             // XPBD multipliers of the springs, reset each substep
	float compliance;          // 0: kinematic
	float max_force;           // N per spring, 0: no limit
	pbd_pose pose_start;       // frame at the start of the step and where the step takes it
	pbd_pose pose_end;
	pbd_pose sub_end;          // frame at the end of the current substep
} pbd_attachment;

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

// Contact candidates of one substep (collision/pairs.c), solved by constraints/.
typedef struct pbd_vt_contact {
	uint32_t q;                // the vertex (or free particle)
	uint32_t tri;              // index into world->tri
	float thickness;           // distance kept between the vertex and the triangle
	// A lower bound of how far apart the pair is at the search (see pbd_pair_apart).
	float clearance;
	bool ball;                 // q is a free particle: kept off the whole closed triangle
} pbd_vt_contact;

typedef struct pbd_ee_contact {
	uint32_t a, b;             // indices into world->edge
	float thickness;
	float clearance;           // as for pbd_vt_contact
} pbd_ee_contact;

typedef struct pbd_pp_contact {
	uint32_t i, j;
	float thickness;           // kept between the centres: the sum of the radii
	uint8_t cloth_side;        // a free particle against a cloth vertex: 1 when i is the cloth's, 2 when j is
} pbd_pp_contact;

// A free particle (a ball) against cloth: within the contact, the cloth's inverse mass is at
// most `ratio` (settings.particle_cloth_mass_ratio, 0 = no cap) times the ball's. With one pass
// per substep, a ball hundreds of times heavier than the cloth vertices it touches takes almost
// none of each correction; the stretch constraints pull the cloth back into it next substep,
// and the ball goes on as if the cloth were not there (a 0.1 kg ball at 20 m/s sank to its
// centre in a 0.3 kg trampoline). The tension that would stop it reaches the ball only through
// many passes. Capping the ratio lets the contact stand for the cloth the touched vertices are
// tied to (mass scaling for contacts, as Macklin et al. 2014 do for stacks); the contact then
// does not keep momentum exactly.
static inline float pbd_ball_contact_inverse_mass(float cloth_w, float ball_w, float ratio)
{
	return ratio > 0.0f && ball_w > 0.0f ? fminf(cloth_w, ratio * ball_w) : cloth_w;
}

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

typedef struct pbd_aabb {
	pbd_v3 lo, hi;
} pbd_aabb;

// Where a cloth's particles are at a substep's end: the box around p, the longest motion
// x -> p and the largest radius.
typedef struct pbd_cloth_extent {
	pbd_aabb box;
	float travel, radius;
} pbd_cloth_extent;

// One entry of the grid: a primitive in one of the cells its box covers. The cell travels with
// the id so that entries of other cells whose hashes collide are skipped without reading a box.
typedef struct pbd_grid_item {
	int cell[3];
	uint32_t id;
} pbd_grid_item;

// A uniform grid hashed into buckets (Teschner et al. 2003), rebuilt from boxes. Queries do not
// write to it, so several threads may query one grid at once.
typedef struct pbd_grid {
	float cell;
	int bucket_count;          // power of two
	int bucket_capacity;       // buckets allocated (>= bucket_count)
	int *bucket_start;         // bucket_count + 1
	pbd_grid_item *items;      // grouped by bucket
	int item_count;
	int item_capacity;
	int item_peak, bucket_peak;  // most entries and buckets since the last trim
	uint32_t *oversized;       // primitives whose box covers too many cells: tested with all
	int oversized_count;
	int oversized_capacity;
	const pbd_aabb *boxes;     // the boxes of the last build (oversized and huge queries)
	int primitive_count;
} pbd_grid;


typedef struct pbd_collider_contact {
	uint32_t particle;         // world particle index
	uint32_t collider;         // collider slot
	float radius;              // distance the particle keeps from the surface
} pbd_collider_contact;

struct pbd_world {
	pbd_allocator allocator;
	// Task hooks (NULL: everything on the calling thread).
	int worker_count;
	pbd_enqueue_task_fn *enqueue_task;
	pbd_finish_task_fn *finish_task;
	void *user_task_context;
	pbd_world_settings settings;
	double time;               // simulated seconds, drives wind gusts

	// Body and collider tables; slots are reused, generations catch stale ids. A body is a
	// cloth (PBD_BODY_CLOTH) or a group of free particles (PBD_BODY_PARTICLES).
	pbd_body *bodies;
	int body_capacity;
	pbd_collider *colliders;
	int collider_capacity;
	pbd_attachment *attachments;
	int attachment_capacity;

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
	uint32_t *owner;           // body slot of each particle
	float *radius;             // contact radius: thickness / 2 for cloth, the radius for particles
	pbd_v3 *rest;              // rest position in the body's own frame (rest-distance exemption)

	pbd_collider_contact *contacts;
	int contact_count;
	int contact_capacity;
	int contact_peak;          // most contacts since the last trim
	uint8_t *contact_keep;     // scratch of the collider-contact search: per particle, keep or not
	int contact_keep_capacity;
	pbd_cloth_extent *cloth_extents;  // and per cloth slot: where its particles are
	int cloth_extent_capacity;

	// Topology of all bodies in world particle indices, rebuilt when bodies change.
	bool topology_dirty;
	uint32_t *tri;             // 3 per triangle
	uint32_t *tri_owner;       // body slot
	int tri_count, tri_capacity;
	uint32_t *edge;            // 2 per edge
	uint32_t *edge_owner;
	int edge_count, edge_capacity;
	float max_radius;          // largest particle radius (vertex: thickness / 2)

	// Broad phase (per substep) and its scratch.
	pbd_grid vertex_grid;
	pbd_grid edge_grid;
	pbd_aabb *boxes;
	int box_capacity;
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
	pbd_vt_contact *vt;
	int vt_count, vt_capacity, vt_peak;  // peaks: most since the last trim
	pbd_ee_contact *ee;
	int ee_count, ee_capacity, ee_peak;
	pbd_pp_contact *pp;
	int pp_count, pp_capacity, pp_peak;
	pbd_pair_chunk pair_chunks[PBD_PAIR_CHUNKS];  // the pair search's per-chunk output
	uint32_t *ccd_stamp;       // guard scratch: the round in which a particle's motion changed
	int ccd_stamp_capacity;
	uint8_t *guard_live;       // guard scratch: per vt then ee pair, whether its sweep can meet
	int guard_live_capacity;
	uint32_t *guard_pairs;     // guard scratch: the pairs that can (vt first, then ee + vt_count)
	int guard_pair_count, guard_pairs_capacity;
	int guard_live_peak, guard_pairs_peak;  // most used since the last trim
	int steps_since_trim;      // contact memory is trimmed every PBD_TRIM_STEPS steps
	// Carry scratch (collision/collider_carry.c): per particle, the moving collider that
	// carries its substep start (>= 0), PBD_NOT_CARRIED or PBD_CARRY_BLOCKED; the carried
	// start; and every particle's start for the search and the guard while carry_active
	// (x, or the carried start). x itself is never touched: velocities still come from it.
	int32_t *carry_by;
	pbd_v4 *carry_to;
	pbd_v4 *carry_start;
	int carry_capacity;
	int carry_count;           // particles carried this substep
	bool carry_active;         // the search and the guard run from carry_start (pbd_motion_starts)

	pbd_world_stats stats;
	size_t bytes_live;
	size_t bytes_peak;
	int64_t allocations;
	int64_t trims;             // arrays shrunk by pbd_trim_array since creation
	// Allocations that failed (memory.c): the step compares it before and after a substep
	// to learn whether the substep's contact search, carry or guard went without memory.
	int64_t allocation_failures;
	// Whether the last pair search stopped at settings.max_candidate_pairs (it then kept no
	// pairs, and the regions are void).
	bool pairs_over_limit;
	char error[PBD_ERROR_CAPACITY];
};

// Where each particle's motion of this substep starts for the pair search and the guard: x,
// or, while a moving collider carries starts (collider_carry.c), x with the carried ones moved.
static inline const pbd_v4 *pbd_motion_starts(const pbd_world *w) { return w->carry_active ? w->carry_start : w->x; }

// The friction of a contact between bodies (slots) a and b, and of body a against a collider.
static inline pbd_friction_pair pbd_bodies_friction(const pbd_world *w, uint32_t a, uint32_t b)
{
	const pbd_cloth_material *ma = &w->bodies[a].material, *mb = &w->bodies[b].material;
	return pbd_mix_friction(ma->static_friction, ma->kinetic_friction, mb->static_friction, mb->kinetic_friction);
}

static inline pbd_friction_pair pbd_collider_friction(const pbd_world *w, uint32_t body, const pbd_collider *c)
{
	const pbd_cloth_material *m = &w->bodies[body].material;
	return pbd_mix_friction(m->static_friction, m->kinetic_friction, c->static_friction, c->kinetic_friction);
}

// Every per-particle array of the world, for code that grows, shifts or frees them together.
#define PBD_PARTICLE_ARRAYS(X) \
	X(x) X(p) X(v) X(force) X(inv_mass_free) X(pinned) X(pin_from) X(pin_to) X(owner) X(radius) X(rest)

// Smallest ranges worth a thread: below these the hand-over costs more than the work.
#define PBD_PARTICLES_PER_RANGE 256
#define PBD_CONSTRAINTS_PER_RANGE 128
// tasks.c: runs task over items 0..count-1, through the hooks when there are any.
void pbd_parallel_for(pbd_world *world, pbd_task_fn *task, int count, int min_range, void *context);

// memory.c
void *pbd_alloc(pbd_world *world, size_t size);
void pbd_free(pbd_world *world, void *ptr, size_t size);
// Allocates count * size bytes, zeroed; NULL on overflow or failure.
void *pbd_alloc_array(pbd_world *world, size_t count, size_t size);
void pbd_free_array(pbd_world *world, void *ptr, size_t count, size_t size);
// Grows *array from old_count to new_count elements, keeping the contents.
bool pbd_grow_array(pbd_world *world, void **array, size_t old_count, size_t new_count, size_t size);
// Parallel arrays of one length (per particle, per attached vertex): each array and the
// size of its items.
typedef struct pbd_array_ref {
	void **array;
	size_t size;
} pbd_array_ref;
#define PBD_MAX_ARRAY_GROUP 8
// Replaces every array of a group of n (<= PBD_MAX_ARRAY_GROUP) with a zeroed one of `count`
// items, freeing the old ones (old_count items each). All or nothing: out of memory, the
// group is left as it was and the call returns false.
bool pbd_replace_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t old_count, size_t count);
// Room for `need` items in every array of a group of scratch whose contents are rebuilt
// before use: past *capacity the arrays are replaced (pbd_replace_arrays) by ones of
// max(need, 2 *capacity) items, and *capacity follows.
bool pbd_reserve_scratch_arrays(pbd_world *world, const pbd_array_ref *group, int n, int *capacity, int need);
// Frees every array of a group (count items each) and sets it to NULL.
void pbd_free_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t count);
// Gives back most of an array that has been far larger than needed: when *capacity is at least
// PBD_TRIM_FACTOR times `peak` (the most it held lately, at least 32) and that would free more
// than PBD_TRIM_MIN_BYTES, it becomes max(2 peak, 64) long, keeping its first `keep` items
// (keep <= peak). It grows again only past twice that peak, so a load that stays within a
// factor of two of itself never trims and regrows. On an allocation failure the array stays
// as it was.
#define PBD_TRIM_FACTOR 4
#define PBD_TRIM_MIN_BYTES ((size_t)4 << 10)
void pbd_trim_array(pbd_world *world, void **array, int *capacity, int peak, int keep, size_t size);

// errors.c
pbd_result pbd_fail(pbd_world *world, pbd_result code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

// cloth.c / collider.c
// Why an id {index1, generation} does not name a live slot of a table of `capacity` slots
// (PBD_OK when it does); shared by the body and collider tables.
static inline pbd_result pbd_check_slot(uint32_t index1, uint32_t id_generation, int capacity, bool live,
					uint32_t slot_generation)
{
	if (index1 == 0 || index1 > (uint32_t)capacity || id_generation == 0 || id_generation > slot_generation)
		return PBD_ERR_UNKNOWN_ID;
	return live && slot_generation == id_generation ? PBD_OK : PBD_ERR_STALE_ID;
}

// A live body of the given kind by id; *why says why not (stale, unknown).
pbd_body *pbd_body_lookup(const pbd_world *world, uint32_t index1, uint32_t generation, int kind, pbd_result *why);
pbd_body *pbd_cloth_lookup(const pbd_world *world, pbd_cloth_id id, pbd_result *why);
pbd_collider *pbd_collider_lookup(const pbd_world *world, pbd_collider_id id, pbd_result *why);
void pbd_cloth_release_all(pbd_world *world, pbd_body *cloth);
// Removes a body's particles from the world arrays and frees it.
void pbd_body_remove(pbd_world *world, pbd_body *body);
// A free body slot (the table grows); -1 when out of memory.
int pbd_body_slot(pbd_world *world);
bool pbd_reserve_particles(pbd_world *world, int extra);
void pbd_cloth_refresh_outputs(pbd_world *world, pbd_body *cloth);

// constraints/particle_collider.c: projects the contacts found this substep; returns how
// many were touching.
int pbd_collider_contacts_solve(pbd_world *world);
// Pushes cloth triangles off round colliders; returns how many were deep inside, and in
// *touching how many it pushed.
int pbd_collider_triangles_solve(pbd_world *world, int *touching);
// collision/narrow_phase.c: round colliders. The point of the core (a sphere's centre, a
// capsule's axis) nearest `point` with the collider at `pose`.
pbd_v3 pbd_round_collider_core(const pbd_collider *collider, const pbd_pose *pose, pbd_v3 point);
// Closest point of a triangle to a round collider's core (centre, axis) at `pose`: false
// when the triangle is further than `reach` plus its own size; otherwise its barycentric
// coordinates, the distance to the core and the direction away from it.
bool pbd_round_collider_triangle(const pbd_collider *collider, const pbd_pose *pose, const pbd_v3 corner[3],
				 float reach, double bary[3], float *distance, pbd_v3 *normal);
bool pbd_collider_is_round(const pbd_collider *collider);
// Whether the collider's pose changes within the substep.
bool pbd_collider_moves(const pbd_collider *collider);
// Whether a point is closer than `margin` to the collider's surface, or inside, at its
// substep-end pose (bound: the shape's bounding radius, a quick rejection).
bool pbd_collider_near_at_end(const pbd_collider *collider, float bound, pbd_v3 point, float margin);
// Whether a triangle comes closer than `reach` to a round collider's core at its substep-end pose.
bool pbd_round_collider_within_at_end(const pbd_collider *collider, const pbd_v3 corner[3], float reach);
// collision/collider_contacts.c: particle-collider pairs that may touch this substep.
bool pbd_collider_contacts_find(pbd_world *world);

// engine/attachment.c: frames at the end of the substep ending at t1 (fraction of the step);
// kinematic vertices are placed there. Attachments of a removed body go with it.
void pbd_attachments_substep(pbd_world *world, float t1);
void pbd_attachments_end_step(pbd_world *world);
void pbd_attachments_remove_body(pbd_world *world, uint32_t body);
void pbd_attachments_free(pbd_world *world);
// Sets held[v] = 1 for every vertex (cloth-local) of body slot `body` that an attachment
// holds, exactly or through its spring.
void pbd_attachments_mark_held(const pbd_world *world, uint32_t body, uint8_t *held);
// Whether an exact attachment holds vertex `vertex` (cloth-local) of body slot `body`.
bool pbd_attachment_holds(const pbd_world *world, uint32_t body, uint32_t vertex);
// constraints/attachment_spring.c: the springs of compliant attachments.
void pbd_attachments_solve(pbd_world *world, float inv_h2);
void pbd_attachments_reset(pbd_world *world);

// engine/topology.c
bool pbd_topology_update(pbd_world *world);
// collision/pairs.c: candidate contacts (broad phase), valid while every particle stays in
// its region. The side each pair keeps is worked out by the solvers from x, only for pairs
// that come close.
// False when memory ran out or the pairs would exceed settings.max_candidate_pairs
// (pairs_over_limit): then no pairs are kept.
bool pbd_pairs_find(pbd_world *world, int substeps_left, float h);
// Candidate pairs of every kind held now: self and particle pairs, collider contacts
// (what stats.candidate_pairs counts).
static inline int pbd_candidate_count(const pbd_world *w)
{
	return w->vt_count + w->ee_count + w->pp_count + w->contact_count;
}
// Whether the pairs still hold for the substep of length h that starts now (x -> p).
bool pbd_pairs_covered(const pbd_world *world, float h);
// Whether particle i is in its region at `at`, tau seconds after the search.
bool pbd_region_holds(const pbd_world *world, uint32_t i, pbd_v3 at, float tau);
// Each pair stores its clearance: its distance at the search, less a slack (vertex-triangle:
// the solver's tolerance past the triangle's edges). Each particle's drift bounds how far it
// has got from where it was at the search, in the frame of the search (a shift shared by
// all particles changes no distance). Distances change no faster than the particles move,
// so while clearance - drift (of the vertex, and of the triangle's corners counted 1.2
// times for the triangle's growth) stays above a distance, the pair is farther apart than
// that: the solvers and the guard skip it without looking at it. A resting or slowly moving
// cloth's pairs are almost all decided so.
// For the contacts: drifts of p, at the substep's end (the constraint passes call it).
void pbd_pairs_drift(pbd_world *world, float h);
// The contact drift of particle i after a contact moved its p (the others keep theirs).
void pbd_pairs_redrift(pbd_world *world, uint32_t i);
// For the guard: drifts of the whole motion x -> p, however the guard shortens it.
void pbd_pairs_sweep_drift(pbd_world *world);
static inline bool pbd_vt_apart(const pbd_world *w, const pbd_vt_contact *c, const uint32_t *t, float keep)
{
	const float *d = w->drift;
	float corner = maxf(d[t[0]], maxf(d[t[1]], d[t[2]]));
	return c->clearance - keep > d[c->q] + 1.2f * corner;
}
static inline bool pbd_ee_apart(const pbd_world *w, const pbd_ee_contact *c, const uint32_t *ea, const uint32_t *eb,
				float keep)
{
	const float *d = w->drift;
	return c->clearance - keep > maxf(d[ea[0]], d[ea[1]]) + maxf(d[eb[0]], d[eb[1]]);
}
// The free particles' mean velocity at the step's start and end: its change moves the frame
// of the next searches.
void pbd_pairs_step_begin(pbd_world *world);
void pbd_pairs_step_end(pbd_world *world, float dt);
void pbd_pairs_free(pbd_world *world);
// Contact memory comes back after a transient (a hit, a drag): every PBD_TRIM_STEPS steps the
// step asks each contact module to shrink the lists and scratch that were far larger than the
// most they held over those steps (pbd_trim_array): the pairs and their grids here, the
// guard's scratch, the collider contacts.
#define PBD_TRIM_STEPS 150
void pbd_pairs_trim(pbd_world *world);
void pbd_ccd_trim(pbd_world *world);
void pbd_collider_contacts_trim(pbd_world *world);
// What the guard and the collider contacts hold, given back when the world is destroyed.
void pbd_ccd_free(pbd_world *world);
void pbd_collider_contacts_free(pbd_world *world);
// constraints/: contact projection; each returns how many were touching.
int pbd_vertex_triangle_solve(pbd_world *world);
int pbd_edge_edge_solve(pbd_world *world);
int pbd_particle_particle_solve(pbd_world *world);
// collision/ccd.c: the guard. Returns the crossings caught; *tested gets the pairs swept.
int pbd_ccd_guard(pbd_world *world, int64_t *tested);
// The particles of candidate pair n (vertex-triangle pairs first, then edge-edge) and its
// thickness and clearance; returns the split (1: vertex | triangle, 2: edge | edge).
int pbd_guard_pair(const pbd_world *world, uint32_t n, uint32_t ids[4], float *thickness, float *clearance);
// Pulls particle i's motion back to the fraction t of x -> p (t <= 0: to x), recording
// `round` in its ccd_stamp; kinematic particles keep their path. Returns whether p changed.
bool pbd_guard_limit_motion(pbd_world *world, uint32_t i, double t, uint32_t round);
// The closest a pair may come while the guard sweeps it: a crossing needs the distance to
// reach zero, and a tenth of the contact thickness is kept so that float rounding cannot
// close the rest.
static inline float pbd_guard_gap(float thickness) { return 0.1f * thickness; }
// After the guard's rounds: particles inside a moving collider, and the corners of triangles
// cutting a moving round collider (the guard stops each particle on its own, and a triangle
// whose corners stop at different points of their paths can cut across it), go back to their
// starts, recorded in ccd_stamp as changed in round `stamp`. Returns how many moved.
int pbd_collider_settle(pbd_world *world, uint32_t stamp);
// collision/collider_carry.c: before the guard, the substep starts of the particles a moving
// collider has swept over are carried with it (see the file). Returns false when nothing is
// carried (or out of memory: the guard then runs from x as before). pbd_collider_carry_end
// ends the carry: the search and the guard run from x again.
#define PBD_NOT_CARRIED (-1)
#define PBD_CARRY_BLOCKED (-2)
bool pbd_collider_carry_begin(pbd_world *world, int substeps_left, float h, int64_t *tested);
void pbd_collider_carry_end(pbd_world *world);
void pbd_collider_carry_free(pbd_world *world);

// collision/broad_phase.c
bool pbd_grid_build(pbd_world *world, pbd_grid *grid, const pbd_aabb *boxes, int count, float cell);
void pbd_grid_free(pbd_world *world, pbd_grid *grid);
void pbd_grid_trim(pbd_world *world, pbd_grid *grid);
// Calls visit(id, user) exactly once for every primitive with id > skip_through whose box
// overlaps `box` (skip_through = -1: all of them; a primitive's own id: each pair once).
void pbd_grid_query(const pbd_grid *grid, pbd_aabb box, int64_t skip_through, void (*visit)(uint32_t id, void *user),
		    void *user);

// Checks shared by the setters.
// A finite position and a rotation of non-zero length (normalised into out); `what` names the
// object in the message.
pbd_result pbd_check_pose(pbd_world *w, const float position[3], const float rotation[4], const char *what,
			  pbd_pose *out);
pbd_result pbd_check_material(pbd_world *world, const pbd_cloth_material *m);
pbd_result pbd_check_settings(pbd_world *world, const pbd_world_settings *s);
bool pbd_finite_n(const float *f, int n);
// PBD_OK, or PBD_ERR_NOT_FINITE / PBD_ERR_OUT_OF_RANGE naming `what`: n coordinates within
// +-PBD_MAX_COORDINATE, or a velocity (NULL passes) no faster than PBD_MAX_SPEED.
pbd_result pbd_check_coordinates(pbd_world *w, const float *f, int n, const char *what);
pbd_result pbd_check_velocity(pbd_world *w, const float *v, const char *what);
