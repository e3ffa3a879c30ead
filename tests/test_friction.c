// SPDX-License-Identifier: MIT
// Coulomb friction on a slope of theta = 20 degrees, against the closed forms: a body set
// down at rest stays (moves less than 1 mm in 5 s) whenever static friction > tan theta,
// whatever the kinetic coefficient; below it, it slides with a = g (sin theta - mu_k cos
// theta) within 2% over 2 s. For a cloth and for a free particle, on a plane given by its
// normal, on a plane turned by its pose and on a turned box.
#include <math.h>

#include "test.h"

static const float kDt = 1.0f / 60.0f;
static const double kTheta = 20.0 * 3.14159265358979 / 180.0;
static const double kG = 9.81;

typedef enum slope_kind { PLANE_BY_NORMAL, PLANE_BY_POSE, TURNED_BOX } slope_kind;
typedef enum body_kind { CLOTH, PARTICLE } body_kind;

// Each run is centred on the origin: it starts half its expected slide up the slope (the box
// is 12 m long). Positions are floats: 4 m from the origin a 10-substep motion of 2.6e-5 m
// into the slope is about a hundred roundings, and kinetic friction comes out 1-3% weak
// there (README, Limits); 100 m away a body on this slope cannot move at all.
#define PARTICLE_RADIUS 0.02f

static void turn_about_z(float q[4], double angle)
{
	q[0] = q[1] = 0.0f;
	q[2] = (float)sin(0.5 * angle);
	q[3] = (float)cos(0.5 * angle);
}

// A vacuum world with a slope through the origin, rising along +x, of the given kind.
static int make_slope(slope_kind kind, float mu_s, float mu_k, pbd_world **out)
{
	pbd_world *w = test_world_vacuum();
	CHECK(w);
	pbd_collider_def d = pbd_collider_def_default();
	d.static_friction = mu_s;
	d.kinetic_friction = mu_k;
	pbd_collider_id id;
	if (kind == PLANE_BY_NORMAL) {
		d.normal[0] = (float)-sin(kTheta);
		d.normal[1] = (float)cos(kTheta);
		CHECK_OK(pbd_collider_create(w, &d, &id));
	} else if (kind == PLANE_BY_POSE) {
		CHECK_OK(pbd_collider_create(w, &d, &id));
		float position[3] = {0, 0, 0}, rotation[4];
		turn_about_z(rotation, kTheta);
		CHECK_OK(pbd_collider_set_pose(w, id, position, rotation));
		CHECK_OK(pbd_world_step(w, kDt));  // the empty world: the plane arrives at its pose
	} else {
		d.type = PBD_SHAPE_BOX;
		d.half_extents[0] = 6.0f;
		d.half_extents[1] = 0.1f;
		d.half_extents[2] = 1.5f;
		turn_about_z(d.rotation, kTheta);
		// The top face through the origin: the centre 0.1 m below it along the normal.
		d.position[0] = (float)(0.1 * sin(kTheta));
		d.position[1] = (float)(-0.1 * cos(kTheta));
		CHECK_OK(pbd_collider_create(w, &d, &id));
	}
	*out = w;
	return 0;
}

// Puts the body at rest on the slope, `along` up it, touching it.
static int place_body(pbd_world *w, body_kind kind, float mu_s, float mu_k, double along, pbd_cloth_id *cloth,
		      pbd_particles_id *particles)
{
	double t[3] = {cos(kTheta), sin(kTheta), 0.0}, n[3] = {-sin(kTheta), cos(kTheta), 0.0};
	if (kind == CLOTH) {
		pbd_cloth_def d = pbd_cloth_def_default();
		d.grid.res_x = d.grid.res_y = 16;
		d.grid.width = d.grid.height = 0.5f;
		d.material.static_friction = mu_s;
		d.material.kinetic_friction = mu_k;
		turn_about_z(d.rotation, kTheta);
		double lift = 0.5 * d.material.thickness;
		for (int a = 0; a < 3; ++a)
			d.position[a] = (float)(along * t[a] + lift * n[a]);
		CHECK_OK(pbd_cloth_create(w, &d, cloth));
	} else {
		pbd_particles_def d = pbd_particles_def_default();
		float x[3];
		for (int a = 0; a < 3; ++a)
			x[a] = (float)(along * t[a] + PARTICLE_RADIUS * n[a]);
		d.count = 1;
		d.positions = x;
		d.radius = PARTICLE_RADIUS;
		d.mass = 0.01f;
		d.static_friction = mu_s;
		d.kinetic_friction = mu_k;
		CHECK_OK(pbd_particles_create(w, &d, particles));
	}
	return 0;
}

static void centroid(pbd_world *w, body_kind kind, pbd_cloth_id cloth, pbd_particles_id particles, double c[3])
{
	int n = 0;
	const float *x = kind == CLOTH ? pbd_cloth_positions(w, cloth, &n) : pbd_particles_positions(w, particles, &n);
	c[0] = c[1] = c[2] = 0.0;
	for (int i = 0; i < n; ++i)
		for (int a = 0; a < 3; ++a)
			c[a] += x[3 * i + a] / n;
}

// Runs `seconds` from rest; *along gets the distance slid down the slope, *moved the distance
// moved in all (for the holding cases).
static int slide(slope_kind slope, body_kind body, float mu_s, float mu_k, float seconds, double *along, double *moved)
{
	double a = fmax(kG * (sin(kTheta) - mu_k * cos(kTheta)), 0.0);
	double start = mu_s > tan(kTheta) ? 0.0 : 0.25 * a * seconds * seconds;
	pbd_world *w;
	pbd_cloth_id cloth = {0};
	pbd_particles_id particles = {0};
	if (make_slope(slope, mu_s, mu_k, &w) || place_body(w, body, mu_s, mu_k, start, &cloth, &particles))
		return 1;
	double c0[3], c1[3];
	centroid(w, body, cloth, particles, c0);
	int frames = (int)lroundf(seconds / kDt);
	for (int f = 0; f < frames; ++f)
		CHECK_OK(pbd_world_step(w, kDt));
	centroid(w, body, cloth, particles, c1);
	double d[3] = {c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]};
	*along = -(d[0] * cos(kTheta) + d[1] * sin(kTheta));
	*moved = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	pbd_world_destroy(w);
	return 0;
}

static const char *kSlopeNames[] = {"plane by normal", "plane by pose", "turned box"};

static int holds_and_slides(slope_kind slope, body_kind body)
{
	const float hold[][2] = {{0.5f, 0.2f}, {0.5f, 0.35f}, {0.4f, 0.0f}};
	const float slip[][2] = {{0.3f, 0.25f}, {0.3f, 0.0f}};
	const char *what = body == CLOTH ? "cloth" : "particle";
	for (int k = 0; k < 3; ++k) {
		double along, moved;
		if (slide(slope, body, hold[k][0], hold[k][1], 5.0f, &along, &moved))
			return 1;
		fprintf(stderr, "%s on %s, mu_s %.2f mu_k %.2f: moved %.3g m in 5 s\n", what, kSlopeNames[slope],
			(double)hold[k][0], (double)hold[k][1], moved);
		CHECK(moved < 1e-3);
	}
	for (int k = 0; k < 2; ++k) {
		const double seconds = 2.0;
		double along, moved;
		if (slide(slope, body, slip[k][0], slip[k][1], (float)seconds, &along, &moved))
			return 1;
		double expected = kG * (sin(kTheta) - slip[k][1] * cos(kTheta));
		double measured = 2.0 * along / (seconds * seconds);
		fprintf(stderr, "%s on %s, mu_s %.2f mu_k %.2f: a = %.4f m/s^2, closed form %.4f (%+.2f%%)\n", what,
			kSlopeNames[slope], (double)slip[k][0], (double)slip[k][1], measured, expected,
			100.0 * (measured / expected - 1.0));
		CHECK_NEAR(measured, expected, 0.02 * expected);
	}
	return 0;
}

static int cloth_on_plane_by_normal(void) { return holds_and_slides(PLANE_BY_NORMAL, CLOTH); }
static int cloth_on_plane_by_pose(void) { return holds_and_slides(PLANE_BY_POSE, CLOTH); }
static int cloth_on_turned_box(void) { return holds_and_slides(TURNED_BOX, CLOTH); }
static int particle_on_plane_by_normal(void) { return holds_and_slides(PLANE_BY_NORMAL, PARTICLE); }
static int particle_on_plane_by_pose(void) { return holds_and_slides(PLANE_BY_POSE, PARTICLE); }
static int particle_on_turned_box(void) { return holds_and_slides(TURNED_BOX, PARTICLE); }

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(cloth_on_plane_by_normal),    TEST(cloth_on_plane_by_pose),    TEST(cloth_on_turned_box),
		TEST(particle_on_plane_by_normal), TEST(particle_on_plane_by_pose), TEST(particle_on_turned_box),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
