// SPDX-License-Identifier: MIT
// Wavefront OBJ: a strict reader for the part of the format a cloth needs (positions and
// faces), with welding and clear errors, and the writer pbd-sim --dump uses.
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_topology.h"
#include "world.h"

#define OBJ_MAX_VERTICES PBD_MAX_PARTICLES
#define OBJ_MAX_TRIANGLES (1 << 26)

typedef struct obj_parser {
	const char *name;
	int line;
	char *error;
	size_t error_capacity;
	float *v;                 // positions as read
	int v_count, v_capacity;
	uint32_t *f;              // triangles as read
	int f_count, f_capacity;
	int *f_line;              // the line each triangle came from
	int f_line_capacity;
	int polygons_split;
	uint32_t *corners;        // one face's corners
	int corner_capacity;
	const pbd_obj_options *options; // for its progress callback
} obj_parser;

static pbd_result say(char *error, size_t capacity, pbd_result code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static pbd_result say(char *error, size_t capacity, pbd_result code, const char *fmt, ...)
{
	if (error && capacity > 0) {
		va_list args;
		va_start(args, fmt);
		vsnprintf(error, capacity, fmt, args);
		va_end(args);
	}
	return code;
}

#define PARSE_FAIL(ps, ...) say((ps)->error, (ps)->error_capacity, PBD_ERR_PARSE, __VA_ARGS__)

static bool grow(void **array, int *capacity, int needed, size_t size)
{
	if (needed <= *capacity)
		return true;
	size_t cap = (size_t)maxi(needed, maxi(64, *capacity * 2));
	if (cap > SIZE_MAX / size)
		return false;
	void *fresh = realloc(*array, cap * size);
	if (!fresh)
		return false;
	*array = fresh;
	*capacity = (int)cap;
	return true;
}

// Tells the progress callback, if any, the share done; PBD_ERR_CANCELLED when it says stop.
static pbd_result report(obj_parser *ps, float done)
{
	if (!ps->options->progress || ps->options->progress(done, ps->options->progress_user))
		return PBD_OK;
	return say(ps->error, ps->error_capacity, PBD_ERR_CANCELLED, "%s: loading cancelled", ps->name);
}

// Shares of the progress: parsing the text, then welding, then the topology checks.
#define PROGRESS_PARSED 0.85f
#define PROGRESS_WELDED 0.92f
#define PROGRESS_EVERY ((size_t)1 << 20)  // bytes of text between reports

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static char *skip_space(char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

// The next whitespace-separated token: NUL-terminated in place; *s moves past it.
static char *next_token(char **s)
{
	char *t = skip_space(*s);
	if (*t == '\0')
		return NULL;
	char *e = t;
	while (*e && !is_space(*e))
		e++;
	*s = *e ? e + 1 : e;
	*e = '\0';
	return t;
}

static pbd_result parse_vertex(obj_parser *ps, char *rest)
{
	float xyz[3];
	int n = 0;
	for (char *t; (t = next_token(&rest)) != NULL; ++n) {
		char *end;
		errno = 0;
		double d = strtod(t, &end);
		if (end == t || *end != '\0')
			return PARSE_FAIL(ps, "%s:%d: '%s' is not a number", ps->name, ps->line, t);
		if (n >= 3)
			continue;  // w, or a vertex color
		if (!isfinite(d) || fabs(d) > 3.0e38)
			return PARSE_FAIL(ps, "%s:%d: coordinate '%s' is NaN, infinite or beyond float range", ps->name,
					  ps->line, t);
		xyz[n] = (float)d;
	}
	if (n < 3)
		return PARSE_FAIL(ps, "%s:%d: a vertex needs 3 coordinates, found %d", ps->name, ps->line, n);
	if (ps->v_count >= OBJ_MAX_VERTICES)
		return PARSE_FAIL(ps, "%s:%d: more than %d vertices", ps->name, ps->line, OBJ_MAX_VERTICES);
	if (!grow((void **)&ps->v, &ps->v_capacity, 3 * (ps->v_count + 1), sizeof *ps->v))
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s:%d: out of memory", ps->name, ps->line);
	memcpy(ps->v + 3 * ps->v_count, xyz, sizeof xyz);
	ps->v_count++;
	return PBD_OK;
}

// An optional integer after a slash (vt, vn): digits with an optional sign, or nothing.
static bool skip_index(const char **s)
{
	const char *p = *s;
	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return *s == p;  // empty is fine; a lone sign is not
	while (*p >= '0' && *p <= '9')
		p++;
	*s = p;
	return true;
}

// One corner "v", "v/vt", "v//vn" or "v/vt/vn": the 0-based position index.
static pbd_result parse_corner(obj_parser *ps, const char *t, uint32_t *out)
{
	char *end;
	errno = 0;
	long idx = strtol(t, &end, 10);
	if (end == t || (*end != '\0' && *end != '/'))
		return PARSE_FAIL(ps, "%s:%d: face corner '%s' is not an index", ps->name, ps->line, t);
	const char *p = end;
	for (int part = 0; part < 2 && *p == '/'; ++part) {
		p++;
		if (!skip_index(&p))
			return PARSE_FAIL(ps, "%s:%d: face corner '%s' is malformed", ps->name, ps->line, t);
	}
	if (*p != '\0')
		return PARSE_FAIL(ps, "%s:%d: face corner '%s' is malformed", ps->name, ps->line, t);
	if (idx == 0 || errno == ERANGE)
		return PARSE_FAIL(ps, "%s:%d: vertex index %s is out of range (indices start at 1)", ps->name, ps->line, t);
	long resolved = idx > 0 ? idx - 1 : (long)ps->v_count + idx;
	if (resolved < 0 || resolved >= ps->v_count)
		return PARSE_FAIL(ps, "%s:%d: vertex index %ld is out of range: %d vertices are defined above this face",
				  ps->name, ps->line, idx, ps->v_count);
	*out = (uint32_t)resolved;
	return PBD_OK;
}

static pbd_result parse_face(obj_parser *ps, char *rest)
{
	int n = 0;
	for (char *t; (t = next_token(&rest)) != NULL; ++n) {
		if (!grow((void **)&ps->corners, &ps->corner_capacity, n + 1, sizeof *ps->corners))
			return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s:%d: out of memory", ps->name,
				   ps->line);
		pbd_result r = parse_corner(ps, t, &ps->corners[n]);
		if (r != PBD_OK)
			return r;
	}
	if (n < 3)
		return PARSE_FAIL(ps, "%s:%d: a face needs at least 3 corners, found %d", ps->name, ps->line, n);
	if (ps->f_count + (n - 2) > OBJ_MAX_TRIANGLES)
		return PARSE_FAIL(ps, "%s:%d: more than %d triangles", ps->name, ps->line, OBJ_MAX_TRIANGLES);
	if (!grow((void **)&ps->f, &ps->f_capacity, 3 * (ps->f_count + n - 2), sizeof *ps->f) ||
	    !grow((void **)&ps->f_line, &ps->f_line_capacity, ps->f_count + n - 2, sizeof *ps->f_line))
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s:%d: out of memory", ps->name, ps->line);
	for (int k = 1; k + 1 < n; ++k) {  // a fan around the first corner
		ps->f_line[ps->f_count] = ps->line;
		uint32_t *tri = ps->f + 3 * ps->f_count++;
		tri[0] = ps->corners[0];
		tri[1] = ps->corners[k];
		tri[2] = ps->corners[k + 1];
	}
	ps->polygons_split += n > 3;
	return PBD_OK;
}

static pbd_result parse_line(obj_parser *ps, char *line)
{
	char *rest = line;
	char *keyword = next_token(&rest);
	if (!keyword || keyword[0] == '#')
		return PBD_OK;
	if (strcmp(keyword, "v") == 0)
		return parse_vertex(ps, rest);
	if (strcmp(keyword, "f") == 0)
		return parse_face(ps, rest);
	return PBD_OK;  // vt, vn, o, g, s, usemtl, mtllib, l, ...: nothing a cloth needs
}

typedef struct weld_key {
	float x;
	uint32_t i;
} weld_key;

static int compare_weld_keys(const void *a, const void *b)
{
	const weld_key *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : (p->i > q->i ? 1 : 0);
}

// rep[i]: the vertex that vertex i becomes, the lowest-numbered of those within distance d
// of it along a sweep over x. False when out of memory.
static bool weld(const float *v, int count, float d, uint32_t *rep)
{
	weld_key *keys = malloc((size_t)count * sizeof *keys);
	if (!keys)
		return false;
	for (int i = 0; i < count; ++i) {
		keys[i] = (weld_key){v[3 * i], (uint32_t)i};
		rep[i] = (uint32_t)i;
	}
	qsort(keys, (size_t)count, sizeof *keys, compare_weld_keys);
	float d2 = d * d;
	for (int a = 0; a < count; ++a) {
		uint32_t i = keys[a].i;
		if (rep[i] != i)
			continue;
		for (int b = a + 1; b < count && keys[b].x - keys[a].x <= d; ++b) {
			uint32_t j = keys[b].i;
			if (rep[j] != j)
				continue;
			float dx = v[3 * j] - v[3 * i], dy = v[3 * j + 1] - v[3 * i + 1], dz = v[3 * j + 2] - v[3 * i + 2];
			if (dx * dx + dy * dy + dz * dz <= d2) {
				if (j < i) {  // keep the earlier vertex as the one that stays
					rep[i] = j;
					break;
				}
				rep[j] = i;
			}
		}
	}
	// A vertex may have been pointed at one that itself moved on: follow to the end.
	for (int i = 0; i < count; ++i)
		while (rep[rep[i]] != rep[i])
			rep[i] = rep[rep[i]];
	free(keys);
	return true;
}

// Refuses a triangle that repeats an earlier one (after welding: the doubled face of a
// careless export would fight itself in every contact), then orients each piece.
static pbd_result check_topology(obj_parser *ps, int nt, pbd_mesh_topology *out)
{
	size_t bytes = pbd_mesh_workspace_bytes(nt, ps->v_count);
	void *workspace = bytes ? malloc(bytes) : NULL;
	if (!workspace)
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
	int earlier = -1, repeat = pbd_mesh_find_repeated_triangle(ps->f, nt, workspace, &earlier);
	if (repeat >= 0) {
		free(workspace);
		return PARSE_FAIL(ps, "%s:%d: the face repeats the triangle of line %d (the same three vertices)", ps->name,
				  ps->f_line[repeat], ps->f_line[earlier]);
	}
	pbd_mesh_orient(ps->f, nt, ps->v_count, workspace, out);
	free(workspace);
	return PBD_OK;
}

// Welds (when asked), drops triangles with a repeated corner, refuses repeated triangles,
// orients the pieces, leaves out unused vertices.
static pbd_result finish(obj_parser *ps, const pbd_obj_options *o, pbd_mesh *out)
{
	uint32_t *map = malloc((size_t)ps->v_count * sizeof *map);
	if (!map)
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
	int welded = 0;
	pbd_result cancelled = report(ps, PROGRESS_PARSED);
	if (cancelled != PBD_OK) {
		free(map);
		return cancelled;
	}
	if (o->weld_distance >= 0.0f) {
		if (!weld(ps->v, ps->v_count, o->weld_distance, map)) {
			free(map);
			return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
		}
		for (int i = 0; i < ps->v_count; ++i)
			welded += map[i] != (uint32_t)i;
	} else {
		for (int i = 0; i < ps->v_count; ++i)
			map[i] = (uint32_t)i;
	}
	int kept = 0, dropped = 0;
	for (int t = 0; t < ps->f_count; ++t) {
		uint32_t a = map[ps->f[3 * t]], b = map[ps->f[3 * t + 1]], c = map[ps->f[3 * t + 2]];
		if (a == b || b == c || a == c) {
			dropped++;
			continue;
		}
		ps->f[3 * kept] = a;
		ps->f[3 * kept + 1] = b;
		ps->f[3 * kept + 2] = c;
		ps->f_line[kept] = ps->f_line[t];
		kept++;
	}
	free(map);
	if (kept == 0)
		return PARSE_FAIL(ps, "%s: no faces (f lines with three distinct vertices)", ps->name);
	pbd_result r = report(ps, PROGRESS_WELDED);
	if (r != PBD_OK)
		return r;
	pbd_mesh_topology topology;
	r = check_topology(ps, kept, &topology);
	if (r != PBD_OK)
		return r;
	// New numbers in order of first appearance among the vertices, unused ones left out.
	uint32_t *number = malloc((size_t)ps->v_count * sizeof *number);
	if (!number)
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
	for (int i = 0; i < ps->v_count; ++i)
		number[i] = UINT32_MAX;
	for (int k = 0; k < 3 * kept; ++k)
		number[ps->f[k]] = 0;
	int used = 0;
	for (int i = 0; i < ps->v_count; ++i)
		if (number[i] == 0)
			number[i] = (uint32_t)used++;
	float *positions = malloc((size_t)used * 3 * sizeof *positions);
	uint32_t *indices = malloc((size_t)kept * 3 * sizeof *indices);
	if (!positions || !indices) {
		free(positions);
		free(indices);
		free(number);
		return say(ps->error, ps->error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
	}
	for (int i = 0; i < ps->v_count; ++i)
		if (number[i] != UINT32_MAX)
			memcpy(positions + 3 * number[i], ps->v + 3 * i, 3 * sizeof *positions);
	for (int k = 0; k < 3 * kept; ++k)
		indices[k] = number[ps->f[k]];
	*out = (pbd_mesh){
		.positions = positions,
		.vertex_count = used,
		.indices = indices,
		.triangle_count = kept,
		.polygons_split = ps->polygons_split,
		.vertices_welded = welded,
		.vertices_unused = ps->v_count - welded - used,
		.triangles_dropped = dropped,
		.faces_reoriented = topology.faces_reoriented,
		.edges_non_manifold = topology.edges_non_manifold,
		.boundary_loops = topology.boundary_loops,
		.pieces = topology.pieces,
		.pieces_not_orientable = topology.pieces_not_orientable,
	};
	free(number);
	r = report(ps, 1.0f);
	if (r != PBD_OK) {
		free(positions);
		free(indices);
		memset(out, 0, sizeof *out);
	}
	return r;
}

static pbd_result check_options(const pbd_obj_options *o, char *error, size_t capacity)
{
	if (o->internal_cookie != PBD_COOKIE)
		return say(error, capacity, PBD_ERR_BAD_DEF, "OBJ options were not made by pbd_obj_options_default()");
	if (isnan(o->weld_distance) || isinf(o->weld_distance))
		return say(error, capacity, PBD_ERR_NOT_FINITE, "weld distance is NaN or infinite");
	return PBD_OK;
}

pbd_result pbd_mesh_parse_obj(const char *text, size_t length, const char *name, const pbd_obj_options *options,
			      pbd_mesh *out, char *error, size_t error_capacity)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (error && error_capacity > 0)
		error[0] = '\0';
	if (!out || (!text && length > 0))
		return say(error, error_capacity, PBD_ERR_NULL_ARGUMENT, "pbd_mesh_parse_obj needs text and an out mesh");
	pbd_obj_options defaults = pbd_obj_options_default();
	const pbd_obj_options *o = options ? options : &defaults;
	pbd_result r = check_options(o, error, error_capacity);
	if (r != PBD_OK)
		return r;
	obj_parser ps = {.name = name ? name : "(text)", .error = error, .error_capacity = error_capacity, .options = o};
	if (length == SIZE_MAX)
		return say(error, error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: too large", ps.name);
	// A private, NUL-terminated copy that the tokenizer may cut into pieces.
	char *copy = malloc(length + 1);
	if (!copy)
		return say(error, error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", ps.name, length);
	if (length > 0)
		memcpy(copy, text, length);
	copy[length] = '\0';
	char *line = copy, *end = copy + length, *reported = copy;
	r = report(&ps, 0.0f);
	while (r == PBD_OK && line < end) {
		if ((size_t)(line - reported) >= PROGRESS_EVERY) {
			reported = line;
			r = report(&ps, PROGRESS_PARSED * (float)((double)(line - copy) / (double)length));
			if (r != PBD_OK)
				break;
		}
		ps.line++;
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *stop = nl ? nl : end;
		if (memchr(line, '\0', (size_t)(stop - line)))
			r = PARSE_FAIL(&ps, "%s:%d: NUL byte in the text", ps.name, ps.line);
		*stop = '\0';
		if (r == PBD_OK)
			r = parse_line(&ps, line);
		line = stop + 1;
	}
	if (r == PBD_OK && ps.v_count == 0)
		r = PARSE_FAIL(&ps, "%s: no vertices (v lines)", ps.name);
	if (r == PBD_OK)
		r = finish(&ps, o, out);
	free(copy);
	free(ps.v);
	free(ps.f);
	free(ps.f_line);
	free(ps.corners);
	return r;
}

pbd_result pbd_mesh_load_obj(const char *path, const pbd_obj_options *options, pbd_mesh *out, char *error,
			     size_t error_capacity)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (!path || !out)
		return say(error, error_capacity, PBD_ERR_NULL_ARGUMENT, "pbd_mesh_load_obj needs a path and an out mesh");
	pbd_obj_options defaults = pbd_obj_options_default();
	const pbd_obj_options *o = options ? options : &defaults;
	pbd_result r = check_options(o, error, error_capacity);
	if (r != PBD_OK)
		return r;
	FILE *f = fopen(path, "rb");
	if (!f)
		return say(error, error_capacity, PBD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	size_t size = 0, capacity = 0;
	char *text = NULL;
	for (;;) {
		if (size == capacity) {
			if (capacity > o->max_bytes) {
				r = say(error, error_capacity, PBD_ERR_IO, "%s: larger than %zu bytes", path, o->max_bytes);
				break;
			}
			size_t want = capacity ? capacity * 2 : 65536;
			char *fresh = realloc(text, want);
			if (!fresh) {
				r = say(error, error_capacity, PBD_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
				break;
			}
			text = fresh;
			capacity = want;
		}
		size_t got = fread(text + size, 1, capacity - size, f);
		size += got;
		if (got == 0) {
			if (ferror(f))
				r = say(error, error_capacity, PBD_ERR_IO, "%s: read error", path);
			break;
		}
	}
	fclose(f);
	if (r == PBD_OK && size > o->max_bytes)
		r = say(error, error_capacity, PBD_ERR_IO, "%s: larger than %zu bytes", path, o->max_bytes);
	if (r == PBD_OK)
		r = pbd_mesh_parse_obj(text, size, path, o, out, error, error_capacity);
	free(text);
	return r;
}

void pbd_mesh_free(pbd_mesh *mesh)
{
	if (!mesh)
		return;
	free(mesh->positions);
	free(mesh->indices);
	memset(mesh, 0, sizeof *mesh);
}

pbd_result pbd_obj_write(FILE *out, const char *name, const float *positions, int vertex_count,
			 const uint32_t *indices, int triangle_count, int index_base)
{
	if (!out || (vertex_count > 0 && !positions) || (triangle_count > 0 && !indices))
		return PBD_ERR_NULL_ARGUMENT;
	if (vertex_count < 0 || triangle_count < 0)
		return PBD_ERR_BAD_COUNT;
	if (name)
		fprintf(out, "o %s\n", name);
	for (int i = 0; i < vertex_count; ++i)
		fprintf(out, "v %.9g %.9g %.9g\n", (double)positions[3 * i], (double)positions[3 * i + 1],
			(double)positions[3 * i + 2]);
	for (int t = 0; t < triangle_count; ++t)
		fprintf(out, "f %lld %lld %lld\n", (long long)indices[3 * t] + index_base,
			(long long)indices[3 * t + 1] + index_base, (long long)indices[3 * t + 2] + index_base);
	return ferror(out) ? PBD_ERR_IO : PBD_OK;
}

pbd_result pbd_mesh_save_obj(const char *path, const pbd_mesh *mesh, char *error, size_t error_capacity)
{
	if (!path || !mesh)
		return say(error, error_capacity, PBD_ERR_NULL_ARGUMENT, "pbd_mesh_save_obj needs a path and a mesh");
	FILE *f = fopen(path, "w");
	if (!f)
		return say(error, error_capacity, PBD_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
	pbd_result r = pbd_obj_write(f, NULL, mesh->positions, mesh->vertex_count, mesh->indices, mesh->triangle_count, 1);
	if (fclose(f) != 0 && r == PBD_OK)
		r = PBD_ERR_IO;
	if (r != PBD_OK)
		return say(error, error_capacity, r, "%s: %s", path, r == PBD_ERR_IO ? "write error" : pbd_result_string(r));
	return PBD_OK;
}
