// SPDX-License-Identifier: MIT
// Isometric bending (Bergou et al. 2006); the model and why it was chosen: constraints.h.
#include "../engine/world.h"

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
	*c = (pbd_bending_constraints){0};
}

void pbd_bending_reset(pbd_bending_constraints *c)
{
	for (int k = 0; k < 3 * c->count; ++k)
		c->lambda[k] = 0.0f;
}

void pbd_bending_solve(pbd_v4 *p, pbd_bending_constraints *c, float compliance, float inv_h2)
{
	pbd_bending_solve_range(p, c, 0, c->count, compliance, inv_h2);
}

void pbd_bending_solve_range(pbd_v4 *p, pbd_bending_constraints *c, int start, int end, float compliance,
			     float inv_h2)
{
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
		pbd_v3 l = v3_load(lambda);
		// The gradient of C with respect to x_j is K_j times the identity, so the XPBD
		// update is a vector: dl = -(C + alpha l) / (sum w_j K_j^2 + alpha).
		pbd_v3 dl = v3_scale(v3_mad(C, l, alpha), -1.0f / (denom + alpha));
		v3_store(lambda, v3_add(l, dl));
		for (int j = 0; j < 4; ++j)
			v4_set3(q[j], v3_mad(v3_of4(*q[j]), dl, q[j]->w * K[j]));
	}
}
