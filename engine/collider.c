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
	out->moved_at = INT64_MIN;
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

// ---- Substeps for fast colliders

// A constraint pass carries a push on by about one edge: a collider may travel this share of
// the shortest edge of a cloth it comes near in one substep. A capsule swept through a
// curtain of 2.1 cm edges stretched it 37% at 3 m/s with 0.23 of an edge per substep, 281%
// with 0.47, and 181% at 10 m/s with 0.39; with 0.78 it stretched edges 2,500% and sat inside
// the curtain.
#define PBD_COLLIDER_TRAVEL_SHARE 0.25f
// Steps (half a second at 60 Hz) after its last move in which a collider still counts: the
// cloth it flung about is still racing round it.
#define PBD_COLLIDER_SETTLE_STEPS 30
// Steps (two seconds) after a collider last asked for more substeps for a cloth in which the
// cloth's own motion still counts: its fastest particle, relative to the cloth's mean motion,
// may travel PBD_FLUNG_TRAVEL_SHARE of its shortest edge in one substep. A curtain that a
// capsule hit at 10 m/s flies over its rail and swings for seconds; brought back to one
// substep half a second after the hit, it wrapped round the rail with edges stretched 444%
// and stayed so (337% a second after the stop); kept at what its motion asks, 62% and 38%.
#define PBD_FLUNG_STEPS 120
#define PBD_FLUNG_TRAVEL_SHARE 0.5f
// Within those steps, a cloth left stretched (a stretch edge longer or shorter than its rest
// length by more than PBD_FLUNG_STRAIN times its stretch limit: wrapped round a capsule's
// end, hooked over a bar) takes twice the substeps of the last step while it stays so, up to
// PBD_STRAIN_SUBSTEPS, and keeps them, up to that, while an edge is off by more than the
// limit. A pass carries a correction on by about one edge, so at one substep the collider's
// contacts undo at every step what the passes took back: a capsule swept across the bench's
// curtain at 3 m/s left edges 25% long a second after it stopped (the limit 5%), and 8% with
// this. Held to 12: keeping up to the count the collider had asked for (128) kept the curtain
// hooked on the bar coming back at 63 substeps, where the guard stopped it in every substep,
// frozen with an edge 184% long.
#define PBD_FLUNG_STRAIN 2.0f
#define PBD_STRAIN_SUBSTEPS 12

// How far a point of collider c within `reach` of its position moves over the step: its
// shift, and its turn (the angle between its poses) times the reach.
static float collider_travel(const pbd_collider *c, float reach)
{
	pbd_quat a = c->pose_start.q, b = c->pose_end.q;
	float cosine = fminf(fabsf(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w), 1.0f);
	float turn = 2.0f * acosf(cosine);
	return v3_len(v3_sub(c->pose_end.p, c->pose_start.p)) + (turn > 0.0f ? turn * reach : 0.0f);
}

// A cloth's particles: their box, the fastest of them, and the sum of their velocities.
typedef struct cloth_motion {
	pbd_aabb box;
	float fastest;
	pbd_d3 sum;
} cloth_motion;

static cloth_motion measure_cloth(const pbd_world *w, const pbd_body *b)
{
	cloth_motion m = {{v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)}, 0.0f, {0, 0, 0}};
	float fastest2 = 0.0f;
	double sum[3] = {0, 0, 0};
	for (int i = b->first; i < b->first + b->count; ++i) {
		pbd_v3 x = v3_of4(w->particles.x[i]);
		sum[0] += w->particles.v[i].x, sum[1] += w->particles.v[i].y, sum[2] += w->particles.v[i].z;
		m.box.lo = v3(minf(m.box.lo.x, x.x), minf(m.box.lo.y, x.y), minf(m.box.lo.z, x.z));
		m.box.hi = v3(maxf(m.box.hi.x, x.x), maxf(m.box.hi.y, x.y), maxf(m.box.hi.z, x.z));
		fastest2 = maxf(fastest2, v3_len2(w->particles.v[i]));
	}
	m.fastest = sqrtf(fastest2);
	m.sum = (pbd_d3){sum[0], sum[1], sum[2]};
	return m;
}

static pbd_aabb grown(pbd_aabb box, float by)
{
	return (pbd_aabb){v3_sub(box.lo, v3(by, by, by)), v3_add(box.hi, v3(by, by, by))};
}

// The farthest corner of a box from a point.
static float farthest_corner(pbd_aabb box, pbd_v3 p)
{
	pbd_v3 d = v3(maxf(fabsf(box.lo.x - p.x), fabsf(box.hi.x - p.x)), maxf(fabsf(box.lo.y - p.y), fabsf(box.hi.y - p.y)),
		      maxf(fabsf(box.lo.z - p.z), fabsf(box.hi.z - p.z)));
	return v3_len(d);
}

// Whether a plane at `pose` comes within `margin` of the box (its nearest corner along the normal).
static bool plane_near(pbd_pose pose, pbd_aabb box, float margin)
{
	pbd_v3 n = quat_rotate(pose.q, v3(0, 1, 0));
	pbd_v3 nearest = v3(n.x > 0.0f ? box.lo.x : box.hi.x, n.y > 0.0f ? box.lo.y : box.hi.y,
			    n.z > 0.0f ? box.lo.z : box.hi.z);
	return v3_dot(n, v3_sub(nearest, pose.p)) <= margin;
}

// The box collider c sweeps over the step (not a plane), grown by `by`.
static pbd_aabb swept_box(const pbd_collider *c, float by)
{
	pbd_aabb box = {v3(minf(c->pose_start.p.x, c->pose_end.p.x), minf(c->pose_start.p.y, c->pose_end.p.y),
			   minf(c->pose_start.p.z, c->pose_end.p.z)),
			v3(maxf(c->pose_start.p.x, c->pose_end.p.x), maxf(c->pose_start.p.y, c->pose_end.p.y),
			   maxf(c->pose_start.p.z, c->pose_end.p.z))};
	return grown(box, by);
}

// Whether a point that moves at most `margin` could meet collider c over the step: every pose
// of c in the step is within its travel of the last one.
static bool point_near(const pbd_collider *c, float travel, pbd_v3 x, float margin)
{
	float d = pbd_shape_distance(&c->shape, c->pose_end.p, c->pose_end.q, x);
	return !(d > travel + margin);
}

// How many substeps cloth b needs near collider c: the most the collider moves over the step
// relative to a particle that may meet it, over PBD_COLLIDER_TRAVEL_SHARE of the cloth's
// shortest edge. A cloth flapping far from every collider, or resting on one, needs no more
// than it has.
static double substeps_near(const pbd_world *w, const pbd_collider *c, const pbd_body *b, const cloth_motion *m,
			    float dt, int base, int64_t now, float *speed)
{
	bool plane = c->shape.type == PBD_SHAPE_PLANE;
	float bound = plane ? farthest_corner(m->box, c->pose_start.p) : pbd_shape_bounding_radius(&c->shape);
	float travel = collider_travel(c, bound);
	*speed = travel / dt;
	float step = PBD_COLLIDER_TRAVEL_SHARE * b->distance.shortest;  // what a substep may close in by
	// A collider that has not moved for a while leaves a cloth falling or flung onto it to the
	// substeps it has (and to the guard); one that moved a moment ago still has the cloth it
	// flung about racing round it.
	if (!(step > 0.0f) || !isfinite(travel) || travel + m->fastest * dt <= step * (float)base ||
	    (travel == 0.0f && !(c->moved_at > now - PBD_COLLIDER_SETTLE_STEPS)))
		return 0.0;
	pbd_aabb reach = grown(m->box, m->fastest * dt + b->material.thickness);
	if (plane ? !plane_near(c->pose_start, reach, travel) && !plane_near(c->pose_end, reach, travel)
		  : !pbd_aabb_overlap(swept_box(c, bound + travel), reach))
		return 0.0;
	// At each particle that may meet it, the collider's motion relative to the rest of the
	// cloth (the mean motion of the particles it cannot meet), and relative to the particle
	// itself: a cape tied to a running body moves with it and needs nothing more, while the
	// vertices a collider drags along a curtain still count, as the rest of it lags.
	double sum[3] = {0, 0, 0};
	int near = 0;
	for (int i = b->first; i < b->first + b->count; ++i) {
		if (!point_near(c, travel, v3_of4(w->particles.x[i]), v3_len(w->particles.v[i]) * dt + b->material.thickness))
			continue;
		sum[0] += w->particles.v[i].x, sum[1] += w->particles.v[i].y, sum[2] += w->particles.v[i].z;
		near++;
	}
	if (near == 0)
		return 0.0;
	double far = b->count > near ? b->count - near : 1;
	pbd_v3 rest_of_cloth = v3((float)((m->sum.x - sum[0]) / far * dt), (float)((m->sum.y - sum[1]) / far * dt),
				  (float)((m->sum.z - sum[2]) / far * dt));
	pbd_quat turn = quat_mul(c->pose_end.q, quat_conj(c->pose_start.q));
	float most = 0.0f;
	for (int i = b->first; i < b->first + b->count; ++i) {
		pbd_v3 x = v3_of4(w->particles.x[i]), own = v3_scale(w->particles.v[i], dt);
		if (!point_near(c, travel, x, v3_len(own) + b->material.thickness))
			continue;
		pbd_v3 pushed = v3_sub(v3_add(c->pose_end.p, quat_rotate(turn, v3_sub(x, c->pose_start.p))), x);
		// Near a collider that has stopped, a particle more than twice as fast as the one
		// that flung the cloth is left out (substeps_for_motion says why).
		bool jittering = travel == 0.0f && v3_len(own) > 2.0f * b->flung_speed * dt;
		float against_own = jittering ? 0.0f : v3_len(v3_sub(own, pushed));
		most = maxf(most, maxf(v3_len(v3_sub(pushed, rest_of_cloth)), against_own));
	}
	return ceil((double)most / (double)step);
}

// How many substeps the motion of cloth b needs while it counts as flung: its fastest particle
// relative to the cloth's mean motion over PBD_FLUNG_TRAVEL_SHARE of its shortest edge. A
// particle more than twice as fast as the collider that flung the cloth is left out: it is a
// vertex squeezed between the collider and other layers, jittering, and as its jump per
// substep stays, its speed grows with the substeps and would feed them up to max_substeps.
static double substeps_for_motion(const pbd_world *w, const pbd_body *b, const cloth_motion *m, float dt)
{
	pbd_v3 mean = v3((float)(m->sum.x / b->count), (float)(m->sum.y / b->count), (float)(m->sum.z / b->count));
	float limit2 = 4.0f * b->flung_speed * b->flung_speed, fastest2 = 0.0f;
	for (int i = b->first; i < b->first + b->count; ++i) {
		float speed2 = v3_len2(v3_sub(w->particles.v[i], mean));
		if (speed2 <= limit2)
			fastest2 = maxf(fastest2, speed2);
	}
	float step = PBD_FLUNG_TRAVEL_SHARE * b->distance.shortest;
	double needed = ceil((double)(sqrtf(fastest2) * dt) / (double)step);
	return step > 0.0f && isfinite(needed) ? needed : 0.0;
}

// How many substeps the stretch of flung cloth b asks for (see PBD_FLUNG_STRAIN); none for a
// cloth without a stretch limit, which is meant to stretch.
static double substeps_for_strain(const pbd_world *w, const pbd_body *b)
{
	float limit = b->material.stretch_limit;
	if (!(limit > 0.0f))
		return 0.0;
	float strain = pbd_distance_max_strain_range(w->particles.x + b->first, &b->distance, PBD_DISTANCE_STRETCH, 0,
						     b->distance.count);
	int last = w->colliders.substeps_last;
	if (strain > PBD_FLUNG_STRAIN * limit)
		return mini(2 * last, PBD_STRAIN_SUBSTEPS);
	if (strain > limit)
		return mini(last, PBD_STRAIN_SUBSTEPS);
	return 0.0;
}

int pbd_colliders_substeps(pbd_world *w, float dt)
{
	int base = w->settings.substeps, most = w->settings.max_substeps;
	if (most <= base)
		return w->colliders.substeps_last = base;
	// A cloth that a fast collider flung about is still fast when the collider has stopped or
	// left: the count comes down by halves, not at once (from 128 substeps to 1, a cloth still
	// wrapped round a capsule stretched from 12% to 68% in one step).
	double needed = maxi(base, w->colliders.substeps_last / 2);
	int64_t now = w->stats.steps;
	// A collider that moves or moved a moment ago, or a cloth one flung about.
	bool any_counts = w->colliders.flung_until > now;
	for (int ci = 0; ci < w->colliders.capacity; ++ci) {
		pbd_collider *c = &w->colliders.slots[ci];
		if (c->live && memcmp(&c->pose_start, &c->pose_end, sizeof c->pose_start) != 0)
			c->moved_at = now;
		any_counts |= c->live && c->moved_at > now - PBD_COLLIDER_SETTLE_STEPS;
	}
	// Still colliders (a floor, a table) cost no pass over the particles.
	for (int s = 0; s < w->bodies.capacity && any_counts; ++s) {
		pbd_body *b = &w->bodies.slots[s];
		if (!b->live || b->kind != PBD_BODY_CLOTH || b->distance.count == 0)
			continue;
		cloth_motion m = measure_cloth(w, b);
		for (int ci = 0; ci < w->colliders.capacity; ++ci) {
			float speed = 0.0f;
			double near = w->colliders.slots[ci].live
					      ? substeps_near(w, &w->colliders.slots[ci], b, &m, dt, base, now, &speed)
					      : 0.0;
			if (near > base && speed > 0.0f) {  // a still collider flings nothing
				b->flung_speed = b->flung_until > now ? maxf(b->flung_speed, speed) : speed;
				b->flung_until = now + PBD_FLUNG_STEPS;
				w->colliders.flung_until = b->flung_until;
			}
			needed = fmax(needed, near);
		}
		if (b->flung_until > now)
			needed = fmax(needed, fmax(substeps_for_motion(w, b, &m, dt), substeps_for_strain(w, b)));
	}
	return w->colliders.substeps_last = needed < most ? (int)needed : most;
}
