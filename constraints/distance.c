// SPDX-License-Identifier: MIT
// XPBD distance constraints: C = |pi - pj| - L0 (stretch along edges, shear across quads).
#include "../engine/world.h"

bool pbd_distance_build(pbd_world *world, pbd_distance_constraints *c, int particle_count, int count,
			const uint32_t *ij, const float *rest, const float *scale, const uint8_t *kind)
{
	size_t n = (size_t)count;
	c->count = count;
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
			c->scale[k] = scale[o];
			c->kind[k] = kind[o];
		}
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
	pbd_distance_solve_range(p, c, 0, c->count, inv_h2);
}

void pbd_distance_solve_range(pbd_v4 *p, pbd_distance_constraints *c, int start, int end, float inv_h2)
{
	const uint32_t *ij = c->ij;
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
		float dl = -(len - c->rest[k] + alpha * c->lambda[k]) / (wsum + alpha);
		c->lambda[k] += dl;
		pbd_v3 g = v3_scale(d, dl / len);
		v4_set3(a, v3_mad(v3_of4(*a), g, a->w));
		v4_set3(b, v3_mad(v3_of4(*b), g, -b->w));
	}
}

float pbd_distance_max_strain(const pbd_v4 *p, const pbd_distance_constraints *c, pbd_distance_kind kind)
{
	float worst = 0.0f;
	for (int k = 0; k < c->count; ++k) {
		if (c->kind[k] != kind)
			continue;
		float len = v3_len(v3_sub(v3_of4(p[c->ij[2 * k]]), v3_of4(p[c->ij[2 * k + 1]])));
		worst = fmaxf(worst, fabsf(len - c->rest[k]) / c->rest[k]);
	}
	return worst;
}
