// SPDX-License-Identifier: MIT
// The tear scene in pbd-bench: a ball through a curtain and a notched sheet pulled in two, run
// for 300 frames at 32 x 32 and 64 x 64, one thread. A tearing frame is one whose step split
// vertices. Its cost is set against the same frame, and the next, run again with tearing
// switched off from that frame on (the target), and, for the record, against the median of
// the quiet frames (no split) of the run after the first tear. Crossings are counted after
// every frame by the tests' independent check.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_colliders.h"
#include "intersect_check.h"
#include "scenes.h"
#include "tear_bench.h"

#define TEAR_FRAMES 300

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

static double median(double *v, int n)
{
	if (n == 0)
		return 0.0;
	qsort(v, (size_t)n, sizeof *v, compare_doubles);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long crossings(const pbd_world *w, const demo_scene_state *st)
{
	check_mesh meshes[DEMO_MAX_CLOTHS];
	for (int c = 0; c < st->cloth_count; ++c) {
		meshes[c].positions = pbd_cloth_positions(w, st->cloths[c], NULL);
		meshes[c].indices = pbd_cloth_indices(w, st->cloths[c], &meshes[c].triangle_count);
	}
	return check_count_intersections(meshes, st->cloth_count);
}

// The tear scene at res x res in a fresh world; false (with the world's message in err) when
// it cannot load.
static bool load_tear(int res, const demo_scene **scene, pbd_world **w, demo_scene_state *st, char *err, size_t size)
{
	demo_scene_options o = {0};
	o.res = res;
	*scene = demo_scene_find("tear");
	snprintf(err, size, "no tear scene");
	return *scene && demo_scene_load(*scene, &o, NULL, w, st, err, size) == PBD_OK;
}

// Runs the scene to frame f, then frames f and f + 1, with tearing (the world as the run had
// it) or with tearing switched off from frame f on: their step times.
static int replay(int res, int f, bool tear, double ms[2])
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	if (!load_tear(res, &scene, &w, &st, err, sizeof err))
		return -1;
	for (int k = 0; k < f + 2; ++k) {
		if (k == f && !tear)
			for (int c = 0; c < st.cloth_count; ++c) {
				pbd_cloth_material m;
				pbd_cloth_get_material(w, st.cloths[c], &m);
				m.tear_strain = 0.0f;
				pbd_cloth_set_material(w, st.cloths[c], &m);
			}
		if (demo_scene_step(scene, w, &st, 1.0f / 60.0f) != PBD_OK)
			break;
		if (k >= f)
			ms[k - f] = pbd_world_get_stats(w).step_ms;
	}
	pbd_world_destroy(w);
	return 0;
}

// What tearing adds: a frame that tears and the one after it (whose pairs are found anew for
// the new vertices) against the same two frames of the same run with tearing switched off at
// that frame, interleaved, for up to five of the run's tearing frames: the median ratio.
static double tear_overhead(int res, const int *tearing_frames, int n, double *worst)
{
	double ratios[5];
	int samples = 0;
	*worst = 0.0;
	for (int k = 0; k < 5 && k < n; ++k) {
		int f = tearing_frames[(int)((long)k * n / (n < 5 ? n : 5))];
		double a[2], b[2];
		if (replay(res, f, true, a) || replay(res, f, false, b))
			continue;
		ratios[samples] = (a[0] + a[1]) / (b[0] + b[1]);
		*worst = fmax(*worst, ratios[samples]);
		samples++;
	}
	return median(ratios, samples);
}

static void tear_row(int res)
{
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	if (!load_tear(res, &scene, &w, &st, err, sizeof err)) {
		printf("tear %dx%d: cannot load (%s)\n", res, res, err);
		return;
	}
	int particles_before = pbd_world_get_stats(w).particles;
	double tearing[TEAR_FRAMES], quiet[TEAR_FRAMES], tear_stage[TEAR_FRAMES];
	int tearing_frames[TEAR_FRAMES];
	int n_tearing = 0, n_quiet = 0, splits = 0, deferred = 0, crossing_frames = 0, first_tear = -1;
	double worst_tearing = 0.0;
	for (int f = 0; f < TEAR_FRAMES; ++f) {
		if (demo_scene_step(scene, w, &st, 1.0f / 60.0f) != PBD_OK)
			break;
		pbd_world_stats s = pbd_world_get_stats(w);
		splits += s.tear_splits;
		deferred += s.tear_splits_deferred;
		crossing_frames += crossings(w, &st) != 0;
		if (s.tear_splits > 0) {
			if (first_tear < 0)
				first_tear = f;
			tear_stage[n_tearing] = s.stage_ms[PBD_STAGE_TEAR];
			tearing_frames[n_tearing] = f;
			tearing[n_tearing++] = s.step_ms;
			worst_tearing = fmax(worst_tearing, s.step_ms);
		} else if (first_tear >= 0) {
			quiet[n_quiet++] = s.step_ms;
		}
	}
	int pieces[2] = {0, 0};
	for (int c = 0; c < st.cloth_count && c < 2; ++c)
		pbd_cloth_pieces(w, st.cloths[c], NULL, 0, &pieces[c]);
	double t = median(tearing, n_tearing), q = median(quiet, n_quiet), stage = median(tear_stage, n_tearing);
	printf("tear %dx%d: %d frames, %d splits (%d left for later), particles %d -> %d, curtain %d piece(s), sheet %d "
	       "piece(s), frames with crossings %d\n",
	       res, res, TEAR_FRAMES, splits, deferred, particles_before, pbd_world_get_stats(w).particles, pieces[0],
	       pieces[1], crossing_frames);
	printf("tear %dx%d: %d tearing frames, median %.2f ms (worst %.2f, the splits and rebuild %.2f); %d quiet frames "
	       "after the first tear, median %.2f ms\n",
	       res, res, n_tearing, t, worst_tearing, stage, n_quiet, q);
	pbd_world_destroy(w);
	// The frames that tear are the violent ones (the ball's hit, the sheet giving way): set
	// against the run's quiet frames they cost more whether they tear or not. What tearing
	// itself costs is the same frames with and without it.
	printf("tear %dx%d: a tearing frame against the quiet frames of the run (medians): %.2f x\n", res, res,
	       q > 0.0 ? t / q : 0.0);
	double worst = 0.0, overhead = tear_overhead(res, tearing_frames, n_tearing, &worst);
	char what[128], note[96];
	snprintf(note, sizeof note, "(worst %.2f x%s)", worst, res == 64 ? "" : "; the target is at 64");
	snprintf(what, sizeof what, "tear %dx%d: frames that tear / the same without tearing", res, res);
	bench_print_target(what, overhead, "x", "<=", 2.0, note);
	snprintf(what, sizeof what, "tear %dx%d: frames with crossings", res, res);
	bench_print_target(what, crossing_frames, "", "<=", 0.0, NULL);
}

void run_tear_targets(void)
{
	printf("\ntear targets (1 thread)\n");
	tear_row(32);
	tear_row(64);
}
