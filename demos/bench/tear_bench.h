// SPDX-License-Identifier: MIT
// The tear scene's figures in pbd-bench (tear_bench.c).
#pragma once

// Runs the tear scene at 32 and 64 and prints its splits, crossings and what a tearing frame
// costs against a quiet one, the latter beside its target as MET or MISSED.
void run_tear_targets(void);
