// SPDX-License-Identifier: MIT
// The step context: what one step's stages share (solver.c runs them from a table).
#pragma once

#include <stdint.h>

#include "world.h"

// The kinds of contact among the candidate pairs, in the order each pass solves them.
typedef enum pbd_pair_contact_kind {
	PBD_CONTACT_VERTEX_TRIANGLE,
	PBD_CONTACT_EDGE_EDGE,
	PBD_CONTACT_PARTICLE,
	PBD_PAIR_CONTACT_KINDS
} pbd_pair_contact_kind;

// The parameters of one step and its substep in progress, and the tallies the stages leave
// for the statistics. pbd_world_step fills it and passes it to every stage.
typedef struct pbd_step_context {
	float dt;                   // the step
	float h, inv_h, inv_h2;     // one substep: h = dt / substeps, 1 / h, 1 / h² (XPBD's α / h²)
	int substeps, iterations;   // substeps per step, constraint passes per substep
	int substep;                // the substep in progress, 0 .. substeps - 1
	int pass;                   // the constraint pass in progress, 0 .. iterations - 1
	float t0, t1;               // the substep's start and end as fractions of the step
	bool air;                   // air acts this step (pbd_air_is_on)
	bool carried;               // the carry holds swept starts for the guard this substep
	int64_t failures_before;    // the world's allocation failures when the substep began

	// Tallies: contacts touching after the last pass, CCD work, substeps held.
	int collider_contacts, collider_triangle_contacts;
	int pair_contacts[PBD_PAIR_CONTACT_KINDS];  // per kind of candidate pair (pbd_pair_contact_kind)
	int64_t ccd_tested, ccd_hits;
	int substeps_held, substeps_held_for_memory;
	pbd_result tear_result;     // PBD_OK, or why a cloth could not tear (out of memory)
	double stage_ms[PBD_STAGE_COUNT];  // wall time per timer, summed over substeps
} pbd_step_context;
