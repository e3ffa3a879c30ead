// SPDX-License-Identifier: MIT
// Whole-world behaviour: substep independence, contact, friction, momentum, air, scenes.
#include <stdbool.h>
#include <stdlib.h>

#include "scenes.h"
#include "test.h"

static const float kDt = 1.0f / 60.0f;
static const float kPi = 3.14159265358979f;

static void center_of_mass(const pbd_world *w, pbd_cloth_id id, double out[3])
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, id, &n);
	out[0] = out[1] = out[2] = 0.0;
	for (int i = 0; i < n; ++i)
		for (int k = 0; k < 3; ++k)
			out[k] += x[3 * i + k] / n;  // equal masses on a uniform grid's interior; see callers
}

// Mass-weighted mean velocity from the public readback.
static void momentum_velocity(const pbd_world *w, pbd_cloth_id id, double out[3])
{
	int n = 0;
	const float *v = pbd_cloth_velocities(w, id, &n);
	double mass = 0.0;
	out[0] = out[1] = out[2] = 0.0;
	for (int i = 0; i < n; ++i) {
		float inv = 0.0f;
		pbd_cloth_get_inverse_mass(w, id, i, &inv);
		double m = 1.0 / inv;
		mass += m;
		for (int k = 0; k < 3; ++k)
			out[k] += m * v[3 * i + k];
	}
	for (int k = 0; k < 3; ++k)
		out[k] /= mass;
}

// A stretchy curtain hanging from its whole top edge, settled for 10 s; returns its
// positions (caller frees) and the mean drop of the bottom edge below where it started.
static float *hanging_curtain(int substeps, int iterations, int *count, double *drop)
{
	pbd_world *w = test_world_vacuum();
	if (!w)
		return NULL;
	pbd_world_set_substeps(w, substeps);
	pbd_world_set_iterations(w, iterations);
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 16;
	d.grid.pins = PBD_PIN_EDGE_V0;
	d.rotation[0] = sinf(0.25f * kPi);  // +90 degrees about x: row 0 on top
	d.rotation[3] = cosf(0.25f * kPi);
	d.position[1] = 1.5f;
	// A rubber sheet that stretches by about 60% under its own weight; bending as soft as
	// real fabric. In this regime the compliance, not the solver, sets the shape.
	d.material.stretch_compliance = 1.0f;
	d.material.shear_compliance = 1.0f;
	d.material.bend_compliance = 1e5f;
	d.material.tether_slack = -1.0f;
	d.material.stretch_limit = 0.0f;  // rubber stretches
	d.material.damping = 3.0f;
	pbd_cloth_id id;
	float *out = NULL;
	if (pbd_cloth_create(w, &d, &id) == PBD_OK) {
		for (int f = 0; f < 600; ++f)
			pbd_world_step(w, kDt);
		const float *x = pbd_cloth_positions(w, id, count);
		out = malloc(sizeof(float) * 3 * (size_t)*count);
		memcpy(out, x, sizeof(float) * 3 * (size_t)*count);
		*drop = 0.0;
		for (int i = 0; i < 16; ++i)
			*drop += (1.0 - x[3 * (*count - 16 + i) + 1]) / 16.0;
	}
	pbd_world_destroy(w);
	return out;
}

static int compare_curtains(int substeps_a, int iterations_a, int substeps_b, int iterations_b)
{
	int n = 0;
	double drop_a = 0.0, drop_b = 0.0;
	float *a = hanging_curtain(substeps_a, iterations_a, &n, &drop_a);
	float *b = hanging_curtain(substeps_b, iterations_b, &n, &drop_b);
	CHECK(a && b);
	double worst = 0.0;
	for (int i = 0; i < 3 * n; ++i)
		worst = fmax(worst, fabs(a[i] - b[i]));
	free(a);
	free(b);
	fprintf(stderr, "%dx%d: bottom drops %.4f m, %dx%d: %.4f m; largest vertex difference %.5f m\n", substeps_a,
		iterations_a, drop_a, substeps_b, iterations_b, drop_b, worst);
	CHECK(drop_a > 0.05 && drop_b > 0.05);  // the compliance shows
	// The stretch under gravity agrees within 1%, and no vertex is off by more than 1% of it.
	CHECK_NEAR(drop_a, drop_b, 0.01 * drop_b);
	CHECK(worst < 0.01 * drop_b);
	return 0;
}

// The rest shape does not depend on the number of substeps: XPBD compliance sets the
// stiffness. (One pass per substep converges to the compliance only while compliance / h^2
// is not small next to the inverse masses; stiffer than that, the stretch that is left is
// set by the substeps, which is why the defaults also use tethers.)
static int hang_shape_independent_of_substeps(void) { return compare_curtains(5, 1, 20, 1); }

// Nor on the number of iterations.
static int hang_shape_independent_of_iterations(void) { return compare_curtains(10, 1, 10, 4); }

// The drop scene: no vertex ever below the floor (beyond 0.1 mm), and the cloth ends at
// rest, lying at its half thickness.
static int drop_never_below_floor(void)
{
	const demo_scene *scene = demo_scene_find("drop");
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, NULL, &w, &st, err, sizeof err));
	float lowest = INFINITY, speed = 0.0f;
	for (int f = 0; f < 300; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		int n = 0;
		const float *x = pbd_cloth_positions(w, st.cloths[0], &n);
		const float *v = pbd_cloth_velocities(w, st.cloths[0], NULL);
		speed = 0.0f;
		for (int i = 0; i < n; ++i) {
			lowest = fminf(lowest, x[3 * i + 1]);
			speed = fmaxf(speed, sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
		}
	}
	fprintf(stderr, "lowest y %.6f m, final max speed %.2g m/s\n", lowest, speed);
	CHECK(lowest >= -1e-4f);
	CHECK(lowest >= 0.005f - 1e-3f);  // half the default thickness, less 1 mm
	CHECK(speed < 1e-3f);
	pbd_world_destroy(w);
	return 0;
}

// Runs the incline with the given friction and no air; returns the slide distance along the
// slope after `seconds` through *distance.
static int incline_slide(float mu_s, float mu_k, float seconds, double *distance)
{
	const demo_scene *scene = demo_scene_find("incline");
	pbd_world_settings s = pbd_world_settings_default();
	s.air_density = 0.0f;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, &s, &w, &st, err, sizeof err));
	char set[64];
	snprintf(set, sizeof set, "static_friction=%g", (double)mu_s);
	CHECK_OK(demo_param_apply(w, &st, set, err, sizeof err));
	snprintf(set, sizeof set, "kinetic_friction=%g", (double)mu_k);
	CHECK_OK(demo_param_apply(w, &st, set, err, sizeof err));
	double c0[3], c1[3];
	center_of_mass(w, st.cloths[0], c0);
	int frames = (int)lroundf(seconds / kDt);
	for (int f = 0; f < frames; ++f)
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
	center_of_mass(w, st.cloths[0], c1);
	double angle = st.values[0] * kPi / 180.0;
	// Down the slope is (-cos a, -sin a, 0).
	*distance = -(c1[0] - c0[0]) * cos(angle) - (c1[1] - c0[1]) * sin(angle);
	pbd_world_destroy(w);
	return 0;
}

// Static friction above tan(angle) holds the cloth.
static int incline_static_friction_holds(void)
{
	double d = 0.0;
	if (incline_slide(0.5f, 0.4f, 3.0f, &d))
		return 1;
	fprintf(stderr, "slid %.6f m in 3 s with mu_s 0.5 > tan 20 deg\n", d);
	CHECK(fabs(d) < 1e-3);
	return 0;
}

// Below tan(angle) it slides with a = g (sin a - mu_k cos a), within 5%.
static int incline_kinetic_friction_slides(void)
{
	const float mu_k = 0.15f, t = 2.0f;
	double d = 0.0;
	if (incline_slide(0.2f, mu_k, t, &d))
		return 1;
	double a = 20.0 * kPi / 180.0;
	double expected = 0.5 * 9.81 * (sin(a) - mu_k * cos(a)) * t * t;
	fprintf(stderr, "slid %.4f m in %.1f s, expected %.4f m\n", d, (double)t, expected);
	CHECK_NEAR(d, expected, 0.05 * expected);
	return 0;
}

// Without gravity or air a free cloth keeps its centre-of-mass velocity, through a
// deformation (it starts crumpled by a kick to half its vertices) and damping.
static int free_cloth_keeps_momentum(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	float zero[3] = {0, 0, 0};
	CHECK_OK(pbd_world_set_gravity(w, zero));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 12;
	d.velocity[0] = 0.3f;
	d.velocity[1] = -0.1f;
	d.velocity[2] = 0.2f;
	d.material.damping = 5.0f;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &d, &id));
	// Kick: drag one corner around for a few steps, then let go.
	for (int f = 0; f < 5; ++f) {
		float target[3] = {-0.5f, 0.02f * (float)(f + 1), -0.5f};
		CHECK_OK(pbd_cloth_pin_vertex(w, id, 0, target));
		CHECK_OK(pbd_world_step(w, kDt));
	}
	CHECK_OK(pbd_cloth_release_vertex(w, id, 0));
	double v0[3], v1[3];
	momentum_velocity(w, id, v0);
	for (int f = 0; f < 120; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	momentum_velocity(w, id, v1);
	fprintf(stderr, "mean velocity (%.6f %.6f %.6f) -> (%.6f %.6f %.6f)\n", v0[0], v0[1], v0[2], v1[0], v1[1], v1[2]);
	// Float positions round every substep's motion to about 1e-7 m; over 1200 substeps and
	// 144 particles that leaves a random walk of a few 1e-4 m/s in the mean velocity. Any real
	// leak is far larger: plain (not momentum-preserving) damping at 5/s would remove 99.99%.
	for (int k = 0; k < 3; ++k)
		CHECK_NEAR(v1[k], v0[k], 2e-3);
	CHECK(fabs(v0[1]) > 0.1);  // the kick really moved it (from -0.1 m/s)
	pbd_world_destroy(w);
	return 0;
}

// A horizontal cloth falling through still air reaches the terminal speed where the normal
// pressure 0.5 rho C_d v^2 carries its weight per area: v = sqrt(2 sigma g / (rho C_d)).
static int air_terminal_velocity(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 8;
	d.position[1] = 100.0f;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &d, &id));
	for (int f = 0; f < 240; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	double v[3];
	momentum_velocity(w, id, v);
	double expected = sqrt(2.0 * d.areal_density * 9.81 / (wd.settings.air_density * wd.settings.drag_coefficient));
	fprintf(stderr, "falling at %.4f m/s, terminal %.4f m/s\n", -v[1], expected);
	CHECK_NEAR(-v[1], expected, 0.02 * expected);
	pbd_world_destroy(w);
	return 0;
}

// Wind pushes a hanging cloth downwind and keeps it moving (a flag flutters, it does not
// settle into a frozen pose).
static int wind_blows_cloth(void)
{
	const demo_scene *scene = demo_scene_find("hang");
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	demo_scene_options o = {16};
	CHECK_OK(demo_scene_load(scene, &o, NULL, &w, &st, err, sizeof err));
	double c0[3], c1[3];
	center_of_mass(w, st.cloths[0], c0);
	float wind[3] = {0.0f, 0.0f, 8.0f};  // across the cloth's plane
	CHECK_OK(pbd_world_set_wind(w, wind));
	for (int f = 0; f < 240; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	center_of_mass(w, st.cloths[0], c1);
	// Still moving after 4 s: the largest speed over the last second.
	float moving = 0.0f;
	for (int f = 0; f < 60; ++f) {
		CHECK_OK(pbd_world_step(w, kDt));
		int n = 0;
		const float *v = pbd_cloth_velocities(w, st.cloths[0], &n);
		for (int i = 0; i < 3 * n; ++i)
			moving = fmaxf(moving, fabsf(v[i]));
	}
	fprintf(stderr, "centre moved %.3f m downwind; still moving at %.3f m/s\n", c1[2] - c0[2], (double)moving);
	CHECK(c1[2] - c0[2] > 0.1);
	CHECK(moving > 0.1f);
	pbd_world_destroy(w);
	return 0;
}

// A sphere swept through a hanging curtain: the step takes more substeps while the sphere is
// near and fast (its travel per step over a quarter of the shortest edge), at most
// max_substeps, and settings.substeps again once the curtain is quiet; with max_substeps at or
// below substeps, always settings.substeps.
static int substeps_taken(int max_substeps, float speed, int *most, int *last)
{
	pbd_world *w = test_world_vacuum();
	if (!w)
		return 1;
	pbd_world_settings s = pbd_world_get_settings(w);
	s.substeps = 2;
	s.max_substeps = max_substeps;
	CHECK_OK(pbd_world_set_settings(w, &s));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 16;  // edges of 1/15 m
	d.grid.pins = PBD_PIN_EDGE_V0;
	d.rotation[0] = sinf(0.25f * kPi);  // row 0 on top, in the plane z = 0
	d.rotation[3] = cosf(0.25f * kPi);
	d.position[1] = 1.0f;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &d, &id));
	pbd_collider_def c = pbd_collider_def_default();
	c.type = PBD_SHAPE_SPHERE;
	c.radius = 0.1f;
	c.position[1] = 0.8f, c.position[2] = -0.5f;
	pbd_collider_id sphere;
	CHECK_OK(pbd_collider_create(w, &c, &sphere));
	*most = 0;
	for (int f = 0; f < 120; ++f) {
		float z = fminf(-0.5f + speed * (float)(f + 1) * kDt, 0.5f);
		CHECK_OK(pbd_collider_set_pose(w, sphere, (float[3]){0.0f, 0.8f, z}, (float[4]){0, 0, 0, 1}));
		CHECK_OK(pbd_world_step(w, kDt));
		*last = pbd_world_get_stats(w).substeps_taken;
		*most = *last > *most ? *last : *most;
		CHECK(*last >= 2 && *last <= (max_substeps > 2 ? max_substeps : 2));
	}
	pbd_world_destroy(w);
	return 0;
}

static int fast_collider_takes_more_substeps(void)
{
	int most, last;
	// 6 m/s: 10 cm a step, 6 times a quarter of an edge (1.7 cm): 6 substeps or more near it.
	if (substeps_taken(128, 6.0f, &most, &last))
		return 1;
	fprintf(stderr, "6 m/s: most %d substeps, %d at the end\n", most, last);
	CHECK(most >= 6 && most <= 128);
	CHECK(last == 2);  // the sphere stopped a second ago: back to the settings' count
	if (substeps_taken(4, 6.0f, &most, &last))
		return 1;
	CHECK(most == 4);
	if (substeps_taken(0, 6.0f, &most, &last))
		return 1;
	CHECK(most == 2);
	// Slow enough for the substeps the settings give: no more.
	if (substeps_taken(128, 0.3f, &most, &last))
		return 1;
	CHECK(most == 2);
	return 0;
}

// Every scene runs 10 simulated seconds without NaN. The contact scenes run at 16 x 16 here:
// at their default resolution self-contact is still too slow for a unit test. The speed bound
// is asserted for the scenes without self-contact only: under heavy self-contact (twist)
// contact corrections still show up as jitter of several m/s, a known open problem.
// Under AddressSanitizer the scenes run 5 s: the optimised build keeps the 10 s, and the
// sanitizers look for memory errors, which the first seconds of each scene already reach.
#if defined(__SANITIZE_ADDRESS__)
enum { kFiniteFrames = 300 };
#else
enum { kFiniteFrames = 600 };
#endif
static int scenes_stay_finite(void)
{
	for (int s = 0; s < demo_scene_count(); ++s) {
		const demo_scene *scene = demo_scene_at(s);
		const char *name = scene->name;
		bool heavy = strcmp(name, "drape") == 0 || strcmp(name, "fold") == 0 || strcmp(name, "twist") == 0 ||
			     strcmp(name, "stack") == 0 || strcmp(name, "bullet") == 0;
		demo_scene_options o = {heavy ? 16 : 0};
		pbd_world *w;
		demo_scene_state st;
		char err[256];
		CHECK_OK(demo_scene_load(scene, &o, NULL, &w, &st, err, sizeof err));
		float worst = 0.0f;
		for (int f = 0; f < kFiniteFrames; ++f) {
			CHECK_OK(demo_scene_step(scene, w, &st, kDt));
			for (int c = 0; c < st.cloth_count + st.particle_group_count; ++c) {
				int n = 0;
				const float *x, *v;
				if (c < st.cloth_count) {
					x = pbd_cloth_positions(w, st.cloths[c], &n);
					v = pbd_cloth_velocities(w, st.cloths[c], NULL);
				} else {
					x = pbd_particles_positions(w, st.particles[c - st.cloth_count], &n);
					v = pbd_particles_velocities(w, st.particles[c - st.cloth_count], NULL);
				}
				for (int i = 0; i < 3 * n; ++i) {
					CHECK(isfinite(x[i]) && isfinite(v[i]));
					worst = fmaxf(worst, fabsf(v[i]));
				}
			}
		}
		fprintf(stderr, "%s: largest velocity component %.3f m/s\n", name, worst);
		// hang, drop and incline fall at most 1 m: free fall from 1 m reaches 4.4 m/s.
		if (strcmp(name, "hang") == 0 || strcmp(name, "drop") == 0 || strcmp(name, "incline") == 0)
			CHECK(worst < 5.0f);
		pbd_world_destroy(w);
	}
	return 0;
}

// The hanging cloth at default settings stretches less than 10% anywhere.
static int hang_strain_below_ten_percent(void)
{
	const demo_scene *scene = demo_scene_find("hang");
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, NULL, &w, &st, err, sizeof err));
	for (int f = 0; f < 300; ++f)
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
	pbd_world_stats stats = pbd_world_get_stats(w);
	fprintf(stderr, "max stretch %.2f%%\n", 100.0 * stats.max_stretch_error);
	CHECK(stats.max_stretch_error < 0.10f);
	CHECK(stats.max_stretch_error > 0.0f);  // it is measured, not a constant
	pbd_world_destroy(w);
	return 0;
}

// The grid's vertex indices, positions and triangle order are as the header documents them.
static int grid_layout_as_documented(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	pbd_cloth_def d = pbd_cloth_def_default();
	const int nx = 5, ny = 4;
	d.grid.res_x = nx;
	d.grid.res_y = ny;
	d.grid.width = 2.0f;
	d.grid.height = 0.9f;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &d, &id));
	int n = 0, t = 0;
	const float *x = pbd_cloth_positions(w, id, &n);
	const uint32_t *tri = pbd_cloth_indices(w, id, &t);
	CHECK(n == nx * ny && t == 2 * (nx - 1) * (ny - 1));
	for (int j = 0; j < ny; ++j)
		for (int i = 0; i < nx; ++i) {
			const float *p = x + 3 * (j * nx + i);
			CHECK_NEAR(p[0], ((double)i / (nx - 1) - 0.5) * 2.0, 1e-6);
			CHECK_NEAR(p[1], 0.0, 1e-6);
			CHECK_NEAR(p[2], ((double)j / (ny - 1) - 0.5) * 0.9, 1e-6);
		}
	for (int j = 0; j + 1 < ny; ++j)
		for (int i = 0; i + 1 < nx; ++i) {
			uint32_t a = (uint32_t)(j * nx + i), b = a + 1, c = a + (uint32_t)nx, dd = c + 1;
			const uint32_t *k = tri + 6 * (j * (nx - 1) + i);
			uint32_t even[6] = {a, c, dd, a, dd, b}, odd[6] = {a, c, b, b, c, dd};
			CHECK(memcmp(k, (i + j) % 2 == 0 ? even : odd, sizeof even) == 0);
		}
	pbd_world_destroy(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(hang_shape_independent_of_substeps), TEST(hang_shape_independent_of_iterations),
		TEST(drop_never_below_floor),             TEST(incline_static_friction_holds),
		TEST(incline_kinetic_friction_slides),    TEST(free_cloth_keeps_momentum),
		TEST(air_terminal_velocity),              TEST(wind_blows_cloth),
		DEEP_TEST(scenes_stay_finite),                 TEST(hang_strain_below_ten_percent),
		TEST(grid_layout_as_documented),          TEST(fast_collider_takes_more_substeps),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
