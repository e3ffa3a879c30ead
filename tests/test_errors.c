// SPDX-License-Identifier: MIT
// Bad input: one test per result code. Each rejected call must leave the world as it was:
// the world is stepped beside an untouched twin and must match it bit for bit.
#include <stdlib.h>

#include "scene_check.h"
#include "scenes.h"
#include "test.h"

typedef struct twins {
	pbd_world *world;  // gets the bad calls
	pbd_world *twin;   // does not
	pbd_cloth_id cloth, twin_cloth;
	pbd_collider_id floor;
} twins;

static int make_one(pbd_world **w, pbd_cloth_id *cloth, pbd_collider_id *floor)
{
	pbd_world_def d = pbd_world_def_default();
	CHECK_OK(pbd_world_create(&d, w));
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = cd.grid.res_y = 10;
	cd.position[1] = 0.5f;
	CHECK_OK(pbd_cloth_create(*w, &cd, cloth));
	pbd_collider_def fd = pbd_collider_def_default();
	CHECK_OK(pbd_collider_create(*w, &fd, floor));
	return 0;
}

static int twins_make(twins *t)
{
	pbd_collider_id unused;
	if (make_one(&t->world, &t->cloth, &t->floor) || make_one(&t->twin, &t->twin_cloth, &unused))
		return 1;
	for (int i = 0; i < 5; ++i) {
		CHECK_OK(pbd_world_step(t->world, 1.0f / 60.0f));
		CHECK_OK(pbd_world_step(t->twin, 1.0f / 60.0f));
	}
	return 0;
}

// Steps both and compares every position; frees them. The byte counts must match too,
// except after calls that really created something (tables keep their grown capacity).
static int twins_agree_bytes(twins *t, int compare_bytes)
{
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(pbd_world_step(t->world, 1.0f / 60.0f));
		CHECK_OK(pbd_world_step(t->twin, 1.0f / 60.0f));
	}
	int n = 0, m = 0;
	const float *a = pbd_cloth_positions(t->world, t->cloth, &n);
	const float *b = pbd_cloth_positions(t->twin, t->twin_cloth, &m);
	CHECK(a && b && n == m && n > 0);
	CHECK(memcmp(a, b, sizeof(float) * 3 * (size_t)n) == 0);
	pbd_world_stats sa = pbd_world_get_stats(t->world), sb = pbd_world_get_stats(t->twin);
	CHECK(sa.particles == sb.particles && sa.constraints == sb.constraints);
	CHECK(!compare_bytes || sa.bytes_live == sb.bytes_live);
	pbd_world_destroy(t->world);
	pbd_world_destroy(t->twin);
	return 0;
}

static int twins_agree(twins *t) { return twins_agree_bytes(t, 1); }

#define EXPECT(code, expr)                                                                           \
	do {                                                                                         \
		pbd_result got_ = (expr);                                                            \
		if (got_ != (code)) {                                                                \
			fprintf(stderr, "%s:%d: %s returned %d (%s), expected %s\n", __FILE__, __LINE__, #expr, \
				(int)got_, pbd_result_string(got_), #code);                          \
			return 1;                                                                    \
		}                                                                                    \
		CHECK(strlen(pbd_world_last_error(t.world)) > 0);                                   \
		fprintf(stderr, "  %s -> %s\n", #code, pbd_world_last_error(t.world));              \
	} while (0)

// A one-triangle mesh def over caller arrays.
static pbd_cloth_def mesh_def(const float *pos, int nv, const uint32_t *idx, int nt)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.source = PBD_CLOTH_MESH;
	d.mesh.positions = pos;
	d.mesh.vertex_count = nv;
	d.mesh.indices = idx;
	d.mesh.triangle_count = nt;
	return d;
}

static const float kQuad[12] = {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1};

static int null_argument(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_id id;
	EXPECT(PBD_ERR_NULL_ARGUMENT, pbd_cloth_create(t.world, NULL, &id));
	pbd_cloth_def d = mesh_def(NULL, 4, NULL, 2);
	EXPECT(PBD_ERR_NULL_ARGUMENT, pbd_cloth_create(t.world, &d, &id));
	EXPECT(PBD_ERR_NULL_ARGUMENT, pbd_cloth_set_material(t.world, t.cloth, NULL));
	EXPECT(PBD_ERR_NULL_ARGUMENT, pbd_cloth_pin_vertex(t.world, t.cloth, 0, NULL));
	CHECK(pbd_world_step(NULL, 0.1f) == PBD_ERR_NULL_ARGUMENT);
	pbd_world *none = NULL;
	CHECK(pbd_world_create(NULL, &none) == PBD_ERR_NULL_ARGUMENT && none == NULL);
	return twins_agree(&t);
}

static int bad_def(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_def d;
	memset(&d, 0, sizeof d);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_BAD_DEF, pbd_cloth_create(t.world, &d, &id));
	CHECK(id.index1 == 0);
	pbd_collider_def c;
	memset(&c, 0, sizeof c);
	pbd_collider_id cid;
	EXPECT(PBD_ERR_BAD_DEF, pbd_collider_create(t.world, &c, &cid));
	pbd_world_def wd;
	memset(&wd, 0, sizeof wd);
	pbd_world *w = NULL;
	CHECK(pbd_world_create(&wd, &w) == PBD_ERR_BAD_DEF && w == NULL);
	return twins_agree(&t);
}

static int index_out_of_range(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	uint32_t idx[6] = {0, 1, 2, 0, 2, 4};
	pbd_cloth_def d = mesh_def(kQuad, 4, idx, 2);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_INDEX_OUT_OF_RANGE, pbd_cloth_create(t.world, &d, &id));
	uint32_t good[6] = {0, 1, 2, 0, 2, 3}, pins[1] = {7};
	d = mesh_def(kQuad, 4, good, 2);
	d.pinned = pins;
	d.pinned_count = 1;
	EXPECT(PBD_ERR_INDEX_OUT_OF_RANGE, pbd_cloth_create(t.world, &d, &id));
	float at[3] = {0, 1, 0};
	EXPECT(PBD_ERR_INDEX_OUT_OF_RANGE, pbd_cloth_pin_vertex(t.world, t.cloth, 100, at));
	EXPECT(PBD_ERR_INDEX_OUT_OF_RANGE, pbd_cloth_pin_vertex(t.world, t.cloth, -1, at));
	EXPECT(PBD_ERR_INDEX_OUT_OF_RANGE, pbd_cloth_release_vertex(t.world, t.cloth, 100));
	return twins_agree(&t);
}

static int repeated_index(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	uint32_t idx[6] = {0, 1, 2, 0, 3, 3};
	pbd_cloth_def d = mesh_def(kQuad, 4, idx, 2);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_REPEATED_INDEX, pbd_cloth_create(t.world, &d, &id));
	return twins_agree(&t);
}

// Two triangles on the same three vertices (in any order) are refused, the later one named;
// the world steps on as its twin does.
static int duplicate_triangle(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	uint32_t idx[9] = {0, 1, 2, 0, 2, 3, 2, 0, 1};
	pbd_cloth_def d = mesh_def(kQuad, 4, idx, 3);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_DUPLICATE_TRIANGLE, pbd_cloth_create(t.world, &d, &id));
	CHECK(strstr(pbd_world_last_error(t.world), "triangle 2 (2 0 1) has the vertices of triangle 0") != NULL);
	CHECK(strcmp(pbd_result_string(PBD_ERR_DUPLICATE_TRIANGLE), "unknown result code") != 0);
	return twins_agree(&t);
}

// A vertex held by an exact attachment is not pinned, released or held twice; the world
// steps on as its twin does.
static int vertex_held(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	uint32_t v = 5;
	pbd_attachment_def ad = pbd_attachment_def_default();
	ad.cloth = t.cloth;
	ad.vertices = &v;
	ad.vertex_count = 1;
	pbd_attachment_id a, b;
	CHECK_OK(pbd_attachment_create(t.world, &ad, &a));
	ad.cloth = t.twin_cloth;
	CHECK_OK(pbd_attachment_create(t.twin, &ad, &b));
	ad.cloth = t.cloth;
	float there[3] = {1, 1, 1};
	EXPECT(PBD_ERR_VERTEX_HELD, pbd_attachment_create(t.world, &ad, &b));
	EXPECT(PBD_ERR_VERTEX_HELD, pbd_cloth_pin_vertex(t.world, t.cloth, 5, there));
	EXPECT(PBD_ERR_VERTEX_HELD, pbd_cloth_release_vertex(t.world, t.cloth, 5));
	return twins_agree(&t);
}

static int degenerate_triangle(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	// Vertex 3 on the line through 0 and 1: triangle (0, 1, 3) has no area.
	float pos[12] = {0, 1, 0, 1, 1, 0, 1, 1, 1, 0.5f, 1, 0};
	uint32_t idx[6] = {0, 1, 2, 0, 1, 3};
	pbd_cloth_def d = mesh_def(pos, 4, idx, 2);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_DEGENERATE_TRIANGLE, pbd_cloth_create(t.world, &d, &id));
	// Two coincident vertices.
	float same[9] = {0, 0, 0, 0, 0, 0, 1, 0, 0};
	uint32_t tri[3] = {0, 1, 2};
	d = mesh_def(same, 3, tri, 1);
	EXPECT(PBD_ERR_DEGENERATE_TRIANGLE, pbd_cloth_create(t.world, &d, &id));
	return twins_agree(&t);
}

static int not_finite(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	float pos[12];
	memcpy(pos, kQuad, sizeof pos);
	pos[4] = NAN;
	uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	pbd_cloth_def d = mesh_def(pos, 4, idx, 2);
	pbd_cloth_id id;
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_create(t.world, &d, &id));
	pbd_cloth_def g = pbd_cloth_def_default();
	g.position[0] = INFINITY;
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_create(t.world, &g, &id));
	EXPECT(PBD_ERR_NOT_FINITE, pbd_world_step(t.world, NAN));
	EXPECT(PBD_ERR_NOT_FINITE, pbd_world_step(t.world, INFINITY));
	pbd_cloth_material m = pbd_cloth_material_default();
	m.bend_compliance = NAN;
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_set_material(t.world, t.cloth, &m));
	float bad[3] = {0, NAN, 0};
	EXPECT(PBD_ERR_NOT_FINITE, pbd_world_set_gravity(t.world, bad));
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_pin_vertex(t.world, t.cloth, 0, bad));
	float q[4] = {0, 0, 0, 1};
	EXPECT(PBD_ERR_NOT_FINITE, pbd_collider_set_pose(t.world, t.floor, bad, q));
	float masses[4] = {1, 1, NAN, 1};
	d = mesh_def(kQuad, 4, idx, 2);
	d.masses = masses;
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_create(t.world, &d, &id));
	return twins_agree(&t);
}

// Finite values that no step could keep finite (found by the API fuzzer: an areal density of
// 9.4e-38 kg/m^2 gave inverse masses near 1e37 and NaN in the first step; a wind of 1e30 m/s).
static int out_of_range(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_id id;
	pbd_cloth_def g = pbd_cloth_def_default();
	g.areal_density = 9.40395e-38f;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &g, &id));
	CHECK(strstr(pbd_world_last_error(t.world), "below") != NULL);
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_set_areal_density(t.world, t.cloth, 1e-30f));
	float wind[3] = {1e30f, 0, 0}, fast_wind[3] = {0, 0, 2 * PBD_MAX_WIND};
	EXPECT(PBD_ERR_NOT_FINITE, pbd_world_set_wind(t.world, wind));
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_world_set_wind(t.world, fast_wind));
	CHECK(strstr(pbd_world_last_error(t.world), "wind of 2000 m/s") != NULL);
	float heavy[3] = {0, -2 * PBD_MAX_GRAVITY, 0};
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_world_set_gravity(t.world, heavy));
	uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	float light[4] = {1, 1e-12f, 1, 1};
	pbd_cloth_def d = mesh_def(kQuad, 4, idx, 2);
	d.masses = light;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &d, &id));
	float far[12];
	memcpy(far, kQuad, sizeof far);
	far[3] = 2e12f;
	d = mesh_def(far, 4, idx, 2);
	EXPECT(PBD_ERR_NOT_FINITE, pbd_cloth_create(t.world, &d, &id));
	float q[4] = {0, 0, 0, 1}, away[3] = {0, -3e12f, 0};
	EXPECT(PBD_ERR_NOT_FINITE, pbd_collider_set_pose(t.world, t.floor, away, q));
	CHECK(strcmp(pbd_result_string(PBD_ERR_OUT_OF_RANGE), "unknown result code") != 0);
	// Positions within PBD_MAX_COORDINATE, speeds within PBD_MAX_SPEED.
	far[3] = 2.0f * PBD_MAX_COORDINATE;
	d = mesh_def(far, 4, idx, 2);
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &d, &id));
	CHECK(strstr(pbd_world_last_error(t.world), "mesh vertex 1 has a coordinate of 2e+06 m") != NULL);
	away[1] = -2.0f * PBD_MAX_COORDINATE;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_collider_set_pose(t.world, t.floor, away, q));
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_pin_vertex(t.world, t.cloth, 0, away));
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_teleport(t.world, t.cloth, away, NULL));
	float fast[3] = {0, 0.8f * PBD_MAX_SPEED, 0.8f * PBD_MAX_SPEED};  // each within, the speed beyond
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_teleport(t.world, t.cloth, NULL, fast));
	CHECK(strstr(pbd_world_last_error(t.world), "teleport velocity of") != NULL);
	pbd_cloth_def g2 = pbd_cloth_def_default();
	g2.grid.width = 2.0f * PBD_MAX_COORDINATE;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &g2, &id));
	g2 = pbd_cloth_def_default();
	memcpy(g2.velocity, fast, sizeof fast);
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &g2, &id));
	float ball[3] = {0, 1, 0};
	pbd_particles_def pd = pbd_particles_def_default();
	pd.count = 1;
	pd.positions = ball;
	pd.velocities = fast;
	pbd_particles_id pid;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_particles_create(t.world, &pd, &pid));
	// Masses up to PBD_MAX_MASS.
	float too_heavy[4] = {1, 2.0f * PBD_MAX_MASS, 1, 1};
	d = mesh_def(kQuad, 4, idx, 2);
	d.masses = too_heavy;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_create(t.world, &d, &id));
	CHECK(strstr(pbd_world_last_error(t.world), "mass of vertex 1 is 2e+09 kg, outside") != NULL);
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_cloth_set_areal_density(t.world, t.cloth, 1e30f));
	CHECK(strstr(pbd_world_last_error(t.world), "above") != NULL);
	pd.velocities = NULL;
	pd.mass = 2.0f * PBD_MAX_MASS;
	EXPECT(PBD_ERR_OUT_OF_RANGE, pbd_particles_create(t.world, &pd, &pid));
	// Just inside the limits is accepted (on a world of its own).
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.wind[0] = 0.99f * PBD_MAX_WIND;
	wd.settings.gravity[1] = -0.99f * PBD_MAX_GRAVITY;
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_world_destroy(w);
	return twins_agree(&t);
}

// A vertex pinned as far away as allowed (found by fuzz_api at 8.8e11 m, where products of
// edge lengths overflowed float): the cloth stays finite and its speeds within the limit.
static int pinned_far_away(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.substeps = 10;
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = 2;
	d.grid.res_y = 3;
	d.grid.width = 0.35f;
	d.grid.height = 0.1f;
	d.material.self_collision = 1;
	d.position[1] = 2.0f;
	pbd_cloth_id c;
	CHECK_OK(pbd_cloth_create(w, &d, &c));
	float at[3] = {1.0f, 3.0f, -0.99f * PBD_MAX_COORDINATE};
	CHECK_OK(pbd_cloth_pin_vertex(w, c, 0, at));
	for (int k = 0; k < 20; ++k) {
		CHECK_OK(pbd_world_step(w, 1.0f / 240.0f));
		int n = 0;
		const float *x = pbd_cloth_positions(w, c, &n);
		const float *v = pbd_cloth_velocities(w, c, &n);
		for (int i = 0; i < n; ++i) {
			for (int j = 0; j < 3; ++j)
				CHECK(isfinite(x[3 * i + j]) && isfinite(v[3 * i + j]));
			double speed = sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
					    (double)v[3 * i + 2] * v[3 * i + 2]);
			CHECK(speed <= 1.0001 * PBD_MAX_SPEED);
		}
		CHECK(x[2] == at[2]);  // the pin holds
	}
	pbd_world_destroy(w);
	return 0;
}

// A cloth as thick as allowed beside a pinned, self-colliding one (found by fuzz_api: at a
// thickness of 1.5e10 m fourth powers of contact distances overflowed float and the other
// cloth was NaN after one step): thicker is refused, the limit itself simulates finitely.
static int thick_cloth(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.substeps = 1;
	wd.settings.iterations = 4;
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def a = pbd_cloth_def_default();
	a.grid.res_x = a.grid.res_y = 3;
	a.grid.width = a.grid.height = 1.175f;
	a.position[1] = 3.975f;
	a.material.thickness = 0.04f;
	a.material.self_collision = 1;
	uint32_t pins[3] = {0, 1, 2};
	a.pinned = pins;
	a.pinned_count = 3;
	pbd_cloth_id ca, cb;
	CHECK_OK(pbd_cloth_create(w, &a, &ca));
	pbd_cloth_def b = pbd_cloth_def_default();
	b.grid.res_x = b.grid.res_y = 3;
	b.grid.width = b.grid.height = 3.975f;
	b.position[1] = 1.175f;
	b.material.thickness = 1.5e10f;
	CHECK(pbd_cloth_create(w, &b, &cb) == PBD_ERR_OUT_OF_RANGE);
	CHECK(strstr(pbd_world_last_error(w), "thickness 1.5e+10 m is beyond the limit") != NULL);
	b.material.thickness = PBD_MAX_COORDINATE;
	CHECK_OK(pbd_cloth_create(w, &b, &cb));
	// Beside them, the heaviest cloth allowed (found by fuzz_api: a density of 1e30 kg/m^2 gave
	// vertex masses of 1e34 kg, whose inverse masses sum to so little that contact
	// corrections overflowed).
	pbd_cloth_def heavy = pbd_cloth_def_default();
	heavy.grid.res_x = heavy.grid.res_y = 7;
	heavy.grid.width = 2.9f;
	heavy.grid.height = PBD_MAX_COORDINATE;
	heavy.position[1] = 1.55f;
	heavy.material.self_collision = 1;
	heavy.areal_density = 1e30f;
	CHECK(pbd_cloth_create(w, &heavy, &cb) == PBD_ERR_OUT_OF_RANGE);
	CHECK(strstr(pbd_world_last_error(w), "above 1e+09 kg") != NULL);
	uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	float masses[4] = {PBD_MAX_MASS, PBD_MAX_MASS, PBD_MAX_MASS, PBD_MAX_MASS};
	pbd_cloth_def quad = mesh_def(kQuad, 4, idx, 2);
	quad.masses = masses;
	quad.position[1] = 1.55f;
	pbd_cloth_id cc;
	CHECK_OK(pbd_cloth_create(w, &quad, &cc));
	pbd_cloth_material m;
	CHECK_OK(pbd_cloth_get_material(w, ca, &m));
	m.thickness = 2.0f * PBD_MAX_COORDINATE;
	CHECK(pbd_cloth_set_material(w, ca, &m) == PBD_ERR_OUT_OF_RANGE);
	for (int k = 0; k < 20; ++k) {
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		const pbd_cloth_id ids[3] = {ca, cb, cc};
		for (int c = 0; c < 3; ++c) {
			int n = 0;
			const float *x = pbd_cloth_positions(w, ids[c], &n);
			for (int i = 0; i < 3 * n; ++i)
				CHECK(isfinite(x[i]));
		}
	}
	pbd_world_destroy(w);
	return 0;
}

// The thickest cloth allowed beside a sliver, at 728 substeps (found by fuzz_api: contacts
// pushed particles thousands of kilometres within a step, fourth powers of lengths overflowed
// float and the cloth was NaN). A step moves each particle at most PBD_MAX_SPEED * dt.
static int thick_cloth_many_substeps(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.substeps = 728;
	wd.settings.iterations = 1;
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def a = pbd_cloth_def_default();
	a.grid.res_x = a.grid.res_y = 5;
	a.grid.width = a.grid.height = 2.625f;
	a.position[1] = 2.625f;
	a.velocity[1] = 1.0f;
	a.material.thickness = PBD_MAX_COORDINATE;
	pbd_cloth_def b = a;
	b.grid.width = 0.375f;
	b.grid.height = 1e-6f;
	b.material.thickness = 0.02625f;
	b.material.self_collision = 1;
	pbd_cloth_id ca, cb;
	CHECK_OK(pbd_cloth_create(w, &a, &ca));
	CHECK_OK(pbd_cloth_create(w, &b, &cb));
	const float dt = 1.0f / 240.0f;
	for (int k = 0; k < 1; ++k) {
		const pbd_cloth_id ids[2] = {ca, cb};
		float before[2][75];
		for (int c = 0; c < 2; ++c)
			memcpy(before[c], pbd_cloth_positions(w, ids[c], NULL), sizeof before[c]);
		CHECK_OK(pbd_world_step(w, dt));
		for (int c = 0; c < 2; ++c) {
			int n = 0;
			const float *x = pbd_cloth_positions(w, ids[c], &n);
			CHECK(n == 25);
			for (int i = 0; i < n; ++i) {
				double d2 = 0.0;
				for (int j = 0; j < 3; ++j) {
					CHECK(isfinite(x[3 * i + j]));
					double d = (double)x[3 * i + j] - before[c][3 * i + j];
					d2 += d * d;
				}
				CHECK(sqrt(d2) <= 1.001 * PBD_MAX_SPEED * dt);
			}
		}
	}
	pbd_world_destroy(w);
	return 0;
}

static int non_positive(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	pbd_cloth_id id;
	float zero_mass[4] = {1, 0, 1, 1}, negative_mass[4] = {1, 1, -2, 1};
	pbd_cloth_def d = mesh_def(kQuad, 4, idx, 2);
	d.masses = zero_mass;
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_cloth_create(t.world, &d, &id));
	d.masses = negative_mass;
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_cloth_create(t.world, &d, &id));
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_world_step(t.world, 0.0f));
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_world_step(t.world, -0.01f));
	pbd_cloth_def g = pbd_cloth_def_default();
	g.grid.width = 0.0f;
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_cloth_create(t.world, &g, &id));
	g = pbd_cloth_def_default();
	g.areal_density = 0.0f;
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_cloth_create(t.world, &g, &id));
	pbd_collider_def s = pbd_collider_def_default();
	s.type = PBD_SHAPE_SPHERE;
	s.radius = -1.0f;
	pbd_collider_id cid;
	EXPECT(PBD_ERR_NON_POSITIVE, pbd_collider_create(t.world, &s, &cid));
	return twins_agree(&t);
}

static int bad_count(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	EXPECT(PBD_ERR_BAD_COUNT, pbd_world_set_substeps(t.world, 0));
	EXPECT(PBD_ERR_BAD_COUNT, pbd_world_set_iterations(t.world, 0));
	EXPECT(PBD_ERR_BAD_COUNT, pbd_world_set_iterations(t.world, -3));
	pbd_cloth_def g = pbd_cloth_def_default();
	g.grid.res_x = 1;
	pbd_cloth_id id;
	EXPECT(PBD_ERR_BAD_COUNT, pbd_cloth_create(t.world, &g, &id));
	g.grid.res_x = 100000;
	EXPECT(PBD_ERR_BAD_COUNT, pbd_cloth_create(t.world, &g, &id));
	uint32_t idx[3] = {0, 1, 2};
	pbd_cloth_def d = mesh_def(kQuad, 2, idx, 1);
	EXPECT(PBD_ERR_BAD_COUNT, pbd_cloth_create(t.world, &d, &id));
	pbd_world_settings s = pbd_world_get_settings(t.world);
	CHECK(s.substeps == pbd_world_settings_default().substeps);
	s.max_substeps = -1;
	EXPECT(PBD_ERR_BAD_COUNT, pbd_world_set_settings(t.world, &s));
	s.max_substeps = 1001;
	EXPECT(PBD_ERR_BAD_COUNT, pbd_world_set_settings(t.world, &s));
	CHECK(pbd_world_get_settings(t.world).max_substeps == pbd_world_settings_default().max_substeps);
	return twins_agree(&t);
}

static int negative(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_material m = pbd_cloth_material_default();
	m.static_friction = -0.1f;
	EXPECT(PBD_ERR_NEGATIVE, pbd_cloth_set_material(t.world, t.cloth, &m));
	m = pbd_cloth_material_default();
	m.stretch_compliance = -1e-6f;
	EXPECT(PBD_ERR_NEGATIVE, pbd_cloth_set_material(t.world, t.cloth, &m));
	m = pbd_cloth_material_default();
	m.thickness = -0.01f;
	EXPECT(PBD_ERR_NEGATIVE, pbd_cloth_set_material(t.world, t.cloth, &m));
	EXPECT(PBD_ERR_NEGATIVE, pbd_collider_set_friction(t.world, t.floor, -1.0f, 0.2f));
	pbd_world_settings s = pbd_world_get_settings(t.world);
	s.air_density = -1.0f;
	EXPECT(PBD_ERR_NEGATIVE, pbd_world_set_settings(t.world, &s));
	s = pbd_world_get_settings(t.world);
	s.particle_cloth_mass_ratio = -1.0f;
	EXPECT(PBD_ERR_NEGATIVE, pbd_world_set_settings(t.world, &s));
	s = pbd_world_get_settings(t.world);
	s.max_candidate_pairs = -1;
	EXPECT(PBD_ERR_NEGATIVE, pbd_world_set_settings(t.world, &s));
	return twins_agree(&t);
}

static int zero_normal(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_collider_def p = pbd_collider_def_default();
	p.normal[0] = p.normal[1] = p.normal[2] = 0.0f;
	pbd_collider_id cid;
	EXPECT(PBD_ERR_ZERO_NORMAL, pbd_collider_create(t.world, &p, &cid));
	float pos[3] = {0, 0, 0}, q[4] = {0, 0, 0, 0};
	EXPECT(PBD_ERR_ZERO_NORMAL, pbd_collider_set_pose(t.world, t.floor, pos, q));
	pbd_cloth_def g = pbd_cloth_def_default();
	g.rotation[3] = 0.0f;
	pbd_cloth_id id;
	EXPECT(PBD_ERR_ZERO_NORMAL, pbd_cloth_create(t.world, &g, &id));
	return twins_agree(&t);
}

static int stale_id(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_def g = pbd_cloth_def_default();
	g.grid.res_x = g.grid.res_y = 4;
	g.position[1] = 3.0f;
	pbd_cloth_id extra;
	CHECK_OK(pbd_cloth_create(t.world, &g, &extra));
	CHECK_OK(pbd_cloth_destroy(t.world, extra));
	EXPECT(PBD_ERR_STALE_ID, pbd_cloth_destroy(t.world, extra));
	EXPECT(PBD_ERR_STALE_ID, pbd_cloth_set_material(t.world, extra, &g.material));
	CHECK(pbd_cloth_positions(t.world, extra, NULL) == NULL);
	// The slot is reused; the old id stays stale.
	pbd_cloth_id again;
	CHECK_OK(pbd_cloth_create(t.world, &g, &again));
	CHECK(again.index1 == extra.index1 && again.generation != extra.generation);
	EXPECT(PBD_ERR_STALE_ID, pbd_cloth_check(t.world, extra));
	CHECK_OK(pbd_cloth_destroy(t.world, again));
	pbd_collider_def s = pbd_collider_def_default();
	s.type = PBD_SHAPE_SPHERE;
	s.position[1] = 5.0f;
	pbd_collider_id ball;
	CHECK_OK(pbd_collider_create(t.world, &s, &ball));
	CHECK_OK(pbd_collider_destroy(t.world, ball));
	EXPECT(PBD_ERR_STALE_ID, pbd_collider_set_friction(t.world, ball, 0.1f, 0.1f));
	return twins_agree_bytes(&t, 0);
}

static int unknown_id(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_cloth_id null_id = {0, 0}, far = {99, 1}, future = {t.cloth.index1, t.cloth.generation + 5};
	pbd_cloth_material m = pbd_cloth_material_default();
	EXPECT(PBD_ERR_UNKNOWN_ID, pbd_cloth_set_material(t.world, null_id, &m));
	EXPECT(PBD_ERR_UNKNOWN_ID, pbd_cloth_set_material(t.world, far, &m));
	EXPECT(PBD_ERR_UNKNOWN_ID, pbd_cloth_destroy(t.world, future));
	pbd_collider_id c = {42, 1};
	EXPECT(PBD_ERR_UNKNOWN_ID, pbd_collider_destroy(t.world, c));
	return twins_agree(&t);
}

static int bad_shape(void)
{
	twins t;
	if (twins_make(&t))
		return 1;
	pbd_collider_def c = pbd_collider_def_default();
	c.type = (pbd_shape_type)99;
	pbd_collider_id id;
	EXPECT(PBD_ERR_BAD_SHAPE, pbd_collider_create(t.world, &c, &id));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.source = (pbd_cloth_source)7;
	pbd_cloth_id cid;
	EXPECT(PBD_ERR_BAD_SHAPE, pbd_cloth_create(t.world, &d, &cid));
	return twins_agree(&t);
}

// An allocator that fails after a budget of calls.
typedef struct budget {
	int left;
	size_t live;
} budget;

static void *budget_alloc(size_t size, size_t align, void *user)
{
	budget *b = user;
	if (b->left-- <= 0)
		return NULL;
	b->live += size;
	size_t rounded = (size + align - 1) / align * align;
	return aligned_alloc(align, rounded);
}

static void budget_free(void *ptr, size_t size, void *user)
{
	budget *b = user;
	b->live -= size;
	free(ptr);
}

// Every allocation of a cloth creation fails in turn; each failure is reported, leaks
// nothing, and leaves the world stepping.
static int out_of_memory(void)
{
	budget b = {1 << 30, 0};
	pbd_world_def wd = pbd_world_def_default();
	wd.allocator = (pbd_allocator){budget_alloc, budget_free, &b};
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 6;
	d.grid.pins = PBD_PIN_CORNER_00;
	pbd_cloth_id first;
	CHECK_OK(pbd_cloth_create(w, &d, &first));
	CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	size_t before = b.live;
	int failures = 0;
	for (int allowed = 0; allowed < 200; ++allowed) {
		b.left = allowed;
		pbd_cloth_id id;
		pbd_result r = pbd_cloth_create(w, &d, &id);
		b.left = 1 << 30;
		if (r == PBD_OK) {
			CHECK_OK(pbd_cloth_destroy(w, id));
			break;
		}
		CHECK(r == PBD_ERR_OUT_OF_MEMORY);
		if (b.live != before)
			fprintf(stderr, "  after failure at allocation %d: live %zu (was %zu)\n", allowed, b.live, before);
		CHECK(id.index1 == 0);
		failures++;
		// Growing the particle arrays on an earlier try may keep larger arrays; nothing else.
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		CHECK(pbd_world_get_stats(w).particles == 36);
	}
	fprintf(stderr, "  %d allocation failures handled; live bytes %zu before, %zu after\n", failures, before, b.live);
	CHECK(failures > 10);
	pbd_world_destroy(w);
	CHECK(b.live == 0);
	return 0;
}

// Runs a scene (`stack`: three cloths landing on each other; `tear`: a curtain and a sheet
// tearing) for `lead` frames, then with memory that runs out after `allowed` allocations of
// the run (-1: never) for `frames` frames, then with memory back for as many again. Every step keeps its promise: PBD_OK, or PBD_ERR_OUT_OF_MEMORY after
// holding what it could not check; either way no triangle crosses another in any frame.
// *allocations gets the allocations made while memory was short; *refused the steps that
// said out of memory.
static int scene_with_memory(const char *name, int res, int lead, int allowed, int frames, long *allocations,
			     int *refused)
{
	budget b = {1 << 30, 0};
	pbd_world_def wd = pbd_world_def_default();
	wd.allocator = (pbd_allocator){budget_alloc, budget_free, &b};
	demo_scene_options o = {0};
	o.res = res;
	const demo_scene *scene = demo_scene_find(name);
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load_def(scene, &o, &wd, &w, &st, err, sizeof err));
	for (int f = 0; f < lead; ++f)
		CHECK_OK(demo_scene_step(scene, w, &st, 1.0f / 60.0f));
	int64_t before = pbd_world_get_stats(w).allocations;
	b.left = allowed < 0 ? 1 << 30 : allowed;
	*refused = 0;
	for (int f = 0; f < 2 * frames; ++f) {
		if (f == frames) {
			*allocations = (long)(pbd_world_get_stats(w).allocations - before);
			b.left = 1 << 30;  // memory is back
		}
		pbd_result r = demo_scene_step(scene, w, &st, 1.0f / 60.0f);
		if (r != PBD_OK) {
			CHECK(r == PBD_ERR_OUT_OF_MEMORY && f < frames);
			(*refused)++;
		}
		long crossings = check_scene_crossings(w, &st);
		if (crossings != 0)
			fprintf(stderr, "  allowed %d, frame %d: %ld crossings (step said %s)\n", allowed, f, crossings,
				pbd_result_string(r));
		CHECK(crossings == 0);
	}
	// Memory back: it moved on.
	for (int c = 0; c < st.cloth_count; ++c) {
		int n = 0;
		const float *x = pbd_cloth_positions(w, st.cloths[c], &n);
		for (int i = 0; i < 3 * n; ++i)
			CHECK(isfinite(x[i]));
	}
	pbd_world_destroy(w);
	CHECK(b.live == 0);
	return 0;
}

// Memory that runs out inside the step, at every allocation of a run in turn.
static int memory_runs_out_in(const char *name, int res, int lead)
{
	const int frames = 40;
	long total = 0, unused;
	int refused = 0;
	if (scene_with_memory(name, res, lead, -1, frames, &total, &refused))
		return 1;
	CHECK(refused == 0 && total > 0);
	int runs = 0, held = 0;
	for (long k = 0; k <= total; k += total > 30 ? total / 30 : 1) {
		if (scene_with_memory(name, res, lead, (int)k, frames, &unused, &refused))
			return 1;
		runs++;
		held += refused > 0;
	}
	fprintf(stderr, "  %ld allocations in %d frames; %d runs with memory running out, %d of them reported it; "
		"no crossings in any frame\n", total, frames, runs, held);
	CHECK(held > 0);
	return 0;
}

static int step_out_of_memory(void) { return memory_runs_out_in("stack", 12, 0); }

// Tearing with memory running out: the tear waits (the step says so) and nothing crosses.
static int tear_out_of_memory(void) { return memory_runs_out_in("tear", 16, 30); }

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(null_argument), TEST(bad_def),   TEST(index_out_of_range), TEST(repeated_index),
		TEST(degenerate_triangle), TEST(duplicate_triangle), TEST(not_finite), TEST(non_positive), TEST(bad_count),
		TEST(negative),      TEST(zero_normal), TEST(stale_id),         TEST(unknown_id),
		TEST(bad_shape),     TEST(out_of_memory), TEST(out_of_range), TEST(pinned_far_away),
		TEST(thick_cloth), TEST(thick_cloth_many_substeps), DEEP_TEST(step_out_of_memory), DEEP_TEST(tear_out_of_memory),
		TEST(vertex_held),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
