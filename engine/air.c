// SPDX-License-Identifier: MIT
// Air: drag and lift on every cloth triangle from the wind (with gusts) relative to the
// cloth's own motion, once per step. The predict stage applies the forces (step.h).
#include <string.h>

#include "air.h"
#include "world.h"

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

static void air_share_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const air_job *job = context;
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
	if (c->triangle_count == 0)
		return;
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
	if (w->particles.count > 0)  // an empty world has no array at all
		memset(w->particles.force, 0, (size_t)w->particles.count * sizeof *w->particles.force);
	for (int s = 0; s < w->bodies.capacity; ++s)
		if (w->bodies.slots[s].live)
			aerodynamic_forces(w, &w->bodies.slots[s]);
}
