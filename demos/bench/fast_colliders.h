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

// The bar (1.5 m long, 6 cm thick, wider than the curtain) pushing the curtain 2 m: the
// curtain slid off it when far_after_stop is near 0.
void fast_bar_push(float speed, int substeps, double budget_s, sweep_result *out);

// The bench's cloth dropped across the ridge of a box turned 45 degrees (64 x 64, 1 m square,
// for 2 s): frames with crossings and with a box edge within the cloth's thickness of its
// mid-surface, and where the cloth ends up (its lowest point and how far its two halves hang
// down either side of the ridge), for the tests.
typedef struct ridge_drop_result {
	int frames, crossing_frames, inside_frames;
	double lowest_y;            // m, the cloth's lowest vertex at the end
	double hang_left, hang_right;  // m, how far below the ridge each half's lowest vertex is
	bool partial, failed;
} ridge_drop_result;

void fast_ridge_drop(int substeps, double budget_s, ridge_drop_result *out);

// The bench's cloth dropped over a table's edge (64 x 64, 1 m square, its middle over the edge
// of a table 0.7 m high, for 2 s): frames with crossings and with a box edge within the cloth's
// thickness of its mid-surface, and where the cloth ends up (its lowest point, and the mean
// height of its vertices over the table top, 10 cm or more inside its edges).
typedef struct table_drop_result {
	int frames, crossing_frames, inside_frames;
	double lowest_y;    // m
	double over_top_y;  // m, NAN when no vertex is over the top
	bool partial, failed;
} table_drop_result;

void fast_table_drop(int substeps, double budget_s, table_drop_result *out);
