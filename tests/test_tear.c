// SPDX-License-Identifier: MIT
// Tearing and cutting: what a split keeps (mass, momentum, triangles), what a cut across a
// grid leaves (two pieces, each with one boundary loop, the boundary edges the cut path
// predicts), and torn scenes checked frame by frame with the independent intersection check.
#include <stdbool.h>
#include <stdlib.h>

#include "intersect_check.h"
#include "test.h"
#include "../demos/scenes/scenes.h"

static pbd_world *new_world(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w = NULL;
	return pbd_world_create(&wd, &w) == PBD_OK ? w : NULL;
}

// A flat grid of res x res in the plane y = 0, moving with a velocity that differs per vertex
// (so momentum is a real test of how a split shares mass).
static pbd_cloth_id flat_grid(pbd_world *w, int res)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = res;
	pbd_cloth_id id;
	if (pbd_cloth_create(w, &d, &id) != PBD_OK)
		return (pbd_cloth_id){0, 0};
	int n;
	const float *x = pbd_cloth_positions(w, id, &n);
	float *v = malloc(sizeof *v * 3 * (size_t)n);
	for (int i = 0; i < n; ++i) {
		v[3 * i] = 1.0f + x[3 * i + 2];
		v[3 * i + 1] = 0.5f * x[3 * i];
		v[3 * i + 2] = -2.0f + 3.0f * x[3 * i] * x[3 * i + 2];
	}
	pbd_cloth_set_velocities(w, id, v, n);
	free(v);
	return id;
}

typedef struct mass_moments {
	double mass, momentum[3];
} mass_moments;

static mass_moments moments(const pbd_world *w, pbd_cloth_id id)
{
	mass_moments m = {0};
	int n;
	const float *v = pbd_cloth_velocities(w, id, &n);
	for (int i = 0; i < n; ++i) {
		float inv;
		pbd_cloth_get_inverse_mass(w, id, i, &inv);
		double mi = 1.0 / inv;
		m.mass += mi;
		for (int k = 0; k < 3; ++k)
			m.momentum[k] += mi * v[3 * i + k];
	}
	return m;
}

static long crossings(const pbd_world *w, const pbd_cloth_id *ids, int count)
{
	check_mesh meshes[8];
	for (int i = 0; i < count; ++i) {
		int n, nt;
		meshes[i].positions = pbd_cloth_positions(w, ids[i], &n);
		meshes[i].indices = pbd_cloth_indices(w, ids[i], &nt);
		meshes[i].triangle_count = nt;
	}
	return check_count_intersections(meshes, count);
}

static int split_keeps_mass_and_momentum(void)
{
	pbd_world *w = new_world();
	CHECK(w);
	pbd_cloth_id id = flat_grid(w, 9);
	mass_moments before = moments(w, id);
	int n0, nt0, nt1;
	const float *x0 = pbd_cloth_positions(w, id, &n0);
	float centre[3] = {x0[3 * 40], x0[3 * 40 + 1], x0[3 * 40 + 2]};  // the middle vertex (4, 4)
	pbd_cloth_indices(w, id, &nt0);
	int fresh;
	const float normal[3] = {1.0f, 0.0f, 0.0f};
	CHECK_OK(pbd_cloth_split_vertex(w, id, 40, normal, &fresh));
	CHECK(fresh == 81);
	int n1;
	const float *x1 = pbd_cloth_positions(w, id, &n1);
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt1);
	CHECK(n1 == 82 && nt1 == nt0);
	// The copy took the triangles whose centres lie at x > centre, the vertex kept the others.
	int moved = 0, kept = 0;
	for (int t = 0; t < nt1; ++t) {
		float cx = (x1[3 * tri[3 * t]] + x1[3 * tri[3 * t + 1]] + x1[3 * tri[3 * t + 2]]) / 3.0f;
		for (int k = 0; k < 3; ++k) {
			if (tri[3 * t + k] == 81) {
				CHECK(cx > centre[0]);
				moved++;
			}
			if (tri[3 * t + k] == 40) {
				CHECK(cx < centre[0]);
				kept++;
			}
		}
	}
	CHECK(moved == 4 && kept == 4);  // the vertex (4, 4), where four diagonals meet, has 8 triangles
	// The two copies moved apart along the normal, each by 2% of the shortest edge.
	CHECK(x1[3 * 81] > centre[0] && x1[3 * 40] < centre[0]);
	CHECK_NEAR(x1[3 * 81] - x1[3 * 40], 2.0 * 0.02 * (1.0 / 8.0), 1e-6);
	CHECK_NEAR(x1[3 * 81 + 1], centre[1], 1e-7);
	int origins;
	const uint32_t *origin = pbd_cloth_vertex_origins(w, id, &origins);
	CHECK(origins == 82 && origin[81] == 40 && origin[40] == 40 && origin[7] == 7);
	mass_moments after = moments(w, id);
	CHECK_NEAR(after.mass, before.mass, 1e-6 * before.mass);
	for (int k = 0; k < 3; ++k)
		CHECK_NEAR(after.momentum[k], before.momentum[k], 1e-6 * before.mass);
	// One interior split opens no hole: still one piece. A pinned vertex does not split.
	int pieces;
	CHECK_OK(pbd_cloth_pieces(w, id, NULL, 0, &pieces));
	CHECK(pieces == 1);
	float here[3] = {x1[0], x1[1], x1[2]};
	CHECK_OK(pbd_cloth_pin_vertex(w, id, 0, here));
	CHECK_OK(pbd_cloth_split_vertex(w, id, 0, normal, &fresh));
	CHECK(fresh == -1);
	// Bad input: a zero normal, a vertex out of range; the cloth is unchanged.
	const float zero[3] = {0, 0, 0};
	CHECK(pbd_cloth_split_vertex(w, id, 10, zero, &fresh) == PBD_ERR_ZERO_NORMAL);
	CHECK(pbd_cloth_split_vertex(w, id, 82, normal, &fresh) == PBD_ERR_INDEX_OUT_OF_RANGE);
	pbd_cloth_positions(w, id, &n1);
	CHECK(n1 == 82);
	// The split cloth steps like any other.
	for (int s = 0; s < 10; ++s)
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
	CHECK(crossings(w, &id, 1) == 0);
	pbd_world_destroy(w);
	return 0;
}

static int compare_keys(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : (a > b ? 1 : 0);
}

// Boundary edges (edges of one triangle) of the triangles of one piece, and how many closed
// loops they form (each boundary vertex of a manifold piece has two boundary edges).
static void boundary_of_piece(const uint32_t *tri, int nt, const uint32_t *piece, uint32_t which, int nv,
			      int *edges_out, int *loops_out)
{
	int cap = 3 * nt;
	uint64_t *keys = malloc(sizeof *keys * (size_t)cap);
	int n = 0;
	for (int t = 0; t < nt; ++t) {
		if (piece[t] != which)
			continue;
		for (int k = 0; k < 3; ++k) {
			uint32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
			keys[n++] = a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
		}
	}
	qsort(keys, (size_t)n, sizeof *keys, compare_keys);
	int *next = malloc(sizeof *next * (size_t)nv * 2);
	for (int i = 0; i < 2 * nv; ++i)
		next[i] = -1;
	int edges = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && keys[j] == keys[i])
			j++;
		if (j - i == 1) {
			uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
			edges++;
			next[2 * a + (next[2 * a] >= 0)] = (int)b;
			next[2 * b + (next[2 * b] >= 0)] = (int)a;
		}
		i = j;
	}
	// Walk the loops.
	char *seen = calloc((size_t)nv, 1);
	int loops = 0;
	for (int v = 0; v < nv; ++v) {
		if (next[2 * v] < 0 || seen[v])
			continue;
		loops++;
		int prev = -1, at = v;
		while (!seen[at]) {
			seen[at] = 1;
			int go = next[2 * at] != prev ? next[2 * at] : next[2 * at + 1];
			prev = at;
			at = go;
		}
	}
	free(seen);
	free(next);
	free(keys);
	*edges_out = edges;
	*loops_out = loops;
}

static int straight_cut_makes_two_pieces(void)
{
	pbd_world *w = new_world();
	CHECK(w);
	const int res = 16;
	pbd_cloth_id id = flat_grid(w, res);
	mass_moments before = moments(w, id);
	int n0, nt;
	const float *x = pbd_cloth_positions(w, id, &n0);
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt);
	// The cut's path, predicted from the grid alone: the triangles on each side of the plane
	// x = 0.01 (by their centres), and the edges between a triangle of each side.
	const float point[3] = {0.01f, 0.0f, 0.0f}, normal[3] = {1.0f, 0.0f, 0.0f};
	char *side = malloc((size_t)nt);
	for (int t = 0; t < nt; ++t)
		side[t] = (x[3 * tri[3 * t]] + x[3 * tri[3 * t + 1]] + x[3 * tri[3 * t + 2]]) / 3.0f > point[0];
	int cut_edges = 0;
	for (int a = 0; a < nt; ++a)
		for (int b = a + 1; b < nt; ++b) {
			int shared = 0;
			for (int p = 0; p < 3; ++p)
				for (int q = 0; q < 3; ++q)
					shared += tri[3 * a + p] == tri[3 * b + q];
			cut_edges += shared == 2 && side[a] != side[b];
		}
	CHECK(cut_edges == res - 1);  // the diagonals of one column of cells, a zigzag
	int splits;
	CHECK_OK(pbd_cloth_cut(w, id, point, normal, 10.0f, &splits));
	int n1, nt1;
	pbd_cloth_positions(w, id, &n1);
	const uint32_t *after = pbd_cloth_indices(w, id, &nt1);
	CHECK(nt1 == nt && n1 == n0 + splits && splits > 0);
	uint32_t *piece = malloc(sizeof *piece * (size_t)nt);
	int pieces;
	CHECK_OK(pbd_cloth_pieces(w, id, piece, nt, &pieces));
	CHECK(pieces == 2);
	// Each piece is one side of the plane, with one boundary loop: the grid's border on its
	// side joined by its lip of the cut.
	int edges_total = 0;
	for (uint32_t p = 0; p < 2; ++p) {
		int edges, loops;
		boundary_of_piece(after, nt, piece, p, n1, &edges, &loops);
		CHECK(loops == 1);
		edges_total += edges;
	}
	for (int t = 0; t < nt; ++t)
		CHECK(side[t] == (char)(piece[t] != piece[0] ? !side[0] : side[0]));
	CHECK(edges_total == 4 * (res - 1) + 2 * cut_edges);
	mass_moments m = moments(w, id);
	CHECK_NEAR(m.mass, before.mass, 1e-6 * before.mass);
	for (int k = 0; k < 3; ++k)
		CHECK_NEAR(m.momentum[k], before.momentum[k], 1e-6 * before.mass);
	// Falling, the two halves stay apart and clear of each other.
	for (int s = 0; s < 30; ++s) {
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		CHECK(crossings(w, &id, 1) == 0);
	}
	// Bad blades are refused and change nothing.
	const float nan3[3] = {NAN, 0, 0};
	CHECK(pbd_cloth_cut(w, id, nan3, normal, 1.0f, &splits) == PBD_ERR_NOT_FINITE);
	CHECK(pbd_cloth_cut(w, id, point, normal, -1.0f, &splits) == PBD_ERR_NEGATIVE);
	CHECK(pbd_cloth_cut(w, id, NULL, normal, 1.0f, &splits) == PBD_ERR_NULL_ARGUMENT);
	CHECK(pbd_cloth_pieces(w, id, piece, nt - 1, &pieces) == PBD_ERR_BAD_COUNT);
	pbd_cloth_positions(w, id, &n0);
	CHECK(n0 == n1);
	free(piece);
	free(side);
	pbd_world_destroy(w);
	return 0;
}

// ---- The tear scene

typedef struct tear_run {
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	int res;
} tear_run;

static int tear_open(tear_run *r, int substeps)
{
	r->scene = demo_scene_find("tear");
	CHECK(r->scene);
	r->res = 32;
	demo_scene_options o = {0};
	o.res = r->res;
	char err[256];
	CHECK_OK(demo_scene_load(r->scene, &o, NULL, &r->w, &r->st, err, sizeof err));
	if (substeps > 0)
		CHECK_OK(pbd_world_set_substeps(r->w, substeps));
	return 0;
}

static float fastest_vertex(const pbd_world *w, pbd_cloth_id id)
{
	int n;
	const float *v = pbd_cloth_velocities(w, id, &n);
	float worst = 0.0f;
	for (int i = 0; i < n; ++i)
		worst = fmaxf(worst, sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
	return worst;
}

// Boundary edges of a whole cloth (edges of one triangle).
static int boundary_edges(const pbd_world *w, pbd_cloth_id id)
{
	int nt, nv, edges, loops;
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt);
	pbd_cloth_positions(w, id, &nv);
	uint32_t *piece = calloc((size_t)nt, sizeof *piece);
	boundary_of_piece(tri, nt, piece, 0, nv, &edges, &loops);
	free(piece);
	return edges;
}

// The piece of the sheet holding grid vertex v (the piece of its first triangle).
static int piece_of_vertex(const pbd_world *w, pbd_cloth_id id, uint32_t v)
{
	int nt, pieces;
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt);
	uint32_t *piece = malloc(sizeof *piece * (size_t)nt);
	int found = -1;
	if (pbd_cloth_pieces(w, id, piece, nt, &pieces) == PBD_OK)
		for (int t = 0; t < nt && found < 0; ++t)
			if (tri[3 * t] == v || tri[3 * t + 1] == v || tri[3 * t + 2] == v)
				found = (int)piece[t];
	free(piece);
	return found;
}

// Energy of the piece of the sheet holding vertex `held`, in the frame of the hand that moves
// it at `hand_velocity` along x: kinetic energy relative to the hand plus weight times height
// (vertices the hand holds exactly carry none).
static double piece_energy(const pbd_world *w, pbd_cloth_id id, uint32_t held, float hand_velocity)
{
	int nt, n, pieces;
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt);
	const float *x = pbd_cloth_positions(w, id, &n);
	const float *v = pbd_cloth_velocities(w, id, &n);
	uint32_t *piece = malloc(sizeof *piece * (size_t)nt);
	char *in = calloc((size_t)n, 1);
	pbd_cloth_pieces(w, id, piece, nt, &pieces);
	int which = piece_of_vertex(w, id, held);
	for (int t = 0; t < nt; ++t)
		if ((int)piece[t] == which)
			in[tri[3 * t]] = in[tri[3 * t + 1]] = in[tri[3 * t + 2]] = 1;
	double e = 0.0;
	for (int i = 0; i < n; ++i) {
		float inv;
		pbd_cloth_get_inverse_mass(w, id, i, &inv);
		if (!in[i] || inv == 0.0f)
			continue;
		double m = 1.0 / inv, dv = v[3 * i] - hand_velocity;
		e += m * (0.5 * (dv * dv + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]) + 9.81 * x[3 * i + 1]);
	}
	free(in);
	free(piece);
	return e;
}

// The tear scene as a person sees it: the ball tears the curtain (it gains vertices and a
// longer border) and flies on; the hands pull the notched sheet into two pieces, one in each
// hand. In every frame nothing crosses, no curtain vertex moves faster than the ball could
// throw it (twice its speed plus a fall from the curtain's top) and no sheet vertex faster than
// twice what the recoil of its stretched edges gave it, and once the sheet is in two, neither
// piece gains energy in its hand's frame (it swings and settles).
static int tear_scene_run(int substeps, int frames, bool outcome)
{
	tear_run r;
	if (tear_open(&r, substeps))
		return 1;
	pbd_cloth_id curtain = r.st.cloths[0], sheet = r.st.cloths[1];
	int curtain_start, sheet_rows = r.res / 2;
	pbd_cloth_positions(r.w, curtain, &curtain_start);
	int border_start = boundary_edges(r.w, curtain);
	uint32_t left = (uint32_t)((sheet_rows / 2) * r.res), right = left + (uint32_t)r.res - 1;
	double energy[2] = {0, 0};
	int apart_at = -1, splits = 0;
	for (int f = 0; f < frames; ++f) {
		CHECK_OK(demo_scene_step(r.scene, r.w, &r.st, 1.0f / 60.0f));
		splits += pbd_world_get_stats(r.w).tear_splits;
		pbd_cloth_id both[2] = {curtain, sheet};
		long crossing = crossings(r.w, both, 2);
		if (crossing)
			fprintf(stderr, "frame %d: %ld crossings\n", f, crossing);
		CHECK(crossing == 0);
		CHECK(fastest_vertex(r.w, curtain) < 2.0f * 20.0f + 5.0f);
		CHECK(fastest_vertex(r.w, sheet) < 15.0f);  // the lips of a 40% stretch spring back (7.4 m/s seen)
		if (!outcome)
			continue;
		bool apart = piece_of_vertex(r.w, sheet, left) != piece_of_vertex(r.w, sheet, right);
		if (apart && apart_at < 0) {
			apart_at = f;
			energy[0] = piece_energy(r.w, sheet, left, -0.1f);
			energy[1] = piece_energy(r.w, sheet, right, 0.1f);
		} else if (apart && f > apart_at + 30) {  // the last splits of the tear are behind it
			double now[2] = {piece_energy(r.w, sheet, left, -0.1f), piece_energy(r.w, sheet, right, 0.1f)};
			for (int k = 0; k < 2; ++k)
				CHECK(now[k] <= energy[k] + 1e-3 * fabs(energy[k]));
		}
		if (apart && f == apart_at + 30) {
			energy[0] = piece_energy(r.w, sheet, left, -0.1f);
			energy[1] = piece_energy(r.w, sheet, right, 0.1f);
		}
	}
	int curtain_now;
	pbd_cloth_positions(r.w, curtain, &curtain_now);
	int border_now = boundary_edges(r.w, curtain);
	fprintf(stderr, "tear at %d substeps: %d splits; curtain %d -> %d vertices, border %d -> %d edges; sheet in two "
			"at frame %d\n", substeps, splits, curtain_start, curtain_now, border_start, border_now, apart_at);
	CHECK(splits > 0);
	if (outcome) {
		CHECK(curtain_now > curtain_start + 10 && border_now > border_start + 20);
		CHECK(apart_at > 0 && apart_at + 30 < frames);
	}
	pbd_world_destroy(r.w);
	return 0;
}

static int tear_scene_comes_apart(void) { return tear_scene_run(0, 260, true); }

// At one substep a step stretches cloth far more, so both cloths tear to shreds: still nothing
// crosses and nothing is flung.
static int tear_scene_one_substep(void) { return tear_scene_run(1, 70, false); }

// A line weakened to half the tear strain decides where a pulled sheet parts: every triangle
// left of it stays with the left hand, every one right of it with the right.
static int weakness_map_guides_the_tear(void)
{
	pbd_world *w = new_world();
	CHECK(w);
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = 24;
	d.grid.res_y = 12;
	d.grid.width = 0.6f;
	d.grid.height = 0.3f;
	d.material.tear_strain = 0.5f;
	d.material.tether_slack = -1.0f;
	d.rotation[0] = sinf(0.25f * 3.14159265f);  // upright: 90 degrees about x
	d.rotation[3] = cosf(0.25f * 3.14159265f);
	d.position[1] = 1.0f;
	pbd_cloth_id id;
	CHECK_OK(pbd_cloth_create(w, &d, &id));
	int n;
	const float *x = pbd_cloth_positions(w, id, &n);
	const float line = 0.1f, spacing = d.grid.width / (float)(d.grid.res_x - 1);
	float *share = malloc(sizeof *share * (size_t)n);
	for (int i = 0; i < n; ++i)
		share[i] = fabsf(x[3 * i] - line) < 0.6f * spacing ? 0.5f : 1.0f;
	CHECK(pbd_cloth_set_tear_weakness(w, id, share, n - 1) == PBD_ERR_BAD_COUNT);
	share[0] = 0.0f;
	CHECK(pbd_cloth_set_tear_weakness(w, id, share, n) == PBD_ERR_OUT_OF_RANGE);
	share[0] = 1.0f;
	CHECK_OK(pbd_cloth_set_tear_weakness(w, id, share, n));
	free(share);
	float rest_x[24 * 12];
	for (int i = 0; i < n; ++i)
		rest_x[i] = x[3 * i];
	uint32_t column[2][12];
	pbd_attachment_id hands[2];
	for (int side = 0; side < 2; ++side) {
		for (int j = 0; j < 12; ++j)
			column[side][j] = (uint32_t)(j * 24 + (side ? 23 : 0));
		pbd_attachment_def a = pbd_attachment_def_default();
		a.cloth = id;
		a.vertices = column[side];
		a.vertex_count = 12;
		CHECK_OK(pbd_attachment_create(w, &a, &hands[side]));
	}
	const float identity[4] = {0, 0, 0, 1};
	for (int f = 0; f < 240; ++f) {
		float pull = 0.1f * (float)f / 60.0f, at[2][3] = {{-pull, 0, 0}, {pull, 0, 0}};
		for (int side = 0; side < 2; ++side)
			CHECK_OK(pbd_attachment_set_pose(w, hands[side], at[side], identity));
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		CHECK(crossings(w, &id, 1) == 0);
	}
	int nt, pieces;
	const uint32_t *tri = pbd_cloth_indices(w, id, &nt);
	const uint32_t *origin = pbd_cloth_vertex_origins(w, id, &n);
	uint32_t *piece = malloc(sizeof *piece * (size_t)nt);
	CHECK_OK(pbd_cloth_pieces(w, id, piece, nt, &pieces));
	int left = piece_of_vertex(w, id, 6 * 24), right = piece_of_vertex(w, id, 6 * 24 + 23);
	fprintf(stderr, "weakness map: %d pieces, hands in %d and %d\n", pieces, left, right);
	CHECK(left != right);
	for (int t = 0; t < nt; ++t) {
		float cx = (rest_x[origin[tri[3 * t]]] + rest_x[origin[tri[3 * t + 1]]] + rest_x[origin[tri[3 * t + 2]]]) / 3.0f;
		if (cx < line - 1.5f * spacing)
			CHECK((int)piece[t] == left);
		if (cx > line + 1.5f * spacing)
			CHECK((int)piece[t] == right);
	}
	free(piece);
	pbd_world_destroy(w);
	return 0;
}

static const test_case cases[] = {
	TEST(split_keeps_mass_and_momentum),
	TEST(straight_cut_makes_two_pieces),
	TEST(weakness_map_guides_the_tear),
	SLOW_TEST(tear_scene_comes_apart),
	SLOW_TEST(tear_scene_one_substep),
};

int main(int argc, char **argv) { return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0])); }
