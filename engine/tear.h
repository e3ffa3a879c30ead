// SPDX-License-Identifier: MIT
// Tearing and cutting (engine/tear.c): vertices split where an edge stretches past its
// cloth's tear strain, or where a game cuts.
#pragma once

#include "core.h"

// At the end of a step: splits the vertices of every tearing cloth where an edge is stretched
// past its tear strain (stats.tear_splits); out of memory, that cloth stays whole this step.
pbd_result pbd_tear_cloths(pbd_world *world);
