// SPDX-License-Identifier: MIT
// pbd_world_get_contacts: the contact points a viewer draws, checked against what the scene
// must show (a cloth flat on the floor touches it at every vertex; a cloth lying on another
// touches it over its whole area, at the thickness) and against the step's own counts.
#include <stdbool.h>
#include <stdlib.h>

#include "test.h"

static const float kDt = 1.0f / 60.0f;

static pbd_world *world_with_floor(void)
{
	pbd_world *w = test_world_vacuum();
	if (!w)
		return NULL;
	pbd_collider_def floor = pbd_collider_def_default();  // the plane y = 0
	pbd_collider_id id;
	if (pbd_collider_create(w, &floor, &id) != PBD_OK) {
		pbd_world_destroy(w);
		return NULL;
	}
	return w;
}

static pbd_cloth_id flat_cloth(pbd_world *w, int res, float height)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = res;
	d.grid.width = d.grid.height = 0.5f;
	d.position[1] = height;
	pbd_cloth_id id = {0, 0};
	pbd_cloth_create(w, &d, &id);
	return id;
}

// All points of a filter, in a buffer the caller frees.
static pbd_contact_point *contacts(pbd_world *w, pbd_contact_filter filter, int *count)
{
	*count = 0;
	if (pbd_world_get_contacts(w, filter, NULL, 0, count) != PBD_OK)
		return NULL;
	pbd_contact_point *p = calloc((size_t)*count + 1, sizeof *p);
	int again = 0;
	if (pbd_world_get_contacts(w, filter, p, *count, &again) != PBD_OK || again != *count) {
		free(p);
		return NULL;
	}
	return p;
}

// a - b = distance * normal, the normal of unit length (for pairs apart).
static int consistent(const pbd_contact_point *c)
{
	double len = 0.0;
	for (int k = 0; k < 3; ++k) {
		double d = (double)c->a[k] - c->b[k];
		CHECK_NEAR(d, (double)c->distance * c->normal[k], 1e-5);
		len += (double)c->normal[k] * c->normal[k];
	}
	if (fabs(c->distance) > 1e-6f)
		CHECK_NEAR(len, 1.0, 1e-5);
	return 0;
}

// A cloth lying flat on the floor touches it at every vertex, each at its radius (half the
// thickness) above the plane, the normal straight up and the surface point on the plane.
static int cloth_on_floor_touches_at_every_vertex(void)
{
	pbd_world *w = world_with_floor();
	CHECK(w);
	pbd_cloth_id id = flat_cloth(w, 12, 0.02f);
	pbd_cloth_material m;
	CHECK_OK(pbd_cloth_get_material(w, id, &m));
	for (int f = 0; f < 90; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int n = 0, count = 0;
	pbd_cloth_positions(w, id, &n);
	pbd_contact_point *p = contacts(w, PBD_CONTACTS_TOUCHING, &count);
	CHECK(p);
	int on_floor = 0;
	for (int i = 0; i < count; ++i) {
		if (p[i].kind != PBD_CONTACT_KIND_COLLIDER)
			continue;
		on_floor++;
		CHECK(consistent(&p[i]) == 0);
		CHECK_NEAR(p[i].normal[1], 1.0, 1e-6);
		CHECK_NEAR(p[i].b[1], 0.0, 1e-6);
		CHECK_NEAR(p[i].keep, 0.5 * m.thickness, 1e-7);
		CHECK_NEAR(p[i].distance, p[i].keep, 0.01 * p[i].keep);
		CHECK_NEAR(p[i].a[1], p[i].distance, 1e-6);
	}
	CHECK(on_floor == n);
	// Every candidate pair of the substep, touching or not, is listed.
	int candidates = 0;
	CHECK_OK(pbd_world_get_contacts(w, PBD_CONTACTS_CANDIDATES, NULL, 0, &candidates));
	CHECK(candidates == pbd_world_get_stats(w).candidate_pairs);
	CHECK(candidates >= count);
	free(p);
	pbd_world_destroy(w);
	return 0;
}

// A second cloth dropped on the first comes to lie on it: cloth-cloth points at the
// thickness apart over the whole upper cloth, nearly all their normals vertical.
static int cloth_on_cloth_touches_at_thickness(void)
{
	pbd_world *w = world_with_floor();
	CHECK(w);
	flat_cloth(w, 12, 0.01f);  // the lower cloth
	pbd_cloth_id upper = flat_cloth(w, 9, 0.1f);
	pbd_cloth_material m;
	CHECK_OK(pbd_cloth_get_material(w, upper, &m));
	for (int f = 0; f < 120; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int n_upper = 0, count = 0;
	const float *x = pbd_cloth_positions(w, upper, &n_upper);
	double lowest = INFINITY;
	for (int i = 0; i < n_upper; ++i)
		lowest = fmin(lowest, x[3 * i + 1]);
	// It lies on the lower cloth: one thickness above the floor's contact height.
	CHECK(lowest > 0.5 * m.thickness + 0.8 * m.thickness);
	CHECK(lowest < 0.5 * m.thickness + 1.2 * m.thickness);
	pbd_contact_point *p = contacts(w, PBD_CONTACTS_TOUCHING, &count);
	CHECK(p);
	int cloth_cloth = 0, up = 0;
	double highest = 0.0;
	for (int i = 0; i < count; ++i) {
		if (p[i].kind != PBD_CONTACT_KIND_VERTEX_TRIANGLE && p[i].kind != PBD_CONTACT_KIND_EDGE_EDGE)
			continue;
		cloth_cloth++;
		CHECK(consistent(&p[i]) == 0);
		CHECK_NEAR(p[i].keep, m.thickness, 1e-7);
		CHECK(p[i].distance <= 1.01 * p[i].keep);
		CHECK(p[i].distance >= 0.5 * p[i].keep);  // never through each other
		up += fabsf(p[i].normal[1]) > 0.99f;
		highest = fmax(highest, fmax(p[i].a[1], p[i].b[1]));
	}
	// At least one point per vertex of the upper cloth, nearly all of them vertical.
	CHECK(cloth_cloth >= n_upper);
	CHECK(up >= 0.9 * cloth_cloth);
	CHECK(highest < 3.0 * m.thickness);
	int vt = pbd_world_get_stats(w).vertex_triangle_contacts, ee = pbd_world_get_stats(w).edge_edge_contacts;
	CHECK(vt + ee > 0);
	free(p);
	pbd_world_destroy(w);
	return 0;
}

// Two cloths flying at each other at 12 m/s, one substep: the guard stops motions, and the
// points it lists are exactly the steps where stats.ccd_hits says it did (and none in the
// steps where it stopped nothing), at particles' positions.
static int guard_stops_listed_when_the_guard_stops(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	CHECK_OK(pbd_world_set_substeps(w, 1));
	pbd_world_settings s = pbd_world_get_settings(w);
	s.gravity[1] = 0.0f;
	CHECK_OK(pbd_world_set_settings(w, &s));
	pbd_cloth_id a = flat_cloth(w, 16, 0.3f), b = flat_cloth(w, 16, -0.3f);
	int n = 0;
	pbd_cloth_positions(w, a, &n);
	float *v = calloc((size_t)n * 3, sizeof *v);
	CHECK(v);
	for (int i = 0; i < n; ++i)
		v[3 * i + 1] = -6.0f;
	CHECK_OK(pbd_cloth_set_velocities(w, a, v, n));
	for (int i = 0; i < n; ++i)
		v[3 * i + 1] = 6.0f;
	CHECK_OK(pbd_cloth_set_velocities(w, b, v, n));
	free(v);
	int steps_with_hits = 0;
	for (int f = 0; f < 12; ++f) {
		CHECK_OK(pbd_world_step(w, kDt));
		int count = 0;
		pbd_contact_point *p = contacts(w, PBD_CONTACTS_GUARD_STOPS, &count);
		CHECK(p);
		int64_t hits = pbd_world_get_stats(w).ccd_hits;
		CHECK((hits > 0) == (count > 0));
		steps_with_hits += hits > 0;
		const float *xa = pbd_cloth_positions(w, a, &n), *xb = pbd_cloth_positions(w, b, &n);
		for (int i = 0; i < count; ++i) {
			CHECK(p[i].kind == PBD_CONTACT_KIND_GUARD);
			CHECK(memcmp(p[i].a, p[i].b, sizeof p[i].a) == 0);
			bool found = false;
			for (int j = 0; j < n && !found; ++j)
				found = memcmp(xa + 3 * j, p[i].a, sizeof p[i].a) == 0 || memcmp(xb + 3 * j, p[i].a, sizeof p[i].a) == 0;
			CHECK(found);
		}
		free(p);
	}
	CHECK(steps_with_hits > 0);
	pbd_world_destroy(w);
	return 0;
}

static int bad_contact_queries_refused(void)
{
	pbd_world *w = world_with_floor();
	CHECK(w);
	flat_cloth(w, 8, 0.01f);
	CHECK_OK(pbd_world_step(w, kDt));
	int count = -1;
	pbd_contact_point few[2];
	CHECK(pbd_world_get_contacts(NULL, PBD_CONTACTS_TOUCHING, NULL, 0, &count) == PBD_ERR_NULL_ARGUMENT);
	CHECK(count == 0);
	CHECK(pbd_world_get_contacts(w, PBD_CONTACTS_TOUCHING, NULL, 0, NULL) == PBD_ERR_NULL_ARGUMENT);
	CHECK(pbd_world_get_contacts(w, (pbd_contact_filter)7, few, 2, &count) == PBD_ERR_BAD_SHAPE);
	CHECK(pbd_world_get_contacts(w, PBD_CONTACTS_TOUCHING, few, -1, &count) == PBD_ERR_BAD_COUNT);
	CHECK(pbd_world_get_contacts(w, PBD_CONTACTS_TOUCHING, NULL, 2, &count) == PBD_ERR_BAD_COUNT);
	CHECK(strlen(pbd_world_last_error(w)) > 0);
	// A buffer too small gets what fits, and the count says how many there are.
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int all = 0;
	CHECK_OK(pbd_world_get_contacts(w, PBD_CONTACTS_TOUCHING, NULL, 0, &all));
	CHECK(all == 64);  // the 8 x 8 cloth lies on the floor
	CHECK_OK(pbd_world_get_contacts(w, PBD_CONTACTS_TOUCHING, few, 2, &count));
	CHECK(count == all);
	CHECK(few[0].kind == PBD_CONTACT_KIND_COLLIDER && few[1].kind == PBD_CONTACT_KIND_COLLIDER);
	CHECK_OK(pbd_world_step(w, kDt));  // the world is as good as before
	pbd_world_destroy(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(cloth_on_floor_touches_at_every_vertex),
		TEST(cloth_on_cloth_touches_at_thickness),
		TEST(guard_stops_listed_when_the_guard_stops),
		TEST(bad_contact_queries_refused),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
