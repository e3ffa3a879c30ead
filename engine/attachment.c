// SPDX-License-Identifier: MIT
// Attachment table: cloth vertices held to frames the game moves.
#include <string.h>

#include "world.h"

static pbd_v3 pose_apply(pbd_pose pose, pbd_v3 local) { return v3_add(quat_rotate(pose.q, local), pose.p); }

static pbd_result check_frame(pbd_world *w, const float position[3], const float rotation[4], pbd_pose *out)
{
	if (!position || !rotation)
		return pbd_fail(w, PBD_ERR_NULL_ARGUMENT, "attachment position or rotation is NULL");
	return pbd_check_pose(w, position, rotation, "attachment", out);
}

static pbd_result check_compliance(pbd_world *w, float compliance)
{
	if (!pbd_finite_n(&compliance, 1))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "attachment compliance is NaN, infinite or beyond 1e12");
	if (compliance < 0.0f)
		return pbd_fail(w, PBD_ERR_NEGATIVE, "attachment compliance must be >= 0, got %g", (double)compliance);
	return PBD_OK;
}

static pbd_attachment *lookup(const pbd_world *world, pbd_attachment_id id, pbd_result *why)
{
	pbd_result r = PBD_ERR_NULL_ARGUMENT;
	pbd_attachment *a = NULL;
	if (world) {
		bool in_range = id.index1 >= 1 && id.index1 <= (uint32_t)world->attachments.capacity;
		const pbd_attachment *slot = in_range ? &world->attachments.slots[id.index1 - 1] : NULL;
		r = pbd_check_slot(id.index1, id.generation, world->attachments.capacity, slot && slot->live,
				   slot ? slot->generation : 0);
		if (r == PBD_OK)
			a = &world->attachments.slots[id.index1 - 1];
	}
	if (why)
		*why = r;
	return a;
}

static pbd_attachment *get_attachment(const pbd_world *world, pbd_attachment_id id, pbd_result *why)
{
	pbd_attachment *a = lookup(world, id, why);
	if (!a && world)
		pbd_fail((pbd_world *)world, *why, "attachment id {%u, %u} is %s", id.index1, id.generation,
			 *why == PBD_ERR_STALE_ID ? "stale (the attachment or its cloth was destroyed)"
						  : "not an attachment of this world");
	return a;
}

// Whether another live kinematic attachment already holds vertex v of this body.
static bool held_elsewhere(const pbd_world *w, const pbd_attachment *self, uint32_t body, uint32_t v)
{
	for (int i = 0; i < w->attachments.capacity; ++i) {
		const pbd_attachment *a = &w->attachments.slots[i];
		if (a == self || !a->live || a->body != body || a->compliance > 0.0f)
			continue;
		for (int k = 0; k < a->count; ++k)
			if (a->vertices[k] == v)
				return true;
	}
	return false;
}

static void make_kinematic(pbd_world *w, const pbd_attachment *a)
{
	const pbd_body *c = &w->bodies.slots[a->body];
	for (int k = 0; k < a->count; ++k) {
		int i = c->first + (int)a->vertices[k];
		w->particles.pinned[i] = 1;
		w->particles.x[i].w = w->particles.p[i].w = 0.0f;
		w->particles.v[i] = v3(0, 0, 0);
		w->particles.pin_from[i] = w->particles.pin_to[i] = v3_of4(w->particles.x[i]);
	}
}

static void release(pbd_world *w, const pbd_attachment *a)
{
	const pbd_body *c = &w->bodies.slots[a->body];
	for (int k = 0; k < a->count; ++k) {
		int i = c->first + (int)a->vertices[k];
		w->particles.pinned[i] = 0;
		w->particles.x[i].w = w->particles.p[i].w = w->particles.inv_mass_free[i];
	}
}

// An attachment's arrays, one item per attached vertex.
#define ATTACHMENT_ARRAYS(a)                                                                  \
	(pbd_array_ref[]) { {(void **)&(a)->vertices, sizeof *(a)->vertices},                 \
			    {(void **)&(a)->offset, sizeof *(a)->offset},                     \
			    {(void **)&(a)->lambda, sizeof *(a)->lambda} }
#define ATTACHMENT_ARRAY_COUNT 3

static void free_arrays(pbd_world *w, pbd_attachment *a)
{
	pbd_free_arrays(w, ATTACHMENT_ARRAYS(a), ATTACHMENT_ARRAY_COUNT, (size_t)a->count);
	a->live = false;
}

static int free_slot(pbd_world *w)
{
	for (int i = 0; i < w->attachments.capacity; ++i)
		if (!w->attachments.slots[i].live)
			return i;
	int cap = maxi(4, w->attachments.capacity * 2);
	if (!pbd_grow_array(w, (void **)&w->attachments.slots, (size_t)w->attachments.capacity, (size_t)cap,
			    sizeof *w->attachments.slots))
		return -1;
	int slot = w->attachments.capacity;
	w->attachments.capacity = cap;
	return slot;
}

pbd_result pbd_attachment_create(pbd_world *world, const pbd_attachment_def *def, pbd_attachment_id *out_id)
{
	if (out_id)
		*out_id = (pbd_attachment_id){0, 0};
	if (!world || !def || !out_id)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_attachment_create needs a world, a def and an out id");
	if (def->internal_cookie != PBD_COOKIE)
		return pbd_fail(world, PBD_ERR_BAD_DEF, "attachment def was not made by pbd_attachment_def_default()");
	pbd_result r;
	pbd_body *c = pbd_cloth_lookup(world, def->cloth, &r);
	if (!c)
		return pbd_fail(world, r, "attachment cloth id {%u, %u} is %s", def->cloth.index1, def->cloth.generation,
				r == PBD_ERR_STALE_ID ? "stale" : "not a cloth of this world");
	if (!def->vertices)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "attachment vertices is NULL");
	if (def->vertex_count < 1 || def->vertex_count > c->count)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "attachment vertex_count must be 1..%d, got %d", c->count,
				def->vertex_count);
	pbd_pose pose;
	if ((r = check_frame(world, def->position, def->rotation, &pose)) != PBD_OK ||
	    (r = check_compliance(world, def->compliance)) != PBD_OK)
		return r;
	if (!pbd_finite_n(&def->max_force, 1))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "attachment max_force is NaN, infinite or beyond 1e12");
	if (def->max_force < 0.0f)
		return pbd_fail(world, PBD_ERR_NEGATIVE, "attachment max_force must be >= 0, got %g", (double)def->max_force);
	uint32_t body = (uint32_t)(c - world->bodies.slots);
	for (int k = 0; k < def->vertex_count; ++k) {
		uint32_t v = def->vertices[k];
		if (v >= (uint32_t)c->count)
			return pbd_fail(world, PBD_ERR_INDEX_OUT_OF_RANGE, "attached vertex %u of %d is out of range", v, c->count);
		for (int j = 0; j < k; ++j)
			if (def->vertices[j] == v)
				return pbd_fail(world, PBD_ERR_REPEATED_INDEX, "vertex %u is attached twice", v);
		if (def->compliance == 0.0f && held_elsewhere(world, NULL, body, v))
			return pbd_fail(world, PBD_ERR_VERTEX_HELD, "vertex %u is already held by another attachment", v);
	}
	int slot = free_slot(world);
	if (slot < 0)
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for attachments");
	pbd_attachment a = {0};
	size_t n = (size_t)def->vertex_count;
	a.count = def->vertex_count;
	if (!pbd_replace_arrays(world, ATTACHMENT_ARRAYS(&a), ATTACHMENT_ARRAY_COUNT, 0, n))
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for %d attached vertices", a.count);
	pbd_quat inverse = quat_conj(pose.q);
	for (int k = 0; k < a.count; ++k) {
		a.vertices[k] = def->vertices[k];
		pbd_v3 x = v3_of4(world->particles.x[c->first + (int)a.vertices[k]]);
		a.offset[k] = quat_rotate(inverse, v3_sub(x, pose.p));
	}
	a.body = body;
	a.body_generation = c->generation;
	a.compliance = def->compliance;
	a.max_force = def->max_force;
	a.pose_start = a.pose_end = a.sub_end = pose;
	a.generation = world->attachments.slots[slot].generation + 1;
	a.live = true;
	world->attachments.slots[slot] = a;
	if (a.compliance == 0.0f)
		make_kinematic(world, &world->attachments.slots[slot]);
	c->holds_changed = true;
	*out_id = (pbd_attachment_id){(uint32_t)slot + 1, a.generation};
	return PBD_OK;
}

pbd_result pbd_attachment_destroy(pbd_world *world, pbd_attachment_id id)
{
	pbd_result r;
	pbd_attachment *a = get_attachment(world, id, &r);
	if (!a)
		return r;
	if (a->compliance == 0.0f)
		release(world, a);
	world->bodies.slots[a->body].holds_changed = true;
	free_arrays(world, a);
	return PBD_OK;
}

pbd_result pbd_attachment_check(const pbd_world *world, pbd_attachment_id id)
{
	pbd_result r;
	lookup(world, id, &r);
	return r;
}

// The attachment an id names and the frame the arguments give, checked (set_pose, teleport).
static pbd_attachment *posed_attachment(pbd_world *world, pbd_attachment_id id, const float position[3],
					const float rotation[4], pbd_pose *pose, pbd_result *r)
{
	pbd_attachment *a = get_attachment(world, id, r);
	if (!a)
		return NULL;
	*r = check_frame(world, position, rotation, pose);
	return *r == PBD_OK ? a : NULL;
}

pbd_result pbd_attachment_set_pose(pbd_world *world, pbd_attachment_id id, const float position[3],
				   const float rotation[4])
{
	pbd_result r;
	pbd_pose pose;
	pbd_attachment *a = posed_attachment(world, id, position, rotation, &pose, &r);
	if (a)
		a->pose_end = pose;
	return r;
}

void pbd_attachments_mark_held(const pbd_world *w, uint32_t body, uint8_t *held)
{
	for (int s = 0; s < w->attachments.capacity; ++s) {
		const pbd_attachment *a = &w->attachments.slots[s];
		if (a->live && a->body == body)
			for (int k = 0; k < a->count; ++k)
				held[a->vertices[k]] = 1;
	}
}

bool pbd_attachment_holds(const pbd_world *world, uint32_t body, uint32_t vertex)
{
	return held_elsewhere(world, NULL, body, vertex);
}

pbd_result pbd_attachment_teleport(pbd_world *world, pbd_attachment_id id, const float position[3],
				   const float rotation[4])
{
	pbd_result r;
	pbd_pose to;
	pbd_attachment *a = posed_attachment(world, id, position, rotation, &to, &r);
	if (!a)
		return r;
	// The rigid motion that takes the frame from where it was at the end of the last step.
	pbd_pose from = a->pose_start;
	pbd_quat turn = quat_mul(to.q, quat_conj(from.q));
	pbd_body *c = &world->bodies.slots[a->body];
	for (int i = c->first; i < c->first + c->count; ++i) {
		pbd_v3 moved = v3_add(quat_rotate(turn, v3_sub(v3_of4(world->particles.x[i]), from.p)), to.p);
		r = pbd_check_coordinates(world, &moved.x, 3, "teleported vertex");
		if (r != PBD_OK)
			return r;
	}
	for (int i = c->first; i < c->first + c->count; ++i) {
		v4_set3(&world->particles.x[i],
			v3_add(quat_rotate(turn, v3_sub(v3_of4(world->particles.x[i]), from.p)), to.p));
		world->particles.p[i] = world->particles.x[i];
		world->particles.pin_from[i] =
			v3_add(quat_rotate(turn, v3_sub(world->particles.pin_from[i], from.p)), to.p);
		world->particles.pin_to[i] =
			v3_add(quat_rotate(turn, v3_sub(world->particles.pin_to[i], from.p)), to.p);
		world->particles.v[i] = quat_rotate(turn, world->particles.v[i]);
	}
	a->pose_start = a->pose_end = a->sub_end = to;
	pbd_body_refresh_outputs(world, c);
	return PBD_OK;
}

pbd_result pbd_attachment_set_compliance(pbd_world *world, pbd_attachment_id id, float compliance)
{
	pbd_result r;
	pbd_attachment *a = get_attachment(world, id, &r);
	if (!a)
		return r;
	if ((r = check_compliance(world, compliance)) != PBD_OK)
		return r;
	if (compliance == 0.0f && a->compliance > 0.0f) {
		for (int k = 0; k < a->count; ++k)
			if (held_elsewhere(world, a, a->body, a->vertices[k]))
				return pbd_fail(world, PBD_ERR_VERTEX_HELD,
						"vertex %u is already held by another attachment", a->vertices[k]);
		a->compliance = 0.0f;
		make_kinematic(world, a);
		world->bodies.slots[a->body].holds_changed = true;
	} else if (compliance > 0.0f && a->compliance == 0.0f) {
		release(world, a);
		a->compliance = compliance;
		world->bodies.slots[a->body].holds_changed = true;
	} else {
		// Between two compliances nothing changes what holds the cloth.
		a->compliance = compliance;
	}
	return PBD_OK;
}

pbd_result pbd_attachment_get_target(const pbd_world *world, pbd_attachment_id id, int index, float out[3])
{
	pbd_result r;
	pbd_attachment *a = get_attachment(world, id, &r);
	if (!a)
		return r;
	if (!out)
		return pbd_fail((pbd_world *)world, PBD_ERR_NULL_ARGUMENT, "out is NULL");
	if (index < 0 || index >= a->count)
		return pbd_fail((pbd_world *)world, PBD_ERR_INDEX_OUT_OF_RANGE, "attachment index %d of %d is out of range",
				index, a->count);
	v3_store(out, pose_apply(a->pose_start, a->offset[index]));
	return PBD_OK;
}

void pbd_attachments_substep(pbd_world *w, float t1)
{
	for (int s = 0; s < w->attachments.capacity; ++s) {
		pbd_attachment *a = &w->attachments.slots[s];
		if (!a->live)
			continue;
		a->sub_end = (pbd_pose){v3_lerp(a->pose_start.p, a->pose_end.p, t1), quat_nlerp(a->pose_start.q, a->pose_end.q, t1)};
		if (a->compliance > 0.0f)
			continue;
		// Kinematic: on the frame's rigid path, which a straight pin path would cut short
		// when the frame turns.
		const pbd_body *c = &w->bodies.slots[a->body];
		for (int k = 0; k < a->count; ++k) {
			int i = c->first + (int)a->vertices[k];
			pbd_v3 target = pose_apply(a->sub_end, a->offset[k]);
			v4_set3(&w->particles.p[i], target);
			w->particles.pin_from[i] = w->particles.pin_to[i] = target;
		}
	}
}

void pbd_attachments_end_step(pbd_world *w)
{
	for (int s = 0; s < w->attachments.capacity; ++s)
		if (w->attachments.slots[s].live)
			w->attachments.slots[s].pose_start = w->attachments.slots[s].sub_end =
				w->attachments.slots[s].pose_end;
}

void pbd_attachments_remove_body(pbd_world *w, uint32_t body)
{
	for (int s = 0; s < w->attachments.capacity; ++s)
		if (w->attachments.slots[s].live && w->attachments.slots[s].body == body)
			free_arrays(w, &w->attachments.slots[s]);
}

void pbd_attachments_free(pbd_world *w)
{
	for (int s = 0; s < w->attachments.capacity; ++s)
		if (w->attachments.slots[s].live)
			free_arrays(w, &w->attachments.slots[s]);
	pbd_free_array(w, w->attachments.slots, (size_t)w->attachments.capacity, sizeof *w->attachments.slots);
	w->attachments.slots = NULL;
	w->attachments.capacity = 0;
}
