// SPDX-License-Identifier: MIT
// Broad phase: a uniform grid hashed into buckets (Teschner et al. 2003, "Optimized Spatial
// Hashing for Collision Detection of Deformable Objects"). Each primitive's box is entered in
// every cell it covers; a query visits the cells of its own box. Build is two linear passes
// (count, then place), so the cost is linear in the number of primitives and nothing is
// allocated once the arrays have grown to the scene.
#include "../engine/world.h"

// A box covering more cells than this goes to a short list that every query tests; a very
// fast particle must not flood the table.
#define PBD_MAX_CELLS_PER_BOX 512

// The classic XOR of three products (Teschner) leaves its low bits, which pick the bucket,
// poorly mixed for the small coordinates of one cloth; a multiply-xorshift finaliser spreads
// them (measured: from 10 to about 1 entry per visited cell).
static inline uint32_t cell_hash(int x, int y, int z)
{
	uint32_t h = (uint32_t)x * 0x8da6b343u + (uint32_t)y * 0xd8163841u + (uint32_t)z * 0xcb1ab31fu;
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h;
}

static inline int cell_of(float v, float inv_cell)
{
	return (int)floorf(v * inv_cell);
}

// Grows an array keeping its contents: the scratch buckets grow while they are being filled.
static bool grow_u32(pbd_world *w, uint32_t **a, int *capacity, int need)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(need, *capacity * 2);
	if (!pbd_grow_array(w, (void **)a, (size_t)*capacity, (size_t)cap, sizeof **a))
		return false;
	*capacity = cap;
	return true;
}

typedef struct cell_range {
	int lo[3], hi[3];
	int64_t cells;
} cell_range;

static cell_range range_of(pbd_aabb b, float inv_cell)
{
	cell_range r;
	r.lo[0] = cell_of(b.lo.x, inv_cell);
	r.lo[1] = cell_of(b.lo.y, inv_cell);
	r.lo[2] = cell_of(b.lo.z, inv_cell);
	r.hi[0] = cell_of(b.hi.x, inv_cell);
	r.hi[1] = cell_of(b.hi.y, inv_cell);
	r.hi[2] = cell_of(b.hi.z, inv_cell);
	r.cells = (int64_t)(r.hi[0] - r.lo[0] + 1) * (r.hi[1] - r.lo[1] + 1) * (r.hi[2] - r.lo[2] + 1);
	return r;
}

bool pbd_grid_build(pbd_world *w, pbd_grid *g, const pbd_aabb *boxes, int count, float cell)
{
	g->cell = cell;
	g->primitive_count = count;
	g->item_count = 0;
	g->oversized_count = 0;
	int buckets = 64;
	while (buckets < 2 * count && buckets < (1 << 24))
		buckets <<= 1;
	if (buckets != g->bucket_count) {
		pbd_free_array(w, g->bucket_start, (size_t)g->bucket_count + 1, sizeof *g->bucket_start);
		g->bucket_start = pbd_alloc_array(w, (size_t)buckets + 1, sizeof *g->bucket_start);
		g->bucket_count = g->bucket_start ? buckets : 0;
		if (!g->bucket_start)
			return false;
	}
	if (!grow_u32(w, &g->stamp, &g->stamp_capacity, count))
		return false;
	for (int i = 0; i < count; ++i)
		g->stamp[i] = 0;
	g->query = 0;
	float inv = 1.0f / cell;
	uint32_t mask = (uint32_t)buckets - 1;
	// Pass 1: every (bucket, id) entry into scratch.
	int n = 0;
	for (int i = 0; i < count; ++i) {
		cell_range r = range_of(boxes[i], inv);
		if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0) {
			if (!grow_u32(w, &g->oversized, &g->oversized_capacity, g->oversized_count + 1))
				return false;
			g->oversized[g->oversized_count++] = (uint32_t)i;
			continue;
		}
		if (!grow_u32(w, &g->scratch_bucket, &g->scratch_capacity, n + (int)r.cells))
			return false;
		for (int z = r.lo[2]; z <= r.hi[2]; ++z)
			for (int y = r.lo[1]; y <= r.hi[1]; ++y)
				for (int x = r.lo[0]; x <= r.hi[0]; ++x)
					g->scratch_bucket[n++] = cell_hash(x, y, z) & mask;
		// Ids are filled in the same order below.
	}
	// items and scratch_id share one capacity.
	if (n > g->item_capacity) {
		int cap = maxi(n, g->item_capacity * 2);
		pbd_free_array(w, g->items, (size_t)g->item_capacity, sizeof *g->items);
		pbd_free_array(w, g->scratch_id, (size_t)g->item_capacity, sizeof *g->scratch_id);
		g->items = pbd_alloc_array(w, (size_t)cap, sizeof *g->items);
		g->scratch_id = pbd_alloc_array(w, (size_t)cap, sizeof *g->scratch_id);
		g->item_capacity = cap;
		if (!g->items || !g->scratch_id) {
			pbd_free_array(w, g->items, (size_t)cap, sizeof *g->items);
			pbd_free_array(w, g->scratch_id, (size_t)cap, sizeof *g->scratch_id);
			g->items = g->scratch_id = NULL;
			g->item_capacity = 0;
			return false;
		}
	}
	int k = 0;
	for (int i = 0; i < count; ++i) {
		cell_range r = range_of(boxes[i], inv);
		if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0)
			continue;
		for (int64_t c = 0; c < r.cells; ++c)
			g->scratch_id[k++] = (uint32_t)i;
	}
	// Pass 2: counting sort by bucket.
	for (int b = 0; b <= buckets; ++b)
		g->bucket_start[b] = 0;
	for (int e = 0; e < n; ++e)
		g->bucket_start[g->scratch_bucket[e] + 1]++;
	for (int b = 0; b < buckets; ++b)
		g->bucket_start[b + 1] += g->bucket_start[b];
	for (int e = 0; e < n; ++e)
		g->items[g->bucket_start[g->scratch_bucket[e]]++] = g->scratch_id[e];
	// bucket_start[b] now holds the end of bucket b; shift back.
	for (int b = buckets; b > 0; --b)
		g->bucket_start[b] = g->bucket_start[b - 1];
	g->bucket_start[0] = 0;
	g->item_count = n;
	return true;
}

static inline bool overlap(pbd_aabb a, pbd_aabb b)
{
	return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
	       b.lo.z <= a.hi.z;
}

void pbd_grid_query(pbd_grid *g, const pbd_aabb *boxes, pbd_aabb box, void (*visit)(uint32_t id, void *user),
		    void *user)
{
	if (g->primitive_count == 0)
		return;
	uint32_t q = ++g->query;
	if (q == 0) {
		// The stamps wrapped around: start afresh.
		for (int i = 0; i < g->primitive_count; ++i)
			g->stamp[i] = 0;
		q = g->query = 1;
	}
	for (int k = 0; k < g->oversized_count; ++k) {
		uint32_t id = g->oversized[k];
		if (g->stamp[id] != q && overlap(boxes[id], box)) {
			g->stamp[id] = q;
			visit(id, user);
		}
	}
	float inv = 1.0f / g->cell;
	cell_range r = range_of(box, inv);
	uint32_t mask = (uint32_t)g->bucket_count - 1;
	if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0) {
		// A huge query box: test everything directly.
		for (int id = 0; id < g->primitive_count; ++id)
			if (g->stamp[id] != q && overlap(boxes[id], box)) {
				g->stamp[id] = q;
				visit((uint32_t)id, user);
			}
		return;
	}
	for (int z = r.lo[2]; z <= r.hi[2]; ++z)
		for (int y = r.lo[1]; y <= r.hi[1]; ++y)
			for (int x = r.lo[0]; x <= r.hi[0]; ++x) {
				uint32_t b = cell_hash(x, y, z) & mask;
				for (int e = g->bucket_start[b]; e < g->bucket_start[b + 1]; ++e) {
					uint32_t id = g->items[e];
					if (g->stamp[id] == q)
						continue;
					g->stamp[id] = q;
					if (overlap(boxes[id], box))
						visit(id, user);
				}
			}
}

void pbd_grid_free(pbd_world *w, pbd_grid *g)
{
	pbd_free_array(w, g->bucket_start, (size_t)g->bucket_count + (g->bucket_count ? 1 : 0), sizeof *g->bucket_start);
	pbd_free_array(w, g->items, (size_t)g->item_capacity, sizeof *g->items);
	pbd_free_array(w, g->scratch_id, (size_t)g->item_capacity, sizeof *g->scratch_id);
	pbd_free_array(w, g->scratch_bucket, (size_t)g->scratch_capacity, sizeof *g->scratch_bucket);
	pbd_free_array(w, g->oversized, (size_t)g->oversized_capacity, sizeof *g->oversized);
	pbd_free_array(w, g->stamp, (size_t)g->stamp_capacity, sizeof *g->stamp);
	*g = (pbd_grid){0};
}
