// SPDX-License-Identifier: MIT
// OBJ import and export: every index form, polygons, welding, round trips through files
// (bit for bit), and bad files rejected with file:line messages and no crash.
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static void temp_path(char *out, size_t size, const char *leaf)
{
	const char *dir = getenv("TMPDIR");
	snprintf(out, size, "%s/pbd_test_obj_%ld_%s", dir && *dir ? dir : "/tmp", (long)getpid(), leaf);
}

static int write_file(const char *path, const char *text, size_t length)
{
	FILE *f = fopen(path, "wb");
	CHECK(f);
	CHECK(fwrite(text, 1, length, f) == length);
	CHECK(fclose(f) == 0);
	return 0;
}

static int parse(const char *text, const pbd_obj_options *o, pbd_mesh *m, char *err, size_t cap)
{
	return pbd_mesh_parse_obj(text, strlen(text), "mesh.obj", o, m, err, cap);
}

static int index_forms_and_polygons(void)
{
	// A unit square as a quad with v/vt/vn corners, then a triangle in each other form and
	// with negative indices (relative to the vertices defined so far).
	const char *text = "# test\n"
			   "mtllib x.mtl\no square\n"
			   "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1 1.0\n"
			   "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 1 0\n"
			   "usemtl cloth\ns off\n"
			   "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
			   "v 2 0 0 0.5 0.5 0.5\n"  // x y z with a color
			   "f 2//1 5//1 3//1\r\n"   // a CRLF line
			   "v 2 0 1.5\n"
			   "f -2/2 -1/3 -4/4\n"     // = 5 6 3
			   "\tf  4   3    6 \n"
			   "l 1 2\n";
	pbd_mesh m;
	char err[256];
	CHECK_OK(parse(text, NULL, &m, err, sizeof err));
	CHECK(m.vertex_count == 6);
	CHECK(m.triangle_count == 2 + 1 + 1 + 1);
	CHECK(m.polygons_split == 1);
	// The fan of the quad: (1 2 3) (1 3 4), 0-based; all wound one way already.
	const uint32_t expect[15] = {0, 1, 2, 0, 2, 3, 1, 4, 2, 4, 5, 2, 3, 2, 5};
	for (int k = 0; k < 15; ++k)
		CHECK(m.indices[k] == expect[k]);
	CHECK(m.faces_reoriented == 0 && m.pieces == 1 && m.boundary_loops == 1 && m.edges_non_manifold == 0);
	CHECK(m.positions[12] == 2.0f && m.positions[13] == 0.0f && m.positions[14] == 0.0f);
	pbd_mesh_free(&m);
	CHECK(m.positions == NULL && m.vertex_count == 0);
	return 0;
}

static int welding(void)
{
	// Two triangles written with their own copies of the shared edge (as exporters do at
	// seams), one copy 1e-4 m off, and a vertex no face uses.
	const char *text = "v 0 0 0\nv 1 0 0\nv 0 0 1\n"
			   "v 1 0 0\nv 1.0001 0 1\nv 0 0 1\nv 1 0 1\n"
			   "v 9 9 9\n"
			   "f 1 2 3\nf 4 5 6\n";
	pbd_mesh m;
	char err[256];
	CHECK_OK(parse(text, NULL, &m, err, sizeof err));
	CHECK(m.vertex_count == 6 && m.vertices_welded == 0 && m.vertices_unused == 2);
	pbd_mesh_free(&m);
	pbd_obj_options o = pbd_obj_options_default();
	o.weld_distance = 0.0f;  // exact duplicates only
	CHECK_OK(parse(text, &o, &m, err, sizeof err));
	CHECK(m.vertex_count == 4 && m.vertices_welded == 2 && m.vertices_unused == 2);
	CHECK(m.indices[3] == 1 && m.indices[5] == 2);  // the second triangle uses the first's copies
	pbd_mesh_free(&m);
	o.weld_distance = 1e-3f;  // within a millimetre: 1.0001 0 1 and 1 0 1 (unused) both go
	CHECK_OK(parse(text, &o, &m, err, sizeof err));
	CHECK(m.vertex_count == 4 && m.vertices_welded == 3 && m.vertices_unused == 1);
	pbd_mesh_free(&m);
	// A sliver that welding collapses is dropped, not passed on as a degenerate triangle.
	const char *sliver = "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0.5 0 0.00001\nf 1 2 3\nf 1 2 4\n";
	o.weld_distance = 1e-3f;
	CHECK(parse(sliver, &o, &m, err, sizeof err) == PBD_OK);
	CHECK(m.triangle_count == 2);  // 4 is 0.5 m from everything: nothing to weld
	pbd_mesh_free(&m);
	o.weld_distance = 0.6f;
	CHECK_OK(parse(sliver, &o, &m, err, sizeof err));
	CHECK(m.triangle_count == 1 && m.triangles_dropped == 1);
	pbd_mesh_free(&m);
	return 0;
}

// The dump writer's output read back gives the same floats, bit for bit, and the same faces.
static int round_trip(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w;
	CHECK_OK(pbd_world_create(&wd, &w));
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = 13;
	cd.grid.res_y = 7;
	cd.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	pbd_cloth_id cloth;
	CHECK_OK(pbd_cloth_create(w, &cd, &cloth));
	for (int f = 0; f < 20; ++f)
		CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));  // unround numbers
	pbd_mesh a = {0};
	const float *x = pbd_cloth_positions(w, cloth, &a.vertex_count);
	const uint32_t *idx = pbd_cloth_indices(w, cloth, &a.triangle_count);
	a.positions = (float *)x;
	a.indices = (uint32_t *)idx;
	char path[512], path2[512], err[512];
	temp_path(path, sizeof path, "a.obj");
	temp_path(path2, sizeof path2, "b.obj");
	CHECK_OK(pbd_mesh_save_obj(path, &a, err, sizeof err));
	pbd_mesh b, c;
	CHECK_OK(pbd_mesh_load_obj(path, NULL, &b, err, sizeof err));
	CHECK(b.vertex_count == a.vertex_count && b.triangle_count == a.triangle_count);
	CHECK(memcmp(b.positions, a.positions, (size_t)a.vertex_count * 3 * sizeof(float)) == 0);
	CHECK(memcmp(b.indices, a.indices, (size_t)a.triangle_count * 3 * sizeof(uint32_t)) == 0);
	// import -> export -> import: the same mesh again, and the same file text.
	CHECK_OK(pbd_mesh_save_obj(path2, &b, err, sizeof err));
	CHECK_OK(pbd_mesh_load_obj(path2, NULL, &c, err, sizeof err));
	CHECK(c.vertex_count == b.vertex_count && c.triangle_count == b.triangle_count);
	CHECK(memcmp(c.positions, b.positions, (size_t)b.vertex_count * 3 * sizeof(float)) == 0);
	CHECK(memcmp(c.indices, b.indices, (size_t)b.triangle_count * 3 * sizeof(uint32_t)) == 0);
	// The loaded mesh makes a cloth.
	pbd_cloth_def md = pbd_cloth_def_default();
	md.source = PBD_CLOTH_MESH;
	md.mesh.positions = c.positions;
	md.mesh.vertex_count = c.vertex_count;
	md.mesh.indices = c.indices;
	md.mesh.triangle_count = c.triangle_count;
	pbd_cloth_id copy;
	CHECK_OK(pbd_cloth_create(w, &md, &copy));
	remove(path);
	remove(path2);
	pbd_mesh_free(&b);
	pbd_mesh_free(&c);
	pbd_world_destroy(w);
	return 0;
}

typedef struct bad_case {
	const char *text;
	pbd_result code;
	const char *message;  // must appear in the error
} bad_case;

static int bad_files_rejected(void)
{
	static const bad_case cases[] = {
		{"v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", PBD_ERR_PARSE, "mesh.obj:2: a vertex needs 3 coordinates, found 2"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\nf 3 2 1\n", PBD_ERR_PARSE,
		 "mesh.obj:7: the face repeats the triangle of line 5"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", PBD_ERR_PARSE, "mesh.obj:4: a face needs at least 3 corners"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", PBD_ERR_PARSE, "mesh.obj:4: vertex index 4 is out of range"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", PBD_ERR_PARSE, "mesh.obj:4: vertex index -4 is out of range"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", PBD_ERR_PARSE, "mesh.obj:4: vertex index 0 is out of range"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", PBD_ERR_PARSE, "mesh.obj:4: vertex index"},
		{"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", PBD_ERR_PARSE, "mesh.obj:2: coordinate 'nan' is NaN"},
		{"v 0 0 0\nv 1 inf 0\nv 0 1 0\nf 1 2 3\n", PBD_ERR_PARSE, "mesh.obj:2: coordinate 'inf'"},
		{"v 0 0 0\nv 1e39 0 0\nv 0 1 0\nf 1 2 3\n", PBD_ERR_PARSE, "mesh.obj:2: coordinate '1e39'"},
		{"v 0 0 0\nv 1 0 0x\nv 0 1 0\nf 1 2 3\n", PBD_ERR_PARSE, "mesh.obj:2: '0x' is not a number"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/x\n", PBD_ERR_PARSE, "mesh.obj:4: face corner '3/x' is malformed"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", PBD_ERR_PARSE, "mesh.obj:4: face corner 'a' is not an index"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3//-\n", PBD_ERR_PARSE, "mesh.obj:4: face corner '3//-' is malformed"},
		{"", PBD_ERR_PARSE, "mesh.obj: no vertices"},
		{"# nothing\n\n", PBD_ERR_PARSE, "mesh.obj: no vertices"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\n", PBD_ERR_PARSE, "mesh.obj: no faces"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 1 2\n", PBD_ERR_PARSE, "mesh.obj: no faces"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \n f", PBD_ERR_PARSE, "mesh.obj:5: a face needs at least 3 corners, found 0"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		pbd_mesh m;
		char err[256] = "unchanged";
		pbd_result r = parse(cases[i].text, NULL, &m, err, sizeof err);
		if (r != cases[i].code || strstr(err, cases[i].message) == NULL) {
			fprintf(stderr, "case %zu: got %d '%s', want %d '%s'\n", i, (int)r, err, (int)cases[i].code,
				cases[i].message);
			return 1;
		}
		CHECK(m.positions == NULL && m.indices == NULL && m.vertex_count == 0);
	}
	// A NUL byte in the middle of a line.
	static const char nul[] = "v 0 0 0\nv 1 0\0 0\nv 0 1 0\nf 1 2 3\n";
	pbd_mesh m;
	char err[256];
	CHECK(pbd_mesh_parse_obj(nul, sizeof nul - 1, "nul.obj", NULL, &m, err, sizeof err) == PBD_ERR_PARSE);
	CHECK(strstr(err, "nul.obj:2: NUL byte") != NULL);
	// Truncated in the middle of a number at the very end (no newline): the partial line is
	// still read as what it says.
	CHECK(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nv 1 2", NULL, &m, err, sizeof err) == PBD_ERR_PARSE);
	CHECK(strstr(err, "mesh.obj:5: a vertex needs 3 coordinates") != NULL);
	// Missing and unreadable files, a directory, a file over the size limit.
	char path[512];
	temp_path(path, sizeof path, "missing.obj");
	CHECK(pbd_mesh_load_obj(path, NULL, &m, err, sizeof err) == PBD_ERR_IO);
	CHECK(strstr(err, path) != NULL);
	CHECK(pbd_mesh_load_obj("/", NULL, &m, err, sizeof err) == PBD_ERR_IO);
	temp_path(path, sizeof path, "huge.obj");
	const char *tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
	CHECK(write_file(path, tri, strlen(tri)) == 0);
	pbd_obj_options o = pbd_obj_options_default();
	o.max_bytes = 16;
	CHECK(pbd_mesh_load_obj(path, &o, &m, err, sizeof err) == PBD_ERR_IO);
	CHECK(strstr(err, "larger than 16 bytes") != NULL);
	CHECK_OK(pbd_mesh_load_obj(path, NULL, &m, err, sizeof err));
	pbd_mesh_free(&m);
	remove(path);
	// A huge mesh (a 400 x 400 grid written as text): read without trouble.
	size_t cap = 40u << 20, len = 0;
	char *big = malloc(cap);
	CHECK(big);
	const int n = 400;
	for (int j = 0; j < n; ++j)
		for (int i = 0; i < n; ++i)
			len += (size_t)snprintf(big + len, cap - len, "v %d 0 %d\n", i, j);
	for (int j = 0; j + 1 < n; ++j)
		for (int i = 0; i + 1 < n; ++i)
			len += (size_t)snprintf(big + len, cap - len, "f %d %d %d %d\n", j * n + i + 1, j * n + i + 2,
						(j + 1) * n + i + 2, (j + 1) * n + i + 1);
	CHECK_OK(pbd_mesh_parse_obj(big, len, "big.obj", NULL, &m, err, sizeof err));
	CHECK(m.vertex_count == n * n && m.triangle_count == 2 * (n - 1) * (n - 1));
	pbd_mesh_free(&m);
	free(big);
	// Bad options and arguments.
	o = pbd_obj_options_default();
	o.internal_cookie = 0;
	CHECK(parse(tri, &o, &m, err, sizeof err) == PBD_ERR_BAD_DEF);
	o = pbd_obj_options_default();
	o.weld_distance = NAN;
	CHECK(parse(tri, &o, &m, err, sizeof err) == PBD_ERR_NOT_FINITE);
	CHECK(pbd_mesh_parse_obj(NULL, 5, "x", NULL, &m, err, sizeof err) == PBD_ERR_NULL_ARGUMENT);
	CHECK(pbd_mesh_load_obj(NULL, NULL, &m, NULL, 0) == PBD_ERR_NULL_ARGUMENT);
	CHECK(pbd_mesh_save_obj("/nonexistent-dir/x.obj", &m, err, sizeof err) == PBD_ERR_IO);
	pbd_mesh_free(NULL);
	return 0;
}

// Independent of the reader: a mesh winds consistently when no directed edge occurs twice
// (two triangles on one edge run along it in opposite directions).
static int directed_edge_repeats(const pbd_mesh *m)
{
	int n = 3 * m->triangle_count, repeats = 0;
	for (int a = 0; a < n; ++a) {
		int ta = a / 3, ka = a % 3;
		uint32_t u = m->indices[3 * ta + ka], v = m->indices[3 * ta + (ka + 1) % 3];
		for (int b = a + 1; b < n; ++b) {
			int tb = b / 3, kb = b % 3;
			repeats += m->indices[3 * tb + kb] == u && m->indices[3 * tb + (kb + 1) % 3] == v;
		}
	}
	return repeats;
}

// A grid of (n+1) x (n+1) vertices as OBJ text, two triangles per cell; the faces listed in
// `flip` are written the other way round.
static void grid_text(char *out, size_t cap, int n, const int *flip, int flips)
{
	size_t len = 0;
	for (int j = 0; j <= n; ++j)
		for (int i = 0; i <= n; ++i)
			len += (size_t)snprintf(out + len, cap - len, "v %d 0 %d\n", i, j);
	int face = 0;
	for (int j = 0; j < n; ++j)
		for (int i = 0; i < n; ++i)
			for (int half = 0; half < 2; ++half, ++face) {
				int a = j * (n + 1) + i + 1, b = a + 1, c = a + n + 2, d = a + n + 1;
				int t[3] = {a, half ? c : b, half ? d : c};
				bool turned = false;
				for (int f = 0; f < flips; ++f)
					turned |= flip[f] == face;
				len += (size_t)snprintf(out + len, cap - len, "f %d %d %d\n", t[0], turned ? t[2] : t[1],
							turned ? t[1] : t[2]);
			}
}

// Each piece is wound one way (the way most of its faces go), and what was found is counted.
static int mesh_topology_reported(void)
{
	pbd_mesh m;
	char err[256], text[4096];
	// One face of a 3 x 3 grid written backwards: it alone is turned.
	const int one[1] = {7};
	grid_text(text, sizeof text, 3, one, 1);
	CHECK_OK(parse(text, NULL, &m, err, sizeof err));
	CHECK(m.faces_reoriented == 1 && m.pieces == 1 && m.boundary_loops == 1 && m.edges_non_manifold == 0);
	CHECK(directed_edge_repeats(&m) == 0);
	CHECK(m.indices[3 * 7 + 1] == m.indices[3 * 6 + 2]);  // face 7 runs a -> c against face 6's c -> a again
	pbd_mesh_free(&m);
	// Most faces backwards: the few others are turned instead.
	const int most[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
	grid_text(text, sizeof text, 3, most, 15);
	CHECK_OK(parse(text, NULL, &m, err, sizeof err));
	CHECK(m.faces_reoriented == 3 && directed_edge_repeats(&m) == 0);
	pbd_mesh_free(&m);
	// A hole: the middle cell of a 3 x 3 grid left out gives a second boundary loop.
	const char *ring = "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nv 0 0 1\nv 1 0 1\nv 2 0 1\nv 3 0 1\n"
			   "v 0 0 2\nv 1 0 2\nv 2 0 2\nv 3 0 2\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\n"
			   "f 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 5 6 10 9\nf 7 8 12 11\n"
			   "f 9 10 14 13\nf 10 11 15 14\nf 11 12 16 15\n";
	CHECK_OK(parse(ring, NULL, &m, err, sizeof err));
	CHECK(m.boundary_loops == 2 && m.pieces == 1 && m.faces_reoriented == 0);
	pbd_mesh_free(&m);
	// Two separate triangles, one each way: two pieces, nothing to turn.
	CHECK_OK(parse("v 0 0 0\nv 1 0 0\nv 0 0 1\nv 5 0 0\nv 6 0 0\nv 5 0 1\nf 1 2 3\nf 4 6 5\n", NULL, &m, err,
		       sizeof err));
	CHECK(m.pieces == 2 && m.boundary_loops == 2 && m.faces_reoriented == 0);
	pbd_mesh_free(&m);
	// A closed tetrahedron with one face inside out: no boundary; one face turned.
	CHECK_OK(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 4 3\nf 1 4 3\n", NULL, &m, err,
		       sizeof err));
	CHECK(m.boundary_loops == 0 && m.pieces == 1 && m.faces_reoriented == 1 && directed_edge_repeats(&m) == 0);
	pbd_mesh_free(&m);
	// Three triangles on one edge: a non-manifold edge, across which pieces are not joined.
	CHECK_OK(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 2 1 5\n", NULL, &m, err,
		       sizeof err));
	CHECK(m.edges_non_manifold == 1 && m.pieces == 3 && m.faces_reoriented == 0);
	pbd_mesh_free(&m);
	// A Moebius strip of six quads: no winding fits; it is left as written.
	size_t len = 0;
	const int quads = 6;
	for (int k = 0; k < quads; ++k) {
		double a = 2.0 * 3.14159265358979 * k / quads, half = 0.5 * a;
		for (int s = -1; s <= 1; s += 2) {
			double r = 1.0 + 0.3 * s * cos(half);
			len += (size_t)snprintf(text + len, sizeof text - len, "v %.6f %.6f %.6f\n", r * cos(a), r * sin(a),
						0.3 * s * sin(half));
		}
	}
	for (int k = 0; k < quads; ++k) {
		int a = 2 * k + 1, b = 2 * k + 2, c = 2 * ((k + 1) % quads) + 1, d = c + 1;
		if (k + 1 == quads) {  // the half twist: the strip's sides swap at the seam
			int t = c;
			c = d;
			d = t;
		}
		len += (size_t)snprintf(text + len, sizeof text - len, "f %d %d %d %d\n", a, c, d, b);
	}
	CHECK_OK(parse(text, NULL, &m, err, sizeof err));
	CHECK(m.pieces == 1 && m.pieces_not_orientable == 1 && m.faces_reoriented == 0 && m.boundary_loops == 1);
	pbd_mesh_free(&m);
	// Welding can make two faces the same: refused, naming both lines.
	pbd_obj_options o = pbd_obj_options_default();
	o.weld_distance = 0.0f;
	const char *seam = "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\nf 1 4 3\n";
	CHECK(parse(seam, &o, &m, err, sizeof err) == PBD_ERR_PARSE);
	CHECK(strstr(err, "mesh.obj:6: the face repeats the triangle of line 5") != NULL);
	return 0;
}

// The progress callback: a grid of 3 MiB of text reports several times, rising, from 0 to 1;
// a callback that says stop half way gets PBD_ERR_CANCELLED, an empty mesh and a message,
// and a load after it is whole.
typedef struct progress_log {
	float seen[64];
	int count;
	float stop_at;  // returns 0 once the share reaches this (above 1: never)
} progress_log;

static int note_progress(float done, void *user)
{
	progress_log *log = user;
	if (log->count < 64)
		log->seen[log->count] = done;
	log->count++;
	return done < log->stop_at;
}

static int progress_reported_and_cancel_stops(void)
{
	// 300 x 300 vertices (about 3 MiB of text).
	enum { N = 300 };
	size_t cap = (size_t)N * N * 80, len = 0;
	char *text = malloc(cap);
	CHECK(text);
	for (int j = 0; j < N; ++j)
		for (int i = 0; i < N; ++i)
			len += (size_t)snprintf(text + len, cap - len, "v %.6f 0.123456 %.6f\n", i * 0.01, j * 0.01);
	for (int j = 0; j + 1 < N; ++j)
		for (int i = 0; i + 1 < N; ++i) {
			int a = j * N + i + 1;
			len += (size_t)snprintf(text + len, cap - len, "f %d %d %d\nf %d %d %d\n", a, a + 1, a + N + 1, a,
						a + N + 1, a + N);
		}
	progress_log log = {.stop_at = 2.0f};
	pbd_obj_options o = pbd_obj_options_default();
	o.progress = note_progress;
	o.progress_user = &log;
	pbd_mesh m;
	char err[256];
	CHECK_OK(pbd_mesh_parse_obj(text, len, "grid", &o, &m, err, sizeof err));
	CHECK(m.vertex_count == N * N && m.triangle_count == 2 * (N - 1) * (N - 1));
	pbd_mesh_free(&m);
	fprintf(stderr, "%zu bytes: %d reports\n", len, log.count);
	CHECK(log.count >= 5 && log.count <= 64);
	CHECK(log.seen[0] == 0.0f && log.seen[log.count - 1] == 1.0f);
	for (int k = 1; k < log.count; ++k)
		CHECK(log.seen[k] >= log.seen[k - 1]);
	// Stopped half way through the text.
	log = (progress_log){.stop_at = 0.4f};
	CHECK(pbd_mesh_parse_obj(text, len, "grid", &o, &m, err, sizeof err) == PBD_ERR_CANCELLED);
	CHECK(m.positions == NULL && m.indices == NULL && m.vertex_count == 0 && m.triangle_count == 0);
	CHECK(strstr(err, "cancelled") != NULL);
	CHECK(log.seen[log.count - 1] >= 0.4f && log.seen[log.count - 1] < 0.85f);
	// Stopped at the very end: still nothing is handed out.
	log = (progress_log){.stop_at = 1.0f};
	CHECK(pbd_mesh_parse_obj(text, len, "grid", &o, &m, err, sizeof err) == PBD_ERR_CANCELLED);
	CHECK(m.positions == NULL && m.vertex_count == 0);
	o.progress = NULL;
	CHECK_OK(pbd_mesh_parse_obj(text, len, "grid", &o, &m, err, sizeof err));
	CHECK(m.vertex_count == N * N);
	pbd_mesh_free(&m);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(index_forms_and_polygons),
		TEST(welding),
		TEST(round_trip),
		TEST(bad_files_rejected),
		TEST(mesh_topology_reported),
		TEST(progress_reported_and_cancel_stops),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
