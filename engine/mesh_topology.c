// SPDX-License-Identifier: MIT
// Mesh topology from sorted edge records: each edge is listed once per triangle side, so
// sorting by vertex pair puts the triangles around an edge next to each other. Two triangles
// around a manifold edge agree in winding when they run along it in opposite directions;
// a walk over the pieces gives every face a parity relative to the piece's first face.
#include "mesh_topology.h"

#include <stdlib.h>

typedef struct edge_record {
	uint32_t lo, hi;   // the edge's vertices, lo < hi
	uint32_t triangle;
	uint16_t side;     // which side of the triangle: corner `side` to corner side + 1
	uint16_t forward;  // 1 when the triangle runs lo -> hi
} edge_record;

typedef struct face_key {
	uint32_t v[3];  // sorted
	uint32_t triangle;
} face_key;

typedef struct workspace {
	edge_record *edges;     // 3 nt (the face keys of the repeat test use the same bytes)
	int32_t *neighbour;     // 3 nt: the triangle across each side, -1 on a boundary or non-manifold edge
	uint8_t *turn;          // 3 nt: 1 when that neighbour must turn to agree
	int8_t *parity;         // nt: 1 when the face disagrees with its piece's first face, -1 not yet seen
	int32_t *queue;         // nt
	int32_t *root;          // nv: union-find over boundary vertices
	uint8_t *on_boundary;   // nv
} workspace;

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

size_t pbd_mesh_workspace_bytes(int nt, int nv)
{
	if (nt < 0 || nv < 0 || nt > (1 << 26) || nv > (1 << 28))
		return 0;
	size_t t = (size_t)nt, v = (size_t)nv;
	size_t keys = align8(t * sizeof(face_key)), edges = align8(3 * t * sizeof(edge_record));
	return (keys > edges ? keys : edges) + align8(3 * t * sizeof(int32_t)) + align8(3 * t) + align8(t) +
	       align8(t * sizeof(int32_t)) + align8(v * sizeof(int32_t)) + align8(v);
}

static workspace carve(void *memory, int nt, int nv)
{
	size_t t = (size_t)nt, v = (size_t)nv;
	size_t keys = align8(t * sizeof(face_key)), edges = align8(3 * t * sizeof(edge_record));
	char *m = memory;
	workspace w;
	w.edges = (edge_record *)m;
	m += keys > edges ? keys : edges;
	w.neighbour = (int32_t *)m;
	m += align8(3 * t * sizeof(int32_t));
	w.turn = (uint8_t *)m;
	m += align8(3 * t);
	w.parity = (int8_t *)m;
	m += align8(t);
	w.queue = (int32_t *)m;
	m += align8(t * sizeof(int32_t));
	w.root = (int32_t *)m;
	m += align8(v * sizeof(int32_t));
	w.on_boundary = (uint8_t *)m;
	return w;
}

static int compare_face_keys(const void *a, const void *b)
{
	const face_key *p = a, *q = b;
	for (int k = 0; k < 3; ++k)
		if (p->v[k] != q->v[k])
			return p->v[k] < q->v[k] ? -1 : 1;
	return p->triangle < q->triangle ? -1 : (p->triangle > q->triangle ? 1 : 0);
}

static void sort3(uint32_t v[3])
{
	uint32_t t;
	if (v[0] > v[1]) t = v[0], v[0] = v[1], v[1] = t;
	if (v[1] > v[2]) t = v[1], v[1] = v[2], v[2] = t;
	if (v[0] > v[1]) t = v[0], v[0] = v[1], v[1] = t;
}

int pbd_mesh_find_repeated_triangle(const uint32_t *tri, int nt, void *memory, int *earlier)
{
	face_key *keys = memory;
	for (int t = 0; t < nt; ++t) {
		keys[t] = (face_key){{tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]}, (uint32_t)t};
		sort3(keys[t].v);
	}
	qsort(keys, (size_t)nt, sizeof *keys, compare_face_keys);
	// Equal keys sit together, the earliest triangle first: in each group the second one is
	// the first repeat. Of all groups, the repeat met first in the input is reported.
	int found = -1;
	for (int k = 1; k < nt; ++k) {
		const face_key *a = &keys[k - 1], *b = &keys[k];
		bool same = a->v[0] == b->v[0] && a->v[1] == b->v[1] && a->v[2] == b->v[2];
		bool first_of_group = k == 1 || keys[k - 2].v[0] != a->v[0] || keys[k - 2].v[1] != a->v[1] ||
				      keys[k - 2].v[2] != a->v[2];
		if (same && first_of_group && (found < 0 || (int)b->triangle < found)) {
			found = (int)b->triangle;
			*earlier = (int)a->triangle;
		}
	}
	return found;
}

static int compare_edges(const void *a, const void *b)
{
	const edge_record *p = a, *q = b;
	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	if (p->hi != q->hi)
		return p->hi < q->hi ? -1 : 1;
	return p->triangle < q->triangle ? -1 : (p->triangle > q->triangle ? 1 : 0);
}

static int32_t find_root(int32_t *root, int32_t i)
{
	while (root[i] != i) {
		root[i] = root[root[i]];
		i = root[i];
	}
	return i;
}

// Neighbours across manifold edges; non-manifold edges and boundary loops counted.
static void link_edges(const uint32_t *tri, int nt, int nv, workspace *w, pbd_mesh_topology *out)
{
	int ne = 3 * nt;
	for (int t = 0; t < nt; ++t)
		for (int k = 0; k < 3; ++k) {
			uint32_t u = tri[3 * t + k], v = tri[3 * t + (k + 1) % 3];
			w->edges[3 * t + k] = (edge_record){u < v ? u : v, u < v ? v : u, (uint32_t)t, (uint16_t)k, u < v};
			w->neighbour[3 * t + k] = -1;
			w->turn[3 * t + k] = 0;
		}
	qsort(w->edges, (size_t)ne, sizeof *w->edges, compare_edges);
	for (int i = 0; i < nv; ++i) {
		w->root[i] = i;
		w->on_boundary[i] = 0;
	}
	for (int e = 0; e < ne;) {
		int n = 1;
		while (e + n < ne && w->edges[e + n].lo == w->edges[e].lo && w->edges[e + n].hi == w->edges[e].hi)
			n++;
		const edge_record *a = &w->edges[e];
		if (n == 1) {
			w->on_boundary[a->lo] = w->on_boundary[a->hi] = 1;
			int32_t ra = find_root(w->root, (int32_t)a->lo), rb = find_root(w->root, (int32_t)a->hi);
			if (ra != rb)
				w->root[ra < rb ? rb : ra] = ra < rb ? ra : rb;
		} else if (n == 2) {
			const edge_record *b = a + 1;
			uint8_t turn = a->forward == b->forward;  // both run the same way: one must turn
			w->neighbour[3 * a->triangle + a->side] = (int32_t)b->triangle;
			w->turn[3 * a->triangle + a->side] = turn;
			w->neighbour[3 * b->triangle + b->side] = (int32_t)a->triangle;
			w->turn[3 * b->triangle + b->side] = turn;
		} else {
			out->edges_non_manifold++;
		}
		e += n;
	}
	for (int i = 0; i < nv; ++i)
		out->boundary_loops += w->on_boundary[i] && find_root(w->root, i) == i;
}

// Walks one piece from triangle `seed`; returns its face count (in w->queue from `start`) and
// whether its parities agree.
static int walk_piece(workspace *w, int seed, int start, bool *orientable)
{
	int head = start, tail = start;
	w->parity[seed] = 0;
	w->queue[tail++] = seed;
	*orientable = true;
	while (head < tail) {
		int t = w->queue[head++];
		for (int k = 0; k < 3; ++k) {
			int32_t n = w->neighbour[3 * t + k];
			if (n < 0)
				continue;
			int8_t want = (int8_t)(w->parity[t] ^ w->turn[3 * t + k]);
			if (w->parity[n] < 0) {
				w->parity[n] = want;
				w->queue[tail++] = n;
			} else if (w->parity[n] != want) {
				*orientable = false;
			}
		}
	}
	return tail - start;
}

void pbd_mesh_orient(uint32_t *tri, int nt, int nv, void *memory, pbd_mesh_topology *out)
{
	*out = (pbd_mesh_topology){0};
	workspace w = carve(memory, nt, nv);
	link_edges(tri, nt, nv, &w, out);
	for (int t = 0; t < nt; ++t)
		w.parity[t] = -1;
	int walked = 0;
	for (int seed = 0; seed < nt; ++seed) {
		if (w.parity[seed] >= 0)
			continue;
		bool orientable;
		int start = walked, count = walk_piece(&w, seed, start, &orientable);
		walked += count;
		out->pieces++;
		if (!orientable) {
			out->pieces_not_orientable++;
			continue;
		}
		int disagree = 0;
		for (int k = start; k < walked; ++k)
			disagree += w.parity[w.queue[k]];
		// Turn the smaller group; on a tie, the faces that disagree with the first one.
		int8_t turn = 2 * disagree > count ? 0 : 1;
		for (int k = start; k < walked; ++k) {
			uint32_t *f = tri + 3 * w.queue[k];
			if (w.parity[w.queue[k]] != turn)
				continue;
			uint32_t s = f[1];
			f[1] = f[2];
			f[2] = s;
			out->faces_reoriented++;
		}
	}
}
