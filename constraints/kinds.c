// SPDX-License-Identifier: MIT
// The constraint kinds of a cloth, in the order the solver projects them (constraints.h).
#include "../engine/world.h"

const pbd_constraint_kind *const pbd_constraint_kinds[] = {&pbd_kind_tether, &pbd_kind_distance, &pbd_kind_bending,
							      &pbd_kind_stretch_limit};
const int pbd_constraint_kind_count = (int)(sizeof pbd_constraint_kinds / sizeof pbd_constraint_kinds[0]);
