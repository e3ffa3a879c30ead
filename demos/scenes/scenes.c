// SPDX-License-Identifier: MIT
// Scene table: what each scene builds and how it moves.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenes.h"

static const float kPi = 3.14159265358979f;

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int resolution(const demo_scene_options *o, int fallback)
{
	return o && o->res > 0 ? o->res : fallback;
}

static pbd_result add_floor(pbd_world *w, demo_scene_state *s)
{
	pbd_collider_def d = pbd_collider_def_default();  // the plane y = 0
	pbd_result r = pbd_collider_create(w, &d, &s->colliders[s->collider_count]);
	if (r == PBD_OK)
		s->collider_count++;
	return r;
}

static pbd_result add_cloth(pbd_world *w, demo_scene_state *s, const pbd_cloth_def *d)
{
	if (s->cloth_count >= DEMO_MAX_CLOTHS)
		return PBD_ERR_BAD_COUNT;
	pbd_result r = pbd_cloth_create(w, d, &s->cloths[s->cloth_count]);
	if (r == PBD_OK)
		s->cloth_count++;
	return r;
}

// Quaternion for a rotation of `degrees` about a unit axis.
static void axis_angle(float q[4], float x, float y, float z, float degrees)
{
	float half = 0.5f * degrees * kPi / 180.0f, s = sinf(half);
	q[0] = x * s;
	q[1] = y * s;
	q[2] = z * s;
	q[3] = cosf(half);
}

// The share of its width by which the hanging cloth's pins are brought together, and how
// long they take to get there (starting apart, so the cloth is not yanked).
#define HANG_SLACK 0.3f
#define HANG_GATHER_TIME 0.5f

// A cloth hung by its top corners, brought closer together than its width: the slack between
// them falls in soft vertical folds, which show how the material bends. A little motion out of
// the sheet's plane at the start (three waves across it) decides which way each fold goes; a
// flat sheet squeezed in its own plane would stay in it.
static pbd_result create_hang(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = resolution(o, 32);
	d.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	// The default bending is denim's (the denim preset's, pbd_tuning.c): a bending length of
	// 3.7 cm at the default weight, which the 3.2 cm edges of the 32 x 32 grid can show. Ten
	// times stiffer (1000, leather's) the sheet hangs as one curved board without folds.
	// +90 degrees about x takes the grid's v axis to -y: row j = 0 becomes the top edge.
	axis_angle(d.rotation, 1, 0, 0, 90.0f);
	d.position[1] = 1.5f;
	pbd_result r = add_cloth(w, s, &d);
	if (r != PBD_OK)
		return r;
	pbd_cloth_id id = s->cloths[s->cloth_count - 1];
	int n = 0, columns = d.grid.res_x;
	const float *x = pbd_cloth_positions(w, id, &n);
	s->values[0] = (float)columns;
	s->values[1] = x[3 * (columns - 1)];  // the right corner's x; the left one's is -x
	s->values[2] = x[1];                  // the top edge's height
	s->values[3] = x[2];
	float *v = calloc((size_t)n, 3 * sizeof *v);
	if (!v)
		return PBD_ERR_OUT_OF_MEMORY;
	for (int i = 0; i < n; ++i)
		v[3 * i + 2] = 0.1f * sinf(3.0f * 2.0f * kPi * (float)(i % columns) / (float)(columns - 1));
	r = pbd_cloth_set_velocities(w, id, v, n);
	free(v);
	return r == PBD_OK ? add_floor(w, s) : r;
}

// The corners come together over HANG_GATHER_TIME, then stay.
static void update_hang(pbd_world *w, demo_scene_state *s, float dt)
{
	float t = (float)s->time + dt;
	if ((float)s->time >= HANG_GATHER_TIME)
		return;
	float share = fminf(t / HANG_GATHER_TIME, 1.0f);
	float half_span = (1.0f - HANG_SLACK * (0.5f - 0.5f * cosf(kPi * share))) * s->values[1];
	int columns = (int)s->values[0];
	const int corners[2] = {0, columns - 1};
	for (int k = 0; k < 2; ++k) {
		float pin[3] = {k == 0 ? -half_span : half_span, s->values[2], s->values[3]};
		pbd_cloth_pin_vertex(w, s->cloths[0], corners[k], pin);
	}
}

// A horizontal cloth falling flat onto the floor from 1 m.
static pbd_result create_drop(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = resolution(o, 32);
	d.position[1] = 1.0f;
	pbd_result r = add_cloth(w, s, &d);
	return r == PBD_OK ? add_floor(w, s) : r;
}

// A cloth resting on a plane tilted by 20 degrees (tan = 0.364): with the default friction
// (0.5) it holds; below 0.364 it slides.
static pbd_result create_incline(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	const float angle = 20.0f;
	s->values[0] = angle;
	pbd_collider_def plane = pbd_collider_def_default();
	float a = angle * kPi / 180.0f;
	plane.normal[0] = -sinf(a);
	plane.normal[1] = cosf(a);
	pbd_result r = pbd_collider_create(w, &plane, &s->colliders[s->collider_count]);
	if (r != PBD_OK)
		return r;
	s->collider_count++;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = resolution(o, 24);
	d.grid.width = d.grid.height = 0.5f;
	axis_angle(d.rotation, 0, 0, 1, angle);
	// Lay it on the plane: thickness / 2 along the plane's normal.
	float lift = 0.5f * d.material.thickness;
	d.position[0] = -sinf(a) * lift;
	d.position[1] = cosf(a) * lift;
	return add_cloth(w, s, &d);
}

static pbd_result add_sphere(pbd_world *w, demo_scene_state *s, float x, float y, float z, float radius)
{
	pbd_collider_def d = pbd_collider_def_default();
	d.type = PBD_SHAPE_SPHERE;
	d.radius = radius;
	d.position[0] = x;
	d.position[1] = y;
	d.position[2] = z;
	pbd_result r = pbd_collider_create(w, &d, &s->colliders[s->collider_count]);
	if (r == PBD_OK)
		s->collider_count++;
	return r;
}

// A cloth falls over a sphere and settles on it and the floor around it.
static pbd_result create_drape(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	if (r == PBD_OK)
		r = add_sphere(w, s, 0.0f, 0.45f, 0.0f, 0.35f);
	if (r != PBD_OK)
		return r;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = resolution(o, 32);
	d.grid.width = d.grid.height = 1.4f;
	d.position[1] = 1.0f;
	d.position[0] = 0.05f;  // a little off centre, so it does not fold symmetrically
	return add_cloth(w, s, &d);
}

// A long strip dropped edge-first from above the floor piles up in folds.
static pbd_result create_fold(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	int res = resolution(o, 32);
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = res / 2 > 2 ? res / 2 : 2;
	d.grid.res_y = res * 2;
	d.grid.width = 0.6f;
	d.grid.height = 2.4f;
	// The default bending, denim's: a bending length of 3.7 cm at the default weight, about
	// one of the strip's edges (3.8 cm along, 4.0 cm across). Ten times stiffer (1000) the
	// strip rolls up into tubes and arches over instead of lying in flat folds.
	// Hanging vertically (v down), leaning a little so that it falls over itself.
	float q1[4], q2[4];
	axis_angle(q1, 1, 0, 0, 90.0f);
	axis_angle(q2, 0, 0, 1, 8.0f);
	// q = q2 * q1
	d.rotation[0] = q2[3] * q1[0] + q2[0] * q1[3] + q2[1] * q1[2] - q2[2] * q1[1];
	d.rotation[1] = q2[3] * q1[1] - q2[0] * q1[2] + q2[1] * q1[3] + q2[2] * q1[0];
	d.rotation[2] = q2[3] * q1[2] + q2[0] * q1[1] - q2[1] * q1[0] + q2[2] * q1[3];
	d.rotation[3] = q2[3] * q1[3] - q2[0] * q1[0] - q2[1] * q1[1] - q2[2] * q1[2];
	d.position[1] = 1.35f;
	return add_cloth(w, s, &d);
}

// Wringing: a cloth held by two opposite edges. Over four seconds both held edges gather to
// half their width (like hands closing on a towel), come 20 cm closer, and the edge at u = 1
// turns two full turns about the long axis; then everything holds. Without the gathering no
// cloth could follow: two turns of a 1 m wide edge need fibres six times longer. Gathering
// tighter would crowd the held vertices closer together than the cloth is thick (at 32
// vertices a fifth of the width leaves 6.5 mm between them against 10 mm of thickness): no
// contact can then be met, and the jammed cloth only grinds.
static pbd_result create_twist(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	int res = resolution(o, 32);
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = res;
	d.grid.pins = PBD_PIN_EDGE_U0 | PBD_PIN_EDGE_U1;
	// The held edges move relative to each other: tethers, which assume pins keep their
	// distances, would fight that, and so would a stretch limit once the wringing stretches
	// the cloth between them.
	d.material.tether_slack = -1.0f;
	d.material.stretch_limit = 0.0f;
	d.position[1] = 1.0f;
	s->values[0] = (float)res;
	return add_cloth(w, s, &d);
}

static void update_twist(pbd_world *w, demo_scene_state *s, float dt)
{
	int res = (int)s->values[0];
	float t = (float)s->time + dt;  // where the edges must be at the end of this step
	float f = t < 4.0f ? t / 4.0f : 1.0f;
	float angle = f * 2.0f * 2.0f * kPi, c = cosf(angle), sn = sinf(angle);
	float width = 1.0f - 0.5f * f, half_gap = 0.5f - 0.1f * f;
	for (int j = 0; j < res; ++j) {
		float v = ((float)j / (float)(res - 1) - 0.5f) * width;
		float still[3] = {-half_gap, 1.0f, v};
		float turned[3] = {half_gap, 1.0f - sn * v, c * v};
		pbd_cloth_pin_vertex(w, s->cloths[0], j * res, still);
		pbd_cloth_pin_vertex(w, s->cloths[0], j * res + res - 1, turned);
	}
}

// Deterministic jitter for particle placement (no global state: the seed is local).
static float jitter(uint32_t *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (float)(*seed >> 8) / 16777216.0f - 0.5f;
}

// 540 balls poured in a narrow column onto the floor: they spread into a heap whose slope
// is set by their friction.
static pbd_result create_pile(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	(void)o;
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	enum { SIDE = 6, LAYERS = 15, COUNT = SIDE * SIDE * LAYERS };
	static float positions[COUNT * 3];
	pbd_particles_def d = pbd_particles_def_default();
	d.radius = 0.025f;
	d.mass = 0.02f;
	float spacing = 2.2f * d.radius;
	uint32_t seed = 12345u;
	for (int k = 0; k < COUNT; ++k) {
		int i = k % SIDE, j = (k / SIDE) % SIDE, l = k / (SIDE * SIDE);
		positions[3 * k] = ((float)i - 0.5f * (SIDE - 1)) * spacing + 0.1f * d.radius * jitter(&seed);
		positions[3 * k + 1] = 0.1f + (float)l * spacing;
		positions[3 * k + 2] = ((float)j - 0.5f * (SIDE - 1)) * spacing + 0.1f * d.radius * jitter(&seed);
	}
	d.count = COUNT;
	d.positions = positions;
	r = pbd_particles_create(w, &d, &s->particles[0]);
	if (r == PBD_OK)
		s->particle_group_count = 1;
	return r;
}

// Three cloths dropped onto each other and the floor, each turned against the one below.
static pbd_result create_stack(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	for (int k = 0; k < 3 && r == PBD_OK; ++k) {
		pbd_cloth_def d = pbd_cloth_def_default();
		d.grid.res_x = d.grid.res_y = resolution(o, 24);
		d.grid.width = d.grid.height = 0.8f;
		axis_angle(d.rotation, 0, 1, 0, 25.0f * (float)k);
		d.position[0] = 0.06f * (float)k;
		d.position[1] = 0.15f + 0.25f * (float)k;
		d.position[2] = -0.04f * (float)k;
		r = add_cloth(w, s, &d);
	}
	return r;
}

// Bullet: a trampoline (a horizontal cloth pinned along its whole border) hit by three heavy
// balls shot straight down at 20, 50 and 100 m/s, one every 0.6 s; beside it a hanging cloth
// that a kinematic sphere sweeps through at 30 m/s, there and back every second. Balls wait
// on the floor, out of the way, until their shot.
enum { BULLET_BALLS = 3 };
static const float kBulletSpeed[BULLET_BALLS] = {20.0f, 50.0f, 100.0f};
static const float kBulletTrampoline[3] = {-0.8f, 1.0f, 0.0f};  // centre of the trampoline
static const float kBulletCurtain[3] = {0.9f, 1.7f, 0.0f};      // middle of the curtain's top edge
#define BULLET_SWEEP_RADIUS 0.15f
#define BULLET_SWEEP_SPEED 30.0f
#define BULLET_SWEEP_HALF_LENGTH 1.2f

static pbd_result create_bullet(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	int res = resolution(o, 32);
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = res;
	d.grid.width = d.grid.height = 1.2f;
	d.grid.pins = PBD_PIN_EDGE_U0 | PBD_PIN_EDGE_U1 | PBD_PIN_EDGE_V0 | PBD_PIN_EDGE_V1;
	memcpy(d.position, kBulletTrampoline, sizeof d.position);
	if ((r = add_cloth(w, s, &d)) != PBD_OK)
		return r;
	pbd_cloth_def c = pbd_cloth_def_default();
	c.grid.res_x = c.grid.res_y = res;
	c.grid.width = c.grid.height = 1.0f;
	c.grid.pins = PBD_PIN_EDGE_V0;
	axis_angle(c.rotation, 1, 0, 0, 90.0f);  // hangs in the plane z = 0, row 0 on top
	memcpy(c.position, kBulletCurtain, sizeof c.position);
	c.position[1] -= 0.5f;  // the grid's position is its centre
	if ((r = add_cloth(w, s, &c)) != PBD_OK)
		return r;
	// The swept sphere starts on the -z side of the curtain, level with its middle.
	if ((r = add_sphere(w, s, kBulletCurtain[0], kBulletCurtain[1] - 0.5f, -BULLET_SWEEP_HALF_LENGTH,
			    BULLET_SWEEP_RADIUS)) != PBD_OK)
		return r;
	pbd_collider_set_friction(w, s->colliders[s->collider_count - 1], 0.1f, 0.1f);
	// Balls of radius two edge lengths, each as heavy as a third of the trampoline.
	float edge = d.grid.width / (float)(res - 1);
	float positions[3 * BULLET_BALLS];
	pbd_particles_def b = pbd_particles_def_default();
	b.radius = 2.0f * edge;
	b.mass = 0.1f;
	for (int k = 0; k < BULLET_BALLS; ++k) {
		positions[3 * k] = -2.5f;
		positions[3 * k + 1] = b.radius;
		positions[3 * k + 2] = -0.6f + 0.6f * (float)k;
	}
	b.count = BULLET_BALLS;
	b.positions = positions;
	if ((r = pbd_particles_create(w, &b, &s->particles[0])) != PBD_OK)
		return r;
	s->particle_group_count = 1;
	s->values[0] = 0.0f;  // balls shot so far
	return PBD_OK;
}

static void update_bullet(pbd_world *w, demo_scene_state *s, float dt)
{
	float t = (float)s->time + dt;  // the end of this step
	// Shoot the next ball from just above the trampoline, so that it arrives within a step or
	// two at any speed: the crossing must be caught, not avoided by a slow approach.
	int shot = (int)s->values[0];
	if (shot < BULLET_BALLS && s->time >= 0.2 + 0.6 * shot) {
		float r = pbd_particles_radius(w, s->particles[0]);
		float x[3] = {kBulletTrampoline[0] + 0.25f * (float)(shot - 1), kBulletTrampoline[1] + 0.3f + r,
			      kBulletTrampoline[2] + 0.15f * (float)(shot - 1)};
		float v[3] = {0.0f, -kBulletSpeed[shot], 0.0f};
		pbd_particles_set(w, s->particles[0], shot, x, v);
		s->values[0] = (float)(shot + 1);
	}
	// The sphere crosses the curtain in 2 * half length / speed seconds, waits, and comes back.
	float cross = 2.0f * BULLET_SWEEP_HALF_LENGTH / BULLET_SWEEP_SPEED, period = 1.0f;
	float phase = fmodf(t, 2.0f * period), z;
	if (phase < period)
		z = -BULLET_SWEEP_HALF_LENGTH + BULLET_SWEEP_SPEED * clampf(phase - 0.3f, 0.0f, cross);
	else
		z = BULLET_SWEEP_HALF_LENGTH - BULLET_SWEEP_SPEED * clampf(phase - period - 0.3f, 0.0f, cross);
	float position[3] = {kBulletCurtain[0], kBulletCurtain[1] - 0.5f, z}, rotation[4] = {0, 0, 0, 1};
	pbd_collider_set_pose(w, s->colliders[1], position, rotation);
}


// A character (a kinematic capsule) runs a circle of radius 2.5 m at up to 3 m/s through
// three banners hanging across its path; a cape is attached to its shoulders. The same
// setup as demos/embed, which a game would write against <pbd/pbd.h> alone.
#define CAPE_RADIUS 2.5f
#define CAPE_SPEED 3.0f          // m/s once up to speed
#define CAPE_BODY_Y 0.95f        // capsule centre
#define CAPE_BODY_RADIUS 0.25f
#define CAPE_BODY_HALF 0.7f      // half height of the capsule's segment

// Angle along the circle at time t: accelerating over the first second, then steady.
static float cape_angle(float t)
{
	float omega = CAPE_SPEED / CAPE_RADIUS;
	return t < 1.0f ? 0.5f * omega * t * t : omega * (t - 0.5f);
}

// The character's pose: on the circle, facing along it (a turn of -angle about y).
static void cape_pose(float t, float position[3], float rotation[4])
{
	float a = cape_angle(t);
	position[0] = CAPE_RADIUS * cosf(a);
	position[1] = CAPE_BODY_Y;
	position[2] = CAPE_RADIUS * sinf(a);
	axis_angle(rotation, 0, 1, 0, -a * 180.0f / kPi);
}

static void quat_multiply(const float a[4], const float b[4], float out[4])
{
	float r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
		      a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
		      a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
		      a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
	memcpy(out, r, sizeof r);
}

// The camera runs beside the character, at the height of the cape.
static void focus_cape(const pbd_world *w, const demo_scene_state *s, float target[3], float *heading)
{
	(void)w;
	float rotation[4];
	cape_pose((float)s->time, target, rotation);
	target[1] = 1.1f;
	*heading = -cape_angle((float)s->time) * 180.0f / kPi;
}

static pbd_result create_cape(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	pbd_collider_def body = pbd_collider_def_default();
	body.type = PBD_SHAPE_CAPSULE;
	body.radius = CAPE_BODY_RADIUS;
	body.half_height = CAPE_BODY_HALF;
	cape_pose(0.0f, body.position, body.rotation);
	if ((r = pbd_collider_create(w, &body, &s->colliders[s->collider_count])) != PBD_OK)
		return r;
	s->collider_count++;
	// A boulder in the middle of the circle, for the banners' and cape's company.
	pbd_collider_def boulder = pbd_collider_def_default();
	boulder.type = PBD_SHAPE_SPHERE;
	boulder.radius = 0.6f;
	boulder.position[1] = 0.3f;
	if ((r = pbd_collider_create(w, &boulder, &s->colliders[s->collider_count])) != PBD_OK)
		return r;
	s->collider_count++;
	int res = resolution(o, 16);
	// The cape: 0.5 m wide, 0.75 m long, hanging behind the shoulders. The character starts at
	// angle 0, at (R, 0, 0), facing +z: its back is -z. It is the first cloth (the viewer draws
	// the first in the headline color).
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = res;
	d.grid.res_y = res + res / 2;
	d.grid.width = 0.5f;
	d.grid.height = 0.75f;
	axis_angle(d.rotation, 1, 0, 0, 90.0f);
	float shoulder_y = CAPE_BODY_Y + 0.65f;
	d.position[0] = CAPE_RADIUS;
	d.position[1] = shoulder_y - 0.5f * d.grid.height;
	d.position[2] = -(CAPE_BODY_RADIUS + 0.07f);
	// Its tethers follow the attachment (built when it is attached): the held row moves
	// rigidly, so they never fight it.
	d.areal_density = 0.3f;
	if ((r = add_cloth(w, s, &d)) != PBD_OK)
		return r;
	uint32_t top[4096];
	for (int i = 0; i < d.grid.res_x; ++i)
		top[i] = (uint32_t)i;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = s->cloths[s->cloth_count - 1];
	ad.vertices = top;
	ad.vertex_count = d.grid.res_x;
	cape_pose(0.0f, ad.position, ad.rotation);
	if ((r = pbd_attachment_create(w, &ad, &s->attachments[0])) != PBD_OK)
		return r;
	s->attachment_count = 1;
	// Banners: 1 m across the path, 1.1 m tall, hanging from 2.1 m, held along the top.
	for (int b = 0; b < 3; ++b) {
		float angle = (60.0f + 120.0f * (float)b) * kPi / 180.0f;
		pbd_cloth_def banner = pbd_cloth_def_default();
		banner.grid.res_x = res;
		banner.grid.res_y = res + res / 8;
		banner.grid.width = 1.0f;
		banner.grid.height = 1.1f;
		banner.grid.pins = PBD_PIN_EDGE_V0;
		float upright[4], turn[4];
		axis_angle(upright, 1, 0, 0, 90.0f);  // v down: row j = 0 on top
		axis_angle(turn, 0, 1, 0, -angle * 180.0f / kPi);  // u along the radius
		quat_multiply(turn, upright, banner.rotation);
		banner.position[0] = CAPE_RADIUS * cosf(angle);
		banner.position[1] = 2.1f - 0.55f;
		banner.position[2] = CAPE_RADIUS * sinf(angle);
		banner.material.bend_compliance = 300.0f;
		if ((r = add_cloth(w, s, &banner)) != PBD_OK)
			return r;
	}
	return PBD_OK;
}

static void update_cape(pbd_world *w, demo_scene_state *s, float dt)
{
	float position[3], rotation[4];
	cape_pose((float)s->time + dt, position, rotation);
	pbd_collider_set_pose(w, s->colliders[1], position, rotation);
	pbd_attachment_set_pose(w, s->attachments[0], position, rotation);
}

// ---------------------------------------------------------------------------------------------
// Scenes from the sample meshes in demos/meshes.

const char *demo_mesh_dir(void)
{
	const char *env = getenv("PBD_MESH_DIR");
	if (env && *env)
		return env;
	if (access(PBD_INSTALLED_MESH_DIR "/flag.obj", R_OK) == 0)
		return PBD_INSTALLED_MESH_DIR;
	return PBD_SOURCE_MESH_DIR;
}

// Loads demos/meshes/NAME (welding when asked) into `mesh`; on failure says why in s->message.
static pbd_result load_sample(const char *name, float weld, pbd_mesh *mesh, demo_scene_state *s)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", demo_mesh_dir(), name);
	pbd_obj_options o = pbd_obj_options_default();
	o.weld_distance = weld;
	return pbd_mesh_load_obj(path, &o, mesh, s->message, sizeof s->message);
}

static pbd_cloth_def mesh_cloth(const pbd_mesh *m)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.source = PBD_CLOTH_MESH;
	d.mesh.positions = m->positions;
	d.mesh.vertex_count = m->vertex_count;
	d.mesh.indices = m->indices;
	d.mesh.triangle_count = m->triangle_count;
	return d;
}

// A round tablecloth (concentric rings, not a grid) dropped onto a square table.
static pbd_result create_tablecloth(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	(void)o;
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	pbd_collider_def table = pbd_collider_def_default();
	table.type = PBD_SHAPE_BOX;
	table.half_extents[0] = table.half_extents[2] = 0.45f;
	table.half_extents[1] = 0.03f;
	table.position[1] = 0.75f;
	if ((r = pbd_collider_create(w, &table, &s->colliders[s->collider_count])) != PBD_OK)
		return r;
	s->collider_count++;
	pbd_mesh m;
	if ((r = load_sample("tablecloth.obj", -1.0f, &m, s)) != PBD_OK)
		return r;
	pbd_cloth_def d = mesh_cloth(&m);
	d.position[1] = 1.0f;
	axis_angle(d.rotation, 0, 1, 0, 10.0f);
	d.areal_density = 0.25f;
	r = add_cloth(w, s, &d);
	pbd_mesh_free(&m);
	return r;
}

// A circle skirt (its seam welded on load) on a body: it falls into folds around the body;
// then the waist, attached to a frame, twirls faster and faster and slows down again: the
// skirt flares out into a disc and falls back into folds.
static pbd_result create_skirt(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	(void)o;
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	pbd_collider_def body = pbd_collider_def_default();
	body.type = PBD_SHAPE_CAPSULE;
	body.radius = 0.14f;
	body.half_height = 0.45f;
	body.position[1] = 0.95f;
	if ((r = pbd_collider_create(w, &body, &s->colliders[s->collider_count])) != PBD_OK)
		return r;
	s->collider_count++;
	pbd_mesh m;
	if ((r = load_sample("skirt.obj", 1e-5f, &m, s)) != PBD_OK)
		return r;
	pbd_cloth_def d = mesh_cloth(&m);
	d.position[1] = 1.1f;
	// Cotton: its weight and its bending (the cotton preset's, pbd_tuning.c). A stiffer
	// bending (1000) stood the skirt out like a lampshade instead of in vertical folds.
	d.areal_density = 0.15f;
	d.material.bend_compliance = 1e5f;
	d.material.tether_slack = -1.0f;  // the waist turns: no tethers
	// The waist: the mesh's top ring (y = 0).
	uint32_t waist[256];
	int n = 0;
	for (int i = 0; i < m.vertex_count && n < 256; ++i)
		if (fabsf(m.positions[3 * i + 1]) < 1e-6f)
			waist[n++] = (uint32_t)i;
	r = add_cloth(w, s, &d);
	pbd_mesh_free(&m);
	if (r != PBD_OK)
		return r;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = s->cloths[s->cloth_count - 1];
	ad.vertices = waist;
	ad.vertex_count = n;
	ad.position[1] = 1.1f;
	if ((r = pbd_attachment_create(w, &ad, &s->attachments[0])) != PBD_OK)
		return r;
	s->attachment_count = 1;
	return PBD_OK;
}

// Turns of the twirl by time t: still for 1.5 s, up to 1.5 turns per second over 2 s, held
// for 3 s, then slowing to a stop over 2 s.
static float skirt_turns(float t)
{
	const float top = 1.5f;
	t = fmaxf(t - 1.5f, 0.0f);
	if (t < 2.0f)
		return 0.5f * (top / 2.0f) * t * t;
	float turns = top;  // by t = 2
	if (t < 5.0f)
		return turns + top * (t - 2.0f);
	turns += 3.0f * top;
	float u = fminf(t - 5.0f, 2.0f);
	return turns + top * u - 0.5f * (top / 2.0f) * u * u;
}

static void update_skirt(pbd_world *w, demo_scene_state *s, float dt)
{
	float t = (float)s->time + dt, q[4], p[3] = {0.0f, 1.1f, 0.0f};
	axis_angle(q, 0, 1, 0, 360.0f * fmodf(skirt_turns(t), 1.0f));
	pbd_attachment_set_pose(w, s->attachments[0], p, q);
}

// A flag (a quad-dominant mesh, quads split on load) held along its hoist beside a pole, in
// an 8 m/s wind.
static pbd_result create_flag(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	(void)o;
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	pbd_collider_def pole = pbd_collider_def_default();
	pole.type = PBD_SHAPE_CAPSULE;
	pole.radius = 0.03f;
	pole.half_height = 1.25f;
	pole.position[1] = 1.25f;
	if ((r = pbd_collider_create(w, &pole, &s->colliders[s->collider_count])) != PBD_OK)
		return r;
	s->collider_count++;
	pbd_mesh m;
	if ((r = load_sample("flag.obj", -1.0f, &m, s)) != PBD_OK)
		return r;
	uint32_t hoist[256];
	int n = 0;
	for (int i = 0; i < m.vertex_count && n < 256; ++i)
		if (fabsf(m.positions[3 * i]) < 1e-6f)
			hoist[n++] = (uint32_t)i;
	pbd_cloth_def d = mesh_cloth(&m);
	d.pinned = hoist;
	d.pinned_count = n;
	d.position[0] = 0.045f;
	d.position[1] = 1.45f;
	d.areal_density = 0.15f;
	r = add_cloth(w, s, &d);
	pbd_mesh_free(&m);
	if (r != PBD_OK)
		return r;
	float wind[3] = {8.0f, 0.0f, 0.0f};
	s->wind_direction[0] = 1.0f;
	return pbd_world_set_wind(w, wind);
}

// Your own cloth: an OBJ file dropped into a default stage (a floor, optionally a sphere),
// centred over the origin with its lowest point 0.3 m above the floor (1 m with the sphere),
// pinned as options->pins says.
static pbd_result pin_vertices(const pbd_mesh *m, const char *spec, uint32_t **out, int *count, char *message,
			       size_t capacity)
{
	*out = NULL;
	*count = 0;
	if (!spec || strcmp(spec, "none") == 0)
		return PBD_OK;
	uint32_t *list = malloc((size_t)m->vertex_count * sizeof *list);
	if (!list)
		return PBD_ERR_OUT_OF_MEMORY;
	float lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < m->vertex_count; ++i) {
		lo = fminf(lo, m->positions[3 * i + 1]);
		hi = fmaxf(hi, m->positions[3 * i + 1]);
	}
	int n = 0;
	float percent = -1.0f;
	char *end = NULL;
	if (strcmp(spec, "top") == 0)
		percent = 0.5f;  // the top edge: within half a percent of the height
	else if (strncmp(spec, "highest:", 8) == 0)
		percent = strtof(spec + 8, &end);
	if (percent >= 0.0f || (end && end != spec + 8)) {
		if ((end && (*end != '\0' && strcmp(end, "%") != 0)) || !(percent > 0.0f && percent <= 100.0f)) {
			snprintf(message, capacity, "--pin %s: expected highest:N with 0 < N <= 100", spec);
			free(list);
			return PBD_ERR_BAD_COUNT;
		}
		if (!(hi > lo)) {
			snprintf(message, capacity, "--pin %s: the mesh is flat (all vertices at one height): no top to pin", spec);
			free(list);
			return PBD_ERR_BAD_COUNT;
		}
		float cut = hi - (hi - lo) * percent / 100.0f;
		for (int i = 0; i < m->vertex_count; ++i)
			if (m->positions[3 * i + 1] >= cut)
				list[n++] = (uint32_t)i;
	} else {
		const char *at = spec;
		while (*at) {
			errno = 0;
			long v = strtol(at, &end, 10);
			if (end == at || errno || v < 0 || v >= m->vertex_count || n >= m->vertex_count ||
			    (*end != ',' && *end != '\0')) {
				snprintf(message, capacity, "--pin %s: expected none, top, highest:N or vertex indices 0..%d "
					 "separated by commas", spec, m->vertex_count - 1);
				free(list);
				return end != at && (v < 0 || v >= m->vertex_count) ? PBD_ERR_INDEX_OUT_OF_RANGE : PBD_ERR_BAD_COUNT;
			}
			list[n++] = (uint32_t)v;
			at = *end == ',' ? end + 1 : end;
		}
	}
	*out = list;
	*count = n;
	return PBD_OK;
}

static pbd_result create_mesh(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	if (!o || !o->cloth_path) {
		snprintf(s->message, sizeof s->message, "scene mesh needs a file (--cloth FILE.obj)");
		return PBD_ERR_NULL_ARGUMENT;
	}
	pbd_result r = add_floor(w, s);
	if (r != PBD_OK)
		return r;
	pbd_obj_options oo = pbd_obj_options_default();
	oo.weld_distance = 0.0f;  // exporters split vertices at seams: join exact duplicates
	oo.progress = o->progress;
	oo.progress_user = o->progress_user;
	pbd_mesh m;
	if ((r = pbd_mesh_load_obj(o->cloth_path, &oo, &m, s->message, sizeof s->message)) != PBD_OK)
		return r;
	uint32_t *pins = NULL;
	int pin_count = 0;
	if ((r = pin_vertices(&m, o->pins, &pins, &pin_count, s->message, sizeof s->message)) != PBD_OK) {
		pbd_mesh_free(&m);
		return r;
	}
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int i = 0; i < m.vertex_count; ++i)
		for (int k = 0; k < 3; ++k) {
			lo[k] = fminf(lo[k], m.positions[3 * i + k]);
			hi[k] = fmaxf(hi[k], m.positions[3 * i + k]);
		}
	pbd_cloth_def d = mesh_cloth(&m);
	d.pinned = pins;
	d.pinned_count = pin_count;
	d.position[0] = -0.5f * (lo[0] + hi[0]);
	d.position[1] = (o->sphere ? 1.0f : 0.3f) - lo[1];
	d.position[2] = -0.5f * (lo[2] + hi[2]);
	r = add_cloth(w, s, &d);
	if (r != PBD_OK)
		snprintf(s->message, sizeof s->message, "%s: %s", o->cloth_path, pbd_world_last_error(w));
	else  // what the reader found and repaired, for the tools to show
		snprintf(s->message, sizeof s->message,
			 "%s: %d vertices pinned (--pin %s); %d vertices (%d welded), %d triangles, %d pieces (%d not "
			 "orientable), %d faces turned, %d non-manifold edges, %d boundary loops",
			 o->cloth_path, pin_count, o->pins ? o->pins : "none", m.vertex_count, m.vertices_welded,
			 m.triangle_count, m.pieces, m.pieces_not_orientable, m.faces_reoriented, m.edges_non_manifold,
			 m.boundary_loops);
	free(pins);
	pbd_mesh_free(&m);
	if (r == PBD_OK && o->sphere) {
		pbd_collider_def ball = pbd_collider_def_default();
		ball.type = PBD_SHAPE_SPHERE;
		ball.radius = 0.35f;
		ball.position[1] = 0.45f;
		if ((r = pbd_collider_create(w, &ball, &s->colliders[s->collider_count])) == PBD_OK)
			s->collider_count++;
	}
	return r;
}

// Tearing: a ball flies through a curtain pinned along its top and tears it, and a sheet held
// at its sides by two hands is pulled apart until it tears in two from a notch (the viewer's
// left and right mouse buttons grab and pull the same way).
#define TEAR_STRAIN 0.4f
#define TEAR_CURTAIN_STRAIN 0.2f
#define TEAR_CURTAIN_X -0.35f
#define TEAR_SHEET_X 1.05f
#define TEAR_BALL_RADIUS 0.12f
#define TEAR_BALL_SPEED 20.0f
#define TEAR_BALL_PERIOD 3.0f   // s between balls; each flies 1.5 m each side of the curtain
#define TEAR_PULL_SPEED 0.1f    // m/s each hand moves outwards
#define TEAR_PULL_START 0.5f    // s
#define TEAR_NOTCH 0.06f        // m: the notch reaches this far down the sheet (0.4 m high)
// The hands hold exactly (a spring would give at the hand and stretch the edges there most).
#define TEAR_HAND_COMPLIANCE 0.0f  // m/N

static pbd_result create_tear(pbd_world *w, const demo_scene_options *o, demo_scene_state *s)
{
	// The ball is to tear the curtain where it hits: with the substeps raised to match its
	// speed (settings.max_substeps) the push would spread over the whole curtain, which then
	// swings aside instead. The scene keeps the substeps it is given.
	pbd_world_settings ws = pbd_world_get_settings(w);
	ws.max_substeps = 0;
	pbd_result r = pbd_world_set_settings(w, &ws);
	if (r != PBD_OK || (r = add_floor(w, s)) != PBD_OK)
		return r;
	int res = resolution(o, 32);
	pbd_cloth_def c = pbd_cloth_def_default();
	c.grid.res_x = c.grid.res_y = res;
	c.grid.width = c.grid.height = 1.0f;
	c.grid.pins = PBD_PIN_EDGE_V0;
	c.material.tear_strain = TEAR_CURTAIN_STRAIN;
	c.material.stretch_limit = 0.0f;  // cloth that is to tear must stretch that far
	c.areal_density = 0.5f;  // a heavy curtain
	// of canvas, stiff in bending (with denim's, the default, the 99th percentile of its frames
	// took 74 ms instead of 23, and an edge stretched 329%)
	c.material.bend_compliance = 1000.0f;
	// Tethers (the default slack) keep a fine curtain from stretching, and tearing, at its pins
	// under its own weight; where the ball pushes it they hold it back, so it tears there.
	axis_angle(c.rotation, 1, 0, 0, 90.0f);  // hangs in the plane z = 0, row 0 on top
	c.position[0] = TEAR_CURTAIN_X;
	c.position[1] = 1.1f;
	if ((r = add_cloth(w, s, &c)) != PBD_OK)
		return r;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = res;
	d.grid.res_y = res / 2 > 2 ? res / 2 : 2;
	d.grid.width = 0.8f;
	d.grid.height = 0.4f;
	d.material.tear_strain = TEAR_STRAIN;
	d.material.stretch_limit = 0.0f;
	d.material.bend_compliance = 1000.0f;  // a stiff sheet, as of paper
	d.material.tether_slack = -1.0f;
	axis_angle(d.rotation, 1, 0, 0, 90.0f);  // upright in the plane z = 0, held at its sides
	d.position[0] = TEAR_SHEET_X;
	d.position[1] = 0.9f;
	if ((r = add_cloth(w, s, &d)) != PBD_OK)
		return r;
	// A notch in the middle of its top edge, where the tear starts (as when tearing paper).
	float notch[3] = {TEAR_SHEET_X, d.position[1] + 0.5f * d.grid.height, 0.0f}, across[3] = {1.0f, 0.0f, 0.0f};
	if ((r = pbd_cloth_cut(w, s->cloths[1], notch, across, TEAR_NOTCH, NULL)) != PBD_OK)
		return r;
	if ((r = add_sphere(w, s, TEAR_CURTAIN_X, 0.6f, -1.5f, TEAR_BALL_RADIUS)) != PBD_OK)
		return r;
	// Two hands hold the sheet's sides (its first and last columns) on stiff springs.
	uint32_t column[2][256];
	int rows = d.grid.res_y < 256 ? d.grid.res_y : 256;
	for (int side = 0; side < 2; ++side) {
		for (int j = 0; j < rows; ++j)
			column[side][j] = (uint32_t)(j * d.grid.res_x + (side ? d.grid.res_x - 1 : 0));
		pbd_attachment_def a = pbd_attachment_def_default();
		a.cloth = s->cloths[1];
		a.vertices = column[side];
		a.vertex_count = rows;
		a.compliance = TEAR_HAND_COMPLIANCE;
		if ((r = pbd_attachment_create(w, &a, &s->attachments[s->attachment_count])) != PBD_OK)
			return r;
		s->attachment_count++;
	}
	return PBD_OK;
}

static void update_tear(pbd_world *w, demo_scene_state *s, float dt)
{
	float t = (float)s->time + dt;
	// The ball: from z = -1.5 to +1.5 through the curtain's middle, once per period.
	float phase = fmodf(t, TEAR_BALL_PERIOD);
	float z = -1.5f + TEAR_BALL_SPEED * fmaxf(phase - 0.5f, 0.0f);
	float position[3] = {TEAR_CURTAIN_X, 0.6f, fminf(z, 1.5f)}, rotation[4] = {0, 0, 0, 1};
	if (phase < dt)  // back to the start, without sweeping through the curtain
		pbd_collider_teleport(w, s->colliders[1], position, rotation);
	else
		pbd_collider_set_pose(w, s->colliders[1], position, rotation);
	// The hands pull the sheet's sides apart after a moment.
	float pull = TEAR_PULL_SPEED * fmaxf(t - TEAR_PULL_START, 0.0f);
	for (int side = 0; side < s->attachment_count; ++side) {
		float offset[3] = {side ? pull : -pull, 0.0f, 0.0f};
		pbd_attachment_set_pose(w, s->attachments[side], offset, rotation);
	}
}

static const demo_scene scenes[] = {
	{"hang", "a square cloth hung by two top corners closer than its width: the slack folds", 32,
	 {0.0f, 1.35f, 0.0f}, 2.9f, 25.0f, 12.0f, create_hang, update_hang},
	{"drop", "a horizontal cloth falling flat onto the floor", 32, {0.0f, 0.3f, 0.0f}, 2.6f, 30.0f, 30.0f,
	 create_drop, NULL},
	{"incline", "a cloth on a 20 degree slope: static friction holds it", 24, {0.0f, 0.05f, 0.0f}, 1.5f, 20.0f,
	 28.0f, create_incline, NULL},
	{"drape", "a cloth falls over a sphere onto the floor", 32, {0.0f, 0.45f, 0.0f}, 2.6f, 30.0f, 28.0f,
	 create_drape, NULL},
	{"fold", "a long strip dropped edge-first piles up in folds", 32, {0.0f, 0.4f, 0.0f}, 3.0f, 30.0f, 25.0f,
	 create_fold, NULL},
	{"twist", "wringing: held edges gather, one turns two full turns", 32, {0.0f, 1.0f, 0.0f}, 2.4f, 35.0f, 20.0f,
	 create_twist, update_twist},
	{"pile", "540 balls poured onto the floor form a heap", 0, {0.0f, 0.2f, 0.0f}, 1.6f, 30.0f, 25.0f,
	 create_pile, NULL},
	{"stack", "three cloths dropped onto each other and the floor", 24, {0.0f, 0.2f, 0.0f}, 2.2f, 30.0f, 32.0f,
	 create_stack, NULL},
	{"bullet", "balls at 20/50/100 m/s hit a trampoline; a sphere sweeps a curtain at 30 m/s", 32,
	 {0.3f, 0.8f, 0.0f}, 3.8f, 195.0f, 28.0f, create_bullet, update_bullet},
	{"cape", "a character runs through hanging banners with a cape on its shoulders", 16, {2.5f, 1.1f, 0.0f},
	 4.0f, 135.0f, 20.0f, create_cape, update_cape, focus_cape},
	{"tablecloth", "a round tablecloth (mesh file) drops onto a square table", 0, {0.0f, 0.6f, 0.0f}, 2.8f, 30.0f,
	 30.0f, create_tablecloth, NULL},
	{"skirt", "a flared skirt (mesh file) twirls up and settles", 0, {0.0f, 0.9f, 0.0f}, 2.6f, 20.0f, 15.0f,
	 create_skirt, update_skirt},
	{"flag", "a flag (mesh file) on a pole in an 8 m/s wind", 0, {0.55f, 1.6f, 0.0f}, 3.2f, 15.0f, 8.0f,
	 create_flag, NULL},
	{"tear", "a ball tears through a curtain; two grabs pull a sheet apart", 32, {-0.25f, 0.7f, 0.0f}, 3.6f, 8.0f,
	 10.0f, create_tear, update_tear},
};

// Not in the numbered table: it needs a file (the tools choose it for --cloth).
static const demo_scene mesh_scene = {"mesh", "your own cloth: --cloth FILE.obj [--pin ...] [--sphere]", 0,
				      {0.0f, 0.6f, 0.0f}, 3.0f, 30.0f, 25.0f, create_mesh, NULL};

int demo_scene_count(void) { return (int)(sizeof scenes / sizeof scenes[0]); }

const demo_scene *demo_scene_at(int index)
{
	return index >= 0 && index < demo_scene_count() ? &scenes[index] : NULL;
}

const demo_scene *demo_scene_find(const char *name)
{
	for (int i = 0; i < demo_scene_count(); ++i)
		if (strcmp(scenes[i].name, name) == 0)
			return &scenes[i];
	return strcmp(name, mesh_scene.name) == 0 ? &mesh_scene : NULL;
}

pbd_result demo_scene_load(const demo_scene *scene, const demo_scene_options *options,
			   const pbd_world_settings *settings, pbd_world **out_world, demo_scene_state *state,
			   char *error, size_t error_capacity)
{
	pbd_world_def wd = pbd_world_def_default();
	if (settings)
		wd.settings = *settings;
	return demo_scene_load_def(scene, options, &wd, out_world, state, error, error_capacity);
}

pbd_result demo_scene_load_def(const demo_scene *scene, const demo_scene_options *options,
			       const pbd_world_def *world_def, pbd_world **out_world, demo_scene_state *state,
			       char *error, size_t error_capacity)
{
	memset(state, 0, sizeof *state);
	state->wind_direction[0] = 1.0f;
	pbd_result r = pbd_world_create(world_def, out_world);
	if (r != PBD_OK) {
		snprintf(error, error_capacity, "cannot create world: %s", pbd_result_string(r));
		return r;
	}
	r = scene->create(*out_world, options, state);
	if (r != PBD_OK) {
		snprintf(error, error_capacity, "scene %s: %s", scene->name,
			 state->message[0] ? state->message : pbd_world_last_error(*out_world));
		pbd_world_destroy(*out_world);
		*out_world = NULL;
	}
	return r;
}

pbd_result demo_scene_step(const demo_scene *scene, pbd_world *world, demo_scene_state *state, float dt)
{
	if (scene->update)
		scene->update(world, state, dt);
	pbd_result r = pbd_world_step(world, dt);
	state->time += dt;
	return r;
}

int demo_write_obj(FILE *out, const pbd_world *world, const demo_scene_state *state)
{
	int base = 1;
	for (int g = 0; g < state->particle_group_count; ++g) {
		int n = 0;
		const float *x = pbd_particles_positions(world, state->particles[g], &n);
		float r = pbd_particles_radius(world, state->particles[g]);
		for (int i = 0; x && i < n; ++i)
			fprintf(out, "# particle %.9g %.9g %.9g %.9g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2], r);
	}
	for (int c = 0; c < state->collider_count; ++c) {
		pbd_collider_def d;
		if (pbd_collider_get_def(world, state->colliders[c], &d) == PBD_OK && d.type == PBD_SHAPE_SPHERE)
			fprintf(out, "# sphere %.9g %.9g %.9g %.9g\n", d.position[0], d.position[1], d.position[2], d.radius);
	}
	for (int c = 0; c < state->cloth_count; ++c) {
		int n = 0, t = 0;
		const float *x = pbd_cloth_positions(world, state->cloths[c], &n);
		const uint32_t *f = pbd_cloth_indices(world, state->cloths[c], &t);
		if (!x || !f)
			continue;
		char name[32];
		snprintf(name, sizeof name, "cloth%d", c);
		if (pbd_obj_write(out, name, x, n, f, t, base) != PBD_OK)
			return -1;
		base += n;
	}
	return ferror(out) ? -1 : 0;
}
