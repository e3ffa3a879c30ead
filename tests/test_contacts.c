// SPDX-License-Identifier: MIT
// Contacts: no intersections by the independent check, particle piles, sphere clearance,
// momentum in particle collisions, friction from a moving collider.
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../collision/pair_search.h"
#include "scene_check.h"
#include "scenes.h"
#include "test.h"

static const float kDt = 1.0f / 60.0f;

// Runs a scene at its defaults for `frames` frames and checks every 10th frame (and the
// first) with the independent segment-triangle test.
static int load_at_defaults(const char *name, const demo_scene **scene, pbd_world **w, demo_scene_state *st)
{
	*scene = demo_scene_find(name);
	CHECK(*scene);
	char err[256];
	CHECK_OK(demo_scene_load(*scene, NULL, NULL, w, st, err, sizeof err));
	return 0;
}

static int scene_free_of_intersections(const char *name, int frames)
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	if (load_at_defaults(name, &scene, &w, &st))
		return 1;
	long worst = 0;
	int checked = 0;
	for (int f = 0; f <= frames; ++f) {
		if (f > 0)
			CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		if (f % 10 != 0)
			continue;
		long n = check_scene_crossings(w, &st);
		CHECK(n >= 0);
		if (n > worst)
			worst = n;
		if (n > 0)
			fprintf(stderr, "%s frame %d: %ld crossing triangle pairs\n", name, f, n);
		checked++;
	}
	pbd_world_stats stats = pbd_world_get_stats(w);
	fprintf(stderr, "%s: %d frames checked, most crossings %ld; last step: %d vertex-triangle, %d edge-edge contacts\n",
		name, checked, worst, stats.vertex_triangle_contacts, stats.edge_edge_contacts);
	CHECK(worst == 0);
	pbd_world_destroy(w);
	return 0;
}

static int drape_no_intersections(void) { return scene_free_of_intersections("drape", 300); }
static int fold_no_intersections(void) { return scene_free_of_intersections("fold", 300); }
static int stack_no_intersections(void) { return scene_free_of_intersections("stack", 300); }
static int twist_no_intersections(void) { return scene_free_of_intersections("twist", 300); }
static int cape_no_intersections(void) { return scene_free_of_intersections("cape", 300); }
static int skirt_no_intersections(void) { return scene_free_of_intersections("skirt", 300); }

// The cape's character runs through the first banner around frame 82 and pushes it aside. The
// capsule carries the banner's starts along (collision/collider_carry.c) in every substep of
// the pass; a carried particle keeps its track while the carry keeps its pace, so the pass
// searches everything anew about twice a frame (a track that ran out with each substep made
// it four times or more). What one sees: the banner swings away from the character, and no
// cloth passes through itself or another (checked every fifth frame of the pass).
static int cape_pushes_through_a_banner(void)
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	if (load_at_defaults("cape", &scene, &w, &st))
		return 1;
	int n = 0;
	float *before = NULL;
	long builds = 0, crossings = 0;
	for (int f = 1; f <= 95; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		if (f == 74) {
			const float *x = pbd_cloth_positions(w, st.cloths[1], &n);
			CHECK(x && n > 0);
			before = malloc(sizeof *before * 3 * (size_t)n);
			CHECK(before);
			memcpy(before, x, sizeof *before * 3 * (size_t)n);
		}
		if (f < 75)
			continue;
		builds += pbd_world_get_stats(w).broad_phase_builds;
		if (f % 5 == 0) {
			long c = check_scene_crossings(w, &st);
			CHECK(c >= 0);
			crossings += c;
		}
	}
	const float *x = pbd_cloth_positions(w, st.cloths[1], &n);
	double moved = 0.0;
	for (int i = 0; i < n; ++i) {
		double dx = x[3 * i] - before[3 * i], dy = x[3 * i + 1] - before[3 * i + 1], dz = x[3 * i + 2] - before[3 * i + 2];
		moved = fmax(moved, sqrt(dx * dx + dy * dy + dz * dz));
	}
	free(before);
	double per_frame = builds / 21.0;
	fprintf(stderr, "cape, frames 75-95: %.2f full searches a frame, the banner moved up to %.3f m, %ld crossings\n",
		per_frame, moved, crossings);
	CHECK(moved > 0.2);
	CHECK(crossings == 0);
	CHECK(per_frame < 3.0);
	pbd_world_destroy(w);
	return 0;
}

// Pairs of cloth primitives (a vertex and a triangle, or two edges) that are closer now than
// `share` of the distance they keep, not all kinematic, and missing from the candidate lists.
// A pair keeps the thickness, or half its rest distance when that is less (one cloth's places
// near at rest); in a torn cloth such a pair keeps at least the gap its tears opened (the lips
// of a tear, a hair apart at rest, keep that gap). The search should never miss
// one: the solvers and the guard see only the candidates. The primitives' boxes are swept along x; every pair whose boxes come
// within the thickness gets its exact distance.
typedef struct prim_box {
	float lo[3], hi[3];
	int kind, id;  // 0 vertex, 1 triangle, 2 edge
} prim_box;

static int by_lo_x(const void *a, const void *b)
{
	const prim_box *p = a, *q = b;
	return (p->lo[0] > q->lo[0]) - (p->lo[0] < q->lo[0]);
}

static prim_box box_of_ids(const pbd_world *w, const uint32_t *ids, int n, int kind, int id)
{
	prim_box b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, kind, id};
	for (int j = 0; j < n; ++j) {
		pbd_v4 x = w->particles.x[ids[j]];
		const float c[3] = {x.x, x.y, x.z};
		for (int axis = 0; axis < 3; ++axis)
			b.lo[axis] = fminf(b.lo[axis], c[axis]), b.hi[axis] = fmaxf(b.hi[axis], c[axis]);
	}
	return b;
}

static bool rest_far(const pbd_world *w, const uint32_t *a, int na, const uint32_t *b, int nb, float thickness)
{
	if (w->particles.owner[a[0]] != w->particles.owner[b[0]])
		return true;
	const pbd_v3 *rest = w->particles.rest;
	for (int axis = 0; axis < 3; ++axis) {
		float alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
		for (int j = 0; j < na; ++j) {
			float c = axis == 0 ? rest[a[j]].x : axis == 1 ? rest[a[j]].y : rest[a[j]].z;
			alo = fminf(alo, c), ahi = fmaxf(ahi, c);
		}
		for (int k = 0; k < nb; ++k) {
			float c = axis == 0 ? rest[b[k]].x : axis == 1 ? rest[b[k]].y : rest[b[k]].z;
			blo = fminf(blo, c), bhi = fmaxf(bhi, c);
		}
		if (fmaxf(alo - bhi, blo - ahi) >= 2.0f * thickness * 1.01f)
			return true;
	}
	return false;
}

static bool kinematic(const pbd_world *w, const uint32_t *ids, int n)
{
	for (int j = 0; j < n; ++j)
		if (w->particles.x[ids[j]].w != 0.0f)
			return false;
	return true;
}

static pbd_d3 x_of(const pbd_world *w, uint32_t i)
{
	pbd_v4 x = w->particles.x[i];
	return (pbd_d3){x.x, x.y, x.z};
}

static pbd_d3 rest_of(const pbd_world *w, uint32_t i)
{
	pbd_v3 r = w->particles.rest[i];
	return (pbd_d3){r.x, r.y, r.z};
}

// What a pair keeps: the thickness, or half its rest distance when that is less (a pair of one
// cloth near at rest; one touching at rest keeps nothing), but at least the tear gap of a torn
// cloth.
static double kept_by(const pbd_world *w, uint32_t particle, bool far, float thickness, double rest)
{
	double gap = w->bodies.slots[w->particles.owner[particle]].tear_gap;
	return far ? thickness : fmin(thickness, fmax(0.5 * rest, gap));
}

static bool listed_vt(const pbd_world *w, uint32_t q, uint32_t tri)
{
	for (int k = 0; k < w->pairs.vt_count; ++k)
		if (w->pairs.vt[k].q == q && w->pairs.vt[k].tri == tri)
			return true;
	return false;
}

static bool listed_ee(const pbd_world *w, uint32_t a, uint32_t b)
{
	for (int k = 0; k < w->pairs.ee_count; ++k)
		if (w->pairs.ee[k].a == (a < b ? a : b) && w->pairs.ee[k].b == (a < b ? b : a))
			return true;
	return false;
}

// One pair of primitives (vertex-triangle or edge-edge; others are passed over).
static void close_pair(const pbd_world *w, const prim_box *p, const prim_box *q, float share, long *close, long *missing)
{
	const pbd_topology *tp = &w->topology;
	if (p->kind + q->kind == 2 && p->kind == 1)
		return;  // two triangles
	if (p->kind == 2 && q->kind == 2) {
		const uint32_t *ea = tp->edge + 2 * p->id, *eb = tp->edge + 2 * q->id;
		if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1])
			return;
		float thickness = w->particles.radius[ea[0]] + w->particles.radius[eb[0]];
		const uint32_t quad[4] = {ea[0], ea[1], eb[0], eb[1]};
		if (kinematic(w, quad, 4))
			return;
		double s, u;
		bool far = rest_far(w, ea, 2, eb, 2, thickness);
		double rest = far ? INFINITY : sqrt(pbd_segment_segment_distance2(rest_of(w, ea[0]), rest_of(w, ea[1]), rest_of(w, eb[0]), rest_of(w, eb[1]), &s, &u));
		double kept = kept_by(w, ea[0], far, thickness, rest);
		double d = sqrt(pbd_segment_segment_distance2(x_of(w, ea[0]), x_of(w, ea[1]), x_of(w, eb[0]), x_of(w, eb[1]), &s, &u));
		if (kept < 1e-6 || d >= share * kept)
			return;
		++*close;
		if (!listed_ee(w, (uint32_t)p->id, (uint32_t)q->id) && (*missing)++ < 5)
			fprintf(stderr, "edges %d, %d: %.3g m apart, not a candidate\n", p->id, q->id, d);
		return;
	}
	const prim_box *v = p->kind == 0 ? p : q, *t = p->kind == 0 ? q : p;
	if (v->kind != 0 || t->kind != 1)
		return;
	uint32_t i = (uint32_t)v->id;
	const uint32_t *c = tp->tri + 3 * t->id;
	if (i == c[0] || i == c[1] || i == c[2])
		return;
	float thickness = w->particles.radius[i] + w->particles.radius[c[0]];
	const uint32_t quad[4] = {i, c[0], c[1], c[2]};
	if (kinematic(w, quad, 4))
		return;
	double bary[3];
	bool far = rest_far(w, &i, 1, c, 3, thickness);
	double rest = far ? INFINITY : sqrt(pbd_point_triangle_distance2(rest_of(w, i), rest_of(w, c[0]), rest_of(w, c[1]), rest_of(w, c[2]), bary));
	double kept = kept_by(w, i, far, thickness, rest);
	double d = sqrt(pbd_point_triangle_distance2(x_of(w, i), x_of(w, c[0]), x_of(w, c[1]), x_of(w, c[2]), bary));
	if (kept < 1e-6 || d >= share * kept)
		return;
	++*close;
	if (!listed_vt(w, i, (uint32_t)t->id) && (*missing)++ < 5)
		fprintf(stderr, "vertex %u, triangle %d: %.3g m apart, not a candidate\n", i, t->id, d);
}

static long unlisted_close_pairs(const pbd_world *w, float share, long *close)
{
	const pbd_topology *tp = &w->topology;
	int nv = w->particles.count, nt = tp->tri_count, ne = tp->edge_count, n = 0;
	prim_box *boxes = malloc(sizeof *boxes * (size_t)(nv + nt + ne));
	if (!boxes)
		return -1;
	float reach = 0.0f;
	for (int i = 0; i < nv; ++i) {
		const uint32_t id = (uint32_t)i;
		boxes[n++] = box_of_ids(w, &id, 1, 0, i);
		reach = fmaxf(reach, 2.0f * w->particles.radius[i]);
	}
	for (int t = 0; t < nt; ++t)
		boxes[n++] = box_of_ids(w, tp->tri + 3 * t, 3, 1, t);
	for (int e = 0; e < ne; ++e)
		boxes[n++] = box_of_ids(w, tp->edge + 2 * e, 2, 2, e);
	qsort(boxes, (size_t)n, sizeof *boxes, by_lo_x);
	long missing = 0;
	for (int a = 0; a < n; ++a)
		for (int b = a + 1; b < n && boxes[b].lo[0] <= boxes[a].hi[0] + reach; ++b) {
			const prim_box *p = &boxes[a], *q = &boxes[b];
			if (p->lo[1] - q->hi[1] > reach || q->lo[1] - p->hi[1] > reach || p->lo[2] - q->hi[2] > reach ||
			    q->lo[2] - p->hi[2] > reach)
				continue;
			close_pair(w, p, q, share, close, &missing);
		}
	free(boxes);
	return missing;
}

// Steps a loaded scene to frame `last` and, after every `every`th step from `first` on, adds up
// the close pairs the search left out (unlisted_close_pairs) into *missing and *close. A step
// that tore leaves the lists of the topology before it (found anew the next step): it is not
// checked. *torn_checks (when given) counts the checks made after a tear (a tear splits
// vertices). Nonzero when a step or the checker failed.
static int step_listing_close_pairs(const char *name, const demo_scene *scene, pbd_world *w, demo_scene_state *st,
				    int first, int last, int every, long *missing, long *close, int *torn_checks)
{
	int created = w->particles.count;
	for (int f = 1; f <= last; ++f) {
		CHECK_OK(demo_scene_step(scene, w, st, kDt));
		if (f < first || (f - first) % every != 0 || w->topology.dirty)
			continue;
		long m = unlisted_close_pairs(w, 0.98f, close);
		CHECK(m >= 0);
		if (m > 0)
			fprintf(stderr, "%s frame %d: %ld close pairs missing\n", name, f, m);
		*missing += m;
		if (torn_checks)
			*torn_checks += w->particles.count > created;
	}
	return 0;
}

// Runs a scene at its defaults and, after every `every`th step from `first` to `last`, looks
// for close pairs the search left out (unlisted_close_pairs).
static int scene_lists_every_close_pair(const char *name, int first, int last, int every)
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	if (load_at_defaults(name, &scene, &w, &st))
		return 1;
	long missing = 0, close = 0;
	if (step_listing_close_pairs(name, scene, w, &st, first, last, every, &missing, &close, NULL))
		return 1;
	fprintf(stderr, "%s: %ld close pairs seen, %ld missing\n", name, close, missing);
	CHECK(close > 0);
	CHECK(missing == 0);
	pbd_world_destroy(w);
	return 0;
}

// Scenes whose thickness spans three or more of their edges, so that their pairs near at rest
// are the near pairs' windows (collision/near_pairs.h) rather than the search's: loaded at
// resolution `res` with every cloth `thickness` thick, run `frames` frames; every 10th frame
// the independent check finds no crossing, and after every `every`th step from `first` on no
// close pair is missing from the candidates. The windows were used: every cloth was covered,
// all its windows were certified while it lay flat at the start, and some were listed.
// What one sees of a thick scene at its end: the floor keeps the cloth half its thickness off;
// drape lies on its sphere (its highest point half a thickness over the sphere's top) and
// around it; fold lies in a pile a few layers high, not standing up; twist hangs between the
// hands, off the floor.
static int thick_scene_looks_right(const char *name, pbd_world *w, const demo_scene_state *st, float thickness)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, st->cloths[0], &n);
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, mean[3] = {0, 0, 0};
	for (int i = 0; i < n; ++i)
		for (int a = 0; a < 3; ++a) {
			lo[a] = fmin(lo[a], x[3 * i + a]);
			hi[a] = fmax(hi[a], x[3 * i + a]);
			mean[a] += x[3 * i + a] / n;
		}
	double half = 0.5 * thickness;
	fprintf(stderr, "%s: height %.4f..%.4f m, centroid (%.4f, %.4f, %.4f)\n", name, lo[1], hi[1], mean[0], mean[1],
		mean[2]);
	CHECK(lo[1] > half - 0.001);
	if (strcmp(name, "drape") == 0) {
		pbd_collider_def sphere;
		CHECK_OK(pbd_collider_get_def(w, st->colliders[1], &sphere));
		CHECK(sphere.type == PBD_SHAPE_SPHERE);
		double top = sphere.position[1] + sphere.radius;
		CHECK(hi[1] > top + half - 0.002 && hi[1] < top + half + 0.02);
		CHECK(fabs(mean[0] - sphere.position[0]) < 0.05 && fabs(mean[2] - sphere.position[2]) < 0.05);
		CHECK(mean[1] < top - 0.1);  // hanging down around it
	} else if (strcmp(name, "fold") == 0) {
		CHECK(hi[1] > 2.0 * thickness && hi[1] < 0.4);
	} else if (strcmp(name, "twist") == 0) {
		CHECK(lo[1] > 0.3);
	}
	return 0;
}

static int thick_scene_keeps_every_close_pair(const char *name, int res, float thickness, int frames, int first, int every)
{
	const demo_scene *scene = demo_scene_find(name);
	CHECK(scene);
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	demo_scene_options options = {.res = res};
	CHECK_OK(demo_scene_load(scene, &options, NULL, &w, &st, err, sizeof err));
	for (int c = 0; c < st.cloth_count; ++c) {
		pbd_cloth_material m;
		CHECK_OK(pbd_cloth_get_material(w, st.cloths[c], &m));
		m.thickness = thickness;
		CHECK_OK(pbd_cloth_set_material(w, st.cloths[c], &m));
	}
	long missing = 0, close = 0, worst = 0;
	for (int f = 1; f <= frames; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		const pbd_near *near = &w->pairs.near;
		if (f == 1) {
			CHECK(near->body_count == st.cloth_count);
			int certified = 0;
			for (int k = 0; k < near->window_count; ++k)
				certified += near->certified[k];
			CHECK(certified == near->window_count);
		}
		if (f % 10 == 0) {
			long n = check_scene_crossings(w, &st);
			CHECK(n >= 0);
			if (n > 0)
				fprintf(stderr, "%s frame %d: %ld crossing triangle pairs\n", name, f, n);
			worst = n > worst ? n : worst;
		}
		if (f >= first && (f - first) % every == 0) {
			long m = unlisted_close_pairs(w, 0.98f, &close);
			CHECK(m >= 0);
			if (m > 0)
				fprintf(stderr, "%s frame %d: %ld close pairs missing\n", name, f, m);
			missing += m;
		}
	}
	const pbd_near_body *body = &w->pairs.near.bodies[0];
	fprintf(stderr, "%s: windows of %d x %d quads, patches of %d x %d\n", name, body->reach, body->reach, body->block,
		body->block);
	fprintf(stderr, "%s at %d x %d, %.3f m thick: %lld windows listed, %ld close pairs seen, %ld missing, most crossings %ld\n",
		name, res, res, (double)thickness, (long long)w->pairs.near.windows_listed, close, missing, worst);
	CHECK(w->pairs.near.windows_listed > 0);
	CHECK(close > 0);
	CHECK(missing == 0);
	CHECK(worst == 0);
	CHECK(thick_scene_looks_right(name, w, &st, thickness) == 0);
	pbd_world_destroy(w);
	return 0;
}

// The strip of fold at 48 x 48 (edges of 2.5 cm) 3 cm thick: it lands, creases and piles.
static int thick_fold_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("fold", 48, 0.03f, 120, 20, 4); }
// The same strip 2 cm thick: twice that spans 1.6 edges, so the windows reach three quads and
// the patches of two quads a side are passed over only in part.
static int fold_reach_three_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("fold", 48, 0.02f, 120, 20, 4); }
// twist at 48 x 48 (2.1 cm edges), 2.5 cm thick: wrung, the cloth is squeezed to half its width.
static int thick_twist_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("twist", 48, 0.025f, 120, 30, 4); }
// drape at 64 x 64 (2.2 cm edges), 3 cm thick: curved over its sphere, folds touching.
static int thick_drape_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("drape", 64, 0.03f, 150, 30, 2); }
// twist at 64 x 64 (1.6 cm edges) at its own 1 cm: twice the thickness spans 1.27 edges.
static int twist_at_64_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("twist", 64, 0.01f, 120, 30, 4); }
// twist at 48 x 48 (2.1 cm edges) at its own 1 cm: twice the thickness spans 0.94 edges, so the
// windows reach two quads.
static int twist_at_48_keeps_every_close_pair(void) { return thick_scene_keeps_every_close_pair("twist", 48, 0.01f, 120, 30, 4); }

// Two sheets lying one on the other on a floor without friction, spinning together at 12 rad/s
// about the vertical (their rims at 5 m/s): the pairs are found in a frame that spins with
// them. Every pair of the two sheets within the thickness is a candidate; the sheets never
// cross; they stay stacked and keep spinning together (the cloth's own damping slows them a
// little).
static double spin_rate_of(const pbd_world *w, pbd_cloth_id cloth)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n), *v = pbd_cloth_velocities(w, cloth, NULL);
	double momentum = 0.0, inertia = 0.0;
	for (int i = 0; i < n; ++i) {
		double rx = x[3 * i], rz = x[3 * i + 2];
		momentum += rz * v[3 * i] - rx * v[3 * i + 2];
		inertia += rx * rx + rz * rz;
	}
	return momentum / inertia;
}

static double mean_y(const pbd_world *w, pbd_cloth_id cloth)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n);
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
		sum += x[3 * i + 1];
	return sum / n;
}

// Two square sheets of `size` m and res x res vertices, `gap` m apart, on a floor without
// friction, spinning at `rate` rad/s about the vertical.
static pbd_world *spinning_sheets(int res, float size, float thickness, float gap, float rate, pbd_cloth_id sheets[2])
{
	pbd_world *w = test_world_vacuum();
	if (!w)
		return NULL;
	pbd_collider_def floor = pbd_collider_def_default();
	floor.type = PBD_SHAPE_PLANE;
	floor.static_friction = floor.kinetic_friction = 0.0f;  // nothing slows the spin but the cloth's damping
	pbd_collider_id floor_id;
	bool ok = pbd_collider_create(w, &floor, &floor_id) == PBD_OK;
	for (int k = 0; k < 2 && ok; ++k) {
		pbd_cloth_def d = pbd_cloth_def_default();
		d.grid.res_x = d.grid.res_y = res;
		d.grid.width = d.grid.height = size;
		d.material.thickness = thickness;
		d.position[1] = 0.6f * thickness + gap * (float)k;
		ok = pbd_cloth_create(w, &d, &sheets[k]) == PBD_OK;
		int n = 0;
		const float *x = ok ? pbd_cloth_positions(w, sheets[k], &n) : NULL;
		float *v = ok ? malloc(sizeof *v * 3 * (size_t)n) : NULL;
		ok = v != NULL;
		for (int i = 0; ok && i < n; ++i) {
			// omega (0, rate, 0) x r
			v[3 * i] = rate * x[3 * i + 2];
			v[3 * i + 1] = 0.0f;
			v[3 * i + 2] = -rate * x[3 * i];
		}
		ok = ok && pbd_cloth_set_velocities(w, sheets[k], v, n) == PBD_OK;
		free(v);
	}
	if (!ok) {
		pbd_world_destroy(w);
		return NULL;
	}
	return w;
}

static int spinning_stack_lists_every_close_pair(void)
{
	pbd_cloth_id sheets[2];
	const float rate = 12.0f;
	pbd_world *w = spinning_sheets(16, 0.6f, 0.01f, 0.0102f, rate, sheets);
	CHECK(w);
	CHECK_NEAR(spin_rate_of(w, sheets[0]), rate, 1e-3);
	long close = 0, missing = 0, crossings = 0;
	int checks = 0, spinning = 0;
	for (int f = 1; f <= 120; ++f) {
		CHECK_OK(pbd_world_step(w, kDt));
		CHECK(pbd_world_get_stats(w).substeps_held == 0);
		if (f % 2)
			continue;
		long m = unlisted_close_pairs(w, 0.999f, &close);
		CHECK(m >= 0);
		missing += m;
		checks++;
		spinning += w->pairs.tracks.spin;
		check_mesh meshes[2];
		for (int c = 0; c < 2; ++c) {
			meshes[c].positions = pbd_cloth_positions(w, sheets[c], NULL);
			meshes[c].indices = pbd_cloth_indices(w, sheets[c], &meshes[c].triangle_count);
		}
		long n = check_count_intersections(meshes, 2);
		CHECK(n >= 0);
		crossings += n;
	}
	double top = mean_y(w, sheets[1]), bottom = mean_y(w, sheets[0]);
	double spin_top = spin_rate_of(w, sheets[1]), spin_bottom = spin_rate_of(w, sheets[0]);
	fprintf(stderr, "%ld close pairs seen, %ld missing; %d of %d checks in a spinning frame; %ld crossings; "
		"sheets at %.4f and %.4f m spinning at %.2f and %.2f rad/s\n",
		close, missing, spinning, checks, crossings, bottom, top, spin_bottom, spin_top);
	CHECK(missing == 0 && crossings == 0);
	CHECK(close > 1000);
	CHECK(spinning > checks / 2);
	CHECK(top - bottom > 0.008 && bottom > 0.0045 && bottom < 0.008);
	CHECK(spin_bottom > 0.5 * rate && spin_bottom < 1.01 * rate && fabs(spin_top - spin_bottom) < 0.05 * spin_bottom);
	pbd_world_destroy(w);
	return 0;
}

// Thin sheets spinning fast: a track's world path over a substep then bends off its chord by
// more than the least slack, and a track that did not make room for it failed its own stray
// test at once; the guard's searches found the same strays again and again, the substep was
// held, and the sheets stopped dead (from 18 to 0 rad/s). They keep spinning, and no substep
// is held.
static int spinning_thin_sheets_keep_spinning(void)
{
	pbd_cloth_id sheets[2];
	const float rate = 20.0f;
	pbd_world *w = spinning_sheets(16, 1.0f, 0.0005f, 0.003f, rate, sheets);
	CHECK(w);
	int held = 0, spinning = 0;
	for (int f = 1; f <= 60; ++f) {
		CHECK_OK(pbd_world_step(w, kDt));
		held += pbd_world_get_stats(w).substeps_held;
		spinning += w->pairs.tracks.spin;
	}
	double spin = spin_rate_of(w, sheets[0]);
	fprintf(stderr, "%d substeps held; %d of 60 steps in a spinning frame; the sheets spin at %.2f and %.2f rad/s\n", held,
		spinning, spin, spin_rate_of(w, sheets[1]));
	CHECK(held == 0);
	CHECK(spinning > 30);
	CHECK(spin > 0.5 * rate);
	pbd_world_destroy(w);
	return 0;
}

static int twist_lists_every_close_pair(void) { return scene_lists_every_close_pair("twist", 30, 150, 2); }
static int fold_lists_every_close_pair(void) { return scene_lists_every_close_pair("fold", 20, 200, 3); }

// A torn cloth's patches each take the tolerance of the closest rest pairs their own
// primitives are in (collision/patches.c): the lips of its tears are a hair apart at rest, so
// only the patches along them are searched pair by pair whatever their motion. The ball's
// curtain and the pulled sheet tear; after every third step, no close pair is missing from the
// candidates (unlisted_close_pairs: a torn cloth's pairs near at rest held to what they keep,
// at least the tear gap), and at the end most of each torn cloth's patches may still be
// passed over whole, as the cloth's were before it tore (with at least half the tolerance of
// an untorn cloth, which the rest pairs of a fine sheet allow), while those along the lips
// may not; and the tolerances kept from the cloths' earlier rest shapes are those measured
// anew.
static int tear_lists_every_close_pair(void)
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	if (load_at_defaults("tear", &scene, &w, &st))
		return 1;
	long missing = 0, close = 0;
	int checked = 0;
	if (step_listing_close_pairs("tear", scene, w, &st, 3, 240, 3, &missing, &close, &checked))
		return 1;
	const pbd_pairs *pr = &w->pairs;
	int torn_bodies = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *b = &w->bodies.slots[s];
		if (!b->live || b->kind != PBD_BODY_CLOTH || b->tear_gap <= 0.0f)
			continue;
		float whole = 0.49f * 2.0f * w->particles.radius[b->first];
		int patches = 0, open = 0, lips = 0;
		for (int p = 0; p < pr->patch_count; ++p) {
			if (pr->patch_body[p] != (uint32_t)s)
				continue;
			patches++;
			open += pr->patch_tolerance[p] >= 0.5f * whole;
			lips += pr->patch_tolerance[p] < 0.1f * whole;
		}
		fprintf(stderr, "torn cloth %d: %d patches, %d with half the whole tolerance or more, %d along the lips\n", s,
			patches, open, lips);
		CHECK(open >= 0.6 * patches);
		CHECK(lips > 0);
		torn_bodies++;
	}
	// Each cloth's closest rest pairs are measured once per rest shape and kept: measured anew
	// from nothing, every patch's tolerance comes out the same.
	float *kept = malloc(sizeof *kept * (size_t)pr->patch_count);
	CHECK(kept);
	memcpy(kept, pr->patch_tolerance, sizeof *kept * (size_t)pr->patch_count);
	pbd_rest_closest_free(w);
	w->pairs.tolerances_valid = false;
	CHECK(pbd_patches_tolerances(w));
	CHECK(memcmp(kept, pr->patch_tolerance, sizeof *kept * (size_t)pr->patch_count) == 0);
	free(kept);
	fprintf(stderr, "tear: %d checks while torn, %ld close pairs seen, %ld missing\n", checked, close, missing);
	CHECK(torn_bodies == 2);
	CHECK(checked > 40);
	CHECK(close > 0);
	CHECK(missing == 0);
	pbd_world_destroy(w);
	return 0;
}

// The checker itself finds a crossing it is shown: two triangles through each other.
static int checker_sees_crossing(void)
{
	float pos[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2f, 0.2f, -0.5f, 0.3f, 0.2f, 0.5f, 0.2f, 0.3f, 0.5f};
	uint32_t idx[6] = {0, 1, 2, 3, 4, 5};
	check_mesh m = {pos, idx, 2};
	CHECK(check_count_intersections(&m, 1) == 1);
	pos[11] = 0.1f;  // lift the piercing triangle clear
	CHECK(check_count_intersections(&m, 1) == 0);
	return 0;
}

// Drape: no cloth vertex or triangle centre comes closer to the sphere's centre than its
// radius (less 1 mm), on any checked frame.
static int drape_clears_sphere(void)
{
	const demo_scene *scene = demo_scene_find("drape");
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, NULL, &w, &st, err, sizeof err));
	pbd_collider_def sphere;
	CHECK_OK(pbd_collider_get_def(w, st.colliders[1], &sphere));
	CHECK(sphere.type == PBD_SHAPE_SPHERE);
	float closest = INFINITY;
	for (int f = 1; f <= 240; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		int n = 0, t = 0;
		const float *x = pbd_cloth_positions(w, st.cloths[0], &n);
		const uint32_t *tri = pbd_cloth_indices(w, st.cloths[0], &t);
		for (int i = 0; i < n; ++i) {
			float dx = x[3 * i] - sphere.position[0], dy = x[3 * i + 1] - sphere.position[1],
			      dz = x[3 * i + 2] - sphere.position[2];
			closest = fminf(closest, sqrtf(dx * dx + dy * dy + dz * dz));
		}
		for (int k = 0; k < t; ++k) {
			float c[3] = {0, 0, 0};
			for (int j = 0; j < 3; ++j)
				for (int a = 0; a < 3; ++a)
					c[a] += x[3 * tri[3 * k + j] + a] / 3.0f;
			float dx = c[0] - sphere.position[0], dy = c[1] - sphere.position[1], dz = c[2] - sphere.position[2];
			closest = fminf(closest, sqrtf(dx * dx + dy * dy + dz * dz));
		}
	}
	fprintf(stderr, "closest approach %.5f m to a sphere of radius %.3f m\n", closest, sphere.radius);
	CHECK(closest >= sphere.radius - 0.001f);
	CHECK(closest < sphere.radius + 0.02f);  // it does lie on the sphere
	pbd_world_destroy(w);
	return 0;
}

// Runs pile with the given friction for 6 s; returns heap height over its radius.
static int pile_shape(float mu, double *slope, double *overlap)
{
	const demo_scene *scene = demo_scene_find("pile");
	pbd_world_settings s = pbd_world_settings_default();
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, &s, &w, &st, err, sizeof err));
	CHECK_OK(pbd_particles_set_friction(w, st.particles[0], mu, mu));
	CHECK_OK(pbd_collider_set_friction(w, st.colliders[0], mu, mu));
	for (int f = 0; f < 360; ++f)
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
	int n = 0;
	const float *x = pbd_particles_positions(w, st.particles[0], &n);
	float r = pbd_particles_radius(w, st.particles[0]);
	double top = 0.0, *radii = malloc(sizeof(double) * (size_t)n), worst = 0.0;
	for (int i = 0; i < n; ++i) {
		top = fmax(top, x[3 * i + 1]);
		radii[i] = sqrt(x[3 * i] * x[3 * i] + x[3 * i + 2] * x[3 * i + 2]);
		for (int j = i + 1; j < n; ++j) {
			double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1], dz = x[3 * i + 2] - x[3 * j + 2];
			worst = fmax(worst, 2.0 * r - sqrt(dx * dx + dy * dy + dz * dz));
		}
	}
	// The heap's radius: where 90% of the balls lie within.
	int below = 0;
	double spread = 0.0;
	for (double rad = 0.0; below < (9 * n) / 10; rad += 0.005) {
		below = 0;
		for (int i = 0; i < n; ++i)
			below += radii[i] <= rad;
		spread = rad;
	}
	free(radii);
	*slope = (top - r) / spread;
	*overlap = worst / r;
	pbd_world_destroy(w);
	return 0;
}

// Balls at rest do not overlap by more than 5% of a radius, and more friction makes a
// steeper heap.
static int pile_rests_and_friction_steepens(void)
{
	double slope_low, slope_high, overlap_low, overlap_high;
	if (pile_shape(0.1f, &slope_low, &overlap_low) || pile_shape(0.9f, &slope_high, &overlap_high))
		return 1;
	fprintf(stderr, "heap height / radius %.3f at friction 0.1, %.3f at 0.9; overlaps %.3f, %.3f radii\n", slope_low,
		slope_high, overlap_low, overlap_high);
	CHECK(overlap_low < 0.05 && overlap_high < 0.05);
	CHECK(slope_high > 1.2 * slope_low);
	return 0;
}

// Two free particles meeting without gravity keep their total momentum.
static int particles_conserve_momentum(void)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.gravity[1] = 0.0f;
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	float pa[3] = {-0.5f, 0.0f, 0.0f}, va[3] = {2.0f, 0.0f, 0.0f};
	float pb[3] = {0.5f, 0.03f, 0.0f}, vb[3] = {-1.0f, 0.0f, 0.0f};
	pbd_particles_def d = pbd_particles_def_default();
	d.count = 1;
	d.radius = 0.05f;
	d.positions = pa;
	d.velocities = va;
	d.mass = 0.3f;
	pbd_particles_id a, b;
	CHECK_OK(pbd_particles_create(w, &d, &a));
	d.positions = pb;
	d.velocities = vb;
	d.mass = 0.1f;
	CHECK_OK(pbd_particles_create(w, &d, &b));
	double before[3] = {0.3 * 2.0 + 0.1 * -1.0, 0.0, 0.0};
	for (int f = 0; f < 60; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	const float *ua = pbd_particles_velocities(w, a, NULL), *ub = pbd_particles_velocities(w, b, NULL);
	const float *xa = pbd_particles_positions(w, a, NULL), *xb = pbd_particles_positions(w, b, NULL);
	fprintf(stderr, "after: a (%.4f %.4f) b (%.4f %.4f)\n", ua[0], ua[1], ub[0], ub[1]);
	for (int k = 0; k < 3; ++k)
		CHECK_NEAR(0.3 * ua[k] + 0.1 * ub[k], before[k], 1e-4);
	// They did collide (the light one was turned round) and did not pass through each other.
	CHECK(ub[0] > 0.0f);
	CHECK(xb[0] - xa[0] > 0.0f);
	pbd_world_destroy(w);
	return 0;
}

// One step of a heavy ball (1 kg) pressed 25 mm into a light free triangle (10 g a vertex)
// at its centroid, without gravity or air: returns how far the ball and the triangle's
// corners moved along y.
static int ball_in_triangle(float mass_ratio, double *ball_dy, double *corner_dy)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.gravity[1] = 0.0f;
	wd.settings.air_density = 0.0f;
	wd.settings.substeps = 1;
	wd.settings.particle_cloth_mass_ratio = mass_ratio;
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	const float corners[9] = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.5f, 0.0f, 0.8f};
	const uint32_t indices[3] = {0, 2, 1};
	const float masses[3] = {0.01f, 0.01f, 0.01f};
	pbd_cloth_def c = pbd_cloth_def_default();
	c.source = PBD_CLOTH_MESH;
	c.mesh.positions = corners;
	c.mesh.vertex_count = 3;
	c.mesh.indices = indices;
	c.mesh.triangle_count = 1;
	c.masses = masses;
	c.material.damping = 0.0f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &c, &cloth));
	// Contact distance: ball radius 0.05 + half the cloth's 0.01 thickness = 0.055.
	float centre[3] = {0.5f, 0.03f, 0.8f / 3.0f};
	pbd_particles_def d = pbd_particles_def_default();
	d.count = 1;
	d.radius = 0.05f;
	d.mass = 1.0f;
	d.positions = centre;
	pbd_particles_id ball;
	CHECK_OK(pbd_particles_create(w, &d, &ball));
	CHECK_OK(pbd_world_step(w, kDt));
	*ball_dy = pbd_particles_positions(w, ball, NULL)[1] - centre[1];
	const float *x = pbd_cloth_positions(w, cloth, NULL);
	*corner_dy = (x[1] + x[4] + x[7]) / 3.0;
	// The pair is pulled apart to exactly the contact distance, the corners alike.
	CHECK_NEAR(*ball_dy - *corner_dy, 0.025, 1e-5);
	CHECK_NEAR(x[1], x[7], 1e-6);
	pbd_world_destroy(w);
	return 0;
}

// Contacts of a free particle with cloth count the cloth's inverse mass as at most
// particle_cloth_mass_ratio times the particle's. Off (0), the correction is shared by the
// true masses and momentum is kept: the ball moves 3 m / M of what a corner moves (barycentric
// weights 1/3 each). At the default 3 the corners count as 1/3 of the ball each, and with
// weights 1/3 the ball takes half the correction.
static int ball_cloth_mass_ratio(void)
{
	double ball, corner;
	if (ball_in_triangle(0.0f, &ball, &corner))
		return 1;
	fprintf(stderr, "ratio off: ball %.6f m, corners %.6f m\n", ball, corner);
	CHECK_NEAR(1.0 * ball + 3.0 * 0.01 * corner, 0.0, 1e-7);
	CHECK_NEAR(ball / -corner, 3.0 * 0.01 / 1.0, 1e-4);
	CHECK(pbd_world_settings_default().particle_cloth_mass_ratio == 3.0f);
	if (ball_in_triangle(3.0f, &ball, &corner))
		return 1;
	fprintf(stderr, "ratio 3: ball %.6f m, corners %.6f m\n", ball, corner);
	CHECK_NEAR(ball, 0.0125, 1e-5);
	CHECK_NEAR(corner, -0.0125, 1e-5);
	return 0;
}

// A cloth resting on a box that slides sideways: with high friction the box carries it,
// with none the box slides out from under it.
static int moving_box_drags_cloth(float mu, double *carried)
{
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.air_density = 0.0f;
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_collider_def box = pbd_collider_def_default();
	box.type = PBD_SHAPE_BOX;
	box.half_extents[0] = 1.0f;
	box.half_extents[1] = 0.05f;
	box.half_extents[2] = 0.5f;
	box.position[1] = 0.05f;
	box.static_friction = box.kinetic_friction = mu;
	pbd_collider_id id;
	CHECK_OK(pbd_collider_create(w, &box, &id));
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = cd.grid.res_y = 10;
	cd.grid.width = cd.grid.height = 0.4f;
	cd.position[1] = 0.1f + 0.5f * cd.material.thickness;
	cd.material.static_friction = cd.material.kinetic_friction = mu;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &cd, &cloth));
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n);
	double start = 0.0;
	for (int i = 0; i < n; ++i)
		start += x[3 * i] / n;
	// The box slides 0.3 m in 0.6 s (0.5 m/s), smoothly from rest.
	for (int f = 1; f <= 36; ++f) {
		float s = (float)f / 36.0f;
		float pos[3] = {0.3f * s * s * (3.0f - 2.0f * s), 0.05f, 0.0f}, q[4] = {0, 0, 0, 1};
		CHECK_OK(pbd_collider_set_pose(w, id, pos, q));
		CHECK_OK(pbd_world_step(w, kDt));
	}
	for (int f = 0; f < 30; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	x = pbd_cloth_positions(w, cloth, &n);
	double end = 0.0;
	for (int i = 0; i < n; ++i)
		end += x[3 * i] / n;
	*carried = end - start;
	pbd_world_destroy(w);
	return 0;
}

static int kinematic_box_friction(void)
{
	double grip = 0.0, slip = 0.0;
	if (moving_box_drags_cloth(1.0f, &grip) || moving_box_drags_cloth(0.0f, &slip))
		return 1;
	fprintf(stderr, "box moved 0.300 m: cloth moved %.4f m with friction 1, %.4f m with none\n", grip, slip);
	CHECK_NEAR(grip, 0.3, 0.03);
	CHECK(fabs(slip) < 0.005);
	return 0;
}

// A cloth placed through a still box (a 32 x 32 sheet level with the middle of a thin box it
// cuts across): it cannot be pushed clear, and what a person sees is that it comes to rest, the
// part inside the box held there and the rest on the floor, instead of rocking. The box's edge
// and corner pushes on the triangles round the vertices stuck inside kept a few vertices near the
// box's edges swinging 4 mm every substep for good (2.4 m/s after 3 s).
static int cloth_through_a_box_comes_to_rest(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w != NULL);
	pbd_collider_def floor = pbd_collider_def_default(), box = pbd_collider_def_default();
	box.type = PBD_SHAPE_BOX;
	box.half_extents[0] = box.half_extents[1] = 0.2f;
	box.half_extents[2] = 0.05f;
	box.position[1] = 0.3f;
	pbd_collider_id ids[2];
	CHECK_OK(pbd_collider_create(w, &floor, &ids[0]));
	CHECK_OK(pbd_collider_create(w, &box, &ids[1]));
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = cd.grid.res_y = 32;
	cd.grid.width = cd.grid.height = 1.0f;
	cd.position[1] = 0.3f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &cd, &cloth));
	for (int f = 0; f < 180; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n), *v = pbd_cloth_velocities(w, cloth, &n);
	double fastest = 0.0, lowest = INFINITY;
	for (int i = 0; i < n; ++i) {
		CHECK(isfinite(x[3 * i]) && isfinite(x[3 * i + 1]) && isfinite(x[3 * i + 2]));
		fastest = fmax(fastest, sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
					     (double)v[3 * i + 2] * v[3 * i + 2]));
		lowest = fmin(lowest, x[3 * i + 1]);
	}
	fprintf(stderr, "cloth through a box after 3 s: fastest vertex %.3f m/s, lowest %.4f m\n", fastest, lowest);
	CHECK(fastest < 0.2);
	CHECK(lowest < 0.01);  // what lies outside the box fell to the floor
	pbd_world_destroy(w);
	return 0;
}

// The collider search passes over a cloth whose box is out of a collider's reach; it must
// never pass over a particle that the per-particle test keeps: every particle whose p lies
// within its radius plus its motion x -> p of a plane or of a sphere's surface at the
// substep's end (checked here with the shape's own distance, a little inside that reach)
// is listed. Random cloth placements and motions, from far away to touching, against a
// floor and a sphere moving up to 15 cm in the substep.
static float test_random(uint32_t *state)
{
	*state ^= *state << 13;  // xorshift32
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return (float)(*state >> 8) / 16777216.0f;
}

// A world of a floor, a sphere of radius 0.1 m and a 6 x 6 cloth 0.2 m wide, stepped once (every
// array in place); rest: each vertex's offset from the first. NULL on failure.
static pbd_world *collider_search_world(pbd_v3 rest[64], int *n)
{
	pbd_world *w = test_world_vacuum();
	pbd_collider_def plane = pbd_collider_def_default(), ball = pbd_collider_def_default();
	ball.type = PBD_SHAPE_SPHERE;
	ball.radius = 0.1f;
	pbd_collider_id ids[2];
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 6;
	d.grid.width = d.grid.height = 0.2f;
	pbd_cloth_id cloth;
	if (!w || pbd_collider_create(w, &plane, &ids[0]) != PBD_OK || pbd_collider_create(w, &ball, &ids[1]) != PBD_OK ||
	    pbd_cloth_create(w, &d, &cloth) != PBD_OK || pbd_world_step(w, kDt) != PBD_OK || w->particles.count > 64) {
		pbd_world_destroy(w);
		return NULL;
	}
	*n = w->particles.count;
	for (int i = 0; i < *n; ++i)
		rest[i] = v3_sub(v3_of4(w->particles.x[i]), v3_of4(w->particles.x[0]));
	return w;
}

// Both colliders live again (as the world's own bookkeeping expects), then the world is gone.
static void close_collider_search_world(pbd_world *w)
{
	w->colliders.slots[0].live = w->colliders.slots[1].live = true;
	pbd_world_destroy(w);
}

// Where the cloth's first vertex lands (up to 0.6 m above `lowest`) and the motion that brought
// it there (up to 0.1 m along each axis; each particle has come a random share of it).
static void random_placement(uint32_t *seed, float lowest, pbd_v3 *at, pbd_v3 *motion)
{
	*at = v3(0.6f * (test_random(seed) - 0.5f), 0.6f * test_random(seed) + lowest, 0.6f * (test_random(seed) - 0.5f));
	*motion = v3(0.2f * (test_random(seed) - 0.5f), 0.2f * (test_random(seed) - 0.5f),
		     0.2f * (test_random(seed) - 0.5f));
}

// One collider at a time: the floor, or the sphere moving up to 15 cm somewhere near the
// cloth's path.
static pbd_collider *place_collider(pbd_world *w, bool sphere, uint32_t *seed)
{
	w->colliders.slots[0].live = !sphere;
	w->colliders.slots[1].live = sphere;
	pbd_collider *c = &w->colliders.slots[sphere ? 1 : 0];
	pbd_pose start = {v3(0.3f * (test_random(seed) - 0.5f), 0.3f * test_random(seed), 0.0f), {0, 0, 0, 1}};
	pbd_pose end = {v3_add(start.p, v3(0.0f, 0.3f * (test_random(seed) - 0.5f), 0.0f)), start.q};
	if (!sphere)
		start = end = (pbd_pose){v3(0, 0, 0), {0, 0, 0, 1}};
	c->sub_start = start;
	c->sub_end = end;
	return c;
}

// Every particle whose p (as the search left it: a sphere's sweep may have moved it back along
// its path) lies within its radius plus its motion (`travel`, as it was) of collider c's
// surface, a little inside that reach, is listed. Sets `reachable` (a bit per particle) and
// adds their count to *total.
static int reachable_are_listed(const pbd_world *w, const pbd_collider *c, const float *travel, int n, int trial,
				uint64_t *reachable, int *total)
{
	*reachable = 0;
	for (int i = 0; i < n; ++i) {
		pbd_v3 p = v3_of4(w->particles.p[i]), normal;
		float sd = pbd_shape_signed_distance(&c->shape, c->sub_end.p, c->sub_end.q, p, &normal);
		if (sd > w->particles.radius[i] + travel[i] - 1e-4f)
			continue;
		*reachable |= 1ull << i;
		(*total)++;
		bool listed = false;
		for (int k = 0; k < w->collider_contacts.count; ++k)
			listed |= w->collider_contacts.items[k].particle == (uint32_t)i;
		if (!listed)
			fprintf(stderr, "trial %d: particle %d at %.4f of the %s, reach %.4f, not listed\n", trial, i, sd,
				c->shape.type == PBD_SHAPE_SPHERE ? "sphere" : "plane", w->particles.radius[i] + travel[i]);
		CHECK(listed);
	}
	return 0;
}

static int collider_search_keeps_every_reachable_particle(void)
{
	pbd_v3 rest[64];
	int n = 0, listed_total = 0, expected_total = 0;
	pbd_world *w = collider_search_world(rest, &n);
	CHECK(w);
	uint32_t seed = 12345u;
	for (int trial = 0; trial < 4000; ++trial) {
		pbd_v3 at, motion;
		random_placement(&seed, -0.1f, &at, &motion);
		float travel[64];
		for (int i = 0; i < n; ++i) {
			pbd_v3 p = v3_add(at, rest[i]), x = v3_sub(p, v3_scale(motion, test_random(&seed)));
			v4_set3(&w->particles.p[i], p);
			v4_set3(&w->particles.x[i], x);
			travel[i] = v3_len(v3_sub(p, x));
		}
		pbd_collider *c = place_collider(w, trial % 2 == 1, &seed);
		CHECK(pbd_collider_contacts_find(w));
		uint64_t reachable;
		if (reachable_are_listed(w, c, travel, n, trial, &reachable, &expected_total))
			return 1;
		listed_total += w->collider_contacts.count;
	}
	fprintf(stderr, "%d particles within reach, all listed (%d contacts listed)\n", expected_total, listed_total);
	CHECK(expected_total > 1000);  // the placements did reach the colliders
	close_collider_search_world(w);
	return 0;
}

// The search after the passes (the push off colliders) takes the extents measured after the
// prediction, grown by the longest motion x -> p the limit's pass saw (pbd_extents_moved):
// no particle the per-particle test keeps may be passed over. Random placements as above,
// then the passes' motion: a jitter for every particle and for one of them a long drag, up
// to 1 m, towards anywhere (a constraint pulling a vertex into the collider).
static int collider_search_after_the_passes_keeps_every_reachable_particle(void)
{
	pbd_v3 rest[64];
	int n = 0, expected_total = 0, dragged_in = 0;
	pbd_world *w = collider_search_world(rest, &n);
	CHECK(w);
	uint32_t seed = 987u;
	for (int trial = 0; trial < 4000; ++trial) {
		pbd_collider *c = place_collider(w, trial % 2 == 1, &seed);
		// The prediction, measured as predict() does, and the search before the passes.
		pbd_v3 at, motion;
		random_placement(&seed, 0.05f, &at, &motion);
		pbd_v3 x[64];
		for (int i = 0; i < n; ++i) {
			pbd_v3 p = v3_add(at, rest[i]);
			x[i] = v3_sub(p, v3_scale(motion, test_random(&seed)));
			v4_set3(&w->particles.p[i], p);
			v4_set3(&w->particles.x[i], x[i]);
		}
		CHECK(pbd_extents_begin(w));
		pbd_extents_measure(w, 0, 0, n);
		pbd_extents_finish(w);
		CHECK(pbd_collider_contacts_find(w));
		// The passes move every particle a little and drag one far.
		int dragged = (int)(test_random(&seed) * (float)n) % n;
		float longest = 0.0f, travel[64];
		for (int i = 0; i < n; ++i) {
			float reach = i == dragged ? 1.0f : 0.01f;
			pbd_v3 move = v3(reach * (test_random(&seed) - 0.5f), reach * (test_random(&seed) - 0.5f),
					 reach * (test_random(&seed) - 0.5f));
			pbd_v3 p = v3_add(v3_of4(w->particles.p[i]), move);
			v4_set3(&w->particles.p[i], p);
			travel[i] = v3_len(v3_sub(p, x[i]));
			longest = fmaxf(longest, v3_len2(v3_sub(p, x[i])));
		}
		CHECK(pbd_extents_begin_moved(w));
		pbd_extents_moved(w, 0, 0, n, longest);
		pbd_extents_finish_moved(w);
		CHECK(pbd_collider_contacts_find(w));
		uint64_t reachable;
		if (reachable_are_listed(w, c, travel, n, trial, &reachable, &expected_total))
			return 1;
		dragged_in += (int)(reachable >> dragged & 1u);
	}
	fprintf(stderr, "%d particles within reach after the passes (%d dragged there), all listed\n", expected_total,
		dragged_in);
	CHECK(expected_total > 1000 && dragged_in > 200);  // the drags did reach the colliders
	close_collider_search_world(w);
	return 0;
}

// A cloth whose thickness grew is kept off a collider from the next step on: the collider
// searches take the radii the topology sets after the prediction measured the cloth. Flat and
// still 2 cm above the floor, without gravity, one substep a step: 1 cm thick it does not
// touch; 6 cm thick it is pushed up to 3 cm in the first step.
static float lowest_y(const pbd_world *w, pbd_cloth_id cloth)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, cloth, &n);
	float low = INFINITY;
	for (int i = 0; i < n; ++i)
		low = fminf(low, x[3 * i + 1]);
	return low;
}

static int thicker_cloth_is_kept_off_at_once(void)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	pbd_world_settings settings = pbd_world_get_settings(w);
	settings.gravity[1] = 0.0f;
	settings.substeps = 1;  // the step's first substep must see the new radius
	CHECK_OK(pbd_world_set_settings(w, &settings));
	pbd_collider_def floor = pbd_collider_def_default();
	pbd_collider_id ground;
	CHECK_OK(pbd_collider_create(w, &floor, &ground));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 8;
	d.grid.width = d.grid.height = 0.3f;
	d.position[1] = 0.02f;
	d.material.thickness = 0.01f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &d, &cloth));
	CHECK_OK(pbd_world_step(w, kDt));
	CHECK_NEAR(lowest_y(w, cloth), 0.02, 1e-4);
	pbd_cloth_material m;
	CHECK_OK(pbd_cloth_get_material(w, cloth, &m));
	m.thickness = 0.06f;
	CHECK_OK(pbd_cloth_set_material(w, cloth, &m));
	CHECK_OK(pbd_world_step(w, kDt));
	fprintf(stderr, "lowest vertex 2 cm up: %.4f m after the thickness grew to 6 cm\n", (double)lowest_y(w, cloth));
	CHECK(lowest_y(w, cloth) > 0.0299f);
	pbd_world_destroy(w);
	return 0;
}

// A pose turned about a random axis by up to 3 radians, within 2 m of the origin sideways and
// up to 2 m above it.
static pbd_pose random_pose(uint32_t *seed)
{
	pbd_v3 axis = v3_normalize_or(v3(test_random(seed) - 0.5f, test_random(seed) - 0.5f, test_random(seed) - 0.5f),
				      v3(0, 1, 0));
	float angle = 3.0f * test_random(seed), s = sinf(0.5f * angle);
	pbd_v3 p = v3(4.0f * (test_random(seed) - 0.5f), 4.0f * (test_random(seed) - 0.5f), 2.0f * test_random(seed));
	return (pbd_pose){p, {axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)}};
}

// The quick test that turns cloth triangles away from a round collider before any distance
// (pbd_round_core_beyond) turns away only triangles that are out of reach: random triangles
// round spheres and turned capsules, each turned away one farther from the core than the reach
// by the exact closest-point search. Triangles far off are turned away, so the test is used.
static int round_collider_quick_test_keeps_every_reachable_triangle(void)
{
	uint32_t seed = 77;
	int turned_away = 0, near = 0;
	for (int trial = 0; trial < 20000; ++trial) {
		pbd_collider c = {0};
		bool sphere = trial % 2 == 0;
		c.shape.type = sphere ? PBD_SHAPE_SPHERE : PBD_SHAPE_CAPSULE;
		c.shape.radius = 0.05f + 0.3f * test_random(&seed);
		c.shape.half_height = sphere ? 0.0f : 0.5f * test_random(&seed);
		pbd_pose pose = random_pose(&seed);
		float reach = c.shape.radius + 0.02f * test_random(&seed);
		// A triangle of up to 20 cm placed up to 60 cm from the collider's centre along each axis.
		pbd_v3 at = v3_add(pose.p, v3(1.2f * (test_random(&seed) - 0.5f), 1.2f * (test_random(&seed) - 0.5f),
					      1.2f * (test_random(&seed) - 0.5f)));
		pbd_v3 corner[3];
		for (int k = 0; k < 3; ++k)
			corner[k] = v3_add(at, v3(0.2f * (test_random(&seed) - 0.5f), 0.2f * (test_random(&seed) - 0.5f),
						  0.2f * (test_random(&seed) - 0.5f)));
		pbd_round_core_box core = pbd_round_core_box_at(&c, &pose);
		bool beyond = pbd_round_core_beyond(&core, corner, reach);
		double bary[3];
		float d = INFINITY;
		pbd_v3 n;
		CHECK(pbd_round_collider_triangle(&c, &pose, corner, INFINITY, bary, &d, &n));
		if (beyond && !(d >= reach)) {
			fprintf(stderr, "trial %d: a triangle %.6f from the core, within reach %.6f, turned away\n", trial, d, reach);
			return 1;
		}
		turned_away += beyond;
		near += d < reach;
	}
	fprintf(stderr, "%d of 20000 triangles turned away, %d within reach kept\n", turned_away, near);
	CHECK(turned_away > 5000);
	CHECK(near > 500);
	return 0;
}

// The stray test without a square root answers as the distance with one, also at the bound
// itself and one float either side of it, far from the origin, and for bounds that are
// negative, infinite or not a number.
static int within_up_answers_as_distance_up(void)
{
	uint32_t seed = 5;
	int inside = 0;
	for (int trial = 0; trial < 100000; ++trial) {
		float scale = trial % 3 == 0 ? 1000.0f : 1.0f;
		pbd_v3 a = v3(scale * (test_random(&seed) - 0.5f), scale * (test_random(&seed) - 0.5f),
			      scale * (test_random(&seed) - 0.5f));
		float spread = 0.01f * test_random(&seed);
		pbd_v3 b = v3_add(a, v3(spread * (test_random(&seed) - 0.5f), spread * (test_random(&seed) - 0.5f),
					spread * (test_random(&seed) - 0.5f)));
		float d = pbd_distance_up(a, b);
		float bounds[] = {d, nextafterf(d, 0.0f), nextafterf(d, INFINITY), 0.01f * test_random(&seed), -d, 0.0f,
				  INFINITY, NAN};
		for (int k = 0; k < (int)(sizeof bounds / sizeof bounds[0]); ++k) {
			bool want = pbd_distance_up(a, b) <= bounds[k];
			if (pbd_within_up(a, b, bounds[k]) != want) {
				fprintf(stderr, "trial %d: distance %.9g, bound %.9g: %d, not %d\n", trial, d, bounds[k], !want, want);
				return 1;
			}
			inside += want;
		}
	}
	fprintf(stderr, "%d of 800000 within\n", inside);
	CHECK(inside > 300000);
	return 0;
}

// The bounds of a segment distance hold the distance the closest points give between them, for
// segments at random, nearly or exactly parallel, end to end, of no length, far from the
// origin and tiny; and they are close: side by side or end to end the lower is the distance,
// and it turns most random pairs away at a tenth of their length.
static int segment_bounds_hold_the_distance(void)
{
	uint32_t seed = 11;
	int turned_away = 0;
	for (int trial = 0; trial < 200000; ++trial) {
		int kind = trial % 7;
		double scale = kind == 4 ? 1e-4 : 1.0, origin = kind == 3 ? 1000.0 : 0.0;
		pbd_d3 p[4];
		for (int k = 0; k < 4; ++k)
			p[k] = d3(origin + scale * (test_random(&seed) - 0.5), origin + scale * (test_random(&seed) - 0.5),
				  origin + scale * (test_random(&seed) - 0.5));
		if (kind == 1 || kind == 2) {
			// Parallel (kind 2: up to a turn of 1e-7) or along one line (every fourth).
			double tilt = kind == 2 ? 1e-7 * (test_random(&seed) - 0.5) : 0.0;
			pbd_d3 d = d3_sub(p[1], p[0]);
			double lift = trial % 4 == 1 ? 0.0 : 0.02 * test_random(&seed);
			p[2] = d3_add(p[0], d3(lift, 0.3 * d.y, -lift));
			p[3] = d3_add(p[2], d3_add(d3_scale(d, 0.2 + test_random(&seed)), d3(tilt, -tilt, tilt)));
			if (trial % 4 == 1)
				p[2] = d3_mad(p[0], d, 1.0 + 0.1 * test_random(&seed)), p[3] = d3_mad(p[0], d, 2.0);
		}
		if (kind == 5)
			p[1] = p[0];  // a point against a segment
		if (kind == 6) {
			// Layers: an edge a gap above the plane of the other, tilted out of it and turned
			// within it by 1e-9 to 1 radian (near parallel, the lines' distance is not used).
			double gap = 0.02 * test_random(&seed), turn = pow(10.0, -9.0 * test_random(&seed));
			double tilt = pow(10.0, -9.0 * test_random(&seed)) * (test_random(&seed) - 0.5);
			pbd_d3 d = d3_sub(p[1], p[0]);
			p[0].z = p[1].z = 0.0;
			d.z = 0.0;
			pbd_d3 turned = d3(cos(turn) * d.x - sin(turn) * d.y, sin(turn) * d.x + cos(turn) * d.y, tilt);
			p[2] = d3(p[2].x, p[2].y, gap);
			p[3] = d3_add(p[2], d3_scale(turned, trial % 2 ? 1.0 : -0.7));
		}
		double s, t, lower, upper;
		double d = sqrt(pbd_segment_segment_distance2(p[0], p[1], p[2], p[3], &s, &t));
		pbd_segment_segment_bounds(p[0], p[1], p[2], p[3], &lower, &upper);
		if (!(lower <= d && d <= upper)) {
			fprintf(stderr, "trial %d (kind %d): distance %.17g outside [%.17g, %.17g]\n", trial, kind, d, lower, upper);
			return 1;
		}
		if (kind == 0)
			turned_away += lower > 0.1 * scale;
	}
	// Side by side and end to end, the bound is the distance.
	double lower, upper;
	pbd_segment_segment_bounds(d3(0, 0, 0), d3(1, 0, 0), d3(0, 0.25, 0), d3(1, 0.25, 0), &lower, &upper);
	CHECK(fabs(lower - 0.25) < 1e-9 && fabs(upper - 0.25) < 1e-5);
	pbd_segment_segment_bounds(d3(0, 0, 0), d3(1, 0, 0), d3(1.5, 0, 0), d3(2.5, 0, 0), &lower, &upper);
	CHECK(fabs(lower - 0.5) < 1e-9);
	// Crossing a gap apart, as edges of two layers: the bound is the gap.
	pbd_segment_segment_bounds(d3(0, 0, 0), d3(1, 0.2, 0), d3(0.5, -0.4, 0.01), d3(0.3, 0.6, 0.01), &lower, &upper);
	CHECK(fabs(lower - 0.01) < 1e-9);
	pbd_segment_segment_bounds(d3(NAN, 0, 0), d3(1, 0, 0), d3(1.5, 0, 0), d3(2.5, 0, 0), &lower, &upper);
	CHECK(!(lower > 0.0) && !(upper < INFINITY));  // not finite: no test passes on it
	fprintf(stderr, "%d of %d random pairs turned away at a tenth of their size\n", turned_away, 200000 / 7);
	CHECK(turned_away > 200000 / 7 / 2);
	return 0;
}

// The distance alone is the signed distance, bit for bit, for every shape, at points inside,
// on and outside it (the contact searches decide with one what the contacts then take from
// the other), and it is the distance: a closed form for each shape checks the two.
static int shape_distance_alone_is_the_signed_distance(void)
{
	uint32_t seed = 91;
	int inside = 0;
	for (int trial = 0; trial < 40000; ++trial) {
		pbd_shape_query shape = {0};
		shape.type = trial % 4;  // plane, sphere, capsule, box
		shape.radius = 0.05f + 0.3f * test_random(&seed);
		shape.half_height = 0.5f * test_random(&seed);
		shape.half_extents = v3(0.05f + 0.4f * test_random(&seed), 0.05f + 0.4f * test_random(&seed),
					0.05f + 0.4f * test_random(&seed));
		pbd_pose pose = random_pose(&seed);
		pbd_quat q = pose.q;
		pbd_v3 at = pose.p;
		pbd_v3 local = v3(1.2f * (test_random(&seed) - 0.5f), 1.2f * (test_random(&seed) - 0.5f),
				  1.2f * (test_random(&seed) - 0.5f));
		if (trial % 7 == 0)
			local = v3(0, 0, 0);  // the centre: no direction
		pbd_v3 point = v3_add(at, quat_rotate(q, local)), n;
		float signed_d = pbd_shape_signed_distance(&shape, at, q, point, &n);
		float alone = pbd_shape_distance(&shape, at, q, point);
		if (memcmp(&signed_d, &alone, sizeof alone) != 0) {
			fprintf(stderr, "trial %d (shape %d): %.9g alone, %.9g signed\n", trial, (int)shape.type, alone, signed_d);
			return 1;
		}
		// Closed forms in the shape's frame (the point's local coordinates, up to rounding).
		double lx = local.x, ly = local.y, lz = local.z, expected;
		if (shape.type == PBD_SHAPE_PLANE) {
			expected = ly;
		} else if (shape.type == PBD_SHAPE_SPHERE) {
			expected = sqrt(lx * lx + ly * ly + lz * lz) - shape.radius;
		} else if (shape.type == PBD_SHAPE_CAPSULE) {
			double y = fmax(-shape.half_height, fmin(shape.half_height, ly));
			expected = sqrt(lx * lx + (ly - y) * (ly - y) + lz * lz) - shape.radius;
		} else {
			double qx = fabs(lx) - shape.half_extents.x, qy = fabs(ly) - shape.half_extents.y,
			       qz = fabs(lz) - shape.half_extents.z;
			double ox = fmax(qx, 0.0), oy = fmax(qy, 0.0), oz = fmax(qz, 0.0);
			expected = sqrt(ox * ox + oy * oy + oz * oz) + fmin(fmax(qx, fmax(qy, qz)), 0.0);
		}
		CHECK_NEAR(alone, expected, 1e-5);
		inside += alone < 0.0f;
	}
	fprintf(stderr, "%d of 40000 points inside their shape\n", inside);
	CHECK(inside > 4000);
	return 0;
}

// The spatial hash finds every box that overlaps a query, also when its scratch storage grows
// while it is being filled (a build once lost the entries written before each growth, and
// with them contact pairs, when a fast body made boxes span many cells). Small boxes, one per
// cell, then large ones that force the growth; each small box must find itself and its
// neighbours exactly as a brute-force overlap test does.
typedef struct grid_hits {
	const pbd_aabb *boxes;
	pbd_aabb query;
	int found;
	bool wrong;
} grid_hits;

static void count_grid_hit(uint32_t id, void *user)
{
	grid_hits *h = user;
	pbd_aabb b = h->boxes[id];
	h->wrong |= !(b.lo.x <= h->query.hi.x && h->query.lo.x <= b.hi.x && b.lo.y <= h->query.hi.y &&
		      h->query.lo.y <= b.hi.y && b.lo.z <= h->query.hi.z && h->query.lo.z <= b.hi.z);
	h->found++;
}

static int grid_finds_every_overlap(void)
{
	pbd_world_def def = pbd_world_def_default();
	pbd_world *w;
	CHECK_OK(pbd_world_create(&def, &w));
	enum { SMALL = 200, LARGE = 8, COUNT = SMALL + LARGE };
	pbd_aabb boxes[COUNT];
	for (int i = 0; i < SMALL; ++i) {
		float x = (float)(i % 20) + 0.25f, y = (float)(i / 20) + 0.25f;
		boxes[i] = (pbd_aabb){{x, y, 0.25f}, {x + 0.5f, y + 0.5f, 0.75f}};
	}
	for (int i = 0; i < LARGE; ++i)  // 7 x 7 x 1 cells each, far away from the small ones
		boxes[SMALL + i] = (pbd_aabb){{100.0f + 10.0f * (float)i, 0.1f, 0.1f}, {106.9f + 10.0f * (float)i, 6.9f, 0.9f}};
	pbd_grid grid = {0};
	CHECK(pbd_grid_build(w, &grid, boxes, NULL, COUNT, 1.0f));
	for (int i = 0; i < COUNT; ++i) {
		grid_hits h = {boxes, boxes[i], 0, false};
		pbd_grid_query(&grid, boxes[i], -1, count_grid_hit, &h);
		int expected = 0;
		for (int j = 0; j < COUNT; ++j) {
			grid_hits one = {boxes, boxes[i], 0, false};
			count_grid_hit((uint32_t)j, &one);
			expected += !one.wrong;
		}
		if (h.found != expected || h.wrong)
			fprintf(stderr, "box %d: found %d, expected %d\n", i, h.found, expected);
		CHECK(h.found == expected && !h.wrong);
	}
	pbd_grid_free(w, &grid);
	pbd_world_destroy(w);
	return 0;
}

typedef struct pair_hits {
	int query;
	unsigned char *seen;
	int count;
} pair_hits;

static void mark_pair(uint32_t id, void *user)
{
	pair_hits *h = user;
	h->seen[h->query * h->count + (int)id]++;
}

// Random boxes of many sizes spanning several cells (negative coordinates too), some too
// large for cells, and one query larger than the grid allows: every overlapping pair is
// reported exactly once, with skip_through each unordered pair once (checked against a
// brute-force pair table).
static int grid_reports_each_pair_once(void)
{
	pbd_world_def def = pbd_world_def_default();
	pbd_world *w;
	CHECK_OK(pbd_world_create(&def, &w));
	enum { COUNT = 400 };
	static pbd_aabb boxes[COUNT + 1];
	static unsigned char seen[COUNT][COUNT];
	uint32_t state = 12345u;
	for (int i = 0; i < COUNT; ++i) {
		float c[3], half[3];
		for (int k = 0; k < 3; ++k) {
			state = state * 1664525u + 1013904223u;
			c[k] = ((float)(state >> 8) / 16777216.0f - 0.5f) * 10.0f;
			state = state * 1664525u + 1013904223u;
			half[k] = 0.05f + (float)(state >> 8) / 16777216.0f * (i % 50 == 0 ? 20.0f : 1.2f);
		}
		boxes[i] = (pbd_aabb){{c[0] - half[0], c[1] - half[1], c[2] - half[2]},
				      {c[0] + half[0], c[1] + half[1], c[2] + half[2]}};
	}
	pbd_aabb huge = {{-30.0f, -30.0f, -30.0f}, {30.0f, 30.0f, 30.0f}};
	pbd_grid grid = {0};
	CHECK(pbd_grid_build(w, &grid, boxes, NULL, COUNT, 1.0f));
	CHECK(grid.oversized_count > 0);
	grid_hits all = {boxes, huge, 0, false};
	pbd_grid_query(&grid, huge, -1, count_grid_hit, &all);
	CHECK(all.found == COUNT && !all.wrong);
	int expected_pairs = 0, bad = 0;
	for (int i = 0; i < COUNT; ++i) {
		pair_hits h = {i, &seen[0][0], COUNT};
		pbd_grid_query(&grid, boxes[i], i, mark_pair, &h);
		for (int j = 0; j < COUNT; ++j) {
			grid_hits one = {boxes, boxes[i], 0, false};
			count_grid_hit((uint32_t)j, &one);
			int want = j > i && !one.wrong;
			expected_pairs += want;
			if (seen[i][j] != want) {
				if (bad++ < 5)
					fprintf(stderr, "pair %d-%d reported %d times, expected %d\n", i, j, seen[i][j], want);
			}
		}
	}
	CHECK(bad == 0 && expected_pairs > COUNT);
	pbd_grid_free(w, &grid);
	pbd_world_destroy(w);
	return 0;
}

// A hanging curtain let down into a heap on the floor and hung up again: the contact lists grow
// to many times their quiet size, and within 300 steps of hanging free again live memory is
// back within twice its level before (the lists and scratch are cut to what the quiet steps use).
static int memory_returns_after_transient(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def c = pbd_cloth_def_default();
	const int res = 24;
	c.grid.res_x = c.grid.res_y = res;
	c.grid.pins = PBD_PIN_EDGE_V0;
	c.material.thickness = 0.02f;  // a thick heap: many pairs
	const float half = 0.70710678f, upright[4] = {half, 0, 0, half};  // 90 degrees about x
	memcpy(c.rotation, upright, sizeof upright);
	c.position[1] = 1.0f;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &c, &cloth));
	pbd_collider_def floor = pbd_collider_def_default();
	pbd_collider_id floor_id;
	CHECK_OK(pbd_collider_create(w, &floor, &floor_id));
	// The curtain hangs from its top edge; the edge comes down to the floor, where the cloth
	// heaps up on itself (thousands of pairs), stays a second, and goes back up.
	const float dt = 1.0f / 60.0f;
	const int down = 30, landed = 50, up = 110, hung = 170;
	size_t quiet = 0, peak = 0;
	for (int f = 0; f <= hung + 300; ++f) {
		float y = f < down ? 1.5f : f < landed ? 1.5f - 1.45f * (float)(f - down) / (float)(landed - down)
					   : f < up ? 0.05f : f < hung ? 0.05f + 1.45f * (float)(f - up) / (float)(hung - up) : 1.5f;
		for (int i = 0; i < res; ++i) {
			float at[3] = {(float)i / (float)(res - 1) - 0.5f, y, 0.0f};
			CHECK_OK(pbd_cloth_pin_vertex(w, cloth, i, at));
		}
		CHECK_OK(pbd_world_step(w, dt));
		pbd_world_stats st = pbd_world_get_stats(w);
		if (f == down - 1)
			quiet = st.bytes_live;
		peak = st.bytes_live > peak ? st.bytes_live : peak;
	}
	pbd_world_stats st = pbd_world_get_stats(w);
	fprintf(stderr, "  live memory %zu bytes hanging, %zu at most in the heap, %zu 300 steps after it hangs again (%lld trims)\n",
		quiet, peak, st.bytes_live, (long long)st.trims);
	CHECK(peak > 4 * quiet);  // a real transient
	CHECK(st.bytes_live <= 2 * quiet);
	CHECK(st.trims > 0);
	pbd_world_destroy(w);
	return 0;
}

// One run of the fold scene (a cloth folding onto itself) with a limit on candidate pairs;
// every frame is checked for crossings by the independent test and against the limit.
typedef struct limit_run {
	int peak_pairs;          // most candidate pairs in a substep, over the run
	int substeps_held, searches_over_limit;
	size_t bytes_peak;
	double start_y, end_y;   // the cloth's mean height at the start and the end
	float *positions;        // at the end (malloc'ed)
	int n;
} limit_run;

static double mean_height(const float *x, int n)
{
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
		sum += x[3 * i + 1];
	return sum / n;
}

static int fold_with_limit(int limit, int frames, limit_run *out)
{
	const demo_scene *scene = demo_scene_find("fold");
	CHECK(scene);
	pbd_world_def wd = pbd_world_def_default();
	wd.settings.max_candidate_pairs = limit;
	demo_scene_options o = {0};
	o.res = 24;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load_def(scene, &o, &wd, &w, &st, err, sizeof err));
	*out = (limit_run){0};
	int n = 0;
	const float *x = pbd_cloth_positions(w, st.cloths[0], &n);
	out->start_y = mean_height(x, n);
	for (int f = 0; f < frames; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, kDt));
		pbd_world_stats s = pbd_world_get_stats(w);
		// The limit is on the searched pairs; the count adds the floor contacts (one at most
		// per particle).
		CHECK(limit == 0 || s.candidate_pairs_peak <= limit + n);
		out->peak_pairs = s.candidate_pairs_peak > out->peak_pairs ? s.candidate_pairs_peak : out->peak_pairs;
		out->substeps_held += s.substeps_held;
		out->searches_over_limit += s.searches_over_limit;
		check_mesh mesh = {pbd_cloth_positions(w, st.cloths[0], NULL), pbd_cloth_indices(w, st.cloths[0], &mesh.triangle_count)};
		long crossings = check_count_intersections(&mesh, 1);
		if (crossings != 0)
			fprintf(stderr, "  limit %d, frame %d: %ld crossing triangle pairs\n", limit, f, crossings);
		CHECK(crossings == 0);
	}
	x = pbd_cloth_positions(w, st.cloths[0], &n);
	out->end_y = mean_height(x, n);
	out->n = n;
	out->positions = malloc((size_t)n * 3 * sizeof *x);
	CHECK(out->positions);
	memcpy(out->positions, x, (size_t)n * 3 * sizeof *x);
	out->bytes_peak = pbd_world_get_stats(w).bytes_peak;
	pbd_world_destroy(w);
	return 0;
}

// settings.max_candidate_pairs: at or above what the scene needs it changes nothing; below,
// no search keeps more pairs, the free particles pause in the substeps the guard could not
// check, memory stays lower, no triangle crosses another, and with a limit between what the
// cloth needs at rest and the landing's peak it still falls and folds. (Below what it needs
// at rest, every search is over the limit once it lands and it stays where it is.)
static int candidate_pair_limit(void)
{
	const int frames = 150;
	limit_run free_run, at_peak, low;
	if (fold_with_limit(0, frames, &free_run) || fold_with_limit(free_run.peak_pairs, frames, &at_peak))
		return 1;
	CHECK(free_run.substeps_held == 0 && at_peak.substeps_held == 0 && at_peak.searches_over_limit == 0);
	CHECK(memcmp(free_run.positions, at_peak.positions, (size_t)free_run.n * 3 * sizeof(float)) == 0);
	// Half the peak: the lists hold only pairs that can touch, and a fold's landing substeps
	// need most of them, so this is already well below what the scene asks for. (The strip
	// lying in flat folds needs more than a third of the peak at rest: under a third, its
	// substeps were held for good and it stayed a third of the way up.)
	int limit = free_run.peak_pairs / 2;
	if (fold_with_limit(limit, frames, &low))
		return 1;
	fprintf(stderr, "  no limit: peak %d pairs, %zu bytes; limit %d: peak %d pairs, %zu bytes, %d searches over it, "
		"%d substeps held; mean height %.3f -> %.3f m (no limit %.3f m)\n", free_run.peak_pairs, free_run.bytes_peak,
		limit, low.peak_pairs, low.bytes_peak, low.searches_over_limit, low.substeps_held, low.start_y, low.end_y,
		free_run.end_y);
	CHECK(low.searches_over_limit > 0 && low.substeps_held > 0);
	CHECK(low.peak_pairs <= limit + low.n);
	CHECK(low.bytes_peak < free_run.bytes_peak);
	// It still comes down: most of the way the free run does.
	CHECK(low.start_y - low.end_y > 0.75 * (free_run.start_y - free_run.end_y));
	free(free_run.positions);
	free(at_peak.positions);
	free(low.positions);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(checker_sees_crossing),  TEST(drape_no_intersections),      TEST(fold_no_intersections),
		TEST(stack_no_intersections), TEST(twist_no_intersections), TEST(cape_no_intersections), TEST(skirt_no_intersections), TEST(cape_pushes_through_a_banner), SLOW_TEST(twist_lists_every_close_pair), SLOW_TEST(fold_lists_every_close_pair), SLOW_TEST(tear_lists_every_close_pair), SLOW_TEST(thick_fold_keeps_every_close_pair), SLOW_TEST(fold_reach_three_keeps_every_close_pair), SLOW_TEST(thick_twist_keeps_every_close_pair), SLOW_TEST(thick_drape_keeps_every_close_pair), SLOW_TEST(twist_at_64_keeps_every_close_pair), SLOW_TEST(twist_at_48_keeps_every_close_pair), TEST(spinning_stack_lists_every_close_pair), TEST(spinning_thin_sheets_keep_spinning), TEST(drape_clears_sphere),         TEST(pile_rests_and_friction_steepens),
		TEST(particles_conserve_momentum), TEST(ball_cloth_mass_ratio), TEST(kinematic_box_friction), TEST(cloth_through_a_box_comes_to_rest), TEST(collider_search_keeps_every_reachable_particle), TEST(collider_search_after_the_passes_keeps_every_reachable_particle), TEST(thicker_cloth_is_kept_off_at_once), TEST(round_collider_quick_test_keeps_every_reachable_triangle), TEST(shape_distance_alone_is_the_signed_distance), TEST(within_up_answers_as_distance_up), TEST(segment_bounds_hold_the_distance), TEST(grid_finds_every_overlap), TEST(grid_reports_each_pair_once), TEST(memory_returns_after_transient), SLOW_TEST(candidate_pair_limit),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
