// SPDX-License-Identifier: MIT
// The independent intersection check (intersect_check.h) over every cloth of a loaded scene.
#pragma once

#include "intersect_check.h"
#include "scenes.h"

// Crossing triangle pairs among the scene's cloths.
static inline long check_scene_crossings(pbd_world *w, const demo_scene_state *st)
{
	check_mesh meshes[DEMO_MAX_CLOTHS];
	for (int c = 0; c < st->cloth_count; ++c) {
		meshes[c].positions = pbd_cloth_positions(w, st->cloths[c], NULL);
		meshes[c].indices = pbd_cloth_indices(w, st->cloths[c], &meshes[c].triangle_count);
	}
	return check_count_intersections(meshes, st->cloth_count);
}
