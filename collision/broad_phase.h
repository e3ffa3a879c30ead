// SPDX-License-Identifier: MIT
// The broad phase's grid (collision/broad_phase.c): boxes hashed into cells.
#pragma once

#include "core.h"

typedef struct pbd_aabb {
	pbd_v3 lo, hi;
} pbd_aabb;

// Whether two boxes overlap (touching counts).
// All six comparisons, without branches: the searches test many boxes that overlap about half
// the time, where a branch per comparison is mispredicted often.
static inline bool pbd_aabb_overlap(pbd_aabb a, pbd_aabb b)
{
	return (a.lo.x <= b.hi.x) & (b.lo.x <= a.hi.x) & (a.lo.y <= b.hi.y) & (b.lo.y <= a.hi.y) & (a.lo.z <= b.hi.z) &
	       (b.lo.z <= a.hi.z);
}

// The box around `count` points, grown by `grow` on every side.
static inline pbd_aabb pbd_points_box(const pbd_v3 *p, int count, float grow)
{
	pbd_aabb b = {p[0], p[0]};
	for (int j = 1; j < count; ++j) {
		b.lo = v3(minf(b.lo.x, p[j].x), minf(b.lo.y, p[j].y), minf(b.lo.z, p[j].z));
		b.hi = v3(maxf(b.hi.x, p[j].x), maxf(b.hi.y, p[j].y), maxf(b.hi.z, p[j].z));
	}
	return (pbd_aabb){v3_sub(b.lo, v3(grow, grow, grow)), v3_add(b.hi, v3(grow, grow, grow))};
}

// One entry of the grid: a primitive in one of the cells its box covers. The cell travels with
// the id so that entries of other cells whose hashes collide are skipped without reading a box.
typedef struct pbd_grid_item {
	int cell[3];
	uint32_t id;
} pbd_grid_item;

// An entry added after the build (pbd_grid_insert), chained to its bucket.
typedef struct pbd_grid_extra {
	int cell[3];
	uint32_t id;
	uint32_t version;          // the primitive's version when it was added
	int next;                  // the bucket's next added entry, -1 at the end
} pbd_grid_extra;

// A uniform grid hashed into buckets (Teschner et al. 2003), built from boxes. Queries do not
// write to it, so several threads may query one grid at once. Between builds a primitive whose
// box changed is added again (pbd_grid_insert) after its owner raised its version: entries of
// older versions are then passed over, so the grid follows a few moving primitives without
// being built anew.
typedef struct pbd_grid {
	float cell;
	int bucket_count;          // power of two
	int bucket_capacity;       // buckets allocated (>= bucket_count)
	int *bucket_start;         // bucket_count + 1
	pbd_grid_item *items;      // grouped by bucket
	int item_count;
	int item_capacity;
	int item_peak, bucket_peak;  // most entries and buckets since the last trim
	uint32_t *oversized;       // primitives whose box covers too many cells: tested with all
	int oversized_count;
	int oversized_capacity;
	const pbd_aabb *boxes;     // every primitive's box now (the owner updates it in place)
	int primitive_count;
	// Per primitive, owned by the caller: 0 as built; raised each time the box changes and
	// the primitive is added again. NULL: the grid is never added to.
	const uint32_t *versions;
	pbd_grid_extra *extra;     // added entries (oversized ones chained from extra_oversized)
	int extra_count, extra_capacity, extra_peak;
	int *extra_head;           // per bucket: its first added entry, -1 for none
	int extra_head_capacity;
	int extra_oversized;       // first added entry too large for cells, -1 for none
} pbd_grid;

// Builds the grid over count boxes (ids 0..count-1); `versions` as above (may be NULL).
bool pbd_grid_build(pbd_world *world, pbd_grid *grid, const pbd_aabb *boxes, const uint32_t *versions, int count,
		    float cell);
// Adds primitive id again with its box now and its version now (raised by the caller, who
// changed the box in place): its earlier entries no longer count. False when out of memory.
bool pbd_grid_insert(pbd_world *world, pbd_grid *grid, uint32_t id);
void pbd_grid_free(pbd_world *world, pbd_grid *grid);
void pbd_grid_trim(pbd_world *world, pbd_grid *grid);
// Calls visit(id, user) exactly once for every primitive with id > skip_through whose box
// overlaps `box` (skip_through = -1: all of them; a primitive's own id: each pair once).
void pbd_grid_query(const pbd_grid *grid, pbd_aabb box, int64_t skip_through, void (*visit)(uint32_t id, void *user),
		    void *user);
