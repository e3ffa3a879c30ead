// SPDX-License-Identifier: MIT
// Isometric bending (Bergou et al. 2006); the model and why it was chosen: constraints.h.
#include "../engine/world.h"
#include "wide.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static float cotangent(pbd_v3 a, pbd_v3 b)
{
	float s = v3_len(v3_cross(a, b));
	return s > 1e-20f ? v3_dot(a, b) / s : 0.0f;
}

// x0, x1: the shared edge; x2, x3: the vertices opposite it. The weights are the cotangent
// Laplacian of the four-vertex stencil: sum K_i = 0 and sum K_i x_i = 0 for any flat
// (affine) image of the rest stencil, so flat cloth has no bending energy however it stretches.
bool pbd_bending_weights(pbd_v3 x0, pbd_v3 x1, pbd_v3 x2, pbd_v3 x3, float k[4], float *area_sum)
{
	pbd_v3 e0 = v3_sub(x1, x0), e1 = v3_sub(x2, x0), e2 = v3_sub(x3, x0);
	pbd_v3 e3 = v3_sub(x2, x1), e4 = v3_sub(x3, x1);
	float a0 = 0.5f * v3_len(v3_cross(e0, e1)), a1 = 0.5f * v3_len(v3_cross(e0, e2));
	if (!(a0 > 0.0f) || !(a1 > 0.0f))
		return false;
	pbd_v3 ne0 = v3_scale(e0, -1.0f);
	float c01 = cotangent(e0, e1), c02 = cotangent(e0, e2);
	float c03 = cotangent(ne0, e3), c04 = cotangent(ne0, e4);
	k[0] = c03 + c04;
	k[1] = c01 + c02;
	k[2] = -c01 - c03;
	k[3] = -c02 - c04;
	*area_sum = a0 + a1;
	return true;
}

bool pbd_bending_build(pbd_world *world, pbd_bending_constraints *c, int particle_count, int count,
		       const uint32_t *v, const pbd_v3 *rest_positions)
{
	size_t n = (size_t)count;
	c->count = count;
	if (count == 0)
		return true;
	int *perm = pbd_alloc_array(world, n, sizeof *perm);
	int *starts = pbd_alloc_array(world, n + 1, sizeof *starts);
	c->v = pbd_alloc_array(world, n * 4, sizeof *c->v);
	c->k = pbd_alloc_array(world, n * 4, sizeof *c->k);
	c->scale = pbd_alloc_array(world, n, sizeof *c->scale);
	c->lambda = pbd_alloc_array(world, n * 3, sizeof *c->lambda);
	int colors = perm && starts ? pbd_color_constraints(world, count, 4, v, particle_count, perm, starts) : -1;
	bool ok = colors >= 0 && c->v && c->k && c->scale && c->lambda;
	if (ok) {
		c->color_start = pbd_alloc_array(world, (size_t)colors + 1, sizeof *c->color_start);
		ok = c->color_start != NULL;
	}
	if (ok) {
		c->color_count = colors;
		for (int k = 0; k <= colors; ++k)
			c->color_start[k] = starts[k];
		for (int k = 0; k < count; ++k) {
			const uint32_t *s = v + 4 * perm[k];
			float area = 0.0f;
			for (int j = 0; j < 4; ++j)
				c->v[4 * k + j] = s[j];
			if (!pbd_bending_weights(rest_positions[s[0]], rest_positions[s[1]], rest_positions[s[2]],
						 rest_positions[s[3]], c->k + 4 * k, &area)) {
				for (int j = 0; j < 4; ++j)
					c->k[4 * k + j] = 0.0f;  // inert; validated meshes never get here
			}
			// Energy (3 / (2 (A0 + A1))) |C|^2 / compliance = |C|^2 / (2 alpha): alpha = compliance (A0 + A1) / 3.
			c->scale[k] = area / 3.0f;
		}
		c->band_start = pbd_color_bands(world, colors, c->color_start, 4, c->v, particle_count, &c->band_reach);
		ok = c->band_start != NULL;
	}
	pbd_free_array(world, perm, n, sizeof *perm);
	pbd_free_array(world, starts, n + 1, sizeof *starts);
	if (!ok)
		pbd_bending_free(world, c);
	return ok;
}

void pbd_bending_free(pbd_world *world, pbd_bending_constraints *c)
{
	size_t n = (size_t)c->count;
	pbd_free_array(world, c->v, n * 4, sizeof *c->v);
	pbd_free_array(world, c->k, n * 4, sizeof *c->k);
	pbd_free_array(world, c->scale, n, sizeof *c->scale);
	pbd_free_array(world, c->lambda, n * 3, sizeof *c->lambda);
	if (c->color_start)
		pbd_free_array(world, c->color_start, (size_t)c->color_count + 1, sizeof *c->color_start);
	if (c->band_start)
		pbd_free_array(world, c->band_start, (size_t)c->color_count * (PBD_BANDS + 1), sizeof *c->band_start);
	*c = (pbd_bending_constraints){0};
}

void pbd_bending_reset(pbd_bending_constraints *c)
{
	for (int k = 0; k < 3 * c->count; ++k)
		c->lambda[k] = 0.0f;
}

void pbd_bending_solve(pbd_v4 *p, pbd_bending_constraints *c, float compliance, float inv_h2)
{
	for (int k = 0; k < c->color_count; ++k)
		pbd_bending_solve_range(p, c, c->color_start[k], c->color_start[k + 1], compliance, inv_h2, false, true);
}

#if defined(__SSE2__)
// Four stencils of one color at once: they share no particle, so none reads what another
// writes. The operations are the one-at-a-time loop's, in the same order (from the same zero
// start), so positions come out bit for bit the same.
static void solve_four(pbd_v4 *p, pbd_bending_constraints *c, int k, float compliance, float inv_h2, bool fresh,
		       bool keep)
{
	const uint32_t *s = c->v + 4 * k;
	__m128 x[4], y[4], z[4], w[4];  // particle j of each stencil, by coordinate
	for (int j = 0; j < 4; ++j) {
		x[j] = _mm_loadu_ps(&p[s[j]].x);
		y[j] = _mm_loadu_ps(&p[s[4 + j]].x);
		z[j] = _mm_loadu_ps(&p[s[8 + j]].x);
		w[j] = _mm_loadu_ps(&p[s[12 + j]].x);
		_MM_TRANSPOSE4_PS(x[j], y[j], z[j], w[j]);
	}
	__m128 K[4] = {_mm_loadu_ps(c->k + 4 * k), _mm_loadu_ps(c->k + 4 * k + 4), _mm_loadu_ps(c->k + 4 * k + 8),
		       _mm_loadu_ps(c->k + 4 * k + 12)};
	_MM_TRANSPOSE4_PS(K[0], K[1], K[2], K[3]);  // K[j]: weight j of each stencil
	__m128 cx = _mm_setzero_ps(), cy = cx, cz = cx, denom = cx;
	__m128 wk[4];
	for (int j = 0; j < 4; ++j) {
		cx = _mm_add_ps(cx, _mm_mul_ps(x[j], K[j]));
		cy = _mm_add_ps(cy, _mm_mul_ps(y[j], K[j]));
		cz = _mm_add_ps(cz, _mm_mul_ps(z[j], K[j]));
		wk[j] = _mm_mul_ps(w[j], K[j]);
		denom = _mm_add_ps(denom, _mm_mul_ps(wk[j], K[j]));
	}
	__m128 alpha = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(compliance), _mm_loadu_ps(c->scale + k)), _mm_set1_ps(inv_h2));
	__m128 sum = _mm_add_ps(denom, alpha);
	int lanes = _mm_movemask_ps(_mm_cmpnle_ps(sum, _mm_setzero_ps()));  // skipped below when <= 0
	if (lanes == 0)
		return;
	float *lambda = c->lambda + 3 * k;
	__m128 lx = _mm_setzero_ps(), ly = lx, lz = lx;
	if (!fresh) {
		lx = _mm_setr_ps(lambda[0], lambda[3], lambda[6], lambda[9]);
		ly = _mm_setr_ps(lambda[1], lambda[4], lambda[7], lambda[10]);
		lz = _mm_setr_ps(lambda[2], lambda[5], lambda[8], lambda[11]);
	}
	__m128 scale = _mm_div_ps(_mm_set1_ps(-1.0f), sum);
	__m128 dx = _mm_mul_ps(_mm_add_ps(cx, _mm_mul_ps(lx, alpha)), scale);
	__m128 dy = _mm_mul_ps(_mm_add_ps(cy, _mm_mul_ps(ly, alpha)), scale);
	__m128 dz = _mm_mul_ps(_mm_add_ps(cz, _mm_mul_ps(lz, alpha)), scale);
	float nx[4], ny[4], nz[4];
	_mm_storeu_ps(nx, _mm_add_ps(lx, dx));
	_mm_storeu_ps(ny, _mm_add_ps(ly, dy));
	_mm_storeu_ps(nz, _mm_add_ps(lz, dz));
	for (int j = 0; j < 4; ++j) {
		x[j] = _mm_add_ps(x[j], _mm_mul_ps(dx, wk[j]));
		y[j] = _mm_add_ps(y[j], _mm_mul_ps(dy, wk[j]));
		z[j] = _mm_add_ps(z[j], _mm_mul_ps(dz, wk[j]));
		_MM_TRANSPOSE4_PS(x[j], y[j], z[j], w[j]);  // back to one particle per register
	}
	const __m128 *row[4] = {x, y, z, w};  // row[i][j]: stencil i's particle j
	for (int i = 0; i < 4; ++i) {
		if (!(lanes & (1 << i)))
			continue;
		if (keep)
			lambda[3 * i] = nx[i], lambda[3 * i + 1] = ny[i], lambda[3 * i + 2] = nz[i];
		for (int j = 0; j < 4; ++j)
			_mm_storeu_ps(&p[s[4 * i + j]].x, row[i][j]);
	}
}
#endif

#if PBD_WIDE
// solve_four's operations on eight lanes (wide.h).
PBD_WIDE_FN static void solve_eight(pbd_v4 *p, pbd_bending_constraints *c, int k, float compliance, float inv_h2,
				    bool fresh, bool keep)
{
	const uint32_t *s = c->v + 4 * k;
	__m256 q[4][4];  // q[j]: particle j of each stencil, by coordinate
	for (int j = 0; j < 4; ++j)
		pbd_wide_load(&p->x, s + j, 4, q[j]);
	__m256 K[4];  // weight j of each stencil
	pbd_wide_load(c->k, (const uint32_t[]){k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7}, 1, K);
	__m256 cx = _mm256_setzero_ps(), cy = cx, cz = cx, denom = cx;
	__m256 wk[4];
	for (int j = 0; j < 4; ++j) {
		cx = _mm256_add_ps(cx, _mm256_mul_ps(q[j][0], K[j]));
		cy = _mm256_add_ps(cy, _mm256_mul_ps(q[j][1], K[j]));
		cz = _mm256_add_ps(cz, _mm256_mul_ps(q[j][2], K[j]));
		wk[j] = _mm256_mul_ps(q[j][3], K[j]);
		denom = _mm256_add_ps(denom, _mm256_mul_ps(wk[j], K[j]));
	}
	__m256 alpha = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(compliance), _mm256_loadu_ps(c->scale + k)),
				     _mm256_set1_ps(inv_h2));
	__m256 sum = _mm256_add_ps(denom, alpha);
	int lanes = _mm256_movemask_ps(_mm256_cmp_ps(sum, _mm256_setzero_ps(), _CMP_NLE_UQ));
	if (lanes == 0)
		return;
	float *lambda = c->lambda + 3 * k;
	__m256 lx = _mm256_setzero_ps(), ly = lx, lz = lx;
	if (!fresh) {
		lx = _mm256_setr_ps(lambda[0], lambda[3], lambda[6], lambda[9], lambda[12], lambda[15], lambda[18], lambda[21]);
		ly = _mm256_setr_ps(lambda[1], lambda[4], lambda[7], lambda[10], lambda[13], lambda[16], lambda[19], lambda[22]);
		lz = _mm256_setr_ps(lambda[2], lambda[5], lambda[8], lambda[11], lambda[14], lambda[17], lambda[20], lambda[23]);
	}
	__m256 scale = _mm256_div_ps(_mm256_set1_ps(-1.0f), sum);
	__m256 dx = _mm256_mul_ps(_mm256_add_ps(cx, _mm256_mul_ps(lx, alpha)), scale);
	__m256 dy = _mm256_mul_ps(_mm256_add_ps(cy, _mm256_mul_ps(ly, alpha)), scale);
	__m256 dz = _mm256_mul_ps(_mm256_add_ps(cz, _mm256_mul_ps(lz, alpha)), scale);
	if (keep) {
		float nx[8], ny[8], nz[8];
		_mm256_storeu_ps(nx, _mm256_add_ps(lx, dx));
		_mm256_storeu_ps(ny, _mm256_add_ps(ly, dy));
		_mm256_storeu_ps(nz, _mm256_add_ps(lz, dz));
		for (int i = 0; i < 8; ++i)
			if (lanes & (1 << i))
				lambda[3 * i] = nx[i], lambda[3 * i + 1] = ny[i], lambda[3 * i + 2] = nz[i];
	}
	for (int j = 0; j < 4; ++j) {
		q[j][0] = _mm256_add_ps(q[j][0], _mm256_mul_ps(dx, wk[j]));
		q[j][1] = _mm256_add_ps(q[j][1], _mm256_mul_ps(dy, wk[j]));
		q[j][2] = _mm256_add_ps(q[j][2], _mm256_mul_ps(dz, wk[j]));
		pbd_wide_store(&p->x, s + j, 4, q[j], lanes);
	}
}
#endif

void pbd_bending_solve_range(pbd_v4 *p, pbd_bending_constraints *c, int start, int end, float compliance,
			     float inv_h2, bool fresh, bool keep)
{
#if defined(__SSE2__)
	// The overflow color may share particles: one at a time there.
	if (pbd_colors_independent(c->color_count, c->color_start, end)) {
#if PBD_WIDE
		if (pbd_wide_available())
			for (; start + 8 <= end; start += 8)
				solve_eight(p, c, start, compliance, inv_h2, fresh, keep);
#endif
		for (; start + 4 <= end; start += 4)
			solve_four(p, c, start, compliance, inv_h2, fresh, keep);
	}
#endif
	for (int k = start; k < end; ++k) {
		const uint32_t *s = c->v + 4 * k;
		const float *K = c->k + 4 * k;
		pbd_v4 *q[4] = {&p[s[0]], &p[s[1]], &p[s[2]], &p[s[3]]};
		pbd_v3 C = v3(0, 0, 0);
		float denom = 0.0f;
		for (int j = 0; j < 4; ++j) {
			C = v3_mad(C, v3_of4(*q[j]), K[j]);
			denom += q[j]->w * K[j] * K[j];
		}
		float alpha = compliance * c->scale[k] * inv_h2;
		if (denom + alpha <= 0.0f)
			continue;
		float *lambda = c->lambda + 3 * k;
		pbd_v3 l = fresh ? v3(0, 0, 0) : v3_load(lambda);
		// The gradient of C with respect to x_j is K_j times the identity, so the XPBD
		// update is a vector: dl = -(C + alpha l) / (sum w_j K_j^2 + alpha).
		pbd_v3 dl = v3_scale(v3_mad(C, l, alpha), -1.0f / (denom + alpha));
		if (keep)
			v3_store(lambda, v3_add(l, dl));
		for (int j = 0; j < 4; ++j)
			v4_set3(q[j], v3_mad(v3_of4(*q[j]), dl, q[j]->w * K[j]));
	}
}

// ---- The kind's interface (constraints.h)

// One stencil per edge with exactly two triangles: the edge's ends, then the opposite
// vertices. A non-manifold edge keeps only its stretch constraint.
static bool build_from_mesh(pbd_world *w, pbd_body *cloth, const pbd_cloth_mesh *m)
{
	int nb = 0;
	for (int e = 0; e < m->edge_count; ++e)
		nb += m->edge_manifold[e];
	uint32_t *stencil = nb ? pbd_alloc_array(w, (size_t)nb * 4, sizeof *stencil) : NULL;
	if (nb && !stencil)
		return false;
	int k = 0;
	for (int e = 0; e < m->edge_count; ++e) {
		if (!m->edge_manifold[e])
			continue;
		uint32_t *st = stencil + 4 * k++;
		st[0] = m->edges[2 * e];
		st[1] = m->edges[2 * e + 1];
		st[2] = m->edge_opposite[2 * e];
		st[3] = m->edge_opposite[2 * e + 1];
	}
	bool ok = pbd_bending_build(w, &cloth->bending, m->vertex_count, nb, stencil, m->rest);
	pbd_free_array(w, stencil, (size_t)nb * 4, sizeof *stencil);
	return ok;
}

static void free_cloth(pbd_world *w, pbd_body *cloth) { pbd_bending_free(w, &cloth->bending); }
static int count(const pbd_body *cloth) { return cloth->bending.count; }

static pbd_color_layout colors(const pbd_body *cloth)
{
	const pbd_bending_constraints *b = &cloth->bending;
	return (pbd_color_layout){b->color_count, b->color_start, b->band_start, b->band_reach};
}

static void solve_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const pbd_constraint_job *job = context;
	pbd_bending_solve_range(job->p, &job->cloth->bending, job->first + start, job->first + end,
				job->cloth->material.bend_compliance, job->inv_h2, job->fresh, job->keep);
}

const pbd_constraint_kind pbd_kind_bending = {build_from_mesh, free_cloth, count, NULL, colors, solve_range};
