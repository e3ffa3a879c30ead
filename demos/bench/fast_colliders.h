// SPDX-License-Identifier: MIT
// The fast-collider scenes of pbd-bench (fast_colliders.c).
#pragma once

#include <stdbool.h>

#include <pbd/pbd.h>

// Prints a measured figure beside its target as MET or MISSED (pbd_bench.c).
void bench_print_target(const char *what, double measured, const char *unit, const char *op, double limit,
			const char *note);

// Runs every fast-collider scene at 1 and 10 substeps and prints its figures against the targets;
// a run stops after budget_s seconds and is marked partial.
void run_fast_collider_targets(double budget_s);

// One sweep of the bench (a collider there and back through the curtain at `speed` m/s, with
// `substeps`): its figures, for the tests.
typedef struct sweep_result {
	int frames, crossing_frames, inside_frames;  // frames run; with crossings; with cloth inside
	double worst_strain;                          // largest edge strain in any frame (0.1 = 10%)
	double settled_strain;                        // largest 1 s after each stop of the collider
	bool settled_seen;                            // the run reached those frames
	double fastest_vertex;                        // m/s
	double far_after_stop;                        // m: the largest z of any vertex 1 s after the first stop
	bool partial, failed;                         // the time budget cut it short; a step failed
} sweep_result;

// The capsule (radius 6 cm, across the curtain or upright).
void fast_capsule_sweep(bool across, float speed, int substeps, double budget_s, sweep_result *out);
// The same with a curtain `thickness` thick.
void fast_capsule_sweep_thick(bool across, float speed, int substeps, float thickness, double budget_s,
			      sweep_result *out);

// The bar (1.5 m long, 6 cm thick, wider than the curtain) pushing the curtain 2 m: the
// curtain slid off it when far_after_stop is near 0.
void fast_bar_push(float speed, int substeps, double budget_s, sweep_result *out);

// The bench's 64 x 64 cloth, 1 m square, dropped onto a box for 2 s: frames with crossings and
// with a box edge within the cloth's thickness of its mid-surface, and where the cloth ends up.
typedef struct box_drop_result {
	int frames, crossing_frames, inside_frames;
	double lowest_y;               // m, the cloth's lowest vertex at the end
	double hang_left, hang_right;  // ridge: m, how far below the ridge each half's lowest vertex is
	double over_top_y;             // table: m, the mean height of the vertices over its top, 10 cm
	                               // or more inside its edges (NAN when none is)
	bool partial, failed;
} box_drop_result;

// Across the ridge of a box turned 45 degrees (0.51 m high).
void fast_ridge_drop(int substeps, double budget_s, box_drop_result *out);
// Its middle over the edge of a table 0.7 m high.
void fast_table_drop(int substeps, double budget_s, box_drop_result *out);
