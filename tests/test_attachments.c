// SPDX-License-Identifier: MIT
// Attachments: vertices follow a moving frame (exactly, or through a spring of known
// compliance), release and re-attach at run time, stale ids and bad input are rejected.
#include <string.h>

#include "test.h"

static const float kDt = 1.0f / 60.0f;

static int make_world(pbd_world **w)
{
	pbd_world_def wd = pbd_world_def_default();
	CHECK_OK(pbd_world_create(&wd, w));
	return 0;
}

// A 16 x 16 cloth, 1 m square, hanging in the plane z = 0 from y = 2.5 m to 1.5 m: a quarter
// turn about x points the grid's v axis down, so row j = 0 (vertices 0..15) is the top.
static int hanging_cloth(pbd_world *w, pbd_cloth_id *cloth)
{
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = cd.grid.res_y = 16;
	cd.position[1] = 2.0f;
	float s = sqrtf(0.5f);
	cd.rotation[0] = s;
	cd.rotation[3] = s;
	CHECK_OK(pbd_cloth_create(w, &cd, cloth));
	return 0;
}

// Rotation by angle about y as (x, y, z, w).
static void yaw(float angle, float q[4])
{
	q[0] = 0.0f;
	q[1] = sinf(0.5f * angle);
	q[2] = 0.0f;
	q[3] = cosf(0.5f * angle);
}

// Frame pose at time t: swaying 0.5 m to each side at 3 rad/s, bobbing, and turning about
// the vertical at 1 rad/s.
static void frame_at(float t, float position[3], float rotation[4])
{
	position[0] = 0.5f * sinf(3.0f * t);
	position[1] = 2.5f + 0.1f * sinf(5.0f * t);
	position[2] = 0.0f;
	yaw(t, rotation);
}

// Rotates v by the unit quaternion q (x, y, z, w), written out independently of the engine.
static void rotate(const float q[4], const float v[3], float out[3])
{
	float x = q[0], y = q[1], z = q[2], s = q[3];
	float m[3][3] = {
		{1 - 2 * (y * y + z * z), 2 * (x * y - s * z), 2 * (x * z + s * y)},
		{2 * (x * y + s * z), 1 - 2 * (x * x + z * z), 2 * (y * z - s * x)},
		{2 * (x * z - s * y), 2 * (y * z + s * x), 1 - 2 * (x * x + y * y)},
	};
	for (int r = 0; r < 3; ++r)
		out[r] = m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2];
}

static int attachment_follows_frame(void)
{
	pbd_world *w;
	pbd_cloth_id cloth;
	if (make_world(&w) || hanging_cloth(w, &cloth))
		return 1;
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n);
	uint32_t top[16];
	float offset[16][3];
	float pos[3], rot[4], inv[4];
	frame_at(0.0f, pos, rot);
	inv[0] = -rot[0]; inv[1] = -rot[1]; inv[2] = -rot[2]; inv[3] = rot[3];
	for (int i = 0; i < 16; ++i) {
		top[i] = (uint32_t)i;  // row j = 0
		float d[3] = {x[3 * i] - pos[0], x[3 * i + 1] - pos[1], x[3 * i + 2] - pos[2]};
		rotate(inv, d, offset[i]);
	}
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth;
	ad.vertices = top;
	ad.vertex_count = 16;
	memcpy(ad.position, pos, sizeof pos);
	memcpy(ad.rotation, rot, sizeof rot);
	pbd_attachment_id a;
	CHECK_OK(pbd_attachment_create(w, &ad, &a));
	float inv_mass = 1.0f;
	CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, 3, &inv_mass));
	CHECK(inv_mass == 0.0f);
	double worst = 0.0, free_speed = 0.0, swing = 0.0;
	const int bottom = 16 * 15 + 8;
	float bottom_offset[3];
	{
		float d[3] = {x[3 * bottom] - pos[0], x[3 * bottom + 1] - pos[1], x[3 * bottom + 2] - pos[2]};
		rotate(inv, d, bottom_offset);
	}
	for (int f = 1; f <= 120; ++f) {
		frame_at((float)f * kDt, pos, rot);
		CHECK_OK(pbd_attachment_set_pose(w, a, pos, rot));
		CHECK_OK(pbd_world_step(w, kDt));
		x = pbd_cloth_positions(w, cloth, &n);
		for (int i = 0; i < 16; ++i) {
			float r[3];
			rotate(rot, offset[i], r);
			for (int k = 0; k < 3; ++k)
				worst = fmax(worst, fabs(x[3 * i + k] - (r[k] + pos[k])));
		}
		const float *v = pbd_cloth_velocities(w, cloth, NULL);
		free_speed = fmax(free_speed, sqrt(v[3 * bottom] * v[3 * bottom] + v[3 * bottom + 2] * v[3 * bottom + 2]));
		float rigid[3];
		rotate(rot, bottom_offset, rigid);
		double dx = x[3 * bottom] - (rigid[0] + pos[0]), dz = x[3 * bottom + 2] - (rigid[2] + pos[2]);
		swing = fmax(swing, sqrt(dx * dx + dz * dz));
	}
	fprintf(stderr, "  attached vertices within %.3g m of the frame; bottom moves at up to %.2f m/s and swings "
		"up to %.3f m away from where a rigid cloth would be\n", worst, free_speed, swing);
	CHECK(worst < 1e-5);
	// The frame sways at up to 1.5 m/s: the free bottom must move along, but swing (lag and
	// overshoot) rather than follow rigidly.
	CHECK(free_speed > 0.5);
	CHECK(swing > 0.05);
	float target[3];
	CHECK_OK(pbd_attachment_get_target(w, a, 5, target));
	CHECK_NEAR(target[0], x[15], 1e-5);
	CHECK_NEAR(target[1], x[16], 1e-5);
	CHECK_NEAR(target[2], x[17], 1e-5);
	pbd_world_destroy(w);
	return 0;
}

// Three vertices of one triangle, each on a spring of compliance c to a fixed frame: at rest
// each spring carries its own vertex's weight, so each vertex sags by c m g exactly
// (equal sags leave the triangle's edges at rest length).
static int compliant_attachment_sags_by_compliance(void)
{
	pbd_world *w;
	if (make_world(&w))
		return 1;
	float xyz[9] = {0, 1, 0, 1, 1, 0, 0, 1, 1};
	uint32_t tri[3] = {0, 1, 2};
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.source = PBD_CLOTH_MESH;
	cd.mesh.positions = xyz;
	cd.mesh.vertex_count = 3;
	cd.mesh.indices = tri;
	cd.mesh.triangle_count = 1;
	cd.areal_density = 0.6f;  // 0.5 m^2: 0.1 kg per vertex
	cd.material.damping = 5.0f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &cd, &cloth));
	const float c = 0.01f;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth;
	ad.vertices = tri;
	ad.vertex_count = 3;
	ad.compliance = c;
	pbd_attachment_id a;
	CHECK_OK(pbd_attachment_create(w, &ad, &a));
	float inv_mass = 0.0f;
	CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, 0, &inv_mass));
	CHECK_NEAR(inv_mass, 10.0f, 1e-4);
	for (int f = 0; f < 600; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	double expected = c * 0.1 * 9.81;
	fprintf(stderr, "  sag %.6f m, %.6f m, %.6f m; c m g = %.6f m\n", 1.0 - x[1], 1.0 - x[4], 1.0 - x[7], expected);
	for (int i = 0; i < 3; ++i)
		CHECK_NEAR(1.0 - x[3 * i + 1], expected, 0.01 * expected);
	// Stiffer spring, smaller sag.
	CHECK_OK(pbd_attachment_set_compliance(w, a, c / 10.0f));
	for (int f = 0; f < 600; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	x = pbd_cloth_positions(w, cloth, NULL);
	CHECK_NEAR(1.0 - x[1], expected / 10.0, 0.01 * expected / 10.0);
	pbd_world_destroy(w);
	return 0;
}

static int release_and_reattach(void)
{
	pbd_world *w;
	pbd_cloth_id cloth;
	if (make_world(&w) || hanging_cloth(w, &cloth))
		return 1;
	uint32_t corners[2] = {0, 15};
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth;
	ad.vertices = corners;
	ad.vertex_count = 2;
	pbd_attachment_id a;
	CHECK_OK(pbd_attachment_create(w, &ad, &a));
	for (int f = 0; f < 60; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	float held_y = x[1];
	CHECK_NEAR(held_y, 2.5f, 1e-5);  // the top row, where it was attached
	// Holding the same vertex twice exactly is refused, and so are pins and releases of it.
	pbd_attachment_id b;
	CHECK(pbd_attachment_create(w, &ad, &b) == PBD_ERR_VERTEX_HELD);
	CHECK(b.index1 == 0);
	float elsewhere[3] = {3.0f, 0.0f, 0.0f};
	CHECK(pbd_cloth_pin_vertex(w, cloth, (int)corners[0], elsewhere) == PBD_ERR_VERTEX_HELD);
	CHECK(pbd_cloth_release_vertex(w, cloth, (int)corners[1]) == PBD_ERR_VERTEX_HELD);
	float held_inverse = 1.0f;
	CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, (int)corners[1], &held_inverse));
	CHECK(held_inverse == 0.0f);  // still held
	// A compliant attachment does not own its vertices: a pin wins while it lasts.
	CHECK_OK(pbd_attachment_set_compliance(w, a, 1e-3f));
	CHECK_OK(pbd_cloth_pin_vertex(w, cloth, (int)corners[0], x));
	CHECK_OK(pbd_cloth_release_vertex(w, cloth, (int)corners[0]));
	CHECK_OK(pbd_attachment_set_compliance(w, a, 0.0f));
	CHECK_OK(pbd_attachment_destroy(w, a));
	float inv_mass = 0.0f;
	CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, 0, &inv_mass));
	CHECK(inv_mass > 0.0f);
	CHECK(pbd_attachment_set_pose(w, a, (float[3]){0, 0, 0}, (float[4]){0, 0, 0, 1}) == PBD_ERR_STALE_ID);
	CHECK(pbd_attachment_destroy(w, a) == PBD_ERR_STALE_ID);
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	x = pbd_cloth_positions(w, cloth, NULL);
	float fallen_y = x[1];
	fprintf(stderr, "  released corner fell from %.3f to %.3f m in 0.5 s\n", held_y, fallen_y);
	CHECK(fallen_y < held_y - 0.5f);  // free fall would be 1.23 m
	// Re-attach where it is now and lift it back up by 1 m over a second.
	ad.position[1] = 0.0f;
	CHECK_OK(pbd_attachment_create(w, &ad, &b));
	CHECK(b.index1 == a.index1 && b.generation != a.generation);  // the slot is reused, the id is new
	for (int f = 1; f <= 60; ++f) {
		CHECK_OK(pbd_attachment_set_pose(w, b, (float[3]){0, (float)f / 60.0f, 0}, (float[4]){0, 0, 0, 1}));
		CHECK_OK(pbd_world_step(w, kDt));
	}
	x = pbd_cloth_positions(w, cloth, NULL);
	CHECK_NEAR(x[1], fallen_y + 1.0f, 1e-5);
	// Destroying the cloth destroys its attachments.
	CHECK_OK(pbd_cloth_destroy(w, cloth));
	CHECK(pbd_attachment_check(w, b) == PBD_ERR_STALE_ID);
	CHECK(pbd_attachment_check(w, (pbd_attachment_id){7, 1}) == PBD_ERR_UNKNOWN_ID);
	CHECK(pbd_world_get_stats(w).bytes_live > 0);
	pbd_world_destroy(w);
	return 0;
}

static int bad_attachments_rejected(void)
{
	pbd_world *w;
	pbd_cloth_id cloth;
	if (make_world(&w) || hanging_cloth(w, &cloth))
		return 1;
	size_t bytes = pbd_world_get_stats(w).bytes_live;
	uint32_t verts[2] = {0, 1};
	pbd_attachment_id a;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth;
	ad.vertices = verts;
	ad.vertex_count = 2;
	pbd_attachment_def bad = ad;
	bad.internal_cookie = 0;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_BAD_DEF);
	CHECK(pbd_attachment_create(w, NULL, &a) == PBD_ERR_NULL_ARGUMENT);
	bad = ad;
	bad.vertices = NULL;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_NULL_ARGUMENT);
	bad = ad;
	bad.vertex_count = 0;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_BAD_COUNT);
	uint32_t out_of_range[2] = {0, 256};
	bad = ad;
	bad.vertices = out_of_range;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_INDEX_OUT_OF_RANGE);
	CHECK(strstr(pbd_world_last_error(w), "256") != NULL);
	uint32_t twice[2] = {3, 3};
	bad = ad;
	bad.vertices = twice;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_REPEATED_INDEX);
	bad = ad;
	bad.position[1] = NAN;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_NOT_FINITE);
	bad = ad;
	bad.rotation[3] = 0.0f;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_ZERO_NORMAL);
	bad = ad;
	bad.compliance = -1.0f;
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_NEGATIVE);
	bad = ad;
	bad.cloth = (pbd_cloth_id){9, 1};
	CHECK(pbd_attachment_create(w, &bad, &a) == PBD_ERR_UNKNOWN_ID);
	CHECK(pbd_world_get_stats(w).bytes_live == bytes);  // nothing half-made stays behind
	CHECK_OK(pbd_attachment_create(w, &ad, &a));
	CHECK(pbd_attachment_set_pose(w, a, (float[3]){INFINITY, 0, 0}, (float[4]){0, 0, 0, 1}) == PBD_ERR_NOT_FINITE);
	CHECK(pbd_attachment_set_compliance(w, a, NAN) == PBD_ERR_NOT_FINITE);
	// Beyond PBD_MAX_MAGNITUDE (found by fuzz_api: 4.2e34 made compliance / h^2 infinite and
	// the held cloth NaN in one step).
	CHECK(pbd_attachment_set_compliance(w, a, 4.15e34f) == PBD_ERR_NOT_FINITE);
	bad = ad;
	bad.compliance = 2.0f * PBD_MAX_MAGNITUDE;
	pbd_attachment_id unmade;
	CHECK(pbd_attachment_create(w, &bad, &unmade) == PBD_ERR_NOT_FINITE);
	float out[3];
	CHECK(pbd_attachment_get_target(w, a, 2, out) == PBD_ERR_INDEX_OUT_OF_RANGE);
	// After all of that the world still steps and the held vertices stay put.
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	CHECK(isfinite(x[0]) && fabsf(x[1] - 2.5f) < 1e-6f);
	// The largest compliance accepted: a spring that holds nothing, stepping finitely.
	CHECK_OK(pbd_attachment_set_compliance(w, a, PBD_MAX_MAGNITUDE));
	for (int f = 0; f < 10; ++f)
		CHECK_OK(pbd_world_step(w, 1.0f / 240.0f));
	int n = 0;
	x = pbd_cloth_positions(w, cloth, &n);
	for (int i = 0; i < 3 * n; ++i)
		CHECK(isfinite(x[i]));
	pbd_world_destroy(w);
	return 0;
}

// The top row of the hanging cloth held by an exact attachment at the origin frame.
static int held_cloth(pbd_world *w, pbd_cloth_id *cloth, pbd_attachment_id *frame)
{
	if (hanging_cloth(w, cloth))
		return 1;
	uint32_t top[16];
	for (int i = 0; i < 16; ++i)
		top[i] = (uint32_t)i;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = *cloth;
	ad.vertices = top;
	ad.vertex_count = 16;
	CHECK_OK(pbd_attachment_create(w, &ad, frame));
	return 0;
}

// The largest change of a vertex's distance to any of a few others, in m: 0 for a rigid
// motion (up to the rounding of coordinates: 7.6e-6 m at 100 m).
static double worst_distance_change(const float *a, const float *b, int n)
{
	double worst = 0.0;
	for (int i = 0; i < n; ++i)
		for (int j = 0; j < n; j += 37) {
			double da = 0.0, db = 0.0;
			for (int k = 0; k < 3; ++k) {
				da += pow(a[3 * i + k] - a[3 * j + k], 2);
				db += pow(b[3 * i + k] - b[3 * j + k], 2);
			}
			worst = fmax(worst, fabs(sqrt(db) - sqrt(da)));
		}
	return worst;
}

// A teleported frame takes its whole cloth along rigidly, turning velocities with it, and
// nothing is swept on the way: the cloth's worst strain stays as it was. The same move by
// pbd_attachment_set_pose drags the held row 100 m in one step.
static int attachment_teleport_moves_cloth_rigidly(void)
{
	static float before[3 * 256], after[3 * 256], v_before[3 * 256];
	pbd_world *w;
	pbd_cloth_id cloth;
	pbd_attachment_id frame;
	if (make_world(&w) || held_cloth(w, &cloth, &frame))
		return 1;
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int n = 0;
	const float *x0 = pbd_cloth_positions(w, cloth, &n);
	memcpy(before, x0, sizeof(float) * 3 * (size_t)n);
	memcpy(v_before, pbd_cloth_velocities(w, cloth, NULL), sizeof(float) * 3 * (size_t)n);
	float strain_before = pbd_world_get_stats(w).max_stretch_error;
	float to[3] = {100.0f, 0.0f, 50.0f}, turn[4];
	yaw(1.5707963f, turn);  // a quarter turn about y: (x, y, z) -> (z, y, -x)
	CHECK_OK(pbd_attachment_teleport(w, frame, to, turn));
	memcpy(after, pbd_cloth_positions(w, cloth, NULL), sizeof(float) * 3 * (size_t)n);
	const float *v_after = pbd_cloth_velocities(w, cloth, NULL);
	double worst_place = 0.0, worst_velocity = 0.0;
	for (int i = 0; i < n; ++i) {
		const float *x = before + 3 * i, *v = v_before + 3 * i;
		double expect[3] = {x[2] + to[0], x[1] + to[1], -x[0] + to[2]}, vexpect[3] = {v[2], v[1], -v[0]};
		for (int k = 0; k < 3; ++k) {
			worst_place = fmax(worst_place, fabs(after[3 * i + k] - expect[k]));
			worst_velocity = fmax(worst_velocity, fabs(v_after[3 * i + k] - vexpect[k]));
		}
	}
	double rigid = worst_distance_change(before, after, n);
	CHECK_OK(pbd_world_step(w, kDt));
	float strain_after = pbd_world_get_stats(w).max_stretch_error;
	fprintf(stderr, "teleport: vertices within %.2g m of the rigid move, velocities within %.2g m/s, distances "
		"kept to %.2g; worst strain %.4f before, %.4f after a step\n", worst_place, worst_velocity, rigid,
		(double)strain_before, (double)strain_after);
	CHECK(worst_place < 1e-4 && worst_velocity < 1e-5 && rigid < 3e-5);
	CHECK(strain_after < strain_before + 0.01f);
	pbd_world_destroy(w);
	// The twin moved by pbd_attachment_set_pose is dragged: hugely stretched.
	if (make_world(&w) || held_cloth(w, &cloth, &frame))
		return 1;
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	CHECK_OK(pbd_attachment_set_pose(w, frame, to, turn));
	CHECK_OK(pbd_world_step(w, kDt));
	CHECK(pbd_world_get_stats(w).max_stretch_error > 10.0f);
	pbd_world_destroy(w);
	return 0;
}

// A collider teleported from one side of a hanging cloth to the other does not pass
// through it on the way (pbd_collider_set_pose would sweep the cloth aside), and it is at
// rest where it arrives.
static float cloth_moved_by_collider(int teleport)
{
	static float before[3 * 256];
	pbd_world *w;
	pbd_cloth_id cloth;
	pbd_attachment_id frame;
	if (make_world(&w) || held_cloth(w, &cloth, &frame))
		return -1.0f;
	pbd_collider_def ball = pbd_collider_def_default();
	ball.type = PBD_SHAPE_SPHERE;
	ball.radius = 0.2f;
	ball.position[1] = 2.0f;
	ball.position[2] = -1.0f;
	pbd_collider_id id;
	if (pbd_collider_create(w, &ball, &id) != PBD_OK)
		return -1.0f;
	for (int f = 0; f < 60; ++f)
		pbd_world_step(w, kDt);
	int n = 0;
	const float *x0 = pbd_cloth_positions(w, cloth, &n);
	memcpy(before, x0, sizeof(float) * 3 * (size_t)n);
	float there[3] = {0.0f, 2.0f, 1.0f}, still[4] = {0, 0, 0, 1};
	pbd_result r = teleport ? pbd_collider_teleport(w, id, there, still) : pbd_collider_set_pose(w, id, there, still);
	if (r != PBD_OK)
		return -1.0f;
	pbd_world_step(w, kDt);
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	float worst = 0.0f;
	for (int i = 0; i < 3 * n; ++i)
		worst = fmaxf(worst, fabsf(x[i] - before[i]));
	pbd_collider_def now;
	pbd_collider_get_def(w, id, &now);
	if (now.position[2] != 1.0f)
		worst = -1.0f;
	pbd_world_destroy(w);
	return worst;
}

static int collider_teleport_sweeps_nothing(void)
{
	float teleported = cloth_moved_by_collider(1), swept = cloth_moved_by_collider(0);
	fprintf(stderr, "collider moved 2 m across the cloth: cloth moved %.3g m (teleport), %.3g m (set_pose)\n",
		(double)teleported, (double)swept);
	CHECK(teleported >= 0.0f && teleported < 1e-3f);
	CHECK(swept > 0.05f);
	return 0;
}

// The cloth's momentum per unit mass: its mass-weighted mean velocity.
static int mean_velocity(pbd_world *w, pbd_cloth_id cloth, const float *v, int n, double mean[3])
{
	double mass = 0.0;
	mean[0] = mean[1] = mean[2] = 0.0;
	for (int i = 0; i < n; ++i) {
		float inverse;
		CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, i, &inverse));
		CHECK(inverse > 0.0f);
		mass += 1.0 / inverse;
		for (int k = 0; k < 3; ++k)
			mean[k] += v[3 * i + k] / inverse;
	}
	for (int k = 0; k < 3; ++k)
		mean[k] /= mass;
	return 0;
}

// Per-vertex velocities: read back as set; free vertices only; a cloth spinning in a vacuum
// without gravity keeps the momentum that was set; bad input is refused.
static int cloth_set_velocities(void)
{
	static float v[3 * 256];
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.gravity[1] = 0.0f;
	wd.settings.air_density = 0.0f;
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_id cloth;
	if (hanging_cloth(w, &cloth))
		return 1;
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n);
	for (int i = 0; i < n; ++i) {
		// A spin of 2 rad/s about the cloth's vertical centre line and a drift of 0.3 m/s.
		v[3 * i] = -2.0f * x[3 * i + 2] + 0.3f;
		v[3 * i + 1] = 0.0f;
		v[3 * i + 2] = 2.0f * x[3 * i];
	}
	double mean[3], after[3];
	if (mean_velocity(w, cloth, v, n, mean))
		return 1;
	CHECK(pbd_cloth_set_velocities(w, cloth, v, n - 1) == PBD_ERR_BAD_COUNT);
	CHECK(pbd_cloth_set_velocities(w, cloth, NULL, n) == PBD_ERR_NULL_ARGUMENT);
	float saved = v[5];
	v[5] = NAN;
	CHECK(pbd_cloth_set_velocities(w, cloth, v, n) == PBD_ERR_NOT_FINITE);
	v[5] = 2e5f;
	CHECK(pbd_cloth_set_velocities(w, cloth, v, n) == PBD_ERR_OUT_OF_RANGE);
	v[5] = saved;
	const float *now = pbd_cloth_velocities(w, cloth, NULL);
	for (int i = 0; i < 3 * n; ++i)
		CHECK(now[i] == 0.0f);  // refused calls changed nothing
	CHECK_OK(pbd_cloth_set_velocities(w, cloth, v, n));
	now = pbd_cloth_velocities(w, cloth, NULL);
	CHECK(memcmp(now, v, sizeof(float) * 3 * (size_t)n) == 0);
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	if (mean_velocity(w, cloth, pbd_cloth_velocities(w, cloth, NULL), n, after))
		return 1;
	fprintf(stderr, "set velocities: mean (%.5f %.5f %.5f) set, (%.5f %.5f %.5f) after 0.5 s\n", mean[0], mean[1],
		mean[2], after[0], after[1], after[2]);
	for (int k = 0; k < 3; ++k)
		CHECK_NEAR(after[k], mean[k], 2e-3);  // as free_cloth_keeps_momentum (test_world)
	// A pinned vertex keeps its own velocity.
	float at[3] = {0.0f, 2.5f, 0.0f};
	CHECK_OK(pbd_cloth_pin_vertex(w, cloth, 0, at));
	CHECK_OK(pbd_world_step(w, kDt));
	float pinned_v[3];
	memcpy(pinned_v, pbd_cloth_velocities(w, cloth, NULL), sizeof pinned_v);
	CHECK_OK(pbd_cloth_set_velocities(w, cloth, v, n));
	CHECK(memcmp(pbd_cloth_velocities(w, cloth, NULL), pinned_v, sizeof pinned_v) == 0);
	pbd_world_destroy(w);
	return 0;
}

// How a cloth's four corners are held.
typedef enum corner_hold { HOLD_AT_CREATION, HOLD_BY_PIN, HOLD_BY_ATTACHMENT, HOLD_BY_SPRING } corner_hold;
static const char *const kHoldNames[] = {"pins at creation", "pbd_cloth_pin_vertex", "exact attachment",
					 "compliant attachment"};

// A horizontal 64 x 64 cloth, 1 m square, held at its four corners in one of the ways above;
// returns its worst edge strain after 5 s (it sags into a hammock). Tethers from the corners
// take out the stretch that one pass per substep leaves; without them (held after creation,
// before tethers followed the holds) it reached 189%.
static int four_corners(corner_hold how, float *strain, pbd_world **out, pbd_cloth_id *out_cloth,
			pbd_attachment_id *out_frame)
{
	pbd_world *w;
	if (make_world(&w))
		return 1;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 64;
	d.position[1] = 1.5f;
	d.material.self_collision = 0;  // a hammock does not touch itself
	if (how == HOLD_AT_CREATION)
		d.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10 | PBD_PIN_CORNER_01 | PBD_PIN_CORNER_11;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &d, &cloth));
	uint32_t corners[4] = {0, 63, 63 * 64, 64 * 64 - 1};
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	pbd_attachment_id frame = {0};
	if (how == HOLD_BY_PIN) {
		for (int k = 0; k < 4; ++k) {
			float at[3] = {x[3 * corners[k]], x[3 * corners[k] + 1], x[3 * corners[k] + 2]};
			CHECK_OK(pbd_cloth_pin_vertex(w, cloth, (int)corners[k], at));
		}
	} else if (how == HOLD_BY_ATTACHMENT || how == HOLD_BY_SPRING) {
		pbd_attachment_def ad = pbd_attachment_def_default();
		ad.cloth = cloth;
		ad.vertices = corners;
		ad.vertex_count = 4;
		ad.compliance = how == HOLD_BY_SPRING ? 1e-5f : 0.0f;
		CHECK_OK(pbd_attachment_create(w, &ad, &frame));
	}
	for (int f = 0; f < 300; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	*strain = pbd_world_get_stats(w).max_stretch_error;
	if (out) {
		*out = w;
		*out_cloth = cloth;
		*out_frame = frame;
	} else {
		pbd_world_destroy(w);
	}
	return 0;
}

static int held_later_held_as_well(void)
{
	for (int how = HOLD_AT_CREATION; how <= HOLD_BY_SPRING; ++how) {
		float strain;
		if (four_corners((corner_hold)how, &strain, NULL, NULL, NULL))
			return 1;
		fprintf(stderr, "64 x 64 held at its corners by %s: worst strain %.1f%%\n", kHoldNames[how],
			100.0 * strain);
		CHECK(strain < 0.10f);
	}
	return 0;
}

// Releasing a hold removes its support: two corners let go, the cloth hangs from the other two
// and no tether pulls toward the released ones (their side drops by most of the cloth's width).
static int release_removes_support(void)
{
	pbd_world *w;
	pbd_cloth_id cloth;
	pbd_attachment_id frame;
	float strain;
	if (four_corners(HOLD_BY_PIN, &strain, &w, &cloth, &frame))
		return 1;
	CHECK_OK(pbd_cloth_release_vertex(w, cloth, 63 * 64));
	CHECK_OK(pbd_cloth_release_vertex(w, cloth, 64 * 64 - 1));
	for (int f = 0; f < 300; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	float dropped = 1.5f - x[3 * (63 * 64) + 1];
	fprintf(stderr, "released corners dropped %.3f m; worst strain %.1f%%\n", (double)dropped,
		100.0 * pbd_world_get_stats(w).max_stretch_error);
	CHECK(dropped > 0.8f);
	CHECK(pbd_world_get_stats(w).max_stretch_error < 0.10f);
	pbd_world_destroy(w);
	return 0;
}

// A compliant attachment's force limit: a free 2 x 2 cloth in a vacuum without gravity,
// every vertex on a stiff spring to a frame 10 m away, limited to F per spring. The limit
// binds in every substep, so the cloth (its stretch constraints keep it whole) gains the
// impulse 4 F dt: every vertex moves at 4 F dt / M after one step, and no faster.
static int attachment_force_limit(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.gravity[1] = 0.0f;
	wd.settings.air_density = 0.0f;
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 2;
	d.grid.width = d.grid.height = 0.2f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &d, &cloth));
	uint32_t all[4] = {0, 1, 2, 3};
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth;
	ad.vertices = all;
	ad.vertex_count = 4;
	ad.compliance = 1e-6f;
	ad.max_force = 0.05f;
	pbd_attachment_id frame;
	CHECK_OK(pbd_attachment_create(w, &ad, &frame));
	float far[3] = {10.0f, 0.0f, 0.0f}, still[4] = {0, 0, 0, 1};
	CHECK_OK(pbd_attachment_set_pose(w, frame, far, still));
	double mass = 0.0;
	for (int i = 0; i < 4; ++i) {
		float inverse;
		CHECK_OK(pbd_cloth_get_inverse_mass(w, cloth, i, &inverse));
		mass += 1.0 / inverse;
	}
	CHECK_OK(pbd_world_step(w, kDt));
	const float *v = pbd_cloth_velocities(w, cloth, NULL);
	double expected = 4.0 * ad.max_force * kDt / mass;
	fprintf(stderr, "force limit %.2f N: vertex speed %.5f m/s after one step, 4 F dt / M = %.5f\n",
		(double)ad.max_force, (double)v[0], expected);
	for (int i = 0; i < 4; ++i)
		CHECK_NEAR(v[3 * i], expected, 1e-3 * expected);
	ad.max_force = -1.0f;
	CHECK(pbd_attachment_create(w, &ad, &frame) == PBD_ERR_NEGATIVE);
	pbd_world_destroy(w);
	return 0;
}

// A grab holds a free-hanging cloth near its target when its force limit is twice the cloth's
// weight (the default) and lets it fall when the limit is a tenth of the weight.
static int grab_holds_within_its_force_limit(void)
{
	const float fractions[2] = {0.0f, 0.1f};  // 0: the default limit (twice the weight)
	for (int k = 0; k < 2; ++k) {
		pbd_world *w;
		pbd_cloth_id cloth;
		if (make_world(&w) || hanging_cloth(w, &cloth))
			return 1;
		const float *x = pbd_cloth_positions(w, cloth, NULL);
		float target[3] = {x[3 * 8], x[3 * 8 + 1], x[3 * 8 + 2]};
		pbd_grab_def gd = pbd_grab_def_default();
		gd.cloth = cloth;
		gd.vertex = 8;  // middle of the top row
		gd.max_force = fractions[k] * 0.2f * 9.81f;  // the cloth weighs 0.2 kg
		pbd_attachment_id grab;
		CHECK_OK(pbd_grab_begin(w, &gd, &grab));
		for (int f = 0; f < 120; ++f) {
			CHECK_OK(pbd_grab_move(w, grab, target));
			CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		}
		x = pbd_cloth_positions(w, cloth, NULL);
		float drop = target[1] - x[3 * 8 + 1];
		fprintf(stderr, "  limit %s: the grabbed vertex %.3f m below its target\n", k ? "0.1 weight" : "default", drop);
		CHECK(k == 0 ? fabsf(drop) < 0.02f : drop > 1.0f);
		CHECK_OK(pbd_grab_end(w, grab));
		CHECK(pbd_grab_move(w, grab, target) == PBD_ERR_STALE_ID);
		pbd_world_destroy(w);
	}
	return 0;
}

// Bad grabs are refused with the right codes and change nothing.
static int bad_grabs_refused(void)
{
	pbd_world *w;
	pbd_cloth_id cloth;
	if (make_world(&w) || hanging_cloth(w, &cloth))
		return 1;
	pbd_grab_def gd = pbd_grab_def_default(), bad;
	gd.cloth = cloth;
	gd.vertex = 8;
	pbd_attachment_id grab;
	size_t bytes = pbd_world_get_stats(w).bytes_live;
	bad = gd, bad.internal_cookie = 0;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_BAD_DEF);
	CHECK(pbd_grab_begin(w, NULL, &grab) == PBD_ERR_NULL_ARGUMENT);
	bad = gd, bad.vertex = 256;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_INDEX_OUT_OF_RANGE);
	bad = gd, bad.vertex = -1;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_INDEX_OUT_OF_RANGE);
	bad = gd, bad.radius = -1.0f;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_NEGATIVE);
	bad = gd, bad.compliance = 0.0f;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_NON_POSITIVE);
	bad = gd, bad.max_force = NAN;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_NOT_FINITE);
	bad = gd, bad.cloth = (pbd_cloth_id){99, 1};
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_UNKNOWN_ID);
	CHECK(pbd_grab_move(w, grab, NULL) == PBD_ERR_NULL_ARGUMENT);
	CHECK(pbd_world_get_stats(w).bytes_live == bytes);  // nothing kept from the refused grabs
	// A vertex held exactly, with a patch too small to reach a neighbour: nothing to grab.
	uint32_t held = 8;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = cloth, ad.vertices = &held, ad.vertex_count = 1;
	pbd_attachment_id exact;
	CHECK_OK(pbd_attachment_create(w, &ad, &exact));
	bytes = pbd_world_get_stats(w).bytes_live;
	bad = gd, bad.radius = 1e-4f;
	CHECK(pbd_grab_begin(w, &bad, &grab) == PBD_ERR_VERTEX_HELD);
	CHECK(pbd_world_get_stats(w).bytes_live == bytes);
	CHECK_OK(pbd_grab_begin(w, &gd, &grab));  // the neighbours are grabbed, the held vertex is not
	CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	pbd_world_destroy(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(attachment_follows_frame),
		TEST(compliant_attachment_sags_by_compliance),
		TEST(release_and_reattach),
		TEST(bad_attachments_rejected),
		TEST(attachment_teleport_moves_cloth_rigidly),
		TEST(collider_teleport_sweeps_nothing),
		TEST(cloth_set_velocities),
		TEST(held_later_held_as_well),
		TEST(release_removes_support),
		TEST(attachment_force_limit),
		TEST(grab_holds_within_its_force_limit),
		TEST(bad_grabs_refused),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
