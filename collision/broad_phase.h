// SPDX-License-Identifier: MIT
// The broad phase's grid (collision/broad_phase.c): boxes hashed into cells.
#pragma once

#include "core.h"

typedef struct pbd_aabb {
	pbd_v3 lo, hi;
} pbd_aabb;

// One entry of the grid: a primitive in one of the cells its box covers. The cell travels with
// the id so that entries of other cells whose hashes collide are skipped without reading a box.
typedef struct pbd_grid_item {
	int cell[3];
	uint32_t id;
} pbd_grid_item;

// A uniform grid hashed into buckets (Teschner et al. 2003), rebuilt from boxes. Queries do not
// write to it, so several threads may query one grid at once.
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
	const pbd_aabb *boxes;     // the boxes of the last build (oversized and huge queries)
	int primitive_count;
} pbd_grid;

bool pbd_grid_build(pbd_world *world, pbd_grid *grid, const pbd_aabb *boxes, int count, float cell);
void pbd_grid_free(pbd_world *world, pbd_grid *grid);
void pbd_grid_trim(pbd_world *world, pbd_grid *grid);
// Calls visit(id, user) exactly once for every primitive with id > skip_through whose box
// overlaps `box` (skip_through = -1: all of them; a primitive's own id: each pair once).
void pbd_grid_query(const pbd_grid *grid, pbd_aabb box, int64_t skip_through, void (*visit)(uint32_t id, void *user),
		    void *user);
