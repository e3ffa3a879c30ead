// SPDX-License-Identifier: MIT
// Patches (pairs.h): each cloth cut into small connected pieces of a few triangles, each free
// particle a piece of its own. The search works on pairs of patches, and it passes over a
// pair of one cloth's patches when both still follow one rigid motion of their rest shape.
//
// Why that is enough: if every particle of two patches is within d of R r + s (r its rest
// position, R a rotation, s a shift), every point of their triangles and edges is too, so any
// two of their primitives are at least their rest distance less 2d apart. A pair of one cloth
// keeps min(thickness, half its rest distance) (pair_search.c), so once 2d is below half the
// smallest rest distance of the pairs between the two patches, and below the thickness, none
// of those pairs is in contact, and none can cross. Each pair between them has a primitive in
// each, so that distance is at least the smallest rest distance of the pairs either patch's
// primitives are in, which each patch keeps: the lips of a tear, a hair apart at rest, hold
// back only the patches along them. The particles move along their tracks, so the bound covers
// the tracks until the first of them runs out: the fit is made now and widened by how far the
// tracks can part from a shared rigid velocity field.
#include <string.h>

#include "pair_search.h"


// ---- Building, when the topology changes

// Grows patch p from triangle `seed` over triangles that share a corner, breadth first, until
// it holds PBD_PATCH_TRIANGLES (or its piece of cloth runs out). `queue` has room for them all.
static void grow_patch(pbd_world *w, int seed, int p, uint32_t *queue)
{
	pbd_pairs *pr = &w->pairs;
	int head = 0, tail = 0;
	queue[tail++] = (uint32_t)seed;
	pr->tri_patch[seed] = (uint32_t)p;
	while (head < tail && head < PBD_PATCH_TRIANGLES) {
		uint32_t t = queue[head++];
		for (int k = 0; k < 3 && tail < PBD_PATCH_TRIANGLES; ++k) {
			uint32_t v = w->topology.tri[3 * t + k];
			for (int a = pr->adjacent_start[v]; a < pr->adjacent_start[v + 1] && tail < PBD_PATCH_TRIANGLES; ++a) {
				uint32_t u = pr->adjacent[a];
				if ((int)u >= w->topology.tri_count || pr->tri_patch[u] != UINT32_MAX)
					continue;
				pr->tri_patch[u] = (uint32_t)p;
				queue[tail++] = u;
			}
		}
	}
}

// The grid cloths the near pairs cover (near_pairs.h) are cut in blocks of b->block quads a side
// along their grid, numbered first: two blocks close enough for their pairs to be near are
// then wholly the near pairs' (pair_search.c passes over them).
static void block_patches(pbd_world *w, int *patches)
{
	pbd_pairs *pr = &w->pairs;
	for (int k = 0; k < pr->near.body_count; ++k) {
		pbd_near_body *b = &pr->near.bodies[k];
		int nqx = b->nx - 1, nqy = b->ny - 1, across = (nqx + b->block - 1) / b->block;
		b->patch_first = *patches;
		for (int q = 0; q < nqx * nqy; ++q) {
			uint32_t p = (uint32_t)(*patches + (q / nqx / b->block) * across + (q % nqx) / b->block);
			pr->tri_patch[b->tri_first + 2 * q] = pr->tri_patch[b->tri_first + 2 * q + 1] = p;
		}
		*patches += across * ((nqy + b->block - 1) / b->block);
	}
}

#define PATCH_ARRAYS(pr, n)                                                                             \
	(pbd_array_ref[]) {                                                                             \
		{(void **)&(pr)->patch_tri_start, sizeof *(pr)->patch_tri_start},                       \
		{(void **)&(pr)->patch_own_start, sizeof *(pr)->patch_own_start},                       \
		{(void **)&(pr)->patch_edge_start, sizeof *(pr)->patch_edge_start},                     \
		{(void **)&(pr)->patch_corner_start, sizeof *(pr)->patch_corner_start},                 \
		{(void **)&(pr)->patch_body, sizeof *(pr)->patch_body},                                 \
		{(void **)&(pr)->patch_rest_centre, sizeof *(pr)->patch_rest_centre},                   \
		{(void **)&(pr)->patch_rest_radius, sizeof *(pr)->patch_rest_radius},                   \
		{(void **)&(pr)->fits, sizeof *(pr)->fits}, {(void **)&(pr)->patch_boxes, sizeof *(pr)->patch_boxes}, \
		{(void **)&(pr)->patch_moved_boxes, sizeof *(pr)->patch_moved_boxes},                   \
		{(void **)&(pr)->patch_version, sizeof *(pr)->patch_version},                           \
		{(void **)&(pr)->patch_stamp, sizeof *(pr)->patch_stamp},                               \
		{(void **)&(pr)->patch_moved_tris, sizeof *(pr)->patch_moved_tris},                     \
		{(void **)&(pr)->patch_moved_edges, sizeof *(pr)->patch_moved_edges},                   \
		{(void **)&(pr)->patch_span, sizeof *(pr)->patch_span},                                 \
		{(void **)&(pr)->patch_tolerance, sizeof *(pr)->patch_tolerance},                       \
	}
#define PATCH_ARRAY_COUNT 16

void pbd_patches_free(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	pbd_free_arrays(w, PATCH_ARRAYS(pr, 0), PATCH_ARRAY_COUNT, (size_t)pr->patch_capacity + 1);
	pr->patch_capacity = 0;
	pr->tolerances_valid = false;
	pbd_free_array(w, pr->patch_tris, (size_t)pr->patch_tris_capacity, sizeof *pr->patch_tris);
	pbd_free_array(w, pr->patch_own, (size_t)pr->patch_own_capacity, sizeof *pr->patch_own);
	pbd_free_array(w, pr->patch_edges, (size_t)pr->patch_edges_capacity, sizeof *pr->patch_edges);
	pbd_free_array(w, pr->patch_corners, (size_t)pr->patch_corners_capacity, sizeof *pr->patch_corners);
	pbd_free_array(w, pr->tri_patch, (size_t)pr->tri_patch_capacity, sizeof *pr->tri_patch);
	pbd_free_array(w, pr->edge_patch, (size_t)pr->edge_patch_capacity, sizeof *pr->edge_patch);
	pbd_free_array(w, pr->vertex_patch, (size_t)pr->vertex_patch_capacity, sizeof *pr->vertex_patch);
	pbd_free_array(w, pr->particle_patch_start, (size_t)pr->vertex_patch_capacity + 1, sizeof *pr->particle_patch_start);
	pbd_free_array(w, pr->particle_patches, (size_t)pr->particle_patches_capacity, sizeof *pr->particle_patches);
	pr->patch_tris = pr->patch_own = pr->patch_edges = pr->patch_corners = NULL;
	pr->tri_patch = pr->edge_patch = pr->vertex_patch = pr->particle_patches = NULL;
	pr->particle_patch_start = NULL;
	pr->patch_tris_capacity = pr->patch_own_capacity = pr->patch_edges_capacity = pr->patch_corners_capacity = 0;
	pr->tri_patch_capacity = pr->edge_patch_capacity = pr->vertex_patch_capacity = 0;
	pr->particle_patches_capacity = 0;
	pr->patch_count = 0;
}

static uint32_t *alloc_u32(pbd_world *w, int n, int *capacity)
{
	*capacity = n > 0 ? n : 1;
	uint32_t *a = pbd_alloc_array(w, (size_t)*capacity, sizeof(uint32_t));
	if (!a)
		*capacity = 0;
	return a;
}

// The owner patch of a vertex: that of its first triangle; of an edge: that of the first
// triangle with both its ends. Free particles (and a vertex of no triangle) own a patch each.
static void assign_owners(pbd_world *w, int *patches)
{
	pbd_pairs *pr = &w->pairs;
	int nt = w->topology.tri_count;
	for (int i = 0; i < w->particles.count; ++i) {
		uint32_t owner = UINT32_MAX;
		for (int a = pr->adjacent_start[i]; a < pr->adjacent_start[i + 1] && owner == UINT32_MAX; ++a)
			if ((int)pr->adjacent[a] < nt)
				owner = pr->tri_patch[pr->adjacent[a]];
		pr->vertex_patch[i] = owner != UINT32_MAX ? owner : (uint32_t)(*patches)++;
	}
	for (int e = 0; e < w->topology.edge_count; ++e) {
		uint32_t a = w->topology.edge[2 * e], b = w->topology.edge[2 * e + 1], owner = UINT32_MAX;
		for (int k = pr->adjacent_start[a]; k < pr->adjacent_start[a + 1] && owner == UINT32_MAX; ++k) {
			uint32_t t = pr->adjacent[k];
			if ((int)t >= nt)
				continue;
			const uint32_t *v = w->topology.tri + 3 * t;
			if (v[0] == b || v[1] == b || v[2] == b)
				owner = pr->tri_patch[t];
		}
		pr->edge_patch[e] = owner != UINT32_MAX ? owner : pr->vertex_patch[a];
	}
}

// Fills a CSR list per patch from a per-item patch index (counting sort, items in order).
static void group_by_patch(int patches, const uint32_t *patch_of, int items, int *start, uint32_t *list)
{
	memset(start, 0, (size_t)(patches + 1) * sizeof *start);
	for (int k = 0; k < items; ++k)
		start[patch_of[k] + 1]++;
	for (int p = 0; p < patches; ++p)
		start[p + 1] += start[p];
	for (int k = 0; k < items; ++k)
		list[start[patch_of[k]]++] = (uint32_t)k;
	for (int p = patches; p > 0; --p)
		start[p] = start[p - 1];
	start[0] = 0;
}

// Each patch's corners (its triangles' particles, or its own particle), and each particle's
// patches; both in increasing order.
static bool list_corners(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	int np = w->particles.count, nt = w->topology.tri_count, patches = pr->patch_count;
	// A particle is a corner of the patches of its triangles, and of the patch it owns.
	int links = 0;
	for (int i = 0; i < np; ++i)
		links += pr->adjacent_start[i + 1] - pr->adjacent_start[i] + 1;
	pr->particle_patches = alloc_u32(w, links, &pr->particle_patches_capacity);
	if (!pr->particle_patches)
		return false;
	int n = 0;
	for (int i = 0; i < np; ++i) {
		pr->particle_patch_start[i] = n;
		int first = n;
		pr->particle_patches[n++] = pr->vertex_patch[i];
		for (int a = pr->adjacent_start[i]; a < pr->adjacent_start[i + 1]; ++a) {
			if ((int)pr->adjacent[a] >= nt)
				continue;
			uint32_t p = pr->tri_patch[pr->adjacent[a]];
			bool seen = false;
			for (int k = first; k < n && !seen; ++k)
				seen = pr->particle_patches[k] == p;
			if (!seen)
				pr->particle_patches[n++] = p;
		}
		// Few each: insertion sort.
		for (int k = first + 1; k < n; ++k)
			for (int j = k; j > first && pr->particle_patches[j - 1] > pr->particle_patches[j]; --j) {
				uint32_t s = pr->particle_patches[j];
				pr->particle_patches[j] = pr->particle_patches[j - 1];
				pr->particle_patches[j - 1] = s;
			}
	}
	pr->particle_patch_start[np] = n;
	// Corners per patch: the same links, grouped by patch (particles in increasing order).
	pr->patch_corners = alloc_u32(w, n, &pr->patch_corners_capacity);
	if (!pr->patch_corners)
		return false;
	int *start = pr->patch_corner_start;
	memset(start, 0, (size_t)(patches + 1) * sizeof *start);
	for (int k = 0; k < n; ++k)
		start[pr->particle_patches[k] + 1]++;
	for (int p = 0; p < patches; ++p)
		start[p + 1] += start[p];
	for (int i = 0; i < np; ++i)
		for (int k = pr->particle_patch_start[i]; k < pr->particle_patch_start[i + 1]; ++k)
			pr->patch_corners[start[pr->particle_patches[k]]++] = (uint32_t)i;
	for (int p = patches; p > 0; --p)
		start[p] = start[p - 1];
	start[0] = 0;
	return true;
}

// The grid columns and rows of patch corners a .. b - 1 (of a covered cloth).
static pbd_grid_span grid_span(const pbd_world *w, int a, int b)
{
	const pbd_near *n = &w->pairs.near;
	pbd_grid_span s = {UINT16_MAX, 0, UINT16_MAX, 0};
	for (int k = a; k < b; ++k) {
		uint32_t i = w->pairs.patch_corners[k];
		s.ilo = n->grid_i[i] < s.ilo ? n->grid_i[i] : s.ilo, s.ihi = n->grid_i[i] > s.ihi ? n->grid_i[i] : s.ihi;
		s.jlo = n->grid_j[i] < s.jlo ? n->grid_j[i] : s.jlo, s.jhi = n->grid_j[i] > s.jhi ? n->grid_j[i] : s.jhi;
	}
	return s;
}

static void rest_shape(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	for (int p = 0; p < pr->patch_count; ++p) {
		double c[3] = {0, 0, 0};
		int a = pr->patch_corner_start[p], b = pr->patch_corner_start[p + 1];
		for (int k = a; k < b; ++k) {
			pbd_v3 r = w->particles.rest[pr->patch_corners[k]];
			c[0] += r.x, c[1] += r.y, c[2] += r.z;
		}
		pbd_v3 centre = v3((float)(c[0] / (b - a)), (float)(c[1] / (b - a)), (float)(c[2] / (b - a)));
		float radius = 0.0f;
		for (int k = a; k < b; ++k)
			radius = maxf(radius, pbd_distance_up(w->particles.rest[pr->patch_corners[k]], centre));
		pr->patch_rest_centre[p] = centre;
		pr->patch_rest_radius[p] = radius;
		pr->patch_body[p] = w->particles.owner[pr->patch_corners[a]];
		if (pbd_near_body_of(&pr->near, pr->patch_body[p]))
			pr->patch_span[p] = grid_span(w, a, b);
	}
}

bool pbd_patches_build(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->patches_version == w->topology.version && pr->patches_particles == w->particles.count)
		return true;
	pbd_patches_free(w);
	int np = w->particles.count, nt = w->topology.tri_count, ne = w->topology.edge_count;
	pr->tri_patch = alloc_u32(w, nt, &pr->tri_patch_capacity);
	pr->edge_patch = alloc_u32(w, ne, &pr->edge_patch_capacity);
	pr->vertex_patch = alloc_u32(w, np, &pr->vertex_patch_capacity);
	pr->particle_patch_start = pbd_alloc_array(w, (size_t)np + 1, sizeof *pr->particle_patch_start);
	pr->patch_tris = alloc_u32(w, nt, &pr->patch_tris_capacity);
	pr->patch_own = alloc_u32(w, np, &pr->patch_own_capacity);
	pr->patch_edges = alloc_u32(w, ne, &pr->patch_edges_capacity);
	uint32_t *queue = pbd_alloc_array(w, PBD_PATCH_TRIANGLES, sizeof *queue);
	bool ok = pr->tri_patch && pr->edge_patch && pr->vertex_patch && pr->particle_patch_start && pr->patch_tris &&
		  pr->patch_own && pr->patch_edges && queue;
	int patches = 0;
	if (ok) {
		// Triangles: patches grown in triangle order (a body's triangles are consecutive and
		// share corners only with each other, so a patch never spans two bodies); then a patch
		// for each particle of no triangle (free particles).
		for (int t = 0; t < nt; ++t)
			pr->tri_patch[t] = UINT32_MAX;
		block_patches(w, &patches);
		for (int t = 0; t < nt; ++t)
			if (pr->tri_patch[t] == UINT32_MAX)
				grow_patch(w, t, patches++, queue);
		assign_owners(w, &patches);
		pr->patch_count = patches;
		ok = pbd_replace_arrays(w, PATCH_ARRAYS(pr, 0), PATCH_ARRAY_COUNT, 0, (size_t)patches + 1);
		pr->patch_capacity = ok ? patches : 0;
	}
	if (ok) {
		group_by_patch(patches, pr->tri_patch, nt, pr->patch_tri_start, pr->patch_tris);
		group_by_patch(patches, pr->vertex_patch, np, pr->patch_own_start, pr->patch_own);
		group_by_patch(patches, pr->edge_patch, ne, pr->patch_edge_start, pr->patch_edges);
		ok = list_corners(w);
	}
	pbd_free_array(w, queue, PBD_PATCH_TRIANGLES, sizeof *queue);
	if (!ok) {
		pbd_patches_free(w);
		return false;
	}
	rest_shape(w);
	pr->tolerances_valid = false;
	pr->patches_version = w->topology.version;
	pr->patches_particles = np;
	PBD_ASSERT(pr->patch_tri_start[pr->patch_count] == nt);
	return true;
}

// ---- Rigid fits

// An orthonormal frame (rows) from a triangle: its first edge, its normal, and their cross.
static bool triangle_frame(pbd_v3 a, pbd_v3 b, pbd_v3 c, float f[9])
{
	pbd_v3 e = v3_sub(b, a), n = v3_cross(e, v3_sub(c, a));
	float le = v3_len(e), ln = v3_len(n);
	if (!(le > 0.0f) || !(ln > 1e-6f * le * le) || !isfinite(ln))
		return false;
	e = v3_scale(e, 1.0f / le);
	n = v3_scale(n, 1.0f / ln);
	pbd_v3 m = v3_cross(n, e);
	const float rows[9] = {e.x, e.y, e.z, m.x, m.y, m.z, n.x, n.y, n.z};
	memcpy(f, rows, sizeof rows);
	return true;
}

// Makes the rows of r an orthonormal right-handed frame (Gram-Schmidt); false when degenerate.
static bool orthonormalize(float r[9])
{
	pbd_v3 a = v3(r[0], r[1], r[2]), b = v3(r[3], r[4], r[5]);
	float la = v3_len(a);
	if (!(la > 1e-6f))
		return false;
	a = v3_scale(a, 1.0f / la);
	b = v3_mad(b, a, -v3_dot(a, b));
	float lb = v3_len(b);
	if (!(lb > 1e-6f))
		return false;
	b = v3_scale(b, 1.0f / lb);
	pbd_v3 c = v3_cross(a, b);
	const float rows[9] = {a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z};
	memcpy(r, rows, sizeof rows);
	return true;
}

static pbd_v3 rotate(const float r[9], pbd_v3 v)
{
	return v3(r[0] * v.x + r[1] * v.y + r[2] * v.z, r[3] * v.x + r[4] * v.y + r[5] * v.z,
		  r[6] * v.x + r[7] * v.y + r[8] * v.z);
}

pbd_v3 pbd_fit_omega(const double inertia[6], const double momentum[3])
{
	// inertia: xx, yy, zz, xy, xz, yz of sum(|r|^2 I - r r^T).
	double a = inertia[0], b = inertia[1], c = inertia[2], d = inertia[3], e = inertia[4], f = inertia[5];
	double det = a * (b * c - f * f) - d * (d * c - f * e) + e * (d * f - b * e);
	double scale = a + b + c;
	if (!(det > 1e-9 * scale * scale * scale))
		return v3(0, 0, 0);
	double inv[6] = {(b * c - f * f) / det, (a * c - e * e) / det, (a * b - d * d) / det,
			 (e * f - d * c) / det, (d * f - b * e) / det, (d * e - a * f) / det};
	const double *m = momentum;
	return v3((float)(inv[0] * m[0] + inv[3] * m[1] + inv[4] * m[2]),
		  (float)(inv[3] * m[0] + inv[1] * m[1] + inv[5] * m[2]),
		  (float)(inv[4] * m[0] + inv[5] * m[1] + inv[2] * m[2]));
}

// The rigid velocity field of a fit at x.
static pbd_v3 field_at(const pbd_patch_fit *f, pbd_v3 x)
{
	return v3_add(f->vel, v3_cross(f->omega, v3_sub(x, f->centre)));
}

// Fits patch p's particles (their tracks at `now`) to a rigid motion of their rest shapes: the
// rotation of the patch's first triangle, the shift that matches the centroids, the largest
// distance of a particle from where that motion puts it (plus its slack); and their track
// velocities to a rigid velocity field, with the largest distance of one from it.
void pbd_patch_fit_at(const pbd_world *w, int p, double now, pbd_patch_fit *f)
{
	const pbd_pairs *pr = &w->pairs;
	const pbd_tracks *tr = &pr->tracks;
	int a = pr->patch_corner_start[p], b = pr->patch_corner_start[p + 1];
	*f = (pbd_patch_fit){.time = now, .expiry = INFINITY, .residual = INFINITY};
	for (int k = a; k < b; ++k)
		f->expiry = fmin(f->expiry, tr->expiry[pr->patch_corners[k]]);
	int t0 = pr->patch_tri_start[p];
	if (t0 == pr->patch_tri_start[p + 1])
		return;  // no triangle: a free particle, never fitted
	const uint32_t *v = w->topology.tri + 3 * pr->patch_tris[t0];
	float fr[9], fx[9];
	const pbd_v3 *rest = w->particles.rest;
	if (!triangle_frame(rest[v[0]], rest[v[1]], rest[v[2]], fr) ||
	    !triangle_frame(pbd_track_at(tr, v[0], now), pbd_track_at(tr, v[1], now), pbd_track_at(tr, v[2], now), fx))
		return;
	// rot = fx^T fr: rest -> frame.
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			f->rot[3 * i + j] = fx[i] * fr[j] + fx[3 + i] * fr[3 + j] + fx[6 + i] * fr[6 + j];
	double cs[3] = {0, 0, 0}, cx[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
	for (int k = a; k < b; ++k) {
		uint32_t i = pr->patch_corners[k];
		pbd_v3 x = pbd_track_at(tr, i, now), r = rotate(f->rot, rest[i]);
		cs[0] += x.x - r.x, cs[1] += x.y - r.y, cs[2] += x.z - r.z;
		cx[0] += x.x, cx[1] += x.y, cx[2] += x.z;
		cv[0] += tr->vel[i].x, cv[1] += tr->vel[i].y, cv[2] += tr->vel[i].z;
	}
	double n = b - a;
	f->shift = v3((float)(cs[0] / n), (float)(cs[1] / n), (float)(cs[2] / n));
	f->centre = v3((float)(cx[0] / n), (float)(cx[1] / n), (float)(cx[2] / n));
	f->vel = v3((float)(cv[0] / n), (float)(cv[1] / n), (float)(cv[2] / n));
	double inertia[6] = {0, 0, 0, 0, 0, 0}, momentum[3] = {0, 0, 0};
	for (int k = a; k < b; ++k) {
		uint32_t i = pr->patch_corners[k];
		pbd_v3 r = v3_sub(pbd_track_at(tr, i, now), f->centre), l = v3_cross(r, v3_sub(tr->vel[i], f->vel));
		double r2 = v3_dot_d(r, r);
		inertia[0] += r2 - (double)r.x * r.x, inertia[1] += r2 - (double)r.y * r.y, inertia[2] += r2 - (double)r.z * r.z;
		inertia[3] -= (double)r.x * r.y, inertia[4] -= (double)r.x * r.z, inertia[5] -= (double)r.y * r.z;
		momentum[0] += l.x, momentum[1] += l.y, momentum[2] += l.z;
	}
	f->omega = pbd_fit_omega(inertia, momentum);
	float worst = 0.0f;
	for (int k = a; k < b; ++k) {
		uint32_t i = pr->patch_corners[k];
		pbd_v3 x = pbd_track_at(tr, i, now);
		pbd_v3 fit = v3_add(rotate(f->rot, rest[i]), f->shift);
		worst = maxf(worst, pbd_distance_up(x, fit) + tr->slack[i]);
		f->spread = maxf(f->spread, pbd_distance_up(tr->vel[i], field_at(f, x)));
		f->radius = maxf(f->radius, pbd_distance_up(x, f->centre));
	}
	f->residual = isfinite(worst) ? worst * (1.0f + 1e-5f) : INFINITY;
	if (!isfinite(f->spread) || !v3_is_finite(f->omega))
		f->residual = INFINITY;
}

void pbd_patch_fit_now(pbd_world *w, int p)
{
	pbd_patch_fit_at(w, p, w->time, &w->pairs.fits[p]);
}

// Whether every pair of primitives of patches p and q (one cloth's) stays out of contact while
// their particles keep to their tracks: see the top of this file. Over time s from now each
// patch's particles stay within residual + spread s of their rigid fit carried along its
// velocity field; that field is x -> (I + [omega] s) x plus a shift, which never brings two
// points closer, so measured against p's motion every pair is at least its rest distance less
// twice the worst such deviation.
bool pbd_patches_rigid_together(const pbd_world *w, int p, int q)
{
	const pbd_pairs *pr = &w->pairs;
	// The closest rest pair of the two patches has a primitive in each: it is at least as far
	// apart as the closest of either's, and the larger of their tolerances holds for it.
	float tolerance = maxf(pr->patch_tolerance[p], pr->patch_tolerance[q]);
	double now = w->time;
	pbd_patch_fit fa = pr->fits[p], fb = pr->fits[q];
	// A patch whose fit was already too loose when its tracks were boxed is not fitted again
	// until they are boxed anew: most such patches are bent or moving on their own, and the
	// pair is searched, which is always safe.
	if (!(fa.residual < tolerance) || !(fb.residual < tolerance))
		return false;
	if (fa.time != now)
		pbd_patch_fit_at(w, p, now, &fa);
	if (p != q && fb.time != now)
		pbd_patch_fit_at(w, q, now, &fb);
	if (!(fa.residual < tolerance) || !(fb.residual < tolerance))
		return false;
	double window = p == q ? fa.expiry - now : fmin(fa.expiry, fb.expiry) - now;
	float d, rate;
	if (p == q) {
		d = fa.residual;
		rate = fa.spread;
	} else {
		// Both measured against one motion between theirs: the rotation halfway (made
		// orthonormal; any rotation gives a valid bound), a shift that splits the difference,
		// and the mean of their velocity fields.
		float mid[9];
		for (int k = 0; k < 9; ++k)
			mid[k] = fa.rot[k] + fb.rot[k];
		if (!orthonormalize(mid))
			return false;
		const pbd_patch_fit *fit[2] = {&fa, &fb};
		pbd_v3 u[2];
		float turn[2];
		for (int j = 0; j < 2; ++j) {
			float dr[9], d2 = 0.0f;
			for (int k = 0; k < 9; ++k) {
				dr[k] = fit[j]->rot[k] - mid[k];
				d2 += dr[k] * dr[k];
			}
			turn[j] = sqrtf(d2);
			u[j] = v3_add(fit[j]->shift, rotate(dr, pr->patch_rest_centre[j ? q : p]));
		}
		float half = 0.5f * v3_len(v3_sub(u[0], u[1]));
		pbd_v3 centre = v3_scale(v3_add(fa.centre, fb.centre), 0.5f);
		pbd_v3 omega = v3_scale(v3_add(fa.omega, fb.omega), 0.5f);
		pbd_v3 vel = v3_scale(v3_add(field_at(&fa, centre), field_at(&fb, centre)), 0.5f);
		d = 0.0f;
		rate = 0.0f;
		for (int j = 0; j < 2; ++j) {
			const pbd_patch_fit *f = fit[j];
			float apart = f->residual + turn[j] * pr->patch_rest_radius[j ? q : p] + half;
			pbd_v3 shared = v3_add(vel, v3_cross(omega, v3_sub(f->centre, centre)));
			float parting = f->spread + v3_len(v3_sub(f->vel, shared)) + v3_len(v3_sub(f->omega, omega)) * f->radius +
					v3_len(omega) * apart;
			d = maxf(d, apart);
			rate = maxf(rate, parting);
		}
	}
	if (rate > 0.0f) {
		if (!isfinite(window))
			return false;
		d += (float)(rate * window);
	}
	return d * (1.0f + 1e-5f) < tolerance;
}

// ---- Tolerances, when the patches are cut

typedef struct closest_query {
	const pbd_world *w;
	uint32_t self;             // a particle (against triangles) or an edge (against edges)
	bool edges;
	int first, tri_first, edge_first;  // the body's first particle, triangle and edge
	pbd_rest_closest *m;       // per primitive: the smallest rest distance of a pair that counts
	bool torn;                 // the body tore: pairs that touch at rest keep its tear gap
} closest_query;

static void note_closest(double *closest, int k, double d)
{
	if (d < closest[k])
		closest[k] = d;
}

static void visit_closest(uint32_t id, void *user)
{
	closest_query *q = user;
	const pbd_v3 *rest = q->w->particles.rest;
	double d, s, u, bary[3];
	if (!q->edges) {
		const uint32_t *t = q->w->topology.tri + 3 * (q->tri_first + (int)id);
		if (t[0] == q->self || t[1] == q->self || t[2] == q->self)
			return;
		d = sqrt(pbd_point_triangle_distance2(d3_of(rest[q->self]), d3_of(rest[t[0]]), d3_of(rest[t[1]]),
						      d3_of(rest[t[2]]), bary));
	} else {
		uint32_t other = (uint32_t)q->edge_first + id;
		const uint32_t *a = q->w->topology.edge + 2 * q->self, *b = q->w->topology.edge + 2 * other;
		if (other <= q->self || a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
			return;
		d = sqrt(pbd_segment_segment_distance2(d3_of(rest[a[0]]), d3_of(rest[a[1]]), d3_of(rest[b[0]]),
							d3_of(rest[b[1]]), &s, &u));
	}
	// Pairs that touch at rest are never pairs (their kept distance is 0), but in a torn cloth.
	if (!(d * PBD_KEPT_REST_SHARE > 1e-7 || q->torn))
		return;
	if (!q->edges) {
		note_closest(q->m->vertex, (int)q->self - q->first, d);
		note_closest(q->m->triangle, (int)id, d);
	} else {
		note_closest(q->m->edge, (int)q->self - q->edge_first, d);
		note_closest(q->m->edge, (int)id, d);
	}
}

static pbd_aabb rest_box(const pbd_world *w, const uint32_t *ids, int n, float grow_by)
{
	pbd_v3 a = w->particles.rest[ids[0]];
	pbd_aabb b = {a, a};
	for (int k = 1; k < n; ++k) {
		pbd_v3 r = w->particles.rest[ids[k]];
		b.lo = v3(minf(b.lo.x, r.x), minf(b.lo.y, r.y), minf(b.lo.z, r.z));
		b.hi = v3(maxf(b.hi.x, r.x), maxf(b.hi.y, r.y), maxf(b.hi.z, r.z));
	}
	b.lo = v3(b.lo.x - grow_by, b.lo.y - grow_by, b.lo.z - grow_by);
	b.hi = v3(b.hi.x + grow_by, b.hi.y + grow_by, b.hi.z + grow_by);
	return b;
}

// For each particle, triangle and edge of one cloth, the smallest rest distance of a
// vertex-triangle or edge-edge pair of the cloth it is in that shares no particle, among those
// closer than `reach` (reach when there is none), into m. False when out of memory.
static bool rest_closest(pbd_world *w, const pbd_body *c, int tri_first, int tri_count, int edge_first,
			 int edge_count, float reach, pbd_rest_closest *m)
{
	int n = tri_count > edge_count ? tri_count : edge_count;
	pbd_aabb *boxes = pbd_alloc_array(w, (size_t)(n > 0 ? n : 1), sizeof *boxes);
	pbd_grid grid = {0};
	if (!boxes)
		return false;
	closest_query q = {w, 0, false, c->first, tri_first, edge_first, m, c->tear_gap > 0.0f};
	bool ok = true;
	// Cells of the reach, but no smaller than the mean edge: a cloth far thicker than its
	// edges is long (the rest shape is searched once per topology).
	double edges = 0.0;
	for (int k = 0; k < edge_count; ++k) {
		const uint32_t *e = w->topology.edge + 2 * (edge_first + k);
		edges += v3_len(v3_sub(w->particles.rest[e[0]], w->particles.rest[e[1]]));
	}
	float cell = edge_count ? fmaxf(reach, (float)(edges / edge_count)) : reach;
	if (!(cell > 0.0f) || !isfinite(cell))
		cell = 1.0f;
	// The primitives' own boxes in the grid (one or two cells each), each query grown by the reach.
	for (int pass = 0; pass < 2 && ok; ++pass) {
		int count = pass ? edge_count : tri_count;
		for (int k = 0; k < count; ++k)
			boxes[k] = pass ? rest_box(w, w->topology.edge + 2 * (edge_first + k), 2, 0.0f)
					: rest_box(w, w->topology.tri + 3 * (tri_first + k), 3, 0.0f);
		ok = pbd_grid_build(w, &grid, boxes, NULL, count, cell);
		q.edges = pass == 1;
		for (int k = 0; ok && k < (pass ? edge_count : c->count); ++k) {
			uint32_t self = pass ? (uint32_t)(edge_first + k) : (uint32_t)(c->first + k);
			q.self = self;
			pbd_aabb box = pass ? rest_box(w, w->topology.edge + 2 * self, 2, reach) : rest_box(w, &self, 1, reach);
			pbd_grid_query(&grid, box, -1, visit_closest, &q);
		}
	}
	pbd_grid_free(w, &grid);
	pbd_free_array(w, boxes, (size_t)(n > 0 ? n : 1), sizeof *boxes);
	return ok;
}

// How far two patches of a self-colliding cloth may stray from a shared rigid motion when the
// closest rest pair with a primitive in either is `closest` apart. Pairs of rest distance r
// keep min(thickness, r/2): a shared rigid motion within d keeps them apart when 2d < r/2 and
// 2d < thickness (margins for rounding). The lips of a tear keep at least the tear gap g: the
// closest pair keeps max(r/2, g), so a shared motion within d keeps it when 2d < r - max(r/2, g).
// Either grows with `closest`.
static float tolerance_of(const pbd_body *c, float thickness, double closest)
{
	if (c->tear_gap > 0.0f) {
		double slack = closest - fmax(closest * PBD_KEPT_REST_SHARE, (double)c->tear_gap);
		return minf(0.49f * thickness, 0.49f * (float)fmax(slack, 0.0));
	}
	return minf(0.49f * thickness, 0.245f * (float)closest);
}

static float thickness_of(const pbd_world *w, const pbd_body *c) { return 2.0f * w->particles.radius[c->first]; }

// Whether the search meets the pairs of a cloth's own patches one by one: a self-colliding
// cloth the near pairs do not cover (their pairs are not the search's: the rest are at least
// twice the thickness apart at rest and keep the thickness).
static bool searched_by_pairs(const pbd_world *w, uint32_t slot)
{
	const pbd_body *c = &w->bodies.slots[slot];
	return c->kind == PBD_BODY_CLOTH && c->material.self_collision && thickness_of(w, c) > 0.0f &&
	       !pbd_near_body_of(&w->pairs.near, slot);
}

// ---- The rest shape's closest pairs, per cloth, kept while its rest shape stays

void pbd_rest_closest_free(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	for (int k = 0; k < pr->rest_closest_capacity; ++k)
		pbd_free(w, pr->rest_closest[k].block, pr->rest_closest[k].bytes);
	pbd_free_array(w, pr->rest_closest, (size_t)pr->rest_closest_capacity, sizeof *pr->rest_closest);
	pr->rest_closest = NULL;
	pr->rest_closest_capacity = 0;
}

static void forget_shape(pbd_world *w, pbd_rest_closest *m)
{
	pbd_free(w, m->block, m->bytes);
	*m = (pbd_rest_closest){0};
}

// Whether m was measured on cloth c's rest shape and corners now (triangles from tri, edges
// from edge), at this reach: then its distances hold as they are.
static bool same_shape(const pbd_world *w, const pbd_rest_closest *m, const pbd_body *c, int tri, int nt, int edge,
		       int ne, float reach)
{
	if (!m->block || m->count != c->count || m->tri_count != nt || m->edge_count != ne || m->reach != reach ||
	    m->torn != (c->tear_gap > 0.0f))
		return false;
	if (c->count > 0 && memcmp(m->rest, w->particles.rest + c->first, (size_t)c->count * sizeof *m->rest) != 0)
		return false;
	for (int k = 0; k < 3 * nt; ++k)
		if (m->tri[k] != w->topology.tri[3 * tri + k] - (uint32_t)c->first)
			return false;
	for (int k = 0; k < 2 * ne; ++k)
		if (m->edge_corners[k] != w->topology.edge[2 * edge + k] - (uint32_t)c->first)
			return false;
	return true;
}

// Measures cloth c's rest shape into m (room, its key, the distances). False when out of memory
// (m is then empty).
static bool measure_shape(pbd_world *w, pbd_rest_closest *m, const pbd_body *c, int tri, int nt, int edge, int ne,
			  float reach)
{
	int nv = c->count;
	size_t doubles = (size_t)nv + (size_t)nt + (size_t)ne;
	size_t bytes = doubles * sizeof(double) + (size_t)nv * sizeof(pbd_v3) +
		       (3 * (size_t)nt + 2 * (size_t)ne) * sizeof(uint32_t);
	if (bytes == 0)
		return true;  // nothing to measure (and nothing kept: it is measured each time)
	if (m->bytes != bytes) {
		forget_shape(w, m);
		m->block = pbd_alloc(w, bytes);
		if (!m->block)
			return false;
		m->bytes = bytes;
	}
	m->count = nv, m->tri_count = nt, m->edge_count = ne, m->reach = reach, m->torn = c->tear_gap > 0.0f;
	double *d = m->block;
	m->vertex = d, m->triangle = d + nv, m->edge = d + nv + nt;
	m->rest = (pbd_v3 *)(d + doubles);
	m->tri = (uint32_t *)(m->rest + nv);
	m->edge_corners = m->tri + 3 * (size_t)nt;
	for (size_t k = 0; k < doubles; ++k)
		d[k] = reach;
	if (nv > 0)
		memcpy(m->rest, w->particles.rest + c->first, (size_t)nv * sizeof *m->rest);
	for (int k = 0; k < 3 * nt; ++k)
		m->tri[k] = w->topology.tri[3 * tri + k] - (uint32_t)c->first;
	for (int k = 0; k < 2 * ne; ++k)
		m->edge_corners[k] = w->topology.edge[2 * edge + k] - (uint32_t)c->first;
	if (!rest_closest(w, c, tri, nt, edge, ne, reach, m)) {
		forget_shape(w, m);
		return false;
	}
	return true;
}

// Every body slot's entry, the ones of slots that hold no cloth searched pair by pair let go;
// slot s's triangles are tri_first[s] .. tri_first[s + 1] - 1, its edges likewise.
static bool measure_cloths(pbd_world *w, const int *tri_first, const int *edge_first)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->rest_closest_capacity < w->bodies.capacity) {
		int old = pr->rest_closest_capacity;
		if (!pbd_grow_array(w, (void **)&pr->rest_closest, (size_t)old, (size_t)w->bodies.capacity,
				    sizeof *pr->rest_closest))
			return false;
		pr->rest_closest_capacity = w->bodies.capacity;
		for (int k = old; k < w->bodies.capacity; ++k)
			pr->rest_closest[k] = (pbd_rest_closest){0};
	}
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		pbd_rest_closest *m = &pr->rest_closest[s];
		if (!c->live || !searched_by_pairs(w, (uint32_t)s)) {
			forget_shape(w, m);
			continue;
		}
		int tri = tri_first[s], nt = tri_first[s + 1] - tri, edge = edge_first[s], ne = edge_first[s + 1] - edge;
		float reach = (float)(thickness_of(w, c) / PBD_KEPT_REST_SHARE);
		if (!same_shape(w, m, c, tri, nt, edge, ne, reach) && !measure_shape(w, m, c, tri, nt, edge, ne, reach))
			return false;
	}
	return true;
}

// The smallest rest distance of a pair one of patch p's primitives is in (its cloth's reach
// when there is none): those of its own particles, its triangles and its edges.
static double patch_closest(const pbd_world *w, int p, const int *tri_first, const int *edge_first)
{
	const pbd_pairs *pr = &w->pairs;
	uint32_t s = pr->patch_body[p];
	const pbd_rest_closest *m = &pr->rest_closest[s];
	int first = w->bodies.slots[s].first;
	double d = m->reach;
	for (int k = pr->patch_own_start[p]; k < pr->patch_own_start[p + 1]; ++k)
		d = fmin(d, m->vertex[(int)pr->patch_own[k] - first]);
	for (int k = pr->patch_tri_start[p]; k < pr->patch_tri_start[p + 1]; ++k)
		d = fmin(d, m->triangle[(int)pr->patch_tris[k] - tri_first[s]]);
	for (int k = pr->patch_edge_start[p]; k < pr->patch_edge_start[p + 1]; ++k)
		d = fmin(d, m->edge[(int)pr->patch_edges[k] - edge_first[s]]);
	return d;
}

// Every patch's tolerance from the closest rest pairs of its primitives; `first` room for two
// ints per body slot and two more.
static bool patch_tolerances(pbd_world *w, int *first)
{
	pbd_pairs *pr = &w->pairs;
	// A body's triangles and edges are the next ones in the topology's lists, slot by slot.
	int *tri_first = first, *edge_first = first + w->bodies.capacity + 1, tri = 0, edge = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		tri_first[s] = tri, edge_first[s] = edge;
		while (tri < w->topology.tri_count && w->topology.tri_owner[tri] == (uint32_t)s)
			tri++;
		while (edge < w->topology.edge_count && w->topology.edge_owner[edge] == (uint32_t)s)
			edge++;
	}
	tri_first[w->bodies.capacity] = tri, edge_first[w->bodies.capacity] = edge;
	if (!measure_cloths(w, tri_first, edge_first))
		return false;
	for (int p = 0; p < pr->patch_count; ++p) {
		uint32_t slot = pr->patch_body[p];
		const pbd_body *c = &w->bodies.slots[slot];
		pr->patch_tolerance[p] = 0.0f;
		if (c->kind != PBD_BODY_CLOTH || c->count == 0)
			continue;
		if (pbd_near_body_of(&pr->near, slot))
			pr->patch_tolerance[p] = 0.49f * thickness_of(w, c);
		else if (searched_by_pairs(w, slot))
			pr->patch_tolerance[p] =
				tolerance_of(c, thickness_of(w, c), patch_closest(w, p, tri_first, edge_first));
	}
	return true;
}

bool pbd_patches_tolerances(pbd_world *w)
{
	pbd_pairs *pr = &w->pairs;
	if (pr->tolerances_valid)
		return true;
	size_t n = 2 * ((size_t)w->bodies.capacity + 1);
	int *first = pbd_alloc_array(w, n, sizeof *first);
	if (!first)
		return false;
	pr->tolerances_valid = patch_tolerances(w, first);
	pbd_free_array(w, first, n, sizeof *first);
	return pr->tolerances_valid;
}
