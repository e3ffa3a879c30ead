// SPDX-License-Identifier: MIT
// Damping of cloth motion (damping.c).
#pragma once

#include "body.h"
#include "core.h"

// Removes the fraction 1 - exp(-damping dt) of each particle's velocity relative to the
// cloth's reference motion (the rigid motion of its free or of its held particles).
void pbd_damp_body(pbd_world *world, pbd_body *body, float dt);
