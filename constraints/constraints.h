// SPDX-License-Identifier: MIT
// Constraint kinds, one file each. Constraints index particles locally within their cloth;
// the solver passes each cloth's slice of the particle array.
#pragma once

#include "core.h"

typedef struct pbd_world pbd_world;

// Distance constraints (stretch along mesh edges, shear along the grid's second diagonals),
// stored in graph-color order: constraints of one color share no particle, so a color
// could be projected in parallel and the order does not wait on the previous result.
typedef enum pbd_distance_kind {
	PBD_DISTANCE_STRETCH = 0,
	PBD_DISTANCE_SHEAR = 1,
} pbd_distance_kind;

typedef struct pbd_distance_constraints {
	int count;
	uint32_t *ij;        // 2 per constraint
	float *rest;         // rest length, m
	float shortest;      // the least rest length (INFINITY: none)
	float *scale;        // per-edge compliance factor L^2 / (area of adjacent triangles)
	uint8_t *kind;       // pbd_distance_kind
	float *alpha;        // compliance in m/N: material compliance of the kind times scale
	float *lambda;       // XPBD multiplier, reset each substep
	int color_count;
	int *color_start;    // color_count + 1 entries
	int *band_start;     // per color, PBD_BANDS + 1 entries (pbd_color_bands)
	int band_reach;      // pbd_color_bands' reach
} pbd_distance_constraints;

// Isometric bending (Bergou, Wardetzky, Harmon, Zorin, Grinspun 2006, "A quadratic bending
// model for inextensible surfaces"): for the two triangles around an interior edge, the
// vector C = sum_i K_i x_i (K from the rest cotangents) is the edge's discrete mean-curvature
// normal, zero for every flat configuration. Its energy (3 k / (2 (A0 + A1))) |C|^2 is quadratic
// in the positions, so the constraint gradient K_i is constant: one XPBD projection solves a
// constraint exactly, there is no singular configuration, and it costs a few multiply-adds.
// A dihedral-angle model would also handle curved rest shapes but costs several times more
// per constraint and is singular when the cloth folds flat onto itself, which is where a
// cloth engine spends its time.
typedef struct pbd_bending_constraints {
	int count;
	uint32_t *v;         // 4 per constraint: edge ends, then the two opposite vertices
	float *k;            // 4 per constraint: cotangent weights, summing to 0
	float *scale;        // (A0 + A1) / 3: compliance factor, m^2
	float *lambda;       // 3 per constraint
	int color_count;
	int *color_start;
	int *band_start;     // per color, PBD_BANDS + 1 entries (pbd_color_bands)
	int band_reach;      // pbd_color_bands' reach
} pbd_bending_constraints;

// Long-range attachments (Kim, Chentanez, Mueller 2012): each free particle may be no further
// from its nearest pinned particle than (1 + slack) times their geodesic rest distance.
// Unilateral and one-sided (the anchor has no mass), so it never fights the stretch
// constraints: it only catches the stretch that a few Gauss-Seidel passes leave near pins.
// Stored by particle: `slots` tethers each (the nearest pin of each of its nearest pin
// clusters, nearest first), an empty slot's anchor UINT32_MAX; four particles are then solved
// at once, slot by slot, in the order one at a time would take.
typedef struct pbd_tethers {
	int count;           // tethers
	int particles;       // the cloth's particles
	int slots;           // tethers per particle at most
	uint32_t *anchor;    // particles * slots
	float *rest;         // particles * slots: geodesic rest distance to the anchor
} pbd_tethers;

// The last color takes the constraints that found no free color; they may share
// particles and are solved one after the other on one thread.
#define PBD_OVERFLOW_COLOR 63

// Whether constraints up to `end` lie in colors whose constraints share no particle, so
// that several may be solved at once.
static inline bool pbd_colors_independent(int color_count, const int *color_start, int end)
{
	return color_count <= PBD_OVERFLOW_COLOR || end <= color_start[PBD_OVERFLOW_COLOR];
}

// ---------------------------------------------------------------------------------------------
// One interface per constraint kind of a cloth. A kind is one file that defines its
// pbd_constraint_kind, and one row of pbd_constraint_kinds (constraints/kinds.c): cloth
// creation builds and frees every kind through the table, the solver projects them in the
// table's order, and the statistics count them.

struct pbd_body;

// What a cloth's constraints are built from: its mesh in the rest shape, with its edges
// (each once) and the triangles around them.
typedef struct pbd_cloth_mesh {
	int vertex_count;
	int triangle_count;
	pbd_v3 *rest;           // local rest positions
	pbd_v3 *world_pos;      // posed positions
	uint32_t *triangles;
	float *inv_mass;
	int edge_count;
	uint32_t *edges;        // 2 per edge
	float *edge_area;       // area of the triangles around each edge
	uint32_t *edge_opposite;// 2 per edge: opposite vertices (UINT32_MAX if none)
	int edge_tri_count_max; // > 2 means non-manifold edges exist
	uint8_t *edge_manifold; // 1 if exactly two triangles share the edge
	int shear_count;
	uint32_t *shear;        // grid second diagonals, 2 each
} pbd_cloth_mesh;

// What a projection needs of the step: the context of the task that solves a range.
typedef struct pbd_constraint_job {
	pbd_v4 *p;              // the cloth's slice of the predicted positions
	struct pbd_body *cloth;
	int first;              // first constraint of the color being solved
	float inv_h2;           // 1 / h^2 of the substep
	const float *gravity;   // the world's gravity, m/s^2
	bool fresh;             // first pass of the substep: the XPBD multipliers are zero
	bool keep;              // another pass follows: keep the multipliers
} pbd_constraint_job;

// A kind's graph colors: constraints of one color share no particle.
typedef struct pbd_color_layout {
	int count;          // colors (0: none)
	const int *start;   // where each color begins: count + 1 entries
	const int *bands;   // where each band of particles begins in each color (pbd_color_bands; NULL: not banded)
	int band_reach;     // with bands: pbd_color_bands' reach
} pbd_color_layout;

typedef struct pbd_constraint_kind {
	// Builds the kind's constraints of a new cloth from its mesh; false when out of memory
	// (what was built is freed by `free`).
	bool (*build)(pbd_world *world, struct pbd_body *cloth, const pbd_cloth_mesh *mesh);
	void (*free)(pbd_world *world, struct pbd_body *cloth);
	int (*count)(const struct pbd_body *cloth);
	// What solve_range's start and end count when not constraints (NULL: constraints).
	int (*items)(const struct pbd_body *cloth);
	// Graph colors (pbd_color_layout); a kind without colors has none: its constraints may be
	// solved in any split at once.
	pbd_color_layout (*colors)(const struct pbd_body *cloth);
	// Projects constraints job->first + start .. job->first + end - 1, all of one color (or,
	// without colors, items start .. end - 1): a pbd_task_fn over a pbd_constraint_job.
	void (*solve_range)(int start, int end, int worker, void *job);
} pbd_constraint_kind;

extern const pbd_constraint_kind pbd_kind_distance, pbd_kind_bending, pbd_kind_tether, pbd_kind_stretch_limit;
// In solve order: tethers first, so that when moving pins force the cloth to stretch (a
// twist), the stretch constraints get the last word and the strain spreads instead of piling
// up at a pin; bending next; the stretch limit (pbd_cloth_material.stretch_limit) last, so
// that no kind leaves an edge past it.
extern const pbd_constraint_kind *const pbd_constraint_kinds[];
extern const int pbd_constraint_kind_count;

// Builders allocate through the world and return false when out of memory.
bool pbd_distance_build(pbd_world *world, pbd_distance_constraints *c, int particle_count, int count,
			const uint32_t *ij, const float *rest, const float *scale, const uint8_t *kind);
void pbd_distance_free(pbd_world *world, pbd_distance_constraints *c);
void pbd_distance_set_compliance(pbd_distance_constraints *c, float stretch, float shear);
void pbd_distance_reset(pbd_distance_constraints *c);
void pbd_distance_solve(pbd_v4 *p, pbd_distance_constraints *c, float inv_h2);
// Constraints start..end-1 only, all of one color: any split into ranges gives the same
// result, so ranges may run on different threads. Four constraints at a time where the
// instruction set allows (not in the overflow color), with the same result. `fresh`: the
// multipliers are zero (the first pass of a substep), so they are not read; `keep`: write
// them for a later pass (not after the last one).
void pbd_distance_solve_range(pbd_v4 *p, pbd_distance_constraints *c, int start, int end, float inv_h2, bool fresh,
			      bool keep);
// The largest |len - rest| / rest of the constraints of one kind among start..end-1 (0 when
// there are none; NaN strains are passed over).
// Stretch constraints start..end-1 of one color longer than (1 + limit) rest, brought back
// to that length (the other kinds are passed over).
void pbd_distance_limit_range(pbd_v4 *p, const pbd_distance_constraints *c, int start, int end, float limit);
float pbd_distance_max_strain_range(const pbd_v4 *p, const pbd_distance_constraints *c, pbd_distance_kind kind,
				    int start, int end);

// Rest weights of one bending stencil from its rest positions; false if degenerate.
bool pbd_bending_weights(pbd_v3 x0, pbd_v3 x1, pbd_v3 x2, pbd_v3 x3, float k[4], float *area_sum);
bool pbd_bending_build(pbd_world *world, pbd_bending_constraints *c, int particle_count, int count,
		       const uint32_t *v, const pbd_v3 *rest_positions);
void pbd_bending_free(pbd_world *world, pbd_bending_constraints *c);
void pbd_bending_reset(pbd_bending_constraints *c);
void pbd_bending_solve(pbd_v4 *p, pbd_bending_constraints *c, float compliance, float inv_h2);
// As pbd_distance_solve_range: a range of one color.
void pbd_bending_solve_range(pbd_v4 *p, pbd_bending_constraints *c, int start, int end, float compliance,
			     float inv_h2, bool fresh, bool keep);

bool pbd_tethers_build(pbd_world *world, pbd_tethers *t, int particle_count, const float *inv_mass,
		       int edge_count, const uint32_t *edges, const pbd_v3 *rest_positions);
void pbd_tethers_free(pbd_world *world, pbd_tethers *t);
struct pbd_body;
// Rebuilds a cloth's tethers from what holds it now: its pins, and held[v] for the vertices
// attachments hold (tether.c); false when out of memory.
bool pbd_tethers_rebuild(pbd_world *world, struct pbd_body *cloth, const uint8_t *held);
// The limit is rest * (1 + slack + strain_per_length * rest): strain_per_length is the
// stretch compliance times the weight per area, the strain a hanging strip of cloth has
// per metre below its pin, so a soft cloth keeps its physical stretch.
void pbd_tethers_solve(pbd_v4 *p, const pbd_tethers *t, float slack, float strain_per_length);
// The tethers of particles start .. end - 1.
void pbd_tethers_solve_range(pbd_v4 *p, const pbd_tethers *t, int start, int end, float slack,
			     float strain_per_length);


// Graph coloring shared by the constraint kinds: reorders `count` constraints of `arity`
// particle indices each so that constraints of one color touch disjoint particles.
// perm receives the new order (perm[new] = old). Returns the color count, or -1 when out of
// memory. color_start must hold count + 1 ints (only color_count + 1 are used).
int pbd_color_constraints(pbd_world *world, int count, int arity, const uint32_t *idx, int particle_count,
			  int *perm, int *color_start);

// The particles of a cloth cut by index into PBD_BANDS bands: a color's constraints are in the
// order of their lowest particle, so those whose lowest particle lies in one band are
// consecutive. Threads given the same bands in every color (and the same particles in the
// particle stages) keep to their own part of the cloth, and their caches to themselves: cut
// by count instead, each color's share moved with the color and a few rows of particles went
// from core to core in every color (two threads were 1.2x one at 128 x 128).
#define PBD_BANDS 64
// Where each band begins in each color: colors x (PBD_BANDS + 1) indices, for constraints
// already in color order (idx); NULL when out of memory. The overflow color is one band.
// *reach: how many bands beyond its lowest particle's band a constraint reaches at most (the
// overflow color aside), which bounds the parts of the cloth two colors' bands share
// (engine/color_wave.c).
int *pbd_color_bands(pbd_world *world, int colors, const int *color_start, int arity, const uint32_t *idx,
		     int particle_count, int *reach);

// A contact whose free particles carry only a sliver of the contact point (a point next to a
// pinned corner, found by the API fuzzer with weights of 1e-22) would move them by depth over
// that sliver, flinging them across the world. Below this weight the contact is left to the
// neighbouring contacts and the CCD guard.
#define PBD_MIN_FREE_CONTACT_WEIGHT 0.05f

// True when some particle with inverse mass > 0 has |weight| >= PBD_MIN_FREE_CONTACT_WEIGHT.
static inline bool pbd_contact_movable(const float *inverse_mass, const float *weight, int count)
{
	for (int j = 0; j < count; ++j)
		if (inverse_mass[j] > 0.0f && fabsf(weight[j]) >= PBD_MIN_FREE_CONTACT_WEIGHT)
			return true;
	return false;
}

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

// Position-level friction (Macklin et al. 2014, seed 004 eq. 33.2.4-33.2.5): given the
// relative displacement over the substep and the contact normal and penetration depth d,
// returns the correction to apply to the relative displacement.
pbd_v3 pbd_friction_correction(pbd_v3 relative_displacement, pbd_v3 normal, float depth, float mu_s, float mu_k);

// Contact solvers: each projects this substep's contacts of its kind and returns how many
// were touching. Pairs (collision/pairs.h): vertex_triangle.c, edge_edge.c,
// particle_particle.c; colliders (collision/collider_contacts.h): particle_collider.c.
int pbd_vertex_triangle_solve(pbd_world *world);
int pbd_edge_edge_solve(pbd_world *world);
int pbd_particle_particle_solve(pbd_world *world);
int pbd_collider_contacts_solve(pbd_world *world);
// Pushes cloth triangles off round colliders, and triangles and edges off a box's edges and
// corners (a still box's or a moving one's); returns how many were deep inside, and in
// *touching how many it pushed.
int pbd_collider_triangles_solve(pbd_world *world, int *touching);
// After pushes that did not settle: the free corners of triangles left across a still box's
// edge, and clear of it at their starts (x), go back there; the scan repeats while it moves
// some, at most a few times. Returns how many particles went back.
int pbd_box_triangles_hold(pbd_world *world);
