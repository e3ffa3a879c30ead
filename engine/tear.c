// SPDX-License-Identifier: MIT
// Tearing and cutting: a cloth comes apart by splitting vertices (Mueller et al. 2007,
// "Position based dynamics", section 4.4): the triangles around a vertex on one side of a
// plane through it move to a new vertex, so the edges between the two sides open. An edge
// stretched past the tear strain splits one of its ends with the plane across the edge, so
// the hole opens across the pull, as cracks do; a cut splits every vertex near its blade with
// the blade's plane.
//
// The pieces stay one cloth. A split is made on a copy of the cloth's mesh (a batch); at the
// end the cloth's constraints, edges and buffers are built again from it (pbd_cloth_rebuild)
// and only then does the world change, so out of memory nothing tears. The world's contact
// lists name particles by index and are found again.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tear.h"
#include "world.h"

// How far apart the two copies of a split vertex start, as a share of its shortest edge, in
// the posed and in the rest shape: far enough to be two places for the contacts (the lips of
// a tear keep a distance from each other, so they never pass through each other), little next
// to any stretch.
#define SPLIT_GAP 0.02f
// A split whose copies would cross something tries again with a quarter of the gap, this many
// times, and is then left for a later step.
#define SPLIT_TRIES 3
// Splits one step may make in one cloth: a bound on a tearing step's cost. A tear that wants
// more goes on in the next steps.
#define SPLITS_PER_STEP_MIN 32
#define SPLITS_PER_STEP_SHARE 64  // plus one per this many vertices
// A vertex with more triangles around it than this does not split (a grid vertex has 4 or 8).
#define FAN_MAX 64

typedef struct tear_batch {
	pbd_world *w;
	pbd_body *c;
	int old_count, count, capacity;
	pbd_v3 *pos;       // capacity: positions (x and p agree between steps)
	pbd_v3 *rest;      // capacity
	float *mass;       // capacity: free masses
	uint32_t *source;  // capacity: the vertex of the cloth each was copied from
	uint32_t *tri;     // the triangles, their corners changing as vertices split
	int8_t *tri_side;  // per triangle: its side while its vertex is being split, else -1
	uint8_t *split;    // old_count: split in this batch (a vertex splits once per batch)
	int splits, deferred;
	float gap;         // the least rest gap of this batch's splits (the cloth's tear_gap)
} tear_batch;

static void batch_free(tear_batch *b)
{
	pbd_world *w = b->w;
	size_t cap = (size_t)b->capacity, nt = (size_t)b->c->triangle_count;
	pbd_free_array(w, b->pos, cap, sizeof *b->pos);
	pbd_free_array(w, b->rest, cap, sizeof *b->rest);
	pbd_free_array(w, b->mass, cap, sizeof *b->mass);
	pbd_free_array(w, b->source, cap, sizeof *b->source);
	pbd_free_array(w, b->tri, nt * 3, sizeof *b->tri);
	pbd_free_array(w, b->tri_side, nt, sizeof *b->tri_side);
	pbd_free_array(w, b->split, (size_t)b->old_count, sizeof *b->split);
	memset(b, 0, sizeof *b);
}

// A copy of cloth c's mesh with room for `splits` new vertices; false when out of memory.
static bool batch_begin(tear_batch *b, pbd_world *w, pbd_body *c, int splits)
{
	memset(b, 0, sizeof *b);
	b->w = w;
	b->c = c;
	b->old_count = b->count = c->count;
	b->capacity = c->count + splits;
	size_t cap = (size_t)b->capacity, nt = (size_t)c->triangle_count;
	b->pos = pbd_alloc_array(w, cap, sizeof *b->pos);
	b->rest = pbd_alloc_array(w, cap, sizeof *b->rest);
	b->mass = pbd_alloc_array(w, cap, sizeof *b->mass);
	b->source = pbd_alloc_array(w, cap, sizeof *b->source);
	b->tri = pbd_alloc_array(w, nt * 3, sizeof *b->tri);
	b->tri_side = pbd_alloc_array(w, nt, sizeof *b->tri_side);
	b->split = pbd_alloc_array(w, (size_t)c->count, sizeof *b->split);
	if (!b->pos || !b->rest || !b->mass || !b->source || !b->tri || !b->tri_side || !b->split) {
		batch_free(b);
		return false;
	}
	for (int i = 0; i < c->count; ++i) {
		int k = c->first + i;
		b->pos[i] = v3_of4(w->particles.x[k]);
		b->rest[i] = w->particles.rest[k];
		b->mass[i] = 1.0f / w->particles.inv_mass_free[k];
		b->source[i] = (uint32_t)i;
		b->split[i] = 0;
	}
	memcpy(b->tri, c->triangles, nt * 3 * sizeof *b->tri);
	memset(b->tri_side, -1, nt);
	b->gap = c->tear_gap > 0.0f ? c->tear_gap : INFINITY;
	return true;
}

// ---- Whether a split's copies would cross anything

#define COPY_ID UINT32_MAX

typedef struct corner_set {
	pbd_d3 p[3];
	uint32_t id[3];  // world particle index; COPY_ID for the copy not yet made
} corner_set;

// Segment p-q against triangle a-b-c, touching counted as crossing (Moller-Trumbore).
static bool segment_meets_triangle(pbd_d3 p, pbd_d3 q, pbd_d3 a, pbd_d3 b, pbd_d3 c)
{
	pbd_d3 d = d3_sub(q, p), e1 = d3_sub(b, a), e2 = d3_sub(c, a), s = d3_sub(p, a);
	pbd_d3 h = d3_cross(d, e2);
	double det = d3_dot(e1, h);
	if (fabs(det) < 1e-30)
		return false;  // parallel to the plane
	double inv = 1.0 / det, u = d3_dot(s, h) * inv;
	if (u < 0.0 || u > 1.0)
		return false;
	pbd_d3 qv = d3_cross(s, e1);
	double v = d3_dot(d, qv) * inv;
	if (v < 0.0 || u + v > 1.0)
		return false;
	double t = d3_dot(e2, qv) * inv;
	return t >= 0.0 && t <= 1.0;
}

static bool triangles_meet(const corner_set *a, const corner_set *b)
{
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			if (a->id[i] == b->id[j])
				return false;  // neighbours: what they share is no crossing
	for (int k = 0; k < 3; ++k) {
		if (segment_meets_triangle(a->p[k], a->p[(k + 1) % 3], b->p[0], b->p[1], b->p[2]) ||
		    segment_meets_triangle(b->p[k], b->p[(k + 1) % 3], a->p[0], a->p[1], a->p[2]))
			return true;
	}
	return false;
}

typedef struct box_d {
	pbd_d3 lo, hi;
} box_d;

static box_d box_of(const corner_set *t)
{
	box_d b = {t->p[0], t->p[0]};
	for (int k = 1; k < 3; ++k) {
		b.lo = (pbd_d3){fmin(b.lo.x, t->p[k].x), fmin(b.lo.y, t->p[k].y), fmin(b.lo.z, t->p[k].z)};
		b.hi = (pbd_d3){fmax(b.hi.x, t->p[k].x), fmax(b.hi.y, t->p[k].y), fmax(b.hi.z, t->p[k].z)};
	}
	return b;
}

static bool boxes_meet(box_d a, box_d b)
{
	return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
	       b.lo.z <= a.hi.z;
}

// Triangle t of the batch's cloth as it would be with vertex v split: v at `at[side]` and
// named v (side 0) or the copy to come (side 1).
static corner_set batch_triangle(const tear_batch *b, int t, uint32_t v, const pbd_v3 at[2])
{
	corner_set s;
	const uint32_t *f = b->tri + 3 * t;
	int side = b->tri_side[t];
	for (int k = 0; k < 3; ++k) {
		bool moved = f[k] == v && side >= 0;
		pbd_v3 p = moved ? at[side] : b->pos[f[k]];
		s.p[k] = d3_of(p);
		s.id[k] = moved && side == 1 ? COPY_ID : (uint32_t)b->c->first + f[k];
	}
	return s;
}

// Whether the triangles around v (tri_side set for them), with v's copies at `at`, stay clear
// of every triangle of the scene they do not share a vertex with.
static bool fan_clear(const tear_batch *b, uint32_t v, const uint32_t *fan, int fan_count, const pbd_v3 at[2])
{
	const pbd_world *w = b->w;
	corner_set moved[FAN_MAX];
	box_d boxes[FAN_MAX];
	box_d all = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
	for (int k = 0; k < fan_count; ++k) {
		moved[k] = batch_triangle(b, (int)fan[k], v, at);
		boxes[k] = box_of(&moved[k]);
		all.lo = (pbd_d3){fmin(all.lo.x, boxes[k].lo.x), fmin(all.lo.y, boxes[k].lo.y), fmin(all.lo.z, boxes[k].lo.z)};
		all.hi = (pbd_d3){fmax(all.hi.x, boxes[k].hi.x), fmax(all.hi.y, boxes[k].hi.y), fmax(all.hi.z, boxes[k].hi.z)};
	}
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *o = &w->bodies.slots[s];
		if (!o->live || o->kind != PBD_BODY_CLOTH)
			continue;
		for (int t = 0; t < o->triangle_count; ++t) {
			corner_set other;
			if (o == b->c) {
				other = batch_triangle(b, t, v, at);
			} else {
				for (int k = 0; k < 3; ++k) {
					uint32_t id = (uint32_t)o->first + o->triangles[3 * t + k];
					other.p[k] = d3_of(v3_of4(w->particles.x[id]));
					other.id[k] = id;
				}
			}
			box_d ob = box_of(&other);
			if (!boxes_meet(all, ob))
				continue;
			for (int k = 0; k < fan_count; ++k)
				if ((o != b->c || (int)fan[k] != t) && boxes_meet(boxes[k], ob) &&
				    triangles_meet(&moved[k], &other))
					return false;
		}
	}
	return true;
}

// ---- Splitting one vertex

// The triangles around v (the cloth's list, which a batch does not change); false for a
// vertex with more than FAN_MAX, which does not split.
static bool fan_of(const tear_batch *b, uint32_t v, const uint32_t **fan, int *count)
{
	int start = b->c->vertex_triangle_start[v];
	*fan = b->c->vertex_triangles + start;
	*count = b->c->vertex_triangle_start[v + 1] - start;
	return *count <= FAN_MAX;
}

// The shortest edge at v among its triangles, in the posed and in the rest shape.
static void shortest_edges(const tear_batch *b, uint32_t v, const uint32_t *fan, int n, float *posed, float *rest)
{
	*posed = *rest = INFINITY;
	for (int k = 0; k < n; ++k) {
		const uint32_t *f = b->tri + 3 * fan[k];
		for (int j = 0; j < 3; ++j) {
			if (f[j] == v)
				continue;
			*posed = fminf(*posed, v3_len(v3_sub(b->pos[f[j]], b->pos[v])));
			*rest = fminf(*rest, v3_len(v3_sub(b->rest[f[j]], b->rest[v])));
		}
	}
}

// Splits vertex v of the batch: its triangles with side 1 (sides[k] for fan[k]) move to a new
// vertex, moved along +n, the others stay with v, moved along -n. False when nothing split.
static bool split_vertex(tear_batch *b, uint32_t v, const uint8_t *sides, pbd_v3 n)
{
	pbd_world *w = b->w;
	const pbd_body *c = b->c;
	const uint32_t *fan;
	int n_fan;
	if (!fan_of(b, v, &fan, &n_fan))
		return false;
	int moving = 0;
	for (int k = 0; k < n_fan; ++k)
		moving += sides[k];
	if (moving == 0 || moving == n_fan || b->split[v] || b->count >= b->capacity ||
	    w->particles.pinned[c->first + (int)v])
		return false;
	// Rest areas and centres of both sides: the mass divides by area, and the rest shape opens
	// from one side's centre towards the other's.
	double area[2] = {0.0, 0.0};
	pbd_v3 centre[2] = {v3(0, 0, 0), v3(0, 0, 0)};
	for (int k = 0; k < n_fan; ++k) {
		const uint32_t *f = b->tri + 3 * fan[k];
		pbd_v3 r0 = b->rest[f[0]], r1 = b->rest[f[1]], r2 = b->rest[f[2]];
		area[sides[k]] += 0.5 * v3_len(v3_cross(v3_sub(r1, r0), v3_sub(r2, r0)));
		centre[sides[k]] = v3_add(centre[sides[k]], v3_scale(v3_add(v3_add(r0, r1), r2), 1.0f / 3.0f));
	}
	pbd_v3 opening = v3_sub(v3_scale(centre[1], 1.0f / (float)moving), v3_scale(centre[0], 1.0f / (float)(n_fan - moving)));
	float opening_len = v3_len(opening);
	float posed_edge, rest_edge;
	shortest_edges(b, v, fan, n_fan, &posed_edge, &rest_edge);
	if (!(opening_len > 0.0f) || !(posed_edge > 0.0f) || !(rest_edge > 0.0f) || !(area[0] + area[1] > 0.0))
		return false;
	for (int k = 0; k < n_fan; ++k)
		b->tri_side[fan[k]] = (int8_t)sides[k];
	float gap = SPLIT_GAP * posed_edge;
	bool clear = false;
	pbd_v3 at[2];
	for (int attempt = 0; attempt < SPLIT_TRIES && !clear; ++attempt, gap *= 0.25f) {
		at[0] = v3_sub(b->pos[v], v3_scale(n, gap));
		at[1] = v3_add(b->pos[v], v3_scale(n, gap));
		clear = fan_clear(b, v, fan, n_fan, at);
	}
	for (int k = 0; k < n_fan; ++k)
		b->tri_side[fan[k]] = -1;
	if (!clear) {
		b->deferred++;
		return false;
	}
	uint32_t copy = (uint32_t)b->count++;
	b->pos[v] = at[0];
	b->pos[copy] = at[1];
	pbd_v3 shift = v3_scale(opening, SPLIT_GAP * rest_edge / opening_len);
	b->rest[copy] = v3_add(b->rest[v], shift);
	b->rest[v] = v3_sub(b->rest[v], shift);
	b->gap = fminf(b->gap, SPLIT_GAP * rest_edge);
	// The copy's share of the mass, within what a particle may weigh on both sides.
	float m = b->mass[v], share = (float)(area[1] / (area[0] + area[1]));
	float taken = fminf(fmaxf(m * share, fminf(PBD_MIN_MASS, 0.5f * m)), m - fminf(PBD_MIN_MASS, 0.5f * m));
	b->mass[copy] = taken;
	b->mass[v] = m - taken;
	b->source[copy] = v;
	for (int k = 0; k < n_fan; ++k)
		if (sides[k]) {
			uint32_t *f = b->tri + 3 * fan[k];
			for (int j = 0; j < 3; ++j)
				if (f[j] == v)
					f[j] = copy;
		}
	b->split[v] = 1;
	b->splits++;
	return true;
}

// Splits v with the plane through it of normal n.
static bool split_across(tear_batch *b, uint32_t v, pbd_v3 n)
{
	const uint32_t *fan;
	int count;
	uint8_t sides[FAN_MAX];
	if (!fan_of(b, v, &fan, &count))
		return false;
	for (int k = 0; k < count; ++k) {
		const uint32_t *f = b->tri + 3 * fan[k];
		pbd_v3 centre = v3_scale(v3_add(v3_add(b->pos[f[0]], b->pos[f[1]]), b->pos[f[2]]), 1.0f / 3.0f);
		sides[k] = v3_dot(v3_sub(centre, b->pos[v]), n) > 0.0f;
	}
	return split_vertex(b, v, sides, n);
}

// Splits v from the edge to u: the triangles at v that hold the edge move to a new vertex (it
// goes with u, along n, away from the rest of v's triangles). For an edge whose end cannot be
// split across it: all of v's triangles lie on u's side of v (v on a border or a lip).
static bool split_from_edge(tear_batch *b, uint32_t v, uint32_t u, pbd_v3 n)
{
	const uint32_t *fan;
	int count;
	uint8_t sides[FAN_MAX];
	if (!fan_of(b, v, &fan, &count))
		return false;
	for (int k = 0; k < count; ++k) {
		const uint32_t *f = b->tri + 3 * fan[k];
		sides[k] = f[0] == u || f[1] == u || f[2] == u;
	}
	return split_vertex(b, v, sides, n);
}

// ---- Putting a batch into the world

// Builds the cloth again from the batch and moves the world's particles to make room for the
// new vertices. Nothing changes on failure.
static pbd_result batch_commit(tear_batch *b)
{
	pbd_world *w = b->w;
	pbd_body *c = b->c;
	int added = b->count - b->old_count;
	if (added == 0)
		return PBD_OK;
	if (!pbd_reserve_particles(w, added))
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for %d vertices of a tear", added);
	float *inv_mass = pbd_alloc_array(w, (size_t)b->count, sizeof *inv_mass);
	if (!inv_mass)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for a tear");
	for (int i = 0; i < b->count; ++i)
		inv_mass[i] = w->particles.pinned[c->first + (int)b->source[i]] ? 0.0f : 1.0f / b->mass[i];
	pbd_body fresh;
	pbd_result r = pbd_cloth_rebuild(w, c, b->count, b->rest, inv_mass, b->tri, b->source, &fresh);
	pbd_free_array(w, inv_mass, (size_t)b->count, sizeof *inv_mass);
	if (r != PBD_OK)
		return r;
	b->tri = NULL;  // the cloth's now
	int first = c->first, at = first + b->old_count;
	pbd_particles_insert(w, at, added);
	for (int s = 0; s < w->bodies.capacity; ++s)
		if (w->bodies.slots[s].live && &w->bodies.slots[s] != c && w->bodies.slots[s].first >= at)
			w->bodies.slots[s].first += added;
	pbd_particles *ps = &w->particles;
	for (int i = b->old_count; i < b->count; ++i) {
		int k = first + i, from = first + (int)b->source[i];
#define PBD_COPY(arr) ps->arr[k] = ps->arr[from];
		PBD_PARTICLE_ARRAYS(PBD_COPY)
#undef PBD_COPY
	}
	for (int i = 0; i < b->count; ++i) {
		if (i < b->old_count && !b->split[i])
			continue;
		int k = first + i;
		float inv = 1.0f / b->mass[i];
		ps->inv_mass_free[k] = inv;
		ps->x[k] = ps->p[k] = v4_from3(b->pos[i], ps->pinned[k] ? 0.0f : inv);
		ps->rest[k] = b->rest[i];
	}
	pbd_body_release(w, c);
	*c = fresh;
	c->tear_gap = b->gap;
	c->holds_changed = true;  // tethers follow the new edges (a piece torn off has none)
	// The contact lists name particles by index: they are found again.
	pbd_collider_contacts_clear(w);
	pbd_pairs_clear(w);
	pbd_guard_forget_stops(w);
	w->topology.dirty = true;
	pbd_body_refresh_outputs(w, c);
	return PBD_OK;
}

// ---- Tearing in the step

typedef struct strained_edge {
	float strain;
	int constraint;
} strained_edge;

static int compare_strained(const void *a, const void *b)
{
	const strained_edge *x = a, *y = b;
	if (x->strain != y->strain)
		return x->strain > y->strain ? -1 : 1;
	return x->constraint - y->constraint;
}

static int splits_per_step(const pbd_body *c) { return SPLITS_PER_STEP_MIN + c->count / SPLITS_PER_STEP_SHARE; }

// The stretch constraints of c past its tear strain, most strained first; -1 out of memory.
static int strained_edges(pbd_world *w, const pbd_body *c, strained_edge **out, int *capacity)
{
	float tear = c->material.tear_strain;
	const float *share = c->tear_share;
	const pbd_distance_constraints *d = &c->distance;
	const pbd_v4 *x = w->particles.x + c->first;
	int n = 0;
	*out = NULL;
	*capacity = 0;
	for (int k = 0; k < d->count; ++k) {
		if (d->kind[k] != PBD_DISTANCE_STRETCH)
			continue;
		uint32_t i = d->ij[2 * k], j = d->ij[2 * k + 1];
		float limit = 1.0f + (share ? tear * fminf(share[i], share[j]) : tear);
		float len = v3_len(v3_sub(v3_of4(x[i]), v3_of4(x[j])));
		if (!(len > limit * d->rest[k]))
			continue;
		if (n == *capacity) {
			int grown = *capacity ? 2 * *capacity : 64;
			if (!pbd_grow_array(w, (void **)out, (size_t)*capacity, (size_t)grown, sizeof **out))
				return -1;
			*capacity = grown;
		}
		(*out)[n++] = (strained_edge){len / d->rest[k] - 1.0f, k};
	}
	if (n > 1)
		qsort(*out, (size_t)n, sizeof **out, compare_strained);
	return n;
}

static pbd_result tear_cloth(pbd_world *w, pbd_body *c)
{
	strained_edge *edges;
	int capacity, n = strained_edges(w, c, &edges, &capacity);
	if (n < 0)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for the edges of a tear");
	pbd_result r = PBD_OK;
	tear_batch b;
	int budget = n < splits_per_step(c) ? n : splits_per_step(c);
	if (n > 0 && !batch_begin(&b, w, c, budget))
		r = pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for a tear");
	else if (n > 0) {
		const pbd_distance_constraints *d = &c->distance;
		for (int e = 0; e < n; ++e) {
			if (b.count == b.capacity) {
				b.deferred += n - e;
				break;
			}
			uint32_t i = d->ij[2 * edges[e].constraint], j = d->ij[2 * edges[e].constraint + 1];
			if (b.split[i] || b.split[j])
				continue;  // its strain is relieved already or next step
			pbd_v3 along = v3_sub(b.pos[j], b.pos[i]);
			float len = v3_len(along);
			if (!(len > 0.0f))
				continue;
			along = v3_scale(along, 1.0f / len);
			if (!split_across(&b, i, along) && !split_across(&b, j, v3_scale(along, -1.0f)) &&
			    !split_from_edge(&b, i, j, along))
				split_from_edge(&b, j, i, v3_scale(along, -1.0f));
		}
		int splits = b.splits, deferred = b.deferred;
		r = batch_commit(&b);
		w->stats.tear_splits += r == PBD_OK ? splits : 0;
		w->stats.tear_splits_deferred += r == PBD_OK ? deferred : deferred + splits;
		batch_free(&b);
	}
	pbd_free_array(w, edges, (size_t)capacity, sizeof *edges);
	return r;
}

pbd_result pbd_tear_cloths(pbd_world *w)
{
	pbd_result r = PBD_OK;
	w->stats.tear_splits = 0;
	w->stats.tear_splits_deferred = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		pbd_body *c = &w->bodies.slots[s];
		if (c->live && c->kind == PBD_BODY_CLOTH && c->material.tear_strain > 0.0f) {
			pbd_result rc = tear_cloth(w, c);
			if (r == PBD_OK)
				r = rc;
		}
	}
	return r;
}

// ---- Cuts from the game

// The cloth a call names; NULL with the reason in *r (no world, a stale or unknown id).
static pbd_body *named_cloth(const pbd_world *world, pbd_cloth_id id, pbd_result *r)
{
	*r = PBD_ERR_NULL_ARGUMENT;
	return world ? pbd_cloth_find(world, id, r) : NULL;
}

static pbd_result check_plane(pbd_world *w, const float point[3], const float normal[3], pbd_v3 *n)
{
	if (!normal)
		return pbd_fail(w, PBD_ERR_NULL_ARGUMENT, "the normal is NULL");
	if (!pbd_finite_n(normal, 3) || (point && !pbd_finite_n(point, 3)))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "the plane has NaN or infinite coordinates");
	pbd_v3 m = v3_load(normal);
	float len = v3_len(m);
	if (!(len > 0.0f))
		return pbd_fail(w, PBD_ERR_ZERO_NORMAL, "the plane's normal has zero length");
	*n = v3_scale(m, 1.0f / len);
	return PBD_OK;
}

pbd_result pbd_cloth_split_vertex(pbd_world *world, pbd_cloth_id id, int vertex, const float normal[3],
				  int *out_new_vertex)
{
	if (out_new_vertex)
		*out_new_vertex = -1;
	pbd_result r;
	pbd_body *c = named_cloth(world, id, &r);
	if (!c)
		return r;
	if (vertex < 0 || vertex >= c->count)
		return pbd_fail(world, PBD_ERR_INDEX_OUT_OF_RANGE, "vertex %d of %d is out of range", vertex, c->count);
	pbd_v3 n;
	r = check_plane(world, NULL, normal, &n);
	if (r != PBD_OK)
		return r;
	tear_batch b;
	if (!batch_begin(&b, world, c, 1))
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for a split");
	bool split = split_across(&b, (uint32_t)vertex, n);
	r = batch_commit(&b);
	if (r == PBD_OK && split && out_new_vertex)
		*out_new_vertex = c->count - 1;
	batch_free(&b);
	return r;
}

pbd_result pbd_cloth_cut(pbd_world *world, pbd_cloth_id id, const float point[3], const float normal[3], float reach,
			 int *out_splits)
{
	if (out_splits)
		*out_splits = 0;
	pbd_result r;
	pbd_body *c = named_cloth(world, id, &r);
	if (!c)
		return r;
	if (!point)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "the cut's point is NULL");
	pbd_v3 n;
	r = check_plane(world, point, normal, &n);
	if (r != PBD_OK)
		return r;
	if (!isfinite(reach))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "the cut's reach is NaN or infinite");
	if (reach < 0.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "the cut's reach must be >= 0, got %g", (double)reach);
	pbd_v3 o = v3_load(point);
	int near = 0;
	for (int i = 0; i < c->count; ++i)
		near += v3_len(v3_sub(v3_of4(world->particles.x[c->first + i]), o)) <= reach;
	if (near == 0)
		return PBD_OK;
	tear_batch b;
	uint8_t *side = pbd_alloc_array(world, (size_t)c->triangle_count, sizeof *side);
	if (!side || !batch_begin(&b, world, c, near)) {
		pbd_free_array(world, side, (size_t)c->triangle_count, sizeof *side);
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for a cut");
	}
	// Each triangle's side is fixed before any vertex moves, so the cut runs along one path.
	float d0 = v3_dot(n, o);
	for (int t = 0; t < c->triangle_count; ++t) {
		const uint32_t *f = b.tri + 3 * t;
		pbd_v3 centre = v3_scale(v3_add(v3_add(b.pos[f[0]], b.pos[f[1]]), b.pos[f[2]]), 1.0f / 3.0f);
		side[t] = v3_dot(n, centre) > d0;
	}
	for (int v = 0; v < b.old_count; ++v) {
		if (!(v3_len(v3_sub(b.pos[v], o)) <= reach))
			continue;
		const uint32_t *fan;
		int count;
		uint8_t sides[FAN_MAX];
		if (!fan_of(&b, (uint32_t)v, &fan, &count))
			continue;
		for (int k = 0; k < count; ++k)
			sides[k] = side[fan[k]];
		split_vertex(&b, (uint32_t)v, sides, n);
	}
	int splits = b.splits;
	r = batch_commit(&b);
	if (r == PBD_OK && out_splits)
		*out_splits = splits;
	batch_free(&b);
	pbd_free_array(world, side, (size_t)c->triangle_count, sizeof *side);
	return r;
}

pbd_result pbd_cloth_set_tear_weakness(pbd_world *world, pbd_cloth_id id, const float *share, int count)
{
	pbd_result r;
	pbd_body *c = named_cloth(world, id, &r);
	if (!c)
		return r;
	if (!share || count == 0) {
		pbd_free_array(world, c->tear_share, (size_t)c->count, sizeof *c->tear_share);
		c->tear_share = NULL;
		return PBD_OK;
	}
	if (count != c->count)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "the weakness map has %d entries for %d vertices", count, c->count);
	for (int i = 0; i < count; ++i)
		if (!(share[i] > 0.0f && share[i] <= 1.0f))
			return pbd_fail(world, PBD_ERR_OUT_OF_RANGE, "vertex %d's share of the tear strain is %g, not in (0, 1]",
					i, (double)share[i]);
	if (!c->tear_share && !(c->tear_share = pbd_alloc_array(world, (size_t)count, sizeof *c->tear_share)))
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for a weakness map");
	memcpy(c->tear_share, share, (size_t)count * sizeof *share);
	return PBD_OK;
}

// ---- Queries

const uint32_t *pbd_cloth_vertex_origins(const pbd_world *world, pbd_cloth_id id, int *vertex_count)
{
	if (vertex_count)
		*vertex_count = 0;
	pbd_result r;
	pbd_body *c = named_cloth(world, id, &r);
	if (!c)
		return NULL;
	if (vertex_count)
		*vertex_count = c->count;
	return c->origin;
}

static uint32_t find_root(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

pbd_result pbd_cloth_pieces(const pbd_world *world, pbd_cloth_id id, uint32_t *triangle_piece, int capacity,
			    int *out_piece_count)
{
	if (out_piece_count)
		*out_piece_count = 0;
	pbd_result r;
	pbd_body *c = named_cloth(world, id, &r);
	if (!c)
		return r;
	pbd_world *w = (pbd_world *)world;  // the allocator's counters only
	if (triangle_piece && capacity < c->triangle_count)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "%d triangle labels do not fit in %d", c->triangle_count, capacity);
	uint32_t *parent = pbd_alloc_array(w, (size_t)c->count, sizeof *parent);
	uint32_t *label = pbd_alloc_array(w, (size_t)c->count, sizeof *label);
	if (!parent || !label) {
		pbd_free_array(w, parent, (size_t)c->count, sizeof *parent);
		pbd_free_array(w, label, (size_t)c->count, sizeof *label);
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for the pieces");
	}
	for (int i = 0; i < c->count; ++i) {
		parent[i] = (uint32_t)i;
		label[i] = UINT32_MAX;
	}
	for (int t = 0; t < c->triangle_count; ++t) {
		const uint32_t *f = c->triangles + 3 * t;
		for (int k = 1; k < 3; ++k) {
			uint32_t a = find_root(parent, f[0]), b = find_root(parent, f[k]);
			if (a != b)
				parent[a > b ? a : b] = a < b ? a : b;
		}
	}
	uint32_t pieces = 0;
	for (int t = 0; t < c->triangle_count; ++t) {
		uint32_t root = find_root(parent, c->triangles[3 * t]);
		if (label[root] == UINT32_MAX)
			label[root] = pieces++;
		if (triangle_piece)
			triangle_piece[t] = label[root];
	}
	pbd_free_array(w, parent, (size_t)c->count, sizeof *parent);
	pbd_free_array(w, label, (size_t)c->count, sizeof *label);
	if (out_piece_count)
		*out_piece_count = (int)pieces;
	return PBD_OK;
}
