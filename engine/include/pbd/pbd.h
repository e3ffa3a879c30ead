// SPDX-License-Identifier: MIT
// pbd: a position-based dynamics cloth engine.

/*
    pbd.h -- the one public header of the pbd cloth engine.

    STEP BY STEP
        pbd_world_def wd = pbd_world_def_default();
        pbd_world *world = NULL;
        if (pbd_world_create(&wd, &world) != PBD_OK) { ... }

        pbd_cloth_def cd = pbd_cloth_def_default();   // a 1 m x 1 m grid, 32 x 32 vertices
        cd.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
        pbd_cloth_id cloth;
        if (pbd_cloth_create(world, &cd, &cloth) != PBD_OK)
            puts(pbd_world_last_error(world));

        for (;;) {
            pbd_world_step(world, 1.0f / 60.0f);
            int n = 0;
            const float *xyz = pbd_cloth_positions(world, cloth, &n);   // n packed float[3]
            ...draw...
        }
        pbd_world_destroy(world);

    UNITS AND AXES
        SI units throughout (metres, kilograms, seconds, newtons). y is up.

    STIFFNESS MODEL
        Constraints are solved with XPBD (Macklin, Mueller, Chentanez 2016). Each kind has a
        compliance, the inverse of a stiffness; 0 means rigid. The solver divides it by the
        squared substep, so the converged shape depends on the compliance and not on the
        number of substeps or iterations.

    ERRORS
        Functions that can fail return a pbd_result. On failure nothing changes and
        pbd_world_last_error() describes the problem in one sentence. Bad user input (bad
        indices, NaN, degenerate triangles, non-positive mass or dt, stale ids) is always an
        error code, never a crash. The library never prints and never exits.

    MEMORY
        The world owns everything it allocates. pbd_world_def.allocator may route all of it
        through the caller's functions; the default is malloc/free. After the first step,
        pbd_world_step allocates only when contact buffers must grow; if that fails, the
        step holds the free particles still for the substep and returns
        PBD_ERR_OUT_OF_MEMORY.

    THREADS
        A world is not thread-safe; use one world per thread or lock around calls. There is
        no global mutable state: separate worlds are independent. Inside a step, the parallel
        parts (air, prediction, tethers, each color of the stretch and bending constraints,
        the candidate-pair search, collider contacts, the guard's bookkeeping, the motion
        limit, the velocity update, damping, normals) go through the task hooks of pbd_world_def when a game gives them (or a
        pbd_task_pool); results are bit-identical for any number of workers.

    OWNERSHIP
        Pointers the library returns (positions, normals, indices, error strings) are
        borrowed: valid until the next call that changes the world, never to be freed. Arrays
        the caller passes in (defs, meshes, vertex lists) are copied; the caller keeps them.
        Meshes filled by pbd_mesh_load_obj / pbd_mesh_parse_obj belong to the caller
        (pbd_mesh_free).
*/

#ifndef PBD_PBD_H
#define PBD_PBD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(_WIN32) && defined(PBD_BUILD_DLL)
#define PBD_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PBD_API __attribute__((visibility("default")))
#else
#define PBD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes. PBD_OK is zero; every error is negative.
typedef enum pbd_result {
	PBD_OK = 0,
	PBD_ERR_NULL_ARGUMENT = -1,       ///< a required pointer was NULL
	PBD_ERR_BAD_DEF = -2,             ///< a def that did not come from its pbd_*_def_default()
	PBD_ERR_INDEX_OUT_OF_RANGE = -3,  ///< a vertex index >= the vertex count (or negative)
	PBD_ERR_REPEATED_INDEX = -4,      ///< a list that must name distinct vertices names one twice (a triangle, an attachment)
	PBD_ERR_DEGENERATE_TRIANGLE = -5, ///< a triangle with (near) zero area
	PBD_ERR_NOT_FINITE = -6,          ///< a NaN or infinite number, or one beyond +-1e12 (PBD_MAX_MAGNITUDE)
	PBD_ERR_NON_POSITIVE = -7,        ///< mass, dt, size or density <= 0
	PBD_ERR_BAD_COUNT = -8,           ///< substeps, iterations, resolution or a count out of range
	PBD_ERR_NEGATIVE = -9,            ///< a compliance, friction, damping or thickness < 0
	PBD_ERR_ZERO_NORMAL = -10,        ///< a plane normal (or rotation) of zero length
	PBD_ERR_STALE_ID = -11,           ///< the id named an object that has been destroyed
	PBD_ERR_UNKNOWN_ID = -12,         ///< the id never named an object of this world
	PBD_ERR_OUT_OF_MEMORY = -13,      ///< the allocator returned NULL, or a size overflowed
	PBD_ERR_BAD_SHAPE = -14,          ///< an unknown collider shape or a bad enum value
	PBD_ERR_PARSE = -15,              ///< text that is not a valid mesh file (message: file:line)
	PBD_ERR_IO = -16,                 ///< a file that cannot be opened, read or written
	PBD_ERR_OUT_OF_RANGE = -17,       ///< finite but beyond what a step can keep finite (see the limits below)
	PBD_ERR_VERTEX_HELD = -18,        ///< the vertex is held by an exact attachment (see pbd_attachment_create)
	PBD_ERR_DUPLICATE_TRIANGLE = -19, ///< a triangle has the same three vertices as an earlier one
	PBD_ERR_CANCELLED = -20,          ///< a progress callback asked to stop (pbd_obj_options.progress)
} pbd_result;

/// A short, static description of a result code (never NULL).
PBD_API const char *pbd_result_string(pbd_result result);

typedef struct pbd_world pbd_world;

/// Cloth handle. index1 is 1-based so that a zero-initialised id is null; the generation
/// catches ids of destroyed cloths (PBD_ERR_STALE_ID).
typedef struct pbd_cloth_id {
	uint32_t index1;
	uint32_t generation;
} pbd_cloth_id;

/// Collider handle, same scheme as pbd_cloth_id.
typedef struct pbd_collider_id {
	uint32_t index1;
	uint32_t generation;
} pbd_collider_id;

// ---------------------------------------------------------------------------------------------
// Memory hooks

/// Limits of what the engine simulates: values beyond them are refused (a step could not
/// keep the positions finite). Every coordinate, velocity, size and parameter must lie within
/// +-PBD_MAX_MAGNITUDE (PBD_ERR_NOT_FINITE); positions, offsets and sizes (thickness and radii
/// included) within +-PBD_MAX_COORDINATE, speeds, gravity and wind within the magnitudes below
/// and every vertex or particle mass from PBD_MIN_MASS to PBD_MAX_MASS (PBD_ERR_OUT_OF_RANGE).
/// The step keeps every speed, and every motion within a substep, within PBD_MAX_SPEED (a
/// vertex pinned far away drags its cloth there, it does not fling it).
#define PBD_MAX_MAGNITUDE 1e12f
#define PBD_MAX_COORDINATE 1e6f  ///< m: fourth powers of lengths stay well within float
#define PBD_MAX_SPEED 1e5f       ///< m/s
#define PBD_MAX_GRAVITY 1e4f  ///< m/s^2, about 1000 g
#define PBD_MAX_WIND 1e3f     ///< m/s, about three times the speed of sound
#define PBD_MIN_MASS 1e-9f    ///< kg
#define PBD_MAX_MASS 1e9f     ///< kg: inverse masses stay far above float's least normal number

/// Per-world allocator. alloc must return memory aligned to at least `align` bytes (a power
/// of two, at most 64); free receives the size that was requested. Both get `user`.
typedef struct pbd_allocator {
	void *(*alloc)(size_t size, size_t align, void *user);
	void (*free)(void *ptr, size_t size, void *user);
	void *user;
} pbd_allocator;

// ---------------------------------------------------------------------------------------------
// World

/// World settings that may change at any time (pbd_world_set_settings).
typedef struct pbd_world_settings {
	/// Substeps per pbd_world_step, 1..1000. Default 10. More substeps beat more iterations
	/// (Macklin et al. 2019); they also shorten each CCD sweep.
	int substeps;
	/// Constraint passes per substep, 1..1000. Default 1.
	int iterations;
	/// Gravity in m/s^2. Default (0, -9.81, 0).
	float gravity[3];
	/// Wind velocity in m/s. Default (0, 0, 0): still air, which still drags on moving cloth.
	float wind[3];
	/// Wind gustiness, 0..1: the wind speed varies by up to this fraction in slow, smooth
	/// gusts that travel with the wind. Default 0.3.
	float wind_turbulence;
	/// Air density in kg/m^3, >= 0. Default 1.2. 0 switches all aerodynamics off (vacuum).
	float air_density;
	/// Pressure (drag) coefficient of a cloth triangle, acting along its normal on the
	/// normal part of the relative air velocity, >= 0. Default 1.0.
	float drag_coefficient;
	/// Lift coefficient, >= 0: a force across the relative air velocity for triangles at an
	/// angle to it; this is what makes a flag flutter. Default 0.3.
	float lift_coefficient;
	/// In a contact of a free particle with cloth, the cloth's inverse masses count as at most
	/// this many times the particle's, >= 0. Default 3. With one pass per substep, a particle
	/// hundreds of times heavier than the cloth vertices it touches otherwise takes almost none
	/// of each correction and goes through the cloth until the CCD guard stops its centre
	/// there; the cap lets the contact stand for the cloth those vertices are tied to. 0 turns
	/// it off: contacts then keep momentum exactly.
	float particle_cloth_mass_ratio;
	/// The most candidate contact pairs (vertex-triangle, edge-edge, particle-particle) one
	/// search may keep, >= 0; 0 (the default) sets no limit. This bounds the contact memory and
	/// the work of a substep (a hard hit or a snap can otherwise ask for millions of pairs).
	/// A search that would need more stops at the limit; if that is the search the CCD guard
	/// needs, the free particles keep their start of that substep (where the last substep left
	/// them free of crossings) and stop: the cloth pauses for a substep rather than risk a
	/// crossing. Particles held this way keep their start even where a moving collider has
	/// swept over it. pbd_world_stats.substeps_held counts such substeps. A limit below what
	/// the cloth needs at rest can hold it for good once it runs over (a held cloth needs no
	/// fewer pairs): set it above pbd_world_stats.candidate_pairs_peak of a typical run.
	int max_candidate_pairs;
	/// The most substeps one step may take, 0..1000. Default 128. A step takes `substeps`,
	/// or more while a moving collider comes near a cloth and would otherwise travel more
	/// than a quarter of the cloth's shortest edge in one substep: a constraint pass
	/// carries a push on by about one edge, so a collider that outruns it drags the
	/// vertices it touches away from their neighbours, stretches the cloth over itself and
	/// ends up inside it. For 120 steps (two seconds at 60 Hz) after that, a cloth the
	/// collider flung about also takes what its own motion asks: its fastest particle,
	/// relative to its mean motion, may travel half its shortest edge in one substep (a
	/// flung curtain brought back to one substep at once wraps round its rail and stays
	/// stretched); particles more than twice as fast as the collider that flung it are left
	/// out (a vertex squeezed against the collider jitters). Within those steps, a cloth with
	/// a stretch limit left stretched past it (wrapped round the collider) takes up to 12, as
	/// long as it stays so. A value at or below `substeps`
	/// (0, say) keeps every step at `substeps`; a fast hit then costs less and may leave
	/// the cloth stretched over the collider. pbd_world_stats.substeps_taken says how many
	/// the last step took.
	int max_substeps;
} pbd_world_settings;

// ---------------------------------------------------------------------------------------------
// Task hooks: run the step's parallel parts on the game's own job system (as Box2D does).

/// Work the step hands out: items [start, end) of a task, on worker 0..worker_count-1. Any
/// split of the items over any workers gives bit-identical results.
typedef void pbd_task_fn(int start, int end, int worker, void *task_context);
/// Starts `task` over items 0..item_count-1 in ranges of at least min_range items (a
/// range's worker index must not be used by another range running at the same time).
/// Returns a handle for finish_task, or NULL after running the whole task itself.
typedef void *pbd_enqueue_task_fn(pbd_task_fn *task, int item_count, int min_range, void *task_context,
				  void *user_context);
/// Returns when every range of the task behind `user_task` has run.
typedef void pbd_finish_task_fn(void *user_task, void *user_context);

/// A small thread pool that serves the hooks (the demos use it; a game may use its own).
typedef struct pbd_task_pool pbd_task_pool;
/// Starts workers - 1 threads (1..64); the thread that calls finish is the last worker.
PBD_API pbd_result pbd_task_pool_create(int workers, pbd_task_pool **out_pool);
/// Stops and joins the threads. NULL is allowed. No world may still use the pool.
PBD_API void pbd_task_pool_destroy(pbd_task_pool *pool);
/// The hook functions of the pool; user_context is the pool.
PBD_API void *pbd_task_pool_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context,
				    void *user_context);
/// Runs ranges of the task on the calling thread (worker 0) until all are done.
PBD_API void pbd_task_pool_finish(void *user_task, void *user_context);

/// World definition. Get one from pbd_world_def_default().
typedef struct pbd_world_def {
	pbd_world_settings settings;
	/// Optional allocator; all fields NULL means malloc/free.
	pbd_allocator allocator;
	/// Workers the hooks offer, 1..64. Default 1. Without hooks the step runs on the calling
	/// thread alone, whatever this says.
	int worker_count;
	/// Optional task hooks; both or neither. Default NULL: single-threaded.
	pbd_enqueue_task_fn *enqueue_task;
	pbd_finish_task_fn *finish_task;
	/// Passed to the hooks as user_context.
	void *user_task_context;
	/// Set by pbd_world_def_default(); a def without it is rejected (PBD_ERR_BAD_DEF).
	int internal_cookie;
} pbd_world_def;

/// The default settings (each field's default is given above).
PBD_API pbd_world_settings pbd_world_settings_default(void);
/// A world def with the default settings, malloc/free and no task hooks (single-threaded).
PBD_API pbd_world_def pbd_world_def_default(void);
/// Points a world def's hooks at the pool (worker_count, enqueue_task, finish_task, user_task_context).
PBD_API void pbd_world_def_use_task_pool(pbd_world_def *def, const pbd_task_pool *pool);

/// Creates a world. On success *out_world is the new world; on failure it is NULL.
PBD_API pbd_result pbd_world_create(const pbd_world_def *def, pbd_world **out_world);
/// Destroys a world and everything in it. NULL is allowed.
PBD_API void pbd_world_destroy(pbd_world *world);

/// Advances the world by dt seconds (dt > 0, finite) in `substeps` substeps. When contact
/// memory cannot grow during a substep, the free particles keep their places for that
/// substep (so nothing passes through anything), the step completes, and it returns
/// PBD_ERR_OUT_OF_MEMORY; the world steps on normally once memory is back.
PBD_API pbd_result pbd_world_step(pbd_world *world, float dt);

/// Replaces all settings at once after checking them; on error nothing changes.
PBD_API pbd_result pbd_world_set_settings(pbd_world *world, const pbd_world_settings *settings);
/// The current settings (the defaults for a NULL world).
PBD_API pbd_world_settings pbd_world_get_settings(const pbd_world *world);
/// Substeps per step, 1..1000 (PBD_ERR_BAD_COUNT otherwise).
PBD_API pbd_result pbd_world_set_substeps(pbd_world *world, int substeps);
/// Constraint passes per substep, 1..1000.
PBD_API pbd_result pbd_world_set_iterations(pbd_world *world, int iterations);
/// Gravity in m/s^2, finite.
PBD_API pbd_result pbd_world_set_gravity(pbd_world *world, const float gravity[3]);
/// Wind velocity in m/s, finite.
PBD_API pbd_result pbd_world_set_wind(pbd_world *world, const float wind[3]);

/// The last error message of this world, "" if none yet. Valid until the next call that fails.
PBD_API const char *pbd_world_last_error(const pbd_world *world);

/// Timers of the step's stages, in step order (docs/design.md); pbd_world_stats.stage_ms is
/// indexed by them.
typedef enum pbd_stage {
	PBD_STAGE_PREDICT,     ///< gravity, the air's forces and position prediction
	PBD_STAGE_BROAD_PHASE, ///< spatial hash over swept bounds: candidate pairs
	PBD_STAGE_NARROW_PHASE,///< contact setup: sides, rest-distance exemptions, collider pairs
	PBD_STAGE_CONSTRAINTS, ///< stretch, bend and tether projection
	PBD_STAGE_CONTACTS,    ///< contact and friction projection
	PBD_STAGE_CCD,         ///< the guard: no crossing of the motion x -> p may land
	PBD_STAGE_UPDATE,      ///< velocity update
	PBD_STAGE_FINALIZE,    ///< damping, normals and readback buffers, once per step
	PBD_STAGE_AIR,         ///< drag and lift on the cloth's triangles, once per step (0 without air)
	PBD_STAGE_TEAR,        ///< the strain scan and splits of tearing cloths, once per step (0 without)
	PBD_STAGE_COUNT
} pbd_stage;

/// Name of a stage timer ("predict", "broad_phase", ... "finalize", "air"), or "?".
PBD_API const char *pbd_stage_name(pbd_stage stage);

/// Figures of the last step.
typedef struct pbd_world_stats {
	double step_ms;                      ///< wall time of the whole last step
	double stage_ms[PBD_STAGE_COUNT];    ///< wall time per stage, summed over substeps
	int cloths;                          ///< live cloths
	int colliders;                       ///< live colliders
	int particles;                       ///< particles of all cloths
	int triangles;                       ///< triangles of all cloths
	int constraints;                     ///< stretch + bend + tether constraints
	int free_particles;                  ///< particles of all particle groups
	int collider_contacts;               ///< particle-collider contacts touching, last substep
	/// Cloth triangles pushed off round colliders (sphere, capsule) in the last substep: where a
	/// cloth rests on a sphere these carry it and its vertices stay just clear of their own contacts.
	int collider_triangle_contacts;
	int vertex_triangle_contacts;        ///< vertex-triangle contacts touching, last substep
	int edge_edge_contacts;              ///< edge-edge contacts touching, last substep
	int particle_contacts;               ///< particle-particle contacts touching, last substep
	int candidate_pairs;                 ///< broad-phase pairs of the last substep (all kinds)
	/// The most candidate pairs held in any substep of the step: what the contact lists had to
	/// hold (a fast part of the cloth may need many more pairs mid-step than at its end).
	int candidate_pairs_peak;
	/// Substeps of the last step in which the free particles kept their start because the
	/// candidate pairs could not all be kept (settings.max_candidate_pairs reached, or memory
	/// ran out): the cloth paused rather than move unchecked.
	int substeps_held;
	/// Substeps the last step took: settings.substeps, or more while a fast collider was near
	/// a cloth (settings.max_substeps).
	int substeps_taken;
	/// Searches of the last step that stopped at settings.max_candidate_pairs.
	int searches_over_limit;
	int vertex_triangle_candidates;      ///< of which vertex-triangle pairs
	int edge_edge_candidates;            ///< of which edge-edge pairs
	int64_t ccd_pairs_tested;            ///< pairs the CCD guard swept in the whole step
	int64_t ccd_hits;                    ///< crossings the guard caught (and stopped) in the step
	/// Full candidate searches in the step: every particle's pairs found anew (the first step,
	/// bodies changed, or many particles strayed from where the last search expected them).
	int broad_phase_builds;
	/// Updates in the step that found again only the pairs of particles that strayed.
	int broad_phase_updates;
	/// Particles whose pairs those updates found again (a full search counts them all).
	int broad_phase_strays;
	/// Largest |L - L0| / L0 over stretch constraints, measured when the stats are asked for
	/// (from the positions then): a step that nobody reads it after does not pay for it.
	float max_stretch_error;
	int64_t steps;                       ///< steps taken since creation
	size_t bytes_live;                   ///< bytes currently allocated by the world
	size_t bytes_peak;                   ///< most bytes ever allocated at once
	int64_t allocations;                 ///< calls to the allocator since creation
	/// Contact lists and scratch shrunk since creation, one allocation each: every 150 steps,
	/// an array over four times larger than the most it held in those steps (and by more
	/// than 4 KiB) is cut to twice that, so memory comes back after a hit or a drag. A scene
	/// in a steady state allocates nothing else once its lists have grown.
	int64_t trims;
	/// Vertices the last step split because an edge at them stretched past its cloth's
	/// tear_strain (each split adds one vertex to its cloth).
	int tear_splits;
	/// Splits the last step wanted but left for a later one: the opened vertices would have
	/// crossed another part of the scene, or memory ran out (then the step says so).
	int tear_splits_deferred;
} pbd_world_stats;

/// A copy of the figures of the last step (all zero for a NULL world), with the counts of what
/// the world holds and max_stretch_error measured now, from the positions as they are (a pass
/// over the stretch constraints on the calling thread; call it from the thread that steps).
PBD_API pbd_world_stats pbd_world_get_stats(const pbd_world *world);

/// What a contact point of pbd_world_get_contacts joins.
typedef enum pbd_contact_kind {
	PBD_CONTACT_KIND_COLLIDER,        ///< a cloth vertex or free particle against a collider's surface
	PBD_CONTACT_KIND_VERTEX_TRIANGLE, ///< a cloth vertex or free particle against a cloth triangle
	PBD_CONTACT_KIND_EDGE_EDGE,       ///< two cloth edges
	PBD_CONTACT_KIND_PARTICLE,        ///< two free particles, or a free particle and a cloth vertex
	PBD_CONTACT_KIND_GUARD,           ///< a particle whose motion the guard (CCD) stopped short
} pbd_contact_kind;

/// Which pairs pbd_world_get_contacts lists, all as they are after the last step.
typedef enum pbd_contact_filter {
	/// Pairs touching: no further apart than the distance they keep, plus 1% of it (a contact
	/// is pushed to that distance and may drift a hair beyond it while it rests).
	PBD_CONTACTS_TOUCHING,
	/// Every candidate pair of the last substep, touching or not: what the broad phase kept
	/// (stats.candidate_pairs), for drawing what the contact search looks at.
	PBD_CONTACTS_CANDIDATES,
	/// The particles the guard stopped short of a crossing in any substep of the last step
	/// (stats.ccd_hits counts the stops), each once, at its position now; a = b.
	PBD_CONTACTS_GUARD_STOPS,
} pbd_contact_filter;

/// One contact point, for drawing and debugging (a game's own contact logic may read it too).
typedef struct pbd_contact_point {
	pbd_contact_kind kind;
	/// The first side: the vertex or particle, or the closest point of the first edge.
	float a[3];
	/// The second side: the closest point of the collider's surface, the triangle, the second
	/// edge, or the second particle's centre.
	float b[3];
	/// Unit direction from b toward a (for a collider: its outward surface normal at b). Zero
	/// when a and b coincide.
	float normal[3];
	/// |a - b|; for a collider the signed distance from its surface (negative inside).
	float distance;
	/// The distance the pair keeps: the contact thickness, the particle's radius, or the sum
	/// of two particles' radii.
	float keep;
} pbd_contact_point;

/// Lists the contact points of the world after its last step. At most `capacity` go to out
/// (may be NULL with capacity 0); *out_count gets how many there are, which may be more (call
/// again with room for them). Cloth-cloth and particle pairs come in the order of the
/// candidate lists, then the vertices' and particles' collider contacts, then the cloth
/// triangles touching a sphere or capsule between their vertices (a cloth draped over a
/// sphere rests on those; both filters list only the touching ones); the order is the same
/// for any thread count.
/// PBD_ERR_BAD_SHAPE for an unknown filter, PBD_ERR_BAD_COUNT for a negative capacity or a
/// NULL out with a positive one, PBD_ERR_OUT_OF_MEMORY for GUARD_STOPS when the step could not
/// keep its record of them.
PBD_API pbd_result pbd_world_get_contacts(const pbd_world *world, pbd_contact_filter filter, pbd_contact_point *out,
					  int capacity, int *out_count);

// ---------------------------------------------------------------------------------------------
// Cloth

/// Material of a cloth: everything the keyboard tunes. Change it at any time with
/// pbd_cloth_set_material.
typedef struct pbd_cloth_material {
	/// Stretch compliance in m/N: the inverse of the fabric's in-plane stiffness (N/m). Each
	/// edge gets compliance * L^2 / (area of its triangles), so the response does not depend
	/// on the resolution. >= 0; 0 is inextensible. Default 1e-6 (a stiff cotton).
	float stretch_compliance;
	/// Shear compliance in m/N for the grid's second diagonals (grid cloth only). >= 0.
	/// Default 1e-5.
	float shear_compliance;
	/// Bending compliance in 1/(N m): the inverse of the bending stiffness k_b. Isometric
	/// bending (Bergou et al. 2006): a quadratic energy in the positions, exact for cloth that
	/// is flat at rest (a curved rest mesh is pulled towards flat). >= 0. Default 1e4
	/// (k_b = 1e-4 N m, about 1 gf cm^2/cm in Kawabata's units, as denim measures: a bending
	/// length (k_b / weight per area)^(1/3) of 3.7 cm for the default 0.2 kg/m^2; measured
	/// fabrics give about 1e5 for cotton shirting and 5e5 for silk, and garment leather or
	/// heavy canvas 1000 to 5000, the demos' material presets).
	float bend_compliance;
	/// Damping rate in 1/s: velocities relative to a reference motion decay as
	/// exp(-damping t). For a cloth without pins the reference is its rigid motion, so free
	/// flight and spin are not damped (air does that); for a held cloth it is the rigid
	/// motion of its held particles (their mean velocity when they lie on a line, as two
	/// pinned corners do). >= 0. Default 1.
	float damping;
	/// Static friction coefficient, >= 0. Default 0.5.
	float static_friction;
	/// Kinetic friction coefficient, >= 0. Default 0.4.
	float kinetic_friction;
	/// Thickness in m: the cloth's mid-surface keeps thickness/2 from colliders and the
	/// thickness (the sum of both sides' halves) from other cloths, particles and itself. Two
	/// places of one cloth that are closer than twice the thickness in its rest shape (near
	/// neighbours on a fine mesh) keep half their rest distance instead: a sheet folded back on
	/// itself brings such neighbours closer than the thickness at its crease, so they cannot
	/// keep it, and the smaller distance still keeps them from passing through each other.
	/// Places that touch in the rest shape (an unwelded seam) keep no distance. >= 0.
	/// Default 0.01.
	float thickness;
	/// Tether slack: each particle stays within (1 + slack) times its rest geodesic distance
	/// d of the nearest held vertex of each nearby cluster of held vertices (long-range
	/// attachments, Kim et al. 2012), plus the stretch its own weight gives a soft cloth
	/// (stretch_compliance times weight per area times d, per metre). Held means pinned at
	/// creation or by pbd_cloth_pin_vertex, or held by an attachment (exact or compliant); the
	/// tethers are rebuilt at the next step whenever that changes. Tethers assume the held
	/// vertices keep their distances (one frame moving them rigidly is fine); switch them off
	/// (negative) for cloth that its holds stretch apart (the twist scene). Default 0.02.
	float tether_slack;
	/// 1: the cloth collides with itself (vertex-triangle and edge-edge); 0: it does not
	/// (it still collides with other cloths, particles and colliders). Default 1.
	int self_collision;
	/// Tearing: at the end of a step, an edge stretched past this strain ((L - L0) / L0, e.g.
	/// 0.5 for half again its rest length) splits the cloth at one of its ends, so that a hole
	/// opens across the edge's direction (see pbd_cloth_split_vertex). 0: the cloth never
	/// tears. >= 0. Default 0.
	float tear_strain;
	/// Stretch limit: in each constraint pass, after the stretch, shear, bending and tether
	/// projections, an edge (not a grid's shear diagonal) longer than (1 + stretch_limit)
	/// times its rest length is brought back to that length, whatever its compliance (strain
	/// limiting, Provot 1995). Woven cloth stretches a few percent at most, yet one pass per
	/// substep leaves edges pulled by a fast grab stretched far more, and friction where the
	/// cloth lies on itself or a collider then holds that stretch for good, as a rope round a
	/// post holds its pull. Cloth whose holds stretch it on purpose (two edges wrung against
	/// each other) or that is to tear wants 0: no limit, as for a rubber sheet. Pins and
	/// attachments still pull edges past the limit. >= 0. Default 0.05.
	float stretch_limit;
} pbd_cloth_material;

/// The default material (each field's default is given above).
PBD_API pbd_cloth_material pbd_cloth_material_default(void);

/// Grid pin flags. The grid's vertex (i, j) has index j * res_x + i and lies at local
/// (u, 0, v) with u = (i/(res_x-1) - 1/2) * width and v = (j/(res_y-1) - 1/2) * height; corner
/// 00 is (i, j) = (0, 0), corner 10 is (res_x-1, 0), and so on. EDGE_U0 pins every vertex with
/// i = 0, EDGE_V0 every j = 0. Triangles come two per cell, cells row by row (j outer, i
/// inner): cell (i, j) has triangles 2 k and 2 k + 1 with k = j * (res_x-1) + i; with a = its
/// vertex (i, j), b = a + 1, c = a + res_x, d = c + 1 they are (a, c, d), (a, d, b) when i + j
/// is even and (a, c, b), (b, c, d) when it is odd (the diagonals alternate).
enum {
	PBD_PIN_CORNER_00 = 1 << 0,
	PBD_PIN_CORNER_10 = 1 << 1,
	PBD_PIN_CORNER_01 = 1 << 2,
	PBD_PIN_CORNER_11 = 1 << 3,
	PBD_PIN_EDGE_U0 = 1 << 4,
	PBD_PIN_EDGE_U1 = 1 << 5,
	PBD_PIN_EDGE_V0 = 1 << 6,
	PBD_PIN_EDGE_V1 = 1 << 7,
};

/// Where a cloth's geometry comes from.
typedef enum pbd_cloth_source {
	PBD_CLOTH_GRID,  ///< a rectangular grid (pbd_cloth_def.grid)
	PBD_CLOTH_MESH,  ///< caller's triangle arrays (pbd_cloth_def.mesh)
} pbd_cloth_source;

/// Cloth definition. Get one from pbd_cloth_def_default(): a 1 m square grid of 32 x 32
/// vertices lying horizontally at the origin, 0.2 kg/m^2, nothing pinned.
typedef struct pbd_cloth_def {
	pbd_cloth_source source;
	struct {
		int res_x, res_y;       ///< vertices along u and v, 2..4096 each. Default 32 x 32.
		float width, height;    ///< size along u and v in m, > 0. Default 1 x 1.
		uint32_t pins;          ///< PBD_PIN_* flags. Default 0.
		/// Adds the second diagonal of every quad as a shear constraint. Default 1.
		int shear_diagonals;
	} grid;
	struct {
		const float *positions;   ///< vertex_count packed float[3], in local coordinates
		int vertex_count;         ///< >= 3
		/// triangle_count * 3 vertex indices: three distinct vertices per triangle, and no two
		/// triangles with the same three (PBD_ERR_DUPLICATE_TRIANGLE names the later one). The
		/// winding is kept as given (pbd_mesh_load_obj makes it consistent).
		const uint32_t *indices;
		int triangle_count;       ///< >= 1
	} mesh;
	/// Optional per-vertex masses in kg (> 0, vertex_count entries). NULL: masses come
	/// from areal_density and the triangle areas (each triangle gives a third to each vertex).
	const float *masses;
	/// Areal density in kg/m^2, > 0, used when masses is NULL. Default 0.2 (light cotton).
	float areal_density;
	/// Optional indices of pinned vertices (in addition to grid.pins). Pinned vertices do
	/// not move unless moved with pbd_cloth_pin_vertex.
	const uint32_t *pinned;
	int pinned_count;
	/// Pose: local positions are rotated by the quaternion rotation (x, y, z, w) and then
	/// moved by position. Default identity at the origin. Every rotation this header takes
	/// (cloths, colliders, attachments) is normalised; one of zero length is refused with
	/// PBD_ERR_ZERO_NORMAL.
	float position[3];
	float rotation[4];
	/// Initial velocity of every vertex, m/s. Default 0.
	float velocity[3];
	pbd_cloth_material material;
	int internal_cookie;
} pbd_cloth_def;

/// The default cloth def described above.
PBD_API pbd_cloth_def pbd_cloth_def_default(void);

/// Creates a cloth. On failure *out_id is null and nothing changed.
PBD_API pbd_result pbd_cloth_create(pbd_world *world, const pbd_cloth_def *def, pbd_cloth_id *out_id);
/// Removes the cloth, its attachments and its contacts; its id (and theirs) become stale.
PBD_API pbd_result pbd_cloth_destroy(pbd_world *world, pbd_cloth_id id);
/// PBD_OK for a live cloth of this world, else PBD_ERR_STALE_ID or PBD_ERR_UNKNOWN_ID.
PBD_API pbd_result pbd_cloth_check(const pbd_world *world, pbd_cloth_id id);

/// Replaces the cloth's material after checking every field (ranges above); on error nothing
/// changes. Takes effect from the next step.
PBD_API pbd_result pbd_cloth_set_material(pbd_world *world, pbd_cloth_id id, const pbd_cloth_material *material);
/// Sets the cloth's mean mass per area in kg/m^2 (> 0): every vertex mass scales by the
/// same factor, pinned vertices included (for when they are released).
PBD_API pbd_result pbd_cloth_set_areal_density(pbd_world *world, pbd_cloth_id id, float areal_density);
/// The cloth's mean mass per area in kg/m^2 (0 for a bad id).
PBD_API float pbd_cloth_get_areal_density(const pbd_world *world, pbd_cloth_id id);
/// Copies the cloth's material into *out.
PBD_API pbd_result pbd_cloth_get_material(const pbd_world *world, pbd_cloth_id id, pbd_cloth_material *out);

/// Borrowed, packed float[3] per vertex, valid until the next call that changes the world.
/// Returns NULL for a bad id. *vertex_count (if not NULL) gets the count.
PBD_API const float *pbd_cloth_positions(const pbd_world *world, pbd_cloth_id id, int *vertex_count);
/// Unit per-vertex normals (area-weighted), same layout and lifetime as the positions.
PBD_API const float *pbd_cloth_normals(const pbd_world *world, pbd_cloth_id id, int *vertex_count);
/// Velocities in m/s, same layout and lifetime as the positions.
PBD_API const float *pbd_cloth_velocities(const pbd_world *world, pbd_cloth_id id, int *vertex_count);
/// Sets every free vertex's velocity from `xyz` (packed float[3] per vertex, `count` = the
/// cloth's vertex count, else PBD_ERR_BAD_COUNT); pinned vertices and those of exact
/// attachments keep theirs (their paths set them). Each speed within PBD_MAX_SPEED. On failure nothing changes.
PBD_API pbd_result pbd_cloth_set_velocities(pbd_world *world, pbd_cloth_id id, const float *xyz, int count);
/// Triangle indices (3 per triangle, into the cloth's vertices). Their count and order are the
/// cloth's for life; a tear gives some triangles a new vertex (see Tearing below). Valid until
/// the next step or tear.
PBD_API const uint32_t *pbd_cloth_indices(const pbd_world *world, pbd_cloth_id id, int *triangle_count);
/// Copies up to `capacity` vertices' positions (float[3] each) into out.
PBD_API pbd_result pbd_cloth_copy_positions(const pbd_world *world, pbd_cloth_id id, float *out, int capacity);
/// Copies up to `capacity` vertices' unit normals (float[3] each) into out.
PBD_API pbd_result pbd_cloth_copy_normals(const pbd_world *world, pbd_cloth_id id, float *out, int capacity);
/// Inverse mass of a vertex in 1/kg (0 for a pinned vertex).
PBD_API pbd_result pbd_cloth_get_inverse_mass(const pbd_world *world, pbd_cloth_id id, int vertex, float *out);

/// Makes a vertex kinematic and moves it to `position` over the next step (it arrives at the
/// end of the step, moving in a straight line through the substeps). Call every frame to drag.
/// PBD_ERR_VERTEX_HELD for a vertex of an exact attachment.
PBD_API pbd_result pbd_cloth_pin_vertex(pbd_world *world, pbd_cloth_id id, int vertex, const float position[3]);
/// Gives a pinned vertex its mass back; it keeps its position and velocity.
/// PBD_ERR_VERTEX_HELD for a vertex of an exact attachment (its frame holds it).
PBD_API pbd_result pbd_cloth_release_vertex(pbd_world *world, pbd_cloth_id id, int vertex);
/// Moves every vertex by `offset` and sets every free vertex's velocity (NULL keeps it).
PBD_API pbd_result pbd_cloth_teleport(pbd_world *world, pbd_cloth_id id, const float offset[3], const float velocity[3]);

// ---------------------------------------------------------------------------------------------
// Tearing and cutting
//
// A cloth tears by splitting vertices: a vertex's triangles on one side of a plane through it
// move to a new vertex, appended after the cloth's last one (a cloth of n vertices that splits
// k times has n + k; the vertices it had keep their indices, triangles keep their indices and
// order and only some of their corners change). The new vertex takes the share of the mass
// that its triangles' rest area gives it and the same velocity, so mass and momentum are
// kept. Both copies are moved a hair apart (2% of their shortest edge), each into its own side,
// and a split that would leave them crossing anything is not made: a tear never creates a
// crossing, and the new boundary edges collide from the next substep on. Pinned vertices do
// not split. The pieces stay one cloth (one id, one material): pbd_cloth_pieces tells them
// apart, pbd_cloth_vertex_origins says where each vertex came from, and pbd_cloth_positions
// and pbd_cloth_indices give the new counts. A buffer sized for the vertex count before a tear
// is too small after it: the copy functions copy only the vertices it holds, and
// pbd_cloth_set_velocities wants the new count. The tear happens at the end of
// pbd_world_step (stats.tear_splits counts them); the step returns PBD_ERR_OUT_OF_MEMORY when
// memory ran out for one (the cloth then stayed whole). Pieces that were neighbours keep a
// small distance (the gap the tear opened) rather than none.

/// Splits `vertex` of a cloth with the plane through it of the given normal: its triangles
/// whose centres lie on the normal's side move to a new vertex, whose index goes to
/// *out_new_vertex (may be NULL; -1 when nothing split). Nothing splits (PBD_OK, -1) when all
/// its triangles lie on one side, when the vertex is pinned, or when the opened vertices would
/// cross another part of the scene. PBD_ERR_ZERO_NORMAL for a zero normal.
PBD_API pbd_result pbd_cloth_split_vertex(pbd_world *world, pbd_cloth_id id, int vertex, const float normal[3],
					  int *out_new_vertex);
/// Cuts a cloth with a blade: the disc of radius `reach` around `point` in the plane of the
/// given normal (a sword's stroke, or scissors along a line in the cloth). Every vertex within
/// reach of point with triangles (by their centres) on both sides of the plane splits, so the
/// cloth comes apart along the edges nearest the plane. *out_splits (may be NULL) counts the
/// splits made.
PBD_API pbd_result pbd_cloth_cut(pbd_world *world, pbd_cloth_id id, const float point[3], const float normal[3],
				 float reach, int *out_splits);
/// A weakness map: each vertex's share of the cloth's tear strain, in (0, 1] (count must be
/// the cloth's vertex count). An edge tears past tear_strain times the smaller share of its
/// ends, so 0.5 along a line perforates the cloth there. NULL (or count 0) makes every vertex
/// 1 again. Vertices a tear makes take their origin's share.
PBD_API pbd_result pbd_cloth_set_tear_weakness(pbd_world *world, pbd_cloth_id id, const float *share, int count);
/// For each vertex, the vertex of the cloth as created that it comes from (itself for one
/// that never split; a vertex split twice gives two new vertices with the same origin).
/// Valid until the next step or tear.
PBD_API const uint32_t *pbd_cloth_vertex_origins(const pbd_world *world, pbd_cloth_id id, int *vertex_count);
/// Labels each triangle with its piece (triangles joined through shared vertices form one piece),
/// pieces numbered 0.. in the order of their first triangle. triangle_piece may be NULL (only
/// the count); else it must hold the cloth's triangle count (PBD_ERR_BAD_COUNT if capacity is
/// smaller).
PBD_API pbd_result pbd_cloth_pieces(const pbd_world *world, pbd_cloth_id id, uint32_t *triangle_piece, int capacity,
				    int *out_piece_count);

// ---------------------------------------------------------------------------------------------
// Free particles: balls, grains, debris that belong to no cloth. They collide with each
// other, with every cloth (its vertices, edges and triangles) and with colliders.

/// Particle group handle, same scheme as pbd_cloth_id.
typedef struct pbd_particles_id {
	uint32_t index1;
	uint32_t generation;
} pbd_particles_id;

/// Get one from pbd_particles_def_default().
typedef struct pbd_particles_def {
	int count;                  ///< particles, >= 1
	const float *positions;     ///< count packed float[3], m
	const float *velocities;    ///< optional, count packed float[3], m/s (NULL: at rest)
	float radius;               ///< m, > 0. Default 0.05.
	float mass;                 ///< kg per particle, > 0. Default 0.1.
	float static_friction;      ///< >= 0. Default 0.5 (a contact uses sqrt(a * b) of both sides).
	float kinetic_friction;     ///< >= 0. Default 0.4.
	int internal_cookie;
} pbd_particles_def;

/// The default particle def described above (count 0: set count and positions).
PBD_API pbd_particles_def pbd_particles_def_default(void);
/// Creates a group of free particles (positions and velocities are copied). On failure
/// *out_id is null and nothing changed.
PBD_API pbd_result pbd_particles_create(pbd_world *world, const pbd_particles_def *def, pbd_particles_id *out_id);
/// Removes the group; its id becomes stale.
PBD_API pbd_result pbd_particles_destroy(pbd_world *world, pbd_particles_id id);
/// Borrowed positions / velocities (packed float[3]), valid until the next call that changes
/// the world; NULL for a bad id.
PBD_API const float *pbd_particles_positions(const pbd_world *world, pbd_particles_id id, int *count);
/// Velocities in m/s, same layout and lifetime as the positions.
PBD_API const float *pbd_particles_velocities(const pbd_world *world, pbd_particles_id id, int *count);
/// Radius of the group's particles (0 for a bad id).
PBD_API float pbd_particles_radius(const pbd_world *world, pbd_particles_id id);
/// Places one particle (position and velocity); the game's way to shoot or reset one.
PBD_API pbd_result pbd_particles_set(pbd_world *world, pbd_particles_id id, int index, const float position[3],
				     const float velocity[3]);
/// Friction coefficients (>= 0) of the whole group.
PBD_API pbd_result pbd_particles_set_friction(pbd_world *world, pbd_particles_id id, float static_friction,
					      float kinetic_friction);

// ---------------------------------------------------------------------------------------------
// Colliders

typedef enum pbd_shape_type {
	PBD_SHAPE_PLANE,   ///< half-space below the plane through `position` with normal local +y
	PBD_SHAPE_SPHERE,  ///< `radius` around `position`
	PBD_SHAPE_CAPSULE, ///< segment of half length `half_height` along local y, with `radius`
	PBD_SHAPE_BOX,     ///< oriented box with `half_extents`
	PBD_SHAPE_COUNT
} pbd_shape_type;

/// What each shape keeps off: every shape keeps cloth vertices and free particles outside it
/// by their radius (half the cloth's thickness). Spheres and capsules also keep the inside of
/// cloth triangles off (a stretched triangle cannot reach over them between its vertices), and
/// a box keeps cloth triangles and cloth edges off its twelve edges and eight corners (a cloth
/// lying across a ridge or over a table's edge rests on the edge between its vertices), after
/// each substep's constraint passes, whether it stands still or moves. Where the pushes do
/// not settle within their passes, triangles left across a still box's edge keep their places
/// for the substep. A plane has no edge: its vertices' contacts keep the whole cloth off.
/// Measured (pbd-bench --fast-colliders): a 64 x 64 cloth dropped on the ridge of a box turned
/// 45 degrees and over a table's edge, and a bar pushed through a 48 x 48 curtain at 3 and
/// 10 m/s, had no box edge within the cloth's thickness in any frame, at 1 substep and at the
/// default 10. At 1 substep such a curtain can stay caught on the bar, stretched past twice
/// its length (one constraint pass a substep is a soft cloth); more substeps let it slide off.
///
/// Collider definition. Get one from pbd_collider_def_default(): the floor plane y = 0.
/// A plane is given by `normal` and `offset` (the points x with n.x = offset; the normal
/// need not be unit length, the offset is then scaled with it); its position and rotation
/// fields are ignored at creation. pbd_collider_set_pose moves any collider, planes too
/// (a plane's local +y is its normal).
typedef struct pbd_collider_def {
	pbd_shape_type type;
	float normal[3];          ///< plane only; default (0, 1, 0)
	float offset;             ///< plane only, m; default 0
	float radius;             ///< sphere, capsule: m, > 0. Default 0.5.
	float half_height;        ///< capsule: m, >= 0. Default 0.5.
	float half_extents[3];    ///< box: m, > 0. Default 0.5 each.
	float position[3];        ///< m
	float rotation[4];        ///< unit quaternion (x, y, z, w)
	float static_friction;    ///< >= 0. Default 0.5. A contact uses sqrt(a * b) of both sides.
	float kinetic_friction;   ///< >= 0. Default 0.4.
	int internal_cookie;
} pbd_collider_def;

/// The default collider def described above (the floor plane y = 0).
PBD_API pbd_collider_def pbd_collider_def_default(void);
/// Creates a collider, static until pbd_collider_set_pose moves it. On failure *out_id is
/// null and nothing changed.
PBD_API pbd_result pbd_collider_create(pbd_world *world, const pbd_collider_def *def, pbd_collider_id *out_id);
/// Removes the collider; its id becomes stale.
PBD_API pbd_result pbd_collider_destroy(pbd_world *world, pbd_collider_id id);
/// Moves a collider kinematically: it reaches the pose at the end of the next step, moving
/// smoothly through the substeps; contacts see its velocity (friction drags cloth along).
PBD_API pbd_result pbd_collider_set_pose(pbd_world *world, pbd_collider_id id, const float position[3], const float rotation[4]);
/// Puts the collider at a pose at once, without sweeping the way there (a character that
/// respawns): nothing between the old and new pose is touched, and the collider is at rest
/// (velocity zero) until the next pbd_collider_set_pose. Cloth it lands in is pushed out as
/// by any contact; it is not carried.
PBD_API pbd_result pbd_collider_teleport(pbd_world *world, pbd_collider_id id, const float position[3],
					 const float rotation[4]);
/// Friction coefficients (>= 0) of the collider's side of its contacts.
PBD_API pbd_result pbd_collider_set_friction(pbd_world *world, pbd_collider_id id, float static_friction, float kinetic_friction);
/// The collider's current definition (its pose as now).
PBD_API pbd_result pbd_collider_get_def(const pbd_world *world, pbd_collider_id id, pbd_collider_def *out);


// ---------------------------------------------------------------------------------------------
// Attachments: cloth vertices held to a frame the game moves (a cape on a character's
// shoulders, a flag on a pole, a curtain on a rail).

/// Attachment handle, same scheme as pbd_cloth_id.
typedef struct pbd_attachment_id {
	uint32_t index1;
	uint32_t generation;
} pbd_attachment_id;

/// Get one from pbd_attachment_def_default(). The vertices keep, in the frame, the offsets
/// they have now from the frame's pose (position, rotation); when the game moves the frame
/// (pbd_attachment_set_pose) they go with it.
typedef struct pbd_attachment_def {
	pbd_cloth_id cloth;
	const uint32_t *vertices;  ///< vertex_count indices into the cloth's vertices; copied
	int vertex_count;          ///< 1..the cloth's vertex count
	float position[3];         ///< the frame's position now, m. Default the origin.
	float rotation[4];         ///< the frame's orientation now, unit quaternion (x, y, z, w)
	/// Compliance in m/N of the spring that holds each vertex to its place, >= 0. 0 (the
	/// default) holds it exactly: the vertex becomes kinematic and follows the frame along
	/// its rigid path through the substeps. Above 0 the vertex keeps its mass and is pulled
	/// towards its place by an XPBD zero-length spring (1e-4 gives a few millimetres of give
	/// for a light cloth).
	float compliance;
	/// With compliance > 0: the most force in N each spring may pull with in a substep, >= 0;
	/// 0 (the default) sets no limit. The springs are solved before contacts, colliders and
	/// the no-crossing guard, which have the last word.
	float max_force;
	int internal_cookie;
} pbd_attachment_def;

/// An attachment def with no cloth, no vertices, the identity frame and compliance 0.
PBD_API pbd_attachment_def pbd_attachment_def_default(void);
/// Attaches the vertices (each once: PBD_ERR_REPEATED_INDEX). An exact attachment
/// (compliance 0) owns its vertices: a vertex may be held exactly by one attachment only, and
/// pbd_cloth_pin_vertex and pbd_cloth_release_vertex refuse it while it is held
/// (PBD_ERR_VERTEX_HELD); destroy the attachment or make it compliant first. An exact
/// attachment takes over a vertex pinned before, and its destruction releases it. A pin on a
/// vertex of a compliant attachment wins while it lasts (the spring pulls nothing).
/// Destroying the cloth destroys its attachments (their ids become stale).
PBD_API pbd_result pbd_attachment_create(pbd_world *world, const pbd_attachment_def *def, pbd_attachment_id *out_id);
/// Releases the vertices: they keep their position and velocity and get their mass back.
PBD_API pbd_result pbd_attachment_destroy(pbd_world *world, pbd_attachment_id id);
/// Moves the frame: it reaches the pose at the end of the next step, moving smoothly (linear
/// in position, normalised-linear in rotation) through the substeps. Call every frame.
PBD_API pbd_result pbd_attachment_set_pose(pbd_world *world, pbd_attachment_id id, const float position[3],
					   const float rotation[4]);
/// Puts the frame at a pose at once, and its whole cloth with it: every vertex moves by the
/// frame's rigid motion from where it was at the end of the last step, and every velocity is
/// turned with it (a cape keeps its motion relative to its character). Nothing is swept on
/// the way. Other frames holding the same cloth stay where they are: teleport them too.
PBD_API pbd_result pbd_attachment_teleport(pbd_world *world, pbd_attachment_id id, const float position[3],
					   const float rotation[4]);

// ---------------------------------------------------------------------------------------------
// Grab: what a mouse drag needs. A grab is a compliant attachment made for it: the grabbed
// vertex and its neighbours within `radius` (in the rest shape) are pulled towards the
// target by stiff springs whose total force is limited, so colliders, contacts and the
// no-crossing guard have the last word (a drag into a sphere leaves the cloth on its
// surface), and the pull spread over a patch does not tear one vertex out of the sheet.

/// Get one from pbd_grab_def_default().
typedef struct pbd_grab_def {
	pbd_cloth_id cloth;
	int vertex;          ///< the vertex under the cursor
	/// Patch radius in m in the rest shape, >= 0. 0 (the default): twice the mean rest edge
	/// at the vertex (a grid vertex and its neighbours up to two edges away).
	float radius;
	float compliance;    ///< each spring's compliance, m/N, > 0. Default 1e-4
	/// Total force in N all springs may pull with, shared equally, >= 0. 0 (the default):
	/// twice the cloth's weight at 9.81 m/s^2 (a grab can lift the cloth, not fling it).
	float max_force;
	int internal_cookie;
} pbd_grab_def;

/// A grab def of no cloth with the defaults above.
PBD_API pbd_grab_def pbd_grab_def_default(void);
/// Grabs the patch where it is now; move it with pbd_grab_move, let go with pbd_grab_end
/// (the cloth keeps its motion). Vertices held by an exact attachment are left out of the
/// patch; a pinned vertex in it stays pinned. The grab is an attachment (its id works with
/// the attachment functions).
PBD_API pbd_result pbd_grab_begin(pbd_world *world, const pbd_grab_def *def, pbd_attachment_id *out_id);
/// Moves the grab so that the grabbed vertex's target is `target` (m, world frame) at the end
/// of the next step; the patch keeps its shape as grabbed. Call every frame.
PBD_API pbd_result pbd_grab_move(pbd_world *world, pbd_attachment_id id, const float target[3]);
/// Lets go: the same as pbd_attachment_destroy.
PBD_API pbd_result pbd_grab_end(pbd_world *world, pbd_attachment_id id);
/// Changes the compliance (>= 0) at run time; 0 makes the vertices kinematic, above 0 frees
/// them to the spring.
PBD_API pbd_result pbd_attachment_set_compliance(pbd_world *world, pbd_attachment_id id, float compliance);
/// Where the frame holds its index-th vertex at the end of the last step (world
/// coordinates, m): the frame's pose applied to the vertex's offset.
PBD_API pbd_result pbd_attachment_get_target(const pbd_world *world, pbd_attachment_id id, int index, float out[3]);
/// PBD_OK for a live attachment of this world, else PBD_ERR_STALE_ID or PBD_ERR_UNKNOWN_ID.
PBD_API pbd_result pbd_attachment_check(const pbd_world *world, pbd_attachment_id id);


// ---------------------------------------------------------------------------------------------
// Meshes from files: Wavefront OBJ in and out. These functions need no world; the mesh
// they fill is the caller's (release it with pbd_mesh_free) and goes into
// pbd_cloth_def.mesh as it is.

/// A triangle mesh. positions: vertex_count packed float[3]; indices: 3 per triangle.
typedef struct pbd_mesh {
	float *positions;
	int vertex_count;
	uint32_t *indices;
	int triangle_count;
	int polygons_split;    ///< faces with more than three corners, split into triangle fans
	int vertices_welded;   ///< vertices merged into an earlier one (pbd_obj_options.weld_distance)
	int vertices_unused;   ///< vertices no face used, left out
	int triangles_dropped; ///< triangles that lost a corner to welding (two corners the same)
	/// Faces turned round so that each piece (triangles joined across edges with exactly two
	/// triangles) winds one way; of the two ways, the one fewer faces needed, on a tie the
	/// piece's first face's.
	int faces_reoriented;
	int edges_non_manifold;     ///< edges with three or more triangles (pieces are not joined across them)
	int boundary_loops;         ///< chains of edges with one triangle: the rims and holes
	int pieces;                 ///< pieces as above
	int pieces_not_orientable;  ///< pieces no winding fits (a Moebius strip), left as they were
} pbd_mesh;

/// Get one from pbd_obj_options_default().
typedef struct pbd_obj_options {
	/// Vertices closer than this (m) become one. Negative (the default, -1) keeps every
	/// vertex; 0 merges exact duplicates, as left by exporters that split at seams.
	float weld_distance;
	/// Largest file pbd_mesh_load_obj reads, bytes. Default 256 MiB.
	size_t max_bytes;
	/// Optional: called now and then while a file is read and parsed (about every MiB of text
	/// and between the later passes, and once with 1 at the end) with the share done in
	/// [0, 1], rising, and `progress_user`; returning 0 stops the load, which then returns
	/// PBD_ERR_CANCELLED with *out left empty (any other value goes on). It runs on the
	/// loading thread. NULL (the default): none.
	int (*progress)(float done, void *user);
	void *progress_user;
	int internal_cookie;
} pbd_obj_options;

/// Options with no welding and a 256 MiB file limit.
PBD_API pbd_obj_options pbd_obj_options_default(void);
/// Reads an OBJ file: `v x y z` lines (further numbers, such as w or a color, are ignored)
/// and `f` lines of three or more corners in any of the forms v, v/vt, v//vn, v/vt/vn, with
/// negative (relative) indices; polygons become triangle fans. Other statements (vt, vn, o,
/// g, s, usemtl, mtllib, l, ...) are skipped. A face with the same three vertices as an
/// earlier one (after welding, in any order) is refused, naming both lines; each piece is
/// then wound one way (pbd_mesh.faces_reoriented). On failure *out is left empty and `error`
/// (if not NULL) holds "FILE:LINE: what is wrong". options may be NULL (the defaults).
PBD_API pbd_result pbd_mesh_load_obj(const char *path, const pbd_obj_options *options, pbd_mesh *out, char *error,
				     size_t error_capacity);
/// The same for OBJ text in memory (length bytes, need not end in a NUL); `name` stands for
/// the file name in error messages.
PBD_API pbd_result pbd_mesh_parse_obj(const char *text, size_t length, const char *name,
				      const pbd_obj_options *options, pbd_mesh *out, char *error, size_t error_capacity);
/// Frees what a load or parse allocated and empties the mesh. NULL is allowed.
PBD_API void pbd_mesh_free(pbd_mesh *mesh);
/// Writes `o name` (when name is not NULL), one `v` line per vertex with nine significant
/// digits (floats read back bit for bit) and one `f` line per triangle, its indices offset
/// by index_base (1 for the first object of a file; add the vertex counts of earlier ones).
/// Returns PBD_ERR_IO on a write error. pbd-sim --dump writes through this.
PBD_API pbd_result pbd_obj_write(FILE *out, const char *name, const float *positions, int vertex_count,
				 const uint32_t *indices, int triangle_count, int index_base);
/// Writes a mesh to a new OBJ file.
PBD_API pbd_result pbd_mesh_save_obj(const char *path, const pbd_mesh *mesh, char *error, size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif // PBD_PBD_H
