// SPDX-License-Identifier: MIT
// World creation, settings and statistics.
#include <string.h>

#include "world.h"

// Finite and within +-PBD_MAX_MAGNITUDE: squares and products of such values stay finite.
bool pbd_finite_n(const float *f, int n)
{
	for (int i = 0; i < n; ++i)
		if (!isfinite(f[i]) || fabsf(f[i]) > PBD_MAX_MAGNITUDE)  // isfinite first: no FP exception on NaN
			return false;
	return true;
}

pbd_result pbd_check_coordinates(pbd_world *w, const float *f, int n, const char *what)
{
	if (!pbd_finite_n(f, n))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "%s is NaN, infinite or beyond 1e12", what);
	for (int i = 0; i < n; ++i)
		if (fabsf(f[i]) > PBD_MAX_COORDINATE)
			return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "%s has a coordinate of %g m, beyond the limit of %g m",
					what, (double)f[i], (double)PBD_MAX_COORDINATE);
	return PBD_OK;
}

pbd_result pbd_check_velocity(pbd_world *w, const float *v, const char *what)
{
	if (!v)
		return PBD_OK;
	if (!pbd_finite_n(v, 3))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "%s is NaN, infinite or beyond 1e12", what);
	double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
	if (speed > PBD_MAX_SPEED)
		return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "%s of %g m/s is beyond the limit of %g m/s", what, speed,
				(double)PBD_MAX_SPEED);
	return PBD_OK;
}

pbd_result pbd_check_settings(pbd_world *world, const pbd_world_settings *s)
{
	if (s->substeps < 1 || s->substeps > PBD_MAX_COUNT)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "substeps must be 1..%d, got %d", PBD_MAX_COUNT, s->substeps);
	if (s->iterations < 1 || s->iterations > PBD_MAX_COUNT)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "iterations must be 1..%d, got %d", PBD_MAX_COUNT,
				s->iterations);
	const float scalars[] = {s->wind_turbulence, s->air_density, s->drag_coefficient, s->lift_coefficient,
				 s->particle_cloth_mass_ratio};
	if (!pbd_finite_n(s->gravity, 3) || !pbd_finite_n(s->wind, 3) || !pbd_finite_n(scalars, 5))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "world settings contain NaN, infinity or a value beyond 1e12");
	float g = sqrtf(s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] + s->gravity[2] * s->gravity[2]);
	float v = sqrtf(s->wind[0] * s->wind[0] + s->wind[1] * s->wind[1] + s->wind[2] * s->wind[2]);
	if (g > PBD_MAX_GRAVITY)
		return pbd_fail(world, PBD_ERR_OUT_OF_RANGE, "gravity of %g m/s^2 is beyond the limit of %g", (double)g,
				(double)PBD_MAX_GRAVITY);
	if (v > PBD_MAX_WIND)
		return pbd_fail(world, PBD_ERR_OUT_OF_RANGE, "wind of %g m/s is beyond the limit of %g", (double)v,
				(double)PBD_MAX_WIND);
	if (s->air_density < 0.0f || s->drag_coefficient < 0.0f || s->lift_coefficient < 0.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "air density and drag and lift coefficients must be >= 0");
	if (s->particle_cloth_mass_ratio < 0.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "particle_cloth_mass_ratio must be >= 0, got %g",
				(double)s->particle_cloth_mass_ratio);
	if (s->max_candidate_pairs < 0)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "max_candidate_pairs must be >= 0 (0: no limit), got %d",
				s->max_candidate_pairs);
	if (s->max_substeps < 0 || s->max_substeps > PBD_MAX_COUNT)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "max_substeps must be 0..%d, got %d", PBD_MAX_COUNT,
				s->max_substeps);
	if (s->wind_turbulence < 0.0f || s->wind_turbulence > 1.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "wind turbulence must be 0..1, got %g", (double)s->wind_turbulence);
	return PBD_OK;
}

pbd_result pbd_world_create(const pbd_world_def *def, pbd_world **out_world)
{
	if (out_world)
		*out_world = NULL;
	if (!def || !out_world)
		return PBD_ERR_NULL_ARGUMENT;
	if (def->internal_cookie != PBD_COOKIE)
		return PBD_ERR_BAD_DEF;
	if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL))
		return PBD_ERR_NULL_ARGUMENT;
	pbd_result r = pbd_check_settings(NULL, &def->settings);
	if (r != PBD_OK)
		return r;
	if ((def->enqueue_task == NULL) != (def->finish_task == NULL))
		return PBD_ERR_NULL_ARGUMENT;
	if (def->worker_count < 1 || def->worker_count > 64)
		return PBD_ERR_BAD_COUNT;

	// The world struct itself goes through the hooks too; a stack stand-in counts it.
	pbd_world boot;
	memset(&boot, 0, sizeof boot);
	boot.allocator = def->allocator;
	pbd_world *world = pbd_alloc(&boot, sizeof *world);
	if (!world)
		return PBD_ERR_OUT_OF_MEMORY;
	*world = boot;
	world->settings = def->settings;
	world->worker_count = def->worker_count;
	world->enqueue_task = def->enqueue_task;
	world->finish_task = def->finish_task;
	world->user_task_context = def->user_task_context;
	if (!pbd_color_wave_init(world)) {
		pbd_world_destroy(world);
		return PBD_ERR_OUT_OF_MEMORY;
	}
	*out_world = world;
	return PBD_OK;
}

void pbd_world_destroy(pbd_world *world)
{
	if (!world)
		return;
	// Each module frees its own state.
	pbd_attachments_free(world);
	pbd_bodies_free(world);
	pbd_colliders_free(world);
	pbd_particles_free(world);
	pbd_topology_free(world);
	pbd_pairs_free(world);
	pbd_collider_contacts_free(world);
	pbd_collider_carry_free(world);
	pbd_guard_free(world);
	pbd_color_wave_free(world);
	pbd_world copy = *world;
	pbd_free(&copy, world, sizeof *world);
}

pbd_result pbd_world_set_settings(pbd_world *world, const pbd_world_settings *settings)
{
	if (!world || !settings)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_result r = pbd_check_settings(world, settings);
	if (r != PBD_OK)
		return r;
	world->settings = *settings;
	return PBD_OK;
}

pbd_world_settings pbd_world_get_settings(const pbd_world *world)
{
	return world ? world->settings : pbd_world_settings_default();
}

pbd_result pbd_world_set_substeps(pbd_world *world, int substeps)
{
	if (!world)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_world_settings s = world->settings;
	s.substeps = substeps;
	return pbd_world_set_settings(world, &s);
}

pbd_result pbd_world_set_iterations(pbd_world *world, int iterations)
{
	if (!world)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_world_settings s = world->settings;
	s.iterations = iterations;
	return pbd_world_set_settings(world, &s);
}

pbd_result pbd_world_set_gravity(pbd_world *world, const float gravity[3])
{
	if (!world || !gravity)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_world_settings s = world->settings;
	memcpy(s.gravity, gravity, sizeof s.gravity);
	return pbd_world_set_settings(world, &s);
}

pbd_result pbd_world_set_wind(pbd_world *world, const float wind[3])
{
	if (!world || !wind)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_world_settings s = world->settings;
	memcpy(s.wind, wind, sizeof s.wind);
	return pbd_world_set_settings(world, &s);
}

pbd_world_stats pbd_world_get_stats(const pbd_world *world)
{
	pbd_world_stats s;
	memset(&s, 0, sizeof s);
	if (!world)
		return s;
	s = world->stats;
	s.cloths = 0;
	s.triangles = 0;
	s.constraints = 0;
	s.free_particles = 0;
	s.max_stretch_error = 0.0f;
	for (int i = 0; i < world->bodies.capacity; ++i) {
		const pbd_body *c = &world->bodies.slots[i];
		if (!c->live)
			continue;
		if (c->kind == PBD_BODY_PARTICLES) {
			s.free_particles += c->count;
			continue;
		}
		s.cloths++;
		s.triangles += c->triangle_count;
		s.max_stretch_error = fmaxf(s.max_stretch_error,
					    pbd_distance_max_strain_range(world->particles.x + c->first, &c->distance,
									  PBD_DISTANCE_STRETCH, 0, c->distance.count));
		for (int k = 0; k < pbd_constraint_kind_count; ++k)
			s.constraints += pbd_constraint_kinds[k]->count(c);
	}
	s.colliders = 0;
	for (int i = 0; i < world->colliders.capacity; ++i)
		s.colliders += world->colliders.slots[i].live ? 1 : 0;
	s.particles = world->particles.count - s.free_particles;
	s.bytes_live = world->bytes_live;
	s.bytes_peak = world->bytes_peak;
	s.allocations = world->allocations;
	s.trims = world->trims;
	return s;
}
