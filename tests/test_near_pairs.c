// SPDX-License-Identifier: MIT
// Near pairs (collision/near_pairs.h): a certified window holds every pair it owns at least
// half its rest distance apart over the motion, checked by brute force over deformed grids
// (and so does every rectangle of quads shown apart in a window that failed); every pair of a
// covered cloth near at rest belongs to exactly one window; the pairs found for particles that
// moved are exactly those of listed rectangles; flat and gently curved sheets certify while
// creased ones do not.
#include <stdlib.h>
#include <string.h>

#include "../collision/pair_search.h"
#include "test.h"

// A grid cloth of n x n vertices, `edge` apart, `thickness` thick, alone in a vacuum.
static pbd_world *grid_world(int n, float edge, float thickness, pbd_cloth_id *cloth)
{
	pbd_world *w = test_world_vacuum();
	if (!w)
		return NULL;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = n;
	d.grid.width = d.grid.height = edge * (float)(n - 1);
	d.material.thickness = thickness;
	if (pbd_cloth_create(w, &d, cloth) != PBD_OK || !pbd_topology_update(w) || !pbd_near_build(w)) {
		pbd_world_destroy(w);
		return NULL;
	}
	return w;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

// A smooth deformation of the rest grid: squeezed across an axis of the rest plane at angle
// `axis` (distances across it times `squeeze`), rolled about that axis with curvature `kappa`
// (a cylinder of radius 1 / kappa), turned by `turn` about the vertical, shifted, and each
// particle moved by up to `noise`.
typedef struct bend {
	double kappa, axis, turn, noise;
	pbd_v3 shift;
	double squeeze;
} bend;

static pbd_v3 bent(const bend *b, pbd_v3 rest)
{
	double ca = cos(b->axis), sa = sin(b->axis);
	double u = (rest.x * ca + rest.z * sa) * b->squeeze, v = -rest.x * sa + rest.z * ca;  // u across the axis
	double x = u, y = 0.0;
	if (fabs(b->kappa) > 1e-9)
		x = sin(b->kappa * u) / b->kappa, y = (1.0 - cos(b->kappa * u)) / b->kappa;
	double px = x * ca - v * sa, pz = x * sa + v * ca;  // back to the rest plane's axes
	double ct = cos(b->turn), st = sin(b->turn);
	return v3((float)(px * ct - pz * st + b->shift.x + b->noise * (2.0 * uniform() - 1.0)),
		  (float)(y + b->shift.y + b->noise * (2.0 * uniform() - 1.0)),
		  (float)(px * st + pz * ct + b->shift.z + b->noise * (2.0 * uniform() - 1.0)));
}

static void place(pbd_world *w, pbd_v4 *x, const bend *b)
{
	for (int i = 0; i < w->particles.count; ++i)
		v4_set3(&x[i], bent(b, w->particles.rest[i]));
}

static pbd_d3 at(const pbd_world *w, uint32_t i, double t)
{
	pbd_v4 a = w->particles.x[i], b = w->particles.p[i];
	return d3(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
}

static pbd_d3 rest_of(const pbd_world *w, uint32_t i) { return d3_of(w->particles.rest[i]); }

// The pairs a window visits, and the least of distance / rest distance over its motion.
typedef struct pair_check {
	const pbd_world *w;
	double worst;              // least ratio of a certified window's pair
	long pairs;
	int window;
	int *owner;                // per vertex-triangle pair (q * tri_count + tri), per edge pair: the window
	int *owner_ee;
} pair_check;

static void check_vt(void *context, uint32_t q, uint32_t tri)
{
	pair_check *c = context;
	const uint32_t *t = c->w->topology.tri + 3 * tri;
	double bary[3], r = sqrt(pbd_point_triangle_distance2(rest_of(c->w, q), rest_of(c->w, t[0]), rest_of(c->w, t[1]),
								   rest_of(c->w, t[2]), bary));
	for (int k = 0; k <= 10; ++k) {
		double tau = k / 10.0;
		double d = sqrt(pbd_point_triangle_distance2(at(c->w, q, tau), at(c->w, t[0], tau), at(c->w, t[1], tau),
							     at(c->w, t[2], tau), bary));
		c->worst = fmin(c->worst, d / r);
	}
	c->pairs++;
}

static void check_ee(void *context, uint32_t a, uint32_t b)
{
	pair_check *c = context;
	const uint32_t *ea = c->w->topology.edge + 2 * a, *eb = c->w->topology.edge + 2 * b;
	double s, u;
	double r = sqrt(pbd_segment_segment_distance2(rest_of(c->w, ea[0]), rest_of(c->w, ea[1]), rest_of(c->w, eb[0]),
						      rest_of(c->w, eb[1]), &s, &u));
	for (int k = 0; k <= 10; ++k) {
		double tau = k / 10.0;
		double d = sqrt(pbd_segment_segment_distance2(at(c->w, ea[0], tau), at(c->w, ea[1], tau), at(c->w, eb[0], tau),
							      at(c->w, eb[1], tau), &s, &u));
		c->worst = fmin(c->worst, d / r);
	}
	c->pairs++;
}

// 120 random bends and motions of a 20 x 20 grid whose thickness is `thickness` edges (twice
// it spans reach - 1 steps or a little less, so pairs up to `reach` steps across are near
// pairs): every window certified holds each of its pairs at least half its rest distance apart
// at eleven points of the motion, and so does every rectangle shown apart in a window that
// failed.
static int certified_windows_keep_their_pairs_apart_at(float thickness, int reach, long least_rectangles, long least_pairs)
{
	pbd_cloth_id cloth;
	const float edge = 0.01f;
	pbd_world *w = grid_world(20, edge, thickness * edge, &cloth);
	CHECK(w);
	const pbd_near *n = &w->pairs.near;
	CHECK(n->body_count == 1 && n->bodies[0].reach == reach);
	long certified = 0, failed = 0, pairs = 0, rectangles = 0, rectangle_pairs = 0;
	double worst = INFINITY, worst_rectangle = INFINITY;
	for (int trial = 0; trial < 120; ++trial) {
		// From gentle (a radius of a hundred edges) to tight (a radius under one edge).
		double kappa = pow(10.0, -0.5 + 2.6 * uniform()) * (uniform() < 0.5 ? -1.0 : 1.0);
		// Half the bends also squeeze the sheet, to as little as 0.45 of its width.
		double squeeze = uniform() < 0.5 ? 1.0 : 0.45 + 0.55 * uniform();
		bend from = {kappa, 6.3 * uniform(), 6.3 * uniform(), 0.05 * edge * uniform(), v3(0.1f, 1.0f, 0.0f), squeeze};
		bend to = from;
		to.kappa *= 1.0 + 0.3 * (uniform() - 0.5);
		to.turn += 0.2 * (uniform() - 0.5);
		to.shift = v3(0.1f + 0.01f * (float)uniform(), 1.0f, 0.0f);
		place(w, w->particles.x, &from);
		place(w, w->particles.p, &to);
		pbd_near_certify(w);
		pair_check c = {w, INFINITY, 0, 0, NULL, NULL}, r = c;
		pbd_near_visitor visit = {check_vt, check_ee, &c}, in_rectangles = {check_vt, check_ee, &r};
		for (int k = 0; k < n->window_count; ++k) {
			if (n->certified[k]) {
				certified++;
				pbd_near_window_pairs(w, k, ~(uint64_t)0, &visit);
				continue;
			}
			failed++;
			for (int a = 1; a <= reach; ++a)
				for (int b = 1; b <= reach; ++b)
					rectangles += (n->held[k] & pbd_near_rectangle(a, b)) != 0;
			pbd_near_window_pairs(w, k, n->held[k], &in_rectangles);
		}
		worst = fmin(worst, c.worst);
		pairs += c.pairs;
		worst_rectangle = fmin(worst_rectangle, r.worst);
		rectangle_pairs += r.pairs;
	}
	fprintf(stderr, "windows certified %ld, failed %ld; %ld pairs checked, least distance / rest distance %.4f\n",
		certified, failed, pairs, worst);
	fprintf(stderr, "in the windows that failed, %ld rectangles shown apart; %ld pairs checked, least %.4f\n", rectangles,
		rectangle_pairs, worst_rectangle);
	CHECK(certified > 10000 && failed > 10000);  // both sides were met
	CHECK(rectangles > least_rectangles && rectangle_pairs > least_pairs);
	CHECK(worst > (double)PBD_KEPT_REST_SHARE);
	CHECK(worst_rectangle > (double)PBD_KEPT_REST_SHARE);
	pbd_world_destroy(w);
	return 0;
}

// Thickness 1.6 edges: windows of five quads a side (25 rectangles each).
static int certified_windows_keep_their_pairs_apart(void)
{
	return certified_windows_keep_their_pairs_apart_at(1.6f, 5, 10000, 100000);
}
// 0.47 edges (twice it spans 0.94 steps, as a 1 cm sheet of 48 x 48 over a metre): windows of
// two quads a side (4 rectangles each, fewer pairs in each).
static int narrow_windows_keep_their_pairs_apart(void) { return certified_windows_keep_their_pairs_apart_at(0.47f, 2, 4000, 40000); }

// Every vertex-triangle and edge pair of the grid that spans at most the reach (all those
// nearer than twice the thickness at rest among them) is visited by exactly one window, and no
// other pair is; the search of patches leaves exactly those to the module.
typedef struct owner_count {
	const pbd_world *w;
	int *vt, *ee;              // visits per pair
	int edges, tris;
} owner_count;

static void count_vt(void *context, uint32_t q, uint32_t tri)
{
	owner_count *c = context;
	c->vt[(size_t)q * (size_t)c->tris + tri]++;
}

static void count_ee(void *context, uint32_t a, uint32_t b)
{
	owner_count *c = context;
	c->ee[(size_t)a * (size_t)c->edges + b]++;
}

static bool shares(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	for (int j = 0; j < na; ++j)
		for (int k = 0; k < nb; ++k)
			if (a[j] == b[k])
				return true;
	return false;
}

static int windows_own_every_near_pair_once_at(int side, float thickness, int reach)
{
	pbd_cloth_id cloth;
	const float edge = 0.01f;
	pbd_world *w = grid_world(side, edge, thickness * edge, &cloth);
	CHECK(w);
	const pbd_near *n = &w->pairs.near;
	const pbd_near_body *b = &n->bodies[0];
	CHECK(n->body_count == 1 && b->reach == reach);
	int nv = w->particles.count, nt = w->topology.tri_count, ne = w->topology.edge_count;
	owner_count c = {w, calloc((size_t)nv * (size_t)nt, sizeof(int)), calloc((size_t)ne * (size_t)ne, sizeof(int)), ne, nt};
	CHECK(c.vt && c.ee);
	pbd_near_visitor visit = {count_vt, count_ee, &c};
	for (int k = 0; k < n->window_count; ++k)
		pbd_near_window_pairs(w, k, ~(uint64_t)0, &visit);
	long near = 0, owned = 0;
	const double twice = 2.0 * thickness * edge;
	for (int q = 0; q < nv; ++q)
		for (int t = 0; t < nt; ++t) {
			const uint32_t *tri = w->topology.tri + 3 * t, v = (uint32_t)q;
			bool pair = !shares(&v, 1, tri, 3), own = pair && pbd_near_owns_vt(w, b, v, (uint32_t)t);
			double bary[3], r = sqrt(pbd_point_triangle_distance2(rest_of(w, v), rest_of(w, tri[0]), rest_of(w, tri[1]),
									     rest_of(w, tri[2]), bary));
			CHECK(c.vt[(size_t)q * (size_t)nt + t] == (own ? 1 : 0));
			CHECK(!pair || r >= twice || own);  // near at rest: the module's
			near += pair && r < twice;
			owned += own;
		}
	for (int a = 0; a < ne; ++a)
		for (int e = 0; e < ne; ++e) {
			const uint32_t *ea = w->topology.edge + 2 * a, *eb = w->topology.edge + 2 * e;
			bool pair = a < e && !shares(ea, 2, eb, 2), own = pair && pbd_near_owns_ee(w, b, (uint32_t)a, (uint32_t)e);
			double s, u, r = sqrt(pbd_segment_segment_distance2(rest_of(w, ea[0]), rest_of(w, ea[1]), rest_of(w, eb[0]),
									   rest_of(w, eb[1]), &s, &u));
			CHECK(c.ee[(size_t)a * (size_t)ne + e] == (own ? 1 : 0));
			CHECK(!pair || r >= twice || own);
			near += pair && r < twice;
			owned += own;
		}
	fprintf(stderr, "%ld pairs near at rest, %ld owned by windows\n", near, owned);
	CHECK(near > 1000 && owned >= near);
	free(c.vt);
	free(c.ee);
	pbd_world_destroy(w);
	return 0;
}

static int windows_own_every_near_pair_once(void) { return windows_own_every_near_pair_once_at(13, 1.2f, 4); }
// Reach two: fewer pairs near at rest per vertex, so a larger grid.
static int narrow_windows_own_every_near_pair_once(void) { return windows_own_every_near_pair_once_at(20, 0.47f, 2); }

// With some windows listed and some particles moved (stamped with the update's serial), the
// pairs found for the moved particles are those of listed rectangles with a moved primitive,
// each once.
static int moved_pairs_are_those_of_listed_windows(void)
{
	pbd_cloth_id cloth;
	const float edge = 0.01f;
	pbd_world *w = grid_world(15, edge, 1.2f * edge, &cloth);
	CHECK(w);
	pbd_near *n = &w->pairs.near;
	int nv = w->particles.count, nt = w->topology.tri_count, ne = w->topology.edge_count;
	uint32_t *stamp = calloc((size_t)nv, sizeof *stamp);
	owner_count want = {w, calloc((size_t)nv * (size_t)nt, sizeof(int)), calloc((size_t)ne * (size_t)ne, sizeof(int)), ne, nt};
	owner_count got = {w, calloc((size_t)nv * (size_t)nt, sizeof(int)), calloc((size_t)ne * (size_t)ne, sizeof(int)), ne, nt};
	CHECK(stamp && want.vt && want.ee && got.vt && got.ee);
	const uint32_t serial = 7;
	for (int i = 0; i < nv; ++i)
		stamp[i] = uniform() < 0.15 ? serial : 1;
	// Some windows wholly listed, some in part (a random choice of their rectangles).
	for (int k = 0; k < n->window_count; ++k) {
		double u = uniform();
		uint64_t some = 0;
		for (int bit = 0; bit < 64; ++bit)
			some |= (uint64_t)(uniform() < 0.5) << bit;
		n->listed[k] = u < 0.2 ? ~(uint64_t)0 : u < 0.4 ? some : 0;
	}
	// What the windows own, kept where its rectangle is listed and a primitive moved.
	pbd_near_visitor all = {count_vt, count_ee, &want};
	for (int k = 0; k < n->window_count; ++k)
		pbd_near_window_pairs(w, k, n->listed[k], &all);
	long expected = 0;
	for (int q = 0; q < nv; ++q)
		for (int t = 0; t < nt; ++t) {
			int *slot = &want.vt[(size_t)q * (size_t)nt + t];
			const uint32_t *tri = w->topology.tri + 3 * t;
			bool moved = stamp[q] == serial || stamp[tri[0]] == serial || stamp[tri[1]] == serial || stamp[tri[2]] == serial;
			*slot = *slot && moved;
			expected += *slot;
		}
	for (int a = 0; a < ne; ++a)
		for (int e = 0; e < ne; ++e) {
			int *slot = &want.ee[(size_t)a * (size_t)ne + e];
			const uint32_t *ea = w->topology.edge + 2 * a, *eb = w->topology.edge + 2 * e;
			bool moved = stamp[ea[0]] == serial || stamp[ea[1]] == serial || stamp[eb[0]] == serial || stamp[eb[1]] == serial;
			*slot = *slot && moved;
			expected += *slot;
		}
	pbd_near_visitor found = {count_vt, count_ee, &got};
	for (int i = 0; i < nv; ++i)
		if (stamp[i] == serial)
			pbd_near_moved_pairs(w, (uint32_t)i, stamp, serial, &found);
	CHECK(memcmp(want.vt, got.vt, sizeof(int) * (size_t)nv * (size_t)nt) == 0);
	CHECK(memcmp(want.ee, got.ee, sizeof(int) * (size_t)ne * (size_t)ne) == 0);
	fprintf(stderr, "%ld pairs of listed rectangles with a moved primitive, each found once\n", expected);
	CHECK(expected > 1000);
	free(stamp);
	free(want.vt), free(want.ee), free(got.vt), free(got.ee);
	pbd_world_destroy(w);
	return 0;
}

static int certified_count(pbd_world *w, const bend *from, const bend *to)
{
	place(w, w->particles.x, from);
	place(w, w->particles.p, to);
	pbd_near_certify(w);
	int count = 0;
	for (int k = 0; k < w->pairs.near.window_count; ++k)
		count += w->pairs.near.certified[k];
	return count;
}

// What a person would expect: a sheet lying flat or moving rigidly, or rolled gently, holds
// all its pairs apart; one folded on itself (a crease of radius under an edge) does not where
// it folds, and a sheet squeezed to half its width does not at all.
static int flat_and_curved_certify_creases_do_not(void)
{
	pbd_cloth_id cloth;
	const float edge = 0.01f;
	pbd_world *w = grid_world(40, edge, 1.2f * edge, &cloth);
	CHECK(w);
	int windows = w->pairs.near.window_count;
	bend flat = {0.0, 0.0, 0.0, 0.0, v3(0, 0.5f, 0), 1.0}, moved = {0.0, 0.3, 0.5, 0.0, v3(0.02f, 0.51f, 0), 1.0};
	CHECK(certified_count(w, &flat, &moved) == windows);
	// Rolled into a cylinder of radius 5 cm: a window (4 edges, 4 cm) turns by 46 degrees.
	bend rolled = {20.0, 0.4, 0.0, 0.0, v3(0, 0.5f, 0), 1.0};
	CHECK(certified_count(w, &rolled, &rolled) == windows);
	// A radius of half an edge: the sheet wraps round its rows many times. The windows of the
	// last column are one quad wide (cut off at the border): their pairs lie along a fold line,
	// where the sheet does not bend, and only they certify.
	bend creased = {200.0, 0.0, 0.0, 0.0, v3(0, 0.5f, 0), 1.0};
	CHECK(certified_count(w, &creased, &creased) == 39);
	for (int k = 0; k < windows; ++k)
		CHECK(!w->pairs.near.certified[k] || k % 39 == 38);
	// Squeezed: x halved (triangles at half their width: sigma 0.5).
	for (int i = 0; i < w->particles.count; ++i) {
		pbd_v3 r = w->particles.rest[i];
		v4_set3(&w->particles.x[i], v3(0.5f * r.x, 0.5f, r.z));
		w->particles.p[i] = w->particles.x[i];
	}
	pbd_near_certify(w);
	int squeezed = 0;
	for (int k = 0; k < windows; ++k)
		squeezed += w->pairs.near.certified[k];
	CHECK(squeezed == 0);
	pbd_world_destroy(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(certified_windows_keep_their_pairs_apart),
		TEST(narrow_windows_keep_their_pairs_apart),
		TEST(windows_own_every_near_pair_once),
		TEST(narrow_windows_own_every_near_pair_once),
		TEST(moved_pairs_are_those_of_listed_windows),
		TEST(flat_and_curved_certify_creases_do_not),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
