// SPDX-License-Identifier: MIT
// The stand-alone kernel of reference_kernel.h. Built with -fno-math-errno (the square root
// then vectorises), for the same instruction set as the engine.
#include "reference_kernel.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define SUBSTEPS 5
#define SPACING 0.5f
#define COMPLIANCE 1e-5f
#define GRAVITY (-9.81f)
#define COLORS 12
#define BLOCK 256

struct reference_kernel {
	int n, particles, count;
	float *x, *y, *z, *w;     // positions and inverse masses
	float *px, *py, *pz;      // positions at the substep's start
	float *vx, *vy, *vz;
	int32_t *a, *b;           // constraint ends, by color
	float *rest;
	int color_start[COLORS + 1];
};

// The 12 directions x parities; each color's constraints share no particle.
static int color_of(int i, int j, int di, int dj)
{
	if (di == 0 && dj == 1)
		return 0 + (j & 1);
	if (di == 1 && dj == 0)
		return 2 + (i & 1);
	if (di == 1 && dj == 1)
		return 4 + (i & 1);
	if (di == 1 && dj == -1)
		return 6 + (i & 1);
	if (di == 0 && dj == 2)
		return 8 + ((j >> 1) & 1);
	return 10 + ((i >> 1) & 1);  // di == 2, dj == 0
}

static const int kLinks[6][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}, {0, 2}, {2, 0}};

static int link_exists(int n, int i, int j, int l)
{
	int i1 = i + kLinks[l][0], j1 = j + kLinks[l][1];
	return i1 >= 0 && i1 < n && j1 >= 0 && j1 < n;
}

reference_kernel *reference_kernel_create(int n)
{
	reference_kernel *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->n = n, k->particles = n * n;
	int counts[COLORS] = {0};
	for (int i = 0; i < n; ++i)
		for (int j = 0; j < n; ++j)
			for (int l = 0; l < 6; ++l)
				if (link_exists(n, i, j, l))
					counts[color_of(i, j, kLinks[l][0], kLinks[l][1])]++;
	for (int c = 0; c < COLORS; ++c)
		k->color_start[c + 1] = k->color_start[c] + counts[c];
	k->count = k->color_start[COLORS];
	size_t np = (size_t)k->particles, nc = (size_t)k->count;
	float **arrays[] = {&k->x, &k->y, &k->z, &k->w, &k->px, &k->py, &k->pz, &k->vx, &k->vy, &k->vz};
	int ok = 1;
	for (size_t q = 0; q < sizeof arrays / sizeof arrays[0]; ++q)
		ok &= (*arrays[q] = calloc(np, sizeof(float))) != NULL;
	k->a = calloc(nc, sizeof *k->a), k->b = calloc(nc, sizeof *k->b), k->rest = calloc(nc, sizeof *k->rest);
	if (!ok || !k->a || !k->b || !k->rest) {
		reference_kernel_destroy(k);
		return NULL;
	}
	int fill[COLORS];
	for (int c = 0; c < COLORS; ++c)
		fill[c] = k->color_start[c];
	for (int i = 0; i < n; ++i)
		for (int j = 0; j < n; ++j)
			for (int l = 0; l < 6; ++l) {
				if (!link_exists(n, i, j, l))
					continue;
				int di = kLinks[l][0], dj = kLinks[l][1], e = fill[color_of(i, j, di, dj)]++;
				k->a[e] = i * n + j;
				k->b[e] = (i + di) * n + j + dj;
				k->rest[e] = SPACING * sqrtf((float)(di * di + dj * dj));
			}
	reference_kernel_reset(k);
	return k;
}

void reference_kernel_destroy(reference_kernel *k)
{
	if (!k)
		return;
	float *arrays[] = {k->x, k->y, k->z, k->w, k->px, k->py, k->pz, k->vx, k->vy, k->vz, k->rest};
	for (size_t q = 0; q < sizeof arrays / sizeof arrays[0]; ++q)
		free(arrays[q]);
	free(k->a);
	free(k->b);
	free(k);
}

void reference_kernel_reset(reference_kernel *k)
{
	int n = k->n;
	for (int i = 0; i < n; ++i)
		for (int j = 0; j < n; ++j) {
			int p = i * n + j;
			k->x[p] = (float)j * SPACING, k->y[p] = 0.0f, k->z[p] = (float)i * SPACING;
			k->w[p] = i == 0 && (j == 0 || j == n - 1) ? 0.0f : 1.0f;
			k->vx[p] = k->vy[p] = k->vz[p] = 0.0f;
		}
}

static void predict(int count, float h, float *restrict x, float *restrict y, float *restrict z,
		    float *restrict px, float *restrict py, float *restrict pz, const float *restrict vx,
		    float *restrict vy, const float *restrict vz, const float *restrict w)
{
	for (int i = 0; i < count; ++i) {
		vy[i] += w[i] > 0.0f ? GRAVITY * h : 0.0f;
		px[i] = x[i], py[i] = y[i], pz[i] = z[i];
		x[i] += vx[i] * h, y[i] += vy[i] * h, z[i] += vz[i] * h;
	}
}

static void update(int count, float inv_h, const float *restrict x, const float *restrict y,
		   const float *restrict z, const float *restrict px, const float *restrict py,
		   const float *restrict pz, float *restrict vx, float *restrict vy, float *restrict vz)
{
	for (int i = 0; i < count; ++i) {
		vx[i] = (x[i] - px[i]) * inv_h;
		vy[i] = (y[i] - py[i]) * inv_h;
		vz[i] = (z[i] - pz[i]) * inv_h;
	}
}

// One color: the corrections of a block first (loads and arithmetic only, which vectorise),
// then added to both ends (within a color no two constraints share a particle).
static void solve_color(int count, float alpha, float *restrict x, float *restrict y, float *restrict z,
			const float *restrict w, const int32_t *restrict a, const int32_t *restrict b,
			const float *restrict rest)
{
	float cx[BLOCK], cy[BLOCK], cz[BLOCK];
	for (int first = 0; first < count; first += BLOCK) {
		int m = count - first < BLOCK ? count - first : BLOCK;
		const int32_t *ia = a + first, *ib = b + first;
		const float *r = rest + first;
		for (int t = 0; t < m; ++t) {
			int32_t i = ia[t], j = ib[t];
			float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
			float len = sqrtf(dx * dx + dy * dy + dz * dz);
			float s = -(len - r[t]) / ((w[i] + w[j] + alpha) * (len + 1e-12f));
			cx[t] = s * dx, cy[t] = s * dy, cz[t] = s * dz;
		}
		for (int t = 0; t < m; ++t) {
			int32_t i = ia[t], j = ib[t];
			float wi = w[i], wj = w[j];
			x[i] -= wi * cx[t], y[i] -= wi * cy[t], z[i] -= wi * cz[t];
			x[j] += wj * cx[t], y[j] += wj * cy[t], z[j] += wj * cz[t];
		}
	}
}

void reference_kernel_frames(reference_kernel *k, int frames)
{
	const float h = (1.0f / 60.0f) / SUBSTEPS, inv_h = 1.0f / h, alpha = COMPLIANCE * inv_h * inv_h;
	for (int f = 0; f < frames; ++f)
		for (int s = 0; s < SUBSTEPS; ++s) {
			predict(k->particles, h, k->x, k->y, k->z, k->px, k->py, k->pz, k->vx, k->vy, k->vz, k->w);
			for (int c = 0; c < COLORS; ++c) {
				int first = k->color_start[c];
				solve_color(k->color_start[c + 1] - first, alpha, k->x, k->y, k->z, k->w, k->a + first,
					    k->b + first, k->rest + first);
			}
			update(k->particles, inv_h, k->x, k->y, k->z, k->px, k->py, k->pz, k->vx, k->vy, k->vz);
		}
}

int reference_kernel_constraints(const reference_kernel *k) { return k->count; }

double reference_kernel_max_strain(const reference_kernel *k, int *finite)
{
	double worst = 0.0;
	*finite = 1;
	for (int e = 0; e < k->count; ++e) {
		double dx = k->x[k->b[e]] - k->x[k->a[e]], dy = k->y[k->b[e]] - k->y[k->a[e]];
		double dz = k->z[k->b[e]] - k->z[k->a[e]], len = sqrt(dx * dx + dy * dy + dz * dz);
		if (!isfinite(len))
			*finite = 0;
		else if (fabs(len - k->rest[e]) / k->rest[e] > worst)
			worst = fabs(len - k->rest[e]) / k->rest[e];
	}
	return worst;
}
