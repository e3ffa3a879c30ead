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

// One capsule sweep of the bench (radius 6 cm, across the curtain or upright, there and back
// at `speed` m/s, with `substeps`): its figures, for the tests.
typedef struct capsule_sweep_result {
	int frames, crossing_frames, inside_frames;  // frames run; with crossings; with cloth inside
	double worst_strain;                          // largest edge strain in any frame (0.1 = 10%)
	double settled_strain;                        // largest 1 s after each stop of the capsule
	bool settled_seen;                            // the run reached those frames
	double fastest_vertex;                        // m/s
	bool partial, failed;                         // the time budget cut it short; a step failed
} capsule_sweep_result;

void fast_capsule_sweep(bool across, float speed, int substeps, double budget_s, capsule_sweep_result *out);

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
