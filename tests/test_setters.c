// SPDX-License-Identifier: MIT
// Every setter takes effect at the next step. Each case builds three twin worlds of a
// one-contact experiment that starts in a phase where the value cannot matter yet (at rest,
// or in free flight in a vacuum): A gets the new value from the setter at frame K, B gets
// it before its first step (a world made with it), C never. After the contact A must step
// bit for bit as B does, and differently from C (so the value mattered and the test can
// fail). Candidate pairs live across steps: a coefficient cached in them kept the old value
// for as long as the pairs held (balls on the floor: 120 steps).
#include <stdbool.h>
#include <string.h>

#include "test.h"

static const float kDt = 1.0f / 60.0f;
#define K 20           // frames before the setter
#define AFTER 60       // frames after it

typedef struct twin {
	pbd_world *w;
	pbd_cloth_id cloth;
	pbd_particles_id balls;
	pbd_collider_id floor;
} twin;

typedef int (*build_fn)(twin *t);
typedef pbd_result (*set_fn)(twin *t);
// Called once at frame K in every twin (a kick that starts the contact), may be NULL.
typedef int (*kick_fn)(twin *t);

static pbd_world *vacuum(void) { return test_world_vacuum(); }

// Positions (and velocities) of everything movable, for bitwise comparison.
static int snapshot(const twin *t, float *out, int capacity, int *count)
{
	int n = 0, m = 0;
	const float *x;
	*count = 0;
	if (t->cloth.index1) {
		x = pbd_cloth_positions(t->w, t->cloth, &n);
		CHECK(x && 3 * n <= capacity);
		memcpy(out, x, sizeof(float) * 3 * (size_t)n);
		*count = 3 * n;
	}
	if (t->balls.index1) {
		x = pbd_particles_positions(t->w, t->balls, &m);
		CHECK(x && *count + 3 * m <= capacity);
		memcpy(out + *count, x, sizeof(float) * 3 * (size_t)m);
		*count += 3 * m;
	}
	return 0;
}

enum { CAPACITY = 3 * 4096 };

static int run_twins(const char *what, build_fn build, set_fn set, kick_fn kick)
{
	static float state[3][CAPACITY];
	int count[3];
	for (int k = 0; k < 3; ++k) {  // 0: A (set at K), 1: B (set before the first step), 2: C (never)
		twin t = {0};
		if (build(&t))
			return 1;
		if (k == 1)
			CHECK_OK(set(&t));
		for (int f = 0; f < K + AFTER; ++f) {
			if (f == K) {
				if (k == 0)
					CHECK_OK(set(&t));
				if (kick && kick(&t))
					return 1;
			}
			CHECK_OK(pbd_world_step(t.w, kDt));
		}
		if (snapshot(&t, state[k], CAPACITY, &count[k]))
			return 1;
		pbd_world_destroy(t.w);
	}
	CHECK(count[0] == count[1] && count[0] == count[2] && count[0] > 0);
	bool same = memcmp(state[0], state[1], sizeof(float) * (size_t)count[0]) == 0;
	float differs = 0.0f;
	for (int i = 0; i < count[0]; ++i)
		differs = fmaxf(differs, fabsf(state[0][i] - state[2][i]));
	fprintf(stderr, "%s: set at frame %d %s a world made with the value; %.3g m from the world without it\n", what, K,
		same ? "matches bit for bit" : "DIFFERS from", (double)differs);
	CHECK(same);
	CHECK(differs > 1e-4f);
	return 0;
}

// --- balls resting on the floor in a touching row, then pushed along it and apart --------

static int balls_on_floor(twin *t)
{
	t->w = vacuum();
	CHECK(t->w);
	pbd_collider_def floor = pbd_collider_def_default();
	CHECK_OK(pbd_collider_create(t->w, &floor, &t->floor));
	float x[9] = {0, 0.05f, 0, 0.1f, 0.05f, 0, 0.2f, 0.05f, 0};  // touching in a row
	pbd_particles_def d = pbd_particles_def_default();
	d.count = 3;
	d.positions = x;
	d.radius = 0.05f;
	CHECK_OK(pbd_particles_create(t->w, &d, &t->balls));
	return 0;
}

static int push_balls(twin *t)
{
	int n = 0;
	const float *x = pbd_particles_positions(t->w, t->balls, &n);
	for (int i = 0; i < n; ++i) {
		// Along the row and apart across it: the balls rub on the floor and on each other.
		float p[3] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]}, v[3] = {1.0f, 0.0f, 0.5f * (float)(i - 1)};
		CHECK_OK(pbd_particles_set(t->w, t->balls, i, p, v));
	}
	return 0;
}

static pbd_result balls_frictionless(twin *t) { return pbd_particles_set_friction(t->w, t->balls, 0.0f, 0.0f); }
static pbd_result floor_frictionless(twin *t) { return pbd_collider_set_friction(t->w, t->floor, 0.0f, 0.0f); }

static int particle_friction_takes_effect(void)
{
	return run_twins("particle friction", balls_on_floor, balls_frictionless, push_balls);
}

static int collider_friction_takes_effect(void)
{
	return run_twins("collider friction", balls_on_floor, floor_frictionless, push_balls);
}

// --- a cloth lying on the floor, then sent sliding ---------------------------------------

static int cloth_on_floor(twin *t)
{
	t->w = vacuum();
	CHECK(t->w);
	pbd_collider_def floor = pbd_collider_def_default();
	CHECK_OK(pbd_collider_create(t->w, &floor, &t->floor));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 12;
	d.grid.width = d.grid.height = 0.5f;
	d.position[1] = 0.5f * d.material.thickness;
	CHECK_OK(pbd_cloth_create(t->w, &d, &t->cloth));
	return 0;
}

static int slide_cloth(twin *t)
{
	float zero[3] = {0, 0, 0}, v[3] = {1.5f, 0.0f, 0.0f};
	CHECK_OK(pbd_cloth_teleport(t->w, t->cloth, zero, v));
	return 0;
}

// The cloth's material with one change, through pbd_cloth_set_material.
static pbd_result edit_material(twin *t, void (*edit)(pbd_cloth_material *m))
{
	pbd_cloth_material m;
	pbd_result r = pbd_cloth_get_material(t->w, t->cloth, &m);
	if (r != PBD_OK)
		return r;
	edit(&m);
	return pbd_cloth_set_material(t->w, t->cloth, &m);
}

static void slippery(pbd_cloth_material *m)
{
	m->static_friction = 0.1f;
	m->kinetic_friction = 0.05f;
}
static void thick(pbd_cloth_material *m) { m->thickness = 0.03f; }
static void self_blind(pbd_cloth_material *m) { m->self_collision = 0; }

static pbd_result cloth_slippery(twin *t) { return edit_material(t, slippery); }
static pbd_result thicker(twin *t) { return edit_material(t, thick); }
static pbd_result no_self_collision(twin *t) { return edit_material(t, self_blind); }

static int cloth_friction_takes_effect(void)
{
	return run_twins("cloth friction", cloth_on_floor, cloth_slippery, slide_cloth);
}

// --- a cloth in free flight above the floor: thickness, self-collision --------------------

static int falling_strip(twin *t)
{
	t->w = vacuum();
	CHECK(t->w);
	pbd_collider_def floor = pbd_collider_def_default();
	CHECK_OK(pbd_collider_create(t->w, &floor, &t->floor));
	// A strip hanging edge down, leaning: it lands and folds over itself.
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = 6;
	d.grid.res_y = 24;
	d.grid.width = 0.25f;
	d.grid.height = 1.0f;
	float s = sinf(0.5f * 1.5f), c = cosf(0.5f * 1.5f);  // 86 degrees about x: nearly upright
	d.rotation[0] = s;
	d.rotation[3] = c;
	d.position[1] = 1.6f;  // its lower end reaches the floor after about 0.5 s (frame 30)
	CHECK_OK(pbd_cloth_create(t->w, &d, &t->cloth));
	return 0;
}

static int thickness_takes_effect(void)
{
	return run_twins("thickness", falling_strip, thicker, NULL);
}

static int self_collision_off_takes_effect(void)
{
	return run_twins("self-collision off", falling_strip, no_self_collision, NULL);
}

// --- a cloth falling in a vacuum onto a ball resting on the floor: density, mass ratio ---

static int cloth_onto_ball(twin *t)
{
	t->w = vacuum();
	CHECK(t->w);
	pbd_collider_def floor = pbd_collider_def_default();
	CHECK_OK(pbd_collider_create(t->w, &floor, &t->floor));
	float x[3] = {0.03f, 0.1f, 0.02f};
	pbd_particles_def b = pbd_particles_def_default();
	b.count = 1;
	b.positions = x;
	b.radius = 0.1f;
	b.mass = 0.05f;
	CHECK_OK(pbd_particles_create(t->w, &b, &t->balls));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 12;
	d.grid.width = d.grid.height = 0.6f;
	d.position[1] = 1.0f;  // reaches the ball after about 0.4 s (frame 24)
	CHECK_OK(pbd_cloth_create(t->w, &d, &t->cloth));
	return 0;
}

static pbd_result denser(twin *t) { return pbd_cloth_set_areal_density(t->w, t->cloth, 1.5f); }

static pbd_result uncapped(twin *t)
{
	pbd_world_settings s = pbd_world_get_settings(t->w);
	s.particle_cloth_mass_ratio = 0.0f;
	return pbd_world_set_settings(t->w, &s);
}

static int areal_density_takes_effect(void)
{
	return run_twins("areal density", cloth_onto_ball, denser, NULL);
}

static int world_setting_takes_effect(void)
{
	return run_twins("particle_cloth_mass_ratio", cloth_onto_ball, uncapped, NULL);
}

// --- a resting pyramid of balls made frictionless ------------------------------------------
// At rest nothing leaves its region, so the candidate pairs found before the call are kept:
// friction cached in them held the pyramid up for as long as it stood. A is the resting
// pyramid made frictionless by the setter; B a world created frictionless from A's positions
// and velocities at that moment (its pairs found afresh, so their order may differ: compared
// to 1e-5 m, not bit for bit); C is A without the call, which keeps standing.
static pbd_world *pyramid_world(const float *x, const float *v, float mu, pbd_particles_id *balls)
{
	pbd_world *w = vacuum();
	if (!w)
		return NULL;
	pbd_collider_def floor = pbd_collider_def_default();
	floor.static_friction = floor.kinetic_friction = 1.0f;
	pbd_collider_id id;
	pbd_particles_def d = pbd_particles_def_default();
	d.count = 3;
	d.positions = x;
	d.velocities = v;
	d.radius = 0.05f;
	d.static_friction = d.kinetic_friction = mu;
	if (pbd_collider_create(w, &floor, &id) != PBD_OK || pbd_particles_create(w, &d, balls) != PBD_OK) {
		pbd_world_destroy(w);
		return NULL;
	}
	return w;
}

static int resting_pyramid_made_frictionless(void)
{
	const float start[9] = {-0.05f, 0.05f, 0, 0.05f, 0.05f, 0, 0, 0.05f + 0.1f * 0.8660254f, 0};
	pbd_particles_id a_balls, b_balls, c_balls;
	pbd_world *a = pyramid_world(start, NULL, 1.0f, &a_balls), *c = pyramid_world(start, NULL, 1.0f, &c_balls);
	CHECK(a && c);
	for (int f = 0; f < 60; ++f) {
		CHECK_OK(pbd_world_step(a, kDt));
		CHECK_OK(pbd_world_step(c, kDt));
	}
	float x[9], v[9];
	memcpy(x, pbd_particles_positions(a, a_balls, NULL), sizeof x);
	memcpy(v, pbd_particles_velocities(a, a_balls, NULL), sizeof v);
	CHECK(x[7] > 0.05f + 0.08f);  // the top ball stands on the two
	CHECK_OK(pbd_particles_set_friction(a, a_balls, 0.0f, 0.0f));
	pbd_world *b = pyramid_world(x, v, 0.0f, &b_balls);
	CHECK(b);
	for (int f = 0; f < 30; ++f) {
		CHECK_OK(pbd_world_step(a, kDt));
		CHECK_OK(pbd_world_step(b, kDt));
		CHECK_OK(pbd_world_step(c, kDt));
	}
	const float *xa = pbd_particles_positions(a, a_balls, NULL), *xb = pbd_particles_positions(b, b_balls, NULL),
		    *xc = pbd_particles_positions(c, c_balls, NULL);
	float fresh = 0.0f, untouched = 0.0f;
	for (int i = 0; i < 9; ++i) {
		fresh = fmaxf(fresh, fabsf(xa[i] - xb[i]));
		untouched = fmaxf(untouched, fabsf(xa[i] - xc[i]));
	}
	fprintf(stderr, "pyramid: top ball at %.4f m after the call (%.4f without it); %.3g m from the fresh twin\n",
		(double)xa[7], (double)xc[7], (double)fresh);
	CHECK(fresh < 1e-5f);
	CHECK(untouched > 0.01f);  // frictionless, the top ball has pushed the others apart and sunk
	pbd_world_destroy(a);
	pbd_world_destroy(b);
	pbd_world_destroy(c);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(particle_friction_takes_effect), TEST(collider_friction_takes_effect),
		TEST(cloth_friction_takes_effect),    TEST(thickness_takes_effect),
		TEST(self_collision_off_takes_effect), TEST(areal_density_takes_effect),
		TEST(world_setting_takes_effect),     TEST(resting_pyramid_made_frictionless),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
