// SPDX-License-Identifier: MIT
// The world: assembled from the modules that own its state, each with its own header. The
// step (engine/solver.c) calls the modules; a module calls only the core services (core.h)
// and reads the object tables and particles it is given.
#pragma once

#include <pbd/pbd.h>

#include "attachment.h"
#include "body.h"
#include "color_wave.h"
#include "collider.h"
#include "collision.h"
#include "constraints.h"
#include "core.h"
#include "particles.h"
#include "topology.h"
#include "../collision/collider_carry.h"
#include "../collision/collider_contacts.h"
#include "../collision/guard.h"
#include "../collision/pairs.h"

#define PBD_COOKIE 0x7062640a
#define PBD_ERROR_CAPACITY 256
#define PBD_MAX_GRID_RES 4096
#define PBD_MAX_PARTICLES (1 << 24)
#define PBD_MAX_COUNT 1000

struct pbd_world {
	pbd_allocator allocator;
	// Task hooks (NULL: everything on the calling thread).
	int worker_count;
	pbd_enqueue_task_fn *enqueue_task;
	pbd_finish_task_fn *finish_task;
	void *user_task_context;
	pbd_world_settings settings;
	double time;               // simulated seconds, drives wind gusts

	// Objects (engine/): tables whose slots are reused, generations catching stale ids, and
	// the particles of every body.
	pbd_bodies bodies;
	pbd_colliders colliders;
	pbd_attachments attachments;
	pbd_particles particles;

	// Contacts (collision/): what the step's contact stages keep between substeps and steps.
	pbd_topology topology;
	pbd_pairs pairs;
	pbd_collider_contacts collider_contacts;
	pbd_carry carry;
	pbd_guard guard;

	pbd_color_wave color_wave;  // constraint colors without a barrier between them (several workers)

	int steps_since_trim;      // contact memory is trimmed every PBD_TRIM_STEPS steps
	pbd_world_stats stats;
	// Memory (memory.c).
	size_t bytes_live;
	size_t bytes_peak;
	int64_t allocations;
	int64_t trims;             // arrays shrunk by pbd_trim_array since creation
	// Allocations that failed: the step compares it before and after a substep to learn
	// whether the substep's contact search, carry or guard went without memory.
	int64_t allocation_failures;
	char error[PBD_ERROR_CAPACITY];
};

// Where each particle's motion of this substep starts for the pair search and the guard: x,
// or, while a moving collider carries starts (collider_carry.c), x with the carried ones moved.
static inline const pbd_v4 *pbd_motion_starts(const pbd_world *w)
{
	return w->carry.active ? w->carry.start : w->particles.x;
}

// Candidate pairs of every kind held now: self and particle pairs, collider contacts
// (what stats.candidate_pairs counts).
static inline int pbd_candidate_count(const pbd_world *w)
{
	return w->pairs.vt_count + w->pairs.ee_count + w->pairs.pp_count + w->collider_contacts.count;
}

// The particles of candidate pair n (vertex-triangle pairs first, then edge-edge) and its
// thickness and clearance; returns the split (1: vertex | triangle, 2: edge | edge).
static inline int pbd_pair_particles(const pbd_world *w, uint32_t n, uint32_t ids[4], float *thickness,
				     float *clearance)
{
	if ((int64_t)n < w->pairs.vt_count) {
		const pbd_vt_contact *c = &w->pairs.vt[n];
		const uint32_t *t = w->topology.tri + 3 * c->tri;
		ids[0] = c->q, ids[1] = t[0], ids[2] = t[1], ids[3] = t[2];
		*thickness = c->thickness;
		*clearance = c->clearance;
		return 1;
	}
	const pbd_ee_contact *c = &w->pairs.ee[n - (uint32_t)w->pairs.vt_count];
	const uint32_t *ea = w->topology.edge + 2 * c->a, *eb = w->topology.edge + 2 * c->b;
	ids[0] = ea[0], ids[1] = ea[1], ids[2] = eb[0], ids[3] = eb[1];
	*thickness = c->thickness;
	*clearance = c->clearance;
	return 2;
}

// The friction of a contact between bodies (slots) a and b, and of body a against a collider.
static inline pbd_friction_pair pbd_bodies_friction(const pbd_world *w, uint32_t a, uint32_t b)
{
	const pbd_cloth_material *ma = &w->bodies.slots[a].material, *mb = &w->bodies.slots[b].material;
	return pbd_mix_friction(ma->static_friction, ma->kinetic_friction, mb->static_friction, mb->kinetic_friction);
}

static inline pbd_friction_pair pbd_collider_friction(const pbd_world *w, uint32_t body, const pbd_collider *c)
{
	const pbd_cloth_material *m = &w->bodies.slots[body].material;
	return pbd_mix_friction(m->static_friction, m->kinetic_friction, c->static_friction, c->kinetic_friction);
}

// Checks shared by the API's setters (world.c, cloth.c).
pbd_result pbd_check_material(pbd_world *world, const pbd_cloth_material *m);
pbd_result pbd_check_settings(pbd_world *world, const pbd_world_settings *s);
bool pbd_finite_n(const float *f, int n);
// PBD_OK, or PBD_ERR_NOT_FINITE / PBD_ERR_OUT_OF_RANGE naming `what`: n coordinates within
// +-PBD_MAX_COORDINATE, or a velocity (NULL passes) no faster than PBD_MAX_SPEED.
pbd_result pbd_check_coordinates(pbd_world *w, const float *f, int n, const char *what);
pbd_result pbd_check_velocity(pbd_world *w, const float *v, const char *what);
