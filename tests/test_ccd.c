// SPDX-License-Identifier: MIT
// Narrow-phase CCD on the degenerate cases the literature warns about: motion that stays
// coplanar, parallel edges, a vertex landing exactly on an edge, no motion, contact exactly at
// t = 0 and t = 1, huge and tiny coordinates. Every query is run through all three methods
// (additive, inclusion, the two combined); each case knows its true first contact time, and a
// hit must come no later than it (the inclusion test alone only has to find the hit: its time
// is the start of a box whose range is within the tolerance of zero, which can be after the
// contact when the approach is slow).
#include "test.h"

#include "../collision/collision.h"

enum { ADDITIVE, INCLUSION, REFINED, METHODS };
static const char *method_name[METHODS] = {"additive", "inclusion", "refined"};

static bool run(int method, const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double *toi)
{
	switch (method) {
	case ADDITIVE:
		return edge_edge ? pbd_ccd_edge_edge(x0, x1, 0.0, toi) : pbd_ccd_vertex_triangle(x0, x1, 0.0, toi);
	case INCLUSION:
		return pbd_ccd_inclusion(x0, x1, edge_edge, 0.0, PBD_CCD_TOLERANCE, PBD_CCD_BOX_BUDGET, toi);
	default:
		return pbd_ccd_refined(x0, x1, edge_edge, 0.0, toi);
	}
}

// A query that touches first at `contact` (in [0, 1]): every method reports it, no later.
static int expect_hit(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge, double contact)
{
	for (int m = 0; m < METHODS; ++m) {
		double toi = -1.0;
		bool hit = run(m, x0, x1, edge_edge, &toi);
		bool in_time = m == INCLUSION || (toi >= 0.0 && toi <= contact);
		if (!hit || !in_time) {
			fprintf(stderr, "  %s: hit %d toi %.17g, contact at %.17g\n", method_name[m], hit, toi, contact);
			return 1;
		}
	}
	return 0;
}

// A query that never touches: the inclusion-based methods reject it (the additive method alone
// may report a close approach, which is allowed: it only costs motion).
static int expect_miss(const pbd_d3 x0[4], const pbd_d3 x1[4], bool edge_edge)
{
	for (int m = INCLUSION; m < METHODS; ++m) {
		double toi;
		if (run(m, x0, x1, edge_edge, &toi)) {
			fprintf(stderr, "  %s reported a hit at %.17g on a miss\n", method_name[m], toi);
			return 1;
		}
	}
	return 0;
}

static void transform(pbd_d3 x[4], double scale, pbd_d3 offset)
{
	for (int j = 0; j < 4; ++j)
		x[j] = d3_add(d3_scale(x[j], scale), offset);
}

// Triangle in the plane z = 0; the vertex slides within that plane for the whole step.
static int coplanar_motion(void)
{
	pbd_d3 x0[4] = {{-1, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 x1[4] = {{1, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	// Reaches the triangle's edge x = 0 at t = 0.5 and slides across it.
	CHECK(expect_hit(x0, x1, false, 0.5) == 0);
	// The same slide above the triangle's apex misses it.
	pbd_d3 y0[4] = {{-1, 1.5, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 y1[4] = {{1, 1.5, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_miss(y0, y1, false) == 0);
	// Two coplanar edges sweeping across each other in the plane.
	pbd_d3 e0[4] = {{-1, -1, 0}, {-1, 1, 0}, {1, -1, 0}, {1, 1, 0}};
	pbd_d3 e1[4] = {{1, -1, 0}, {1, 1, 0}, {-1, -1, 0}, {-1, 1, 0}};
	CHECK(expect_hit(e0, e1, true, 0.5) == 0);
	return 0;
}

static int parallel_edges(void)
{
	// Parallel edges, one above the other, closing to contact at t = 0.5 and passing through.
	pbd_d3 x0[4] = {{0, 1, 0}, {1, 1, 0}, {0.5, -1, 0}, {1.5, -1, 0}};
	pbd_d3 x1[4] = {{0, -1, 0}, {1, -1, 0}, {0.5, 1, 0}, {1.5, 1, 0}};
	CHECK(expect_hit(x0, x1, true, 0.5) == 0);
	// Collinear, sliding towards each other along their common line: touch end to end at t = 0.5.
	pbd_d3 c0[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
	pbd_d3 c1[4] = {{1, 0, 0}, {2, 0, 0}, {1, 0, 0}, {2, 0, 0}};
	CHECK(expect_hit(c0, c1, true, 0.5) == 0);
	// Parallel edges sliding past each other 1e-3 apart never touch.
	pbd_d3 m0[4] = {{0, 1e-3, 0}, {1, 1e-3, 0}, {2, 0, 0}, {3, 0, 0}};
	pbd_d3 m1[4] = {{2, 1e-3, 0}, {3, 1e-3, 0}, {0, 0, 0}, {1, 0, 0}};
	CHECK(expect_miss(m0, m1, true) == 0);
	return 0;
}

static int vertex_on_edge(void)
{
	// The vertex falls onto the midpoint of the triangle's edge from (0,0,0) to (1,0,0) at t = 0.25
	// and carries on below it.
	pbd_d3 x0[4] = {{0.5, 0, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 x1[4] = {{0.5, 0, -3}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_hit(x0, x1, false, 0.25) == 0);
	// Exactly onto a corner.
	pbd_d3 y0[4] = {{1, 0, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 y1[4] = {{1, 0, -1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_hit(y0, y1, false, 0.5) == 0);
	// Past the edge by 1e-4 outside the triangle: a miss.
	pbd_d3 z0[4] = {{0.5, -1e-4, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 z1[4] = {{0.5, -1e-4, -3}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_miss(z0, z1, false) == 0);
	return 0;
}

static int zero_motion(void)
{
	pbd_d3 apart[4] = {{0.2, 0.2, 0.5}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_miss(apart, apart, false) == 0);
	double toi;
	for (int m = 0; m < METHODS; ++m)
		CHECK(!run(m, apart, apart, false, &toi));
	pbd_d3 touching[4] = {{0.2, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_hit(touching, touching, false, 0.0) == 0);
	pbd_d3 crossing[4] = {{0, 0, -1}, {0, 0, 1}, {-1, 0, 0}, {1, 0, 0}};
	CHECK(expect_hit(crossing, crossing, true, 0.0) == 0);
	return 0;
}

static int touching_at_ends(void)
{
	// In contact at t = 0, then moving apart.
	pbd_d3 a0[4] = {{0.2, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 a1[4] = {{0.2, 0.2, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_hit(a0, a1, false, 0.0) == 0);
	// Reaching contact exactly at t = 1 (the vertex arrives on the face, and edges arrive on
	// each other): the step's last instant counts.
	pbd_d3 b0[4] = {{0.2, 0.2, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 b1[4] = {{0.2, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	CHECK(expect_hit(b0, b1, false, 1.0) == 0);
	pbd_d3 e0[4] = {{-1, 0, 0.75}, {1, 0, 0.75}, {0, -1, 0}, {0, 1, 0}};
	pbd_d3 e1[4] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
	CHECK(expect_hit(e0, e1, true, 1.0) == 0);
	// Stopping 1e-3 short of contact at t = 1: a miss.
	pbd_d3 f1[4] = {{-1, 0, 1e-3}, {1, 0, 1e-3}, {0, -1, 0}, {0, 1, 0}};
	CHECK(expect_miss(e0, f1, true) == 0);
	return 0;
}

// The same hits and misses at 1e-9 m scale, at 1e6 m scale and 1e6 m from the origin.
static int huge_and_tiny_coordinates(void)
{
	struct {
		double scale;
		pbd_d3 offset;
	} frames[] = {{1e-9, {0, 0, 0}}, {1e6, {0, 0, 0}}, {1.0, {1e6, -1e6, 1e6}}, {1e-3, {-1e3, 1e3, 0}},
		      {0.8 * PBD_CCD_COORDINATE_LIMIT, {0, 0, 0}}};
	for (size_t f = 0; f < sizeof frames / sizeof frames[0]; ++f) {
		double s = frames[f].scale;
		pbd_d3 o = frames[f].offset;
		pbd_d3 h0[4] = {{0.3, 0.3, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		pbd_d3 h1[4] = {{0.3, 0.3, -1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		transform(h0, s, o);
		transform(h1, s, o);
		CHECK(expect_hit(h0, h1, false, 0.5) == 0);
		pbd_d3 m0[4] = {{1.2, 0.3, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		pbd_d3 m1[4] = {{1.2, 0.3, -1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		transform(m0, s, o);
		transform(m1, s, o);
		CHECK(expect_miss(m0, m1, false) == 0);
		pbd_d3 e0[4] = {{0.5, -1, 1}, {0.5, 1, 1}, {-1, 0, 0}, {1, 0, 0}};
		pbd_d3 e1[4] = {{0.5, -1, -1}, {0.5, 1, -1}, {-1, 0, 0}, {1, 0, 0}};
		transform(e0, s, o);
		transform(e1, s, o);
		CHECK(expect_hit(e0, e1, true, 0.5) == 0);
	}
	return 0;
}

// Beyond PBD_CCD_COORDINATE_LIMIT, or with a coordinate that is not a number, the closest-point
// products would overflow (to infinity, then NaN): every method reports touching at t = 0,
// even for a pair that misses, since an answer it cannot compute must not be a miss.
static int coordinates_beyond_range(void)
{
	const double big[] = {2.0 * PBD_CCD_COORDINATE_LIMIT, 1e200, 1e308, INFINITY, NAN};
	for (size_t b = 0; b < sizeof big / sizeof big[0]; ++b) {
		pbd_d3 m0[4] = {{1.2, 0.3, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		pbd_d3 m1[4] = {{1.2, 0.3, -1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		m1[2].x = big[b];  // one triangle corner flies off
		for (int edge_edge = 0; edge_edge < 2; ++edge_edge)
			for (int m = 0; m < METHODS; ++m) {
				double toi = -1.0;
				bool hit = run(m, m0, m1, edge_edge, &toi);
				if (!hit || toi != 0.0) {
					fprintf(stderr, "  %s, corner at %g: hit %d toi %.17g\n", method_name[m], big[b], hit,
						toi);
					return 1;
				}
			}
	}
	return 0;
}

// Random crossings: a vertex moving through a random triangle, at a known time (the vertex is
// placed on the triangle at time tc and moves along a random direction).
static int random_crossings_found(void)
{
	unsigned state = 12345u;
	for (int i = 0; i < 2000; ++i) {
		double r[16];
		for (int k = 0; k < 16; ++k) {
			state = state * 1664525u + 1013904223u;
			r[k] = (double)(state >> 8) / (double)(1u << 24) * 2.0 - 1.0;
		}
		pbd_d3 f0 = d3(r[0], r[1], r[2]), f1 = d3(r[3], r[4], r[5]), f2 = d3(r[6], r[7], r[8]);
		double u = 0.5 * (r[9] + 1.0), v = 0.5 * (r[10] + 1.0);
		if (u + v > 1.0) {
			u = 1.0 - u;
			v = 1.0 - v;
		}
		double tc = 0.5 * (r[11] + 1.0);
		pbd_d3 on = d3_add(f0, d3_add(d3_scale(d3_sub(f1, f0), u), d3_scale(d3_sub(f2, f0), v)));
		pbd_d3 dir = d3(r[12], r[13], r[14]);
		pbd_d3 x0[4] = {d3_sub(on, d3_scale(dir, tc)), f0, f1, f2};
		pbd_d3 x1[4] = {d3_add(on, d3_scale(dir, 1.0 - tc)), f0, f1, f2};
		// The contact point was rounded when it was built: allow the hit that much later.
		if (expect_hit(x0, x1, false, tc + 1e-9) != 0) {
			fprintf(stderr, "  query %d\n", i);
			return 1;
		}
	}
	return 0;
}

// The guard's use of a minimum distance, substep after substep: a vertex pressed down onto a
// triangle (or an edge onto an edge) is stopped at the time the test reports, backed off as
// the guard does, and pressed again. Starting inside the minimum distance, it may move away
// freely but never close in below half of it: repeated halving of what is left would tend to
// zero, where rounding positions to float crosses the pair.
static double pressed_repeatedly(bool edge_edge, double start, double min_distance)
{
	pbd_d3 x[4];
	if (edge_edge) {
		const pbd_d3 e[4] = {{0.5, -1, start}, {0.5, 1, start}, {0, 0, 0}, {1, 0, 0}};
		memcpy(x, e, sizeof x);
	} else {
		const pbd_d3 v[4] = {{0.25, 0.25, start}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
		memcpy(x, v, sizeof x);
	}
	int moving = edge_edge ? 2 : 1;
	double closest = start;
	for (int substep = 0; substep < 200; ++substep) {
		pbd_d3 x1[4];
		memcpy(x1, x, sizeof x1);
		for (int j = 0; j < moving; ++j)
			x1[j].z -= 0.01;  // straight through
		double toi;
		bool hit = edge_edge ? pbd_ccd_edge_edge(x, x1, min_distance, &toi)
				     : pbd_ccd_vertex_triangle(x, x1, min_distance, &toi);
		double f = hit ? 0.98 * toi : 1.0;
		for (int j = 0; j < moving; ++j)
			x[j].z += f * (x1[j].z - x[j].z);
		closest = fmin(closest, x[0].z);
	}
	return closest;
}

static int pressed_inside_min_distance(void)
{
	const double gap = 1e-3;
	for (int ee = 0; ee < 2; ++ee) {
		double closest = pressed_repeatedly(ee, 0.8 * gap, gap);
		// At the floor, rounding tips it below, where a millionth of the distance may go per press.
		if (closest < 0.5 * gap * pow(1.0 - 1e-6, 200) || closest > 0.8 * gap) {
			fprintf(stderr, "  %s started at 0.8 of the gap, came to %.17g of it\n", ee ? "edge" : "vertex",
				closest / gap);
			return 1;
		}
		// Found closer than half the gap: it holds (a millionth may go each time it is pressed).
		closest = pressed_repeatedly(ee, 0.2 * gap, gap);
		CHECK(closest >= 0.2 * gap * pow(1.0 - 1e-6, 200) && closest <= 0.2 * gap);
		// Outside the gap, it stops there.
		closest = pressed_repeatedly(ee, 5.0 * gap, gap);
		CHECK(closest >= gap && closest < 1.2 * gap);
	}
	// Moving away from inside the gap is never stopped.
	pbd_d3 x0[4] = {{0.25, 0.25, 0.2 * gap}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	pbd_d3 x1[4] = {{0.25, 0.25, 0.01}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	double toi;
	CHECK(!pbd_ccd_vertex_triangle(x0, x1, gap, &toi));
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(coplanar_motion),  TEST(parallel_edges),		 TEST(vertex_on_edge),
		TEST(zero_motion),      TEST(touching_at_ends),		 TEST(huge_and_tiny_coordinates),
		TEST(coordinates_beyond_range), TEST(random_crossings_found), TEST(pressed_inside_min_distance),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
