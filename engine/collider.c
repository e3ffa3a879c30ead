// SPDX-License-Identifier: MIT
// Collider table: planes, spheres, capsules and boxes, static or moved by the game.
#include <string.h>

#include "world.h"

// Rotation taking local +y to the unit vector n.
static pbd_quat quat_from_up(pbd_v3 n)
{
	float d = n.y;
	if (d < -0.999999f)
		return (pbd_quat){1.0f, 0.0f, 0.0f, 0.0f};  // half turn about x
	pbd_v3 axis = v3_cross(v3(0, 1, 0), n);  // (n.z, 0, -n.x)
	pbd_quat q = {axis.x, axis.y, axis.z, 1.0f + d};
	float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	return (pbd_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

pbd_result pbd_check_pose(pbd_world *w, const float position[3], const float rotation[4], const char *what,
			  pbd_pose *out)
{
	if (!pbd_finite_n(position, 3) || !pbd_finite_n(rotation, 4))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "%s pose is NaN, infinite or beyond 1e12", what);
	char label[96];
	snprintf(label, sizeof label, "%s position", what);
	pbd_result r = pbd_check_coordinates(w, position, 3, label);
	if (r != PBD_OK)
		return r;
	pbd_quat q = quat_load(rotation);
	float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(l > 1e-6f))
		return pbd_fail(w, PBD_ERR_ZERO_NORMAL, "%s rotation quaternion has zero length", what);
	out->p = v3_load(position);
	out->q = (pbd_quat){q.x / l, q.y / l, q.z / l, q.w / l};
	return PBD_OK;
}

static pbd_result check_friction(pbd_world *w, float s, float k)
{
	if (!isfinite(s) || !isfinite(k))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "collider friction is NaN, infinite or beyond 1e12");
	if (s < 0.0f || k < 0.0f)
		return pbd_fail(w, PBD_ERR_NEGATIVE, "collider friction must be >= 0, got %g and %g", (double)s, (double)k);
	return PBD_OK;
}

static pbd_result check_collider_def(pbd_world *w, const pbd_collider_def *def, pbd_collider *out)
{
	if (def->internal_cookie != PBD_COOKIE)
		return pbd_fail(w, PBD_ERR_BAD_DEF, "collider def was not made by pbd_collider_def_default()");
	if ((unsigned)def->type >= PBD_SHAPE_COUNT)
		return pbd_fail(w, PBD_ERR_BAD_SHAPE, "unknown collider shape %d", (int)def->type);
	const float sizes[] = {def->radius, def->half_height, def->half_extents[0], def->half_extents[1],
			       def->half_extents[2], def->offset};
	if (!pbd_finite_n(sizes, PBD_ARRAY_COUNT(sizes)) || !pbd_finite_n(def->normal, 3))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "collider size, normal or offset is NaN, infinite or beyond 1e12");
	pbd_result sized = pbd_check_coordinates(w, sizes, PBD_ARRAY_COUNT(sizes), "collider size or offset");
	if (sized != PBD_OK)
		return sized;
	pbd_result r = check_friction(w, def->static_friction, def->kinetic_friction);
	if (r != PBD_OK)
		return r;
	memset(out, 0, sizeof *out);
	out->shape.type = (int)def->type;
	out->static_friction = def->static_friction;
	out->kinetic_friction = def->kinetic_friction;
	pbd_pose pose;
	if (def->type == PBD_SHAPE_PLANE) {
		// A plane is given by its normal and offset; its pose follows from them.
		pbd_v3 n = v3_load(def->normal);
		float l = v3_len(n);
		if (!(l > 1e-6f))
			return pbd_fail(w, PBD_ERR_ZERO_NORMAL, "plane normal has zero length");
		n = v3_scale(n, 1.0f / l);
		pose.p = v3_scale(n, def->offset / l);
		pose.q = quat_from_up(n);
	} else {
		r = pbd_check_pose(w, def->position, def->rotation, "collider", &pose);
		if (r != PBD_OK)
			return r;
	}
	if (def->type == PBD_SHAPE_SPHERE || def->type == PBD_SHAPE_CAPSULE) {
		if (def->radius <= 0.0f)
			return pbd_fail(w, PBD_ERR_NON_POSITIVE, "collider radius must be > 0, got %g", (double)def->radius);
		if (def->type == PBD_SHAPE_CAPSULE && def->half_height < 0.0f)
			return pbd_fail(w, PBD_ERR_NEGATIVE, "capsule half height must be >= 0");
	}
	if (def->type == PBD_SHAPE_BOX)
		for (int k = 0; k < 3; ++k)
			if (def->half_extents[k] <= 0.0f)
				return pbd_fail(w, PBD_ERR_NON_POSITIVE, "box half extents must be > 0");
	out->shape.radius = def->radius;
	out->shape.half_height = def->half_height;
	out->shape.half_extents = v3_load(def->half_extents);
	out->pose_start = out->pose_end = out->sub_start = out->sub_end = pose;
	return PBD_OK;
}

pbd_result pbd_collider_create(pbd_world *world, const pbd_collider_def *def, pbd_collider_id *out_id)
{
	if (out_id)
		*out_id = (pbd_collider_id){0, 0};
	if (!world || !def || !out_id)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_collider_create needs a world, a def and an out id");
	pbd_collider c;
	pbd_result r = check_collider_def(world, def, &c);
	if (r != PBD_OK)
		return r;
	int slot = -1;
	for (int i = 0; i < world->colliders.capacity && slot < 0; ++i)
		if (!world->colliders.slots[i].live)
			slot = i;
	if (slot < 0) {
		int cap = maxi(4, world->colliders.capacity * 2);
		if (!pbd_grow_array(world, (void **)&world->colliders.slots, (size_t)world->colliders.capacity,
				    (size_t)cap, sizeof *world->colliders.slots))
			return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for colliders");
		slot = world->colliders.capacity;
		world->colliders.capacity = cap;
	}
	c.generation = world->colliders.slots[slot].generation + 1;
	c.live = true;
	world->colliders.slots[slot] = c;
	*out_id = (pbd_collider_id){(uint32_t)slot + 1, c.generation};
	return PBD_OK;
}

pbd_collider *pbd_collider_lookup(const pbd_world *world, pbd_collider_id id, pbd_result *why)
{
	pbd_result r = PBD_ERR_NULL_ARGUMENT;
	pbd_collider *c = NULL;
	if (world) {
		bool in_range = id.index1 >= 1 && id.index1 <= (uint32_t)world->colliders.capacity;
		const pbd_collider *slot = in_range ? &world->colliders.slots[id.index1 - 1] : NULL;
		r = pbd_check_slot(id.index1, id.generation, world->colliders.capacity, slot && slot->live,
				   slot ? slot->generation : 0);
		if (r == PBD_OK)
			c = &world->colliders.slots[id.index1 - 1];
	}
	if (!c && world)
		pbd_fail((pbd_world *)world, r, "collider id {%u, %u} is %s", id.index1, id.generation,
			 r == PBD_ERR_STALE_ID ? "stale (the collider was destroyed)" : "not a collider of this world");
	if (why)
		*why = r;
	return c;
}

pbd_result pbd_collider_destroy(pbd_world *world, pbd_collider_id id)
{
	pbd_result r;
	pbd_collider *c = pbd_collider_lookup(world, id, &r);
	if (!c)
		return r;
	c->live = false;
	pbd_collider_contacts_clear(world);  // they name collider slots
	return PBD_OK;
}

// The collider an id names and the pose the arguments give, checked (set_pose, teleport).
static pbd_collider *posed_collider(pbd_world *world, pbd_collider_id id, const float position[3],
				    const float rotation[4], pbd_pose *pose, pbd_result *r)
{
	pbd_collider *c = pbd_collider_lookup(world, id, r);
	if (!c)
		return NULL;
	if (!position || !rotation) {
		*r = pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "position and rotation are required");
		return NULL;
	}
	*r = pbd_check_pose(world, position, rotation, "collider", pose);
	return *r == PBD_OK ? c : NULL;
}

pbd_result pbd_collider_set_pose(pbd_world *world, pbd_collider_id id, const float position[3], const float rotation[4])
{
	pbd_result r;
	pbd_pose pose;
	pbd_collider *c = posed_collider(world, id, position, rotation, &pose, &r);
	if (c)
		c->pose_end = pose;
	return r;
}

pbd_result pbd_collider_teleport(pbd_world *world, pbd_collider_id id, const float position[3], const float rotation[4])
{
	pbd_result r;
	pbd_pose pose;
	pbd_collider *c = posed_collider(world, id, position, rotation, &pose, &r);
	if (c)
		c->pose_start = c->pose_end = c->sub_start = c->sub_end = pose;
	return r;
}

pbd_result pbd_collider_set_friction(pbd_world *world, pbd_collider_id id, float static_friction, float kinetic_friction)
{
	pbd_result r;
	pbd_collider *c = pbd_collider_lookup(world, id, &r);
	if (!c)
		return r;
	r = check_friction(world, static_friction, kinetic_friction);
	if (r != PBD_OK)
		return r;
	c->static_friction = static_friction;
	c->kinetic_friction = kinetic_friction;
	return PBD_OK;
}

pbd_result pbd_collider_get_def(const pbd_world *world, pbd_collider_id id, pbd_collider_def *out)
{
	pbd_result r;
	pbd_collider *c = pbd_collider_lookup(world, id, &r);
	if (!c)
		return r;
	if (!out)
		return pbd_fail((pbd_world *)world, PBD_ERR_NULL_ARGUMENT, "out is NULL");
	*out = pbd_collider_def_default();
	out->type = (pbd_shape_type)c->shape.type;
	out->radius = c->shape.radius;
	out->half_height = c->shape.half_height;
	v3_store(out->half_extents, c->shape.half_extents);
	v3_store(out->position, c->pose_end.p);
	out->rotation[0] = c->pose_end.q.x;
	out->rotation[1] = c->pose_end.q.y;
	out->rotation[2] = c->pose_end.q.z;
	out->rotation[3] = c->pose_end.q.w;
	// A plane comes back as normal and offset too; a def made from it recreates the plane.
	pbd_v3 n = c->shape.type == PBD_SHAPE_PLANE ? quat_rotate(c->pose_end.q, v3(0, 1, 0)) : v3(0, 0, 0);
	v3_store(out->normal, n);
	out->offset = v3_dot(n, c->pose_end.p);
	out->static_friction = c->static_friction;
	out->kinetic_friction = c->kinetic_friction;
	return PBD_OK;
}

void pbd_colliders_free(pbd_world *world)
{
	pbd_colliders *c = &world->colliders;
	pbd_free_array(world, c->slots, (size_t)c->capacity, sizeof *c->slots);
	*c = (pbd_colliders){0};
}
