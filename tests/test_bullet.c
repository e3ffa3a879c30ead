// SPDX-License-Identifier: MIT
// The `bullet` scene: balls shot at 20, 50 and 100 m/s onto a trampoline and a sphere swept at
// 30 m/s through a curtain. Every frame, at the default substeps and at one substep: no ball
// below the trampoline at its x, z; no crossing triangle pairs by the independent check; no
// cloth inside the swept sphere. All geometry checks here are the test's own.
#include <stdbool.h>
#include <stdlib.h>

#include "intersect_check.h"
#include "scenes.h"
#include "test.h"

static const float kDt = 1.0f / 60.0f;
enum { FRAMES = 150 };  // 2.5 s: all three shots and two sweeps
enum { SETTLED_FRAMES = 20 };  // the last shot (1.4 s) has come to rest by 2.17 s

static void vertex(const float *x, uint32_t i, double out[3])
{
	out[0] = x[3 * i];
	out[1] = x[3 * i + 1];
	out[2] = x[3 * i + 2];
}

// Lowest height of the trampoline over (px, pz) among the triangles whose horizontal shadow
// holds that point; returns false when none does.
static bool surface_below(const float *x, const uint32_t *tri, int count, double px, double pz, double *height)
{
	bool found = false;
	for (int t = 0; t < count; ++t) {
		double a[3], b[3], c[3];
		vertex(x, tri[3 * t], a);
		vertex(x, tri[3 * t + 1], b);
		vertex(x, tri[3 * t + 2], c);
		double det = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
		if (fabs(det) < 1e-14)
			continue;
		double u = ((px - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (pz - a[2])) / det;
		double v = ((b[0] - a[0]) * (pz - a[2]) - (px - a[0]) * (b[2] - a[2])) / det;
		if (u < 0.0 || v < 0.0 || u + v > 1.0)
			continue;
		double y = a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]);
		*height = found ? fmin(*height, y) : y;
		found = true;
	}
	return found;
}

// Distance from point p to triangle abc, by projection onto the plane or else the nearest
// edge (written for this test).
static double segment_distance(const double p[3], const double a[3], const double b[3])
{
	double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
	double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
	double t = l2 > 0.0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0.0;
	t = fmin(1.0, fmax(0.0, t));
	double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
	return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static double triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
	double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
	double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
	double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	double best = fmin(segment_distance(p, a, b), fmin(segment_distance(p, b, c), segment_distance(p, c, a)));
	if (nl <= 0.0)
		return best;
	for (int k = 0; k < 3; ++k)
		n[k] /= nl;
	double h = (p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] + (p[2] - a[2]) * n[2];
	double q[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
	// Inside test by the signs of the three sub-triangle normals along n.
	const double *v[3] = {a, b, c};
	for (int k = 0; k < 3; ++k) {
		const double *s = v[k], *e = v[(k + 1) % 3];
		double se[3] = {e[0] - s[0], e[1] - s[1], e[2] - s[2]}, sq[3] = {q[0] - s[0], q[1] - s[1], q[2] - s[2]};
		double cr[3] = {se[1] * sq[2] - se[2] * sq[1], se[2] * sq[0] - se[0] * sq[2], se[0] * sq[1] - se[1] * sq[0]};
		if (cr[0] * n[0] + cr[1] * n[1] + cr[2] * n[2] < 0.0)
			return best;
	}
	return fabs(h);
}

typedef struct bullet_figures {
	long crossings;            // crossing triangle pairs, summed over frames
	int balls_below;           // ball-frames with the ball below the trampoline
	double sphere_clearance;   // least (distance of a cloth triangle to sphere centre) / radius
	double vertex_clearance;   // least (distance of a cloth vertex to sphere centre) / radius
	double ball_clearance;     // least (distance of trampoline to a ball centre) / ball radius
	double settled_clearance;  // the same over the last SETTLED_FRAMES frames
	double lowest_ball;        // least height of a shot ball over the trampoline's footprint
	long guard_hits;
} bullet_figures;

// Runs `frames` steps of dt from the scene's start.
static int run_bullet(int substeps, float dt, int frames, bullet_figures *out)
{
	const demo_scene *scene = demo_scene_find("bullet");
	CHECK(scene);
	pbd_world_settings settings = pbd_world_settings_default();
	if (substeps > 0)
		settings.substeps = substeps;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, &settings, &w, &st, err, sizeof err));
	CHECK(st.cloth_count == 2 && st.particle_group_count == 1);
	*out = (bullet_figures){0, 0, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0};
	float ball_r = pbd_particles_radius(w, st.particles[0]);
	for (int f = 1; f <= frames; ++f) {
		CHECK_OK(demo_scene_step(scene, w, &st, dt));
		out->guard_hits += pbd_world_get_stats(w).ccd_hits;
		check_mesh meshes[2];
		for (int c = 0; c < 2; ++c) {
			meshes[c].positions = pbd_cloth_positions(w, st.cloths[c], NULL);
			meshes[c].indices = pbd_cloth_indices(w, st.cloths[c], &meshes[c].triangle_count);
		}
		long n = check_count_intersections(meshes, 2);
		CHECK(n >= 0);
		if (n > 0)
			fprintf(stderr, "substeps %d frame %d: %ld crossing triangle pairs\n", substeps, f, n);
		out->crossings += n;
		// Balls already shot (they start on the floor far from the trampoline).
		int count;
		const float *balls = pbd_particles_positions(w, st.particles[0], &count);
		const float *tx = meshes[0].positions;
		for (int b = 0; b < count && b < (int)st.values[0]; ++b) {
			double p[3] = {balls[3 * b], balls[3 * b + 1], balls[3 * b + 2]}, surface;
			if (surface_below(tx, meshes[0].indices, meshes[0].triangle_count, p[0], p[2], &surface))
				out->lowest_ball = fmin(out->lowest_ball, p[1]);
			if (surface_below(tx, meshes[0].indices, meshes[0].triangle_count, p[0], p[2], &surface) &&
			    p[1] < surface) {
				fprintf(stderr, "substeps %d frame %d: ball %d at y %.4f below the trampoline at %.4f\n",
					substeps, f, b, p[1], surface);
				out->balls_below++;
			}
			for (int t = 0; t < meshes[0].triangle_count; ++t) {
				double a[3], bb[3], c[3];
				vertex(tx, meshes[0].indices[3 * t], a);
				vertex(tx, meshes[0].indices[3 * t + 1], bb);
				vertex(tx, meshes[0].indices[3 * t + 2], c);
				double clearance = triangle_distance(p, a, bb, c) / ball_r;
				out->ball_clearance = fmin(out->ball_clearance, clearance);
				if (f > frames - SETTLED_FRAMES)
					out->settled_clearance = fmin(out->settled_clearance, clearance);
			}
		}
		pbd_collider_def sphere;
		CHECK_OK(pbd_collider_get_def(w, st.colliders[1], &sphere));
		double centre[3] = {sphere.position[0], sphere.position[1], sphere.position[2]};
		for (int c = 0; c < 2; ++c) {
			int nv;
			const float *x = pbd_cloth_positions(w, st.cloths[c], &nv);
			for (int i = 0; i < nv; ++i) {
				double dx = x[3 * i] - centre[0], dy = x[3 * i + 1] - centre[1], dz = x[3 * i + 2] - centre[2];
				out->vertex_clearance = fmin(out->vertex_clearance, sqrt(dx * dx + dy * dy + dz * dz) / sphere.radius);
			}
		}
		for (int c = 0; c < 2; ++c)
			for (int t = 0; t < meshes[c].triangle_count; ++t) {
				double a[3], b[3], cc[3];
				vertex(meshes[c].positions, meshes[c].indices[3 * t], a);
				vertex(meshes[c].positions, meshes[c].indices[3 * t + 1], b);
				vertex(meshes[c].positions, meshes[c].indices[3 * t + 2], cc);
				out->sphere_clearance =
					fmin(out->sphere_clearance, triangle_distance(centre, a, b, cc) / sphere.radius);
			}
	}
	if (frames * dt > 1.5f)
		CHECK((int)st.values[0] == 3);  // every ball was shot (the last at 1.4 s)
	fprintf(stderr,
		"bullet, substeps %d: %ld crossings, %d ball-frames below the trampoline, least ball clearance %.3f "
		"radii (%.3f over the last %d frames), least sphere clearance %.3f radii (vertices %.3f), lowest ball "
		"%.3f m, guard caught %ld\n",
		substeps ? substeps : settings.substeps, out->crossings, out->balls_below, out->ball_clearance,
		out->settled_clearance, SETTLED_FRAMES, out->sphere_clearance, out->vertex_clearance, out->lowest_ball, out->guard_hits);
	pbd_world_destroy(w);
	return 0;
}

static int check_bullet(int substeps)
{
	bullet_figures f;
	if (run_bullet(substeps, kDt, FRAMES, &f))
		return 1;
	CHECK(f.crossings == 0);
	CHECK(f.balls_below == 0);
	// A ball's centre never reaches the cloth.
	CHECK(f.ball_clearance > 0.0);
	// Whatever the guard had to stop on the way, the contacts have pushed the cloth back out
	// to the ball's radius (plus half the cloth's thickness) once the balls rest: no ball
	// stays sunk in the trampoline.
	CHECK(f.settled_clearance > 0.99);
	// With the default substeps the contacts hold every ball at its radius throughout.
	if (substeps == 0)
		CHECK(f.ball_clearance > 0.99);
	// Over the trampoline, every ball stays well above the floor (a ball may bounce off and
	// leave over the border).
	CHECK(f.lowest_ball > 0.3);
	// The cloth stays outside the swept sphere (to a thousandth of its radius): its vertices,
	// and its triangles, which the sphere stretches over itself as it punches through.
	CHECK(f.vertex_clearance > 0.999);
	CHECK(f.sphere_clearance > 0.999);
	return 0;
}

static int bullet_default_substeps(void) { return check_bullet(0); }
static int bullet_one_substep(void) { return check_bullet(1); }

// The first sweep again, looked at after every substep: steps of a tenth of a frame, one
// substep each (what the default settings do within a frame, with damping and air applied
// per substep). The sphere meets the curtain at 0.34 s and stops at 0.38 s.
static int sphere_sweep_every_substep(void)
{
	bullet_figures f;
	if (run_bullet(1, kDt / 10.0f, 270, &f))  // 0.45 s
		return 1;
	CHECK(f.crossings == 0);
	CHECK(f.vertex_clearance > 0.999);
	CHECK(f.sphere_clearance > 0.999);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {SLOW_TEST(bullet_default_substeps), TEST(bullet_one_substep),
					  TEST(sphere_sweep_every_substep)};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
