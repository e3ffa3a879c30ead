// SPDX-License-Identifier: MIT
// Fast colliders against the no-crossing promise: scenes built on the public header alone and
// measured with geometry of this file's own (and the tests' independent intersection check).
//  - a capsule of radius 6 cm swept through a 48 x 48 curtain pinned along its top, there and
//    back, lying across the curtain and standing upright, at 3, 10 and 50 m/s;
//  - a bar wider than the curtain pushing it 2 m at 3 and 10 m/s;
//  - a 64 x 64 cloth dropped across the ridge of a box turned 45 degrees, and over a table's edge;
// each at 1 and at 10 substeps. Every run prints its figures beside the targets of "contacts at
// game speed" (item 8) as MET or MISSED.
#define _POSIX_C_SOURCE 200809L  // clock_gettime
#include "fast_colliders.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intersect_check.h"

static const float kDt = 1.0f / 60.0f;
static const float kPi = 3.14159265358979f;
static const double kInsideTolerance = 1e-3;  // a shape's radius short by this share counts as inside

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

// ---- Geometry in double precision, written for this benchmark.

typedef struct dvec {
	double x, y, z;
} dvec;

static dvec dv(double x, double y, double z) { return (dvec){x, y, z}; }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dadd(dvec a, dvec b) { return dv(a.x + b.x, a.y + b.y, a.z + b.z); }
static dvec dscale(dvec a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dvec dcross(dvec a, dvec b) { return dv(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec vertex_at(const float *x, uint32_t i) { return dv(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }

static double clamp01(double t) { return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t); }

// Closest distance between segments p1-q1 and p2-q2 (Ericson, Real-Time Collision Detection 5.1.9).
static double segment_segment(dvec p1, dvec q1, dvec p2, dvec q2)
{
	dvec d1 = dsub(q1, p1), d2 = dsub(q2, p2), r = dsub(p1, p2);
	double a = ddot(d1, d1), e = ddot(d2, d2), f = ddot(d2, r);
	double s = 0.0, t = 0.0;
	if (a < 1e-24 && e < 1e-24) {
		s = t = 0.0;
	} else if (a < 1e-24) {
		t = clamp01(f / e);
	} else {
		double c = ddot(d1, r);
		if (e < 1e-24) {
			s = clamp01(-c / a);
		} else {
			double b = ddot(d1, d2), denom = a * e - b * b;
			s = denom > 1e-24 ? clamp01((b * f - c * e) / denom) : 0.0;
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
	return dlen(dsub(dadd(p1, dscale(d1, s)), dadd(p2, dscale(d2, t))));
}

// Distance from p to triangle abc: to the plane when p projects inside, else to the nearest edge.
static double point_triangle(dvec p, dvec a, dvec b, dvec c)
{
	double best = fmin(segment_segment(p, p, a, b), fmin(segment_segment(p, p, b, c), segment_segment(p, p, c, a)));
	dvec n = dcross(dsub(b, a), dsub(c, a));
	double nl = dlen(n);
	if (nl <= 1e-30)
		return best;
	n = dscale(n, 1.0 / nl);
	double h = ddot(dsub(p, a), n);
	dvec q = dsub(p, dscale(n, h));
	if (ddot(dcross(dsub(b, a), dsub(q, a)), n) < 0.0 || ddot(dcross(dsub(c, b), dsub(q, b)), n) < 0.0 ||
	    ddot(dcross(dsub(a, c), dsub(q, c)), n) < 0.0)
		return best;
	return fabs(h);
}

// Distance from segment p-q to triangle abc: zero when it passes through, else the least of its
// ends to the triangle and of the segment to the triangle's edges.
static double segment_triangle(dvec p, dvec q, dvec a, dvec b, dvec c)
{
	double pa[3] = {p.x, p.y, p.z}, qa[3] = {q.x, q.y, q.z}, aa[3] = {a.x, a.y, a.z}, ba[3] = {b.x, b.y, b.z},
	       ca[3] = {c.x, c.y, c.z};
	if (check_segment_triangle(pa, qa, aa, ba, ca))
		return 0.0;
	double d = fmin(point_triangle(p, a, b, c), point_triangle(q, a, b, c));
	d = fmin(d, segment_segment(p, q, a, b));
	d = fmin(d, segment_segment(p, q, b, c));
	return fmin(d, segment_segment(p, q, c, a));
}

// Least distance from segment p-q to a mesh.
static double segment_mesh(dvec p, dvec q, const float *x, const uint32_t *tri, int tri_count)
{
	double lo[3] = {fmin(p.x, q.x), fmin(p.y, q.y), fmin(p.z, q.z)};
	double hi[3] = {fmax(p.x, q.x), fmax(p.y, q.y), fmax(p.z, q.z)};
	double best = INFINITY;
	for (int t = 0; t < tri_count; ++t) {
		dvec a = vertex_at(x, tri[3 * t]), b = vertex_at(x, tri[3 * t + 1]), c = vertex_at(x, tri[3 * t + 2]);
		// Triangles whose box is farther than the best so far cannot be closer.
		double gap = 0.0;
		double tlo[3] = {fmin(a.x, fmin(b.x, c.x)), fmin(a.y, fmin(b.y, c.y)), fmin(a.z, fmin(b.z, c.z))};
		double thi[3] = {fmax(a.x, fmax(b.x, c.x)), fmax(a.y, fmax(b.y, c.y)), fmax(a.z, fmax(b.z, c.z))};
		for (int k = 0; k < 3; ++k)
			gap = fmax(gap, fmax(tlo[k] - hi[k], lo[k] - thi[k]));
		if (gap >= best)
			continue;
		best = fmin(best, segment_triangle(p, q, a, b, c));
	}
	return best;
}

// ---- A run: one cloth, one kinematic collider on a scripted path, measured every frame.

typedef struct edge_list {
	uint32_t (*ends)[2];
	double *rest;
	int count;
} edge_list;

static int compare_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

// The cloth's edges, each once (sorted by their ends), with their lengths in the first frame.
static bool edges_from_triangles(const uint32_t *tri, int tri_count, const float *x, edge_list *out)
{
	size_t most = (size_t)tri_count * 3;
	uint64_t *keys = malloc(sizeof *keys * most);
	out->ends = malloc(sizeof *out->ends * most);
	out->rest = malloc(sizeof *out->rest * most);
	out->count = 0;
	if (!keys || !out->ends || !out->rest) {
		free(keys);
		return false;
	}
	for (size_t k = 0; k < most; ++k) {
		uint32_t a = tri[k], b = tri[k % 3 == 2 ? k - 2 : k + 1];
		keys[k] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
	}
	qsort(keys, most, sizeof *keys, compare_keys);
	for (size_t k = 0; k < most; ++k) {
		if (k > 0 && keys[k] == keys[k - 1])
			continue;  // an edge shared by two triangles
		uint32_t a = (uint32_t)(keys[k] >> 32), b = (uint32_t)keys[k];
		out->ends[out->count][0] = a;
		out->ends[out->count][1] = b;
		out->rest[out->count++] = dlen(dsub(vertex_at(x, a), vertex_at(x, b)));
	}
	free(keys);
	return true;
}

static double worst_strain(const edge_list *e, const float *x)
{
	double worst = 0.0;
	for (int k = 0; k < e->count; ++k) {
		double l = dlen(dsub(vertex_at(x, e->ends[k][0]), vertex_at(x, e->ends[k][1])));
		worst = fmax(worst, l / e->rest[k] - 1.0);
	}
	return worst;
}

// Where the collider is at time t, and whether it is moving.
typedef struct sweep_path {
	dvec from, to;      // there from `from` to `to` at `speed`, a rest, and back
	double speed;       // m/s
	double start;       // s of rest before it moves
	double rest;        // s of rest at each end of a leg
	bool back;          // false: one leg only
} sweep_path;

static double leg_time(const sweep_path *s) { return dlen(dsub(s->to, s->from)) / s->speed; }

static double path_end(const sweep_path *s)
{
	return s->start + (s->back ? 2.0 : 1.0) * (leg_time(s) + s->rest);
}

static dvec path_at(const sweep_path *s, double t, bool *moving)
{
	double leg = leg_time(s), u;
	double t_back = s->start + leg + s->rest;
	if (t < s->start) {
		u = 0.0;
	} else if (t < t_back || !s->back) {
		u = clamp01((t - s->start) / leg);
	} else {
		u = 1.0 - clamp01((t - t_back) / leg);
	}
	*moving = (t > s->start && t < s->start + leg) || (s->back && t > t_back && t < t_back + leg);
	return dadd(s->from, dscale(dsub(s->to, s->from), u));
}

// Seconds after the last stop of the path at time t (negative while it moves or before it stops).
static double since_stop(const sweep_path *s, double t)
{
	double leg = leg_time(s), stop1 = s->start + leg, stop2 = stop1 + s->rest + leg;
	if (s->back && t >= stop2)
		return t - stop2;
	if (t >= stop1 && (!s->back || t < stop1 + s->rest))
		return t - stop1;
	return -1.0;
}

// What every run measures: frames run, frames with crossings, frames with cloth inside the
// collider and how deep (m), whether the time budget cut it short or a step failed.
typedef struct contact_figures {
	int frames, crossing_frames, inside_frames;
	double deepest;
	bool partial, failed;
} contact_figures;

typedef struct sweep_figures {
	contact_figures contact;
	double strain, settled_strain;
	bool settled_seen;          // a frame 1 s after a stop was reached
	double fastest;             // m/s, any vertex, any frame
	double far_after_stop;      // m, the cloth's vertex farthest along the path (z) 1 s after the first stop
	double worst_ms, quiet_ms;  // worst frame; median frame before the collider moves
} sweep_figures;

typedef struct sweep_scene {
	const char *name;
	pbd_collider_def collider;
	sweep_path path;
	float thickness;           // of the curtain; 0: the default
} sweep_scene;

// The hanging curtain: 48 x 48 vertices, 1 m square, pinned along its top edge (y = 1.5 m),
// in the plane z = 0; `thickness` replaces the default's when > 0.
static pbd_result create_curtain(pbd_world *w, float thickness, pbd_cloth_id *out)
{
	pbd_cloth_def c = pbd_cloth_def_default();
	if (thickness > 0.0f)
		c.material.thickness = thickness;
	c.grid.res_x = c.grid.res_y = 48;
	c.grid.width = c.grid.height = 1.0f;
	c.grid.pins = PBD_PIN_EDGE_V0;
	float s = sinf(0.25f * kPi);
	c.rotation[0] = s, c.rotation[1] = 0.0f, c.rotation[2] = 0.0f, c.rotation[3] = s;  // row 0 on top
	c.position[0] = 0.0f, c.position[1] = 1.0f, c.position[2] = 0.0f;
	return pbd_cloth_create(w, &c, out);
}

// How deep the collider reaches into the cloth: the capsule's axis against every triangle
// (its radius minus their distance), a box as box_depth says.
static double depth_into_cloth(const sweep_scene *sc, dvec centre, const float *x, int vertex_count,
			       const uint32_t *tri, int tri_count, double cloth_radius);

static double median_of(double *v, int n)
{
	for (int i = 1; i < n; ++i)
		for (int j = i; j > 0 && v[j] < v[j - 1]; --j) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n > 0 ? v[n / 2] : 0.0;
}

static void run_sweep(const sweep_scene *sc, int substeps, double budget_ms, sweep_figures *f)
{
	*f = (sweep_figures){.far_after_stop = -INFINITY};
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w = NULL;
	pbd_cloth_id cloth;
	pbd_collider_id collider;
	if (pbd_world_create(&wd, &w) != PBD_OK || pbd_world_set_substeps(w, substeps) != PBD_OK ||
	    create_curtain(w, sc->thickness, &cloth) != PBD_OK || pbd_collider_create(w, &sc->collider, &collider) != PBD_OK) {
		f->contact.failed = true;
		pbd_world_destroy(w);
		return;
	}
	int vertex_count, tri_count;
	const uint32_t *tri = pbd_cloth_indices(w, cloth, &tri_count);
	edge_list edges;
	if (!edges_from_triangles(tri, tri_count, pbd_cloth_positions(w, cloth, &vertex_count), &edges)) {
		f->contact.failed = true;
		goto done;
	}
	pbd_cloth_material material;
	pbd_cloth_get_material(w, cloth, &material);
	int frames = (int)ceil((path_end(&sc->path) + 0.05) / kDt);
	double quiet[64];
	int quiet_count = 0;
	double started = now_ms();
	for (int frame = 0; frame < frames; ++frame) {
		double t = (frame + 1) * (double)kDt;  // the end of this step
		bool moving;
		dvec at = path_at(&sc->path, t, &moving);
		float position[3] = {(float)at.x, (float)at.y, (float)at.z};
		pbd_collider_set_pose(w, collider, position, sc->collider.rotation);
		double t0 = now_ms();
		if (pbd_world_step(w, kDt) != PBD_OK)
			f->contact.failed = true;
		double ms = now_ms() - t0;
		f->worst_ms = fmax(f->worst_ms, ms);
		if (t < sc->path.start && frame >= 5 && quiet_count < 64)
			quiet[quiet_count++] = ms;
		const float *x = pbd_cloth_positions(w, cloth, &vertex_count);
		const float *v = pbd_cloth_velocities(w, cloth, &vertex_count);
		check_mesh mesh = {x, tri, tri_count};
		f->contact.crossing_frames += check_count_intersections(&mesh, 1) > 0;
		double depth = depth_into_cloth(sc, at, x, vertex_count, tri, tri_count, 0.5 * material.thickness);
		if (depth > 0.0) {
			f->contact.inside_frames++;
			f->contact.deepest = fmax(f->contact.deepest, depth);
		}
		double strain = worst_strain(&edges, x);
		f->strain = fmax(f->strain, strain);
		double after_stop = since_stop(&sc->path, t);
		if (after_stop >= 1.0 && after_stop < 1.0 + kDt) {
			f->settled_strain = fmax(f->settled_strain, strain);
			if (!f->settled_seen)
				for (int i = 0; i < vertex_count; ++i)
					f->far_after_stop = fmax(f->far_after_stop, x[3 * i + 2]);
			f->settled_seen = true;
		}
		for (int i = 0; i < vertex_count; ++i)
			f->fastest = fmax(f->fastest, dlen(vertex_at(v, (uint32_t)i)));
		f->contact.frames = frame + 1;
		if (now_ms() - started > budget_ms && frame + 1 < frames) {
			f->contact.partial = true;
			break;
		}
	}
	f->quiet_ms = median_of(quiet, quiet_count);
done:
	free(edges.ends);
	free(edges.rest);
	pbd_world_destroy(w);
}

// Rotates v by the unit quaternion q (x, y, z, w).
static dvec rotate(const float *q, dvec v)
{
	dvec u = dv(q[0], q[1], q[2]);
	dvec t = dscale(dcross(u, v), 2.0);
	return dadd(dadd(v, dscale(t, q[3])), dcross(u, t));
}

// How deep a box (centre, rotation, half extents) reaches into the cloth: its twelve edges
// against every triangle (the cloth's radius minus their distance), and every vertex against the
// box (the cloth's radius minus its signed distance).
static double box_depth(dvec centre, const float *rotation, const float *e, const float *x, int vertex_count,
			const uint32_t *tri, int tri_count, double cloth_radius)
{
	double worst = 0.0, limit = cloth_radius * (1.0 - kInsideTolerance);
	for (int axis = 0; axis < 3; ++axis)
		for (int s1 = -1; s1 <= 1; s1 += 2)
			for (int s2 = -1; s2 <= 1; s2 += 2) {
				double from[3], to[3];
				int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
				from[axis] = -e[axis], to[axis] = e[axis];
				from[a1] = to[a1] = s1 * e[a1];
				from[a2] = to[a2] = s2 * e[a2];
				dvec p = dadd(centre, rotate(rotation, dv(from[0], from[1], from[2])));
				dvec q = dadd(centre, rotate(rotation, dv(to[0], to[1], to[2])));
				double d = segment_mesh(p, q, x, tri, tri_count);
				if (d < limit)
					worst = fmax(worst, cloth_radius - d);
			}
	const float inverse[4] = {-rotation[0], -rotation[1], -rotation[2], rotation[3]};
	for (int i = 0; i < vertex_count; ++i) {
		dvec local = rotate(inverse, dsub(vertex_at(x, (uint32_t)i), centre));
		dvec out = dv(fabs(local.x) - e[0], fabs(local.y) - e[1], fabs(local.z) - e[2]);
		double inside = fmin(fmax(out.x, fmax(out.y, out.z)), 0.0);
		dvec beyond = dv(fmax(out.x, 0.0), fmax(out.y, 0.0), fmax(out.z, 0.0));
		double d = dlen(beyond) + inside;
		if (d < limit)
			worst = fmax(worst, cloth_radius - d);
	}
	return worst;
}

static double depth_into_cloth(const sweep_scene *sc, dvec centre, const float *x, int vertex_count,
			       const uint32_t *tri, int tri_count, double cloth_radius)
{
	const pbd_collider_def *c = &sc->collider;
	if (c->type == PBD_SHAPE_CAPSULE) {
		dvec half = rotate(c->rotation, dv(0.0, c->half_height, 0.0));
		double d = segment_mesh(dsub(centre, half), dadd(centre, half), x, tri, tri_count);
		return d < c->radius * (1.0 - kInsideTolerance) ? c->radius - d : 0.0;
	}
	return box_depth(centre, c->rotation, c->half_extents, x, vertex_count, tri, tri_count, cloth_radius);
}

// ---- A cloth dropped onto a still box: the box's edges and corners against the cloth.

// A 64 x 64 cloth, 1 m square, level at `height`, centred over (x, 0), falls onto a box
// (centre, rotation, half extents) on a floor, for 2 s.
// Where a dropped cloth ended: its lowest vertex, and the lowest on each side of z = 0.
// For a box that is not turned: the mean height of the vertices over its top, 10 cm or more
// inside its edges (NAN when none is).
typedef struct drop_outcome {
	double lowest_y, lowest_y_negative_z, lowest_y_positive_z;
	double over_top_y;
} drop_outcome;

static void run_drop_at(double x_centre, double height, const float *centre, const float *rotation,
			const float *half_extents, int substeps, double budget_ms, contact_figures *f,
			drop_outcome *where)
{
	*where = (drop_outcome){INFINITY, INFINITY, INFINITY, NAN};
	*f = (contact_figures){0};
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w = NULL;
	pbd_cloth_id cloth;
	pbd_collider_id box, floor;
	pbd_cloth_def c = pbd_cloth_def_default();
	c.grid.res_x = c.grid.res_y = 64;
	c.grid.width = c.grid.height = 1.0f;
	c.position[0] = (float)x_centre, c.position[1] = (float)height;
	pbd_collider_def b = pbd_collider_def_default(), ground = pbd_collider_def_default();
	b.type = PBD_SHAPE_BOX;
	memcpy(b.position, centre, sizeof b.position);
	memcpy(b.rotation, rotation, sizeof b.rotation);
	memcpy(b.half_extents, half_extents, sizeof b.half_extents);
	if (pbd_world_create(&wd, &w) != PBD_OK || pbd_world_set_substeps(w, substeps) != PBD_OK ||
	    pbd_cloth_create(w, &c, &cloth) != PBD_OK || pbd_collider_create(w, &b, &box) != PBD_OK ||
	    pbd_collider_create(w, &ground, &floor) != PBD_OK) {
		f->failed = true;
		pbd_world_destroy(w);
		return;
	}
	pbd_cloth_material material;
	pbd_cloth_get_material(w, cloth, &material);
	int vertex_count, tri_count;
	const uint32_t *tri = pbd_cloth_indices(w, cloth, &tri_count);
	dvec at = dv(centre[0], centre[1], centre[2]);
	double started = now_ms();
	for (int frame = 0; frame < 120; ++frame) {
		if (pbd_world_step(w, kDt) != PBD_OK)
			f->failed = true;
		const float *x = pbd_cloth_positions(w, cloth, &vertex_count);
		check_mesh mesh = {x, tri, tri_count};
		f->crossing_frames += check_count_intersections(&mesh, 1) > 0;
		double depth = box_depth(at, rotation, half_extents, x, vertex_count, tri, tri_count, 0.5 * material.thickness);
		if (depth > 0.0) {
			f->inside_frames++;
			f->deepest = fmax(f->deepest, depth);
		}
		f->frames = frame + 1;
		if (now_ms() - started > budget_ms && frame + 1 < 120) {
			f->partial = true;
			break;
		}
	}
	const float *x = pbd_cloth_positions(w, cloth, &vertex_count);
	double over_sum = 0.0;
	int over_count = 0;
	for (int i = 0; i < vertex_count; ++i) {
		double y = x[3 * i + 1];
		where->lowest_y = fmin(where->lowest_y, y);
		if (x[3 * i + 2] < 0.0f)
			where->lowest_y_negative_z = fmin(where->lowest_y_negative_z, y);
		else
			where->lowest_y_positive_z = fmin(where->lowest_y_positive_z, y);
		if (fabs(x[3 * i] - centre[0]) < half_extents[0] - 0.1 && fabs(x[3 * i + 2] - centre[2]) < half_extents[2] - 0.1)
			over_sum += y, over_count++;
	}
	if (over_count > 0)
		where->over_top_y = over_sum / over_count;
	pbd_world_destroy(w);
}

static void run_drop(double x_centre, double height, const float *centre, const float *rotation,
		     const float *half_extents, int substeps, double budget_ms, contact_figures *f)
{
	drop_outcome where;
	run_drop_at(x_centre, height, centre, rotation, half_extents, substeps, budget_ms, f, &where);
}

// The ridge of the targets: a box 1.2 x 0.3 x 0.3 m turned 45 degrees about x, its ridge
// along x at y = 0.51 m.
static const float kRidgeCentre[3] = {0.0f, 0.3f, 0.0f}, kRidgeHalf[3] = {0.6f, 0.15f, 0.15f};

static void ridge_rotation(float q[4])
{
	// A quaternion turns by twice its half angle: (sin 22.5, 0, 0, cos 22.5) is 45 degrees.
	q[0] = sinf(0.125f * kPi), q[1] = 0.0f, q[2] = 0.0f, q[3] = cosf(0.125f * kPi);
}

void fast_ridge_drop(int substeps, double budget_s, box_drop_result *out)
{
	*out = (box_drop_result){.over_top_y = NAN};
	float q[4];
	ridge_rotation(q);
	contact_figures f;
	drop_outcome where;
	run_drop_at(0.0, 0.6, kRidgeCentre, q, kRidgeHalf, substeps, 1e3 * budget_s, &f, &where);
	out->frames = f.frames, out->crossing_frames = f.crossing_frames, out->inside_frames = f.inside_frames;
	out->partial = f.partial, out->failed = f.failed;
	double ridge_y = kRidgeCentre[1] + sqrt(2.0) * kRidgeHalf[1];
	out->lowest_y = where.lowest_y;
	out->hang_left = ridge_y - where.lowest_y_negative_z;
	out->hang_right = ridge_y - where.lowest_y_positive_z;
}

// The table of the targets: a box 0.8 x 0.7 x 0.8 m on the floor (its top at 0.7 m), the
// cloth's middle over its edge at x = 0.4 m, dropped from 0.8 m.
static const float kTableCentre[3] = {0.0f, 0.35f, 0.0f}, kTableHalf[3] = {0.4f, 0.35f, 0.4f};

void fast_table_drop(int substeps, double budget_s, box_drop_result *out)
{
	*out = (box_drop_result){.over_top_y = NAN};
	const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
	contact_figures f;
	drop_outcome where;
	run_drop_at(0.4, 0.8, kTableCentre, identity, kTableHalf, substeps, 1e3 * budget_s, &f, &where);
	out->frames = f.frames, out->crossing_frames = f.crossing_frames, out->inside_frames = f.inside_frames;
	out->partial = f.partial, out->failed = f.failed;
	out->lowest_y = where.lowest_y;
	out->over_top_y = where.over_top_y;
}

// ---- The targets.

// Prints the figures every run has; false when a step failed (nothing more is printed).
static bool print_contact_figures(const char *name, int substeps, const contact_figures *f, const char *inside,
				  char *note, size_t note_size, const char **partial)
{
	snprintf(note, note_size, "(partial: %d frames in the time budget)", f->frames);
	*partial = f->partial ? note : NULL;
	if (f->failed) {
		printf("  %s, %d substeps: a step failed\n", name, substeps);
		return false;
	}
	char what[160];
	snprintf(what, sizeof what, "%s, %d substeps: frames with crossings", name, substeps);
	bench_print_target(what, f->crossing_frames, "", "<=", 0, *partial);
	snprintf(what, sizeof what, "%s, %d substeps: frames %s (deepest %.2f mm)", name, substeps, inside,
		 1e3 * f->deepest);
	bench_print_target(what, f->inside_frames, "", "<=", 0, *partial);
	return true;
}

static void print_sweep(const char *name, int substeps, const sweep_figures *f, double speed)
{
	char what[128], note[96];
	const char *partial;
	if (!print_contact_figures(name, substeps, &f->contact, "with cloth inside", note, sizeof note, &partial))
		return;
	snprintf(what, sizeof what, "%s, %d substeps: worst edge strain", name, substeps);
	bench_print_target(what, 100.0 * f->strain, "%", "<=", 200, partial);
	snprintf(what, sizeof what, "%s, %d substeps: worst edge strain 1 s after it stops", name, substeps);
	bench_print_target(what, f->settled_seen ? 100.0 * f->settled_strain : INFINITY, "%", "<=", 15,
			   f->settled_seen ? partial : "(not reached)");
	snprintf(what, sizeof what, "%s, %d substeps: fastest vertex / collider speed", name, substeps);
	bench_print_target(what, f->fastest / speed, "x", "<=", 2, partial);
	snprintf(note, sizeof note, "(%.1f ms worst, %.2f ms quiet%s)", f->worst_ms, f->quiet_ms,
		 f->contact.partial ? "; partial" : "");
	snprintf(what, sizeof what, "%s, %d substeps: worst frame / quiet curtain's median", name, substeps);
	bench_print_target(what, f->quiet_ms > 0.0 ? f->worst_ms / f->quiet_ms : INFINITY, "x", "<=", 3, note);
}

// The capsule (radius 6 cm, 0.72 m long): across the curtain (its axis along x) or upright;
// it starts 0.5 m in front at half the curtain's height, rests 0.5 s, sweeps 1 m through at
// `speed`, rests 1.2 s, comes back and rests 1.2 s.
static sweep_scene capsule_scene(bool across, float speed)
{
	sweep_scene sc = {0};
	sc.collider = pbd_collider_def_default();
	sc.collider.type = PBD_SHAPE_CAPSULE;
	sc.collider.radius = 0.06f;
	sc.collider.half_height = 0.3f;
	float s45 = sinf(0.25f * kPi), c45 = cosf(0.25f * kPi);
	const float turned[4] = {0.0f, 0.0f, -s45, c45}, identity[4] = {0, 0, 0, 1};  // local y onto x
	memcpy(sc.collider.rotation, across ? turned : identity, sizeof sc.collider.rotation);
	sc.collider.static_friction = sc.collider.kinetic_friction = 0.1f;
	sc.path = (sweep_path){dv(0.0, 1.0, -0.5), dv(0.0, 1.0, 0.5), speed, 0.5, 1.2, true};
	memcpy(sc.collider.position, (float[3]){0.0f, 1.0f, -0.5f}, sizeof sc.collider.position);
	return sc;
}

static void sweep_result_of(const sweep_figures *f, sweep_result *out)
{
	*out = (sweep_result){
		.frames = f->contact.frames,
		.crossing_frames = f->contact.crossing_frames,
		.inside_frames = f->contact.inside_frames,
		.worst_strain = f->strain,
		.settled_strain = f->settled_strain,
		.settled_seen = f->settled_seen,
		.fastest_vertex = f->fastest,
		.far_after_stop = f->far_after_stop,
		.partial = f->contact.partial,
		.failed = f->contact.failed,
	};
}

void fast_capsule_sweep(bool across, float speed, int substeps, double budget_s, sweep_result *out)
{
	fast_capsule_sweep_thick(across, speed, substeps, 0.0f, budget_s, out);
}

void fast_capsule_sweep_thick(bool across, float speed, int substeps, float thickness, double budget_s,
			      sweep_result *out)
{
	sweep_scene sc = capsule_scene(across, speed);
	sc.thickness = thickness;
	sweep_figures f;
	run_sweep(&sc, substeps, 1e3 * budget_s, &f);
	sweep_result_of(&f, out);
}

// The bar: a box 1.5 m long (the curtain is 1 m wide), 6 cm thick, at half the curtain's
// height, 0.3 m behind it; it pushes the curtain 2 m at `speed`, rests 1.2 s, comes back and
// rests 1.2 s.
static sweep_scene bar_scene(float speed)
{
	sweep_scene sc = {0};
	sc.collider = pbd_collider_def_default();
	sc.collider.type = PBD_SHAPE_BOX;
	memcpy(sc.collider.half_extents, (float[3]){0.75f, 0.03f, 0.03f}, sizeof sc.collider.half_extents);
	memcpy(sc.collider.position, (float[3]){0.0f, 1.0f, -0.3f}, sizeof sc.collider.position);
	sc.collider.static_friction = sc.collider.kinetic_friction = 0.1f;
	sc.path = (sweep_path){dv(0.0, 1.0, -0.3), dv(0.0, 1.0, 1.7), speed, 0.5, 1.2, true};
	return sc;
}

void fast_bar_push(float speed, int substeps, double budget_s, sweep_result *out)
{
	sweep_scene sc = bar_scene(speed);
	sweep_figures f;
	run_sweep(&sc, substeps, 1e3 * budget_s, &f);
	sweep_result_of(&f, out);
}

void run_fast_collider_targets(double budget_s)
{
	printf("\nfast colliders (1 thread; %.0f s of computing at most per run, marked partial beyond)\n", budget_s);
	const int substeps[] = {1, 10};
	const float identity[4] = {0, 0, 0, 1};
	// The capsule, across and upright (capsule_scene).
	const float speeds[] = {3.0f, 10.0f, 50.0f};
	for (int orientation = 0; orientation < 2; ++orientation)
		for (int k = 0; k < 3; ++k)
			for (int s = 0; s < 2; ++s) {
				sweep_scene sc = capsule_scene(orientation == 0, speeds[k]);
				char name[96];
				snprintf(name, sizeof name, "capsule %s at %g m/s", orientation == 0 ? "across" : "upright",
					 (double)speeds[k]);
				sweep_figures f;
				run_sweep(&sc, substeps[s], 1e3 * budget_s, &f);
				print_sweep(name, substeps[s], &f, speeds[k]);
			}
	// The bar (bar_scene).
	const float bar_speeds[] = {3.0f, 10.0f};
	for (int k = 0; k < 2; ++k)
		for (int s = 0; s < 2; ++s) {
			sweep_scene sc = bar_scene(bar_speeds[k]);
			char name[96];
			snprintf(name, sizeof name, "bar 1.5 m pushing 2 m at %g m/s", (double)bar_speeds[k]);
			sweep_figures f;
			run_sweep(&sc, substeps[s], 1e3 * budget_s, &f);
			print_sweep(name, substeps[s], &f, bar_speeds[k]);
		}
	// A box turned 45 degrees about x (its ridge along x, 0.51 m high), and a table whose edge
	// runs under the middle of the cloth.
	for (int s = 0; s < 2; ++s) {
		contact_figures f;
		float ridge[4];
		ridge_rotation(ridge);
		run_drop(0.0, 0.6, kRidgeCentre, ridge, kRidgeHalf, substeps[s], 1e3 * budget_s, &f);
		char note[96];
		const char *partial;
		print_contact_figures("64x64 cloth on the ridge of a box turned 45 degrees", substeps[s], &f,
				      "a box edge is within the cloth", note, sizeof note, &partial);
		run_drop(0.4, 0.8, kTableCentre, identity, kTableHalf, substeps[s], 1e3 * budget_s, &f);
		print_contact_figures("64x64 cloth over a table's edge", substeps[s], &f, "a box edge is within the cloth",
				      note, sizeof note, &partial);
	}
}
