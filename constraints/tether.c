// SPDX-License-Identifier: MIT
// Long-range attachments: each free particle is tethered to its nearest pinned particle.
#include "../engine/world.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct heap_item {
	float dist;
	uint32_t vertex;
} heap_item;

static void heap_push(heap_item *h, int *n, heap_item it)
{
	int i = (*n)++;
	while (i > 0) {
		int parent = (i - 1) / 2;
		if (h[parent].dist <= it.dist)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = it;
}

static heap_item heap_pop(heap_item *h, int *n)
{
	heap_item top = h[0], last = h[--(*n)];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].dist < h[c].dist)
			c++;
		if (last.dist <= h[c].dist)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

#define PBD_TETHERS_PER_PARTICLE 4

static uint32_t find_root(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

typedef struct tether_work {
	int n;
	int *offset;          // adjacency in compressed rows
	uint32_t *adjacent;
	uint32_t *cluster;    // pinned particle -> cluster root (UINT32_MAX for free ones)
	float *dist;
	uint32_t *anchor;
	heap_item *heap;
	float *best_dist;     // PBD_TETHERS_PER_PARTICLE per particle, ascending
	uint32_t *best_anchor;
} tether_work;

// Geodesic distances along mesh edges from every pin of one cluster (Dijkstra from all of
// them at once). A path along edges is never shorter than the true geodesic, so a tether
// never binds a cloth that is not stretched.
static void distances_from_cluster(tether_work *t, const pbd_v3 *rest, uint32_t root, bool flat)
{
	int hn = 0;
	for (int i = 0; i < t->n; ++i) {
		t->dist[i] = INFINITY;
		t->anchor[i] = UINT32_MAX;
		if (t->cluster[i] == root) {
			t->dist[i] = 0.0f;
			t->anchor[i] = (uint32_t)i;
			heap_push(t->heap, &hn, (heap_item){0.0f, (uint32_t)i});
		}
	}
	while (hn > 0) {
		heap_item it = heap_pop(t->heap, &hn);
		if (it.dist > t->dist[it.vertex])
			continue;
		for (int k = t->offset[it.vertex]; k < t->offset[it.vertex + 1]; ++k) {
			uint32_t nb = t->adjacent[k];
			float d = it.dist + v3_len(v3_sub(rest[nb], rest[it.vertex]));
			if (d < t->dist[nb]) {
				t->dist[nb] = d;
				t->anchor[nb] = t->anchor[it.vertex];
				heap_push(t->heap, &hn, (heap_item){d, nb});
			}
		}
	}
	// On a flat sheet the straight line is the geodesic. Paths along edges zig-zag and
	// overestimate it by up to a third of an edge, unevenly between neighbours, which would
	// let the tethers pull neighbours apart; the straight distance has no such error.
	if (flat)
		for (int i = 0; i < t->n; ++i)
			if (t->anchor[i] != UINT32_MAX)
				t->dist[i] = v3_len(v3_sub(rest[i], rest[t->anchor[i]]));
}

// True when every rest position lies in one plane (to 1e-5 of the mesh's size).
static bool is_flat(const pbd_v3 *rest, int n, int edge_count, const uint32_t *edges)
{
	pbd_v3 lo = rest[0], hi = rest[0];
	for (int i = 1; i < n; ++i) {
		lo = v3(fminf(lo.x, rest[i].x), fminf(lo.y, rest[i].y), fminf(lo.z, rest[i].z));
		hi = v3(fmaxf(hi.x, rest[i].x), fmaxf(hi.y, rest[i].y), fmaxf(hi.z, rest[i].z));
	}
	float size = v3_len(v3_sub(hi, lo));
	// The normal: the first edge crossed with the edge most across it. Whatever order the
	// edges come in (mesh order at creation, color order when the tethers are rebuilt), a
	// flat sheet has edges across its first one.
	pbd_v3 normal = v3(0, 0, 0), first = v3(0, 0, 0);
	for (int e = 0; e < edge_count && !(v3_len2(first) > 0.0f); ++e)
		first = v3_sub(rest[edges[2 * e + 1]], rest[edges[2 * e]]);
	for (int e = 0; e < edge_count; ++e) {
		pbd_v3 c = v3_cross(first, v3_sub(rest[edges[2 * e + 1]], rest[edges[2 * e]]));
		if (v3_len2(c) > v3_len2(normal))
			normal = c;
	}
	if (!(v3_len2(normal) > 0.0f))
		return false;
	normal = v3_scale(normal, 1.0f / v3_len(normal));
	float d0 = v3_dot(normal, rest[0]);
	for (int i = 1; i < n; ++i)
		if (fabsf(v3_dot(normal, rest[i]) - d0) > 1e-5f * size)
			return false;
	return true;
}

// Keeps, for each particle, the nearest pin of each of its few nearest clusters.
static void keep_nearest(tether_work *t)
{
	for (int i = 0; i < t->n; ++i) {
		if (t->cluster[i] != UINT32_MAX || t->anchor[i] == UINT32_MAX)
			continue;
		float *bd = t->best_dist + PBD_TETHERS_PER_PARTICLE * i;
		uint32_t *ba = t->best_anchor + PBD_TETHERS_PER_PARTICLE * i;
		int k = PBD_TETHERS_PER_PARTICLE - 1;
		if (!(t->dist[i] < bd[k]))
			continue;
		while (k > 0 && bd[k - 1] > t->dist[i]) {
			bd[k] = bd[k - 1];
			ba[k] = ba[k - 1];
			k--;
		}
		bd[k] = t->dist[i];
		ba[k] = t->anchor[i];
	}
}

// Tethers each free particle to the nearest pin of each of its nearest pin clusters (pins
// joined by an edge form one cluster). One tether to the single nearest pin is not enough:
// between two pinned corners the particles on either side of the watershed are pulled apart
// towards different corners and the edges between them take all the stretch.
bool pbd_tethers_build(pbd_world *world, pbd_tethers *out, int n, const float *inv_mass, int edge_count,
		       const uint32_t *edges, const pbd_v3 *rest)
{
	*out = (pbd_tethers){0};
	int pinned = 0;
	for (int i = 0; i < n; ++i)
		pinned += inv_mass[i] == 0.0f;
	if (pinned == 0 || pinned == n)
		return true;
	size_t ne2 = (size_t)edge_count * 2, nk = (size_t)n * PBD_TETHERS_PER_PARTICLE;
	tether_work t = {.n = n};
	t.offset = pbd_alloc_array(world, (size_t)n + 1, sizeof *t.offset);
	t.adjacent = pbd_alloc_array(world, ne2, sizeof *t.adjacent);
	t.cluster = pbd_alloc_array(world, (size_t)n, sizeof *t.cluster);
	t.dist = pbd_alloc_array(world, (size_t)n, sizeof *t.dist);
	t.anchor = pbd_alloc_array(world, (size_t)n, sizeof *t.anchor);
	t.heap = pbd_alloc_array(world, ne2 + (size_t)n, sizeof *t.heap);
	t.best_dist = pbd_alloc_array(world, nk, sizeof *t.best_dist);
	t.best_anchor = pbd_alloc_array(world, nk, sizeof *t.best_anchor);
	bool ok = t.offset && t.adjacent && t.cluster && t.dist && t.anchor && t.heap && t.best_dist && t.best_anchor;
	if (ok) {
		for (int e = 0; e < edge_count; ++e) {
			t.offset[edges[2 * e] + 1]++;
			t.offset[edges[2 * e + 1] + 1]++;
		}
		for (int i = 0; i < n; ++i)
			t.offset[i + 1] += t.offset[i];
		uint32_t *cursor = t.anchor;  // borrowed; distances_from_cluster resets it
		for (int i = 0; i < n; ++i)
			cursor[i] = (uint32_t)t.offset[i];
		for (int e = 0; e < edge_count; ++e) {
			uint32_t a = edges[2 * e], b = edges[2 * e + 1];
			t.adjacent[cursor[a]++] = b;
			t.adjacent[cursor[b]++] = a;
		}
		// Clusters of pins: union-find over edges with both ends pinned.
		for (int i = 0; i < n; ++i)
			t.cluster[i] = (uint32_t)i;
		for (int e = 0; e < edge_count; ++e) {
			uint32_t a = edges[2 * e], b = edges[2 * e + 1];
			if (inv_mass[a] == 0.0f && inv_mass[b] == 0.0f) {
				uint32_t ra = find_root(t.cluster, a), rb = find_root(t.cluster, b);
				t.cluster[ra < rb ? rb : ra] = ra < rb ? ra : rb;
			}
		}
		for (int i = 0; i < n; ++i)
			t.cluster[i] = inv_mass[i] == 0.0f ? find_root(t.cluster, (uint32_t)i) : UINT32_MAX;
		for (size_t k = 0; k < nk; ++k) {
			t.best_dist[k] = INFINITY;
			t.best_anchor[k] = UINT32_MAX;
		}
		bool flat = is_flat(rest, n, edge_count, edges);
		for (int i = 0; i < n; ++i) {
			if (t.cluster[i] != (uint32_t)i)
				continue;  // not a cluster root
			distances_from_cluster(&t, rest, (uint32_t)i, flat);
			keep_nearest(&t);
		}
		// Slots up to the most tethers any particle has; the kept ones are nearest first.
		int count = 0, slots = 0;
		for (int i = 0; i < n; ++i) {
			int have = 0;
			while (have < PBD_TETHERS_PER_PARTICLE &&
			       t.best_anchor[(size_t)i * PBD_TETHERS_PER_PARTICLE + (size_t)have] != UINT32_MAX)
				have++;
			count += have;
			slots = maxi(slots, have);
		}
		size_t ns = (size_t)n * (size_t)slots;
		out->anchor = ns ? pbd_alloc_array(world, ns, sizeof *out->anchor) : NULL;
		out->rest = ns ? pbd_alloc_array(world, ns, sizeof *out->rest) : NULL;
		ok = ns == 0 || (out->anchor && out->rest);
		if (ok) {
			*out = (pbd_tethers){count, n, slots, out->anchor, out->rest};
			for (size_t i = 0; i < (size_t)n; ++i)
				for (size_t j = 0; j < (size_t)slots; ++j) {
					out->anchor[i * slots + j] = t.best_anchor[i * PBD_TETHERS_PER_PARTICLE + j];
					out->rest[i * slots + j] = t.best_dist[i * PBD_TETHERS_PER_PARTICLE + j];
				}
		} else {
			pbd_free_array(world, out->anchor, ns, sizeof *out->anchor);
			pbd_free_array(world, out->rest, ns, sizeof *out->rest);
			*out = (pbd_tethers){0};
		}
	}
	pbd_free_array(world, t.offset, (size_t)n + 1, sizeof *t.offset);
	pbd_free_array(world, t.adjacent, ne2, sizeof *t.adjacent);
	pbd_free_array(world, t.cluster, (size_t)n, sizeof *t.cluster);
	pbd_free_array(world, t.dist, (size_t)n, sizeof *t.dist);
	pbd_free_array(world, t.anchor, (size_t)n, sizeof *t.anchor);
	pbd_free_array(world, t.heap, ne2 + (size_t)n, sizeof *t.heap);
	pbd_free_array(world, t.best_dist, nk, sizeof *t.best_dist);
	pbd_free_array(world, t.best_anchor, nk, sizeof *t.best_anchor);
	return ok;
}

// The tethers of a cloth from what holds it now: pinned vertices (at creation, by
// pbd_cloth_pin_vertex, by exact attachments) and vertices on an attachment's spring. The
// mesh edges are the stretch constraints; the rest shape is the world's. On failure (out of
// memory) the old tethers stay.
bool pbd_tethers_rebuild(pbd_world *w, pbd_body *c, const uint8_t *held)
{
	int n = c->count, edges = 0;
	for (int k = 0; k < c->distance.count; ++k)
		edges += c->distance.kind[k] == PBD_DISTANCE_STRETCH;
	float *hold_mass = pbd_alloc_array(w, (size_t)n, sizeof *hold_mass);
	uint32_t *edge = pbd_alloc_array(w, 2 * (size_t)edges, sizeof *edge);
	bool ok = hold_mass && (edge || edges == 0);
	if (ok) {
		for (int i = 0; i < n; ++i)
			hold_mass[i] = held[i] || w->particles.pinned[c->first + i] ? 0.0f : 1.0f;
		int e = 0;
		for (int k = 0; k < c->distance.count; ++k)
			if (c->distance.kind[k] == PBD_DISTANCE_STRETCH) {
				edge[2 * e] = c->distance.ij[2 * k];
				edge[2 * e + 1] = c->distance.ij[2 * k + 1];
				e++;
			}
		pbd_tethers fresh;
		ok = pbd_tethers_build(w, &fresh, n, hold_mass, edges, edge, w->particles.rest + c->first);
		if (ok) {
			pbd_tethers_free(w, &c->tethers);
			c->tethers = fresh;
		}
	}
	pbd_free_array(w, hold_mass, (size_t)n, sizeof *hold_mass);
	pbd_free_array(w, edge, 2 * (size_t)edges, sizeof *edge);
	return ok;
}

void pbd_tethers_free(pbd_world *world, pbd_tethers *t)
{
	size_t n = (size_t)t->particles * (size_t)t->slots;
	pbd_free_array(world, t->anchor, n, sizeof *t->anchor);
	pbd_free_array(world, t->rest, n, sizeof *t->rest);
	*t = (pbd_tethers){0};
}

void pbd_tethers_solve(pbd_v4 *p, const pbd_tethers *t, float slack, float strain_per_length)
{
	pbd_tethers_solve_range(p, t, 0, t->particles, slack, strain_per_length);
}

// One tether: particle i no further from its anchor than the tether's limit.
static inline void solve_one(pbd_v4 *p, const pbd_tethers *t, int i, int slot, float slack, float strain_per_length)
{
	size_t k = (size_t)i * (size_t)t->slots + (size_t)slot;
	pbd_v4 *a = &p[i];
	// The anchors are what held the cloth when the tethers were built (rebuilt whenever
	// that changes); a particle pinned since then is not pulled.
	if (t->anchor[k] == UINT32_MAX || a->w == 0.0f)
		return;
	const pbd_v4 *anchor = &p[t->anchor[k]];
	pbd_v3 d = v3_sub(v3_of4(*a), v3_of4(*anchor));
	// A soft material stretches under its own weight; the tether leaves it that room.
	float rest = t->rest[k];
	float limit = rest * (1.0f + slack + strain_per_length * rest);
	// Below limit^2 (less the rounding of that square) the rounded square root cannot
	// exceed the limit: a slack tether needs no square root.
	float len2 = v3_dot(d, d);
	if (len2 < limit * limit * 0.9999995f)
		return;
	float len = sqrtf(len2);
	if (len > limit)
		v4_set3(a, v3_mad(v3_of4(*anchor), d, limit / len));
}

#if defined(__SSE2__)
// Particles i .. i + 3 at once, slot by slot: solve_one's operations on four lanes, each
// correctly rounded, so the lanes come out as one at a time would leave them. A particle
// moves only itself and reads only its anchors (pinned), so the four do not meet.
static void solve_four(pbd_v4 *p, const pbd_tethers *t, int i, float slack, float strain_per_length)
{
	__m128 x = _mm_loadu_ps(&p[i].x), y = _mm_loadu_ps(&p[i + 1].x);
	__m128 z = _mm_loadu_ps(&p[i + 2].x), w = _mm_loadu_ps(&p[i + 3].x);
	_MM_TRANSPOSE4_PS(x, y, z, w);
	const __m128 one_plus_slack = _mm_set1_ps(1.0f + slack), per_length = _mm_set1_ps(strain_per_length);
	const __m128 free_particle = _mm_cmpneq_ps(w, _mm_setzero_ps());
	int moved = 0;
	for (int slot = 0; slot < t->slots; ++slot) {
		const uint32_t *anchor = t->anchor + (size_t)i * (size_t)t->slots + (size_t)slot;
		const float *rest = t->rest + (size_t)i * (size_t)t->slots + (size_t)slot;
		int stride = t->slots, filled = 0;
		uint32_t at[4];
		for (int j = 0; j < 4; ++j) {
			bool has = anchor[j * stride] != UINT32_MAX;
			at[j] = has ? anchor[j * stride] : (uint32_t)(i + j);  // an empty slot reads its own particle
			filled |= has << j;
		}
		if (filled == 0)
			continue;
		__m128 ax = _mm_loadu_ps(&p[at[0]].x), ay = _mm_loadu_ps(&p[at[1]].x);
		__m128 az = _mm_loadu_ps(&p[at[2]].x), aw = _mm_loadu_ps(&p[at[3]].x);
		_MM_TRANSPOSE4_PS(ax, ay, az, aw);
		__m128 dx = _mm_sub_ps(x, ax), dy = _mm_sub_ps(y, ay), dz = _mm_sub_ps(z, az);
		__m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
		__m128 r = _mm_setr_ps(rest[0], rest[stride], rest[2 * stride], rest[3 * stride]);
		__m128 limit = _mm_mul_ps(r, _mm_add_ps(one_plus_slack, _mm_mul_ps(per_length, r)));
		__m128 taut = _mm_cmpnlt_ps(len2, _mm_mul_ps(_mm_mul_ps(limit, limit), _mm_set1_ps(0.9999995f)));
		int lanes = _mm_movemask_ps(_mm_and_ps(taut, free_particle)) & filled;
		if (lanes == 0)
			continue;  // all slack: no square root
		__m128 len = _mm_sqrt_ps(len2);
		int pull = lanes & _mm_movemask_ps(_mm_cmpgt_ps(len, limit));
		if (pull == 0)
			continue;
		__m128 s = _mm_div_ps(limit, len);
		__m128 nx = _mm_add_ps(ax, _mm_mul_ps(dx, s)), ny = _mm_add_ps(ay, _mm_mul_ps(dy, s));
		__m128 nz = _mm_add_ps(az, _mm_mul_ps(dz, s));
		const __m128 mask = _mm_castsi128_ps(_mm_setr_epi32(pull & 1 ? -1 : 0, pull & 2 ? -1 : 0,
								      pull & 4 ? -1 : 0, pull & 8 ? -1 : 0));
		x = _mm_or_ps(_mm_and_ps(mask, nx), _mm_andnot_ps(mask, x));
		y = _mm_or_ps(_mm_and_ps(mask, ny), _mm_andnot_ps(mask, y));
		z = _mm_or_ps(_mm_and_ps(mask, nz), _mm_andnot_ps(mask, z));
		moved |= pull;
	}
	if (moved == 0)
		return;
	_MM_TRANSPOSE4_PS(x, y, z, w);
	const __m128 row[4] = {x, y, z, w};
	for (int j = 0; j < 4; ++j)
		if (moved & (1 << j))
			_mm_storeu_ps(&p[i + j].x, row[j]);
}
#endif

// Each particle's tethers act one after the other on it, nearest first; particles are
// independent (their anchors are pinned), so any split of them gives the same result.
void pbd_tethers_solve_range(pbd_v4 *p, const pbd_tethers *t, int start, int end, float slack,
			     float strain_per_length)
{
	if (slack < 0.0f || t->slots == 0)
		return;
#if defined(__SSE2__)
	for (; start + 4 <= end; start += 4)
		solve_four(p, t, start, slack, strain_per_length);
#endif
	for (; start < end; ++start)
		for (int slot = 0; slot < t->slots; ++slot)
			solve_one(p, t, start, slot, slack, strain_per_length);
}

// ---- The kind's interface (constraints.h)

// From the pins the cloth is created with; pbd_tethers_rebuild follows later holds.
static bool build_from_mesh(pbd_world *w, pbd_body *cloth, const pbd_cloth_mesh *m)
{
	return pbd_tethers_build(w, &cloth->tethers, m->vertex_count, m->inv_mass, m->edge_count, m->edges, m->rest);
}

static void free_cloth(pbd_world *w, pbd_body *cloth) { pbd_tethers_free(w, &cloth->tethers); }
static int count(const pbd_body *cloth) { return cloth->tethers.count; }
static int items(const pbd_body *cloth) { return cloth->tethers.particles; }

// Tethers need no colors: a tether moves only its own particle, and a range takes each
// particle's tethers whole (pbd_tethers_solve_range), so any split gives the same result.
static pbd_color_layout colors(const pbd_body *cloth)
{
	PBD_UNUSED(cloth);
	return (pbd_color_layout){0};
}

static void solve_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const pbd_constraint_job *job = context;
	const pbd_body *c = job->cloth;
	float weight = c->areal_density * v3_len(v3_load(job->gravity));
	pbd_tethers_solve_range(job->p, &c->tethers, start, end, c->material.tether_slack,
				c->material.stretch_compliance * weight);
}

const pbd_constraint_kind pbd_kind_tether = {build_from_mesh, free_cloth, count, items, colors, solve_range};
