// SPDX-License-Identifier: MIT
// The guard (collision/guard.c): no crossing of the motion x -> p lands. It sweeps the candidate
// pairs whose motion can meet and pulls the particles of a pair that would cross back along
// their paths, round after round, until none does.
#pragma once

#include "collision.h"
#include "core.h"

typedef struct pbd_guard {
	uint32_t *stamp;           // per particle: the round in which its motion last changed
	int stamp_capacity;
	int stamped;               // motions changed in the last run of the guard (0: every stamp is 0)
	uint8_t *live;             // per vt then ee pair: whether its sweep can meet
	int live_capacity;
	uint32_t *pairs;           // the pairs that can (vt first, then ee + vt_count)
	int pair_count, pairs_capacity;
	int live_peak, pairs_peak; // most used since the last trim
	// Per particle: whether the guard stopped its motion short in a substep of this step
	// (pbd_guard_limit_motion marks it; pbd_world_get_contacts lists them); how many are
	// marked; whether a mark was lost to memory.
	uint8_t *stopped;
	int stopped_capacity;
	int stopped_count;
	bool stopped_lost;
} pbd_guard;

// Returns the crossings caught; *tested gets the pairs swept. The pairs' sweep drifts must be
// current (pbd_pairs_sweep_drift).
int pbd_guard_run(pbd_world *world, int64_t *tested);
// Pulls particle i's motion back to the fraction t of x -> p (t <= 0: to x), recording
// `round` in its stamp; kinematic particles keep their path. Returns whether p changed.
bool pbd_guard_limit_motion(pbd_world *world, uint32_t i, double t, uint32_t round);
// After the guard's rounds: particles inside a moving collider, and the corners of triangles
// cutting a moving round collider (the guard stops each particle on its own, and a triangle
// whose corners stop at different points of their paths can cut across it), go back to their
// starts, recorded in the stamps as changed in round `stamp`; so do the particles whose motion
// the guard shortened into a still collider (a path x -> p around a collider cuts through it).
// Returns how many moved.
int pbd_collider_settle(pbd_world *world, uint32_t stamp);
// Clears those marks (a new step, or the particles were renumbered).
void pbd_guard_forget_stops(pbd_world *world);
void pbd_guard_trim(pbd_world *world);
void pbd_guard_free(pbd_world *world);
