// SPDX-License-Identifier: MIT
// Grab: a compliant attachment of a patch with a force limit, for a mouse drag. The patch is
// taken in the rest shape (what is near on the sheet, not what is near in space: a fold's
// other layer is not grabbed), and the springs share one force limit, so the grab pulls like
// a hand and the contacts, colliders and guard, solved after it, keep the cloth where it must
// be.
#include "world.h"

#define PBD_GRAB_DEFAULT_COMPLIANCE 1e-4f
#define PBD_GRAB_STANDARD_GRAVITY 9.81f

pbd_grab_def pbd_grab_def_default(void)
{
	return (pbd_grab_def){.compliance = PBD_GRAB_DEFAULT_COMPLIANCE, .internal_cookie = PBD_COOKIE};
}

// Twice the mean rest edge at the vertex: its one-ring and most of the next.
static float default_radius(const pbd_world *w, const pbd_body *c, int vertex)
{
	float sum = 0.0f;
	int edges = 0;
	for (int t = 0; t < c->triangle_count; ++t) {
		const uint32_t *f = c->triangles + 3 * t;
		int k = f[0] == (uint32_t)vertex ? 0 : f[1] == (uint32_t)vertex ? 1 : f[2] == (uint32_t)vertex ? 2 : -1;
		if (k < 0)
			continue;
		for (int j = 1; j < 3; ++j) {
			pbd_v3 other = w->particles.rest[c->first + (int)f[(k + j) % 3]];
			// inner edges twice: a weighted mean
			sum += v3_len(v3_sub(other, w->particles.rest[c->first + vertex]));
			edges++;
		}
	}
	return edges ? 2.0f * sum / (float)edges : 0.0f;
}

static float cloth_mass(const pbd_world *w, const pbd_body *c)
{
	double mass = 0.0;
	for (int i = 0; i < c->count; ++i) {
		float inv = w->particles.inv_mass_free[c->first + i];
		mass += inv > 0.0f ? 1.0 / inv : 0.0;
	}
	return (float)mass;
}

static pbd_result check_grab_def(pbd_world *w, const pbd_grab_def *def, const pbd_body **out)
{
	if (def->internal_cookie != PBD_COOKIE)
		return pbd_fail(w, PBD_ERR_BAD_DEF, "grab def was not made by pbd_grab_def_default()");
	pbd_result r;
	const pbd_body *c = pbd_cloth_lookup(w, def->cloth, &r);
	if (!c)
		return pbd_fail(w, r, "grab cloth id {%u, %u} is %s", def->cloth.index1, def->cloth.generation,
				r == PBD_ERR_STALE_ID ? "stale" : "not a cloth of this world");
	if (def->vertex < 0 || def->vertex >= c->count)
		return pbd_fail(w, PBD_ERR_INDEX_OUT_OF_RANGE, "grabbed vertex %d of %d is out of range", def->vertex,
				c->count);
	const float values[3] = {def->radius, def->compliance, def->max_force};
	if (!pbd_finite_n(values, 3))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "grab radius, compliance or max_force is NaN, infinite or beyond 1e12");
	if (def->radius < 0.0f || def->max_force < 0.0f)
		return pbd_fail(w, PBD_ERR_NEGATIVE, "grab radius and max_force must be >= 0");
	if (def->compliance <= 0.0f)
		return pbd_fail(w, PBD_ERR_NON_POSITIVE, "grab compliance must be > 0, got %g", (double)def->compliance);
	*out = c;
	return PBD_OK;
}

pbd_result pbd_grab_begin(pbd_world *world, const pbd_grab_def *def, pbd_attachment_id *out_id)
{
	if (out_id)
		*out_id = (pbd_attachment_id){0, 0};
	if (!world || !def || !out_id)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_grab_begin needs a world, a def and an out id");
	const pbd_body *c = NULL;
	pbd_result r = check_grab_def(world, def, &c);
	if (r != PBD_OK)
		return r;
	uint32_t body = (uint32_t)(c - world->bodies.slots);
	float radius = def->radius > 0.0f ? def->radius : default_radius(world, c, def->vertex);
	uint32_t *patch = pbd_alloc_array(world, (size_t)c->count, sizeof *patch);
	if (!patch)
		return pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for a grab");
	pbd_v3 centre = world->particles.rest[c->first + def->vertex];
	int n = 0;
	for (int i = 0; i < c->count; ++i) {
		bool near = i == def->vertex || v3_len(v3_sub(world->particles.rest[c->first + i], centre)) <= radius;
		if (near && !pbd_attachment_holds(world, body, (uint32_t)i))
			patch[n++] = (uint32_t)i;
	}
	if (n == 0) {
		pbd_free_array(world, patch, (size_t)c->count, sizeof *patch);
		return pbd_fail(world, PBD_ERR_VERTEX_HELD, "grabbed vertex %d and its patch are held by an attachment",
				def->vertex);
	}
	float total = def->max_force > 0.0f ? def->max_force : 2.0f * PBD_GRAB_STANDARD_GRAVITY * cloth_mass(world, c);
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = def->cloth;
	ad.vertices = patch;
	ad.vertex_count = n;
	v3_store(ad.position, v3_of4(world->particles.x[c->first + def->vertex]));
	ad.compliance = def->compliance;
	// A cloth with no free mass (all pinned) has no weight to scale by: no limit (0) then.
	ad.max_force = total > 0.0f ? total / (float)n : 0.0f;
	r = pbd_attachment_create(world, &ad, out_id);
	pbd_free_array(world, patch, (size_t)c->count, sizeof *patch);
	return r;
}

pbd_result pbd_grab_move(pbd_world *world, pbd_attachment_id id, const float target[3])
{
	if (!world || !target)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_grab_move needs a world and a target");
	const float identity[4] = {0, 0, 0, 1};
	return pbd_attachment_set_pose(world, id, target, identity);
}

pbd_result pbd_grab_end(pbd_world *world, pbd_attachment_id id)
{
	return pbd_attachment_destroy(world, id);
}
