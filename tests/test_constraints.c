// SPDX-License-Identifier: MIT
// Each constraint against an analytic answer.
#include <stdlib.h>
#include <string.h>

#include "air.h"
#include "test.h"
#include "world.h"

// One triangle: vertices 0 and 1 pinned at (-d, 0, 0) and (d, 0, 0), vertex 2 hangs below
// on two compliant edges. Rigid bodies of the cloth are off (vacuum, no tethers).
static int triangle_world(pbd_world **w, pbd_cloth_id *id, float d, float drop, float mass, float compliance)
{
	*w = test_world_vacuum();
	CHECK(*w);
	float pos[9] = {-d, 0, 0, d, 0, 0, 0, -drop, 0};
	uint32_t idx[3] = {0, 1, 2};
	uint32_t pins[2] = {0, 1};
	float masses[3] = {mass, mass, mass};
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.source = PBD_CLOTH_MESH;
	cd.mesh.positions = pos;
	cd.mesh.vertex_count = 3;
	cd.mesh.indices = idx;
	cd.mesh.triangle_count = 1;
	cd.masses = masses;
	cd.pinned = pins;
	cd.pinned_count = 2;
	cd.material.stretch_compliance = compliance;
	cd.material.tether_slack = -1.0f;
	cd.material.stretch_limit = 0.0f;  // the compliance alone
	CHECK_OK(pbd_cloth_create(*w, &cd, id));
	return 0;
}

static float vertex_distance(const float *x, int a, int b)
{
	float dx = x[3 * a] - x[3 * b], dy = x[3 * a + 1] - x[3 * b + 1], dz = x[3 * a + 2] - x[3 * b + 2];
	return sqrtf(dx * dx + dy * dy + dz * dz);
}

// A stretched pair returns to its rest length: rigid edges, vertex 2 pulled away and let go
// without gravity.
static int distance_returns_to_rest(void)
{
	pbd_world *w;
	pbd_cloth_id id;
	if (triangle_world(&w, &id, 0.5f, 1.0f, 0.1f, 0.0f))
		return 1;
	float zero[3] = {0, 0, 0};
	CHECK_OK(pbd_world_set_gravity(w, zero));
	float rest = sqrtf(0.25f + 1.0f);
	// Stretch by 20% through a kinematic move, then release.
	float far[3] = {0.0f, -1.4f, 0.0f};
	CHECK_OK(pbd_cloth_pin_vertex(w, id, 2, far));
	CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	const float *x = pbd_cloth_positions(w, id, NULL);
	CHECK(vertex_distance(x, 0, 2) > 1.1f * rest);
	CHECK_OK(pbd_cloth_release_vertex(w, id, 2));
	for (int i = 0; i < 10; ++i)
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	x = pbd_cloth_positions(w, id, NULL);
	CHECK_NEAR(vertex_distance(x, 0, 2), rest, 1e-4 * rest);
	CHECK_NEAR(vertex_distance(x, 1, 2), rest, 1e-4 * rest);
	pbd_world_destroy(w);
	return 0;
}

// The same on the solver kernel alone: one projection of a rigid constraint restores the
// rest length exactly and moves the particles in inverse proportion to their masses.
static int distance_kernel_exact(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	pbd_distance_constraints c = {0};
	uint32_t ij[2] = {0, 1};
	float rest = 1.0f, scale = 1.0f;
	uint8_t kind = PBD_DISTANCE_STRETCH;
	CHECK(pbd_distance_build(w, &c, 2, 1, ij, &rest, &scale, &kind));
	pbd_distance_set_compliance(&c, 0.0f, 0.0f);
	pbd_v4 p[2] = {{0, 0, 0, 1.0f}, {1.5f, 0, 0, 3.0f}};  // masses 1 and 1/3
	pbd_distance_reset(&c);
	pbd_distance_solve(p, &c, 3600.0f);
	CHECK_NEAR(p[1].x - p[0].x, 1.0, 1e-6);
	// Centre of mass unchanged: (1 * 0 + (1/3) * 1.5) / (4/3) = 0.375.
	CHECK_NEAR((p[0].x * 1.0f + p[1].x / 3.0f) / (4.0f / 3.0f), 0.375, 1e-6);
	pbd_distance_free(w, &c);
	pbd_world_destroy(w);
	return 0;
}

// A crumpled grid with some pinned and some coincident particles, for the kernels below.
enum { GRID = 23 };

static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

static void crumpled_grid(pbd_v4 *p, pbd_v3 *rest, uint32_t seed)
{
	for (int i = 0; i < GRID * GRID; ++i) {
		float jitter[3];
		for (int k = 0; k < 3; ++k)
			jitter[k] = (float)next_random(&seed) / (float)(1u << 24) - 0.5f;
		rest[i] = v3((float)(i % GRID) * 0.1f, 0.0f, (float)(i / GRID) * 0.1f);
		p[i] = (pbd_v4){rest[i].x + 0.03f * jitter[0], 0.05f * jitter[1], rest[i].z + 0.03f * jitter[2],
				next_random(&seed) % 7 == 0 ? 0.0f : 1.0f + (float)(i % 5)};
	}
	p[40] = p[41];  // coincident: no direction to push along
}

// Solving a color four constraints at a time (where the instruction set allows) gives the
// same positions and multipliers, bit for bit, as solving it one constraint at a time
// (ranges of one constraint never take the four-wide path); so does the stretch limit.
static int kernels_match_one_at_a_time(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	enum { N = GRID * GRID };
	static pbd_v4 p[N], q[N];
	static pbd_v3 rest_shape[N];
	crumpled_grid(p, rest_shape, 12345u);
	memcpy(q, p, sizeof p);
	// Stretch and shear edges of the grid, and bending stencils across its diagonals.
	static uint32_t ij[2 * 4 * N], stencil[4 * N];
	static float rest[4 * N], scale[4 * N];
	static uint8_t kind[4 * N];
	int edges = 0, stencils = 0;
	for (int r = 0; r < GRID; ++r) {
		for (int c = 0; c < GRID; ++c) {
			uint32_t i = (uint32_t)(r * GRID + c);
			uint32_t links[3][2] = {{i, i + 1}, {i, i + GRID}, {i, i + GRID + 1}};
			bool exists[3] = {c + 1 < GRID, r + 1 < GRID, c + 1 < GRID && r + 1 < GRID};
			for (int k = 0; k < 3; ++k) {
				if (!exists[k])
					continue;
				ij[2 * edges] = links[k][0], ij[2 * edges + 1] = links[k][1];
				rest[edges] = v3_len(v3_sub(rest_shape[links[k][0]], rest_shape[links[k][1]])) * 0.97f;
				scale[edges] = 1.0f;
				kind[edges] = k == 2 ? PBD_DISTANCE_SHEAR : PBD_DISTANCE_STRETCH;
				edges++;
			}
			if (exists[2]) {
				uint32_t *v = stencil + 4 * stencils++;
				v[0] = i, v[1] = i + GRID + 1, v[2] = i + 1, v[3] = i + GRID;
			}
		}
	}
	pbd_distance_constraints dc = {0};
	pbd_bending_constraints bc = {0};
	CHECK(pbd_distance_build(w, &dc, N, edges, ij, rest, scale, kind));
	CHECK(pbd_bending_build(w, &bc, N, stencils, stencil, rest_shape));
	pbd_distance_set_compliance(&dc, 1e-6f, 1e-5f);
	float lambda_d[4 * N], lambda_b[3 * N];
	// The stretch limit too, color by color, at 0.5%: the pinned particles keep many edges
	// past it.
	const float limit = 0.005f;
	int limited = 0;
	for (int pass = 0; pass < 3; ++pass) {
		pbd_distance_solve(p, &dc, 3600.0f);
		pbd_bending_solve(p, &bc, 1e-3f, 3600.0f);
		static pbd_v4 before[N];
		memcpy(before, p, sizeof p);
		for (int k = 0; k < dc.color_count; ++k)
			pbd_distance_limit_range(p, &dc, dc.color_start[k], dc.color_start[k + 1], limit);
		for (int i = 0; i < N; ++i)
			limited += memcmp(&before[i], &p[i], sizeof p[i]) != 0;
	}
	fprintf(stderr, "the stretch limit moved particles %d times in 3 passes\n", limited);
	CHECK(limited > 0);
	memcpy(lambda_d, dc.lambda, (size_t)edges * sizeof *lambda_d);
	memcpy(lambda_b, bc.lambda, (size_t)stencils * 3 * sizeof *lambda_b);
	pbd_distance_reset(&dc);
	pbd_bending_reset(&bc);
	// One at a time; the first pass does not read the multipliers (`fresh`, as the step's first
	// pass does), the others read what it kept.
	for (int pass = 0; pass < 3; ++pass) {
		for (int k = 0; k < edges; ++k)
			pbd_distance_solve_range(q, &dc, k, k + 1, 3600.0f, pass == 0, true);
		for (int k = 0; k < stencils; ++k)
			pbd_bending_solve_range(q, &bc, k, k + 1, 1e-3f, 3600.0f, pass == 0, true);
		for (int k = 0; k < edges; ++k)
			pbd_distance_limit_range(q, &dc, k, k + 1, limit);
	}
	CHECK(memcmp(p, q, sizeof p) == 0);
	CHECK(memcmp(lambda_d, dc.lambda, (size_t)edges * sizeof *lambda_d) == 0);
	CHECK(memcmp(lambda_b, bc.lambda, (size_t)stencils * 3 * sizeof *lambda_b) == 0);
	// Whole colors as the step runs them, the last pass keeping nothing: the same positions.
	static pbd_v4 r[N];
	crumpled_grid(r, rest_shape, 12345u);
	for (int pass = 0; pass < 3; ++pass) {
		for (int k = 0; k < dc.color_count; ++k)
			pbd_distance_solve_range(r, &dc, dc.color_start[k], dc.color_start[k + 1], 3600.0f, pass == 0, pass < 2);
		for (int k = 0; k < bc.color_count; ++k)
			pbd_bending_solve_range(r, &bc, bc.color_start[k], bc.color_start[k + 1], 1e-3f, 3600.0f, pass == 0,
						pass < 2);
		for (int k = 0; k < dc.color_count; ++k)
			pbd_distance_limit_range(r, &dc, dc.color_start[k], dc.color_start[k + 1], limit);
	}
	CHECK(memcmp(p, r, sizeof p) == 0);
	// Not vacuous: the constraints moved the free particles and left the pinned ones.
	static pbd_v4 start[N];
	crumpled_grid(start, rest_shape, 12345u);
	int moved = 0;
	for (int i = 0; i < N; ++i) {
		bool same = start[i].x == p[i].x && start[i].y == p[i].y && start[i].z == p[i].z;
		if (start[i].w == 0.0f)
			CHECK(same);
		moved += !same;
	}
	CHECK(moved > N / 2);
	// The largest stretch strain four at a time against one at a time.
	float strain_all = pbd_distance_max_strain_range(p, &dc, PBD_DISTANCE_STRETCH, 1, edges);
	float strain_one = 0.0f;
	for (int k = 1; k < edges; ++k)
		strain_one = fmaxf(strain_one, pbd_distance_max_strain_range(p, &dc, PBD_DISTANCE_STRETCH, k, k + 1));
	CHECK(strain_all == strain_one && strain_one > 0.0f);
	// Tethers to the pinned particles, the grid stretched to half again its size so that
	// most pull: four particles at a time against one at a time, with a ragged start.
	static pbd_v4 u[N], v[N];
	float inv_mass[N];
	for (int i = 0; i < N; ++i) {
		inv_mass[i] = start[i].w;
		u[i] = (pbd_v4){1.5f * start[i].x, start[i].y, 1.5f * start[i].z, start[i].w};
	}
	memcpy(v, u, sizeof u);
	pbd_tethers tt = {0};
	CHECK(pbd_tethers_build(w, &tt, N, inv_mass, edges, ij, rest_shape));
	CHECK(tt.slots >= 2 && tt.count > N);
	pbd_tethers_solve_range(u, &tt, 0, 3, 0.02f, 0.01f);
	pbd_tethers_solve_range(u, &tt, 3, N, 0.02f, 0.01f);
	for (int i = 0; i < N; ++i)
		pbd_tethers_solve_range(v, &tt, i, i + 1, 0.02f, 0.01f);
	CHECK(memcmp(u, v, sizeof u) == 0);
	int pulled = 0;
	for (int i = 0; i < N; ++i)
		pulled += u[i].x != 1.5f * start[i].x;
	CHECK(pulled > N / 4);
	pbd_tethers_free(w, &tt);
	pbd_distance_free(w, &dc);
	pbd_bending_free(w, &bc);
	pbd_world_destroy(w);
	return 0;
}

// Solves the hanging triangle's equilibrium: tension T = (len - L0) / alpha in each edge,
// 2 T (y / len) = m g. Returns the equilibrium depth y by bisection.
static double hanging_depth(double d, double rest, double alpha, double m, double g)
{
	double lo = sqrt(fmax(rest * rest - d * d, 0.0)), hi = lo + 10.0;
	for (int i = 0; i < 200; ++i) {
		double y = 0.5 * (lo + hi), len = sqrt(d * d + y * y);
		double lift = 2.0 * (len - rest) / alpha * (y / len);
		if (lift > m * g)
			hi = y;
		else
			lo = y;
	}
	return 0.5 * (lo + hi);
}

// A particle hanging from compliant links settles at the elongation m g alpha predicts.
static int compliant_link_elongation(void)
{
	const float d = 0.05f, drop = 1.0f, mass = 0.1f, compliance = 1e-2f;
	pbd_world *w;
	pbd_cloth_id id;
	if (triangle_world(&w, &id, d, drop, mass, compliance))
		return 1;
	for (int i = 0; i < 600; ++i)
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	const float *x = pbd_cloth_positions(w, id, NULL);
	// Edge compliance = material compliance * L^2 / (area of the triangle).
	double rest = sqrt(d * d + drop * drop), area = d * drop;
	double alpha = compliance * rest * rest / area;
	double y = hanging_depth(d, rest, alpha, mass, 9.81);
	double elongation = sqrt(d * d + y * y) - rest;
	double measured = vertex_distance(x, 0, 2) - rest;
	CHECK(elongation > 0.05 * rest);  // the compliance is visible, not a rounding error
	CHECK_NEAR(measured, elongation, 0.01 * elongation);
	pbd_world_destroy(w);
	return 0;
}

// The same links with a stretch limit of 2%: where the compliance alone gives more (9.8%
// here), the links hang at (1 + limit) times their rest length, and with a limit above
// what the compliance gives they hang as without one.
static int stretch_limit_caps_elongation(void)
{
	const float d = 0.05f, drop = 1.0f, mass = 0.1f, compliance = 1e-2f;
	double rest = sqrt(d * d + drop * drop), area = d * drop;
	double free_elongation = sqrt(d * d + pow(hanging_depth(d, rest, compliance * rest * rest / area, mass, 9.81), 2)) - rest;
	const float limits[2] = {0.02f, 0.2f};
	for (int k = 0; k < 2; ++k) {
		pbd_world *w;
		pbd_cloth_id id;
		if (triangle_world(&w, &id, d, drop, mass, compliance))
			return 1;
		pbd_cloth_material m;
		CHECK_OK(pbd_cloth_get_material(w, id, &m));
		m.stretch_limit = limits[k];
		CHECK_OK(pbd_cloth_set_material(w, id, &m));
		for (int i = 0; i < 600; ++i)
			CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		const float *x = pbd_cloth_positions(w, id, NULL);
		double measured = vertex_distance(x, 0, 2) - rest;
		double expected = fmin(free_elongation, limits[k] * rest);
		fprintf(stderr, "limit %.0f%%: elongation %.5f m, expected %.5f m (%.5f m without a limit)\n",
			100.0 * limits[k], measured, expected, free_elongation);
		CHECK(free_elongation > 0.05 * rest);
		CHECK_NEAR(measured, expected, 0.01 * expected);
		pbd_world_destroy(w);
	}
	return 0;
}

// Two triangles hinged on a rigid edge: vertex 3 swings down under gravity against the
// bending compliance. The isometric constraint is linear in x3, so the energy is
// |K3|^2 (2 r sin(t/2))^2 / (2 alpha) - m g r sin t and its minimum is at
// tan t = m g alpha / (K3^2 r), alpha = bend compliance (A0 + A1) / 3.
static int bending_hinge_angle(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	const float r = 0.5f, mass = 0.01f, g = 9.81f;
	float pos[12] = {-0.5f, 0, 0, 0.5f, 0, 0, 0, 0, -r, 0, 0, r};
	uint32_t idx[6] = {0, 1, 2, 1, 0, 3};
	uint32_t pins[3] = {0, 1, 2};
	float masses[4] = {mass, mass, mass, mass};
	// K = (2, 2, -2, -2) for this square stencil; A0 + A1 = 0.5.
	const double k3 = 2.0, area_sum = 0.5, tan_target = 0.5;
	double alpha = tan_target * k3 * k3 * r / (mass * g);
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.source = PBD_CLOTH_MESH;
	cd.mesh.positions = pos;
	cd.mesh.vertex_count = 4;
	cd.mesh.indices = idx;
	cd.mesh.triangle_count = 2;
	cd.masses = masses;
	cd.pinned = pins;
	cd.pinned_count = 3;
	cd.material.stretch_compliance = 0.0f;
	cd.material.bend_compliance = (float)(alpha * 3.0 / area_sum);
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &cd, &id));
	CHECK_OK(pbd_world_set_substeps(w, 20));
	for (int i = 0; i < 600; ++i)
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	const float *x = pbd_cloth_positions(w, id, NULL);
	double angle = atan2(-x[3 * 3 + 1], x[3 * 3 + 2]);
	CHECK_NEAR(angle, atan(tan_target), 0.01 * atan(tan_target));
	// The hinge edge held the radius.
	CHECK_NEAR(sqrt(x[10] * x[10] + x[11] * x[11]), r, 1e-3 * r);
	pbd_world_destroy(w);
	return 0;
}

// The bending weights vanish on every flat, affinely deformed stencil and sum to zero.
static int bending_weights_flat(void)
{
	pbd_v3 x[4] = {{0, 0, 0}, {1.3f, 0.1f, 0}, {0.4f, 0.9f, 0}, {0.7f, -1.1f, 0}};
	float k[4], area;
	CHECK(pbd_bending_weights(x[0], x[1], x[2], x[3], k, &area));
	CHECK_NEAR(k[0] + k[1] + k[2] + k[3], 0.0, 1e-5);
	// An arbitrary affine map of the rest stencil, stretched and tilted out of its plane.
	pbd_v3 c = v3(0, 0, 0);
	for (int i = 0; i < 4; ++i) {
		pbd_v3 y = v3(2.0f * x[i].x + 0.3f * x[i].y + 1.0f, 0.5f * x[i].x + 1.5f * x[i].y, 0.8f * x[i].x - 0.2f * x[i].y + 3.0f);
		c = v3_mad(c, y, k[i]);
	}
	CHECK_NEAR(v3_len(c), 0.0, 1e-5);
	// Folding the fourth vertex out of the plane gives a non-zero curvature vector.
	pbd_v3 folded = v3(x[3].x, x[3].y, 0.5f);
	c = v3_mad(v3_mad(v3_mad(v3_scale(x[0], k[0]), x[1], k[1]), x[2], k[2]), folded, k[3]);
	CHECK(v3_len(c) > 0.1f);
	return 0;
}

// Position-level friction: inside the static cone the tangential motion is undone; outside
// it is reduced by mu_k d; the normal part is never touched.
static int friction_cone(void)
{
	pbd_v3 n = v3(0, 1, 0);
	pbd_v3 stick = pbd_friction_correction(v3(0.003f, -0.001f, 0.004f), n, 0.02f, 0.5f, 0.4f);
	CHECK_NEAR(stick.x, -0.003, 1e-7);
	CHECK_NEAR(stick.y, 0.0, 1e-7);
	CHECK_NEAR(stick.z, -0.004, 1e-7);
	// |dp_t| = 0.05 > mu_s d = 0.01: reduced by mu_k d = 0.008 along -dp_t.
	pbd_v3 slip = pbd_friction_correction(v3(0.03f, 0.0f, 0.04f), n, 0.02f, 0.5f, 0.4f);
	CHECK_NEAR(slip.x, -0.008 * 0.6, 1e-7);
	CHECK_NEAR(slip.z, -0.008 * 0.8, 1e-7);
	pbd_v3 none = pbd_friction_correction(v3(0.03f, 0.0f, 0.04f), n, 0.0f, 0.5f, 0.4f);
	CHECK(none.x == 0.0f && none.z == 0.0f);
	return 0;
}

// Tethers hold a particle within (1 + slack) of its rest distance to the pin and do nothing
// closer in.
static int tether_limit(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	pbd_tethers t = {0};
	float inv_mass[3] = {0.0f, 1.0f, 1.0f};
	uint32_t edges[4] = {0, 1, 1, 2};
	pbd_v3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
	CHECK(pbd_tethers_build(w, &t, 3, inv_mass, 2, edges, rest));
	CHECK(t.count == 2);
	pbd_v4 p[3] = {{0, 0, 0, 0}, {0.5f, 0, 0, 1}, {3, 4, 0, 1}};
	pbd_tethers_solve(p, &t, 0.1f, 0.0f);
	CHECK_NEAR(p[1].x, 0.5, 1e-7);  // within its limit: untouched
	CHECK_NEAR(sqrtf(p[2].x * p[2].x + p[2].y * p[2].y), 2.2, 1e-6);
	CHECK_NEAR(p[2].y / p[2].x, 4.0 / 3.0, 1e-6);  // pulled straight towards the pin
	pbd_tethers_free(w, &t);
	pbd_world_destroy(w);
	return 0;
}

// Collider shapes: signed distances and normals against closed forms.
static int shape_distances(void)
{
	pbd_quat id = {0, 0, 0, 1};
	pbd_v3 n;
	pbd_shape_query sphere = {PBD_SHAPE_SPHERE, 0.5f, 0, {0, 0, 0}};
	CHECK_NEAR(pbd_shape_signed_distance(&sphere, v3(1, 2, 3), id, v3(1, 2, 4), &n), 0.5, 1e-6);
	CHECK_NEAR(n.z, 1.0, 1e-6);
	pbd_shape_query capsule = {PBD_SHAPE_CAPSULE, 0.25f, 1.0f, {0, 0, 0}};
	CHECK_NEAR(pbd_shape_signed_distance(&capsule, v3(0, 0, 0), id, v3(0.5f, 0.7f, 0), &n), 0.25, 1e-6);
	CHECK_NEAR(pbd_shape_signed_distance(&capsule, v3(0, 0, 0), id, v3(0, 1.5f, 0), &n), 0.25, 1e-6);
	CHECK_NEAR(n.y, 1.0, 1e-6);
	pbd_shape_query box = {PBD_SHAPE_BOX, 0, 0, {1, 2, 3}};
	// Rotated a quarter turn about z: local x is world y.
	pbd_quat qz = {0, 0, sinf(0.25f * 3.14159265f), cosf(0.25f * 3.14159265f)};
	CHECK_NEAR(pbd_shape_signed_distance(&box, v3(0, 0, 0), qz, v3(0, 1.5f, 0), &n), 0.5, 1e-5);
	CHECK_NEAR(n.y, 1.0, 1e-5);
	CHECK_NEAR(pbd_shape_signed_distance(&box, v3(0, 0, 0), id, v3(0.5f, 0, 0), &n), -0.5, 1e-6);
	CHECK_NEAR(pbd_shape_signed_distance(&box, v3(0, 0, 0), id, v3(2, 3, 0), &n), sqrt(2.0), 1e-6);
	pbd_shape_query plane = {PBD_SHAPE_PLANE, 0, 0, {0, 0, 0}};
	CHECK_NEAR(pbd_shape_signed_distance(&plane, v3(0, 1, 0), id, v3(5, 0.25f, -7), &n), -0.75, 1e-6);
	return 0;
}

// Air on a crumpled, moving cloth in steady wind: each vertex's force against the formula
// (drag along the normal, lift across the flow, a third of each triangle's to each corner)
// evaluated in double. 30 triangles: the four-at-a-time path and the one-at-a-time rest.
static int air_forces_match_formula(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.wind[0] = 3.0f, wd.settings.wind[1] = -0.5f, wd.settings.wind[2] = 1.0f;
	wd.settings.wind_turbulence = 0.0f;
	pbd_world *w = NULL;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = 6, cd.grid.res_y = 4;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &cd, &id));
	const pbd_body *c = &w->bodies.slots[0];
	CHECK(c->live && c->triangle_count == 30);
	uint32_t seed = 777u;
	for (int i = 0; i < c->count; ++i) {
		float r[6];
		for (int k = 0; k < 6; ++k)
			r[k] = (float)next_random(&seed) / (float)(1u << 24) - 0.5f;
		pbd_v4 *x = &w->particles.x[c->first + i];
		x->x += 0.02f * r[0], x->y += 0.2f * r[1], x->z += 0.02f * r[2];
		w->particles.v[c->first + i] = v3(4.0f * r[3], 4.0f * r[4], 4.0f * r[5]);
	}
	pbd_air_forces(w);
	const pbd_world_settings *s = &w->settings;
	double wind[3] = {s->wind[0], s->wind[1], s->wind[2]}, half_rho = 0.5 * s->air_density;
	static double expect[24][3];
	memset(expect, 0, sizeof expect);
	double largest = 0.0;
	for (int t = 0; t < c->triangle_count; ++t) {
		const uint32_t *tri = c->triangles + 3 * t;
		double q[3][3], vel[3] = {0, 0, 0};
		for (int j = 0; j < 3; ++j) {
			pbd_v4 x = w->particles.x[c->first + tri[j]];
			pbd_v3 v = w->particles.v[c->first + tri[j]];
			q[j][0] = x.x, q[j][1] = x.y, q[j][2] = x.z;
			vel[0] += v.x / 3.0, vel[1] += v.y / 3.0, vel[2] += v.z / 3.0;
		}
		double e1[3], e2[3], n[3], rel[3];
		for (int k = 0; k < 3; ++k)
			e1[k] = q[1][k] - q[0][k], e2[k] = q[2][k] - q[0][k], rel[k] = wind[k] - vel[k];
		n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
		double twice_area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		double rel2 = rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2], rel_len = sqrt(rel2);
		for (int k = 0; k < 3; ++k)
			n[k] /= twice_area;
		double vn = rel[0] * n[0] + rel[1] * n[1] + rel[2] * n[2], area = 0.5 * twice_area;
		for (int k = 0; k < 3; ++k) {
			double drag = half_rho * s->drag_coefficient * area * fabs(vn) * vn * n[k];
			double lift = half_rho * s->lift_coefficient * area * rel_len * vn * (n[k] - vn * rel[k] / rel2);
			for (int j = 0; j < 3; ++j)
				expect[tri[j]][k] += (drag + lift) / 3.0;
		}
	}
	for (int i = 0; i < c->count; ++i)
		for (int k = 0; k < 3; ++k)
			largest = fmax(largest, fabs(expect[i][k]));
	CHECK(largest > 1e-3);  // not vacuous: the air pushes
	for (int i = 0; i < c->count; ++i) {
		pbd_v3 f = w->particles.force[c->first + i];
		CHECK_NEAR(f.x, expect[i][0], 1e-5 * largest);
		CHECK_NEAR(f.y, expect[i][1], 1e-5 * largest);
		CHECK_NEAR(f.z, expect[i][2], 1e-5 * largest);
	}
	pbd_world_destroy(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(distance_returns_to_rest), TEST(distance_kernel_exact), TEST(compliant_link_elongation), TEST(stretch_limit_caps_elongation),
		TEST(bending_hinge_angle),      TEST(bending_weights_flat),  TEST(friction_cone),
		TEST(tether_limit),             TEST(shape_distances),
		TEST(kernels_match_one_at_a_time), TEST(air_forces_match_formula),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
