// SPDX-License-Identifier: MIT
// Cloth creation (grid or triangle mesh), validation, destruction, setters and readback.
#include <stdlib.h>
#include <string.h>

#include "mesh_topology.h"
#include "world.h"

// Everything a new cloth needs, built before the world is touched so that a failure leaves
// the world as it was.
// The mesh facts the constraint kinds are built from (constraints.h).

static void build_free(pbd_world *w, pbd_cloth_mesh *b)
{
	size_t nv = (size_t)b->vertex_count, nt = (size_t)b->triangle_count, ne = (size_t)b->edge_count;
	pbd_free_array(w, b->rest, nv, sizeof *b->rest);
	pbd_free_array(w, b->world_pos, nv, sizeof *b->world_pos);
	pbd_free_array(w, b->triangles, nt * 3, sizeof *b->triangles);
	pbd_free_array(w, b->inv_mass, nv, sizeof *b->inv_mass);
	// Edge arrays are sized for the upper bound 3 * triangles.
	pbd_free_array(w, b->edges, nt * 3 * 2, sizeof *b->edges);
	pbd_free_array(w, b->edge_area, nt * 3, sizeof *b->edge_area);
	pbd_free_array(w, b->edge_opposite, nt * 3 * 2, sizeof *b->edge_opposite);
	pbd_free_array(w, b->edge_manifold, nt * 3, sizeof *b->edge_manifold);
	pbd_free_array(w, b->shear, (size_t)b->shear_count * 2, sizeof *b->shear);
	(void)ne;
	memset(b, 0, sizeof *b);
}

static pbd_result check_def_common(pbd_world *w, const pbd_cloth_def *def)
{
	if (def->internal_cookie != PBD_COOKIE)
		return pbd_fail(w, PBD_ERR_BAD_DEF, "cloth def was not made by pbd_cloth_def_default()");
	if (!pbd_finite_n(def->position, 3) || !pbd_finite_n(def->rotation, 4) || !pbd_finite_n(def->velocity, 3))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "cloth pose or velocity is NaN, infinite or beyond 1e12");
	pbd_result r = pbd_check_coordinates(w, def->position, 3, "cloth position");
	if (r == PBD_OK)
		r = pbd_check_velocity(w, def->velocity, "cloth velocity");
	if (r != PBD_OK)
		return r;
	const float *q = def->rotation;
	if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f)
		return pbd_fail(w, PBD_ERR_ZERO_NORMAL, "cloth rotation quaternion has zero length");
	if (def->masses == NULL) {
		if (!isfinite(def->areal_density))
			return pbd_fail(w, PBD_ERR_NOT_FINITE, "areal density is NaN or infinite");
		if (def->areal_density <= 0.0f)
			return pbd_fail(w, PBD_ERR_NON_POSITIVE, "areal density must be > 0, got %g", (double)def->areal_density);
	}
	if (def->pinned_count < 0 || (def->pinned_count > 0 && def->pinned == NULL))
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "pinned_count is %d with pinned = %p", def->pinned_count,
				(const void *)def->pinned);
	return pbd_check_material(w, &def->material);
}

pbd_result pbd_check_material(pbd_world *w, const pbd_cloth_material *m)
{
	const float values[] = {m->stretch_compliance, m->shear_compliance, m->bend_compliance, m->damping,
				m->static_friction, m->kinetic_friction, m->thickness, m->tether_slack, m->tear_strain,
				m->stretch_limit};
	if (!pbd_finite_n(values, PBD_ARRAY_COUNT(values)))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "cloth material contains NaN or infinity");
	static const char *const names[] = {"stretch compliance", "shear compliance", "bend compliance", "damping",
					    "static friction", "kinetic friction", "thickness", NULL, "tear strain",
					    "stretch limit"};
	for (int i = 0; i < PBD_ARRAY_COUNT(names); ++i)
		if (names[i] && values[i] < 0.0f)
			return pbd_fail(w, PBD_ERR_NEGATIVE, "%s must be >= 0, got %g", names[i], (double)values[i]);
	// A size like any other: squares and fourth powers of the contact distance must stay finite.
	if (m->thickness > PBD_MAX_COORDINATE)
		return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "thickness %g m is beyond the limit of %g m", (double)m->thickness,
				(double)PBD_MAX_COORDINATE);
	return PBD_OK;
}

static pbd_result build_grid(pbd_world *w, const pbd_cloth_def *def, pbd_cloth_mesh *b)
{
	int nx = def->grid.res_x, ny = def->grid.res_y;
	if (nx < 2 || ny < 2 || nx > PBD_MAX_GRID_RES || ny > PBD_MAX_GRID_RES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "grid resolution must be 2..%d per side, got %d x %d",
				PBD_MAX_GRID_RES, nx, ny);
	if ((int64_t)nx * ny > PBD_MAX_PARTICLES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "grid of %d x %d has more than %d vertices", nx, ny, PBD_MAX_PARTICLES);
	if (!pbd_finite_n(&def->grid.width, 1) || !pbd_finite_n(&def->grid.height, 1))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "grid size is NaN, infinite or beyond 1e12");
	if (def->grid.width > PBD_MAX_COORDINATE || def->grid.height > PBD_MAX_COORDINATE)
		return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "grid size %g x %g m is beyond the limit of %g m",
				(double)def->grid.width, (double)def->grid.height, (double)PBD_MAX_COORDINATE);
	if (def->grid.width <= 0.0f || def->grid.height <= 0.0f)
		return pbd_fail(w, PBD_ERR_NON_POSITIVE, "grid size must be > 0, got %g x %g", (double)def->grid.width,
				(double)def->grid.height);
	b->vertex_count = nx * ny;
	b->triangle_count = 2 * (nx - 1) * (ny - 1);
	b->rest = pbd_alloc_array(w, (size_t)b->vertex_count, sizeof *b->rest);
	b->triangles = pbd_alloc_array(w, (size_t)b->triangle_count * 3, sizeof *b->triangles);
	b->shear_count = def->grid.shear_diagonals ? (nx - 1) * (ny - 1) : 0;
	if (b->shear_count)
		b->shear = pbd_alloc_array(w, (size_t)b->shear_count * 2, sizeof *b->shear);
	if (!b->rest || !b->triangles || (b->shear_count && !b->shear))
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d grid", nx, ny);
	for (int j = 0; j < ny; ++j)
		for (int i = 0; i < nx; ++i)
			b->rest[j * nx + i] = v3(((float)i / (float)(nx - 1) - 0.5f) * def->grid.width, 0.0f,
						 ((float)j / (float)(ny - 1) - 0.5f) * def->grid.height);
	// Alternate the diagonal in a checkerboard so the mesh has no preferred shear direction.
	uint32_t *t = b->triangles, *s = b->shear;
	for (int j = 0; j + 1 < ny; ++j) {
		for (int i = 0; i + 1 < nx; ++i) {
			uint32_t a = (uint32_t)(j * nx + i), bb = a + 1, c = a + (uint32_t)nx, d = c + 1;
			if (((i + j) & 1) == 0) {
				uint32_t tri[6] = {a, c, d, a, d, bb};
				memcpy(t, tri, sizeof tri);
				if (s) { s[0] = bb; s[1] = c; s += 2; }
			} else {
				uint32_t tri[6] = {a, c, bb, bb, c, d};
				memcpy(t, tri, sizeof tri);
				if (s) { s[0] = a; s[1] = d; s += 2; }
			}
			t += 6;
		}
	}
	return PBD_OK;
}

// Two triangles on the same three vertices would fight each other in every contact and
// bending constraint.
static pbd_result refuse_repeated_triangle(pbd_world *w, const uint32_t *tri, int nt, int nv)
{
	size_t bytes = pbd_mesh_workspace_bytes(nt, nv);
	void *workspace = bytes ? pbd_alloc(w, bytes) : NULL;
	if (!workspace)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory to check %d triangles", nt);
	int earlier = -1, repeat = pbd_mesh_find_repeated_triangle(tri, nt, workspace, &earlier);
	pbd_free(w, workspace, bytes);
	if (repeat >= 0)
		return pbd_fail(w, PBD_ERR_DUPLICATE_TRIANGLE, "triangle %d (%u %u %u) has the vertices of triangle %d",
				repeat, tri[3 * repeat], tri[3 * repeat + 1], tri[3 * repeat + 2], earlier);
	return PBD_OK;
}

static pbd_result build_mesh(pbd_world *w, const pbd_cloth_def *def, pbd_cloth_mesh *b)
{
	int nv = def->mesh.vertex_count, nt = def->mesh.triangle_count;
	if (!def->mesh.positions || !def->mesh.indices)
		return pbd_fail(w, PBD_ERR_NULL_ARGUMENT, "mesh positions and indices are required");
	if (nv < 3 || nv > PBD_MAX_PARTICLES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "mesh vertex count must be 3..%d, got %d", PBD_MAX_PARTICLES, nv);
	if (nt < 1 || nt > 4 * PBD_MAX_PARTICLES)
		return pbd_fail(w, PBD_ERR_BAD_COUNT, "mesh triangle count must be 1..%d, got %d", 4 * PBD_MAX_PARTICLES, nt);
	for (int i = 0; i < nv * 3; ++i)
		if (!pbd_finite_n(&def->mesh.positions[i], 1))
			return pbd_fail(w, PBD_ERR_NOT_FINITE, "mesh vertex %d has a coordinate that is NaN, infinite or beyond 1e12",
					i / 3);
	for (int i = 0; i < nv * 3; ++i)
		if (fabsf(def->mesh.positions[i]) > PBD_MAX_COORDINATE)
			return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "mesh vertex %d has a coordinate of %g m, beyond the limit of %g m",
					i / 3, (double)def->mesh.positions[i], (double)PBD_MAX_COORDINATE);
	for (int t = 0; t < nt; ++t) {
		const uint32_t *f = def->mesh.indices + 3 * t;
		for (int k = 0; k < 3; ++k)
			if (f[k] >= (uint32_t)nv)
				return pbd_fail(w, PBD_ERR_INDEX_OUT_OF_RANGE, "triangle %d names vertex %u of %d", t, f[k], nv);
		if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2])
			return pbd_fail(w, PBD_ERR_REPEATED_INDEX, "triangle %d repeats a vertex (%u %u %u)", t, f[0], f[1], f[2]);
		pbd_v3 a = v3_load(def->mesh.positions + 3 * f[0]);
		pbd_v3 e1 = v3_sub(v3_load(def->mesh.positions + 3 * f[1]), a);
		pbd_v3 e2 = v3_sub(v3_load(def->mesh.positions + 3 * f[2]), a);
		float longest2 = fmaxf(fmaxf(v3_len2(e1), v3_len2(e2)), v3_len2(v3_sub(e2, e1)));
		float twice_area = v3_len(v3_cross(e1, e2));
		// Relative test: a sliver whose height is below 1e-6 of its longest edge has no
		// usable normal or bending weights.
		if (!(twice_area > 1e-6f * longest2) || !(longest2 > 1e-20f))
			return pbd_fail(w, PBD_ERR_DEGENERATE_TRIANGLE, "triangle %d (%u %u %u) has zero area", t, f[0], f[1], f[2]);
	}
	pbd_result r = refuse_repeated_triangle(w, def->mesh.indices, nt, nv);
	if (r != PBD_OK)
		return r;
	b->vertex_count = nv;
	b->triangle_count = nt;
	b->rest = pbd_alloc_array(w, (size_t)nv, sizeof *b->rest);
	b->triangles = pbd_alloc_array(w, (size_t)nt * 3, sizeof *b->triangles);
	if (!b->rest || !b->triangles)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for a mesh of %d vertices", nv);
	for (int i = 0; i < nv; ++i)
		b->rest[i] = v3_load(def->mesh.positions + 3 * i);
	memcpy(b->triangles, def->mesh.indices, (size_t)nt * 3 * sizeof *b->triangles);
	return PBD_OK;
}

static pbd_result build_masses(pbd_world *w, const pbd_cloth_def *def, pbd_cloth_mesh *b)
{
	int nv = b->vertex_count;
	b->inv_mass = pbd_alloc_array(w, (size_t)nv, sizeof *b->inv_mass);
	if (!b->inv_mass)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for masses");
	if (def->masses) {
		for (int i = 0; i < nv; ++i) {
			float m = def->masses[i];
			if (!isfinite(m))
				return pbd_fail(w, PBD_ERR_NOT_FINITE, "mass of vertex %d is NaN or infinite", i);
			if (m <= 0.0f)
				return pbd_fail(w, PBD_ERR_NON_POSITIVE, "mass of vertex %d must be > 0, got %g", i, (double)m);
			if (m < PBD_MIN_MASS || m > PBD_MAX_MASS)
				return pbd_fail(w, PBD_ERR_OUT_OF_RANGE, "mass of vertex %d is %g kg, outside %g..%g kg", i,
						(double)m, (double)PBD_MIN_MASS, (double)PBD_MAX_MASS);
			b->inv_mass[i] = 1.0f / m;
		}
	} else {
		// inv_mass holds masses until the end of this loop.
		for (int t = 0; t < b->triangle_count; ++t) {
			const uint32_t *f = b->triangles + 3 * t;
			pbd_v3 e1 = v3_sub(b->rest[f[1]], b->rest[f[0]]), e2 = v3_sub(b->rest[f[2]], b->rest[f[0]]);
			float third = 0.5f * v3_len(v3_cross(e1, e2)) * def->areal_density / 3.0f;
			for (int k = 0; k < 3; ++k)
				b->inv_mass[f[k]] += third;
		}
		for (int i = 0; i < nv; ++i) {
			if (!(b->inv_mass[i] > 0.0f))
				return pbd_fail(w, PBD_ERR_NON_POSITIVE,
						"vertex %d belongs to no triangle, so areal density gives it no mass", i);
			if (!(b->inv_mass[i] >= PBD_MIN_MASS))
				return pbd_fail(w, PBD_ERR_OUT_OF_RANGE,
						"vertex %d gets a mass of %g kg from the areal density, below %g kg", i,
						(double)b->inv_mass[i], (double)PBD_MIN_MASS);
			if (!(b->inv_mass[i] <= PBD_MAX_MASS))
				return pbd_fail(w, PBD_ERR_OUT_OF_RANGE,
						"vertex %d gets a mass of %g kg from the areal density, above %g kg", i,
						(double)b->inv_mass[i], (double)PBD_MAX_MASS);
			b->inv_mass[i] = 1.0f / b->inv_mass[i];
		}
	}
	// Pins.
	int nx = def->grid.res_x, ny = def->grid.res_y;
	if (def->source == PBD_CLOTH_GRID) {
		uint32_t f = def->grid.pins;
		for (int j = 0; j < ny; ++j) {
			for (int i = 0; i < nx; ++i) {
				bool u0 = i == 0, u1 = i == nx - 1, v0 = j == 0, v1 = j == ny - 1;
				bool pin = ((f & PBD_PIN_CORNER_00) && u0 && v0) || ((f & PBD_PIN_CORNER_10) && u1 && v0) ||
					   ((f & PBD_PIN_CORNER_01) && u0 && v1) || ((f & PBD_PIN_CORNER_11) && u1 && v1) ||
					   ((f & PBD_PIN_EDGE_U0) && u0) || ((f & PBD_PIN_EDGE_U1) && u1) ||
					   ((f & PBD_PIN_EDGE_V0) && v0) || ((f & PBD_PIN_EDGE_V1) && v1);
				if (pin)
					b->inv_mass[j * nx + i] = 0.0f;
			}
		}
	}
	for (int k = 0; k < def->pinned_count; ++k) {
		if (def->pinned[k] >= (uint32_t)nv)
			return pbd_fail(w, PBD_ERR_INDEX_OUT_OF_RANGE, "pinned vertex %u of %d is out of range", def->pinned[k], nv);
		b->inv_mass[def->pinned[k]] = 0.0f;
	}
	return PBD_OK;
}

typedef struct edge_entry {
	uint64_t key;
	uint32_t opposite;
	float area;
} edge_entry;

static int compare_edges(const void *a, const void *b)
{
	uint64_t ka = ((const edge_entry *)a)->key, kb = ((const edge_entry *)b)->key;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	uint32_t oa = ((const edge_entry *)a)->opposite, ob = ((const edge_entry *)b)->opposite;
	return oa < ob ? -1 : (oa > ob ? 1 : 0);
}

// Unique edges with the area and opposite vertices of their triangles.
static pbd_result build_edges(pbd_world *w, pbd_cloth_mesh *b)
{
	size_t n = (size_t)b->triangle_count * 3;
	edge_entry *e = pbd_alloc_array(w, n, sizeof *e);
	b->edges = pbd_alloc_array(w, n * 2, sizeof *b->edges);
	b->edge_area = pbd_alloc_array(w, n, sizeof *b->edge_area);
	b->edge_opposite = pbd_alloc_array(w, n * 2, sizeof *b->edge_opposite);
	b->edge_manifold = pbd_alloc_array(w, n, sizeof *b->edge_manifold);
	if (!e || !b->edges || !b->edge_area || !b->edge_opposite || !b->edge_manifold) {
		pbd_free_array(w, e, n, sizeof *e);
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for %zu edges", n);
	}
	for (int t = 0; t < b->triangle_count; ++t) {
		const uint32_t *f = b->triangles + 3 * t;
		pbd_v3 e1 = v3_sub(b->rest[f[1]], b->rest[f[0]]), e2 = v3_sub(b->rest[f[2]], b->rest[f[0]]);
		float area = 0.5f * v3_len(v3_cross(e1, e2));
		for (int k = 0; k < 3; ++k) {
			uint32_t a = f[k], c = f[(k + 1) % 3];
			uint64_t lo = a < c ? a : c, hi = a < c ? c : a;
			e[3 * t + k] = (edge_entry){(lo << 32) | hi, f[(k + 2) % 3], area};
		}
	}
	qsort(e, n, sizeof *e, compare_edges);
	int count = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		float area = 0.0f;
		while (j < n && e[j].key == e[i].key)
			area += e[j++].area;
		b->edges[2 * count] = (uint32_t)(e[i].key >> 32);
		b->edges[2 * count + 1] = (uint32_t)(e[i].key & 0xffffffffu);
		b->edge_area[count] = area;
		b->edge_opposite[2 * count] = e[i].opposite;
		b->edge_opposite[2 * count + 1] = j - i >= 2 ? e[i + 1].opposite : UINT32_MAX;
		// Bending needs exactly two triangles; a non-manifold edge keeps only stretch.
		b->edge_manifold[count] = (j - i == 2 && e[i].opposite != e[i + 1].opposite) ? 1 : 0;
		count++;
		i = j;
	}
	b->edge_count = count;
	pbd_free_array(w, e, n, sizeof *e);
	return PBD_OK;
}

// Every kind of the table builds its constraints from the mesh. Out of memory, the caller
// frees what was built (pbd_body_release frees every kind).
static pbd_result build_constraints(pbd_world *w, const pbd_cloth_mesh *b, pbd_body *cloth)
{
	for (int k = 0; k < pbd_constraint_kind_count; ++k)
		if (!pbd_constraint_kinds[k]->build(w, cloth, b))
			return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for constraints");
	return PBD_OK;
}

int pbd_body_slot(pbd_world *w)
{
	for (int i = 0; i < w->bodies.capacity; ++i)
		if (!w->bodies.slots[i].live)
			return i;
	int cap = maxi(4, w->bodies.capacity * 2);
	if (!pbd_grow_array(w, (void **)&w->bodies.slots, (size_t)w->bodies.capacity, (size_t)cap,
			    sizeof *w->bodies.slots))
		return -1;
	int slot = w->bodies.capacity;
	w->bodies.capacity = cap;
	return slot;
}

// The triangles around each vertex, in increasing order (a counting sort by vertex).
static bool build_vertex_triangles(pbd_world *world, pbd_body *c)
{
	size_t corners = (size_t)c->triangle_count * 3;
	c->vertex_triangle_start = pbd_alloc_array(world, (size_t)c->count + 1, sizeof *c->vertex_triangle_start);
	c->vertex_triangles = corners ? pbd_alloc_array(world, corners, sizeof *c->vertex_triangles) : NULL;
	c->triangle_scratch =
		c->triangle_count ? pbd_alloc_array(world, (size_t)c->triangle_count, sizeof *c->triangle_scratch) : NULL;
	if (!c->vertex_triangle_start || (corners && (!c->vertex_triangles || !c->triangle_scratch)))
		return false;
	int *start = c->vertex_triangle_start;
	for (int i = 0; i <= c->count; ++i)
		start[i] = 0;
	for (size_t k = 0; k < corners; ++k)
		start[c->triangles[k] + 1]++;
	for (int i = 0; i < c->count; ++i)
		start[i + 1] += start[i];
	for (int t = 0; t < c->triangle_count; ++t)
		for (int k = 0; k < 3; ++k)
			c->vertex_triangles[start[c->triangles[3 * t + k]]++] = (uint32_t)t;
	// The fill moved each start to the next vertex's: shift back.
	for (int i = c->count; i > 0; --i)
		start[i] = start[i - 1];
	start[0] = 0;
	return true;
}

pbd_result pbd_cloth_create(pbd_world *world, const pbd_cloth_def *def, pbd_cloth_id *out_id)
{
	if (out_id)
		*out_id = (pbd_cloth_id){0, 0};
	if (!world || !def || !out_id)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "pbd_cloth_create needs a world, a def and an out id");
	pbd_result r = check_def_common(world, def);
	if (r != PBD_OK)
		return r;
	pbd_cloth_mesh b;
	memset(&b, 0, sizeof b);
	if (def->source == PBD_CLOTH_GRID)
		r = build_grid(world, def, &b);
	else if (def->source == PBD_CLOTH_MESH)
		r = build_mesh(world, def, &b);
	else
		r = pbd_fail(world, PBD_ERR_BAD_SHAPE, "unknown cloth source %d", (int)def->source);
	if (r == PBD_OK && world->particles.count + b.vertex_count > PBD_MAX_PARTICLES)
		r = pbd_fail(world, PBD_ERR_BAD_COUNT, "the world would hold more than %d particles", PBD_MAX_PARTICLES);
	if (r == PBD_OK)
		r = build_masses(world, def, &b);
	if (r == PBD_OK)
		r = build_edges(world, &b);
	pbd_body cloth;
	memset(&cloth, 0, sizeof cloth);
	cloth.material = def->material;
	cloth.count = b.vertex_count;
	cloth.triangle_count = b.triangle_count;
	if (def->source == PBD_CLOTH_GRID)
		cloth.grid_res_x = def->grid.res_x, cloth.grid_res_y = def->grid.res_y;
	if (r == PBD_OK)
		r = build_constraints(world, &b, &cloth);
	size_t n3 = (size_t)b.vertex_count * 3;
	if (r == PBD_OK) {
		cloth.out_positions = pbd_alloc_array(world, n3, sizeof(float));
		cloth.out_normals = pbd_alloc_array(world, n3, sizeof(float));
		cloth.out_velocities = pbd_alloc_array(world, n3, sizeof(float));
		cloth.origin = pbd_alloc_array(world, (size_t)b.vertex_count, sizeof *cloth.origin);
		cloth.triangles = b.triangles;
		b.triangles = NULL;
		if (cloth.origin)
			for (int i = 0; i < b.vertex_count; ++i)
				cloth.origin[i] = (uint32_t)i;
		if (!cloth.out_positions || !cloth.out_normals || !cloth.out_velocities || !cloth.origin ||
		    !build_vertex_triangles(world, &cloth))
			r = pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for cloth buffers");
	}
	int slot = r == PBD_OK ? pbd_body_slot(world) : -1;
	if (r == PBD_OK && (slot < 0 || !pbd_reserve_particles(world, b.vertex_count)))
		r = pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for %d particles", b.vertex_count);
	if (r != PBD_OK) {
		cloth.live = true;  // lets pbd_body_release free what was built
		pbd_body_release(world, &cloth);
		build_free(world, &b);
		return r;
	}

	// Commit: nothing below can fail.
	pbd_quat q = quat_load(def->rotation);
	float ql = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	q = (pbd_quat){q.x / ql, q.y / ql, q.z / ql, q.w / ql};
	pbd_v3 origin = v3_load(def->position), vel = v3_load(def->velocity);
	int first = world->particles.count;
	for (int i = 0; i < b.vertex_count; ++i) {
		int k = first + i;
		pbd_v3 pos = v3_add(quat_rotate(q, b.rest[i]), origin);
		float wi = b.inv_mass[i];
		world->particles.x[k] = world->particles.p[k] = v4_from3(pos, wi);
		world->particles.v[k] = wi > 0.0f ? vel : v3(0, 0, 0);
		world->particles.force[k] = v3(0, 0, 0);
		world->particles.pinned[k] = wi == 0.0f;
		// A vertex pinned by the def keeps its free mass as if it had none: releasing it
		// later needs a mass, so give it the mass its triangles would.
		world->particles.inv_mass_free[k] = wi;
		world->particles.pin_from[k] = world->particles.pin_to[k] = pos;
		world->particles.owner[k] = (uint32_t)slot;
		world->particles.rest[k] = b.rest[i];
		world->particles.radius[k] = 0.5f * def->material.thickness;
	}
	if (def->masses == NULL) {
		// Free masses for pinned vertices (see above), from their triangles.
		for (int t = 0; t < b.triangle_count; ++t) {
			const uint32_t *f = cloth.triangles + 3 * t;
			pbd_v3 e1 = v3_sub(b.rest[f[1]], b.rest[f[0]]), e2 = v3_sub(b.rest[f[2]], b.rest[f[0]]);
			float third = 0.5f * v3_len(v3_cross(e1, e2)) * def->areal_density / 3.0f;
			for (int k = 0; k < 3; ++k)
				if (b.inv_mass[f[k]] == 0.0f)
					// scratch: accumulated mass
					world->particles.force[first + (int)f[k]].x += third;
		}
	}
	for (int i = 0; i < b.vertex_count; ++i) {
		int k = first + i;
		if (b.inv_mass[i] == 0.0f) {
			float m = def->masses ? def->masses[i] : world->particles.force[k].x;
			world->particles.inv_mass_free[k] = m > 0.0f ? 1.0f / m : 1.0f;
			world->particles.force[k].x = 0.0f;
		}
	}
	double mass = 0.0, area = 0.0;
	for (int i = 0; i < b.vertex_count; ++i)
		mass += 1.0 / world->particles.inv_mass_free[first + i];
	for (int t = 0; t < b.triangle_count; ++t) {
		const uint32_t *f = cloth.triangles + 3 * t;
		area += 0.5 * v3_len(v3_cross(v3_sub(b.rest[f[1]], b.rest[f[0]]), v3_sub(b.rest[f[2]], b.rest[f[0]])));
	}
	cloth.areal_density = (float)(mass / area);
	world->particles.count += b.vertex_count;
	uint32_t generation = world->bodies.slots[slot].generation + 1;
	cloth.first = first;
	cloth.generation = generation;
	cloth.live = true;
	cloth.kind = PBD_BODY_CLOTH;
	world->bodies.slots[slot] = cloth;
	world->topology.dirty = true;
	pbd_body_refresh_outputs(world, &world->bodies.slots[slot]);
	build_free(world, &b);
	*out_id = (pbd_cloth_id){(uint32_t)slot + 1, generation};
	return PBD_OK;
}

static int compare_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

static uint64_t pair_key(uint32_t a, uint32_t b) { return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a; }

// The shear pairs of a torn grid: an interior edge whose opposite vertices come from a pair
// of c's shear pairs keeps it (between the copies that face each other now). b->shear is
// allocated for `*capacity` pairs.
static bool rebuild_shear(pbd_world *w, const pbd_body *c, const uint32_t *source, pbd_cloth_mesh *b, int *capacity)
{
	int old = 0;
	for (int k = 0; k < c->distance.count; ++k)
		old += c->distance.kind[k] == PBD_DISTANCE_SHEAR;
	*capacity = old;
	if (old == 0)
		return true;
	uint64_t *keys = pbd_alloc_array(w, (size_t)old, sizeof *keys);
	b->shear = pbd_alloc_array(w, (size_t)old * 2, sizeof *b->shear);
	if (!keys || !b->shear) {
		pbd_free_array(w, keys, (size_t)old, sizeof *keys);
		return false;
	}
	int n = 0;
	for (int k = 0; k < c->distance.count; ++k)
		if (c->distance.kind[k] == PBD_DISTANCE_SHEAR)
			keys[n++] = pair_key(c->distance.ij[2 * k], c->distance.ij[2 * k + 1]);
	qsort(keys, (size_t)n, sizeof *keys, compare_keys);
	for (int e = 0; e < b->edge_count && b->shear_count < old; ++e) {
		if (!b->edge_manifold[e])
			continue;
		uint32_t o0 = b->edge_opposite[2 * e], o1 = b->edge_opposite[2 * e + 1];
		uint64_t key = pair_key(source[o0], source[o1]);
		if (bsearch(&key, keys, (size_t)n, sizeof *keys, compare_keys)) {
			b->shear[2 * b->shear_count] = o0 < o1 ? o0 : o1;
			b->shear[2 * b->shear_count + 1] = o0 < o1 ? o1 : o0;
			b->shear_count++;
		}
	}
	pbd_free_array(w, keys, (size_t)old, sizeof *keys);
	return true;
}

pbd_result pbd_cloth_rebuild(pbd_world *world, const pbd_body *c, int count, const pbd_v3 *rest,
			     const float *inv_mass, uint32_t *triangles, const uint32_t *source, pbd_body *out)
{
	pbd_cloth_mesh b;
	memset(&b, 0, sizeof b);
	b.vertex_count = count;
	b.triangle_count = c->triangle_count;
	b.rest = (pbd_v3 *)rest;
	b.inv_mass = (float *)inv_mass;
	b.triangles = triangles;
	pbd_body fresh = *c;
	fresh.count = count;
	fresh.grid_res_x = fresh.grid_res_y = 0;  // no longer a grid
	fresh.distance = (pbd_distance_constraints){0};
	fresh.bending = (pbd_bending_constraints){0};
	fresh.tethers = (pbd_tethers){0};
	fresh.out_positions = fresh.out_normals = fresh.out_velocities = NULL;
	fresh.vertex_triangle_start = NULL;
	fresh.vertex_triangles = NULL;
	fresh.triangle_scratch = NULL;
	fresh.origin = NULL;
	fresh.tear_share = NULL;
	fresh.triangles = NULL;
	int shear_capacity = 0;
	pbd_result r = build_edges(world, &b);
	if (r == PBD_OK && !rebuild_shear(world, c, source, &b, &shear_capacity))
		r = pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for the shear of a torn cloth");
	if (r == PBD_OK)
		r = build_constraints(world, &b, &fresh);
	size_t n3 = (size_t)count * 3;
	if (r == PBD_OK) {
		fresh.out_positions = pbd_alloc_array(world, n3, sizeof(float));
		fresh.out_normals = pbd_alloc_array(world, n3, sizeof(float));
		fresh.out_velocities = pbd_alloc_array(world, n3, sizeof(float));
		fresh.origin = pbd_alloc_array(world, (size_t)count, sizeof *fresh.origin);
		if (c->tear_share)
			fresh.tear_share = pbd_alloc_array(world, (size_t)count, sizeof *fresh.tear_share);
		fresh.triangles = triangles;
		if (!fresh.out_positions || !fresh.out_normals || !fresh.out_velocities || !fresh.origin ||
		    (c->tear_share && !fresh.tear_share) ||
		    !build_vertex_triangles(world, &fresh))
			r = pbd_fail(world, PBD_ERR_OUT_OF_MEMORY, "out of memory for the buffers of a torn cloth");
	}
	// The mesh borrowed the caller's arrays: only its edges and shear pairs are freed here.
	pbd_free_array(world, b.shear, (size_t)shear_capacity * 2, sizeof *b.shear);
	b.shear = NULL;
	b.shear_count = 0;
	b.rest = NULL;
	b.inv_mass = NULL;
	b.triangles = NULL;
	b.vertex_count = 0;
	build_free(world, &b);
	if (r != PBD_OK) {
		fresh.triangles = NULL;  // still the caller's
		fresh.live = true;
		pbd_body_release(world, &fresh);
		return r;
	}
	for (int i = 0; i < count; ++i) {
		fresh.origin[i] = c->origin[source[i]];
		if (fresh.tear_share)
			fresh.tear_share[i] = c->tear_share[source[i]];
	}
	*out = fresh;
	return PBD_OK;
}

void pbd_body_release(pbd_world *w, pbd_body *c)
{
	size_t n3 = (size_t)c->count * 3;
	pbd_free_array(w, c->vertex_triangle_start, (size_t)c->count + 1, sizeof *c->vertex_triangle_start);
	pbd_free_array(w, c->vertex_triangles, (size_t)c->triangle_count * 3, sizeof *c->vertex_triangles);
	pbd_free_array(w, c->triangle_scratch, (size_t)c->triangle_count, sizeof *c->triangle_scratch);
	c->vertex_triangle_start = NULL;
	c->vertex_triangles = NULL;
	c->triangle_scratch = NULL;
	pbd_free_array(w, c->triangles, (size_t)c->triangle_count * 3, sizeof *c->triangles);
	pbd_free_array(w, c->out_positions, n3, sizeof(float));
	pbd_free_array(w, c->out_normals, n3, sizeof(float));
	pbd_free_array(w, c->out_velocities, n3, sizeof(float));
	pbd_free_array(w, c->origin, (size_t)c->count, sizeof *c->origin);
	pbd_free_array(w, c->tear_share, (size_t)c->count, sizeof *c->tear_share);
	c->origin = NULL;
	c->tear_share = NULL;
	for (int k = 0; k < pbd_constraint_kind_count; ++k)
		pbd_constraint_kinds[k]->free(w, c);
	c->triangles = NULL;
	c->out_positions = c->out_normals = c->out_velocities = NULL;
	c->live = false;
}

pbd_body *pbd_body_lookup(const pbd_world *world, uint32_t index1, uint32_t generation, int kind, pbd_result *why)
{
	pbd_result r = PBD_ERR_NULL_ARGUMENT;
	pbd_body *c = NULL;
	if (world) {
		bool in_range = index1 >= 1 && index1 <= (uint32_t)world->bodies.capacity;
		const pbd_body *slot = in_range ? &world->bodies.slots[index1 - 1] : NULL;
		r = pbd_check_slot(index1, generation, world->bodies.capacity, slot && slot->live,
				   slot ? slot->generation : 0);
		if (r == PBD_OK && slot->kind != kind)
			r = PBD_ERR_UNKNOWN_ID;
		if (r == PBD_OK)
			c = &world->bodies.slots[index1 - 1];
	}
	if (why)
		*why = r;
	return c;
}

pbd_body *pbd_cloth_lookup(const pbd_world *world, pbd_cloth_id id, pbd_result *why)
{
	return pbd_body_lookup(world, id.index1, id.generation, PBD_BODY_CLOTH, why);
}

// Looks up a cloth and writes the error message when it fails.
pbd_body *pbd_cloth_find(const pbd_world *world, pbd_cloth_id id, pbd_result *why)
{
	pbd_body *c = pbd_cloth_lookup(world, id, why);
	if (!c && world)
		pbd_fail((pbd_world *)world, *why, "cloth id {%u, %u} is %s", id.index1, id.generation,
			 *why == PBD_ERR_STALE_ID ? "stale (the cloth was destroyed)" : "not a cloth of this world");
	return c;
}

pbd_result pbd_cloth_check(const pbd_world *world, pbd_cloth_id id)
{
	pbd_result r;
	pbd_cloth_lookup(world, id, &r);
	return r;
}

pbd_result pbd_cloth_destroy(pbd_world *world, pbd_cloth_id id)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	pbd_body_remove(world, c);
	return PBD_OK;
}

void pbd_body_remove(pbd_world *world, pbd_body *c)
{
	int first = c->first, count = c->count;
	// Close the gap in the particle arrays; later bodies move down.
	pbd_particles_remove(world, first, count);
	for (int i = 0; i < world->bodies.capacity; ++i)
		if (world->bodies.slots[i].live && world->bodies.slots[i].first > first)
			world->bodies.slots[i].first -= count;
	pbd_attachments_remove_body(world, (uint32_t)(c - world->bodies.slots));
	pbd_body_release(world, c);
	// The contacts name particles by index: they are void, and the lists are rebuilt.
	pbd_collider_contacts_clear(world);
	pbd_pairs_clear(world);
	pbd_guard_forget_stops(world);
	world->topology.dirty = true;
}

pbd_result pbd_cloth_set_material(pbd_world *world, pbd_cloth_id id, const pbd_cloth_material *material)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if (!material)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "material is NULL");
	r = pbd_check_material(world, material);
	if (r != PBD_OK)
		return r;
	c->material = *material;
	world->topology.dirty = true;  // the thickness sets contact radii
	pbd_distance_set_compliance(&c->distance, material->stretch_compliance, material->shear_compliance);
	return PBD_OK;
}

pbd_result pbd_cloth_set_areal_density(pbd_world *world, pbd_cloth_id id, float areal_density)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if (!isfinite(areal_density))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "areal density is NaN or infinite");
	if (areal_density <= 0.0f)
		return pbd_fail(world, PBD_ERR_NON_POSITIVE, "areal density must be > 0, got %g", (double)areal_density);
	// Every mass scales by the same factor, so the inverse masses scale by its inverse.
	float scale = c->areal_density / areal_density;
	for (int i = c->first; i < c->first + c->count; ++i) {
		if (!(world->particles.inv_mass_free[i] * scale <= 1.0f / PBD_MIN_MASS))
			return pbd_fail(world, PBD_ERR_OUT_OF_RANGE,
					"areal density %g kg/m^2 gives vertex %d a mass below %g kg", (double)areal_density,
					i - c->first, (double)PBD_MIN_MASS);
		if (!(world->particles.inv_mass_free[i] * scale >= 1.0f / PBD_MAX_MASS))
			return pbd_fail(world, PBD_ERR_OUT_OF_RANGE,
					"areal density %g kg/m^2 gives vertex %d a mass above %g kg", (double)areal_density,
					i - c->first, (double)PBD_MAX_MASS);
	}
	for (int i = c->first; i < c->first + c->count; ++i) {
		world->particles.inv_mass_free[i] *= scale;
		if (!world->particles.pinned[i])
			world->particles.x[i].w = world->particles.p[i].w = world->particles.inv_mass_free[i];
	}
	c->areal_density = areal_density;
	return PBD_OK;
}

float pbd_cloth_get_areal_density(const pbd_world *world, pbd_cloth_id id)
{
	pbd_body *c = pbd_cloth_lookup(world, id, NULL);
	return c ? c->areal_density : 0.0f;
}

pbd_result pbd_cloth_get_material(const pbd_world *world, pbd_cloth_id id, pbd_cloth_material *out)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if (!out)
		return pbd_fail((pbd_world *)world, PBD_ERR_NULL_ARGUMENT, "out is NULL");
	*out = c->material;
	return PBD_OK;
}

static const float *borrow(const pbd_world *world, pbd_cloth_id id, int *vertex_count, int which)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_lookup(world, id, &r);
	if (vertex_count)
		*vertex_count = c ? c->count : 0;
	if (!c)
		return NULL;
	return which == 0 ? c->out_positions : (which == 1 ? c->out_normals : c->out_velocities);
}

const float *pbd_cloth_positions(const pbd_world *world, pbd_cloth_id id, int *vertex_count)
{
	return borrow(world, id, vertex_count, 0);
}

const float *pbd_cloth_normals(const pbd_world *world, pbd_cloth_id id, int *vertex_count)
{
	return borrow(world, id, vertex_count, 1);
}

const float *pbd_cloth_velocities(const pbd_world *world, pbd_cloth_id id, int *vertex_count)
{
	return borrow(world, id, vertex_count, 2);
}

const uint32_t *pbd_cloth_indices(const pbd_world *world, pbd_cloth_id id, int *triangle_count)
{
	pbd_body *c = pbd_cloth_lookup(world, id, NULL);
	if (triangle_count)
		*triangle_count = c ? c->triangle_count : 0;
	return c ? c->triangles : NULL;
}

static pbd_result copy_out(const pbd_world *world, pbd_cloth_id id, float *out, int capacity, int which)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if (!out)
		return pbd_fail((pbd_world *)world, PBD_ERR_NULL_ARGUMENT, "out is NULL");
	if (capacity < 0)
		return pbd_fail((pbd_world *)world, PBD_ERR_BAD_COUNT, "capacity %d is negative", capacity);
	const float *src = which == 0 ? c->out_positions : c->out_normals;
	memcpy(out, src, (size_t)mini(capacity, c->count) * 3 * sizeof(float));
	return PBD_OK;
}

pbd_result pbd_cloth_copy_positions(const pbd_world *world, pbd_cloth_id id, float *out, int capacity)
{
	return copy_out(world, id, out, capacity, 0);
}

pbd_result pbd_cloth_copy_normals(const pbd_world *world, pbd_cloth_id id, float *out, int capacity)
{
	return copy_out(world, id, out, capacity, 1);
}

static pbd_body *get_vertex(pbd_world *world, pbd_cloth_id id, int vertex, pbd_result *r)
{
	pbd_body *c = pbd_cloth_find(world, id, r);
	if (c && (vertex < 0 || vertex >= c->count)) {
		*r = pbd_fail(world, PBD_ERR_INDEX_OUT_OF_RANGE, "vertex %d of a cloth with %d vertices", vertex, c->count);
		return NULL;
	}
	return c;
}

pbd_result pbd_cloth_get_inverse_mass(const pbd_world *world, pbd_cloth_id id, int vertex, float *out)
{
	pbd_result r;
	pbd_body *c = get_vertex((pbd_world *)world, id, vertex, &r);
	if (!c)
		return r;
	if (!out)
		return pbd_fail((pbd_world *)world, PBD_ERR_NULL_ARGUMENT, "out is NULL");
	*out = world->particles.p[c->first + vertex].w;
	return PBD_OK;
}

static pbd_result held_vertex(pbd_world *world, int vertex, const char *what)
{
	return pbd_fail(world, PBD_ERR_VERTEX_HELD,
			"vertex %d is held by an exact attachment and cannot be %s: destroy the attachment or make it "
			"compliant first", vertex, what);
}

pbd_result pbd_cloth_pin_vertex(pbd_world *world, pbd_cloth_id id, int vertex, const float position[3])
{
	pbd_result r;
	pbd_body *c = get_vertex(world, id, vertex, &r);
	if (!c)
		return r;
	if (!position)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "position is NULL");
	r = pbd_check_coordinates(world, position, 3, "pin position");
	if (r != PBD_OK)
		return r;
	if (pbd_attachment_holds(world, (uint32_t)(c - world->bodies.slots), (uint32_t)vertex))
		return held_vertex(world, vertex, "pinned");
	int k = c->first + vertex;
	if (!world->particles.pinned[k]) {
		c->holds_changed = true;
		world->particles.pinned[k] = 1;
		world->particles.pin_from[k] = v3_of4(world->particles.x[k]);
		world->particles.x[k].w = world->particles.p[k].w = 0.0f;
		world->particles.v[k] = v3(0, 0, 0);
	}
	world->particles.pin_to[k] = v3_load(position);
	return PBD_OK;
}

pbd_result pbd_cloth_release_vertex(pbd_world *world, pbd_cloth_id id, int vertex)
{
	pbd_result r;
	pbd_body *c = get_vertex(world, id, vertex, &r);
	if (!c)
		return r;
	if (pbd_attachment_holds(world, (uint32_t)(c - world->bodies.slots), (uint32_t)vertex))
		return held_vertex(world, vertex, "released");
	int k = c->first + vertex;
	c->holds_changed |= world->particles.pinned[k] != 0;
	world->particles.pinned[k] = 0;
	world->particles.x[k].w = world->particles.p[k].w = world->particles.inv_mass_free[k];
	return PBD_OK;
}

pbd_result pbd_cloth_set_velocities(pbd_world *world, pbd_cloth_id id, const float *xyz, int count)
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if (!xyz)
		return pbd_fail(world, PBD_ERR_NULL_ARGUMENT, "velocities are NULL");
	if (count != c->count)
		return pbd_fail(world, PBD_ERR_BAD_COUNT, "%d velocities for a cloth of %d vertices", count, c->count);
	for (int k = 0; k < count; ++k) {
		char what[48];
		snprintf(what, sizeof what, "velocity of vertex %d", k);
		if (!pbd_finite_n(xyz + 3 * k, 3))
			return pbd_fail(world, PBD_ERR_NOT_FINITE, "%s is NaN, infinite or beyond 1e12", what);
		if ((r = pbd_check_velocity(world, xyz + 3 * k, what)) != PBD_OK)
			return r;
	}
	for (int k = 0; k < count; ++k)
		if (!world->particles.pinned[c->first + k])
			world->particles.v[c->first + k] = v3_load(xyz + 3 * k);
	pbd_body_refresh_outputs(world, c);
	return PBD_OK;
}

pbd_result pbd_cloth_teleport(pbd_world *world, pbd_cloth_id id, const float offset[3], const float velocity[3])
{
	pbd_result r;
	pbd_body *c = pbd_cloth_find(world, id, &r);
	if (!c)
		return r;
	if ((offset && !pbd_finite_n(offset, 3)) || (velocity && !pbd_finite_n(velocity, 3)))
		return pbd_fail(world, PBD_ERR_NOT_FINITE, "teleport offset or velocity is NaN, infinite or beyond 1e12");
	r = offset ? pbd_check_coordinates(world, offset, 3, "teleport offset") : PBD_OK;
	if (r == PBD_OK)
		r = pbd_check_velocity(world, velocity, "teleport velocity");
	if (r != PBD_OK)
		return r;
	pbd_v3 d = offset ? v3_load(offset) : v3(0, 0, 0);
	for (int i = c->first; i < c->first + c->count; ++i) {
		v4_set3(&world->particles.x[i], v3_add(v3_of4(world->particles.x[i]), d));
		world->particles.p[i] = world->particles.x[i];
		world->particles.pin_from[i] = v3_add(world->particles.pin_from[i], d);
		world->particles.pin_to[i] = v3_add(world->particles.pin_to[i], d);
		if (velocity && !world->particles.pinned[i])
			world->particles.v[i] = v3_load(velocity);
	}
	pbd_body_refresh_outputs(world, c);
	return PBD_OK;
}

typedef struct outputs_job {
	pbd_world *w;
	pbd_body *c;
} outputs_job;

static void face_normals_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const outputs_job *job = context;
	const pbd_v4 *x = job->w->particles.x + job->c->first;
	for (int t = start; t < end; ++t) {
		const uint32_t *f = job->c->triangles + 3 * t;
		pbd_v3 a = v3_of4(x[f[0]]);
		// Unnormalised: the cross product weights each face by its area.
		job->c->triangle_scratch[t] = v3_cross(v3_sub(v3_of4(x[f[1]]), a), v3_sub(v3_of4(x[f[2]]), a));
	}
}

static void vertex_outputs_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const outputs_job *job = context;
	const pbd_body *c = job->c;
	const pbd_v4 *x = job->w->particles.x + c->first;
	for (int i = start; i < end; ++i) {
		pbd_v3 n = v3(0, 0, 0);
		if (c->triangle_scratch) {
			for (int k = c->vertex_triangle_start[i]; k < c->vertex_triangle_start[i + 1]; ++k)
				n = v3_add(n, c->triangle_scratch[c->vertex_triangles[k]]);
		}
		v3_store(c->out_positions + 3 * i, v3_of4(x[i]));
		v3_store(c->out_normals + 3 * i, v3_normalize_or(n, v3(0, 1, 0)));
		v3_store(c->out_velocities + 3 * i, job->w->particles.v[c->first + i]);
	}
}

void pbd_body_refresh_outputs(pbd_world *w, pbd_body *c)
{
	outputs_job job = {w, c};
	if (c->triangle_scratch)
		pbd_parallel_for(w, face_normals_range, c->triangle_count, 1024, &job);
	pbd_parallel_for(w, vertex_outputs_range, c->count, 1024, &job);
}

void pbd_bodies_free(pbd_world *world)
{
	pbd_bodies *b = &world->bodies;
	for (int i = 0; i < b->capacity; ++i)
		if (b->slots[i].live)
			pbd_body_release(world, &b->slots[i]);
	pbd_free_array(world, b->slots, (size_t)b->capacity, sizeof *b->slots);
	*b = (pbd_bodies){0};
}
