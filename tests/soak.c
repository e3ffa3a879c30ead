// SPDX-License-Identifier: MIT
// pbd-soak: scenes under random interaction for a given wall time. Random drags (a free
// vertex held by a soft spring and pulled along for a while, then let go), impulses (a cloth
// given a velocity), collider motion and parameter changes; every N frames: no NaN, kinetic energy
// bounded, no crossing triangle pairs by the independent check; in every frame, live memory
// (counted through the allocator hooks) not growing once warmed up faster than the contact
// load it holds (the most candidate pairs the engine reports for a substep of the frame).
//
//   pbd-soak [--scenes fold,drape,twist,bullet,tear] [--seconds S | --frames F] [--check-every N]
//            [--seed K] [--trace]
//
// --frames runs a fixed number of frames instead of a wall time (the same run on any machine);
// --trace prints each frame's time, candidate pairs and live memory to stderr.
// One line per scene; exit status 1 when any check failed, 2 on bad arguments.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenes.h"

#include "intersect_check.h"
#include "memory_count.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// xorshift: reproducible runs from --seed.
static uint32_t next(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}
static float uniform(uint32_t *s, float lo, float hi) { return lo + (hi - lo) * (float)(next(s) >> 8) / 16777216.0f; }

// A drag holds one vertex by a soft spring (a compliant attachment, as a mouse spring
// would): the vertex keeps its mass, so contacts and the guard can still stop it.
typedef struct drag {
	int active, cloth, vertex, frames_left;
	float target[3], velocity[3];
	pbd_attachment_id handle;
} drag;

typedef struct soak_result {
	long long frames, checks, intersections;
	double worst_energy_per_kg;
	long long memory_first, memory_warm_peak, memory_end, memory_late_peak;
	long long pairs_warm_peak, pairs_late_peak;  // most candidate pairs of a frame's substeps
	int drags, impulses, collider_moves, parameter_changes, refused, nonfinite;
} soak_result;

// Kinetic energy per kilogram of all cloth (sum m v^2 / 2 over sum m), and finiteness.
static double energy_per_kg(const pbd_world *w, const demo_scene_state *s, int *finite)
{
	double energy = 0.0, mass = 0.0;
	for (int c = 0; c < s->cloth_count; ++c) {
		int n = 0;
		const float *x = pbd_cloth_positions(w, s->cloths[c], &n), *v = pbd_cloth_velocities(w, s->cloths[c], NULL);
		for (int i = 0; i < n; ++i) {
			float inv;
			if (pbd_cloth_get_inverse_mass(w, s->cloths[c], i, &inv) != PBD_OK || inv <= 0.0f)
				continue;
			double v2 = 0.0;
			for (int k = 0; k < 3; ++k) {
				*finite &= isfinite(x[3 * i + k]) && isfinite(v[3 * i + k]);
				v2 += (double)v[3 * i + k] * v[3 * i + k];
			}
			energy += 0.5 * v2 / inv;
			mass += 1.0 / inv;
		}
	}
	return mass > 0.0 ? energy / mass : 0.0;
}

// The fastest free cloth vertex, in m/s (for --trace).
static double fastest_vertex(const pbd_world *w, const demo_scene_state *s)
{
	double fastest = 0.0;
	for (int c = 0; c < s->cloth_count; ++c) {
		int n = 0;
		const float *v = pbd_cloth_velocities(w, s->cloths[c], &n);
		for (int i = 0; i < n; ++i) {
			double v2 = (double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] + (double)v[3 * i + 2] * v[3 * i + 2];
			fastest = v2 > fastest * fastest ? sqrt(v2) : fastest;
		}
	}
	return fastest;
}

static long count_crossings(const pbd_world *w, const demo_scene_state *s)
{
	check_mesh meshes[DEMO_MAX_CLOTHS];
	for (int c = 0; c < s->cloth_count; ++c) {
		meshes[c].positions = pbd_cloth_positions(w, s->cloths[c], NULL);
		meshes[c].indices = pbd_cloth_indices(w, s->cloths[c], &meshes[c].triangle_count);
	}
	return check_count_intersections(meshes, s->cloth_count);
}

// Starts, moves or ends a drag of one free vertex.
static void drive_drag(pbd_world *w, demo_scene_state *s, drag *d, uint32_t *rng, float dt, soak_result *r, bool trace)
{
	if (!d->active) {
		if (s->cloth_count == 0 || next(rng) % 60 != 0)
			return;
		int c = (int)(next(rng) % (uint32_t)s->cloth_count), n = 0;
		const float *x = pbd_cloth_positions(w, s->cloths[c], &n);
		int v = (int)(next(rng) % (uint32_t)n);
		float inv;
		if (pbd_cloth_get_inverse_mass(w, s->cloths[c], v, &inv) != PBD_OK || inv <= 0.0f)
			return;  // held by the scene: leave it
		*d = (drag){1, c, v, 30 + (int)(next(rng) % 90), {x[3 * v], x[3 * v + 1], x[3 * v + 2]},
			    {uniform(rng, -1, 1), uniform(rng, -0.5f, 1), uniform(rng, -1, 1)}, {0}};
		pbd_attachment_def a = pbd_attachment_def_default();
		uint32_t vertex = (uint32_t)v;
		a.cloth = s->cloths[c];
		a.vertices = &vertex;
		a.vertex_count = 1;
		a.compliance = 1e-3f;
		memcpy(a.position, d->target, sizeof d->target);
		if (pbd_attachment_create(w, &a, &d->handle) != PBD_OK) {
			r->refused++;
			d->active = 0;
			return;
		}
		r->drags++;
		if (trace)
			fprintf(stderr, "drag of cloth %d vertex %d for %d frames at (%.2f %.2f %.2f) m/s\n", c, v, d->frames_left,
				(double)d->velocity[0], (double)d->velocity[1], (double)d->velocity[2]);
	}
	if (--d->frames_left <= 0) {
		pbd_attachment_destroy(w, d->handle);
		d->active = 0;
		return;
	}
	for (int k = 0; k < 3; ++k)
		d->target[k] += d->velocity[k] * dt;
	d->target[1] = fmaxf(d->target[1], 0.05f);  // not into the floor
	const float identity[4] = {0, 0, 0, 1};
	if (pbd_attachment_set_pose(w, d->handle, d->target, identity) != PBD_OK)
		r->refused++;
}

static void random_event(pbd_world *w, demo_scene_state *s, uint32_t *rng, soak_result *r, bool trace)
{
	uint32_t roll = next(rng) % 120;
	if (roll == 0 && s->cloth_count > 0) {
		float v[3] = {uniform(rng, -2, 2), uniform(rng, 0, 3), uniform(rng, -2, 2)}, zero[3] = {0, 0, 0};
		if (pbd_cloth_teleport(w, s->cloths[next(rng) % (uint32_t)s->cloth_count], zero, v) != PBD_OK)
			r->refused++;
		r->impulses++;
	} else if (roll == 1 && s->collider_count > 0) {
		pbd_collider_id id = s->colliders[next(rng) % (uint32_t)s->collider_count];
		pbd_collider_def d;
		if (pbd_collider_get_def(w, id, &d) != PBD_OK || d.type == PBD_SHAPE_PLANE)
			return;
		// A step of up to 5 cm: a collider moving at up to 3 m/s.
		float p[3] = {d.position[0] + uniform(rng, -0.05f, 0.05f), fmaxf(d.position[1] + uniform(rng, -0.05f, 0.05f), 0.0f),
			      d.position[2] + uniform(rng, -0.05f, 0.05f)};
		if (pbd_collider_set_pose(w, id, p, d.rotation) != PBD_OK)
			r->refused++;
		r->collider_moves++;
	} else if (roll == 2) {
		// Any tunable parameter but self-collision (switching it off lets cloth pass itself
		// by request) and the tear strain (the tear scene tears; torn elsewhere, a cloth's
		// memory would grow with its vertices) up or down one step, within its limits.
		const demo_param *p = demo_param_at((int)(next(rng) % (uint32_t)demo_param_count()));
		if (strcmp(p->name, "self_collision") == 0 || strcmp(p->name, "tear_strain") == 0)
			return;
		int up = (int)(next(rng) & 1);
		if (demo_param_nudge(p, w, s, up) != PBD_OK)
			r->refused++;
		if (trace)
			fprintf(stderr, "parameter %s %s to %g\n", p->name, up ? "up" : "down", (double)p->get(w, s));
		r->parameter_changes++;
	}
}

typedef struct soak_options {
	double seconds;
	long long frames;  // > 0: run this many frames and ignore seconds
	int check_every;
	uint32_t seed;
	bool trace;
} soak_options;

// The run is past its first half (by frames when a frame count is set, else by wall time).
static bool in_late_half(const soak_options *o, long long frames_done, double elapsed)
{
	return o->frames > 0 ? 2 * frames_done > o->frames : elapsed > 0.5 * o->seconds;
}

static bool run_over(const soak_options *o, long long frames_done, double elapsed)
{
	return o->frames > 0 ? frames_done >= o->frames : elapsed >= o->seconds;
}

static int soak_scene(const char *name, const soak_options *o, soak_result *r)
{
	*r = (soak_result){0};
	const demo_scene *scene = demo_scene_find(name);
	memory_count memory = {0, 0};
	pbd_world_def wd = pbd_world_def_default();
	wd.allocator = memory_count_allocator(&memory);
	pbd_world *w = NULL;
	demo_scene_state s;
	char error[256];
	if (demo_scene_load_def(scene, NULL, &wd, &w, &s, error, sizeof error) != PBD_OK) {
		fprintf(stderr, "pbd-soak: %s: %s\n", name, error);
		return 1;
	}
	uint32_t rng = o->seed ? o->seed : 1;
	drag d = {0};
	const float dt = 1.0f / 60.0f;
	double start = now_s();
	int failed = 0;
	while (!run_over(o, r->frames, now_s() - start)) {
		double frame_start = now_s();
		drive_drag(w, &s, &d, &rng, dt, r, o->trace);
		random_event(w, &s, &rng, r, o->trace);
		if (demo_scene_step(scene, w, &s, dt) != PBD_OK) {
			fprintf(stderr, "pbd-soak: %s frame %lld: step failed: %s\n", name, r->frames, pbd_world_last_error(w));
			failed = 1;
			break;
		}
		r->frames++;
		// Memory and load in every frame: a transient between checks must not be missed.
		bool late = in_late_half(o, r->frames, now_s() - start);
		long long pairs = pbd_world_get_stats(w).candidate_pairs_peak;
		if (o->trace)
			fprintf(stderr, "%s frame %lld: %.1f ms, candidate pairs %lld, live memory %lld bytes, fastest vertex %.2f m/s, "
				"worst stretch %.0f%%, guard hits %lld, vt %d ee %d\n",
				name, r->frames, 1e3 * (now_s() - frame_start), pairs, memory.live, fastest_vertex(w, &s),
				100.0 * pbd_world_get_stats(w).max_stretch_error, (long long)pbd_world_get_stats(w).ccd_hits,
				pbd_world_get_stats(w).vertex_triangle_candidates, pbd_world_get_stats(w).edge_edge_candidates);
		if (r->frames == 1)
			r->memory_first = memory.live;
		if (!late) {
			r->memory_warm_peak = memory.live > r->memory_warm_peak ? memory.live : r->memory_warm_peak;
			r->pairs_warm_peak = pairs > r->pairs_warm_peak ? pairs : r->pairs_warm_peak;
		} else {
			r->memory_late_peak = memory.live > r->memory_late_peak ? memory.live : r->memory_late_peak;
			r->pairs_late_peak = pairs > r->pairs_late_peak ? pairs : r->pairs_late_peak;
		}
		if (r->frames % o->check_every != 0)
			continue;
		r->checks++;
		int finite = 1;
		double e = energy_per_kg(w, &s, &finite);
		if (!finite) {
			r->nonfinite++;
			failed = 1;
			fprintf(stderr, "pbd-soak: %s frame %lld: NaN or infinity\n", name, r->frames);
			break;
		}
		if (e > r->worst_energy_per_kg)
			r->worst_energy_per_kg = e;
		long crossings = count_crossings(w, &s);
		if (crossings != 0) {
			r->intersections += crossings;
			fprintf(stderr, "pbd-soak: %s frame %lld: %ld crossing triangle pairs\n", name, r->frames, crossings);
		}
	}
	r->memory_end = memory.live;
	pbd_world_destroy(w);
	// Bounded energy: 2000 J/kg is a mean speed of over 60 m/s, far beyond any drag or impulse
	// here (bullet's balls are not cloth and are not counted).
	failed |= r->worst_energy_per_kg > 2000.0;
	failed |= r->intersections != 0;
	// Live memory may grow while contact lists find their size (each growth doubles one), and
	// with the contact load: a harder hit late in the run needs longer lists. Past the first
	// half, more than twice the first half's peak, times the growth of the peak load, is growth.
	double load_growth = r->pairs_late_peak > r->pairs_warm_peak && r->pairs_warm_peak > 0
				     ? (double)r->pairs_late_peak / (double)r->pairs_warm_peak
				     : 1.0;
	failed |= (double)r->memory_late_peak > 2.0 * load_growth * (double)r->memory_warm_peak;
	failed |= memory.live != 0;  // everything returned by pbd_world_destroy
	return failed;
}

int main(int argc, char **argv)
{
	const char *scenes = "fold,drape,twist,bullet,tear";
	soak_options o = {30.0, 0, 30, 12345, false};
	for (int i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--trace")) {
			o.trace = true;
			continue;
		}
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!v) {
			fprintf(stderr, "pbd-soak: %s needs a value\n", argv[i]);
			return 2;
		} else if (!strcmp(argv[i], "--scenes")) {
			scenes = v;
		} else if (!strcmp(argv[i], "--seconds")) {
			o.seconds = strtod(v, &end);
			if (*end || !(o.seconds > 0.0))
				return fprintf(stderr, "pbd-soak: bad --seconds '%s'\n", v), 2;
		} else if (!strcmp(argv[i], "--frames")) {
			o.frames = strtoll(v, &end, 10);
			if (*end || o.frames < 1)
				return fprintf(stderr, "pbd-soak: bad --frames '%s'\n", v), 2;
		} else if (!strcmp(argv[i], "--check-every")) {
			o.check_every = (int)strtol(v, &end, 10);
			if (*end || o.check_every < 1)
				return fprintf(stderr, "pbd-soak: bad --check-every '%s'\n", v), 2;
		} else if (!strcmp(argv[i], "--seed")) {
			o.seed = (uint32_t)strtoul(v, &end, 10);
			if (*end)
				return fprintf(stderr, "pbd-soak: bad --seed '%s'\n", v), 2;
		} else {
			fprintf(stderr, "usage: pbd-soak [--scenes a,b] [--seconds S | --frames F] [--check-every N] [--seed K] [--trace]\n");
			return 2;
		}
		++i;
	}
	char list[256];
	snprintf(list, sizeof list, "%s", scenes);
	int status = 0;
	for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		if (!demo_scene_find(name)) {
			fprintf(stderr, "pbd-soak: unknown scene '%s'\n", name);
			return 2;
		}
		soak_result r;
		double start = now_s();
		int failed = soak_scene(name, &o, &r);
		printf("soak %s: %lld frames in %.0f s, %lld checks, worst kinetic energy %.3g J/kg, crossings %lld, "
		       "live memory %lld -> %lld bytes (first-half peak %lld, second-half peak %lld; candidate pairs peak "
		       "%lld, then %lld), drags %d, impulses %d, collider moves %d, parameter changes %d (%d refused): %s\n",
		       name, r.frames, now_s() - start, r.checks, r.worst_energy_per_kg, r.intersections, r.memory_first,
		       r.memory_end, r.memory_warm_peak, r.memory_late_peak, r.pairs_warm_peak, r.pairs_late_peak, r.drags, r.impulses, r.collider_moves,
		       r.parameter_changes, r.refused, failed ? "FAILED" : "ok");
		fflush(stdout);
		status |= failed;
	}
	return status;
}
