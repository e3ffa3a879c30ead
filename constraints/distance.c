// SPDX-License-Identifier: MIT
// XPBD distance constraints: C = |pi - pj| - L0 (stretch along edges, shear across quads).
#include "../engine/world.h"
#include "wide.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

bool pbd_distance_build(pbd_world *world, pbd_distance_constraints *c, int particle_count, int count,
			const uint32_t *ij, const float *rest, const float *scale, const uint8_t *kind)
{
	size_t n = (size_t)count;
	c->count = count;
	c->shortest = INFINITY;
	if (count == 0)
		return true;
	int *perm = pbd_alloc_array(world, n, sizeof *perm);
	int *starts = pbd_alloc_array(world, n + 1, sizeof *starts);
	c->ij = pbd_alloc_array(world, n * 2, sizeof *c->ij);
	c->rest = pbd_alloc_array(world, n, sizeof *c->rest);
	c->scale = pbd_alloc_array(world, n, sizeof *c->scale);
	c->kind = pbd_alloc_array(world, n, sizeof *c->kind);
	c->alpha = pbd_alloc_array(world, n, sizeof *c->alpha);
	c->lambda = pbd_alloc_array(world, n, sizeof *c->lambda);
	int colors = perm && starts ? pbd_color_constraints(world, count, 2, ij, particle_count, perm, starts) : -1;
	bool ok = colors >= 0 && c->ij && c->rest && c->scale && c->kind && c->alpha && c->lambda;
	if (ok) {
		c->color_start = pbd_alloc_array(world, (size_t)colors + 1, sizeof *c->color_start);
		ok = c->color_start != NULL;
	}
	if (ok) {
		c->color_count = colors;
		for (int k = 0; k <= colors; ++k)
			c->color_start[k] = starts[k];
		for (int k = 0; k < count; ++k) {
			int o = perm[k];
			c->ij[2 * k] = ij[2 * o];
			c->ij[2 * k + 1] = ij[2 * o + 1];
			c->rest[k] = rest[o];
			c->shortest = fminf(c->shortest, rest[o]);
			c->scale[k] = scale[o];
			c->kind[k] = kind[o];
		}
		c->band_start = pbd_color_bands(world, colors, c->color_start, 2, c->ij, particle_count, &c->band_reach);
		ok = c->band_start != NULL;
	}
	pbd_free_array(world, perm, n, sizeof *perm);
	pbd_free_array(world, starts, n + 1, sizeof *starts);
	if (!ok)
		pbd_distance_free(world, c);
	return ok;
}

void pbd_distance_free(pbd_world *world, pbd_distance_constraints *c)
{
	size_t n = (size_t)c->count;
	pbd_free_array(world, c->ij, n * 2, sizeof *c->ij);
	pbd_free_array(world, c->rest, n, sizeof *c->rest);
	pbd_free_array(world, c->scale, n, sizeof *c->scale);
	pbd_free_array(world, c->kind, n, sizeof *c->kind);
	pbd_free_array(world, c->alpha, n, sizeof *c->alpha);
	pbd_free_array(world, c->lambda, n, sizeof *c->lambda);
	if (c->color_start)
		pbd_free_array(world, c->color_start, (size_t)c->color_count + 1, sizeof *c->color_start);
	if (c->band_start)
		pbd_free_array(world, c->band_start, (size_t)c->color_count * (PBD_BANDS + 1), sizeof *c->band_start);
	*c = (pbd_distance_constraints){0};
}

void pbd_distance_set_compliance(pbd_distance_constraints *c, float stretch, float shear)
{
	for (int k = 0; k < c->count; ++k)
		c->alpha[k] = (c->kind[k] == PBD_DISTANCE_SHEAR ? shear : stretch) * c->scale[k];
}

void pbd_distance_reset(pbd_distance_constraints *c)
{
	for (int k = 0; k < c->count; ++k)
		c->lambda[k] = 0.0f;
}

void pbd_distance_solve(pbd_v4 *p, pbd_distance_constraints *c, float inv_h2)
{
	for (int k = 0; k < c->color_count; ++k)
		pbd_distance_solve_range(p, c, c->color_start[k], c->color_start[k + 1], inv_h2, false, true);
}

#if defined(__SSE2__)
// The two ends of constraints k .. k + 3, by coordinate: a[0..3] = x, y, z, w of the first
// ends, b of the second.
static inline void load_ends(const pbd_v4 *p, const uint32_t *ij, __m128 a[4], __m128 b[4])
{
	for (int j = 0; j < 4; ++j) {
		a[j] = _mm_loadu_ps(&p[ij[2 * j]].x);
		b[j] = _mm_loadu_ps(&p[ij[2 * j + 1]].x);
	}
	_MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
	_MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
}

// The ends of four constraints moved along d = a - b by d s, each by its inverse mass (a
// forwards, b back), and stored where `lanes` has a bit.
static inline void move_ends_four(pbd_v4 *p, const uint32_t *ij, __m128 a[4], __m128 b[4], const __m128 d[3], __m128 s,
				  int lanes)
{
	const __m128 g[3] = {_mm_mul_ps(d[0], s), _mm_mul_ps(d[1], s), _mm_mul_ps(d[2], s)};
	__m128 nbw = _mm_xor_ps(b[3], _mm_set1_ps(-0.0f));
	for (int j = 0; j < 3; ++j) {
		a[j] = _mm_add_ps(a[j], _mm_mul_ps(g[j], a[3]));
		b[j] = _mm_add_ps(b[j], _mm_mul_ps(g[j], nbw));
	}
	_MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);  // back to one particle per register
	_MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
	for (int j = 0; j < 4; ++j) {
		if (lanes & (1 << j)) {
			_mm_storeu_ps(&p[ij[2 * j]].x, a[j]);
			_mm_storeu_ps(&p[ij[2 * j + 1]].x, b[j]);
		}
	}
}

// Four constraints of one color at once: they share no particle, so none reads what another
// writes. The operations are the one-at-a-time loop's, in the same order and correctly
// rounded (sqrt, division), so positions come out bit for bit the same.
static void solve_four(pbd_v4 *p, pbd_distance_constraints *c, int k, float inv_h2, bool fresh, bool keep)
{
	const uint32_t *ij = c->ij + 2 * k;
	__m128 a[4], b[4];
	load_ends(p, ij, a, b);
	const __m128 sign = _mm_set1_ps(-0.0f);
	__m128 wsum = _mm_add_ps(a[3], b[3]);
	__m128 dx = _mm_sub_ps(a[0], b[0]), dy = _mm_sub_ps(a[1], b[1]), dz = _mm_sub_ps(a[2], b[2]);
	__m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz)));
	// Skipped as below: both ends pinned, or coincident (not-less-than keeps NaN, as `<` does).
	__m128 active = _mm_and_ps(_mm_cmpneq_ps(wsum, _mm_setzero_ps()), _mm_cmpnlt_ps(len, _mm_set1_ps(1e-9f)));
	int lanes = _mm_movemask_ps(active);
	if (lanes == 0)
		return;
	__m128 alpha = _mm_mul_ps(_mm_loadu_ps(c->alpha + k), _mm_set1_ps(inv_h2));
	__m128 lambda = fresh ? _mm_setzero_ps() : _mm_loadu_ps(c->lambda + k);
	__m128 error = _mm_add_ps(_mm_sub_ps(len, _mm_loadu_ps(c->rest + k)), _mm_mul_ps(alpha, lambda));
	__m128 dl = _mm_div_ps(_mm_xor_ps(error, sign), _mm_add_ps(wsum, alpha));
	if (keep)
		_mm_storeu_ps(c->lambda + k, _mm_or_ps(_mm_and_ps(active, _mm_add_ps(lambda, dl)), _mm_andnot_ps(active, lambda)));
	move_ends_four(p, ij, a, b, (const __m128[3]){dx, dy, dz}, _mm_div_ps(dl, len), lanes);
}
#endif

#if PBD_WIDE
// move_ends_four on eight lanes.
PBD_WIDE_FN static inline void move_ends_eight(pbd_v4 *p, const uint32_t *ij, __m256 a[4], __m256 b[4],
					       const __m256 d[3], __m256 s, int lanes)
{
	__m256 nbw = _mm256_xor_ps(b[3], _mm256_set1_ps(-0.0f));
	for (int j = 0; j < 3; ++j) {
		__m256 g = _mm256_mul_ps(d[j], s);
		a[j] = _mm256_add_ps(a[j], _mm256_mul_ps(g, a[3]));
		b[j] = _mm256_add_ps(b[j], _mm256_mul_ps(g, nbw));
	}
	pbd_wide_store(&p->x, ij, 2, a, lanes);
	pbd_wide_store(&p->x, ij + 1, 2, b, lanes);
}

// solve_four's operations on eight lanes (wide.h).
PBD_WIDE_FN static void solve_eight(pbd_v4 *p, pbd_distance_constraints *c, int k, float inv_h2, bool fresh, bool keep)
{
	const uint32_t *ij = c->ij + 2 * k;
	__m256 a[4], b[4];
	pbd_wide_load(&p->x, ij, 2, a);
	pbd_wide_load(&p->x, ij + 1, 2, b);
	const __m256 sign = _mm256_set1_ps(-0.0f);
	__m256 wsum = _mm256_add_ps(a[3], b[3]);
	__m256 dx = _mm256_sub_ps(a[0], b[0]), dy = _mm256_sub_ps(a[1], b[1]), dz = _mm256_sub_ps(a[2], b[2]);
	__m256 len = _mm256_sqrt_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
						  _mm256_mul_ps(dz, dz)));
	__m256 active = _mm256_and_ps(_mm256_cmp_ps(wsum, _mm256_setzero_ps(), _CMP_NEQ_UQ),
				      _mm256_cmp_ps(len, _mm256_set1_ps(1e-9f), _CMP_NLT_UQ));
	int lanes = _mm256_movemask_ps(active);
	if (lanes == 0)
		return;
	__m256 alpha = _mm256_mul_ps(_mm256_loadu_ps(c->alpha + k), _mm256_set1_ps(inv_h2));
	__m256 lambda = fresh ? _mm256_setzero_ps() : _mm256_loadu_ps(c->lambda + k);
	__m256 error = _mm256_add_ps(_mm256_sub_ps(len, _mm256_loadu_ps(c->rest + k)), _mm256_mul_ps(alpha, lambda));
	__m256 dl = _mm256_div_ps(_mm256_xor_ps(error, sign), _mm256_add_ps(wsum, alpha));
	if (keep)
		_mm256_storeu_ps(c->lambda + k, _mm256_blendv_ps(lambda, _mm256_add_ps(lambda, dl), active));
	move_ends_eight(p, ij, a, b, (const __m256[3]){dx, dy, dz}, _mm256_div_ps(dl, len), lanes);
}
#endif

void pbd_distance_solve_range(pbd_v4 *p, pbd_distance_constraints *c, int start, int end, float inv_h2, bool fresh,
			      bool keep)
{
	const uint32_t *ij = c->ij;
#if defined(__SSE2__)
	// The overflow color may share particles: one at a time there.
	if (pbd_colors_independent(c->color_count, c->color_start, end)) {
#if PBD_WIDE
		if (pbd_wide_available())
			for (; start + 8 <= end; start += 8)
				solve_eight(p, c, start, inv_h2, fresh, keep);
#endif
		for (; start + 4 <= end; start += 4)
			solve_four(p, c, start, inv_h2, fresh, keep);
	}
#endif
	for (int k = start; k < end; ++k) {
		pbd_v4 *a = &p[ij[2 * k]], *b = &p[ij[2 * k + 1]];
		float wsum = a->w + b->w;
		if (wsum == 0.0f)
			continue;
		pbd_v3 d = v3_sub(v3_of4(*a), v3_of4(*b));
		float len = v3_len(d);
		if (len < 1e-9f)
			continue;  // coincident: no direction to push along
		float alpha = c->alpha[k] * inv_h2;
		float lambda = fresh ? 0.0f : c->lambda[k];
		float dl = -(len - c->rest[k] + alpha * lambda) / (wsum + alpha);
		if (keep)
			c->lambda[k] = lambda + dl;
		pbd_v3 g = v3_scale(d, dl / len);
		v4_set3(a, v3_mad(v3_of4(*a), g, a->w));
		v4_set3(b, v3_mad(v3_of4(*b), g, -b->w));
	}
}

float pbd_distance_max_strain_range(const pbd_v4 *p, const pbd_distance_constraints *c, pbd_distance_kind kind,
				    int start, int end)
{
	float worst = 0.0f;
#if defined(__SSE2__)
	// Four at a time: the same strains, correctly rounded; a maximum in any order. Lanes of
	// another kind count 0, NaN strains lose every comparison (maxps keeps its second operand).
	__m128 most = _mm_setzero_ps();
	for (; start + 4 <= end; start += 4) {
		__m128 a[4], b[4];
		load_ends(p, c->ij + 2 * start, a, b);
		__m128 dx = _mm_sub_ps(a[0], b[0]), dy = _mm_sub_ps(a[1], b[1]), dz = _mm_sub_ps(a[2], b[2]);
		__m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz)));
		__m128 rest = _mm_loadu_ps(c->rest + start);
		__m128 strain = _mm_div_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), _mm_sub_ps(len, rest)), rest);
		const uint8_t *kinds = c->kind + start;
		__m128 same = _mm_castsi128_ps(_mm_setr_epi32(kinds[0] == kind ? -1 : 0, kinds[1] == kind ? -1 : 0,
							      kinds[2] == kind ? -1 : 0, kinds[3] == kind ? -1 : 0));
		most = _mm_max_ps(_mm_and_ps(same, strain), most);
	}
	float lanes[4];
	_mm_storeu_ps(lanes, most);
	worst = maxf(maxf(lanes[0], lanes[1]), maxf(lanes[2], lanes[3]));
#endif
	for (int k = start; k < end; ++k) {
		if (c->kind[k] != kind)
			continue;
		float len = v3_len(v3_sub(v3_of4(p[c->ij[2 * k]]), v3_of4(p[c->ij[2 * k + 1]])));
		worst = maxf(fabsf(len - c->rest[k]) / c->rest[k], worst);  // a NaN strain loses
	}
	return worst;
}

// ---- The kind's interface (constraints.h)

// Stretch along every mesh edge, scaled by L^2 / (area around the edge) so the response does
// not depend on the resolution; shear along the grid's second diagonals.
static bool build_from_mesh(pbd_world *w, pbd_body *cloth, const pbd_cloth_mesh *m)
{
	int ne = m->edge_count, ns = m->shear_count, nd = ne + ns;
	uint32_t *ij = pbd_alloc_array(w, (size_t)nd * 2, sizeof *ij);
	float *rest = pbd_alloc_array(w, (size_t)nd, sizeof *rest);
	float *scale = pbd_alloc_array(w, (size_t)nd, sizeof *scale);
	uint8_t *kind = pbd_alloc_array(w, (size_t)nd, sizeof *kind);
	bool ok = ij && rest && scale && kind;
	if (ok) {
		for (int e = 0; e < ne; ++e) {
			uint32_t a = m->edges[2 * e], c = m->edges[2 * e + 1];
			float len = v3_len(v3_sub(m->rest[a], m->rest[c]));
			ij[2 * e] = a;
			ij[2 * e + 1] = c;
			rest[e] = len;
			scale[e] = len * len / m->edge_area[e];
			kind[e] = PBD_DISTANCE_STRETCH;
		}
		for (int s = 0; s < ns; ++s) {
			uint32_t a = m->shear[2 * s], c = m->shear[2 * s + 1];
			float len = v3_len(v3_sub(m->rest[a], m->rest[c]));
			ij[2 * (ne + s)] = a;
			ij[2 * (ne + s) + 1] = c;
			rest[ne + s] = len;
			// The diagonal spans one quad: two triangles of area len^2 / 4 each.
			scale[ne + s] = 2.0f;
			kind[ne + s] = PBD_DISTANCE_SHEAR;
		}
		ok = pbd_distance_build(w, &cloth->distance, m->vertex_count, nd, ij, rest, scale, kind);
	}
	pbd_free_array(w, ij, (size_t)nd * 2, sizeof *ij);
	pbd_free_array(w, rest, (size_t)nd, sizeof *rest);
	pbd_free_array(w, scale, (size_t)nd, sizeof *scale);
	pbd_free_array(w, kind, (size_t)nd, sizeof *kind);
	if (ok)
		pbd_distance_set_compliance(&cloth->distance, cloth->material.stretch_compliance,
					    cloth->material.shear_compliance);
	return ok;
}

static void free_cloth(pbd_world *w, pbd_body *cloth) { pbd_distance_free(w, &cloth->distance); }
static int count(const pbd_body *cloth) { return cloth->distance.count; }

static pbd_color_layout colors(const pbd_body *cloth)
{
	const pbd_distance_constraints *d = &cloth->distance;
	return (pbd_color_layout){d->color_count, d->color_start, d->band_start, d->band_reach};
}

static void solve_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const pbd_constraint_job *job = context;
	pbd_distance_solve_range(job->p, &job->cloth->distance, job->first + start, job->first + end, job->inv_h2,
				 job->fresh, job->keep);
}

const pbd_constraint_kind pbd_kind_distance = {build_from_mesh, free_cloth, count, NULL, colors, solve_range};

// ---- The stretch limit: the stretch constraints again, after every kind has had its say.

// Constraint k brought back to (1 + limit) rest when longer (and a stretch constraint).
static inline void limit_one(pbd_v4 *p, const pbd_distance_constraints *c, int k, float limit)
{
	if (c->kind[k] != PBD_DISTANCE_STRETCH)
		return;
	pbd_v4 *a = &p[c->ij[2 * k]], *b = &p[c->ij[2 * k + 1]];
	float wsum = a->w + b->w, most = (1.0f + limit) * c->rest[k];
	pbd_v3 d = v3_sub(v3_of4(*a), v3_of4(*b));
	float len = v3_len(d);
	if (wsum == 0.0f || !(len > most))
		return;
	pbd_v3 g = v3_scale(d, (most - len) / (len * wsum));
	v4_set3(a, v3_mad(v3_of4(*a), g, a->w));
	v4_set3(b, v3_mad(v3_of4(*b), g, -b->w));
}

// Of the `count` lanes from constraint k on, those in `lanes` that are stretch constraints.
static inline int stretch_lanes(const pbd_distance_constraints *c, int k, int count, int lanes)
{
	for (int j = 0; j < count; ++j)
		if (c->kind[k + j] != PBD_DISTANCE_STRETCH)
			lanes &= ~(1 << j);
	return lanes;
}

#if defined(__SSE2__)
// limit_one on four constraints of one color at once, with its operations in its order (bit
// for bit the same): only the lanes past the limit are written.
static void limit_four(pbd_v4 *p, const pbd_distance_constraints *c, int k, float limit)
{
	const uint32_t *ij = c->ij + 2 * k;
	__m128 a[4], b[4];
	load_ends(p, ij, a, b);
	__m128 wsum = _mm_add_ps(a[3], b[3]);
	__m128 most = _mm_mul_ps(_mm_set1_ps(1.0f + limit), _mm_loadu_ps(c->rest + k));
	__m128 dx = _mm_sub_ps(a[0], b[0]), dy = _mm_sub_ps(a[1], b[1]), dz = _mm_sub_ps(a[2], b[2]);
	__m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz)));
	__m128 over = _mm_and_ps(_mm_cmpneq_ps(wsum, _mm_setzero_ps()), _mm_cmpgt_ps(len, most));
	int lanes = stretch_lanes(c, k, 4, _mm_movemask_ps(over));
	if (lanes == 0)
		return;
	move_ends_four(p, ij, a, b, (const __m128[3]){dx, dy, dz}, _mm_div_ps(_mm_sub_ps(most, len), _mm_mul_ps(len, wsum)),
		       lanes);
}
#endif

#if PBD_WIDE
// limit_four on eight lanes (wide.h).
PBD_WIDE_FN static void limit_eight(pbd_v4 *p, const pbd_distance_constraints *c, int k, float limit)
{
	const uint32_t *ij = c->ij + 2 * k;
	__m256 a[4], b[4];
	pbd_wide_load(&p->x, ij, 2, a);
	pbd_wide_load(&p->x, ij + 1, 2, b);
	__m256 wsum = _mm256_add_ps(a[3], b[3]);
	__m256 most = _mm256_mul_ps(_mm256_set1_ps(1.0f + limit), _mm256_loadu_ps(c->rest + k));
	__m256 dx = _mm256_sub_ps(a[0], b[0]), dy = _mm256_sub_ps(a[1], b[1]), dz = _mm256_sub_ps(a[2], b[2]);
	__m256 len = _mm256_sqrt_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
						  _mm256_mul_ps(dz, dz)));
	__m256 over = _mm256_and_ps(_mm256_cmp_ps(wsum, _mm256_setzero_ps(), _CMP_NEQ_UQ), _mm256_cmp_ps(len, most, _CMP_GT_OQ));
	int lanes = stretch_lanes(c, k, 8, _mm256_movemask_ps(over));
	if (lanes == 0)
		return;
	move_ends_eight(p, ij, a, b, (const __m256[3]){dx, dy, dz},
			_mm256_div_ps(_mm256_sub_ps(most, len), _mm256_mul_ps(len, wsum)), lanes);
}
#endif

void pbd_distance_limit_range(pbd_v4 *p, const pbd_distance_constraints *c, int start, int end, float limit)
{
#if defined(__SSE2__)
	// The overflow color may share particles: one at a time there.
	if (pbd_colors_independent(c->color_count, c->color_start, end)) {
#if PBD_WIDE
		if (pbd_wide_available())
			for (; start + 8 <= end; start += 8)
				limit_eight(p, c, start, limit);
#endif
		for (; start + 4 <= end; start += 4)
			limit_four(p, c, start, limit);
	}
#endif
	for (int k = start; k < end; ++k)
		limit_one(p, c, k, limit);
}

static bool build_nothing(pbd_world *w, pbd_body *cloth, const pbd_cloth_mesh *m)
{
	PBD_UNUSED(w), PBD_UNUSED(cloth), PBD_UNUSED(m);
	return true;
}
static void free_nothing(pbd_world *w, pbd_body *cloth) { PBD_UNUSED(w), PBD_UNUSED(cloth); }
// It adds no constraints of its own: it goes over the stretch constraints again.
static int no_constraints(const pbd_body *cloth)
{
	PBD_UNUSED(cloth);
	return 0;
}
static bool limited(const pbd_body *cloth) { return cloth->material.stretch_limit > 0.0f; }
static int limit_items(const pbd_body *cloth) { return limited(cloth) ? cloth->distance.count : 0; }
static pbd_color_layout limit_colors(const pbd_body *cloth)
{
	return limited(cloth) ? colors(cloth) : (pbd_color_layout){0};
}

static void limit_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const pbd_constraint_job *job = context;
	pbd_distance_limit_range(job->p, &job->cloth->distance, job->first + start, job->first + end,
				 job->cloth->material.stretch_limit);
}

const pbd_constraint_kind pbd_kind_stretch_limit = {build_nothing, free_nothing, no_constraints, limit_items,
						    limit_colors, limit_range};
