// SPDX-License-Identifier: MIT
// Substep starts carried by moving colliders, for the guard (collision/collider_carry.c; the
// file says why).
#pragma once

#include "core.h"

#define PBD_NOT_CARRIED (-1)
#define PBD_CARRY_BLOCKED (-2)

// Per particle: the moving collider that carries its substep start (>= 0), PBD_NOT_CARRIED
// or PBD_CARRY_BLOCKED; the carried start; and every particle's start for the search and the
// guard while active (x, or the carried start). x itself is never touched: velocities still
// come from it.
typedef struct pbd_carry {
	int32_t *by;
	pbd_v4 *to;
	pbd_v4 *start;
	int capacity;
	int count;                 // particles carried this substep
	bool active;               // the search and the guard run from start (pbd_motion_starts)
} pbd_carry;

// Before the guard (the step drives it): seed marks the particles that moving colliders swept
// over or whose triangles they cut (false: none, or out of memory, and the guard runs from x
// as before); close carries, round by round, the particles that carried ones would meet on
// the way (false when the rounds run out); finish, given whether the set closed with the
// pairs covering it, makes the carried starts the motion's starts (false: nothing carried).
bool pbd_collider_carry_seed(pbd_world *world);
bool pbd_collider_carry_close(pbd_world *world, int64_t *tested);
bool pbd_collider_carry_finish(pbd_world *world, bool closed);
// Ends the carry: the search and the guard run from x again.
void pbd_collider_carry_end(pbd_world *world);
void pbd_collider_carry_free(pbd_world *world);
