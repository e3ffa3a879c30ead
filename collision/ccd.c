// SPDX-License-Identifier: MIT
// Continuous collision detection queries (collision.h).
//
// Narrow phase: additive CCD (Li, Kaufman, Jiang 2021; seeds 000/002). The distance between
// two primitives moving linearly changes at most as fast as l = |largest motion of one side|
// + |largest motion of the other| (after removing their shared mean motion), so from time t
// the pair cannot touch before t + (d(t) - min_distance) / l. Stepping by 0.9 of that bound
// never steps past a contact: no false negatives, as long as the distance itself is computed
// correctly, which double precision does for these queries. A pair is reported when its gap
// above min_distance has closed to a tenth of what it was, so grazing approaches are reported
// too (false positives that cost only motion); the reported time is one at which the pair is
// still apart.
#include <float.h>
#include <string.h>

#include "collision.h"

#define ACCD_SHRINK 0.9
#define ACCD_GAP 0.1
#define ACCD_MAX_ITERATIONS 256

typedef double (*distance_fn)(const pbd_d3 x[4]);

static double vt_distance(const pbd_d3 x[4])
{
	double bary[3];
	return sqrt(pbd_point_triangle_distance2(x[0], x[1], x[2], x[3], bary));
}

static double ee_distance(const pbd_d3 x[4])
{
	double s, t;
	return sqrt(pbd_segment_segment_distance2(x[0], x[1], x[2], x[3], &s, &t));
}

static double len(pbd_d3 a) { return sqrt(d3_len2(a)); }

bool pbd_ccd_coordinates_in_range(const pbd_d3 x0[4], const pbd_d3 x1[4])
{
	for (int k = 0; k < 4; ++k) {
		const double c[6] = {x0[k].x, x0[k].y, x0[k].z, x1[k].x, x1[k].y, x1[k].z};
		for (int j = 0; j < 6; ++j)
			if (!(fabs(c[j]) <= PBD_CCD_COORDINATE_LIMIT))  // also false for NaN
				return false;
	}
	return true;
}

// split: primitives are x[0..split-1] and x[split..3].
static bool accd(const pbd_d3 x0[4], const pbd_d3 x1[4], int split, distance_fn distance, double min_distance,
		 double *toi)
{
	*toi = 0.0;
	if (!pbd_ccd_coordinates_in_range(x0, x1))
		return true;
	pbd_d3 dx[4], mean = d3(0, 0, 0);
	for (int k = 0; k < 4; ++k) {
		dx[k] = d3_sub(x1[k], x0[k]);
		mean = d3_add(mean, dx[k]);
	}
	mean = d3_scale(mean, 0.25);
	double la = 0.0, lb = 0.0;
	for (int k = 0; k < 4; ++k) {
		double m = len(d3_sub(dx[k], mean));
		if (k < split)
			la = fmax(la, m);
		else
			lb = fmax(lb, m);
	}
	double lp = la + lb;
	// Rounding of the computed distance, so that a pair that just reaches contact at t = 1
	// (d = lp (1 - t) exactly) is not rejected by one unit in the last place.
	double scale = 0.0;
	for (int k = 0; k < 4; ++k)
		scale = fmax(scale, fmax(fmax(fabs(x0[k].x), fabs(x0[k].y)), fmax(fabs(x0[k].z), fmax(fabs(x1[k].x),
								fmax(fabs(x1[k].y), fabs(x1[k].z))))));
	double rounding = 64.0 * DBL_EPSILON * scale;
	double d = distance(x0);
	if (d <= rounding)
		return true;  // touching at the start
	// A pair that starts closer than min_distance may move apart, and close in no further than
	// half of min_distance (the floor): were it allowed to halve what is left each time, it
	// would tend to zero over many substeps, where float rounding of the positions crosses it.
	// A pair at the floor or below it (rounding, or a motion the guard cannot stop, put it
	// there) may only move apart or slide: it closes in by a millionth of its distance at most.
	double floor_distance = 0.5 * min_distance;
	if (d < min_distance)
		min_distance = d > floor_distance ? floor_distance : (1.0 - 1e-6) * d;
	if (lp <= 0.0)
		return false;  // rigid translation: the distance never changes
	double gap = ACCD_GAP * (d - min_distance);
	double t = 0.0;
	for (int it = 0; it < ACCD_MAX_ITERATIONS; ++it) {
		// What is left of the motion cannot close the gap: no contact in [t, 1].
		if (d - min_distance - rounding > lp * (1.0 - t))
			return false;
		t += ACCD_SHRINK * (d - min_distance) / lp;
		if (t >= 1.0)
			return false;  // unreachable by the test above, kept for rounding
		pbd_d3 xt[4];
		for (int k = 0; k < 4; ++k)
			xt[k] = d3_mad(x0[k], dx[k], t);
		d = distance(xt);
		if (d - min_distance < gap) {
			*toi = t;
			return true;
		}
	}
	*toi = t;  // gave up stepping: stop at the last time known to be clear
	return true;
}

bool pbd_ccd_vertex_triangle(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi)
{
	return accd(x0, x1, 1, vt_distance, min_distance, toi);
}

bool pbd_ccd_edge_edge(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi)
{
	return accd(x0, x1, 2, ee_distance, min_distance, toi);
}

bool pbd_ccd_refined(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance, double *toi)
{
	double accd_toi;
	bool hit = edge_edge ? pbd_ccd_edge_edge(x0, x1, min_distance, &accd_toi)
			     : pbd_ccd_vertex_triangle(x0, x1, min_distance, &accd_toi);
	if (!hit)
		return false;
	// The additive time is the conservative one (the pair is still apart then); the inclusion
	// test only decides whether there is a contact at all.
	double box_start;
	if (!pbd_ccd_inclusion(x0, x1, edge_edge, min_distance, PBD_CCD_TOLERANCE, PBD_CCD_BOX_BUDGET, &box_start))
		return false;
	*toi = accd_toi;
	return true;
}

bool pbd_ccd_sphere_sphere(pbd_d3 a0, pbd_d3 a1, pbd_d3 b0, pbd_d3 b1, double distance, double *toi)
{
	// |r0 + t dr| = distance: a quadratic in t.
	pbd_d3 r0 = d3_sub(a0, b0), dr = d3_sub(d3_sub(a1, a0), d3_sub(b1, b0));
	double a = d3_len2(dr), b = 2.0 * d3_dot(r0, dr), r0_len2 = d3_len2(r0);
	*toi = 0.0;
	if (r0_len2 <= 0.0)
		return true;  // centres coincide: no direction to move apart in
	// A pair that already starts closer than `distance` may move apart or keep its distance,
	// but not close more than half of what is left (as in the additive test).
	if (r0_len2 <= distance * distance)
		distance = 0.5 * sqrt(r0_len2);
	double c = r0_len2 - distance * distance;
	if (a <= 0.0 || b >= 0.0)
		return false;  // not approaching
	double disc = b * b - 4.0 * a * c;
	if (disc < 0.0)
		return false;
	// The smaller root, in the cancellation-free form 2c / (-b + sqrt(disc)).
	double t = 2.0 * c / (-b + sqrt(disc));
	if (t > 1.0)
		return false;
	*toi = t;
	return true;
}
