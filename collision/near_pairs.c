// SPDX-License-Identifier: MIT
// Near pairs (near_pairs.h): which windows of the grid cloths hold their pairs apart, from
// the deformation gradients of their triangles over each substep's motion.
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pair_search.h"

// A pair spanning more than this many grid steps is the search's; wider reaches (a thickness
// of many edges) are not covered, and their cloth is searched as any mesh.
#define NEAR_MAX_REACH 8
// A cloth whose twice the thickness spans fewer grid steps has few near pairs, and its search
// of patches costs less than windows would (measured, 120 frames, one thread: at 64 x 64 hang
// and twist, 1.26 and 1.27 steps, took 40% and 16% less time with windows, fold, 1.05 steps,
// the same; at 48 x 48, 0.94 steps, hang 17% and twist 9% less, and the capsule swept through
// the bench's curtain at 3 m/s half the time; at 40 x 40, 0.78 steps, the same; at 32 x 32,
// 0.62 steps, hang and fold took 2% and 10% more).
#define NEAR_LEAST_SPAN 0.9
// The least factor a window must certify: a pair keeps half its rest distance at most (the
// thickness when that is less), and the bounds are computed in float.
#define NEAR_LEAST_FACTOR (PBD_KEPT_REST_SHARE + 0.01)
// Quads per side of a covered cloth's search patches. Two neighbouring blocks are wholly near
// from a reach of 4; at a reach of 3 their pairs are passed over one by one, which still cost
// less than twice as many patches of one quad (drape at 128 x 128, reach 3: 16% less time).
#define NEAR_PATCH_BLOCK 2
// Floats per quad in quad_bounds: the least and the greatest of each of the six entries of F,
// then the least singular value over the substep.
#define QUAD_FLOATS 13

// ---- Building

static int body_quads(const pbd_near_body *b) { return (b->nx - 1) * (b->ny - 1); }

// The grid spacing of cloth c: the least distance between neighbouring columns or rows of its
// rest shape (a pair more than m steps apart along an axis is at least m times it apart).
static double least_spacing(const pbd_world *w, const pbd_body *c, int nx, int ny)
{
	const pbd_v3 *rest = w->particles.rest + c->first;
	double least = INFINITY;
	for (int i = 0; i + 1 < nx; ++i)
		least = fmin(least, (double)rest[i + 1].x - rest[i].x);
	for (int j = 0; j + 1 < ny; ++j)
		least = fmin(least, (double)rest[(j + 1) * nx].z - rest[j * nx].z);
	return least;
}

// Whether cloth c is a grid as created (not torn, colliding with itself), and its reach.
static int covered_reach(const pbd_world *w, const pbd_body *c)
{
	int nx = c->grid_res_x, ny = c->grid_res_y;
	if (!c->live || c->kind != PBD_BODY_CLOTH || nx < 2 || ny < 2 || c->count != nx * ny ||
	    c->triangle_count != 2 * (nx - 1) * (ny - 1) || c->tear_gap > 0.0f || !c->material.self_collision)
		return 0;
	double thickness = c->material.thickness, spacing = least_spacing(w, c, nx, ny);
	if (!(thickness > 0.0) || !(spacing > 0.0))
		return 0;
	// m steps apart is at least twice the thickness away (what a pair of one cloth must be
	// apart at rest to keep the thickness); a pair spanning m + 1 or fewer is near.
	double span = 2.0 * thickness * (1.0 + 1e-5) / spacing, steps = ceil(span);
	if (!(span >= NEAR_LEAST_SPAN && steps + 1.0 <= NEAR_MAX_REACH))
		return 0;
	return (int)steps + 1;
}

void pbd_near_free(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	pbd_free_array(w, n->bodies, (size_t)n->body_count, sizeof *n->bodies);
	pbd_free_array(w, n->body_of_slot, (size_t)n->slot_capacity, sizeof *n->body_of_slot);
	pbd_free_array(w, n->grid_i, (size_t)n->particle_count, sizeof *n->grid_i);
	pbd_free_array(w, n->grid_j, (size_t)n->particle_count, sizeof *n->grid_j);
	pbd_free_array(w, n->edge_at, (size_t)n->edge_at_count, sizeof *n->edge_at);
	pbd_free_array(w, n->inverse_steps, (size_t)n->step_count, sizeof *n->inverse_steps);
	pbd_free_array(w, n->certified, (size_t)n->window_count, sizeof *n->certified);
	pbd_free_array(w, n->held, (size_t)n->window_count, sizeof *n->held);
	pbd_free_array(w, n->listed, (size_t)n->window_count, sizeof *n->listed);
	pbd_free_array(w, n->marks, (size_t)n->window_count, sizeof *n->marks);
	pbd_free_array(w, n->quad_bounds, (size_t)n->window_count * QUAD_FLOATS, sizeof *n->quad_bounds);
	pbd_free_array(w, n->row_bounds, (size_t)n->window_count * QUAD_FLOATS, sizeof *n->row_bounds);
	pbd_free_array(w, n->items, (size_t)n->window_count, sizeof *n->items);
	int64_t listed = n->windows_listed;
	*n = (pbd_near){0};
	n->windows_listed = listed;
}

// The grid edge (type 0 along a row, 1 along a column, 2 across a quad, from its lowest
// corner (i, j)) of each topology edge of body b.
static void index_edges(pbd_world *w, pbd_near_body *b, uint32_t *edge_at)
{
	pbd_near *n = &w->pairs.near;
	int cells = b->nx * b->ny;
	for (int k = 0; k < 3 * cells; ++k)
		edge_at[k] = UINT32_MAX;
	for (int e = b->edge_first; e < w->topology.edge_count && w->topology.edge_owner[e] == b->slot; ++e) {
		uint32_t u = w->topology.edge[2 * e], v = w->topology.edge[2 * e + 1];
		int ui = n->grid_i[u], uj = n->grid_j[u], vi = n->grid_i[v], vj = n->grid_j[v];
		int di = ui > vi ? ui - vi : vi - ui, dj = uj > vj ? uj - vj : vj - uj;
		int type = dj == 0 ? 0 : di == 0 ? 1 : 2;
		int i = ui < vi ? ui : vi, j = uj < vj ? uj : vj;
		edge_at[type * cells + j * b->nx + i] = (uint32_t)e;
	}
}

// The inverse rest steps of body b's columns, then of its rows.
static void inverse_steps(pbd_world *w, const pbd_near_body *b)
{
	const pbd_v3 *rest = w->particles.rest + b->first;
	float *out = w->pairs.near.inverse_steps + b->step_first;
	for (int i = 0; i + 1 < b->nx; ++i)
		out[i] = (float)(1.0 / ((double)rest[i + 1].x - rest[i].x));
	for (int j = 0; j + 1 < b->ny; ++j)
		out[b->nx - 1 + j] = (float)(1.0 / ((double)rest[(j + 1) * b->nx].z - rest[j * b->nx].z));
}

static bool allocate(pbd_world *w, int bodies, int slots, int edge_cells, int steps, int windows)
{
	pbd_near *n = &w->pairs.near;
	n->body_count = bodies;
	n->slot_capacity = slots;
	n->particle_count = w->particles.count;
	n->edge_at_count = edge_cells;
	n->step_count = steps;
	n->window_count = windows;
	n->bodies = pbd_alloc_array(w, (size_t)bodies, sizeof *n->bodies);
	n->body_of_slot = pbd_alloc_array(w, (size_t)slots, sizeof *n->body_of_slot);
	n->grid_i = pbd_alloc_array(w, (size_t)n->particle_count, sizeof *n->grid_i);
	n->grid_j = pbd_alloc_array(w, (size_t)n->particle_count, sizeof *n->grid_j);
	n->edge_at = pbd_alloc_array(w, (size_t)edge_cells, sizeof *n->edge_at);
	n->inverse_steps = pbd_alloc_array(w, (size_t)steps, sizeof *n->inverse_steps);
	n->certified = pbd_alloc_array(w, (size_t)windows, sizeof *n->certified);
	n->held = pbd_alloc_array(w, (size_t)windows, sizeof *n->held);
	n->listed = pbd_alloc_array(w, (size_t)windows, sizeof *n->listed);
	n->marks = pbd_alloc_array(w, (size_t)windows, sizeof *n->marks);
	n->quad_bounds = pbd_alloc_array(w, (size_t)windows * QUAD_FLOATS, sizeof *n->quad_bounds);
	n->row_bounds = pbd_alloc_array(w, (size_t)windows * QUAD_FLOATS, sizeof *n->row_bounds);
	n->items = pbd_alloc_array(w, (size_t)windows, sizeof *n->items);
	return (n->bodies || !bodies) && (n->body_of_slot || !slots) && (n->grid_i && n->grid_j) &&
	       (n->edge_at || !edge_cells) && (n->inverse_steps || !steps) &&
	       ((n->certified && n->held && n->listed && n->marks && n->quad_bounds && n->row_bounds && n->items) || !windows);
}

bool pbd_near_build(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	if (n->version == w->topology.version && n->particle_count == w->particles.count && n->version != 0)
		return true;
	pbd_near_free(w);
	int bodies = 0, edge_cells = 0, steps = 0, windows = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (covered_reach(w, c) > 0) {
			bodies++;
			edge_cells += 3 * c->count;
			steps += c->grid_res_x + c->grid_res_y - 2;
			windows += (c->grid_res_x - 1) * (c->grid_res_y - 1);
		}
	}
	if (bodies == 0) {
		n->version = w->topology.version;
		n->particle_count = w->particles.count;
		return true;  // nothing covered: nothing to keep
	}
	if (!allocate(w, bodies, w->bodies.capacity, edge_cells, steps, windows)) {
		pbd_near_free(w);
		return false;
	}
	int tri = 0, edge = 0, k = 0, cells = 0;
	windows = steps = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		n->body_of_slot[s] = -1;
		// This body's triangles and edges are the next ones in the topology's lists.
		int nt = 0, ne = 0;
		while (tri + nt < w->topology.tri_count && w->topology.tri_owner[tri + nt] == (uint32_t)s)
			nt++;
		while (edge + ne < w->topology.edge_count && w->topology.edge_owner[edge + ne] == (uint32_t)s)
			ne++;
		int reach = covered_reach(w, c);
		if (reach > 0) {
			pbd_near_body *b = &n->bodies[k];
			*b = (pbd_near_body){(uint32_t)s, c->first, c->grid_res_x, c->grid_res_y, tri, edge, reach,
					     NEAR_PATCH_BLOCK, 0, windows, cells, steps};
			for (int i = 0; i < c->count; ++i) {
				n->grid_i[c->first + i] = (uint16_t)(i % b->nx);
				n->grid_j[c->first + i] = (uint16_t)(i / b->nx);
			}
			index_edges(w, b, n->edge_at + cells);
			inverse_steps(w, b);
			n->body_of_slot[s] = k++;
			cells += 3 * c->count;
			steps += b->nx + b->ny - 2;
			windows += body_quads(b);
		}
		tri += nt;
		edge += ne;
	}
	n->version = w->topology.version;
	return true;
}

// ---- Which pairs are the module's

static void vertex_span(const pbd_near *n, uint32_t v, int s[4])
{
	s[0] = s[1] = n->grid_i[v];
	s[2] = s[3] = n->grid_j[v];
}

static void add_span(const pbd_near *n, uint32_t v, int s[4])
{
	int i = n->grid_i[v], j = n->grid_j[v];
	s[0] = mini(s[0], i), s[1] = maxi(s[1], i), s[2] = mini(s[2], j), s[3] = maxi(s[3], j);
}

bool pbd_near_owns_vt(const pbd_world *w, const pbd_near_body *b, uint32_t q, uint32_t tri)
{
	const pbd_near *n = &w->pairs.near;
	const uint32_t *t = w->topology.tri + 3 * tri;
	int s[4];
	vertex_span(n, q, s);
	for (int k = 0; k < 3; ++k)
		add_span(n, t[k], s);
	return pbd_near_spans(b, s[0], s[1], s[2], s[3]);
}

bool pbd_near_owns_ee(const pbd_world *w, const pbd_near_body *b, uint32_t ea, uint32_t eb)
{
	const pbd_near *n = &w->pairs.near;
	const uint32_t *a = w->topology.edge + 2 * ea, *c = w->topology.edge + 2 * eb;
	int s[4];
	vertex_span(n, a[0], s);
	add_span(n, a[1], s);
	add_span(n, c[0], s);
	add_span(n, c[1], s);
	return pbd_near_spans(b, s[0], s[1], s[2], s[3]);
}

// ---- Certification
//
// A grid's triangles have their rest legs along the grid's axes: the quad with lowest corner
// a = (i, j), b = (i + 1, j), c = (i, j + 1), d = (i + 1, j + 1) is cut along a-d or b-c
// (the checkerboard of engine/cloth.c), and each of its triangles has a leg along a row, from
// one of the quad's row edges (b - a below, d - c above), and one along a column (c - a on the
// left, d - b on the right). So F's first column is that row edge over the column's rest step,
// its second the column edge over the row's rest step.

// Planes of quad_bounds (each one float per quad of the cloth, quad after quad): the least and
// the greatest of each of F's six entries, then the least singular value.
enum { PLANE_LO = 0, PLANE_HI = 6, PLANE_SIGMA = 12 };

static bool greatest_plane(int c) { return c >= PLANE_HI && c < PLANE_SIGMA; }
static float plane_min(float a, float b) { return a < b ? a : b; }
static float plane_max(float a, float b) { return a > b ? a : b; }

// A lower bound of the square of the least singular value of [u v] (two columns), from the
// Gershgorin discs of [u v]^T [u v]: min(|u|^2, |v|^2) - |u . v|.
static float least_square_bound(const float u[3], const float v[3])
{
	float a = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], c = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
	float b = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
	return plane_min(a, c) - fabsf(b);
}

// |[ue ve] - [us vs]|^2 (Frobenius).
static float step_square(const float us[3], const float vs[3], const float ue[3], const float ve[3])
{
	float du = ue[0] - us[0], dv = ve[0] - vs[0], sum = du * du + dv * dv;
	for (int k = 1; k < 3; ++k) {
		du = ue[k] - us[k], dv = ve[k] - vs[k];
		sum = sum + du * du + dv * dv;
	}
	return sum;
}

// One quad's edges over their rest steps at positions x: below, above, left, right.
typedef struct quad_edges {
	float below[3], above[3], left[3], right[3];
} quad_edges;

static void edges_at(const pbd_v4 *x, uint32_t a, int nx, float inv_i, float inv_j, quad_edges *e)
{
	const pbd_v4 *pa = x + a, *pb = pa + 1, *pc = pa + nx, *pd = pc + 1;
	e->below[0] = (pb->x - pa->x) * inv_i, e->below[1] = (pb->y - pa->y) * inv_i, e->below[2] = (pb->z - pa->z) * inv_i;
	e->above[0] = (pd->x - pc->x) * inv_i, e->above[1] = (pd->y - pc->y) * inv_i, e->above[2] = (pd->z - pc->z) * inv_i;
	e->left[0] = (pc->x - pa->x) * inv_j, e->left[1] = (pc->y - pa->y) * inv_j, e->left[2] = (pc->z - pa->z) * inv_j;
	e->right[0] = (pd->x - pb->x) * inv_j, e->right[1] = (pd->y - pb->y) * inv_j, e->right[2] = (pd->z - pb->z) * inv_j;
}

static bool carried_quad(const pbd_world *w, uint32_t a, int nx)
{
	if (!w->carry.active || w->carry.count == 0)
		return false;
	const int32_t *by = w->carry.by;
	return by[a] >= 0 || by[a + 1] >= 0 || by[a + (uint32_t)nx] >= 0 || by[a + (uint32_t)nx + 1] >= 0;
}

// Quad (i, j) of body b: its bounds over the motion from the starts to p, into the planes (of
// `plane` floats each). Its two triangles are [X1 left] and [X2 right], X1 the row edge above
// and X2 the one below where the quad is cut along a-d, the other way round along b-c. The
// least singular value over the motion is at least half the sum of those at its ends less
// the length of F's step (see sweep_singular), taken at its worst over both triangles. A quad
// with a carried start (which the carry moves off its straight motion), or one whose bounds
// are not finite, has -infinity.
static void bound_quad(const pbd_world *w, const pbd_near_body *b, int i, int j, float *planes, size_t plane)
{
	const pbd_near *n = &w->pairs.near;
	uint32_t a = (uint32_t)(b->first + j * b->nx + i);
	float inv_i = n->inverse_steps[b->step_first + i], inv_j = n->inverse_steps[b->step_first + b->nx - 1 + j];
	quad_edges s, e;
	edges_at(pbd_motion_starts(w), a, b->nx, inv_i, inv_j, &s);
	edges_at(w->particles.p, a, b->nx, inv_i, inv_j, &e);
	size_t q = (size_t)(j * (b->nx - 1) + i);
	for (int k = 0; k < 3; ++k) {
		planes[(PLANE_LO + k) * plane + q] = plane_min(plane_min(s.below[k], s.above[k]), plane_min(e.below[k], e.above[k]));
		planes[(PLANE_HI + k) * plane + q] = plane_max(plane_max(s.below[k], s.above[k]), plane_max(e.below[k], e.above[k]));
		planes[(PLANE_LO + 3 + k) * plane + q] = plane_min(plane_min(s.left[k], s.right[k]), plane_min(e.left[k], e.right[k]));
		planes[(PLANE_HI + 3 + k) * plane + q] = plane_max(plane_max(s.left[k], s.right[k]), plane_max(e.left[k], e.right[k]));
	}
	bool along_bc = ((i + j) & 1) != 0;
	const float *s1 = along_bc ? s.below : s.above, *s2 = along_bc ? s.above : s.below;
	const float *e1 = along_bc ? e.below : e.above, *e2 = along_bc ? e.above : e.below;
	float start = plane_min(least_square_bound(s1, s.left), least_square_bound(s2, s.right));
	float end = plane_min(least_square_bound(e1, e.left), least_square_bound(e2, e.right));
	float step = plane_max(step_square(s1, s.left, e1, e.left), step_square(s2, s.right, e2, e.right));
	float least = 0.5f * (sqrtf(plane_max(start, 0.0f)) + sqrtf(plane_max(end, 0.0f)) - sqrtf(step));
	planes[PLANE_SIGMA * plane + q] = least == least && !carried_quad(w, a, b->nx) ? least : -INFINITY;
}

#if defined(__SSE2__)
// Four particles x[first .. first + 3] as x, y, z columns.
static inline void load_four(const pbd_v4 *x, uint32_t first, __m128 c[3])
{
	__m128 r0 = _mm_loadu_ps(&x[first].x), r1 = _mm_loadu_ps(&x[first + 1].x);
	__m128 r2 = _mm_loadu_ps(&x[first + 2].x), r3 = _mm_loadu_ps(&x[first + 3].x);
	_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
	c[0] = r0, c[1] = r1, c[2] = r2;
}

typedef struct quad_edges4 {
	__m128 below[3], above[3], left[3], right[3];
} quad_edges4;

static inline void edges_at4(const pbd_v4 *x, uint32_t a, int nx, __m128 inv_i, __m128 inv_j, quad_edges4 *e)
{
	__m128 pa[3], pb[3], pc[3], pd[3];
	load_four(x, a, pa);
	load_four(x, a + 1, pb);
	load_four(x, a + (uint32_t)nx, pc);
	load_four(x, a + (uint32_t)nx + 1, pd);
	for (int k = 0; k < 3; ++k) {
		e->below[k] = _mm_mul_ps(_mm_sub_ps(pb[k], pa[k]), inv_i);
		e->above[k] = _mm_mul_ps(_mm_sub_ps(pd[k], pc[k]), inv_i);
		e->left[k] = _mm_mul_ps(_mm_sub_ps(pc[k], pa[k]), inv_j);
		e->right[k] = _mm_mul_ps(_mm_sub_ps(pd[k], pb[k]), inv_j);
	}
}

static inline __m128 square_bound4(const __m128 u[3], const __m128 v[3])
{
	__m128 a = _mm_add_ps(_mm_add_ps(_mm_mul_ps(u[0], u[0]), _mm_mul_ps(u[1], u[1])), _mm_mul_ps(u[2], u[2]));
	__m128 c = _mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], v[0]), _mm_mul_ps(v[1], v[1])), _mm_mul_ps(v[2], v[2]));
	__m128 b = _mm_add_ps(_mm_add_ps(_mm_mul_ps(u[0], v[0]), _mm_mul_ps(u[1], v[1])), _mm_mul_ps(u[2], v[2]));
	return _mm_sub_ps(_mm_min_ps(a, c), _mm_andnot_ps(_mm_set1_ps(-0.0f), b));
}

static inline __m128 step_square4(const __m128 us[3], const __m128 vs[3], const __m128 ue[3], const __m128 ve[3])
{
	__m128 du = _mm_sub_ps(ue[0], us[0]), dv = _mm_sub_ps(ve[0], vs[0]);
	__m128 sum = _mm_add_ps(_mm_mul_ps(du, du), _mm_mul_ps(dv, dv));
	for (int k = 1; k < 3; ++k) {
		du = _mm_sub_ps(ue[k], us[k]), dv = _mm_sub_ps(ve[k], vs[k]);
		sum = _mm_add_ps(_mm_add_ps(sum, _mm_mul_ps(du, du)), _mm_mul_ps(dv, dv));
	}
	return sum;
}

static inline __m128 pick4(__m128 mask, __m128 yes, __m128 no) { return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no)); }

// bound_quad for quads (i .. i + 3, j), lane by lane the same operations.
static void bound_four_quads(const pbd_world *w, const pbd_near_body *b, int i, int j, float *planes, size_t plane)
{
	const pbd_near *n = &w->pairs.near;
	uint32_t a = (uint32_t)(b->first + j * b->nx + i);
	__m128 inv_i = _mm_loadu_ps(n->inverse_steps + b->step_first + i);
	__m128 inv_j = _mm_set1_ps(n->inverse_steps[b->step_first + b->nx - 1 + j]);
	quad_edges4 s, e;
	edges_at4(pbd_motion_starts(w), a, b->nx, inv_i, inv_j, &s);
	edges_at4(w->particles.p, a, b->nx, inv_i, inv_j, &e);
	size_t q = (size_t)(j * (b->nx - 1) + i);
	for (int k = 0; k < 3; ++k) {
		_mm_storeu_ps(planes + (PLANE_LO + k) * plane + q,
			      _mm_min_ps(_mm_min_ps(s.below[k], s.above[k]), _mm_min_ps(e.below[k], e.above[k])));
		_mm_storeu_ps(planes + (PLANE_HI + k) * plane + q,
			      _mm_max_ps(_mm_max_ps(s.below[k], s.above[k]), _mm_max_ps(e.below[k], e.above[k])));
		_mm_storeu_ps(planes + (PLANE_LO + 3 + k) * plane + q,
			      _mm_min_ps(_mm_min_ps(s.left[k], s.right[k]), _mm_min_ps(e.left[k], e.right[k])));
		_mm_storeu_ps(planes + (PLANE_HI + 3 + k) * plane + q,
			      _mm_max_ps(_mm_max_ps(s.left[k], s.right[k]), _mm_max_ps(e.left[k], e.right[k])));
	}
	// Lanes cut along b-c: those with i + j odd.
	__m128 along_bc = ((i + j) & 1) ? _mm_castsi128_ps(_mm_set_epi32(0, -1, 0, -1))
					: _mm_castsi128_ps(_mm_set_epi32(-1, 0, -1, 0));
	__m128 s1[3], s2[3], e1[3], e2[3];
	for (int k = 0; k < 3; ++k) {
		s1[k] = pick4(along_bc, s.below[k], s.above[k]), s2[k] = pick4(along_bc, s.above[k], s.below[k]);
		e1[k] = pick4(along_bc, e.below[k], e.above[k]), e2[k] = pick4(along_bc, e.above[k], e.below[k]);
	}
	__m128 start = _mm_min_ps(square_bound4(s1, s.left), square_bound4(s2, s.right));
	__m128 end = _mm_min_ps(square_bound4(e1, e.left), square_bound4(e2, e.right));
	__m128 step = _mm_max_ps(step_square4(s1, s.left, e1, e.left), step_square4(s2, s.right, e2, e.right));
	__m128 zero = _mm_setzero_ps();
	__m128 least = _mm_mul_ps(_mm_set1_ps(0.5f), _mm_sub_ps(_mm_add_ps(_mm_sqrt_ps(_mm_max_ps(start, zero)),
									    _mm_sqrt_ps(_mm_max_ps(end, zero))),
								 _mm_sqrt_ps(step)));
	least = pick4(_mm_cmpord_ps(least, least), least, _mm_set1_ps(-INFINITY));
	_mm_storeu_ps(planes + PLANE_SIGMA * plane + q, least);
	for (int l = 0; l < 4; ++l)
		if (carried_quad(w, a + (uint32_t)l, b->nx))
			planes[PLANE_SIGMA * plane + q + (size_t)l] = -INFINITY;
}
#endif

// The least singular value squared of the 3 x 2 matrix G (columns g[0..2], g[3..5]).
static float least_square(const float g[6])
{
	float a = g[0] * g[0] + g[1] * g[1] + g[2] * g[2], c = g[3] * g[3] + g[4] * g[4] + g[5] * g[5];
	float b = g[0] * g[3] + g[1] * g[4] + g[2] * g[5];
	return 0.5f * (a + c - sqrtf((a - c) * (a - c) + 4.0f * b * b));
}

// Whether bounds (13 floats, one every `stride`) hold every pair of their window apart: with G
// the middle of the box of F, eta half its diagonal (every F within it of G), g^2 the least
// singular value of G squared and sigma the least of every F, a pair r apart at rest stays
// r sigma sqrt(1 - eta^2 / g^2) apart (near_pairs.h), which must be above NEAR_LEAST_FACTOR r:
// sigma^2 (g^2 - eta^2) > factor^2 g^2.
static bool holds_apart(const float *bounds, size_t stride)
{
	float g[6], eta2 = 0.0f;
	for (int k = 0; k < 6; ++k) {
		float lo = bounds[(PLANE_LO + k) * stride], hi = bounds[(PLANE_HI + k) * stride];
		g[k] = 0.5f * (lo + hi);
		eta2 = eta2 + 0.25f * ((hi - lo) * (hi - lo));
	}
	float g2 = least_square(g), sigma = bounds[PLANE_SIGMA * stride];
	const float least = (float)NEAR_LEAST_FACTOR;
	return sigma > 0.0f && g2 > eta2 && sigma * sigma * (g2 - eta2) > least * least * g2;
}

// The bits of every rectangle a window of the given reach does not have.
static uint64_t beyond_reach(int reach)
{
	uint64_t inside = 0;
	for (int a = 1; a <= reach; ++a)
		for (int b = 1; b <= reach; ++b)
			inside |= pbd_near_rectangle(a, b);
	return ~inside;
}

// Plane `in` (one float per quad) over the rectangles of quads from a window's corner: out[y r
// + x] the least (or greatest) over columns cols[0 .. x] and rows rows[0 .. y], r = reach.
static inline void rectangle_bounds(const float *in, int nqx, const int *cols, const int *rows, int r, float *out,
				    bool greatest)
{
	for (int y = 0; y < r; ++y) {
		const float *row = in + (size_t)rows[y] * nqx;
		float *o = out + y * r, acc = row[cols[0]];
		o[0] = acc;
		for (int x = 1; x < r; ++x) {
			float u = row[cols[x]];
			acc = greatest ? plane_max(acc, u) : plane_min(acc, u);
			o[x] = acc;
		}
		if (y == 0)
			continue;
		for (int x = 0; x < r; ++x)
			o[x] = greatest ? plane_max(o[x - r], o[x]) : plane_min(o[x - r], o[x]);
	}
}

// The rectangles of window (oi, oj) of body b shown apart by their quads' bounds (clipped to
// the grid, as the window is), with the bits of no rectangle.
static uint64_t rectangles_holding(const pbd_near *n, const pbd_near_body *b, int oi, int oj)
{
	int nqx = b->nx - 1, nqy = b->ny - 1, r = b->reach, cols[NEAR_MAX_REACH], rows[NEAR_MAX_REACH];
	for (int k = 0; k < r; ++k)
		cols[k] = mini(oi + k, nqx - 1), rows[k] = mini(oj + k, nqy - 1);
	size_t plane = (size_t)body_quads(b), area = (size_t)(r * r);
	const float *quads = n->quad_bounds + (size_t)b->window_first * QUAD_FLOATS;
	float box[QUAD_FLOATS * NEAR_MAX_REACH * NEAR_MAX_REACH];
	for (int c = 0; c < QUAD_FLOATS; ++c) {
		if (greatest_plane(c))
			rectangle_bounds(quads + c * plane, nqx, cols, rows, r, box + c * area, true);
		else
			rectangle_bounds(quads + c * plane, nqx, cols, rows, r, box + c * area, false);
	}
	uint64_t held = beyond_reach(r);
	for (int y = 0; y < r; ++y)
		for (int x = 0; x < r; ++x)
			if (holds_apart(box + y * r + x, area))
				held |= pbd_near_rectangle(x + 1, y + 1);
	return held;
}

typedef struct certify_job {
	pbd_world *w;
	const pbd_near_body *body;
} certify_job;

// out[i]: the least (or greatest) of in[i .. i + reach - 1] within count, for i in [0, count).
static void along_row(const float *in, float *out, int count, int reach, bool greatest)
{
	int i = 0;
#if defined(__SSE2__)
	for (; i + 3 + reach - 1 < count; i += 4) {
		__m128 v = _mm_loadu_ps(in + i);
		for (int k = 1; k < reach; ++k)
			v = greatest ? _mm_max_ps(v, _mm_loadu_ps(in + i + k)) : _mm_min_ps(v, _mm_loadu_ps(in + i + k));
		_mm_storeu_ps(out + i, v);
	}
#endif
	for (; i < count; ++i) {
		float v = in[i];
		for (int k = 1; k < reach && i + k < count; ++k)
			v = greatest ? plane_max(v, in[i + k]) : plane_min(v, in[i + k]);
		out[i] = v;
	}
}

// out[i]: the least (or greatest) of in[i + k stride], k in [0, rows), for i in [0, count).
static void across_rows(const float *in, size_t stride, int rows, float *out, int count, bool greatest)
{
	int i = 0;
#if defined(__SSE2__)
	for (; i + 4 <= count; i += 4) {
		__m128 v = _mm_loadu_ps(in + i);
		for (int k = 1; k < rows; ++k)
			v = greatest ? _mm_max_ps(v, _mm_loadu_ps(in + (size_t)k * stride + i))
				     : _mm_min_ps(v, _mm_loadu_ps(in + (size_t)k * stride + i));
		_mm_storeu_ps(out + i, v);
	}
#endif
	for (; i < count; ++i) {
		float v = in[i];
		for (int k = 1; k < rows; ++k)
			v = greatest ? plane_max(v, in[(size_t)k * stride + i]) : plane_min(v, in[(size_t)k * stride + i]);
		out[i] = v;
	}
}

// Rows of quads: their bounds, and the bounds of the reach quads from each along the row.
static void rows_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const certify_job *job = context;
	const pbd_near_body *b = job->body;
	pbd_near *n = &job->w->pairs.near;
	int nqx = b->nx - 1;
	size_t plane = (size_t)body_quads(b);
	float *quads = n->quad_bounds + (size_t)b->window_first * QUAD_FLOATS;
	float *rows = n->row_bounds + (size_t)b->window_first * QUAD_FLOATS;
	for (int j = start; j < end; ++j) {
		int i = 0;
#if defined(__SSE2__)
		for (; i + 4 <= nqx; i += 4)
			bound_four_quads(job->w, b, i, j, quads, plane);
#endif
		for (; i < nqx; ++i)
			bound_quad(job->w, b, i, j, quads, plane);
		for (int c = 0; c < QUAD_FLOATS; ++c)
			along_row(quads + c * plane + (size_t)j * nqx, rows + c * plane + (size_t)j * nqx, nqx, b->reach,
				  greatest_plane(c));
	}
}

// Rows of windows: the bounds of the reach rows from each, and the verdict (a few windows of a
// row at a time, their bounds side by side).
#define WINDOW_RUN 64
static void windows_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const certify_job *job = context;
	const pbd_near_body *b = job->body;
	pbd_near *n = &job->w->pairs.near;
	int nqx = b->nx - 1, nqy = b->ny - 1;
	size_t plane = (size_t)body_quads(b);
	const float *rows = n->row_bounds + (size_t)b->window_first * QUAD_FLOATS;
	float run[QUAD_FLOATS * WINDOW_RUN];
	for (int j = start; j < end; ++j)
		for (int first = 0; first < nqx; first += WINDOW_RUN) {
			int count = mini(WINDOW_RUN, nqx - first);
			for (int c = 0; c < QUAD_FLOATS; ++c)
				across_rows(rows + c * plane + (size_t)j * nqx + first, (size_t)nqx, mini(b->reach, nqy - j),
					    run + c * WINDOW_RUN, count, greatest_plane(c));
			int window = b->window_first + j * nqx + first;
			for (int i = 0; i < count; ++i) {
				bool holds = holds_apart(run + i, WINDOW_RUN);
				n->certified[window + i] = holds;
				n->held[window + i] = holds ? ~(uint64_t)0 : rectangles_holding(n, b, first + i, j);
			}
		}
}

void pbd_near_certify(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	for (int k = 0; k < n->body_count; ++k) {
		certify_job job = {w, &n->bodies[k]};
		int rows = n->bodies[k].ny - 1;
		pbd_parallel_for(w, rows_range, rows, 8, &job);
		pbd_parallel_for(w, windows_range, rows, 8, &job);
	}
}

bool pbd_near_pending(const pbd_near *n, int window) { return pbd_near_wanted(n, window) != 0; }

// The bounds of window (oi, oj) of body b straight from its quads' (after the guard's stops).
static bool window_holds_apart(const pbd_near *n, const pbd_near_body *b, int oi, int oj)
{
	int nqx = b->nx - 1, nqy = b->ny - 1;
	size_t plane = (size_t)body_quads(b);
	const float *quads = n->quad_bounds + (size_t)b->window_first * QUAD_FLOATS;
	float bounds[QUAD_FLOATS];
	for (int c = 0; c < QUAD_FLOATS; ++c) {
		bool greatest = greatest_plane(c);
		float v = greatest ? -INFINITY : INFINITY;
		for (int j = oj; j < oj + b->reach && j < nqy; ++j)
			for (int i = oi; i < oi + b->reach && i < nqx; ++i) {
				float u = quads[c * plane + (size_t)j * nqx + i];
				v = greatest ? plane_max(v, u) : plane_min(v, u);
			}
		bounds[c] = v;
	}
	return holds_apart(bounds, 1);
}

int pbd_near_recertify_stopped(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	if (w->guard.stamped == 0 || n->window_count == 0)
		return 0;
	enum { QUAD_CHANGED = 1, WINDOW_SEEN = 2 };  // bits of marks, by quad and by window
	int pending = 0;
	for (int k = 0; k < n->body_count; ++k) {
		const pbd_near_body *b = &n->bodies[k];
		int nqx = b->nx - 1, nqy = b->ny - 1, quads = body_quads(b);
		bool changed = false;
		uint8_t *mark = n->marks + b->window_first;
		memset(mark, 0, (size_t)quads);
		for (int i = b->first; i < b->first + b->nx * b->ny; ++i) {
			if (w->guard.stamp[i] == 0)
				continue;
			int vi = n->grid_i[i], vj = n->grid_j[i];
			for (int qj = maxi(vj - 1, 0); qj <= mini(vj, nqy - 1); ++qj)
				for (int qi = maxi(vi - 1, 0); qi <= mini(vi, nqx - 1); ++qi)
					mark[qj * nqx + qi] |= QUAD_CHANGED;
			changed = true;
		}
		if (!changed)
			continue;
		float *bounds = n->quad_bounds + (size_t)b->window_first * QUAD_FLOATS;
		for (int q = 0; q < quads; ++q)
			if (mark[q] & QUAD_CHANGED)
				bound_quad(w, b, q % nqx, q / nqx, bounds, (size_t)quads);
		// Every window holding a quad that changed, once: certified, it can only fail now;
		// failed, its rectangles are shown again.
		for (int q = 0; q < quads; ++q) {
			if (!(mark[q] & QUAD_CHANGED))
				continue;
			int qi = q % nqx, qj = q / nqx;
			for (int oj = maxi(qj - b->reach + 1, 0); oj <= qj; ++oj)
				for (int oi = maxi(qi - b->reach + 1, 0); oi <= qi; ++oi) {
					int o = oj * nqx + oi, window = b->window_first + o;
					if (mark[o] & WINDOW_SEEN)
						continue;
					mark[o] |= WINDOW_SEEN;
					if (n->certified[window]) {
						if (window_holds_apart(n, b, oi, oj))
							continue;
						n->certified[window] = 0;
					}
					n->held[window] = rectangles_holding(n, b, oi, oj);
					pending += pbd_near_pending(n, window);
				}
		}
	}
	return pending;
}

// ---- The pairs of a window, and of the particles that moved

static const pbd_near_body *window_body(const pbd_near *n, int window)
{
	int lo = 0, hi = n->body_count - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (n->bodies[mid].window_first <= window)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &n->bodies[lo];
}

// Grid edges: along a row (type 0), along a column (1), across a quad (2), each named by its
// lowest corner; the steps each spans along i and j.
static const int edge_step_i[3] = {1, 0, 1}, edge_step_j[3] = {0, 1, 1};

static uint32_t edge_of(const pbd_near *n, const pbd_near_body *b, int type, int i, int j)
{
	if (i < 0 || j < 0 || i + edge_step_i[type] >= b->nx || j + edge_step_j[type] >= b->ny)
		return UINT32_MAX;
	return n->edge_at[b->edge_cell_first + type * b->nx * b->ny + j * b->nx + i];
}

static bool shares_corner(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	for (int j = 0; j < na; ++j)
		for (int k = 0; k < nb; ++k)
			if (a[j] == b[k])
				return true;
	return false;
}

// The window (along one axis: its column or row) of a pair with that lowest grid coordinate.
static int window_axis(int lowest, int quads) { return lowest < quads - 1 ? lowest : quads - 1; }

// Along one axis, the places (u, t) of a pair's two sides, each spanning [u, u + su] and
// [t, t + st], that lie in window `at` of an axis of `points` grid points: their lowest is the
// window's and they span at most reach. Returns how many (at most 2 reach + 2).
static int axis_places(int at, int points, int su, int st, int reach, int (*out)[2])
{
	int n = 0, quads = points - 1;
	for (int u = at; u <= at + reach && u + su < points; ++u)
		for (int t = at; t <= at + reach && t + st < points; ++t) {
			int lo = u < t ? u : t, hi = maxi(u + su, t + st);
			if (window_axis(lo, quads) == at && hi - lo <= reach)
				out[n][0] = u, out[n][1] = t, n++;
		}
	return n;
}

#define AXIS_PLACES (2 * NEAR_MAX_REACH + 4)

// Along one axis, the quads from window `at` that the least rectangle holding grid points up
// to `highest` spans (at least one: a pair along the window's own grid line needs its quads).
static int rectangle_side(int at, int highest) { return maxi(at, highest - 1) - at + 1; }

void pbd_near_window_pairs(const pbd_world *w, int window, uint64_t rectangles, const pbd_near_visitor *visit)
{
	const pbd_near *n = &w->pairs.near;
	const pbd_near_body *b = window_body(n, window);
	int nqx = b->nx - 1, q = window - b->window_first, wi = q % nqx, wj = q / nqx;
	int pi[AXIS_PLACES][2], pj[AXIS_PLACES][2];
	// A vertex (spanning nothing) against a quad's two triangles (spanning one step).
	int ni = axis_places(wi, b->nx, 0, 1, b->reach, pi), nj = axis_places(wj, b->ny, 0, 1, b->reach, pj);
	for (int a = 0; a < ni; ++a)
		for (int c = 0; c < nj; ++c) {
			uint64_t rectangle = pbd_near_rectangle(rectangle_side(wi, maxi(pi[a][0], pi[a][1] + 1)),
							       rectangle_side(wj, maxi(pj[c][0], pj[c][1] + 1)));
			if (!(rectangles & rectangle))
				continue;
			uint32_t v = (uint32_t)(b->first + pj[c][0] * b->nx + pi[a][0]);
			int quad = pj[c][1] * nqx + pi[a][1];
			for (int t = b->tri_first + 2 * quad; t < b->tri_first + 2 * quad + 2; ++t)
				if (!shares_corner(&v, 1, w->topology.tri + 3 * t, 3))
					visit->vt(visit->context, v, (uint32_t)t);
		}
	// Edges of every two types; each pair once, lower edge first.
	for (int ta = 0; ta < 3; ++ta)
		for (int tb = 0; tb < 3; ++tb) {
			ni = axis_places(wi, b->nx, edge_step_i[ta], edge_step_i[tb], b->reach, pi);
			nj = axis_places(wj, b->ny, edge_step_j[ta], edge_step_j[tb], b->reach, pj);
			for (int a = 0; a < ni; ++a)
				for (int c = 0; c < nj; ++c) {
					int hi = maxi(pi[a][0] + edge_step_i[ta], pi[a][1] + edge_step_i[tb]);
					int hj = maxi(pj[c][0] + edge_step_j[ta], pj[c][1] + edge_step_j[tb]);
					if (!(rectangles & pbd_near_rectangle(rectangle_side(wi, hi), rectangle_side(wj, hj))))
						continue;
					uint32_t ea = edge_of(n, b, ta, pi[a][0], pj[c][0]), eb = edge_of(n, b, tb, pi[a][1], pj[c][1]);
					if (ea == UINT32_MAX || eb == UINT32_MAX || ea >= eb ||
					    shares_corner(w->topology.edge + 2 * ea, 2, w->topology.edge + 2 * eb, 2))
						continue;
					visit->ee(visit->context, ea, eb);
				}
		}
}

// Whether the pair with grid corners [ilo, ihi] x [jlo, jhi] is in a listed rectangle.
static bool listed_pair(const pbd_near *n, const pbd_near_body *b, int ilo, int ihi, int jlo, int jhi)
{
	int window = pbd_near_window(b, ilo, jlo), q = window - b->window_first, nqx = b->nx - 1;
	uint64_t rectangle = pbd_near_rectangle(rectangle_side(q % nqx, ihi), rectangle_side(q / nqx, jhi));
	return (n->listed[window] & rectangle) != 0;
}

// Whether a window that may own a pair with particle v (its lowest corner at most reach below
// v's along each axis) is listed.
static bool listed_around(const pbd_near *n, const pbd_near_body *b, int vi, int vj)
{
	int nqx = b->nx - 1, nqy = b->ny - 1;
	for (int j = maxi(vj - b->reach, 0); j <= mini(vj, nqy - 1); ++j)
		for (int i = maxi(vi - b->reach, 0); i <= mini(vi, nqx - 1); ++i)
			if (n->listed[b->window_first + j * nqx + i])
				return true;
	return false;
}

typedef struct moved_test {
	const uint32_t *stamp;
	uint32_t serial;
} moved_test;

static bool is_moved(const moved_test *m, uint32_t i) { return m->stamp[i] == m->serial; }

// Whether v is the lowest of the moved corners of ids (each moved primitive is taken once).
static bool first_moved(const moved_test *m, uint32_t v, const uint32_t *ids, int count)
{
	for (int k = 0; k < count; ++k)
		if (ids[k] < v && is_moved(m, ids[k]))
			return false;
	return true;
}

// Vertex-triangle pairs of particle v: as the vertex, against every quad within reach; as a
// corner, each of its triangles (of which it is the lowest moved corner) against every vertex
// within reach that did not move (those that did take the pair as the vertex).
static void moved_vt(const pbd_world *w, const pbd_near_body *b, uint32_t v, const moved_test *m,
		     const pbd_near_visitor *visit)
{
	const pbd_near *n = &w->pairs.near;
	int vi = n->grid_i[v], vj = n->grid_j[v], nqx = b->nx - 1, nqy = b->ny - 1, r = b->reach;
	for (int tj = maxi(vj - r, 0); tj <= mini(vj + r - 1, nqy - 1); ++tj)
		for (int ti = maxi(vi - r, 0); ti <= mini(vi + r - 1, nqx - 1); ++ti) {
			int ilo = mini(vi, ti), ihi = maxi(vi, ti + 1), jlo = mini(vj, tj), jhi = maxi(vj, tj + 1);
			if (!pbd_near_spans(b, ilo, ihi, jlo, jhi) || !listed_pair(n, b, ilo, ihi, jlo, jhi))
				continue;
			int quad = tj * nqx + ti;
			for (int t = b->tri_first + 2 * quad; t < b->tri_first + 2 * quad + 2; ++t)
				if (!shares_corner(&v, 1, w->topology.tri + 3 * t, 3))
					visit->vt(visit->context, v, (uint32_t)t);
		}
	for (int tj = maxi(vj - 1, 0); tj <= mini(vj, nqy - 1); ++tj)
		for (int ti = maxi(vi - 1, 0); ti <= mini(vi, nqx - 1); ++ti) {
			int quad = tj * nqx + ti;
			for (int t = b->tri_first + 2 * quad; t < b->tri_first + 2 * quad + 2; ++t) {
				const uint32_t *c = w->topology.tri + 3 * t;
				if (!shares_corner(&v, 1, c, 3) || !first_moved(m, v, c, 3))
					continue;
				for (int qj = maxi(tj + 1 - r, 0); qj <= mini(tj + r, b->ny - 1); ++qj)
					for (int qi = maxi(ti + 1 - r, 0); qi <= mini(ti + r, b->nx - 1); ++qi) {
						uint32_t u = (uint32_t)(b->first + qj * b->nx + qi);
						int ilo = mini(qi, ti), ihi = maxi(qi, ti + 1), jlo = mini(qj, tj), jhi = maxi(qj, tj + 1);
						if (is_moved(m, u) || shares_corner(&u, 1, c, 3) || !pbd_near_spans(b, ilo, ihi, jlo, jhi) ||
						    !listed_pair(n, b, ilo, ihi, jlo, jhi))
							continue;
						visit->vt(visit->context, u, (uint32_t)t);
					}
			}
		}
}

// Edge pairs of particle v: each edge it ends (of which it is the lowest moved end) against
// every edge within reach; a pair of two moved edges is taken from the lower one.
static void moved_ee(const pbd_world *w, const pbd_near_body *b, uint32_t v, const moved_test *m,
		     const pbd_near_visitor *visit)
{
	const pbd_near *n = &w->pairs.near;
	int vi = n->grid_i[v], vj = n->grid_j[v], r = b->reach;
	for (int ta = 0; ta < 3; ++ta)
		for (int aj = vj - edge_step_j[ta]; aj <= vj; ++aj)
			for (int ai = vi - edge_step_i[ta]; ai <= vi; ++ai) {
				uint32_t ea = edge_of(n, b, ta, ai, aj);
				if (ea == UINT32_MAX)
					continue;
				const uint32_t *ends = w->topology.edge + 2 * ea;
				if ((ends[0] != v && ends[1] != v) || !first_moved(m, v, ends, 2))
					continue;
				for (int tb = 0; tb < 3; ++tb)
					for (int bj = aj - r; bj <= aj + r; ++bj)
						for (int bi = ai - r; bi <= ai + r; ++bi) {
							uint32_t eb = edge_of(n, b, tb, bi, bj);
							if (eb == UINT32_MAX || eb == ea)
								continue;
							const uint32_t *other = w->topology.edge + 2 * eb;
							bool other_moved = is_moved(m, other[0]) || is_moved(m, other[1]);
							int ilo = mini(ai, bi), jlo = mini(aj, bj);
							int ihi = maxi(ai + edge_step_i[ta], bi + edge_step_i[tb]);
							int jhi = maxi(aj + edge_step_j[ta], bj + edge_step_j[tb]);
							if ((other_moved && eb < ea) || shares_corner(ends, 2, other, 2) ||
							    !pbd_near_spans(b, ilo, ihi, jlo, jhi) || !listed_pair(n, b, ilo, ihi, jlo, jhi))
								continue;
							visit->ee(visit->context, ea < eb ? ea : eb, ea < eb ? eb : ea);
						}
			}
}

void pbd_near_moved_pairs(const pbd_world *w, uint32_t v, const uint32_t *stamp, uint32_t serial,
			  const pbd_near_visitor *visit)
{
	const pbd_near *n = &w->pairs.near;
	const pbd_near_body *b = pbd_near_body_of(n, w->particles.owner[v]);
	if (!b || !listed_around(n, b, n->grid_i[v], n->grid_j[v]))
		return;
	moved_test m = {stamp, serial};
	moved_vt(w, b, v, &m, visit);
	moved_ee(w, b, v, &m, visit);
}

// ---- Listing

bool pbd_near_carried_listed(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	if (!w->carry.active || w->carry.count == 0 || n->body_count == 0)
		return true;
	bool all = true;
	for (int k = 0; k < n->body_count; ++k) {
		const pbd_near_body *b = &n->bodies[k];
		int nqx = b->nx - 1, nqy = b->ny - 1;
		for (int i = b->first; i < b->first + b->nx * b->ny; ++i) {
			if (w->carry.by[i] < 0)
				continue;
			int vi = n->grid_i[i], vj = n->grid_j[i];
			for (int j = maxi(vj - b->reach, 0); j <= mini(vj, nqy - 1); ++j)
				for (int q = maxi(vi - b->reach, 0); q <= mini(vi, nqx - 1); ++q) {
					int window = b->window_first + j * nqx + q;
					n->certified[window] = 0;
					n->held[window] = beyond_reach(b->reach);
					all = all && !pbd_near_pending(n, window);
				}
		}
	}
	return all;
}

// The window a pair of one covered cloth belongs to, or -1 when it is not the module's.
static int vt_window(const pbd_world *w, const pbd_vt_contact *c)
{
	const pbd_near *n = &w->pairs.near;
	const pbd_near_body *b = pbd_near_body_of(n, w->particles.owner[c->q]);
	if (!b || w->topology.tri_owner[c->tri] != b->slot || !pbd_near_owns_vt(w, b, c->q, c->tri))
		return -1;
	const uint32_t *t = w->topology.tri + 3 * c->tri;
	int ilo = mini(n->grid_i[c->q], mini(n->grid_i[t[0]], mini(n->grid_i[t[1]], n->grid_i[t[2]])));
	int jlo = mini(n->grid_j[c->q], mini(n->grid_j[t[0]], mini(n->grid_j[t[1]], n->grid_j[t[2]])));
	return pbd_near_window(b, ilo, jlo);
}

static int ee_window(const pbd_world *w, const pbd_ee_contact *c)
{
	const pbd_near *n = &w->pairs.near;
	const pbd_near_body *b = pbd_near_body_of(n, w->topology.edge_owner[c->a]);
	if (!b || w->topology.edge_owner[c->b] != b->slot || !pbd_near_owns_ee(w, b, c->a, c->b))
		return -1;
	const uint32_t *ea = w->topology.edge + 2 * c->a, *eb = w->topology.edge + 2 * c->b;
	int ilo = mini(mini(n->grid_i[ea[0]], n->grid_i[ea[1]]), mini(n->grid_i[eb[0]], n->grid_i[eb[1]]));
	int jlo = mini(mini(n->grid_j[ea[0]], n->grid_j[ea[1]]), mini(n->grid_j[eb[0]], n->grid_j[eb[1]]));
	return pbd_near_window(b, ilo, jlo);
}

void pbd_near_unlist_certified(pbd_world *w)
{
	pbd_near *n = &w->pairs.near;
	pbd_pairs *pr = &w->pairs;
	int leaving = 0;
	for (int k = 0; k < n->window_count; ++k) {
		n->marks[k] = n->listed[k] != 0 && (n->listed[k] & ~n->held[k]) == 0;
		leaving += n->marks[k];
	}
	if (leaving == 0)
		return;
	int kept = 0;
	for (int k = 0; k < pr->vt_count; ++k) {
		int window = vt_window(w, &pr->vt[k]);
		if (window < 0 || !n->marks[window])
			pr->vt[kept++] = pr->vt[k];
	}
	pr->vt_count = kept;
	kept = 0;
	for (int k = 0; k < pr->ee_count; ++k) {
		int window = ee_window(w, &pr->ee[k]);
		if (window < 0 || !n->marks[window])
			pr->ee[kept++] = pr->ee[k];
	}
	pr->ee_count = kept;
	for (int k = 0; k < n->window_count; ++k)
		if (n->marks[k])
			n->listed[k] = 0;
}

void pbd_near_forget_listed(pbd_near *n)
{
	if (n->window_count > 0)
		memset(n->listed, 0, (size_t)n->window_count * sizeof *n->listed);
}
