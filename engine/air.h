// SPDX-License-Identifier: MIT
// Air: aerodynamic forces on cloth (air.c).
#pragma once

#include "core.h"

// Whether air acts at all: a density and a drag or lift coefficient above zero.
bool pbd_air_is_on(const pbd_world *world);

// Fills the particles' force with each particle's aerodynamic force from the state at the step's start.
void pbd_air_forces(pbd_world *world);
