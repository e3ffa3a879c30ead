// SPDX-License-Identifier: MIT
// Extreme parameters, as a table: each case either simulates sensibly (every position finite,
// nothing below the floor, held vertices where they are held) or is refused with the error
// code the table expects; the world then still steps. The table is printed.
#include <stdlib.h>

#include "test.h"

typedef struct extreme_case {
	const char *name;
	pbd_result expect;  // PBD_OK: simulates; else the error it must be refused with
	pbd_result (*run)(pbd_world *w, pbd_cloth_id *cloth, int *frames, float *dt);
} extreme_case;

// A 16 x 16 cloth hanging from two corners at 1.5 m (a quarter turn about x), over a floor.
static pbd_cloth_def hanging(void)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 16;
	d.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	d.rotation[0] = d.rotation[3] = sqrtf(0.5f);
	d.position[1] = 1.5f;
	return d;
}

// A horizontal 16 x 16 cloth falling from 1 m onto a sphere and the floor.
static pbd_result draped(pbd_world *w, pbd_cloth_id *cloth, const pbd_cloth_material *m)
{
	pbd_collider_def s = pbd_collider_def_default();
	s.type = PBD_SHAPE_SPHERE;
	s.radius = 0.3f;
	s.position[1] = 0.3f;
	pbd_collider_id id;
	pbd_result r = pbd_collider_create(w, &s, &id);
	if (r != PBD_OK)
		return r;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 16;
	d.position[1] = 1.0f;
	if (m)
		d.material = *m;
	return pbd_cloth_create(w, &d, cloth);
}

static pbd_result hang_with(pbd_world *w, pbd_cloth_id *cloth, pbd_cloth_material m)
{
	pbd_cloth_def d = hanging();
	d.material = m;
	return pbd_cloth_create(w, &d, cloth);
}

#define MATERIAL_CASE(fn, field, value)                                                    \
	static pbd_result fn(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)          \
	{                                                                                    \
		(void)frames;                                                                \
		(void)dt;                                                                    \
		pbd_cloth_material m = pbd_cloth_material_default();                         \
		m.field = value;                                                             \
		return hang_with(w, c, m);                                                   \
	}

MATERIAL_CASE(rigid_stretch, stretch_compliance, 0.0f)
MATERIAL_CASE(no_stretch_stiffness, stretch_compliance, 1e6f)
MATERIAL_CASE(rigid_bending, bend_compliance, 0.0f)
MATERIAL_CASE(no_bending_stiffness, bend_compliance, 1e12f)
MATERIAL_CASE(damping_huge, damping, 1e4f)
MATERIAL_CASE(negative_stretch, stretch_compliance, -1.0f)
MATERIAL_CASE(nan_damping, damping, NAN)

#define DRAPE_CASE(fn, field, value)                                                       \
	static pbd_result fn(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)          \
	{                                                                                    \
		(void)frames;                                                                \
		(void)dt;                                                                    \
		pbd_cloth_material m = pbd_cloth_material_default();                         \
		m.field = value;                                                             \
		return draped(w, c, &m);                                                     \
	}

DRAPE_CASE(friction_zero, static_friction, 0.0f)
DRAPE_CASE(friction_ten, static_friction, 10.0f)
DRAPE_CASE(thickness_zero, thickness, 0.0f)
DRAPE_CASE(thickness_ten_cm, thickness, 0.1f)

static pbd_result dt_tiny(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	*dt = 1e-5f;
	*frames = 200;
	pbd_cloth_def d = hanging();
	return pbd_cloth_create(w, &d, c);
}

static pbd_result dt_large(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	*dt = 0.1f;
	*frames = 30;
	return draped(w, c, NULL);
}

static pbd_result substeps_one(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_result r = pbd_world_set_substeps(w, 1);
	return r == PBD_OK ? draped(w, c, NULL) : r;
}

static pbd_result substeps_hundred(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)dt;
	*frames = 30;
	pbd_result r = pbd_world_set_substeps(w, 100);
	return r == PBD_OK ? draped(w, c, NULL) : r;
}

static pbd_result gravity_hundredfold(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_result r = pbd_world_set_gravity(w, (float[3]){0.0f, -981.0f, 0.0f});
	return r == PBD_OK ? draped(w, c, NULL) : r;
}

static pbd_result wind_hundred(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_result r = pbd_world_set_wind(w, (float[3]){100.0f, 0.0f, 30.0f});
	pbd_cloth_def d = hanging();
	return r == PBD_OK ? pbd_cloth_create(w, &d, c) : r;
}

static pbd_result grid_two_by_two(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_cloth_def d = hanging();
	d.grid.res_x = d.grid.res_y = 2;
	return pbd_cloth_create(w, &d, c);
}

static pbd_result grid_too_fine(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_cloth_def d = hanging();
	d.grid.res_x = d.grid.res_y = 5000;
	return pbd_cloth_create(w, &d, c);
}

// 4096 x 4096 (16.8 million particles) in a world whose allocator refuses beyond 256 MiB:
// out of memory, said so, nothing half-made left.
typedef struct budget {
	size_t used, limit;
} budget;

static void *budget_alloc(size_t size, size_t align, void *user)
{
	budget *b = user;
	if (size > b->limit - b->used)
		return NULL;
	void *p = aligned_alloc(align, (size + align - 1) / align * align);
	if (p)
		b->used += size;
	return p;
}

static void budget_free(void *p, size_t size, void *user)
{
	((budget *)user)->used -= size;
	free(p);
}

static budget the_budget = {0, (size_t)256 << 20};

static pbd_result grid_beyond_memory(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_cloth_def d = hanging();
	d.grid.res_x = d.grid.res_y = 4096;
	return pbd_cloth_create(w, &d, c);
}

static pbd_result mesh_case(pbd_world *w, pbd_cloth_id *c, const float *xyz, int nv, const uint32_t *idx, int nt,
			    const float *masses)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.source = PBD_CLOTH_MESH;
	d.mesh.positions = xyz;
	d.mesh.vertex_count = nv;
	d.mesh.indices = idx;
	d.mesh.triangle_count = nt;
	d.masses = masses;
	d.position[1] = 0.5f;
	return pbd_cloth_create(w, &d, c);
}

static pbd_result zero_area_triangle(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	static const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 0};
	static const uint32_t idx[] = {0, 1, 2, 0, 1, 3};  // 0, 1, 3 lie on a line
	return mesh_case(w, c, xyz, 4, idx, 2, NULL);
}

static pbd_result sliver_triangle(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	static const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0.5f, 0, -0.001f};
	static const uint32_t idx[] = {0, 1, 2, 0, 3, 1};  // 1000 : 1
	return mesh_case(w, c, xyz, 4, idx, 2, NULL);
}

static pbd_result duplicate_vertices(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	// Two triangles meeting along an edge whose vertices are written twice (not welded).
	static const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1};
	static const uint32_t idx[] = {0, 1, 2, 3, 5, 4};
	return mesh_case(w, c, xyz, 6, idx, 2, NULL);
}

static pbd_result non_manifold(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	// Three triangles on one edge (a fin), and a fourth touching at a single vertex.
	static const float xyz[] = {0, 0, 0, 1, 0, 0, 0.5f, 0, 1, 0.5f, 0, -1, 0.5f, 1, 0, 1.5f, 0.5f, 0.5f, 1.5f, -0.5f, 0.5f};
	static const uint32_t idx[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 1, 5, 6};
	return mesh_case(w, c, xyz, 7, idx, 4, NULL);
}

static pbd_result mass_ratio_billion(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	static const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1};
	static const uint32_t idx[] = {0, 1, 2, 1, 3, 2};
	static const float masses[] = {1e-6f, 1e3f, 1.0f, 1e-6f};
	return mesh_case(w, c, xyz, 4, idx, 2, masses);
}

static pbd_result dt_negative(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	pbd_cloth_def d = hanging();
	pbd_result r = pbd_cloth_create(w, &d, c);
	*dt = -0.01f;
	return r;
}

static pbd_result collider_teleported(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_result r = draped(w, c, NULL);
	// The sphere jumps 50 m away and back within a step: a kinematic move of 6 km/s.
	pbd_collider_def s = pbd_collider_def_default();
	s.type = PBD_SHAPE_SPHERE;
	s.radius = 0.2f;
	s.position[1] = 0.6f;
	pbd_collider_id id;
	if (r == PBD_OK)
		r = pbd_collider_create(w, &s, &id);
	if (r == PBD_OK)
		r = pbd_collider_set_pose(w, id, (float[3]){50.0f, 0.6f, 0.0f}, (float[4]){0, 0, 0, 1});
	return r;
}

// Three cloths in exactly the same place, pinned along edges and corners (found by the API
// fuzzer): contact points next to a pinned corner gave their free vertices weights of 1e-22,
// and the first step flung them to 1e14 m.
static pbd_result coincident_pinned_cloths(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_result r = PBD_OK;
	for (int k = 0; k < 3 && r == PBD_OK; ++k) {
		pbd_cloth_def d = pbd_cloth_def_default();
		d.grid.res_x = d.grid.res_y = 3;
		d.grid.width = d.grid.height = 3.975f;
		d.grid.pins = 155;
		d.areal_density = 0.795f;
		d.position[1] = 3.975f;
		d.material.thickness = k == 1 ? 0.001f : 0.03975f;
		d.material.self_collision = k != 1;
		pbd_cloth_id id;
		r = pbd_cloth_create(w, &d, k == 0 ? c : &id);
	}
	return r;
}

static pbd_result wind_beyond_limit(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_cloth_def d = hanging();
	pbd_result r = pbd_cloth_create(w, &d, c);
	return r == PBD_OK ? pbd_world_set_wind(w, (float[3]){2000.0f, 0.0f, 0.0f}) : r;
}

static pbd_result density_below_limit(pbd_world *w, pbd_cloth_id *c, int *frames, float *dt)
{
	(void)frames;
	(void)dt;
	pbd_cloth_def d = hanging();
	pbd_result r = pbd_cloth_create(w, &d, c);
	return r == PBD_OK ? pbd_cloth_set_areal_density(w, *c, 1e-37f) : r;
}

static int lowest_and_finite(const pbd_world *w, pbd_cloth_id c, float *lowest)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, c, &n);
	*lowest = INFINITY;
	for (int i = 0; x && i < n; ++i) {
		for (int k = 0; k < 3; ++k)
			if (!isfinite(x[3 * i + k]))
				return 0;
		*lowest = fminf(*lowest, x[3 * i + 1]);
	}
	return 1;
}

static int extreme_parameters_table(void)
{
	static const extreme_case cases[] = {
		{"stretch compliance 0 (rigid)", PBD_OK, rigid_stretch},
		{"stretch compliance 1e6 (no stiffness)", PBD_OK, no_stretch_stiffness},
		{"bend compliance 0 (rigid)", PBD_OK, rigid_bending},
		{"bend compliance 1e12 (none)", PBD_OK, no_bending_stiffness},
		{"damping 1e4 /s", PBD_OK, damping_huge},
		{"friction 0 on a sphere", PBD_OK, friction_zero},
		{"friction 10 on a sphere", PBD_OK, friction_ten},
		{"thickness 0", PBD_OK, thickness_zero},
		{"thickness 0.1 m", PBD_OK, thickness_ten_cm},
		{"dt 1e-5 s", PBD_OK, dt_tiny},
		{"dt 0.1 s", PBD_OK, dt_large},
		{"substeps 1", PBD_OK, substeps_one},
		{"substeps 100", PBD_OK, substeps_hundred},
		{"gravity x100", PBD_OK, gravity_hundredfold},
		{"wind 104 m/s", PBD_OK, wind_hundred},
		{"grid 2 x 2", PBD_OK, grid_two_by_two},
		{"sliver triangle 1000:1", PBD_OK, sliver_triangle},
		{"duplicate vertices", PBD_OK, duplicate_vertices},
		{"non-manifold (fin + bow tie)", PBD_OK, non_manifold},
		{"masses 1e-6 .. 1e3 kg", PBD_OK, mass_ratio_billion},
		{"sphere teleported 50 m", PBD_OK, collider_teleported},
		{"three coincident pinned cloths", PBD_OK, coincident_pinned_cloths},
		{"wind 2000 m/s", PBD_ERR_OUT_OF_RANGE, wind_beyond_limit},
		{"areal density 1e-37 kg/m^2", PBD_ERR_OUT_OF_RANGE, density_below_limit},
		{"grid 5000 x 5000", PBD_ERR_BAD_COUNT, grid_too_fine},
		{"grid 4096 x 4096, 256 MiB", PBD_ERR_OUT_OF_MEMORY, grid_beyond_memory},
		{"zero-area triangle", PBD_ERR_DEGENERATE_TRIANGLE, zero_area_triangle},
		{"stretch compliance -1", PBD_ERR_NEGATIVE, negative_stretch},
		{"damping NaN", PBD_ERR_NOT_FINITE, nan_damping},
		{"dt -0.01 s", PBD_ERR_NON_POSITIVE, dt_negative},
	};
	int failed = 0;
	fprintf(stderr, "  %-40s %-28s %s\n", "case", "outcome", "figures");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		const extreme_case *e = &cases[i];
		pbd_world_def wd = pbd_world_def_default();
		if (e->run == grid_beyond_memory)
			wd.allocator = (pbd_allocator){budget_alloc, budget_free, &the_budget};
		pbd_world *w;
		CHECK_OK(pbd_world_create(&wd, &w));
		pbd_collider_def floor = pbd_collider_def_default();
		pbd_collider_id floor_id;
		CHECK_OK(pbd_collider_create(w, &floor, &floor_id));
		pbd_cloth_id cloth = {0, 0};
		int frames = 120;
		float dt = 1.0f / 60.0f;
		pbd_result r = e->run(w, &cloth, &frames, &dt);
		for (int f = 0; r == PBD_OK && f < frames; ++f)
			r = pbd_world_step(w, dt);
		char outcome[64], figures[160] = "";
		int ok = r == e->expect;
		if (r == PBD_OK) {
			float lowest;
			int finite = lowest_and_finite(w, cloth, &lowest);
			pbd_world_stats st = pbd_world_get_stats(w);
			// The floor holds (its contacts keep half the thickness; 1 mm of slack).
			ok = ok && finite && lowest > -1e-3f;
			snprintf(outcome, sizeof outcome, "simulates %s", finite ? "(finite)" : "(NOT FINITE)");
			snprintf(figures, sizeof figures, "%d frames of %g s; lowest y %.4f m; worst edge strain %.1f%%", frames,
				 (double)dt, (double)lowest, 100.0 * st.max_stretch_error);
		} else {
			snprintf(outcome, sizeof outcome, "refused: %s", pbd_result_string(r));
			snprintf(figures, sizeof figures, "\"%s\"", pbd_world_last_error(w));
			// A refusal leaves the world stepping.
			for (int f = 0; f < 10; ++f)
				ok = ok && pbd_world_step(w, 1.0f / 60.0f) == PBD_OK;
		}
		fprintf(stderr, "  %-40s %-28s %s%s\n", e->name, outcome, figures, ok ? "" : "   <-- FAILED");
		failed |= !ok;
		pbd_world_destroy(w);
	}
	CHECK(the_budget.used == 0);
	return failed;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		DEEP_TEST(extreme_parameters_table),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
