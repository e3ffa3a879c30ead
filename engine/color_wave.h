// SPDX-License-Identifier: MIT
// A kind's colors solved as a wave over the cloth's bands: the workers take each color of
// their own part of the cloth without waiting at the end of a color for the others; a part of
// a color waits only for the parts of the previous color that share particles with it (the
// bands next to it). The result is the same as color after color, for any number of threads.
#pragma once

#include <stdatomic.h>

#include "core.h"

typedef struct pbd_world pbd_world;
typedef struct pbd_color_layout pbd_color_layout;
typedef struct pbd_constraint_job pbd_constraint_job;

// What the wave keeps between steps: a state per part of a color, tagged with the number of
// the wave that set it, so that no state needs clearing between waves.
typedef struct pbd_color_wave {
	void *block;               // the allocation; the states begin at its first cache line boundary
	_Atomic uint32_t *states;  // a row per slice of the cloth, each on cache lines of its own
	uint32_t number;           // of the last wave
} pbd_color_wave;

// Solves colors 0 .. layout->count - 1 of one kind (task: the kind's solve_range over `job`)
// as a wave, when the world has several workers and the colors are banded and near enough
// (a constraint reaching a few bands at most). Returns false, having done nothing, when it
// cannot: the caller then solves color after color. The overflow color is left to the caller.
// The wave's states, for a world with several workers; false when out of memory.
bool pbd_color_wave_init(pbd_world *w);
bool pbd_color_wave_solve(pbd_world *w, pbd_task_fn *task, const pbd_constraint_job *job,
			  const pbd_color_layout *layout, int colors);
void pbd_color_wave_free(pbd_world *w);
