// SPDX-License-Identifier: MIT
// The fast-collider scenes of pbd-bench (fast_colliders.c).
#pragma once

#include <pbd/pbd.h>

// Prints a measured figure beside its target as MET or MISSED (pbd_bench.c).
void bench_print_target(const char *what, double measured, const char *unit, const char *op, double limit,
			const char *note);

// Runs every fast-collider scene at 1 and 10 substeps and prints its figures against the targets;
// a run stops after budget_s seconds and is marked partial.
void run_fast_collider_targets(double budget_s);
