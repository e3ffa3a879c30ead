// SPDX-License-Identifier: MIT
// Greedy graph coloring of constraints over their particles.
//
// In generation order each constraint reads the particles the previous one just wrote, so
// the CPU waits on every result; sorted by color, consecutive constraints are independent
// (measured about 2x faster, docs/design.md) and a color can be split across threads.
#include "../engine/world.h"

#define PBD_COLOR_BITS PBD_OVERFLOW_COLOR  // colors 0..62 are free of shared particles

static uint32_t lowest_particle(int arity, const uint32_t *v)
{
	uint32_t lo = v[0];
	for (int k = 1; k < arity; ++k)
		lo = v[k] < lo ? v[k] : lo;
	return lo;
}

// Counting sort of the constraints by their lowest particle (stable).
static void order_by_lowest_particle(int count, int arity, const uint32_t *idx, int particle_count, int *bucket,
				     int *out)
{
	for (int i = 0; i <= particle_count; ++i)
		bucket[i] = 0;
	for (int c = 0; c < count; ++c)
		bucket[lowest_particle(arity, idx + c * arity) + 1]++;
	for (int i = 0; i < particle_count; ++i)
		bucket[i + 1] += bucket[i];
	for (int c = 0; c < count; ++c)
		out[bucket[lowest_particle(arity, idx + c * arity)]++] = c;
}

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
	// Counting sort, stable within a color so memory order stays spatially coherent.
	int start = 0;
	for (int b = 0; b < colors; ++b) {
		color_start[b] = start;
		start += histogram[b];
	}
	color_start[colors] = start;
	int fill[PBD_COLOR_BITS + 1];
	for (int b = 0; b < colors; ++b)
		fill[b] = color_start[b];
	// Within a color, constraints go in the order of their lowest particle, so that a range of
	// a color is a band of the mesh: each thread works on its own band in every color
	// (constraints are generated kind by kind, stretch then shear, and a color mixing kinds
	// otherwise spanned the mesh in every range). Constraints of one color share no particle,
	// so their order does not change the result. The overflow color keeps generation order.
	int *by_particle = pbd_alloc_array(world, (size_t)count, sizeof *by_particle);
	int *bucket = pbd_alloc_array(world, (size_t)particle_count + 1, sizeof *bucket);
	if (by_particle && bucket) {
		order_by_lowest_particle(count, arity, idx, particle_count, bucket, by_particle);
		for (int k = 0; k < count; ++k)
			if (color[by_particle[k]] != PBD_COLOR_BITS)
				perm[fill[color[by_particle[k]]]++] = by_particle[k];
		for (int c = 0; c < count; ++c)
			if (color[c] == PBD_COLOR_BITS)
				perm[fill[PBD_COLOR_BITS]++] = c;
	} else {
		for (int c = 0; c < count; ++c)
			perm[fill[color[c]]++] = c;
	}
	pbd_free_array(world, by_particle, (size_t)count, sizeof *by_particle);
	pbd_free_array(world, bucket, (size_t)particle_count + 1, sizeof *bucket);
	pbd_free_array(world, used, (size_t)particle_count, sizeof *used);
	pbd_free_array(world, color, (size_t)count, sizeof *color);
	return colors;
}

static int band_of(uint32_t particle, int particle_count)
{
	return (int)((int64_t)particle * PBD_BANDS / particle_count);
}

int *pbd_color_bands(pbd_world *world, int colors, const int *color_start, int arity, const uint32_t *idx,
		     int particle_count, int *reach)
{
	int *bands = pbd_alloc_array(world, (size_t)colors * (PBD_BANDS + 1), sizeof *bands);
	if (!bands)
		return NULL;
	*reach = 0;
	for (int c = 0; c < mini(colors, PBD_OVERFLOW_COLOR); ++c)  // the overflow color runs alone
		for (int i = color_start[c]; i < color_start[c + 1]; ++i) {
			const uint32_t *v = idx + (size_t)i * arity;
			uint32_t hi = v[0];
			for (int k = 1; k < arity; ++k)
				hi = v[k] > hi ? v[k] : hi;
			*reach = maxi(*reach, band_of(hi, particle_count) - band_of(lowest_particle(arity, v), particle_count));
		}
	for (int k = 0; k < colors; ++k) {
		int *start = bands + (size_t)k * (PBD_BANDS + 1);
		int c = color_start[k], end = color_start[k + 1];
		for (int b = 0; b < PBD_BANDS; ++b) {
			// The first constraint whose lowest particle is in band b or later.
			while (k != PBD_OVERFLOW_COLOR && c < end &&
			       (int64_t)lowest_particle(arity, idx + (size_t)c * arity) * PBD_BANDS < (int64_t)b * particle_count)
				++c;
			start[b] = k == PBD_OVERFLOW_COLOR ? color_start[k] : c;
		}
		start[PBD_BANDS] = end;
	}
	return bands;
}
