// SPDX-License-Identifier: MIT
// Air: drag and lift on every cloth triangle from the wind (with gusts) relative to the
// cloth's own motion, once per step. The predict stage applies the forces (step.h).
#include <string.h>

#include "air.h"
#include "world.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Smooth gusts that travel with the wind: a few incommensurate sine waves along and across
// the wind direction, deterministic in position and time. Returns the factor on the wind.
static pbd_v3 gust_wind(const pbd_world_settings *s, pbd_v3 wind, float speed, pbd_v3 at, double time)
{
	if (s->wind_turbulence <= 0.0f || speed <= 0.0f)
		return wind;
	pbd_v3 dir = v3_scale(wind, 1.0f / speed);
	pbd_v3 side = v3_normalize_or(v3_cross(dir, v3(0, 1, 0)), v3(1, 0, 0));
	pbd_v3 up = v3_cross(side, dir);
	float along = v3_dot(at, dir) - speed * (float)time;
	float across = v3_dot(at, side), high = v3_dot(at, up);
	float g1 = 0.6f * sinf(1.3f * along + 0.7f * across) + 0.4f * sinf(3.1f * along - 1.1f * high + 1.7f);
	float g2 = sinf(2.3f * along + 1.9f * across + 0.5f);
	float g3 = sinf(1.7f * along - 2.1f * high + 2.9f);
	float t = s->wind_turbulence;
	pbd_v3 w = v3_scale(wind, 1.0f + t * g1);
	w = v3_mad(w, side, 0.3f * t * speed * g2);
	return v3_mad(w, up, 0.3f * t * speed * g3);
}

typedef struct air_job {
	pbd_world *w;
	const pbd_body *c;
	pbd_v3 wind;       // the settings' wind, its speed and half the air density
	float speed;
	float half_rho;
} air_job;

// Aerodynamic force per triangle, shared equally by its corners: a pressure along the normal
// proportional to the squared normal part of the relative air velocity (a plate facing the
// flow), and a lift across the flow for triangles at an angle to it, 0.5 rho C_l A |v| (v.n)
// along the part of n perpendicular to v. Still air (wind = 0) drags on moving cloth.
static pbd_v3 triangle_air_share(const air_job *job, int t)
{
	const pbd_world *w = job->w;
	const pbd_body *c = job->c;
	const pbd_world_settings *s = &w->settings;
	pbd_v3 wind = job->wind;
	float speed = job->speed, half_rho = job->half_rho;
	const pbd_v4 *x = w->particles.x + c->first;
	const pbd_v3 *v = w->particles.v + c->first;
	const uint32_t *tri = c->triangles + 3 * t;
	pbd_v3 a = v3_of4(x[tri[0]]), b = v3_of4(x[tri[1]]), d = v3_of4(x[tri[2]]);
	pbd_v3 cross = v3_cross(v3_sub(b, a), v3_sub(d, a));
	float twice_area = v3_len(cross);
	if (twice_area <= 1e-12f)
		return v3(0, 0, 0);
	pbd_v3 n = v3_scale(cross, 1.0f / twice_area);
	pbd_v3 center = v3_scale(v3_add(v3_add(a, b), d), 1.0f / 3.0f);
	pbd_v3 vel = v3_scale(v3_add(v3_add(v[tri[0]], v[tri[1]]), v[tri[2]]), 1.0f / 3.0f);
	pbd_v3 rel = v3_sub(gust_wind(s, wind, speed, center, w->time), vel);
	float rel_len = v3_len(rel);
	if (rel_len <= 1e-6f)
		return v3(0, 0, 0);
	float vn = v3_dot(rel, n), area = 0.5f * twice_area;
	pbd_v3 force = v3_scale(n, half_rho * s->drag_coefficient * area * fabsf(vn) * vn);
	pbd_v3 n_perp = v3_mad(n, rel, -vn / (rel_len * rel_len));
	force = v3_mad(force, n_perp, half_rho * s->lift_coefficient * area * rel_len * vn);
	return v3_scale(force, 1.0f / 3.0f);
}

#if defined(__SSE2__)
// Corner j of four triangles, by coordinate: positions as four rows transposed, velocities
// (three floats each) one by one.
static void load_corner(const air_job *job, const uint32_t *tri, int j, __m128 x[3], __m128 v[3])
{
	const pbd_v4 *p = job->w->particles.x + job->c->first;
	const pbd_v3 *u = job->w->particles.v + job->c->first;
	__m128 r0 = _mm_loadu_ps(&p[tri[j]].x), r1 = _mm_loadu_ps(&p[tri[3 + j]].x);
	__m128 r2 = _mm_loadu_ps(&p[tri[6 + j]].x), r3 = _mm_loadu_ps(&p[tri[9 + j]].x);
	_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
	x[0] = r0, x[1] = r1, x[2] = r2;
	const pbd_v3 *a = &u[tri[j]], *b = &u[tri[3 + j]], *c = &u[tri[6 + j]], *d = &u[tri[9 + j]];
	v[0] = _mm_setr_ps(a->x, b->x, c->x, d->x);
	v[1] = _mm_setr_ps(a->y, b->y, c->y, d->y);
	v[2] = _mm_setr_ps(a->z, b->z, c->z, d->z);
}

// Four triangles' shares at once in steady wind (no gusts): triangle_air_share's operations
// in its order, each correctly rounded, so every lane equals the one-at-a-time result and any
// split of the triangles over threads gives the same forces.
static void four_air_shares(const air_job *job, int t)
{
	const pbd_world_settings *s = &job->w->settings;
	const uint32_t *tri = job->c->triangles + 3 * t;
	__m128 a[3], b[3], d[3], va[3], vb[3], vd[3];
	load_corner(job, tri, 0, a, va);
	load_corner(job, tri, 1, b, vb);
	load_corner(job, tri, 2, d, vd);
	__m128 e1[3], e2[3], cross[3], rel[3], n[3];
	for (int k = 0; k < 3; ++k)
		e1[k] = _mm_sub_ps(b[k], a[k]), e2[k] = _mm_sub_ps(d[k], a[k]);
	cross[0] = _mm_sub_ps(_mm_mul_ps(e1[1], e2[2]), _mm_mul_ps(e1[2], e2[1]));
	cross[1] = _mm_sub_ps(_mm_mul_ps(e1[2], e2[0]), _mm_mul_ps(e1[0], e2[2]));
	cross[2] = _mm_sub_ps(_mm_mul_ps(e1[0], e2[1]), _mm_mul_ps(e1[1], e2[0]));
	__m128 twice_area = _mm_sqrt_ps(_mm_add_ps(
		_mm_add_ps(_mm_mul_ps(cross[0], cross[0]), _mm_mul_ps(cross[1], cross[1])), _mm_mul_ps(cross[2], cross[2])));
	__m128 inv_area = _mm_div_ps(_mm_set1_ps(1.0f), twice_area);
	const __m128 third = _mm_set1_ps(1.0f / 3.0f), sign = _mm_set1_ps(-0.0f);
	const __m128 wind[3] = {_mm_set1_ps(job->wind.x), _mm_set1_ps(job->wind.y), _mm_set1_ps(job->wind.z)};
	for (int k = 0; k < 3; ++k) {
		n[k] = _mm_mul_ps(cross[k], inv_area);
		rel[k] = _mm_sub_ps(wind[k], _mm_mul_ps(_mm_add_ps(_mm_add_ps(va[k], vb[k]), vd[k]), third));
	}
	__m128 rel_len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(rel[0], rel[0]), _mm_mul_ps(rel[1], rel[1])),
						_mm_mul_ps(rel[2], rel[2])));
	__m128 vn = _mm_add_ps(_mm_add_ps(_mm_mul_ps(rel[0], n[0]), _mm_mul_ps(rel[1], n[1])), _mm_mul_ps(rel[2], n[2]));
	__m128 area = _mm_mul_ps(_mm_set1_ps(0.5f), twice_area);
	__m128 push = _mm_mul_ps(
		_mm_mul_ps(_mm_mul_ps(_mm_set1_ps(job->half_rho * s->drag_coefficient), area), _mm_andnot_ps(sign, vn)), vn);
	__m128 across = _mm_div_ps(_mm_xor_ps(vn, sign), _mm_mul_ps(rel_len, rel_len));
	__m128 lift = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(_mm_set1_ps(job->half_rho * s->lift_coefficient), area), rel_len), vn);
	// Lanes the one-at-a-time code gives no share (NaN stays, as it does there).
	__m128 keep = _mm_and_ps(_mm_cmpnle_ps(twice_area, _mm_set1_ps(1e-12f)), _mm_cmpnle_ps(rel_len, _mm_set1_ps(1e-6f)));
	float f[3][4];
	for (int k = 0; k < 3; ++k) {
		__m128 n_perp = _mm_add_ps(n[k], _mm_mul_ps(rel[k], across));
		__m128 force = _mm_add_ps(_mm_mul_ps(n[k], push), _mm_mul_ps(n_perp, lift));
		_mm_storeu_ps(f[k], _mm_and_ps(keep, _mm_mul_ps(force, third)));  // +0 where there is none
	}
	for (int j = 0; j < 4; ++j)
		job->c->triangle_scratch[t + j] = v3(f[0][j], f[1][j], f[2][j]);
}
#endif

static void air_share_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const air_job *job = context;
#if defined(__SSE2__)
	if (job->w->settings.wind_turbulence <= 0.0f || job->speed <= 0.0f)  // gusts: one at a time
		for (; start + 4 <= end; start += 4)
			four_air_shares(job, start);
#endif
	for (int t = start; t < end; ++t)
		job->c->triangle_scratch[t] = triangle_air_share(job, t);
}

// Each vertex sums its triangles' shares in triangle order. A triangle without a share adds
// +0, which changes no sum (a sum started at +0 never becomes -0).
static void air_gather_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const air_job *job = context;
	const pbd_body *c = job->c;
	pbd_v3 *f = job->w->particles.force + c->first;
	for (int i = start; i < end; ++i) {
		pbd_v3 sum = v3(0, 0, 0);
		for (int k = c->vertex_triangle_start[i]; k < c->vertex_triangle_start[i + 1]; ++k)
			sum = v3_add(sum, c->triangle_scratch[c->vertex_triangles[k]]);
		f[i] = sum;
	}
}

static void aerodynamic_forces(pbd_world *w, const pbd_body *c)
{
	pbd_v3 wind = v3_load(w->settings.wind);
	air_job job = {w, c, wind, v3_len(wind), 0.5f * w->settings.air_density};
	pbd_parallel_for(w, air_share_range, c->triangle_count, 512, &job);
	pbd_parallel_for(w, air_gather_range, c->count, 1024, &job);
}

bool pbd_air_is_on(const pbd_world *w)
{
	const pbd_world_settings *s = &w->settings;
	return s->air_density > 0.0f && (s->drag_coefficient > 0.0f || s->lift_coefficient > 0.0f);
}

// Aerodynamic forces are evaluated once per step from the state at its start: air varies
// slowly next to the substep rate, and this is the costliest force by far.
void pbd_air_forces(pbd_world *w)
{
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		if (c->triangle_count > 0)
			aerodynamic_forces(w, c);  // writes every particle's force
		else if (c->count > 0)
			memset(w->particles.force + c->first, 0, (size_t)c->count * sizeof *w->particles.force);
	}
}
