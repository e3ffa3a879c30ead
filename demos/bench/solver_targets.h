// SPDX-License-Identifier: MIT
// The solver-kernel targets of pbd-bench (solver_targets.c).
#pragma once

// pbd's cloth step against the stand-alone kernel at 64, 128 and 256 (interleaved, same
// run), against Jolt's frame through that kernel, two threads against one on a quiet and on
// a loaded machine, and the cost of a collider out of reach and of still air; each figure
// printed MET or MISSED beside its target.
void run_solver_targets(void);
