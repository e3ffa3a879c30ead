// SPDX-License-Identifier: MIT
// A stand-alone XPBD cloth kernel: the speed a cloth step can reach on the machine at hand,
// measured beside pbd in the same run so that pbd's figures read as a ratio (pbd-bench).
//
// One 60 Hz frame of an N x N grid, 0.5 m apart, two corners pinned: 5 substeps of predict,
// one Gauss-Seidel pass over distance constraints (structure, both diagonals of each quad,
// and bending as distance two vertices apart: 97,026 constraints at N = 128), velocity update.
// No contact, no air, one thread. Positions in separate x, y, z arrays; the constraints in 12
// colors (direction x parity), each color solved in blocks: gather and compute into a buffer
// the compiler can vectorise, then add the corrections back.
#ifndef PBD_REFERENCE_KERNEL_H
#define PBD_REFERENCE_KERNEL_H

typedef struct reference_kernel reference_kernel;

// NULL when out of memory.
reference_kernel *reference_kernel_create(int n);
void reference_kernel_destroy(reference_kernel *k);
// Back to the flat grid at rest.
void reference_kernel_reset(reference_kernel *k);
void reference_kernel_frames(reference_kernel *k, int frames);
int reference_kernel_constraints(const reference_kernel *k);
// The largest relative stretch of any constraint, and whether every position is finite.
double reference_kernel_max_strain(const reference_kernel *k, int *finite);

#endif
