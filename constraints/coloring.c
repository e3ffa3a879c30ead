// SPDX-License-Identifier: MIT
// Greedy graph colouring of constraints over their particles.
//
// In generation order each constraint reads the particles the previous one just wrote, so
// the CPU waits on every result; sorted by colour, consecutive constraints are independent
// (measured about 2x faster, DESIGN.md) and a colour can be split across threads.
#include "../engine/world.h"

#define PBD_COLOR_BITS 63  // colour 63 is the overflow: it may share particles, run it serially

int pbd_color_constraints(pbd_world *world, int count, int arity, const uint32_t *idx, int particle_count,
			  int *perm, int *color_start)
{
	if (count == 0) {
		color_start[0] = 0;
		return 0;
	}
	uint64_t *used = pbd_alloc_array(world, (size_t)particle_count, sizeof *used);
	uint8_t *color = pbd_alloc_array(world, (size_t)count, sizeof *color);
	if (!used || !color) {
		pbd_free_array(world, used, (size_t)particle_count, sizeof *used);
		pbd_free_array(world, color, (size_t)count, sizeof *color);
		return -1;
	}
	int histogram[PBD_COLOR_BITS + 1] = {0};
	for (int c = 0; c < count; ++c) {
		uint64_t taken = 0;
		for (int k = 0; k < arity; ++k)
			taken |= used[idx[c * arity + k]];
		int col = PBD_COLOR_BITS;
		for (int b = 0; b < PBD_COLOR_BITS; ++b) {
			if (!(taken & ((uint64_t)1 << b))) {
				col = b;
				break;
			}
		}
		if (col < PBD_COLOR_BITS)
			for (int k = 0; k < arity; ++k)
				used[idx[c * arity + k]] |= (uint64_t)1 << col;
		color[c] = (uint8_t)col;
		histogram[col]++;
	}
	int colors = 0;
	for (int b = 0; b <= PBD_COLOR_BITS; ++b)
		if (histogram[b])
			colors = b + 1;
	// Counting sort, stable within a colour so memory order stays spatially coherent.
	int start = 0;
	for (int b = 0; b < colors; ++b) {
		color_start[b] = start;
		start += histogram[b];
	}
	color_start[colors] = start;
	int fill[PBD_COLOR_BITS + 1];
	for (int b = 0; b < colors; ++b)
		fill[b] = color_start[b];
	for (int c = 0; c < count; ++c)
		perm[fill[color[c]]++] = c;
	pbd_free_array(world, used, (size_t)particle_count, sizeof *used);
	pbd_free_array(world, color, (size_t)count, sizeof *color);
	return colors;
}
