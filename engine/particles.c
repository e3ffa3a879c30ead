// SPDX-License-Identifier: MIT
// Free particle groups (bodies of particles without triangles or constraints), and the flat
// particle arrays every body's particles live in.
#include <string.h>

#include "world.h"

static pbd_result check_def(pbd_world *w, const pbd_particles_def *d)
{
	if (d->internal_cookie != PBD_COOKIE)
		return pbd_fail(w, PBD_ERR_BAD_DEF, "particles def was not made by pbd_particles_def_default()");
	if (d->count < 1 || d->count > PBD_MAX_PARTICLES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "particle count must be 1..%d, got %d", PBD_MAX_PARTICLES, d->count);
	if (!d->positions)
		return pbd_fail(w, PBD_ERR_NULL_ARGUMENT, "particle positions are required");
	const float scalars[] = {d->radius, d->mass, d->static_friction, d->kinetic_friction};
	if (!pbd_finite_n(scalars, 4) || !pbd_finite_n(d->positions, 3 * d->count) ||
	    (d->velocities && !pbd_finite_n(d->velocities, 3 * d->count)))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "particle positions, velocities or sizes are NaN, infinite or beyond 1e12");
	pbd_result r = pbd_check_coordinates(w, d->positions, 3 * d->count, "particle positions");
	if (r == PBD_OK)
		r = pbd_check_coordinates(w, &d->radius, 1, "particle radius");
	for (int i = 0; r == PBD_OK && d->velocities && i < d->count; ++i)
		r = pbd_check_velocity(w, d->velocities + 3 * i, "particle velocity");
	if (r != PBD_OK)
		return r;
	if (d->radius <= 0.0f || d->mass <= 0.0f)
		return pbd_fail(w, PBD_ERR_NON_POSITIVE, "particle radius and mass must be > 0, got %g and %g",
				(double)d->radius, (double)d->mass);
	if (d->mass < PBD_MIN_MASS || d->mass > PBD_MAX_MASS)
		return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "particle mass %g kg is outside %g..%g kg", (double)d->mass,
				(double)PBD_MIN_MASS, (double)PBD_MAX_MASS);
	if (d->static_friction < 0.0f || d->kinetic_friction < 0.0f)
		return pbd_fail(w, PBD_ERR_NEGATIVE, "particle friction must be >= 0");
	if (w->particles.count + d->count > PBD_MAX_PARTICLES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "the world would hold more than %d particles", PBD_MAX_PARTICLES);
	return PBD_OK;
}

pbd_result pbd_particles_create(pbd_world *world, const pbd_particles_def *def, pbd_particles_id *out_id)
{
	if (out_id)
		*out_id = (pbd_particles_id){0, 0};
	if (!world || !def || !out_id)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_particles_create needs a world, a def and an out id");
	pbd_result r = check_def(world, def);
	if (r != PBD_OK)
		return r;
	size_t n3 = (size_t)def->count * 3;
	pbd_body body;
	memset(&body, 0, sizeof body);
	body.kind = PBD_BODY_PARTICLES;
	body.count = def->count;
	body.particle_radius = def->radius;
	body.material = pbd_cloth_material_default();
	body.material.static_friction = def->static_friction;
	body.material.kinetic_friction = def->kinetic_friction;
	body.material.damping = 0.0f;  // free particles: only air slows them
	body.out_positions = pbd_alloc_array(world, n3, sizeof(float));
	body.out_normals = pbd_alloc_array(world, n3, sizeof(float));
	body.out_velocities = pbd_alloc_array(world, n3, sizeof(float));
	int slot = body.out_positions && body.out_normals && body.out_velocities ? pbd_body_slot(world) : -1;
	if (slot < 0 || !pbd_reserve_particles(world, def->count)) {
		body.live = true;
		pbd_body_release(world, &body);
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for %d particles", def->count);
	}
	int first = world->particles.count;
	float w = 1.0f / def->mass;
	for (int i = 0; i < def->count; ++i) {
		int k = first + i;
		pbd_v3 pos = v3_load(def->positions + 3 * i);
		world->particles.x[k] = world->particles.p[k] = v4_from3(pos, w);
		world->particles.v[k] = def->velocities ? v3_load(def->velocities + 3 * i) : v3(0, 0, 0);
		world->particles.force[k] = v3(0, 0, 0);
		world->particles.inv_mass_free[k] = w;
		world->particles.pinned[k] = 0;
		world->particles.pin_from[k] = world->particles.pin_to[k] = pos;
		world->particles.owner[k] = (uint32_t)slot;
		world->particles.radius[k] = def->radius;
		world->particles.rest[k] = pos;
	}
	world->particles.count += def->count;
	body.first = first;
	body.generation = world->bodies.slots[slot].generation + 1;
	body.live = true;
	world->bodies.slots[slot] = body;
	world->topology.dirty = true;
	pbd_body_refresh_outputs(world, &world->bodies.slots[slot]);
	*out_id = (pbd_particles_id){(uint32_t)slot + 1, body.generation};
	return PBD_OK;
}

static pbd_body *get_group(const pbd_world *world, pbd_particles_id id, pbd_result *why)
{
	pbd_result r;
	pbd_body *c = pbd_body_lookup(world, id.index1, id.generation, PBD_BODY_PARTICLES, &r);
	if (!c && world)
		pbd_fail((pbd_world *)world, r, "particles id {%u, %u} is %s", id.index1, id.generation,
			 r == PBD_ERR_STALE_ID ? "stale (the group was destroyed)" : "not a particle group of this world");
	if (why)
		*why = r;
	return c;
}

pbd_result pbd_particles_destroy(pbd_world *world, pbd_particles_id id)
{
	pbd_result r;
	pbd_body *c = get_group(world, id, &r);
	if (!c)
		return r;
	pbd_body_remove(world, c);
	return PBD_OK;
}

const float *pbd_particles_positions(const pbd_world *world, pbd_particles_id id, int *count)
{
	pbd_body *c = get_group(world, id, NULL);
	if (count)
		*count = c ? c->count : 0;
	return c ? c->out_positions : NULL;
}

const float *pbd_particles_velocities(const pbd_world *world, pbd_particles_id id, int *count)
{
	pbd_body *c = get_group(world, id, NULL);
	if (count)
		*count = c ? c->count : 0;
	return c ? c->out_velocities : NULL;
}

float pbd_particles_radius(const pbd_world *world, pbd_particles_id id)
{
	pbd_body *c = get_group(world, id, NULL);
	return c ? c->particle_radius : 0.0f;
}

pbd_result pbd_particles_set(pbd_world *world, pbd_particles_id id, int index, const float position[3],
			     const float velocity[3])
{
	pbd_result r;
	pbd_body *c = get_group(world, id, &r);
	if (!c)
		return r;
	if (index < 0 || index >= c->count)
		return pbd_fail(world, PBD_ERR_INDEX_OUT_OF_RANGE, "particle %d of a group of %d", index, c->count);
	if (!position || !velocity)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "position and velocity are required");
	if (!pbd_finite_n(position, 3) || !pbd_finite_n(velocity, 3))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "particle position or velocity is NaN, infinite or beyond 1e12");
	r = pbd_check_coordinates(world, position, 3, "particle position");
	if (r == PBD_OK)
		r = pbd_check_velocity(world, velocity, "particle velocity");
	if (r != PBD_OK)
		return r;
	int k = c->first + index;
	// A teleport: the particle did not travel, so no sweep may see a path from the old place.
	v4_set3(&world->particles.x[k], v3_load(position));
	world->particles.p[k] = world->particles.x[k];
	world->particles.v[k] = v3_load(velocity);
	pbd_body_refresh_outputs(world, c);
	return PBD_OK;
}

pbd_result pbd_particles_set_friction(pbd_world *world, pbd_particles_id id, float static_friction,
				      float kinetic_friction)
{
	pbd_result r;
	pbd_body *c = get_group(world, id, &r);
	if (!c)
		return r;
	if (!isfinite(static_friction) || !isfinite(kinetic_friction))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "particle friction is NaN, infinite or beyond 1e12");
	if (static_friction < 0.0f || kinetic_friction < 0.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "particle friction must be >= 0");
	c->material.static_friction = static_friction;
	c->material.kinetic_friction = kinetic_friction;
	return PBD_OK;
}

bool pbd_reserve_particles(pbd_world *w, int extra)
{
	pbd_particles *ps = &w->particles;
	int need = ps->count + extra;
	if (need <= ps->capacity)
		return true;
	size_t old = (size_t)ps->capacity, cap = (size_t)maxi(need, ps->capacity * 2);
	// All or nothing: allocate every new array first, then copy and swap.
	struct {
#define PBD_DECLARE(name) __typeof__(ps->name) name;
		PBD_PARTICLE_ARRAYS(PBD_DECLARE)
#undef PBD_DECLARE
	} fresh;
	bool ok = true;
#define PBD_ALLOCATE(name) fresh.name = pbd_alloc_array(w, cap, sizeof *ps->name); ok = ok && fresh.name;
	PBD_PARTICLE_ARRAYS(PBD_ALLOCATE)
#undef PBD_ALLOCATE
	if (!ok) {
#define PBD_DROP(name) pbd_free_array(w, fresh.name, cap, sizeof *ps->name);
		PBD_PARTICLE_ARRAYS(PBD_DROP)
#undef PBD_DROP
		return false;
	}
#define PBD_SWAP(name)                                                        \
	if (old)                                                              \
		memcpy(fresh.name, ps->name, old * sizeof *ps->name);         \
	pbd_free_array(w, ps->name, old, sizeof *ps->name);                   \
	ps->name = fresh.name;
	PBD_PARTICLE_ARRAYS(PBD_SWAP)
#undef PBD_SWAP
	ps->capacity = (int)cap;
	return true;
}

void pbd_particles_remove(pbd_world *w, int first, int count)
{
	pbd_particles *ps = &w->particles;
	PBD_ASSERT(first >= 0 && count >= 0 && first + count <= ps->count);
	int tail = ps->count - first - count;
#define PBD_SHIFT(arr) memmove(ps->arr + first, ps->arr + first + count, (size_t)tail * sizeof *ps->arr);
	PBD_PARTICLE_ARRAYS(PBD_SHIFT)
#undef PBD_SHIFT
	ps->count -= count;
}

void pbd_particles_insert(pbd_world *w, int at, int count)
{
	pbd_particles *ps = &w->particles;
	PBD_ASSERT(at >= 0 && at <= ps->count && count >= 0 && ps->count + count <= ps->capacity);
	int tail = ps->count - at;
#define PBD_SHIFT(arr) memmove(ps->arr + at + count, ps->arr + at, (size_t)tail * sizeof *ps->arr);
	PBD_PARTICLE_ARRAYS(PBD_SHIFT)
#undef PBD_SHIFT
	ps->count += count;
}

void pbd_particles_free(pbd_world *w)
{
	pbd_particles *ps = &w->particles;
	size_t n = (size_t)ps->capacity;
#define PBD_RELEASE(name) pbd_free_array(w, ps->name, n, sizeof *ps->name);
	PBD_PARTICLE_ARRAYS(PBD_RELEASE)
#undef PBD_RELEASE
	*ps = (pbd_particles){0};
}
