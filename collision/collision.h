// SPDX-License-Identifier: MIT
// Collision queries: distances to collider shapes.
#pragma once

#include "core.h"

typedef struct pbd_shape_query {
	int type;              // pbd_shape_type
	float radius;
	float half_height;
	pbd_v3 half_extents;
} pbd_shape_query;

// Signed distance from `point` to the surface of a shape at pose (position, rotation);
// negative inside. *normal receives the outward unit normal at the closest surface point.
float pbd_shape_signed_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point,
				pbd_v3 *normal);

// The same distance alone (bit for bit what pbd_shape_signed_distance returns).
float pbd_shape_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point);

// Conservative bounding radius of a shape around its position (infinite for planes).
float pbd_shape_bounding_radius(const pbd_shape_query *shape);

// Double-precision vectors for the narrow phase and CCD.
typedef struct pbd_d3 {
	double x, y, z;
} pbd_d3;

static inline pbd_d3 d3(double x, double y, double z) { return (pbd_d3){x, y, z}; }
static inline pbd_d3 d3_of(pbd_v3 a) { return (pbd_d3){a.x, a.y, a.z}; }
static inline pbd_d3 d3_add(pbd_d3 a, pbd_d3 b) { return (pbd_d3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline pbd_d3 d3_sub(pbd_d3 a, pbd_d3 b) { return (pbd_d3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline pbd_d3 d3_scale(pbd_d3 a, double s) { return (pbd_d3){a.x * s, a.y * s, a.z * s}; }
static inline pbd_d3 d3_mad(pbd_d3 a, pbd_d3 b, double s) { return (pbd_d3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline double d3_dot(pbd_d3 a, pbd_d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline pbd_d3 d3_cross(pbd_d3 a, pbd_d3 b)
{
	return (pbd_d3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double d3_len2(pbd_d3 a) { return d3_dot(a, a); }

// Closest point of triangle (a, b, c) to p (Ericson, Real-Time Collision Detection 5.1.5);
// bary receives its barycentric coordinates. Squared distance returned.
double pbd_point_triangle_distance2(pbd_d3 p, pbd_d3 a, pbd_d3 b, pbd_d3 c, double bary[3]);
// Closest points of segments p0-p1 and q0-q1 at parameters *s and *t; squared distance.
double pbd_segment_segment_distance2(pbd_d3 p0, pbd_d3 p1, pbd_d3 q0, pbd_d3 q1, double *s, double *t);
// Closest points of segment p0-p1 and triangle t: the segment's parameter and the triangle's
// barycentric coordinates; the squared distance (0 where the segment pierces the triangle).
double pbd_segment_triangle_distance2(pbd_d3 p0, pbd_d3 p1, const pbd_d3 t[3], double *s, double bary[3]);
// Bounds of that distance without the closest points, to turn pairs away before looking for
// them: *lower <= the square root of what pbd_segment_segment_distance2 returns <= *upper.
// Along the direction n between the segments' midpoints (m apart) every point of a segment
// lies within half the segment's extent along n of its midpoint, so the segments are at least
// |m| - (|n.d1| + |n.d2|) / 2 apart (d1, d2 the segments), and the midpoints are no farther
// apart than |m|. The lines through two segments that cross at an angle are |(q0 - p0).c|
// apart along their common normal c = d1 x d2 / |d1 x d2|, and the segments no closer: two
// edges of layers lying one on the other are apart by that gap. Two segments side by side, end
// to end, or crossing get their distance exactly. Both bounds are widened far past the
// rounding of either computation (the lines' distance only at angles over about half a degree,
// where c's rounding stays small); the upper also past the closest points' choice of s = 0 for
// segments parallel to within 1e-7, up to that share of their lengths long. Not finite: NaN
// bounds, which every test passes on.
static inline void pbd_segment_segment_bounds(pbd_d3 p0, pbd_d3 p1, pbd_d3 q0, pbd_d3 q1, double *lower,
					      double *upper)
{
	pbd_d3 d1 = d3_sub(p1, p0), d2 = d3_sub(q1, q0);
	pbd_d3 m = d3_scale(d3_sub(d3_add(p0, p1), d3_add(q0, q1)), 0.5);
	double length = sqrt(d3_len2(m));
	double extent = 0.5 * (fabs(d3_dot(m, d1)) + fabs(d3_dot(m, d2)));
	// Sizes by their 1-norms, no smaller than their lengths.
	double size = fabs(m.x) + fabs(m.y) + fabs(m.z) + fabs(d1.x) + fabs(d1.y) + fabs(d1.z) + fabs(d2.x) +
		      fabs(d2.y) + fabs(d2.z);
	double place = fabs(p0.x) + fabs(p0.y) + fabs(p0.z) + fabs(q0.x) + fabs(q0.y) + fabs(q0.z);
	double rounding = 1e-12 * (1.0 + size + place);
	double apart = length > 0.0 ? length - extent / length : 0.0;
	pbd_d3 c = d3_cross(d1, d2);
	double c2 = d3_len2(c);
	if (c2 > 1e-4 * d3_len2(d1) * d3_len2(d2))
		apart = fmax(apart, fabs(d3_dot(d3_sub(q0, p0), c)) / sqrt(c2));
	*lower = apart - rounding;
	*upper = length + 1e-6 * size + rounding;
}

// Continuous collision: do the primitives, each vertex moving linearly from x0 to x1 over
// t in [0, 1], come closer than `min_distance` (>= 0)? On a hit, *toi is a time at which they
// are still at least min_distance apart and no later than the first contact (conservative).
// vertex-triangle: v[0] the vertex, v[1..3] the triangle; edge-edge: v[0..1], v[2..3].
// A query with a coordinate that is not finite or larger in magnitude than
// PBD_CCD_COORDINATE_LIMIT is reported touching at t = 0: the closest-point computations
// multiply four coordinates together, which would overflow, and an answer that cannot be
// computed must not be a miss. (Single-precision positions are far inside the limit.)
#define PBD_CCD_COORDINATE_LIMIT 1e60
bool pbd_ccd_coordinates_in_range(const pbd_d3 x0[4], const pbd_d3 x1[4]);
bool pbd_ccd_vertex_triangle(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi);
bool pbd_ccd_edge_edge(const pbd_d3 x0[4], const pbd_d3 x1[4], double min_distance, double *toi);
// Inclusion-based CCD (exact range of the multilinear contact function over parameter boxes,
// widened by a rounding bound): reports a hit when a box whose range meets [-d, d]^3 is
// narrower than `relative_tolerance` times the query's extent (the size of the box around all
// 8 positions), or when the `budget` of boxes runs out. No false negatives; *toi is the start
// of the first such box found, within the tolerance of the first contact but not always
// before it (pbd_ccd_refined gives a conservative time).
bool pbd_ccd_inclusion(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance,
		       double relative_tolerance, int budget, double *toi);
// Additive CCD as a fast filter, then the inclusion test on what it reports: the additive
// test's misses are none and its false positives (every close approach) are mostly removed.
// *toi is the additive test's, a time at which the pair is still apart.
#define PBD_CCD_TOLERANCE 1e-6
#define PBD_CCD_BOX_BUDGET 100000
bool pbd_ccd_refined(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double min_distance, double *toi);
// The closest a pair may come while a sweep (the guard's, the carry's) lets it move: a crossing
// needs the distance to reach zero, and a tenth of the contact thickness is kept so that float
// rounding cannot close the rest.
static inline float pbd_guard_gap(float thickness) { return 0.1f * thickness; }
// Two spheres' centres moving linearly: first time their distance reaches `distance`.
bool pbd_ccd_sphere_sphere(pbd_d3 a0, pbd_d3 a1, pbd_d3 b0, pbd_d3 b1, double distance, double *toi);
