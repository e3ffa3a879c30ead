// SPDX-License-Identifier: MIT
// Contact candidates: vertex-triangle, edge-edge and particle-particle pairs whose regions
// (the space each particle may move through in the next substeps, grown by its radius)
// overlap, found through two spatial hashes, then set up for the solver each substep (which
// side each pair is on, how far apart it stays).
//
// Regions are boxes in a frame that moves with the free particles' mean motion (their mean
// velocity and their mean acceleration over the last step): a cloth that falls, flies or is
// carried as one stays in its regions, and its pairs hold, however fast it goes.
#include "../engine/world.h"

#include <stdlib.h>
#include <string.h>

#ifndef PBD_REGION_SUBSTEPS
#define PBD_REGION_SUBSTEPS 2
#endif

static const pbd_body *body(const pbd_world *w, uint32_t slot) { return &w->bodies.slots[slot]; }

// How far a particle can get from x without leaving its region: x to the farthest corner.
static float reach(const pbd_world *w, uint32_t i)
{
	pbd_aabb r = w->pairs.regions[i];
	const pbd_v4 *x = &pbd_motion_starts(w)[i];
	pbd_v3 far = v3(maxf(r.hi.x - x->x, x->x - r.lo.x), maxf(r.hi.y - x->y, x->y - r.lo.y),
			maxf(r.hi.z - x->z, x->z - r.lo.z));
	return v3_len(far);
}

// A lower bound of the distance between two point sets from their boxes: the widest gap
// along one axis. Cheap; decides most pairs before an exact distance is needed.
static pbd_aabb box_of(const pbd_v3 *p, int n)
{
	pbd_aabb b = {p[0], p[0]};
	for (int i = 1; i < n; ++i) {
		b.lo = v3(minf(b.lo.x, p[i].x), minf(b.lo.y, p[i].y), minf(b.lo.z, p[i].z));
		b.hi = v3(maxf(b.hi.x, p[i].x), maxf(b.hi.y, p[i].y), maxf(b.hi.z, p[i].z));
	}
	return b;
}

static float gap_along_axes(const pbd_v3 *a, int na, const pbd_v3 *b, int nb)
{
	pbd_aabb p = box_of(a, na), q = box_of(b, nb);
	float gx = maxf(q.lo.x - p.hi.x, p.lo.x - q.hi.x);
	float gy = maxf(q.lo.y - p.hi.y, p.lo.y - q.hi.y);
	float gz = maxf(q.lo.z - p.hi.z, p.lo.z - q.hi.z);
	return maxf(0.0f, maxf(gx, maxf(gy, gz)));
}

// A pair's clearance (pbd_pairs_drift) in float, rounded down: the bound must stay a bound.
static float clearance_of(double d)
{
	float c = (float)(d * (1.0 - 1e-6));
	return isfinite(c) ? c : -INFINITY;
}

typedef struct visit_context {
	const pbd_world *w;
	pbd_pair_chunk *chunk;  // where pairs go
	uint32_t query;         // the triangle, edge or particle asking
} visit_context;

// Stores a pair when the chunk has room; counts it either way (see pbd_pair_chunk).
#define CHUNK_PUSH(chunk, list, value)                                  \
	do {                                                            \
		if ((chunk)->list##_count < (chunk)->list##_capacity)   \
			(chunk)->list[(chunk)->list##_count] = (value); \
		(chunk)->list##_count++;                                \
	} while (0)

static double rest_point_triangle(const pbd_world *w, uint32_t q, const uint32_t *t)
{
	double bary[3];
	return sqrt(pbd_point_triangle_distance2(d3_of(w->particles.rest[q]), d3_of(w->particles.rest[t[0]]),
						 d3_of(w->particles.rest[t[1]]), d3_of(w->particles.rest[t[2]]), bary));
}

static void visit_vertex_for_triangle(uint32_t q, void *user)
{
	visit_context *ctx = user;
	const pbd_world *w = ctx->w;
	uint32_t tri = ctx->query;
	const uint32_t *t = w->topology.tri + 3 * tri;
	if (q == t[0] || q == t[1] || q == t[2])
		return;
	uint32_t oq = w->particles.owner[q], ot = w->topology.tri_owner[tri];
	const pbd_body *bq = body(w, oq), *bt = body(w, ot);
	if (oq == ot && !bt->material.self_collision)
		return;
	if (w->particles.p[q].w == 0.0f && w->particles.p[t[0]].w == 0.0f && w->particles.p[t[1]].w == 0.0f &&
	    w->particles.p[t[2]].w == 0.0f)
		return;
	float thickness = w->particles.radius[q] + w->particles.radius[t[0]];
	// Rest-distance exemption: pairs of one cloth that are closer than the thickness in the
	// rest shape are neighbours on a fine mesh; they are skipped (keeping them as contacts
	// made every near neighbour a pair at 128 x 128 and the step twenty times slower).
	if (thickness <= 1e-7f)
		return;
	if (oq == ot) {
		pbd_v3 tri_rest[3] = {w->particles.rest[t[0]], w->particles.rest[t[1]], w->particles.rest[t[2]]};
		if (gap_along_axes(&w->particles.rest[q], 1, tri_rest, 3) < thickness &&
		    rest_point_triangle(w, q, t) < thickness)
			return;
	}
	// Boxes of a flat mesh overlap their neighbours'; the true distance at x, less how far
	// the particles can still move, tells which pairs can really come within the thickness.
	float limit = thickness + reach(w, q) + maxf(reach(w, t[0]), maxf(reach(w, t[1]), reach(w, t[2])));
	const pbd_v4 *x = pbd_motion_starts(w);
	pbd_v3 xq = v3_of4(x[q]), xt[3] = {v3_of4(x[t[0]]), v3_of4(x[t[1]]), v3_of4(x[t[2]])};
	if (gap_along_axes(&xq, 1, xt, 3) > limit)
		return;
	double bary[3];
	double d = sqrt(pbd_point_triangle_distance2(d3_of(xq), d3_of(xt[0]), d3_of(xt[1]), d3_of(xt[2]), bary));
	if ((float)d > limit)
		return;
	// The solver also acts on a vertex a little past the triangle's edges (its barycentric
	// tolerance): a tenth of the longest edge covers it.
	double edge2 = fmax(v3_dot_d(v3_sub(xt[1], xt[0]), v3_sub(xt[1], xt[0])),
			    fmax(v3_dot_d(v3_sub(xt[2], xt[1]), v3_sub(xt[2], xt[1])),
				 v3_dot_d(v3_sub(xt[0], xt[2]), v3_sub(xt[0], xt[2]))));
	pbd_vt_contact pair = {q, tri, thickness, clearance_of(d - 0.1 * sqrt(edge2)), bq->kind == PBD_BODY_PARTICLES};
	CHUNK_PUSH(ctx->chunk, vt, pair);
}

static void visit_edge_for_edge(uint32_t b, void *user)
{
	visit_context *ctx = user;
	const pbd_world *w = ctx->w;
	uint32_t a = ctx->query;
	if (b <= a)
		return;  // each pair once
	const uint32_t *ea = w->topology.edge + 2 * a, *eb = w->topology.edge + 2 * b;
	if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1])
		return;
	uint32_t oa = w->topology.edge_owner[a], ob = w->topology.edge_owner[b];
	const pbd_body *ba = body(w, oa);
	if (oa == ob && !ba->material.self_collision)
		return;
	if (w->particles.p[ea[0]].w == 0.0f && w->particles.p[ea[1]].w == 0.0f && w->particles.p[eb[0]].w == 0.0f &&
	    w->particles.p[eb[1]].w == 0.0f)
		return;
	float thickness = w->particles.radius[ea[0]] + w->particles.radius[eb[0]];
	if (thickness <= 1e-7f)
		return;
	double s, t;
	pbd_v3 ra[2] = {w->particles.rest[ea[0]], w->particles.rest[ea[1]]},
	       rb[2] = {w->particles.rest[eb[0]], w->particles.rest[eb[1]]};
	if (oa == ob && gap_along_axes(ra, 2, rb, 2) < thickness) {
		double rest = sqrt(pbd_segment_segment_distance2(
			d3_of(w->particles.rest[ea[0]]), d3_of(w->particles.rest[ea[1]]),
			d3_of(w->particles.rest[eb[0]]), d3_of(w->particles.rest[eb[1]]), &s, &t));
		if (rest < thickness)
			return;  // rest-distance exemption, as for vertex-triangle pairs
	}
	float limit = thickness + maxf(reach(w, ea[0]), reach(w, ea[1])) + maxf(reach(w, eb[0]), reach(w, eb[1]));
	const pbd_v4 *x = pbd_motion_starts(w);
	pbd_v3 xa[2] = {v3_of4(x[ea[0]]), v3_of4(x[ea[1]])}, xb[2] = {v3_of4(x[eb[0]]), v3_of4(x[eb[1]])};
	if (gap_along_axes(xa, 2, xb, 2) > limit)
		return;
	double d = sqrt(pbd_segment_segment_distance2(d3_of(xa[0]), d3_of(xa[1]), d3_of(xb[0]), d3_of(xb[1]), &s, &t));
	if ((float)d > limit)
		return;
	pbd_ee_contact pair = {a, b, thickness, clearance_of(d)};
	CHUNK_PUSH(ctx->chunk, ee, pair);
}

static void visit_particle_for_particle(uint32_t j, void *user)
{
	visit_context *ctx = user;
	const pbd_world *w = ctx->w;
	uint32_t i = ctx->query;
	if (i == j)
		return;
	const pbd_body *bi = body(w, w->particles.owner[i]), *bj = body(w, w->particles.owner[j]);
	// Free particles against each other (each pair once) and against cloth vertices;
	// vertex against vertex of cloth is left to the triangle and edge contacts.
	if (bj->kind == PBD_BODY_PARTICLES && j < i)
		return;
	if (w->particles.p[i].w == 0.0f && w->particles.p[j].w == 0.0f)
		return;
	const pbd_v4 *x = pbd_motion_starts(w);
	float d = v3_len(v3_sub(v3_of4(x[i]), v3_of4(x[j])));
	if (d > w->particles.radius[i] + w->particles.radius[j] + reach(w, i) + reach(w, j))
		return;
	bool free_i = bi->kind == PBD_BODY_PARTICLES, free_j = bj->kind == PBD_BODY_PARTICLES;
	uint8_t cloth_side = free_i == free_j ? 0 : free_j ? 1 : 2;
	pbd_pp_contact pair = {i, j, w->particles.radius[i] + w->particles.radius[j], cloth_side};
	CHUNK_PUSH(ctx->chunk, pp, pair);
}

// Where the frame has moved tau seconds after the search.
static pbd_v3 frame_offset(const pbd_world *w, float tau)
{
	return v3_add(v3_scale(w->pairs.frame_vel, tau), v3_scale(w->pairs.frame_acc, 0.5f * tau * tau));
}

// Whether particle i is in its region at `at`, tau seconds after the search.
static bool region_holds(const pbd_world *w, uint32_t i, pbd_v3 at, float tau)
{
	pbd_aabb r = w->pairs.regions[i];
	pbd_v3 a = v3_sub(at, frame_offset(w, tau));
	return a.x >= r.lo.x && a.x <= r.hi.x && a.y >= r.lo.y && a.y <= r.hi.y && a.z >= r.lo.z && a.z <= r.hi.z;
}

// How far particle i is from its search position, in the frame's shift_p (at p), and with
// `sweep` also the farthest point of its motion x -> p in the frame's shift_x (at x): the
// distance to a point is convex along a segment, so the ends bound it.
static float drift_of(const pbd_world *w, uint32_t i, pbd_v3 shift_p, bool sweep, pbd_v3 shift_x)
{
	pbd_v3 from = w->pairs.search_at[i];
	float d = pbd_distance_up(v3_sub(v3_of4(w->particles.p[i]), shift_p), from);
	if (sweep)
		d = maxf(d, pbd_distance_up(v3_sub(v3_of4(pbd_motion_starts(w)[i]), shift_x), from));
	return isfinite(d) ? d : INFINITY;
}

typedef struct drift_job {
	pbd_world *w;
	pbd_v3 shift_p, shift_x;
	bool sweep;
} drift_job;

static void drift_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const drift_job *job = context;
	for (int i = start; i < end; ++i)
		job->w->pairs.drift[i] = drift_of(job->w, (uint32_t)i, job->shift_p, job->sweep, job->shift_x);
}

static void drift_all(pbd_world *w, drift_job *job)
{
	if (w->pairs.region_count != w->particles.count || w->pairs.vt_count + w->pairs.ee_count == 0)
		return;  // no pairs of triangles or edges, nothing to decide
	pbd_parallel_for(w, drift_range, w->particles.count, PBD_PARTICLES_PER_RANGE, job);
}

void pbd_pairs_drift(pbd_world *w, float h)
{
	// The positions p, in the frame as it will be at the substep's end.
	w->pairs.drift_shift = frame_offset(w, (float)(w->time - w->pairs.region_time) + h);
	drift_job job = {w, w->pairs.drift_shift, v3(0, 0, 0), false};
	drift_all(w, &job);
}

void pbd_pairs_sweep_drift(pbd_world *w)
{
	// One shift for the whole motion: a particle whose motion the guard shortens stays on
	// its segment, and its drift can only shrink, whatever the others do.
	pbd_v3 shift = frame_offset(w, (float)(w->time - w->pairs.region_time));
	drift_job job = {w, shift, shift, true};
	drift_all(w, &job);
}

// The frame: the free particles' mean velocity over this substep and their mean acceleration
// over the last step.
static void set_frame(pbd_world *w, float h)
{
	const pbd_v4 *x = pbd_motion_starts(w);
	double sum[3] = {0, 0, 0};
	int n = 0;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		sum[0] += w->particles.p[i].x - x[i].x;
		sum[1] += w->particles.p[i].y - x[i].y;
		sum[2] += w->particles.p[i].z - x[i].z;
		n++;
	}
	w->pairs.frame_acc = n ? w->pairs.mean_accel : v3(0, 0, 0);
	double k = n ? 1.0 / ((double)n * h) : 0.0;
	pbd_v3 mean = v3((float)(sum[0] * k), (float)(sum[1] * k), (float)(sum[2] * k));
	// The frame passes through the mean of p at the end of this substep.
	w->pairs.frame_vel = v3_sub(mean, v3_scale(w->pairs.frame_acc, 0.5f * h));
}

// Cell size: the mean size of the edges' boxes (their largest side), but at least a
// particle's diameter. A query then visits about eight cells, each holding about as many
// entries as a box's neighbourhood: smaller cells multiply both the cells a box covers and
// the entries each cell holds.
static float cell_size(const pbd_world *w, const pbd_aabb *ebox, int ne)
{
	double sum = 0.0;
	int n = 0;
	for (int e = 0; e < ne; e += 7, ++n) {
		pbd_v3 d = v3_sub(ebox[e].hi, ebox[e].lo);
		sum += maxf(d.x, maxf(d.y, d.z));
	}
	float mean = n ? (float)(sum / n) : 0.0f;
	return fmaxf(fmaxf(mean, 2.0f * w->topology.max_radius), 1e-4f);
}

// Each particle gets a region its motion should stay inside for the next few substeps: its
// path x -> p this substep, stretched for those substeps (one and a half times the speed,
// plus gravity and a little slack). Pairs are found once for all those substeps; when a particle leaves
// its region (a hit, a drag) the pairs are found again, so the contact and CCD code always
// sees every pair that can come close.
//
// The look ahead past this substep is capped at a few particle radii: a particle that moves
// much faster than the cloth around it (a snap after a drag, a hit) would otherwise get a
// region wide enough to pair with a large part of the cloth, and then probably leave it anyway.
#ifndef PBD_REGION_CAP_RADII
#define PBD_REGION_CAP_RADII 8.0f
#endif
static float lookahead_cap(const pbd_world *w, int i)
{
	return PBD_REGION_CAP_RADII * maxf(w->particles.radius[i], 1e-3f);
}

static void build_regions(pbd_world *w, int substeps_left, float h)
{
	// Looking further ahead saves rebuilds but makes regions, and so the pair lists, larger;
	// two substeps ahead measured best on the contact-heavy scenes.
	int ahead = mini(substeps_left, PBD_REGION_SUBSTEPS);
	float span = (float)ahead * h;
	set_frame(w, h);
	pbd_v3 shift = frame_offset(w, h);
	// Gravity and the frame's own acceleration, the most a particle accelerates in the frame
	// when nothing else acts (at rest in a falling frame, or falling in a still one).
	float fall = 0.5f * (v3_len(v3_load(w->settings.gravity)) + v3_len(w->pairs.frame_acc)) * span * span;
	const pbd_v4 *start = pbd_motion_starts(w);
	for (int i = 0; i < w->particles.count; ++i) {
		pbd_v3 x = v3_of4(start[i]), p = v3_sub(v3_of4(w->particles.p[i]), shift);
		float travel = v3_len(v3_sub(p, x)) * 1.5f * (float)ahead;
		float m = minf(travel + fall, lookahead_cap(w, i)) + 0.25f * w->particles.radius[i] + 1e-5f;
		pbd_aabb r = {v3(minf(x.x, p.x), minf(x.y, p.y), minf(x.z, p.z)), v3(maxf(x.x, p.x), maxf(x.y, p.y), maxf(x.z, p.z))};
		// A start carried by a moving collider (collider_carry.c) is a third point of the path.
		if (w->carry.count > 0 && w->carry.by[i] >= 0) {
			pbd_v3 c = v3_of4(w->carry.to[i]);
			r.lo = v3(minf(r.lo.x, c.x), minf(r.lo.y, c.y), minf(r.lo.z, c.z));
			r.hi = v3(maxf(r.hi.x, c.x), maxf(r.hi.y, c.y), maxf(r.hi.z, c.z));
		}
		w->pairs.regions[i].lo = v3(r.lo.x - m, r.lo.y - m, r.lo.z - m);
		w->pairs.regions[i].hi = v3(r.hi.x + m, r.hi.y + m, r.hi.z + m);
	}
}

static pbd_aabb union_of(const pbd_world *w, const uint32_t *ids, int n, float grow)
{
	pbd_aabb b = w->pairs.regions[ids[0]];
	for (int k = 1; k < n; ++k) {
		pbd_aabb r = w->pairs.regions[ids[k]];
		b.lo = v3(minf(b.lo.x, r.lo.x), minf(b.lo.y, r.lo.y), minf(b.lo.z, r.lo.z));
		b.hi = v3(maxf(b.hi.x, r.hi.x), maxf(b.hi.y, r.hi.y), maxf(b.hi.z, r.hi.z));
	}
	b.lo = v3(b.lo.x - grow, b.lo.y - grow, b.lo.z - grow);
	b.hi = v3(b.hi.x + grow, b.hi.y + grow, b.hi.z + grow);
	return b;
}

bool pbd_pairs_covered(const pbd_world *w, float h)
{
	if (w->topology.dirty)
		return false;
	if (w->pairs.region_count == -1)
		return true;  // nothing to pair (see pbd_pairs_find)
	if (w->pairs.region_count != w->particles.count)
		return false;
	float tau = (float)(w->time - w->pairs.region_time);
	const pbd_v4 *x = pbd_motion_starts(w);
	for (int i = 0; i < w->particles.count; ++i)
		if (!region_holds(w, (uint32_t)i, v3_of4(x[i]), tau) ||
		    !region_holds(w, (uint32_t)i, v3_of4(w->particles.p[i]), tau + h))
			return false;
	return true;
}

// True when no two particles of the world can form a pair: one body that does not collide
// with itself (a hanging flag, a benchmark without self-collision).
static bool nothing_to_pair(const pbd_world *w)
{
	int bodies = 0;
	bool self = false;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		bodies++;
		self |= c->kind == PBD_BODY_PARTICLES || c->material.self_collision;
	}
	return bodies <= 1 && !self;
}

typedef struct search_job {
	pbd_world *w;
	const pbd_aabb *vbox, *tbox, *ebox;
	int nt, ne, np;
	int64_t limit;  // settings.max_candidate_pairs, or INT64_MAX for none
} search_job;

static int64_t chunk_total(const pbd_pair_chunk *c) { return (int64_t)c->vt_count + c->ee_count + c->pp_count; }

// A query's pairs in the order of the other primitive's index, whatever order the grid
// visited them in: results then depend on the pairs alone, not on the grid's cell size.
// Each key appears once in a query's pairs (the grid reports each pair once), so the order
// is total and qsort's is as deterministic as insertion's; insertion is quicker for the short
// lists of most queries.
#define SORT_RANGE(type, list, key)                                                 \
	static int compare_##list(const void *a, const void *b)                     \
	{                                                                          \
		uint32_t ka = ((const type *)a)->key, kb = ((const type *)b)->key; \
		return (ka > kb) - (ka < kb);                                      \
	}                                                                          \
	static void sort_##list(type *a, int n)                                     \
	{                                                                          \
		if (n > 32) {                                                      \
			qsort(a, (size_t)n, sizeof *a, compare_##list);            \
			return;                                                    \
		}                                                                  \
		for (int i = 1; i < n; ++i) {                                      \
			type item = a[i];                                          \
			int j = i;                                                 \
			for (; j > 0 && a[j - 1].key > item.key; --j)              \
				a[j] = a[j - 1];                                   \
			a[j] = item;                                               \
		}                                                                  \
	}
SORT_RANGE(pbd_vt_contact, vt, q)
SORT_RANGE(pbd_ee_contact, ee, b)
SORT_RANGE(pbd_pp_contact, pp, j)

// Sorts what the query added to a list, when the chunk had room for it (if not, the chunk's
// search runs again once it has).
#define SORT_NEW(chunk, list, from)                                                        \
	do {                                                                               \
		if ((chunk)->list##_count <= (chunk)->list##_capacity &&                   \
		    (chunk)->list##_count - (from) > 1)                                    \
			sort_##list((chunk)->list + (from), (chunk)->list##_count - (from)); \
	} while (0)

// Chunk k searches its share of the queries: triangles for vertices, then edges for edges,
// then free particles for particles and vertices, in the order a single search would take.
static void search_chunk(const search_job *job, int k)
{
	const pbd_world *w = job->w;
	pbd_pair_chunk *chunk = &job->w->pairs.chunks[k];
	chunk->vt_count = chunk->ee_count = chunk->pp_count = 0;
	int64_t total = (int64_t)job->nt + job->ne + job->np;
	int lo = (int)(total * k / PBD_PAIR_CHUNKS), hi = (int)(total * (k + 1) / PBD_PAIR_CHUNKS);
	visit_context ctx = {w, chunk, 0};
	// Past the limit the whole search is over it: the rest would be work for nothing.
	for (int item = lo; item < hi && chunk_total(chunk) <= job->limit; ++item) {
		if (item < job->nt) {
			ctx.query = (uint32_t)item;
			int from = chunk->vt_count;
			pbd_grid_query(&w->pairs.vertex_grid, job->tbox[item], -1, visit_vertex_for_triangle, &ctx);
			SORT_NEW(chunk, vt, from);
		} else if (item < job->nt + job->ne) {
			int e = item - job->nt;
			ctx.query = (uint32_t)e;
			int from = chunk->ee_count;
			pbd_grid_query(&w->pairs.edge_grid, job->ebox[e], e, visit_edge_for_edge, &ctx);
			SORT_NEW(chunk, ee, from);
		} else {
			int i = item - job->nt - job->ne;
			if (body(w, w->particles.owner[i])->kind != PBD_BODY_PARTICLES)
				continue;
			ctx.query = (uint32_t)i;
			int from = chunk->pp_count;
			pbd_grid_query(&w->pairs.vertex_grid, job->vbox[i], -1, visit_particle_for_particle, &ctx);
			SORT_NEW(chunk, pp, from);
		}
	}
}

static void search_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	for (int k = start; k < end; ++k)
		search_chunk(context, k);
}

static bool chunk_fits(const pbd_pair_chunk *c)
{
	return c->vt_count <= c->vt_capacity && c->ee_count <= c->ee_capacity && c->pp_count <= c->pp_capacity;
}

// Room for what the chunk found, and half as much again for the pairs to come.
static bool grow_list(pbd_world *w, void **list, int *capacity, int need, size_t size)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(64, need + need / 2);
	if (!pbd_grow_array(w, list, (size_t)*capacity, (size_t)cap, size))
		return false;
	*capacity = cap;
	return true;
}

static bool grow_chunk(pbd_world *w, pbd_pair_chunk *c)
{
	return grow_list(w, (void **)&c->vt, &c->vt_capacity, c->vt_count, sizeof *c->vt) &&
	       grow_list(w, (void **)&c->ee, &c->ee_capacity, c->ee_count, sizeof *c->ee) &&
	       grow_list(w, (void **)&c->pp, &c->pp_capacity, c->pp_count, sizeof *c->pp);
}

// The chunks' lists, one after the other, into the world's pair lists.
static bool join_chunks(pbd_world *w)
{
	int vt = 0, ee = 0, pp = 0;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		vt += w->pairs.chunks[k].vt_count;
		ee += w->pairs.chunks[k].ee_count;
		pp += w->pairs.chunks[k].pp_count;
	}
	if (!grow_list(w, (void **)&w->pairs.vt, &w->pairs.vt_capacity, vt, sizeof *w->pairs.vt) ||
	    !grow_list(w, (void **)&w->pairs.ee, &w->pairs.ee_capacity, ee, sizeof *w->pairs.ee) ||
	    !grow_list(w, (void **)&w->pairs.pp, &w->pairs.pp_capacity, pp, sizeof *w->pairs.pp))
		return false;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		const pbd_pair_chunk *c = &w->pairs.chunks[k];
		if (c->vt_count)
			memcpy(w->pairs.vt + w->pairs.vt_count, c->vt, (size_t)c->vt_count * sizeof *c->vt);
		if (c->ee_count)
			memcpy(w->pairs.ee + w->pairs.ee_count, c->ee, (size_t)c->ee_count * sizeof *c->ee);
		if (c->pp_count)
			memcpy(w->pairs.pp + w->pairs.pp_count, c->pp, (size_t)c->pp_count * sizeof *c->pp);
		w->pairs.vt_count += c->vt_count;
		w->pairs.ee_count += c->ee_count;
		w->pairs.pp_count += c->pp_count;
	}
	return true;
}

// The per-particle arrays of the search: regions, search positions and drifts.
#define REGION_ARRAYS(w)                                                                      \
	(pbd_array_ref[]) { {(void **)&(w)->pairs.regions, sizeof *(w)->pairs.regions},                   \
			    {(void **)&(w)->pairs.search_at, sizeof *(w)->pairs.search_at},               \
			    {(void **)&(w)->pairs.drift, sizeof *(w)->pairs.drift} }
#define REGION_ARRAY_COUNT 3

static void free_regions(pbd_world *w)
{
	pbd_free_arrays(w, REGION_ARRAYS(w), REGION_ARRAY_COUNT, (size_t)w->pairs.region_capacity);
	w->pairs.region_capacity = 0;
}

// Room for n particles; the contents are rebuilt by each search, so the arrays are replaced
// rather than grown.
static bool reserve_regions(pbd_world *w, int n)
{
	return pbd_reserve_scratch_arrays(w, REGION_ARRAYS(w), REGION_ARRAY_COUNT, &w->pairs.region_capacity, n);
}

// Whether every candidate pair names particles, triangles and edges of the world, each pair
// once in its order (a < b for edge pairs).
static bool pairs_well_formed(const pbd_world *w)
{
	for (int k = 0; k < w->pairs.vt_count; ++k)
		if ((int)w->pairs.vt[k].q >= w->particles.count || (int)w->pairs.vt[k].tri >= w->topology.tri_count)
			return false;
	for (int k = 0; k < w->pairs.ee_count; ++k)
		if (w->pairs.ee[k].a >= w->pairs.ee[k].b || (int)w->pairs.ee[k].b >= w->topology.edge_count)
			return false;
	for (int k = 0; k < w->pairs.pp_count; ++k)
		if ((int)w->pairs.pp[k].i >= w->particles.count || (int)w->pairs.pp[k].j >= w->particles.count ||
		    w->pairs.pp[k].i == w->pairs.pp[k].j)
			return false;
	return true;
}

bool pbd_pairs_find(pbd_world *w, int substeps_left, float h)
{
	w->pairs.vt_count = w->pairs.ee_count = w->pairs.pp_count = 0;
	w->pairs.region_count = 0;
	w->pairs.over_limit = false;
	if (w->topology.dirty)
		return false;  // the step rebuilds it first (pbd_topology_update); out of memory it stays dirty
	if (nothing_to_pair(w)) {
		// Regions are not needed either: mark everything covered until bodies change.
		w->pairs.region_count = -1;
		return true;
	}
	int np = w->particles.count, nt = w->topology.tri_count, ne = w->topology.edge_count;
	int need = np + nt + ne;
	if (need > w->pairs.box_capacity) {
		int cap = maxi(need, 2 * w->pairs.box_capacity);
		if (!pbd_grow_array(w, (void **)&w->pairs.boxes, (size_t)w->pairs.box_capacity, (size_t)cap,
				    sizeof *w->pairs.boxes))
			return false;
		w->pairs.box_capacity = cap;
	}
	if (!reserve_regions(w, np))
		return false;
	build_regions(w, substeps_left, h);
	const pbd_v4 *start = pbd_motion_starts(w);
	for (int i = 0; i < np; ++i)
		w->pairs.search_at[i] = v3_of4(start[i]);
	w->pairs.region_time = w->time;
	pbd_aabb *vbox = w->pairs.boxes, *tbox = w->pairs.boxes + np, *ebox = w->pairs.boxes + np + nt;
	for (int i = 0; i < np; ++i) {
		uint32_t id = (uint32_t)i;
		vbox[i] = union_of(w, &id, 1, w->particles.radius[i]);
	}
	for (int t = 0; t < nt; ++t)
		tbox[t] = union_of(w, w->topology.tri + 3 * t, 3, w->particles.radius[w->topology.tri[3 * t]]);
	for (int e = 0; e < ne; ++e)
		ebox[e] = union_of(w, w->topology.edge + 2 * e, 2, w->particles.radius[w->topology.edge[2 * e]]);
	float cell = cell_size(w, ebox, ne);
	if (!pbd_grid_build(w, &w->pairs.vertex_grid, vbox, np, cell) ||
	    !pbd_grid_build(w, &w->pairs.edge_grid, ebox, ne, cell))
		return false;
	w->stats.broad_phase_builds++;
	int limit = w->settings.max_candidate_pairs;
	search_job job = {w, vbox, tbox, ebox, nt, ne, np, limit > 0 ? limit : INT64_MAX};
	pbd_parallel_for(w, search_range, PBD_PAIR_CHUNKS, 1, &job);
	int64_t total = 0;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k)
		total += chunk_total(&w->pairs.chunks[k]);
	if (total > job.limit) {
		// Nothing is kept (a partial list would look complete), and the lists do not grow.
		w->pairs.over_limit = true;
		w->stats.searches_over_limit++;
		return false;
	}
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		if (chunk_fits(&w->pairs.chunks[k]))
			continue;
		if (!grow_chunk(w, &w->pairs.chunks[k]))
			return false;
		search_chunk(&job, k);  // the same search again: it now fits
	}
	if (!join_chunks(w))
		return false;
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &w->pairs.chunks[k];
		c->vt_peak = maxi(c->vt_peak, c->vt_count);
		c->ee_peak = maxi(c->ee_peak, c->ee_count);
		c->pp_peak = maxi(c->pp_peak, c->pp_count);
	}
	w->pairs.vt_peak = maxi(w->pairs.vt_peak, w->pairs.vt_count);
	w->pairs.ee_peak = maxi(w->pairs.ee_peak, w->pairs.ee_count);
	w->pairs.pp_peak = maxi(w->pairs.pp_peak, w->pairs.pp_count);
	w->stats.candidate_pairs_peak = maxi(w->stats.candidate_pairs_peak, pbd_candidate_count(w));
	w->pairs.region_count = np;
	PBD_ASSERT(w->pairs.region_capacity >= np && pairs_well_formed(w));
	return true;
}

void pbd_pairs_trim(pbd_world *w)
{
	// The chunks' lists are scratch of each search; the world's lists hold the current pairs.
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &w->pairs.chunks[k];
		pbd_trim_array(w, (void **)&c->vt, &c->vt_capacity, c->vt_peak, 0, sizeof *c->vt);
		pbd_trim_array(w, (void **)&c->ee, &c->ee_capacity, c->ee_peak, 0, sizeof *c->ee);
		pbd_trim_array(w, (void **)&c->pp, &c->pp_capacity, c->pp_peak, 0, sizeof *c->pp);
		c->vt_peak = c->ee_peak = c->pp_peak = 0;
	}
	pbd_trim_array(w, (void **)&w->pairs.vt, &w->pairs.vt_capacity, w->pairs.vt_peak, w->pairs.vt_count,
		       sizeof *w->pairs.vt);
	pbd_trim_array(w, (void **)&w->pairs.ee, &w->pairs.ee_capacity, w->pairs.ee_peak, w->pairs.ee_count,
		       sizeof *w->pairs.ee);
	pbd_trim_array(w, (void **)&w->pairs.pp, &w->pairs.pp_capacity, w->pairs.pp_peak, w->pairs.pp_count,
		       sizeof *w->pairs.pp);
	w->pairs.vt_peak = w->pairs.vt_count;
	w->pairs.ee_peak = w->pairs.ee_count;
	w->pairs.pp_peak = w->pairs.pp_count;
	pbd_grid_trim(w, &w->pairs.vertex_grid);
	pbd_grid_trim(w, &w->pairs.edge_grid);
}

static void mean_free_velocity(const pbd_world *w, double mean[3])
{
	mean[0] = mean[1] = mean[2] = 0.0;
	int n = 0;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		mean[0] += w->particles.v[i].x, mean[1] += w->particles.v[i].y, mean[2] += w->particles.v[i].z;
		n++;
	}
	for (int k = 0; k < 3 && n > 0; ++k)
		mean[k] /= n;
}

void pbd_pairs_step_begin(pbd_world *w)
{
	mean_free_velocity(w, w->pairs.step_mean_v);
}

void pbd_pairs_step_end(pbd_world *w, float dt)
{
	double end[3];
	mean_free_velocity(w, end);
	w->pairs.mean_accel =
		v3((float)((end[0] - w->pairs.step_mean_v[0]) / dt), (float)((end[1] - w->pairs.step_mean_v[1]) / dt),
		   (float)((end[2] - w->pairs.step_mean_v[2]) / dt));
}

void pbd_pairs_free(pbd_world *w)
{
	pbd_grid_free(w, &w->pairs.vertex_grid);
	pbd_grid_free(w, &w->pairs.edge_grid);
	pbd_free_array(w, w->pairs.boxes, (size_t)w->pairs.box_capacity, sizeof *w->pairs.boxes);
	free_regions(w);
	for (int k = 0; k < PBD_PAIR_CHUNKS; ++k) {
		pbd_pair_chunk *c = &w->pairs.chunks[k];
		pbd_free_array(w, c->vt, (size_t)c->vt_capacity, sizeof *c->vt);
		pbd_free_array(w, c->ee, (size_t)c->ee_capacity, sizeof *c->ee);
		pbd_free_array(w, c->pp, (size_t)c->pp_capacity, sizeof *c->pp);
		*c = (pbd_pair_chunk){0};
	}
	pbd_free_array(w, w->pairs.vt, (size_t)w->pairs.vt_capacity, sizeof *w->pairs.vt);
	pbd_free_array(w, w->pairs.ee, (size_t)w->pairs.ee_capacity, sizeof *w->pairs.ee);
	pbd_free_array(w, w->pairs.pp, (size_t)w->pairs.pp_capacity, sizeof *w->pairs.pp);
}

void pbd_pairs_clear(pbd_world *w)
{
	w->pairs.vt_count = w->pairs.ee_count = w->pairs.pp_count = 0;
}

bool pbd_pairs_cover_carried(const pbd_world *w, float h)
{
	if (!pbd_pairs_covered(w, h))
		return false;
	if (w->pairs.region_count == -1)
		return true;
	float tau = (float)(w->time - w->pairs.region_time);
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->carry.by[i] < 0)
			continue;
		if (!region_holds(w, (uint32_t)i, v3_of4(w->carry.to[i]), tau))
			return false;
	}
	return true;
}
