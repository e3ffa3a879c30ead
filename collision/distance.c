// SPDX-License-Identifier: MIT
// Closest points between primitives, in double precision.
#include "collision.h"

double pbd_point_triangle_distance2(pbd_d3 p, pbd_d3 a, pbd_d3 b, pbd_d3 c, double bary[3])
{
	pbd_d3 ab = d3_sub(b, a), ac = d3_sub(c, a), ap = d3_sub(p, a);
	double d1 = d3_dot(ab, ap), d2 = d3_dot(ac, ap);
	double u, v, w;
	if (d1 <= 0.0 && d2 <= 0.0) {
		u = 1.0, v = 0.0, w = 0.0;  // vertex a
	} else {
		pbd_d3 bp = d3_sub(p, b);
		double d3v = d3_dot(ab, bp), d4 = d3_dot(ac, bp);
		pbd_d3 cp = d3_sub(p, c);
		double d5 = d3_dot(ab, cp), d6 = d3_dot(ac, cp);
		double vc = d1 * d4 - d3v * d2, vb = d5 * d2 - d1 * d6, va = d3v * d6 - d5 * d4;
		if (d3v >= 0.0 && d4 <= d3v) {
			u = 0.0, v = 1.0, w = 0.0;  // vertex b
		} else if (vc <= 0.0 && d1 >= 0.0 && d3v <= 0.0) {
			double t = d1 / (d1 - d3v);  // edge ab
			u = 1.0 - t, v = t, w = 0.0;
		} else if (d6 >= 0.0 && d5 <= d6) {
			u = 0.0, v = 0.0, w = 1.0;  // vertex c
		} else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
			double t = d2 / (d2 - d6);  // edge ac
			u = 1.0 - t, v = 0.0, w = t;
		} else if (va <= 0.0 && (d4 - d3v) >= 0.0 && (d5 - d6) >= 0.0) {
			double t = (d4 - d3v) / ((d4 - d3v) + (d5 - d6));  // edge bc
			u = 0.0, v = 1.0 - t, w = t;
		} else {
			double denom = va + vb + vc;
			if (!(fabs(denom) > 0.0)) {
				// Degenerate triangle: fall back to its edges.
				double s0, t0, s1, t1;
				double e0 = pbd_segment_segment_distance2(p, p, a, b, &s0, &t0);
				double e1 = pbd_segment_segment_distance2(p, p, a, c, &s1, &t1);
				if (e0 <= e1) {
					u = 1.0 - t0, v = t0, w = 0.0;
				} else {
					u = 1.0 - t1, v = 0.0, w = t1;
				}
			} else {
				v = vb / denom;
				w = vc / denom;
				u = 1.0 - v - w;
			}
		}
	}
	bary[0] = u;
	bary[1] = v;
	bary[2] = w;
	pbd_d3 q = d3_add(d3_add(d3_scale(a, u), d3_scale(b, v)), d3_scale(c, w));
	return d3_len2(d3_sub(p, q));
}

static double clamp01(double v) { return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v); }

// Ericson 5.1.9, with the parallel and degenerate cases handled.
double pbd_segment_segment_distance2(pbd_d3 p0, pbd_d3 p1, pbd_d3 q0, pbd_d3 q1, double *s_out, double *t_out)
{
	pbd_d3 d1 = d3_sub(p1, p0), d2 = d3_sub(q1, q0), r = d3_sub(p0, q0);
	double a = d3_len2(d1), e = d3_len2(d2), f = d3_dot(d2, r);
	double s, t;
	if (a <= 0.0 && e <= 0.0) {
		s = t = 0.0;
	} else if (a <= 0.0) {
		s = 0.0;
		t = clamp01(f / e);
	} else {
		double c = d3_dot(d1, r);
		if (e <= 0.0) {
			t = 0.0;
			s = clamp01(-c / a);
		} else {
			double b = d3_dot(d1, d2), denom = a * e - b * b;
			// Parallel (denom ~ 0): any s works; take 0 and let t and s be clamped below.
			s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0) {
				t = 0.0;
				s = clamp01(-c / a);
			} else if (t > 1.0) {
				t = 1.0;
				s = clamp01((b - c) / a);
			}
		}
	}
	*s_out = s;
	*t_out = t;
	pbd_d3 cp = d3_mad(p0, d1, s), cq = d3_mad(q0, d2, t);
	return d3_len2(d3_sub(cp, cq));
}

double pbd_segment_triangle_distance2(pbd_d3 p0, pbd_d3 p1, const pbd_d3 t[3], double *s, double bary[3])
{
	pbd_d3 e1 = d3_sub(t[1], t[0]), e2 = d3_sub(t[2], t[0]), d = d3_sub(p1, p0);
	pbd_d3 n = d3_cross(e1, e2);
	double denom = d3_dot(n, d);
	if (fabs(denom) > 1e-30) {  // where the segment's line meets the plane, if inside
		double u = d3_dot(n, d3_sub(t[0], p0)) / denom;
		if (u >= 0.0 && u <= 1.0) {
			pbd_d3 q = d3_mad(p0, d, u);
			double b[3];
			if (pbd_point_triangle_distance2(q, t[0], t[1], t[2], b) <= 1e-24 * (d3_len2(e1) + d3_len2(e2))) {
				*s = u;
				bary[0] = b[0], bary[1] = b[1], bary[2] = b[2];
				return 0.0;
			}
		}
	}
	double best = INFINITY, b[3];
	for (int end = 0; end < 2; ++end) {  // the segment's ends against the triangle
		double d2 = pbd_point_triangle_distance2(end ? p1 : p0, t[0], t[1], t[2], b);
		if (d2 < best) {
			best = d2, *s = end;
			bary[0] = b[0], bary[1] = b[1], bary[2] = b[2];
		}
	}
	for (int k = 0; k < 3; ++k) {  // the segment against the triangle's edges
		double u, v;
		double d2 = pbd_segment_segment_distance2(p0, p1, t[k], t[(k + 1) % 3], &u, &v);
		if (d2 < best) {
			best = d2, *s = u;
			bary[k] = 1.0 - v, bary[(k + 1) % 3] = v, bary[(k + 2) % 3] = 0.0;
		}
	}
	return best;
}
