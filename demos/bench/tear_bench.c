// SPDX-License-Identifier: MIT
// The tear scene in pbd-bench: a ball through a curtain and a notched sheet pulled in two, run
// for 300 frames at 32 x 32 and 64 x 64, one thread. A tearing frame is one whose step split
// vertices; its cost is set against the median of the quiet frames (no split) of the same
// run after the first tear, so both see torn cloth in motion. Crossings are counted after
// every frame by the tests' independent check.
#include <math.h>
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

static void tear_row(int res)
{
	const demo_scene *scene = demo_scene_find("tear");
	demo_scene_options o = {0};
	o.res = res;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	if (!scene || demo_scene_load(scene, &o, NULL, &w, &st, err, sizeof err) != PBD_OK) {
		printf("tear %dx%d: cannot load (%s)\n", res, res, err);
		return;
	}
	int particles_before = pbd_world_get_stats(w).particles;
	double tearing[TEAR_FRAMES], quiet[TEAR_FRAMES], tear_stage[TEAR_FRAMES];
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
	char what[128];
	snprintf(what, sizeof what, "tear %dx%d: tearing frame / quiet frame (medians)", res, res);
	bench_print_target(what, q > 0.0 ? t / q : 0.0, "x", "<=", 2.0, res == 64 ? NULL : "(the target is at 64)");
	snprintf(what, sizeof what, "tear %dx%d: frames with crossings", res, res);
	bench_print_target(what, crossing_frames, "", "<=", 0.0, NULL);
	pbd_world_destroy(w);
}

void run_tear_targets(void)
{
	printf("\ntear targets (1 thread)\n");
	tear_row(32);
	tear_row(64);
}
