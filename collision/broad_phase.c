// SPDX-License-Identifier: MIT
// Broad phase: a uniform grid hashed into buckets (Teschner et al. 2003, "Optimized Spatial
// Hashing for Collision Detection of Deformable Objects"). Each primitive's box is entered in
// every cell it covers; a query visits the cells of its own box. Build is linear passes over
// the boxes (size, count per bucket, place), so the cost is linear in the number of
// primitives, it needs no scratch, and nothing is allocated once the arrays have grown to the
// scene.
// A pair of boxes shares several cells; it is reported only from the cell that holds the low
// corner of their overlap, which every query can decide on its own. So a query writes nothing
// (no visited-stamps), reads each bucket as one run of items carrying their boxes, and many
// queries may run at once.
#include "../engine/world.h"

#include <string.h>

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

// floor(v / cell) without a call to floorf (which portable x86-64 code cannot inline and
// which was a fifth of the query time); coordinates beyond a billion cells are clamped.
static inline int cell_of(float v, float inv_cell)
{
	float f = v * inv_cell;
	if (!(f > -1e9f))
		return -1000000000;
	if (f > 1e9f)
		return 1000000000;
	int i = (int)f;
	return i - (f < (float)i);
}

// Grows an array keeping its contents (the list of oversized boxes grows while it is filled).
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
	// Spans of up to 2e9 cells each: their product could overflow, and anything past a
	// million cells per axis is oversized anyway.
	int64_t span[3];
	for (int k = 0; k < 3; ++k)
		span[k] = (int64_t)r.hi[k] - r.lo[k] + 1;
	bool huge = span[0] > (1 << 20) || span[1] > (1 << 20) || span[2] > (1 << 20);
	r.cells = huge ? INT64_MAX : span[0] * span[1] * span[2];
	return r;
}

// The bucket array only grows: the number of entries changes from build to build, and
// shrinking it would allocate again when they grow back.
static bool resize_buckets(pbd_world *w, pbd_grid *g, int buckets)
{
	if (buckets > g->bucket_capacity) {
		pbd_free_array(w, g->bucket_start, (size_t)g->bucket_capacity + (g->bucket_capacity ? 1 : 0),
			       sizeof *g->bucket_start);
		g->bucket_start = pbd_alloc_array(w, (size_t)buckets + 1, sizeof *g->bucket_start);
		g->bucket_capacity = g->bucket_start ? buckets : 0;
		if (!g->bucket_start) {
			g->bucket_count = 0;
			return false;
		}
	}
	g->bucket_count = buckets;
	return true;
}

// Runs the statement given for each cell (x, y, z) covered by each box i that is not oversized.
#define FOR_EACH_ENTRY(boxes, count, inv, ...)                                            \
	for (int i = 0; i < (count); ++i) {                                               \
		cell_range r = range_of((boxes)[i], (inv));                               \
		if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0)                      \
			continue;                                                         \
		for (int z = r.lo[2]; z <= r.hi[2]; ++z)                                  \
			for (int y = r.lo[1]; y <= r.hi[1]; ++y)                          \
				for (int x = r.lo[0]; x <= r.hi[0]; ++x) {                \
					__VA_ARGS__                                       \
				}                                                         \
	}

// Room for per-bucket heads of added entries, all empty.
static bool reset_extra(pbd_world *w, pbd_grid *g)
{
	g->extra_count = 0;
	g->extra_oversized = -1;
	if (!g->versions)
		return true;
	if (g->bucket_count > g->extra_head_capacity) {
		pbd_free_array(w, g->extra_head, (size_t)g->extra_head_capacity, sizeof *g->extra_head);
		g->extra_head = pbd_alloc_array(w, (size_t)g->bucket_capacity, sizeof *g->extra_head);
		g->extra_head_capacity = g->extra_head ? g->bucket_capacity : 0;
		if (!g->extra_head)
			return false;
	}
	memset(g->extra_head, 0xff, (size_t)g->bucket_count * sizeof *g->extra_head);  // -1
	return true;
}

bool pbd_grid_build(pbd_world *w, pbd_grid *g, const pbd_aabb *boxes, const uint32_t *versions, int count, float cell)
{
	g->cell = cell;
	g->boxes = boxes;
	g->versions = versions;
	g->primitive_count = count;
	g->item_count = 0;
	g->oversized_count = 0;
	g->extra_count = 0;
	g->extra_oversized = -1;
	float inv = 1.0f / cell;
	// Pass 1: how many entries, and which boxes are too large for cells.
	int64_t n = 0;
	for (int i = 0; i < count; ++i) {
		cell_range r = range_of(boxes[i], inv);
		if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0) {
			if (!grow_u32(w, &g->oversized, &g->oversized_capacity, g->oversized_count + 1))
				return false;
			g->oversized[g->oversized_count++] = (uint32_t)i;
			continue;
		}
		n += r.cells;
	}
	if (n > INT32_MAX / 2) {  // more entries than an int counts: as out of memory
		w->allocation_failures++;
		return false;
	}
	if (n > g->item_capacity) {
		int cap = maxi((int)n, g->item_capacity * 2);
		pbd_free_array(w, g->items, (size_t)g->item_capacity, sizeof *g->items);
		g->items = pbd_alloc_array(w, (size_t)cap, sizeof *g->items);
		g->item_capacity = g->items ? cap : 0;
		if (!g->items)
			return false;
	}
	// Twice as many buckets as entries: few entries of other cells share a bucket.
	int buckets = 64;
	while (buckets < 2 * n && buckets < (1 << 26))
		buckets <<= 1;
	if (!resize_buckets(w, g, buckets))
		return false;
	uint32_t mask = (uint32_t)buckets - 1;
	int *start = g->bucket_start;
	// Pass 2: entries per bucket, then where each bucket starts.
	for (int b = 0; b <= buckets; ++b)
		start[b] = 0;
	FOR_EACH_ENTRY(boxes, count, inv, start[(cell_hash(x, y, z) & mask) + 1]++;)
	for (int b = 0; b < buckets; ++b)
		start[b + 1] += start[b];
	// Pass 3: each entry into its bucket, in box order (start[b] runs to the bucket's end).
	FOR_EACH_ENTRY(boxes, count, inv, g->items[start[cell_hash(x, y, z) & mask]++] = (pbd_grid_item){{x, y, z}, (uint32_t)i};)
	// start[b] now holds the end of bucket b; shift back.
	for (int b = buckets; b > 0; --b)
		start[b] = start[b - 1];
	start[0] = 0;
	PBD_ASSERT(start[buckets] == (int)n);
	g->item_count = (int)n;
	g->item_peak = maxi(g->item_peak, (int)n);
	g->bucket_peak = maxi(g->bucket_peak, buckets);
	return reset_extra(w, g);
}

static bool push_extra(pbd_world *w, pbd_grid *g, const int cell[3], uint32_t id, int *head)
{
	if (g->extra_count == g->extra_capacity) {
		int cap = maxi(256, 2 * g->extra_capacity);
		if (!pbd_grow_array(w, (void **)&g->extra, (size_t)g->extra_capacity, (size_t)cap, sizeof *g->extra))
			return false;
		g->extra_capacity = cap;
	}
	pbd_grid_extra *e = &g->extra[g->extra_count];
	e->cell[0] = cell[0], e->cell[1] = cell[1], e->cell[2] = cell[2];
	e->id = id;
	e->version = g->versions[id];
	e->next = *head;
	*head = g->extra_count++;
	g->extra_peak = maxi(g->extra_peak, g->extra_count);
	return true;
}

bool pbd_grid_insert(pbd_world *w, pbd_grid *g, uint32_t id)
{
	PBD_ASSERT(g->versions && (int)id < g->primitive_count);
	cell_range r = range_of(g->boxes[id], 1.0f / g->cell);
	if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0) {
		const int none[3] = {0, 0, 0};
		return push_extra(w, g, none, id, &g->extra_oversized);
	}
	uint32_t mask = (uint32_t)g->bucket_count - 1;
	for (int z = r.lo[2]; z <= r.hi[2]; ++z)
		for (int y = r.lo[1]; y <= r.hi[1]; ++y)
			for (int x = r.lo[0]; x <= r.hi[0]; ++x) {
				const int here[3] = {x, y, z};
				if (!push_extra(w, g, here, id, &g->extra_head[cell_hash(x, y, z) & mask]))
					return false;
			}
	return true;
}

void pbd_grid_trim(pbd_world *w, pbd_grid *g)
{
	// Entries: sized by the most entries of a build since the last trim.
	pbd_trim_array(w, (void **)&g->items, &g->item_capacity, g->item_peak, g->item_count, sizeof *g->items);
	pbd_trim_array(w, (void **)&g->extra, &g->extra_capacity, g->extra_peak, g->extra_count, sizeof *g->extra);
	g->extra_peak = g->extra_count;
	// Buckets: a power of two; cut to twice the most used when four times that was allocated.
	int buckets = 2 * maxi(g->bucket_peak, 64);
	if (g->bucket_capacity >= 2 * buckets &&
	    (size_t)(g->bucket_capacity - buckets) * sizeof *g->bucket_start > PBD_TRIM_MIN_BYTES) {
		int *fresh = pbd_alloc_array(w, (size_t)buckets + 1, sizeof *fresh);
		if (fresh) {
			memcpy(fresh, g->bucket_start, ((size_t)g->bucket_count + 1) * sizeof *fresh);
			pbd_free_array(w, g->bucket_start, (size_t)g->bucket_capacity + 1, sizeof *g->bucket_start);
			g->bucket_start = fresh;
			g->bucket_capacity = buckets;
			w->trims++;
		}
	}
	g->item_peak = g->item_count;
	g->bucket_peak = g->bucket_count;
}

// The cell holding the low corner of the overlap of two overlapping boxes: the one cell from
// which their pair is reported.
static inline bool is_reporting_cell(pbd_aabb a, pbd_aabb b, const int cell[3], float inv)
{
	return cell_of(maxf(a.lo.x, b.lo.x), inv) == cell[0] && cell_of(maxf(a.lo.y, b.lo.y), inv) == cell[1] &&
	       cell_of(maxf(a.lo.z, b.lo.z), inv) == cell[2];
}

// Whether an entry of primitive id of the given version is current (entries of a primitive
// that was added again since are passed over).
static inline bool current(const pbd_grid *g, uint32_t id, uint32_t version)
{
	return !g->versions || g->versions[id] == version;
}

void pbd_grid_query(const pbd_grid *g, pbd_aabb box, int64_t skip_through, void (*visit)(uint32_t id, void *user),
		    void *user)
{
	if (g->primitive_count == 0)
		return;
	float inv = 1.0f / g->cell;
	cell_range r = range_of(box, inv);
	if (r.cells > PBD_MAX_CELLS_PER_BOX || r.cells <= 0) {
		// A huge query box: test every primitive's box directly, once.
		for (int id = (int)maxi(0, (int)(skip_through + 1)); id < g->primitive_count; ++id)
			if (pbd_aabb_overlap(g->boxes[id], box))
				visit((uint32_t)id, user);
		return;
	}
	// Oversized boxes are in no cell: each is tested once, directly.
	for (int k = 0; k < g->oversized_count; ++k) {
		uint32_t id = g->oversized[k];
		if ((int64_t)id > skip_through && current(g, id, 0) && pbd_aabb_overlap(g->boxes[id], box))
			visit(id, user);
	}
	for (int e = g->extra_oversized; e >= 0; e = g->extra[e].next) {
		uint32_t id = g->extra[e].id;
		if ((int64_t)id > skip_through && current(g, id, g->extra[e].version) && pbd_aabb_overlap(g->boxes[id], box))
			visit(id, user);
	}
	uint32_t mask = (uint32_t)g->bucket_count - 1;
	for (int z = r.lo[2]; z <= r.hi[2]; ++z)
		for (int y = r.lo[1]; y <= r.hi[1]; ++y)
			for (int x = r.lo[0]; x <= r.hi[0]; ++x) {
				uint32_t b = cell_hash(x, y, z) & mask;
				const int here[3] = {x, y, z};
				// A bucket's entries are in id order (the build places them so): from its end
				// down, the ids at or below skip_through end the scan.
				const pbd_grid_item *first = g->items + g->bucket_start[b];
				for (const pbd_grid_item *it = g->items + g->bucket_start[b + 1]; g->items && it-- > first;) {
					if ((int64_t)it->id <= skip_through)
						break;
					// Entries of other cells share the bucket when their hashes collide.
					if (it->cell[0] != x || it->cell[1] != y || it->cell[2] != z || !current(g, it->id, 0))
						continue;
					pbd_aabb other = g->boxes[it->id];
					if (pbd_aabb_overlap(other, box) && is_reporting_cell(other, box, here, inv))
						visit(it->id, user);
				}
				if (!g->versions)
					continue;
				for (int e = g->extra_head[b]; e >= 0; e = g->extra[e].next) {
					const pbd_grid_extra *it = &g->extra[e];
					if ((int64_t)it->id <= skip_through || it->cell[0] != x || it->cell[1] != y ||
					    it->cell[2] != z || !current(g, it->id, it->version))
						continue;
					pbd_aabb other = g->boxes[it->id];
					if (pbd_aabb_overlap(other, box) && is_reporting_cell(other, box, here, inv))
						visit(it->id, user);
				}
			}
}

void pbd_grid_free(pbd_world *w, pbd_grid *g)
{
	pbd_free_array(w, g->bucket_start, (size_t)g->bucket_capacity + (g->bucket_capacity ? 1 : 0),
		       sizeof *g->bucket_start);
	pbd_free_array(w, g->items, (size_t)g->item_capacity, sizeof *g->items);
	pbd_free_array(w, g->oversized, (size_t)g->oversized_capacity, sizeof *g->oversized);
	pbd_free_array(w, g->extra, (size_t)g->extra_capacity, sizeof *g->extra);
	pbd_free_array(w, g->extra_head, (size_t)g->extra_head_capacity, sizeof *g->extra_head);
	*g = (pbd_grid){0};
}
