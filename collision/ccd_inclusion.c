// SPDX-License-Identifier: MIT
// Inclusion-based CCD (Wang, Ferguson, Schneider, Jiang, Attene, Panozzo 2021; seed 000).
//
// A vertex-triangle pair touches when F(t, u, v) = p(t) - f0(t) - u (f1 - f0)(t) - v (f2 - f0)(t)
// has a root with t in [0, 1], u, v >= 0, u + v <= 1; an edge-edge pair when
// F(t, u, v) = a0(t) + u (a1 - a0)(t) - b0(t) - v (b1 - b0)(t) has one in [0, 1]^3. Each
// coordinate of F is multilinear in (t, u, v), so over a box of parameters its range is spanned
// by its values at the box's 8 corners: an exact inclusion function. Boxes whose range
// (widened by a bound on the rounding of the corner values) excludes the cube [-d, d]^3 hold no
// root and are dropped; the others are bisected, earliest time first, until the range is
// narrower than the tolerance (relative to the query's extent: a hit) or no box is left (no
// contact). The cube contains the ball of radius d, so no pair closer than d is missed; a
// query that runs out of its box budget reports a hit: the answer is conservative either way.
#include <float.h>

#include "../engine/world.h"

#define INCLUSION_STACK 128

typedef struct param_box {
	double lo[3], hi[3];  // t, u, v
} param_box;

typedef struct inclusion_query {
	pbd_d3 x0[4], x1[4];
	bool edge_edge;
	double rounding[3];  // bound on the error of one computed corner value, per axis
	double min_distance;
	double tolerance;
} inclusion_query;

static double axis(pbd_d3 a, int k) { return k == 0 ? a.x : (k == 1 ? a.y : a.z); }

static pbd_d3 lerp(pbd_d3 a, pbd_d3 b, double t) { return d3_add(a, d3_scale(d3_sub(b, a), t)); }

static pbd_d3 evaluate(const inclusion_query *q, double t, double u, double v)
{
	pbd_d3 x[4];
	for (int j = 0; j < 4; ++j)
		x[j] = lerp(q->x0[j], q->x1[j], t);
	if (q->edge_edge) {
		pbd_d3 a = lerp(x[0], x[1], u), b = lerp(x[2], x[3], v);
		return d3_sub(a, b);
	}
	pbd_d3 f = d3_add(x[1], d3_add(d3_scale(d3_sub(x[2], x[1]), u), d3_scale(d3_sub(x[3], x[1]), v)));
	return d3_sub(x[0], f);
}

// Range of F over the box, per axis; *width receives how much each parameter contributes to
// the range's widest axis (which parameter to split). Returns whether the widened range
// meets [-d, d]^3.
static bool box_may_touch(const inclusion_query *q, const param_box *b, double *range_width, double split_gain[3])
{
	pbd_d3 corner[8];
	for (int c = 0; c < 8; ++c)
		corner[c] = evaluate(q, (c & 1) ? b->hi[0] : b->lo[0], (c & 2) ? b->hi[1] : b->lo[1],
				     (c & 4) ? b->hi[2] : b->lo[2]);
	double widest = 0.0;
	int widest_axis = 0;
	for (int k = 0; k < 3; ++k) {
		double lo = INFINITY, hi = -INFINITY;
		for (int c = 0; c < 8; ++c) {
			lo = fmin(lo, axis(corner[c], k));
			hi = fmax(hi, axis(corner[c], k));
		}
		double slack = q->rounding[k] + q->min_distance;
		if (lo - slack > 0.0 || hi + slack < 0.0)
			return false;
		if (hi - lo > widest) {
			widest = hi - lo;
			widest_axis = k;
		}
	}
	*range_width = widest;
	for (int d = 0; d < 3; ++d) {
		double gain = 0.0;
		for (int c = 0; c < 8; ++c)
			if (!(c & (1 << d)))
				gain = fmax(gain, fabs(axis(corner[c | (1 << d)], widest_axis) - axis(corner[c], widest_axis)));
		split_gain[d] = gain;
	}
	return true;
}

static bool outside_triangle(const inclusion_query *q, const param_box *b)
{
	return !q->edge_edge && b->lo[1] + b->lo[2] > 1.0;
}

// Depth-first with the earlier half of a time split on top, so the first hit found is the
// earliest box. Returns true on a hit (or when the budget runs out), with *toi the start of
// the box's time interval.
static bool inclusion_search(const inclusion_query *q, int budget, double *toi, int *boxes)
{
	param_box stack[INCLUSION_STACK];
	int top = 0;
	stack[top++] = (param_box){{0, 0, 0}, {1, 1, 1}};
	*toi = 0.0;
	while (top > 0) {
		param_box b = stack[--top];
		if (outside_triangle(q, &b))
			continue;
		double width, gain[3];
		++*boxes;
		if (!box_may_touch(q, &b, &width, gain))
			continue;
		if (width <= q->tolerance || *boxes >= budget || top + 2 > INCLUSION_STACK) {
			*toi = b.lo[0];
			return true;
		}
		int d = 0;
		for (int k = 1; k < 3; ++k)
			if (gain[k] > gain[d])
				d = k;
		double mid = 0.5 * (b.lo[d] + b.hi[d]);
		if (!(mid > b.lo[d] && mid < b.hi[d])) {  // the box cannot be split further
			*toi = b.lo[0];
			return true;
		}
		param_box first = b, second = b;
		first.hi[d] = mid;
		second.lo[d] = mid;
		stack[top++] = second;
		stack[top++] = first;
	}
	return false;
}

static void prepare(inclusion_query *q, const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance,
		    double relative_tolerance)
{
	for (int j = 0; j < 4; ++j) {
		q->x0[j] = x0[j];
		q->x1[j] = x1[j];
	}
	q->edge_edge = edge_edge;
	q->min_distance = min_distance;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int j = 0; j < 4; ++j)
		for (int k = 0; k < 3; ++k) {
			lo[k] = fmin(lo[k], fmin(axis(x0[j], k), axis(x1[j], k)));
			hi[k] = fmax(hi[k], fmax(axis(x0[j], k), axis(x1[j], k)));
		}
	double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
	// The tolerance scales with the query, so that a tiny query is no more likely to be
	// reported than the same query at the scale of metres.
	q->tolerance = relative_tolerance * extent;
	// Every intermediate of evaluate() is a sum of at most a few terms bounded by 4 M (M the
	// largest magnitude of a coordinate on that axis, parameters in [0, 1]); 6 roundings of at
	// most eps * 4 M each per path, with room to spare.
	for (int k = 0; k < 3; ++k) {
		double m = 0.0;
		for (int j = 0; j < 4; ++j)
			m = fmax(m, fmax(fabs(axis(x0[j], k)), fabs(axis(x1[j], k))));
		q->rounding[k] = 64.0 * DBL_EPSILON * m;
	}
}

bool pbd_ccd_inclusion(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance,
		       double relative_tolerance, int budget, double *toi)
{
	*toi = 0.0;
	if (!pbd_ccd_coordinates_in_range(x0, x1))
		return true;
	inclusion_query q;
	prepare(&q, x0, x1, edge_edge, min_distance, relative_tolerance);
	int boxes = 0;
	return inclusion_search(&q, budget, toi, &boxes);
}
