// SPDX-License-Identifier: MIT
// Colors as a wave. Solved color after color, every color ends at a barrier: each worker waits
// for the slowest, and on a 2-core host whose cores share no cache each hand-over costs about
// a microsecond, several dozen times per substep (9 stretch and shear colors and 18 bending
// colors on a grid). Yet a color's constraints in one part of the cloth share particles only
// with the previous color's constraints in the parts next to it: the cloth is cut into slices
// of bands (constraints.h, PBD_BANDS), and a constraint reaches `band_reach` bands beyond the
// band of its lowest particle at most. So each part of a color (a color's constraints in one
// slice) waits only for the previous color's parts within that reach.
//
// Each worker owns a run of slices and solves them color after color, the slices next to
// another worker's first (that worker waits for them in the next color; it then finds them
// done long ago). A part is taken with a compare-and-swap on its state, so a thread that needs
// a part nobody has started (the pool ran a worker's run on another thread, or the game's task
// system runs the ranges one after the other) takes and solves it itself, after what it waits
// for: no thread ever waits for a part that nobody has taken, and a thread waits only for
// parts of earlier colors than the one it has taken, so no two threads wait on each other.
//
// Any order that keeps these waits gives the result of color after color bit for bit: two
// parts that share a particle run in color order, and parts of one color share none.
#define _POSIX_C_SOURCE 200809L  // sched_yield
#include <sched.h>

#include "color_wave.h"
#include "world.h"

// Slices per worker: a few, so that the parts next to another worker are a small share.
#define WAVE_SLICES_PER_WORKER 8
// A slice's row of states: one per color (the overflow color is not in a wave), 256 bytes.
#define WAVE_ROW (PBD_OVERFLOW_COLOR + 1)
#define WAVE_ALIGN 64
// A state is the wave's number times 4 plus one of these.
enum { PART_TAKEN = 1, PART_DONE = 2 };
#define WAVE_NUMBER_LIMIT (UINT32_MAX >> 2)
// Turns of a wait before the thread gives its core away: the thread it waits for may have been
// put aside (other processes on the cores) and may need this core to go on.
#define SPINS_BEFORE_YIELD 4096

typedef struct wave_run {
	pbd_task_fn *task;
	const pbd_constraint_job *job;
	const pbd_color_layout *layout;
	_Atomic uint32_t *states;
	int colors, slices, parts;
	int reach;  // slices on each side a part waits for in the previous color
	uint32_t taken, done;
} wave_run;

static int first_band(const wave_run *r, int slice) { return slice * PBD_BANDS / r->slices; }

static _Atomic uint32_t *state_of(const wave_run *r, int color, int slice)
{
	return r->states + (size_t)slice * WAVE_ROW + color;
}

// Color `color`'s constraints in slice `slice`.
static void solve_part(const wave_run *r, int color, int slice, int worker)
{
	pbd_constraint_job job = *r->job;
	job.first = r->layout->start[color];
	const int *bands = r->layout->bands + (size_t)color * (PBD_BANDS + 1);
	int lo = bands[first_band(r, slice)] - job.first, hi = bands[first_band(r, slice + 1)] - job.first;
	if (hi > lo)
		r->task(lo, hi, worker, &job);
}

static void solve_color(const wave_run *r, int color, int worker)
{
	pbd_constraint_job job = *r->job;
	job.first = r->layout->start[color];
	r->task(0, r->layout->start[color + 1] - job.first, worker, &job);
}

static void wait_until_done(const wave_run *r, _Atomic uint32_t *state)
{
	for (int spin = 1; atomic_load_explicit(state, memory_order_acquire) != r->done; ++spin) {
		pbd_cpu_relax();
		if (spin % SPINS_BEFORE_YIELD == 0)
			sched_yield();
	}
}

// Part (color, slice) solved: by this thread when nobody has taken it (after the parts of the
// previous color it waits for), else by whoever took it, waited for when `wait`.
static void settle(const wave_run *r, int color, int slice, int worker, bool wait)
{
	_Atomic uint32_t *state = state_of(r, color, slice);
	uint32_t seen = atomic_load_explicit(state, memory_order_acquire);
	if (seen != r->taken && seen != r->done &&
	    atomic_compare_exchange_strong_explicit(state, &seen, r->taken, memory_order_acquire,
						    memory_order_acquire)) {
		if (color > 0)
			for (int s = maxi(0, slice - r->reach); s <= mini(r->slices - 1, slice + r->reach); ++s)
				settle(r, color - 1, s, worker, true);
		solve_part(r, color, slice, worker);
		atomic_store_explicit(state, r->done, memory_order_release);
	} else if (wait) {
		wait_until_done(r, state);
	}
}

// The i-th slice of the run [a, b) to solve in each color: those next to another run first,
// from both ends inward when there are two.
static int slice_in_order(int a, int b, bool other_below, bool other_above, int i)
{
	if (other_below && other_above)
		return i % 2 ? b - 1 - i / 2 : a + i / 2;
	return other_above ? b - 1 - i : a + i;
}

// Workers' runs start .. end - 1 (their slices, as one run), every color.
static void wave_range(int start, int end, int worker, void *context)
{
	const wave_run *r = context;
	if (start == 0 && end == r->parts) {  // the whole cloth on one thread (the pool alone): no waits
		for (int color = 0; color < r->colors; ++color)
			solve_color(r, color, worker);
		return;
	}
	int a = start * r->slices / r->parts, b = end * r->slices / r->parts;
	for (int color = 0; color < r->colors; ++color)
		for (int i = 0; i < b - a; ++i)
			settle(r, color, slice_in_order(a, b, a > 0, b < r->slices, i), worker, false);
}

#define WAVE_STATES ((size_t)PBD_BANDS * WAVE_ROW)
#define WAVE_BYTES (WAVE_STATES * sizeof(uint32_t) + WAVE_ALIGN)

bool pbd_color_wave_init(pbd_world *w)
{
	pbd_color_wave *wave = &w->color_wave;
	if (w->worker_count < 2 || !w->enqueue_task)
		return true;  // never a wave
	wave->block = pbd_alloc_array(w, WAVE_BYTES, 1);
	if (!wave->block)
		return false;
	uintptr_t at = ((uintptr_t)wave->block + WAVE_ALIGN - 1) & ~(uintptr_t)(WAVE_ALIGN - 1);
	wave->states = (_Atomic uint32_t *)at;
	for (size_t k = 0; k < WAVE_STATES; ++k)
		atomic_init(&wave->states[k], 0);
	wave->number = 0;
	return true;
}

// The next wave's number: its tag on the states it sets.
static uint32_t next_number(pbd_color_wave *wave)
{
	if (++wave->number == WAVE_NUMBER_LIMIT) {  // every tag so far cleared, once in 10^9 waves
		for (size_t k = 0; k < WAVE_STATES; ++k)
			atomic_store_explicit(&wave->states[k], 0, memory_order_relaxed);
		wave->number = 1;
	}
	return wave->number;
}

bool pbd_color_wave_solve(pbd_world *w, pbd_task_fn *task, const pbd_constraint_job *job,
			  const pbd_color_layout *layout, int colors)
{
	PBD_ASSERT(colors <= PBD_OVERFLOW_COLOR);
	if (w->worker_count < 2 || !w->enqueue_task || !layout->bands || colors < 2)
		return false;
	int parts = w->worker_count, slices = mini(PBD_BANDS, WAVE_SLICES_PER_WORKER * parts);
	int bands_per_slice = PBD_BANDS / slices;  // at least, in every slice
	int reach = (layout->band_reach + bands_per_slice - 1) / bands_per_slice;
	if (2 * reach >= slices / parts)
		return false;  // each run would wait on its neighbours' whole runs: color after color is better
	if (!w->color_wave.states)
		return false;
	uint32_t tag = next_number(&w->color_wave) << 2;
	wave_run run = {task,  job,   layout, w->color_wave.states, colors, slices, parts, reach, tag | PART_TAKEN,
			tag | PART_DONE};
	pbd_parallel_for(w, wave_range, parts, 1, &run);
	return true;
}

void pbd_color_wave_free(pbd_world *w)
{
	if (w->color_wave.block)
		pbd_free_array(w, w->color_wave.block, WAVE_BYTES, 1);
	w->color_wave = (pbd_color_wave){0};
}
