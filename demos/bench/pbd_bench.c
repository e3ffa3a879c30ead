// SPDX-License-Identifier: MIT
// pbd-bench: the performance table. Scenes of the shared table at several resolutions, with
// 1 and 2 threads, self-collision on and off; per row the frame time (median, min and max of
// the repetitions' means), the time per phase, ns per constraint per substep, contact and CCD
// pair counts and peak memory. Then the targets of the performance issue, measured in the
// same run, each printed beside its measured value. Writes CSV; --plot draws ms/frame against
// particles (log-log) as a PNG.
#define _POSIX_C_SOURCE 200809L  // popen for the Bullet peer
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "scenes.h"

#include "fast_colliders.h"
#include "plot.h"
#include "solver_targets.h"
#include "tear_bench.h"

#define MAX_LIST 16

typedef struct bench_options {
	const char *scenes[MAX_LIST];
	int scene_count;
	int res[MAX_LIST];
	int res_count;
	int threads[MAX_LIST];
	int thread_count;
	int self[2];
	int self_count;
	int frames, warmup, reps;
	double budget_s;  // per row: stop repeating when the row has taken this long
	const char *csv;
	const char *plot;
	int targets;      // 0: skip the target section
	int contacts_only;  // --contact-targets: only the contact targets
	int fast_only;      // --fast-colliders: only the fast-collider scenes
	int solver_only;    // --solver-targets: only the solver-kernel targets
	int tear_only;      // --tear: only the tear scene's figures
	double fast_budget_s;  // per fast-collider run
	int substeps, iterations;
} bench_options;

typedef struct bench_row {
	char scene[32];
	int res, particles, threads, self, substeps, iterations;
	int reps, frames;  // done
	double ms_median, ms_min, ms_max;
	double phase_ms[PBD_STAGE_COUNT];
	double ns_per_constraint;
	double candidate_pairs, ccd_pairs;
	size_t bytes_peak;
	double bytes_per_particle;
	float max_strain;
	int finite;
	int partial;  // stopped by the time budget before frames x reps
	double bullet_ms;  // the Bullet peer on the same patch (hang rows), 0 when not run
} bench_row;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pbd-bench [--scenes a,b,...] [--res 32,64,...] [--threads 1,2] [--self on|off|both]\n"
		"                 [--frames N] [--warmup N] [--reps N] [--budget SECONDS] [--substeps K]\n"
		"                 [--iterations K] [--csv FILE] [--plot FILE.png] [--no-targets] [--quick]\n"
		"                 [--contact-targets] [--fast-colliders] [--solver-targets] [--tear]\n\n"
		"  defaults: scenes hang,drop,drape,fold,twist,bullet; res 32,64,128,256; threads 1,2;\n"
		"  self both; 200 frames after 30 warm-up frames, 5 repetitions; at most 60 s per row\n"
		"  (a row that runs out of time reports what it measured and is marked partial).\n"
		"  --quick: res 32,64, 60 frames, 2 repetitions, 10 s per row.\n"
		"  --contact-targets: only the targets of contacts at game speed (every scene, self-collision\n"
		"  overhead, broad-phase searches, candidates, memory after a transient), then the fast colliders.\n"
		"  --fast-colliders: only the fast-collider scenes (a capsule swept through a curtain, a bar\n"
		"  pushing it, a cloth dropped on a box's ridge and over a table's edge), 30 s per run at most\n"
		"  (--budget sets it).\n"
		"  --solver-targets: only the solver kernel's targets (pbd against a stand-alone XPBD kernel at\n"
		"  64, 128 and 256, two threads against one on a quiet and a loaded machine, idle work).\n"
		"  --tear: only the tear scene at 32 and 64 (splits, crossings, a tearing frame against a quiet one).\n");
}

static int parse_int_list(const char *s, int *out, int max)
{
	int n = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v < 1 || v > 4096 || n >= max)
			return -1;
		out[n++] = (int)v;
	}
	return n;
}

static int parse_args(int argc, char **argv, bench_options *o, char *scene_buf, size_t scene_buf_size)
{
	static const char *all_scenes[] = {"hang", "drop", "drape", "fold", "twist", "bullet"};
	*o = (bench_options){.res = {32, 64, 128, 256}, .res_count = 4, .threads = {1, 2}, .thread_count = 2,
			     .self = {1, 0}, .self_count = 2, .frames = 200, .warmup = 30, .reps = 5, .budget_s = 60.0,
			     .targets = 1, .fast_budget_s = 30.0};
	for (int i = 0; i < 6; ++i)
		o->scenes[o->scene_count++] = all_scenes[i];
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int n;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--quick")) {
			o->res[0] = 32, o->res[1] = 64, o->res_count = 2;
			o->frames = 60, o->reps = 2, o->budget_s = 10.0, o->warmup = 10;
		} else if (!strcmp(a, "--no-targets")) {
			o->targets = 0;
		} else if (!strcmp(a, "--contact-targets")) {
			o->contacts_only = 1;
		} else if (!strcmp(a, "--solver-targets")) {
			o->solver_only = 1;
		} else if (!strcmp(a, "--tear")) {
			o->tear_only = 1;
		} else if (!strcmp(a, "--fast-colliders")) {
			o->fast_only = 1;
		} else if (!v) {
			fprintf(stderr, "pbd-bench: %s needs a value\n", a);
			return -1;
		} else if (!strcmp(a, "--scenes")) {
			snprintf(scene_buf, scene_buf_size, "%s", v);
			o->scene_count = 0;
			for (char *tok = strtok(scene_buf, ","); tok && o->scene_count < MAX_LIST; tok = strtok(NULL, ",")) {
				if (!demo_scene_find(tok)) {
					fprintf(stderr, "pbd-bench: unknown scene '%s'\n", tok);
					return -1;
				}
				o->scenes[o->scene_count++] = tok;
			}
			++i;
		} else if (!strcmp(a, "--res") || !strcmp(a, "--threads")) {
			int *list = a[2] == 'r' ? o->res : o->threads;
			if ((n = parse_int_list(v, list, MAX_LIST)) <= 0) {
				fprintf(stderr, "pbd-bench: bad list for %s: '%s'\n", a, v);
				return -1;
			}
			*(a[2] == 'r' ? &o->res_count : &o->thread_count) = n;
			++i;
		} else if (!strcmp(a, "--self")) {
			if (!strcmp(v, "on"))
				o->self[0] = 1, o->self_count = 1;
			else if (!strcmp(v, "off"))
				o->self[0] = 0, o->self_count = 1;
			else if (!strcmp(v, "both"))
				o->self[0] = 1, o->self[1] = 0, o->self_count = 2;
			else {
				fprintf(stderr, "pbd-bench: --self takes on, off or both\n");
				return -1;
			}
			++i;
		} else if (!strcmp(a, "--frames") || !strcmp(a, "--warmup") || !strcmp(a, "--reps") ||
			   !strcmp(a, "--substeps") || !strcmp(a, "--iterations")) {
			int value;
			if (parse_int_list(v, &value, 1) != 1 && !(a[2] == 'w' && !strcmp(v, "0"))) {
				fprintf(stderr, "pbd-bench: bad number for %s: '%s'\n", a, v);
				return -1;
			}
			if (a[2] == 'w' && !strcmp(v, "0"))
				value = 0;
			if (a[2] == 'f')
				o->frames = value;
			else if (a[2] == 'w')
				o->warmup = value;
			else if (a[2] == 'r')
				o->reps = value;
			else if (a[2] == 's')
				o->substeps = value;
			else
				o->iterations = value;
			++i;
		} else if (!strcmp(a, "--budget")) {
			char *end;
			o->budget_s = strtod(v, &end);
			if (*end || !(o->budget_s > 0.0)) {
				fprintf(stderr, "pbd-bench: bad --budget '%s'\n", v);
				return -1;
			}
			o->fast_budget_s = o->budget_s;
			++i;
		} else if (!strcmp(a, "--csv")) {
			o->csv = v, ++i;
		} else if (!strcmp(a, "--plot")) {
			o->plot = v, ++i;
		} else {
			fprintf(stderr, "pbd-bench: unknown option %s\n", a);
			usage(stderr);
			return -1;
		}
	}
	return 0;
}

// The longest stretch constraint, relative to its rest length (the engine's own figure).
static float max_edge_strain(const pbd_world *w)
{
	return pbd_world_get_stats(w).max_stretch_error;
}

static int world_is_finite(const pbd_world *w, const demo_scene_state *s)
{
	int ok = 1;
	for (int c = 0; c < s->cloth_count; ++c) {
		int n = 0;
		const float *x = pbd_cloth_positions(w, s->cloths[c], &n);
		for (int i = 0; x && i < 3 * n; ++i)
			ok &= isfinite(x[i]) != 0;
	}
	return ok;
}

// Loads a scene for one row; returns NULL (with a message) when it cannot.
static pbd_world *load_row(const char *name, int res, int self, pbd_task_pool *pool, const bench_options *o,
			   demo_scene_state *state)
{
	const demo_scene *scene = demo_scene_find(name);
	pbd_world_def wd = pbd_world_def_default();
	if (o->substeps)
		wd.settings.substeps = o->substeps;
	if (o->iterations)
		wd.settings.iterations = o->iterations;
	pbd_world_def_use_task_pool(&wd, pool);
	demo_scene_options so = {res, NULL, NULL, 0};
	pbd_world *w = NULL;
	char error[256];
	if (demo_scene_load_def(scene, &so, &wd, &w, state, error, sizeof error) != PBD_OK) {
		fprintf(stderr, "pbd-bench: %s at %d: %s\n", name, res, error);
		return NULL;
	}
	if (demo_param_apply(w, state, self ? "self_collision=1" : "self_collision=0", error, sizeof error) != PBD_OK) {
		fprintf(stderr, "pbd-bench: %s\n", error);
		pbd_world_destroy(w);
		return NULL;
	}
	return w;
}

static int run_row(const char *name, int res, int threads, int self, const bench_options *o, bench_row *row)
{
	*row = (bench_row){0};
	snprintf(row->scene, sizeof row->scene, "%s", name);
	row->res = res, row->threads = threads, row->self = self, row->finite = 1;
	pbd_task_pool *pool = NULL;
	if (threads > 1 && pbd_task_pool_create(threads, &pool) != PBD_OK) {
		fprintf(stderr, "pbd-bench: cannot start %d threads\n", threads);
		return -1;
	}
	const demo_scene *scene = demo_scene_find(name);
	double rep_ms[64];
	double start = now_s();
	double pairs = 0.0, ccd = 0.0, constraint_ms = 0.0;
	long long timed_frames = 0;
	int constraint_count = 0;
	for (int rep = 0; rep < o->reps && rep < 64; ++rep) {
		demo_scene_state state;
		pbd_world *w = load_row(name, res, self, pool, o, &state);
		if (!w) {
			pbd_task_pool_destroy(pool);
			return -1;
		}
		pbd_world_settings ws = pbd_world_get_settings(w);
		row->substeps = ws.substeps, row->iterations = ws.iterations;
		for (int f = 0; f < o->warmup && now_s() - start < o->budget_s; ++f)
			demo_scene_step(scene, w, &state, 1.0f / 60.0f);
		double sum = 0.0;
		int done = 0;
		for (int f = 0; f < o->frames; ++f) {
			double t = now_s();
			if (demo_scene_step(scene, w, &state, 1.0f / 60.0f) != PBD_OK)
				break;
			sum += 1e3 * (now_s() - t);
			done++;
			pbd_world_stats st = pbd_world_get_stats(w);
			for (int k = 0; k < PBD_STAGE_COUNT; ++k)
				row->phase_ms[k] += st.stage_ms[k];
			constraint_ms += st.stage_ms[PBD_STAGE_CONSTRAINTS];
			constraint_count = st.constraints;
			row->particles = st.particles;
			pairs += st.candidate_pairs;
			ccd += (double)st.ccd_pairs_tested;
			if (st.bytes_peak > row->bytes_peak)
				row->bytes_peak = st.bytes_peak;
			if (now_s() - start > o->budget_s && f + 1 < o->frames) {
				row->partial = 1;
				break;
			}
		}
		timed_frames += done;
		if (done > 0)
			rep_ms[row->reps++] = sum / done;
		row->max_strain = max_edge_strain(w);
		row->finite &= world_is_finite(w, &state);
		pbd_world_destroy(w);
		if (now_s() - start > o->budget_s) {
			row->partial |= rep + 1 < o->reps;
			break;
		}
	}
	pbd_task_pool_destroy(pool);
	row->frames = (int)timed_frames;
	if (row->reps == 0)
		return -1;
	qsort(rep_ms, (size_t)row->reps, sizeof *rep_ms, compare_doubles);
	row->ms_median = rep_ms[row->reps / 2];
	row->ms_min = rep_ms[0];
	row->ms_max = rep_ms[row->reps - 1];
	for (int k = 0; k < PBD_STAGE_COUNT; ++k)
		row->phase_ms[k] /= (double)timed_frames;
	row->candidate_pairs = pairs / (double)timed_frames;
	row->ccd_pairs = ccd / (double)timed_frames;
	double per_substep = (double)constraint_count * row->substeps * row->iterations;
	row->ns_per_constraint = per_substep > 0 ? 1e6 * constraint_ms / (double)timed_frames / per_substep : 0.0;
	row->bytes_per_particle = row->particles ? (double)row->bytes_peak / row->particles : 0.0;
	return 0;
}

// Times Bullet's btSoftBody on the row's patch through the peer program, when it was built.
static double bullet_ms(const bench_row *row, const bench_options *o)
{
#ifdef PBD_BULLET_PEER
	if (strcmp(row->scene, "hang") != 0 || row->threads != 1)
		return 0.0;
	char command[1024];
	snprintf(command, sizeof command, "'%s' --res %d --frames %d --warmup %d --reps %d --iterations %d%s",
		 PBD_BULLET_PEER, row->res, o->frames, o->warmup, o->reps, row->substeps * row->iterations,
		 row->self ? " --self" : "");
	FILE *p = popen(command, "r");
	if (!p)
		return 0.0;
	char line[512];
	double ms = 0.0;
	while (fgets(line, sizeof line, p)) {
		const char *at = strstr(line, "ms_median=");
		if (at)
			ms = strtod(at + 10, NULL);
	}
	pclose(p);
	return ms;
#else
	(void)row;
	(void)o;
	return 0.0;
#endif
}

static void print_header(void)
{
	printf("%-7s %4s %6s %2s %4s %9s %9s %9s %8s %8s %8s %8s %7s %8s %9s %8s %6s %s\n", "scene", "res", "parts", "th",
	       "self", "ms_med", "ms_min", "ms_max", "broad", "contact", "ccd", "constr", "ns/c", "pairs", "ccd_pairs",
	       "peak_MB", "B/part", "reps x frames");
}

static void print_row(const bench_row *r)
{
	printf("%-7s %4d %6d %2d %4s %9.3f %9.3f %9.3f %8.3f %8.3f %8.3f %8.3f %7.2f %8.0f %9.0f %8.2f %6.0f %d x %d%s%s\n",
	       r->scene, r->res, r->particles, r->threads, r->self ? "on" : "off", r->ms_median, r->ms_min, r->ms_max,
	       r->phase_ms[PBD_STAGE_BROAD_PHASE], r->phase_ms[PBD_STAGE_CONTACTS], r->phase_ms[PBD_STAGE_CCD],
	       r->phase_ms[PBD_STAGE_CONSTRAINTS], r->ns_per_constraint, r->candidate_pairs, r->ccd_pairs,
	       (double)r->bytes_peak / 1048576.0, r->bytes_per_particle, r->reps, r->reps ? r->frames / r->reps : 0,
	       r->partial ? " partial (time budget)" : "", r->finite ? "" : " NOT FINITE");
	if (r->bullet_ms > 0.0)
		printf("        Bullet 3.24 btSoftBody, same patch, %d position iterations: %.3f ms; pbd/Bullet = %.2f%s\n",
		       r->substeps * r->iterations, r->bullet_ms, r->ms_median / r->bullet_ms,
		       r->self ? " (Bullet's self-collision flags do nothing for one cloth)" : "");
	fflush(stdout);
}

static void write_csv(FILE *f, const bench_row *rows, int n)
{
	fprintf(f, "scene,res,particles,threads,self_collision,substeps,iterations,ms_median,ms_min,ms_max,reps,frames");
	for (int k = 0; k < PBD_STAGE_COUNT; ++k)
		fprintf(f, ",%s_ms", pbd_stage_name((pbd_stage)k));
	fprintf(f, ",ns_per_constraint_substep,candidate_pairs,ccd_pairs,bytes_peak,bytes_per_particle,max_strain,"
		   "finite,partial,bullet_ms,pbd_over_bullet\n");
	for (int i = 0; i < n; ++i) {
		const bench_row *r = &rows[i];
		fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%d,%d", r->scene, r->res, r->particles, r->threads, r->self,
			r->substeps, r->iterations, r->ms_median, r->ms_min, r->ms_max, r->reps, r->frames);
		for (int k = 0; k < PBD_STAGE_COUNT; ++k)
			fprintf(f, ",%.4f", r->phase_ms[k]);
		fprintf(f, ",%.3f,%.1f,%.1f,%zu,%.1f,%.6f,%d,%d,%.4f,%.4f\n", r->ns_per_constraint, r->candidate_pairs,
			r->ccd_pairs, r->bytes_peak, r->bytes_per_particle, (double)r->max_strain, r->finite, r->partial,
			r->bullet_ms, r->bullet_ms > 0.0 ? r->ms_median / r->bullet_ms : 0.0);
	}
}

void bench_print_target(const char *what, double measured, const char *unit, const char *op, double limit,
			const char *note)
{
	int met = !strcmp(op, "<=") ? measured <= limit : measured >= limit;
	printf("  %-66s %10.3f %-6s target %s %-8g %s%s%s\n", what, measured, unit, op, limit, met ? "MET" : "MISSED",
	       note ? "  " : "", note ? note : "");
}

// The light, finely resolved cloth where Jolt's defaults blow up: 0.25 kg/m^2, 1.5 cm
// spacing, 128 x 128, two corners pinned, default settings; 300 frames.
static float light_cloth_strain(int *finite)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w = NULL;
	*finite = 0;
	if (pbd_world_create(&wd, &w) != PBD_OK)
		return INFINITY;
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 128;
	d.grid.width = d.grid.height = 127 * 0.015f;
	d.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	d.areal_density = 0.25f;
	float half = 0.25f * 3.14159265f;  // +90 degrees about x: hanging in the plane z = 0
	d.rotation[0] = sinf(half), d.rotation[3] = cosf(half);
	d.position[1] = 2.5f;
	demo_scene_state s = {0};
	if (pbd_cloth_create(w, &d, &s.cloths[0]) != PBD_OK) {
		pbd_world_destroy(w);
		return INFINITY;
	}
	s.cloth_count = 1;
	float worst = 0.0f;
	for (int f = 0; f < 300; ++f) {
		if (pbd_world_step(w, 1.0f / 60.0f) != PBD_OK)
			break;
		if (f % 30 == 29)
			worst = fmaxf(worst, max_edge_strain(w));
	}
	*finite = world_is_finite(w, &s);
	pbd_world_destroy(w);
	return worst;
}

static void run_targets(const bench_options *o, bench_row *rows, int *count, int capacity)
{
	printf("\ntargets (measured in this run; anchor: Jolt Physics 5.5 soft bodies on this kind of machine)\n");
	bench_options t = *o;
	t.substeps = 5, t.iterations = 1;
	bench_row hang1, hang2;
	int ok1 = run_row("hang", 128, 1, 0, &t, &hang1) == 0, ok2 = run_row("hang", 128, 2, 0, &t, &hang2) == 0;
	if (ok1 && *count < capacity)
		rows[(*count)++] = hang1;
	if (ok2 && *count < capacity)
		rows[(*count)++] = hang2;
	const char *model = "pbd's one bending model (isometric) in both rows";
	if (ok1) {
		bench_print_target("hang 128x128 floor, 5x1, distance-bending target, 1 thread", hang1.ms_median, "ms", "<=", 1.8,
			     model);
		bench_print_target("hang 128x128 floor, 5x1, default bending, 1 thread", hang1.ms_median, "ms", "<=", 5.0, NULL);
	}
	if (ok2)
		bench_print_target("hang 128x128 floor, 5x1, distance-bending target, 2 threads", hang2.ms_median, "ms", "<=",
			     1.0, model);
	if (ok1 && ok2)
		bench_print_target("hang 128x128: speed-up of 2 threads over 1", hang1.ms_median / hang2.ms_median, "x",
			     ">=", 1.7, NULL);
	bench_row h256a, h256b;
	if (run_row("hang", 256, 1, 0, &t, &h256a) == 0 && run_row("hang", 256, 2, 0, &t, &h256b) == 0) {
		if (*count + 2 <= capacity) {
			rows[(*count)++] = h256a;
			rows[(*count)++] = h256b;
		}
		bench_print_target("hang 256x256: speed-up of 2 threads over 1", h256a.ms_median / h256b.ms_median, "x", ">=",
			     1.7, NULL);
	}
	bench_row fold;
	if (run_row("fold", 128, 2, 1, o, &fold) == 0) {
		if (*count < capacity)
			rows[(*count)++] = fold;
		bench_print_target("fold 128x128, self-collision + CCD guard, 2 threads", fold.ms_median, "ms", "<=", 16.7,
			     fold.partial ? "(partial: time budget)" : NULL);
		bench_print_target("memory per particle at 128x128 (fold, engine-owned peak)", fold.bytes_per_particle, "B",
			     "<=", 1024.0, NULL);
	}
	int finite = 0;
	float strain = light_cloth_strain(&finite);
	bench_print_target("light cloth 0.25 kg/m^2, 1.5 cm, 128x128, 2 corners: max edge strain", 100.0 * strain, "%", "<=",
		     10.0, finite ? NULL : "NOT FINITE");
}

// One scene run frame by frame: per-frame times and the contact figures of its worst frame.
typedef struct frame_profile {
	int frames, particles;
	double ms_median, ms_p99, ms_max;
	double builds_per_frame;     // full candidate searches (spatial-hash builds) per frame
	double vt_per_vertex, ee_per_edge;  // candidates at the frame with the most of them
	size_t bytes_peak;
	int partial;
} frame_profile;

static int profile_scene(const char *name, int res, int threads, int self, int frames, double budget_s,
			 frame_profile *out)
{
	*out = (frame_profile){0};
	pbd_task_pool *pool = NULL;
	if (threads > 1 && pbd_task_pool_create(threads, &pool) != PBD_OK)
		return -1;
	bench_options o = {.substeps = 0, .iterations = 0};
	demo_scene_state state;
	pbd_world *w = load_row(name, res, self, pool, &o, &state);
	if (!w) {
		pbd_task_pool_destroy(pool);
		return -1;
	}
	const demo_scene *scene = demo_scene_find(name);
	double *ms = calloc((size_t)frames, sizeof *ms), start = now_s();
	long long builds = 0;
	int done = 0, worst_pairs = -1;
	for (; ms && done < frames; ++done) {
		double t = now_s();
		if (demo_scene_step(scene, w, &state, 1.0f / 60.0f) != PBD_OK)
			break;
		ms[done] = 1e3 * (now_s() - t);
		pbd_world_stats st = pbd_world_get_stats(w);
		builds += st.broad_phase_builds;
		out->particles = st.particles;
		if (st.vertex_triangle_candidates + st.edge_edge_candidates > worst_pairs) {
			worst_pairs = st.vertex_triangle_candidates + st.edge_edge_candidates;
			// Every particle is a vertex; a triangle mesh has about three edges per two triangles.
			out->vt_per_vertex = st.particles ? (double)st.vertex_triangle_candidates / st.particles : 0.0;
			out->ee_per_edge = st.triangles ? (double)st.edge_edge_candidates / (1.5 * st.triangles) : 0.0;
		}
		out->bytes_peak = st.bytes_peak;
		if (now_s() - start > budget_s && done + 1 < frames) {
			out->partial = 1;
			++done;
			break;
		}
	}
	pbd_world_destroy(w);
	pbd_task_pool_destroy(pool);
	if (!ms || done == 0) {
		free(ms);
		return -1;
	}
	qsort(ms, (size_t)done, sizeof *ms, compare_doubles);
	out->frames = done;
	out->ms_median = ms[done / 2];
	out->ms_p99 = ms[(int)ceil(0.99 * done) - 1];
	out->ms_max = ms[done - 1];
	out->builds_per_frame = (double)builds / done;
	free(ms);
	return 0;
}

// A sphere swept once through a hanging 32 x 32 curtain at 30 m/s at frame 10: live memory
// before the hit, at its peak, and 300 steps after it.
static void transient_memory(size_t *quiet, size_t *peak, size_t *after)
{
	*quiet = *peak = *after = 0;
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w;
	if (pbd_world_create(&wd, &w) != PBD_OK)
		return;
	pbd_cloth_def c = pbd_cloth_def_default();
	c.grid.pins = PBD_PIN_EDGE_V0;
	const float half = 0.70710678f, upright[4] = {half, 0, 0, half};
	memcpy(c.rotation, upright, sizeof upright);
	c.position[1] = 1.0f;
	pbd_cloth_id cloth;
	pbd_collider_def sd = pbd_collider_def_default();
	sd.type = PBD_SHAPE_SPHERE, sd.radius = 0.15f, sd.position[1] = 1.0f, sd.position[2] = -1.2f;
	pbd_collider_id sphere;
	if (pbd_cloth_create(w, &c, &cloth) == PBD_OK && pbd_collider_create(w, &sd, &sphere) == PBD_OK) {
		const float identity[4] = {0, 0, 0, 1}, dt = 1.0f / 60.0f;
		for (int f = 0; f <= 310; ++f) {
			float at[3] = {0, 1.0f, f < 10 ? -1.2f : fminf(-1.2f + 30.0f * dt * (float)(f - 10), 1.2f)};
			pbd_collider_set_pose(w, sphere, at, identity);
			if (pbd_world_step(w, dt) != PBD_OK)
				break;
			size_t live = pbd_world_get_stats(w).bytes_live;
			if (f == 9)
				*quiet = live;
			*peak = live > *peak ? live : *peak;
			*after = live;
		}
	}
	pbd_world_destroy(w);
}

// The targets of "contacts at game speed", each printed MET or MISSED beside its figure.
static void run_contact_targets(void)
{
	printf("\ncontact targets (1 thread unless stated; every scene at its default resolution)\n");
	int scenes = demo_scene_count();
	for (int k = 0; k < scenes; ++k) {
		const demo_scene *sc = demo_scene_at(k);
		frame_profile p;
		char what[96];
		if (profile_scene(sc->name, 0, 1, 1, 600, 120.0, &p) != 0)
			continue;
		const char *note = p.partial ? "(partial: 120 s budget)" : NULL;
		snprintf(what, sizeof what, "%s, 600 frames: median ms/frame", sc->name);
		bench_print_target(what, p.ms_median, "ms", "<=", 4.0, note);
		snprintf(what, sizeof what, "%s, 600 frames: 99th percentile ms/frame", sc->name);
		bench_print_target(what, p.ms_p99, "ms", "<=", 12.0, note);
		snprintf(what, sizeof what, "%s: full candidate searches per frame (mean)", sc->name);
		bench_print_target(what, p.builds_per_frame, "", "<=", 1.0, note);
	}
	const char *self_scenes[] = {"hang", "drape", "fold", "twist"};
	const int self_res[] = {64, 128};
	for (int r = 0; r < 2; ++r)
		for (int k = 0; k < 4; ++k) {
			frame_profile on, off;
			if (profile_scene(self_scenes[k], self_res[r], 1, 0, 120, 60.0, &off) != 0 ||
			    profile_scene(self_scenes[k], self_res[r], 1, 1, 120, 60.0, &on) != 0)
				continue;
			char what[96];
			snprintf(what, sizeof what, "%s %dx%d: self-collision on / off (120 frames, medians)", self_scenes[k],
				 self_res[r], self_res[r]);
			bench_print_target(what, on.ms_median / off.ms_median, "x", "<=", 2.5, on.partial ? "(partial)" : NULL);
		}
	frame_profile fold;
	if (profile_scene("fold", 128, 1, 1, 300, 120.0, &fold) == 0) {
		bench_print_target("fold 128x128: vertex-triangle candidates per vertex, worst frame", fold.vt_per_vertex, "",
			     "<=", 8.0, fold.partial ? "(partial)" : NULL);
		bench_print_target("fold 128x128: edge-edge candidates per edge, worst frame", fold.ee_per_edge, "", "<=", 8.0,
			     fold.partial ? "(partial)" : NULL);
	}
	size_t quiet, peak, after;
	transient_memory(&quiet, &peak, &after);
	char note[96];
	snprintf(note, sizeof note, "(%.2f MB before, %.2f MB at the hit, %.2f MB after)", quiet / 1e6, peak / 1e6,
		 after / 1e6);
	bench_print_target("curtain 32x32 hit at 30 m/s: live memory 300 steps after / before", quiet ? (double)after / quiet : 0.0,
		     "x", "<=", 2.0, note);
}

// A scene's color in the plot: its place in the scene table.
static int scene_index(const char *scene)
{
	int n = demo_scene_count();
	for (int k = 0; k < n; ++k)
		if (!strcmp(demo_scene_at(k)->name, scene))
			return k;
	return n;
}

int main(int argc, char **argv)
{
	bench_options o;
	char scene_buf[512];
	if (parse_args(argc, argv, &o, scene_buf, sizeof scene_buf) != 0)
		return 2;
	int capacity = o.scene_count * o.res_count * o.thread_count * o.self_count + 8;
	bench_row *rows = calloc((size_t)capacity, sizeof *rows);
	if (!rows)
		return 1;
	int count = 0;
	if (o.fast_only) {
		run_fast_collider_targets(o.fast_budget_s);
		free(rows);
		return 0;
	}
	if (o.tear_only) {
		run_tear_targets();
		free(rows);
		return 0;
	}
	if (o.solver_only) {
		run_solver_targets();
		free(rows);
		return 0;
	}
	if (o.contacts_only) {
		run_contact_targets();
		run_fast_collider_targets(o.fast_budget_s);
		free(rows);
		return 0;
	}
	print_header();
	for (int s = 0; s < o.scene_count; ++s)
		for (int r = 0; r < o.res_count; ++r)
			for (int c = 0; c < o.self_count; ++c)
				for (int t = 0; t < o.thread_count; ++t) {
					bench_row row;
					if (run_row(o.scenes[s], o.res[r], o.threads[t], o.self[c], &o, &row) != 0)
						continue;
					row.bullet_ms = bullet_ms(&row, &o);
					print_row(&row);
					rows[count++] = row;
				}
	if (o.targets) {
		run_targets(&o, rows, &count, capacity);
		run_solver_targets();
		run_contact_targets();
		run_fast_collider_targets(o.fast_budget_s);
		run_tear_targets();
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("\nprocess peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	int status = 0;
	if (o.csv) {
		FILE *f = fopen(o.csv, "w");
		if (!f) {
			fprintf(stderr, "pbd-bench: cannot write %s\n", o.csv);
			status = 1;
		} else {
			write_csv(f, rows, count);
			status |= fclose(f) != 0;
			printf("wrote %s\n", o.csv);
		}
	}
	if (o.plot) {
		plot_series series[64];
		int n = 0;
		for (int i = 0; i < count && n < 64; ++i) {
			char label[64];
			snprintf(label, sizeof label, "%s %dT%s", rows[i].scene, rows[i].threads, rows[i].self ? "" : " noself");
			int k = 0;
			while (k < n && strcmp(series[k].label, label))
				++k;
			if (k == n) {
				series[n] = (plot_series){0};
				snprintf(series[n].label, sizeof series[n].label, "%s", label);
				// One color per scene; 2 threads dashed; self-collision off with open markers.
				series[n].dashed = rows[i].threads > 1;
				series[n].hollow = !rows[i].self;
				series[n].color = 1 + scene_index(rows[i].scene);
				n++;
			}
			if (series[k].count < PLOT_MAX_POINTS) {
				series[k].x[series[k].count] = rows[i].particles;
				series[k].y[series[k].count++] = rows[i].ms_median;
			}
		}
		if (plot_write_png(o.plot, "pbd-bench: ms per frame against particles", "particles", "ms / frame", series,
				   n) != 0) {
			fprintf(stderr, "pbd-bench: cannot write %s\n", o.plot);
			status = 1;
		} else {
			printf("wrote %s\n", o.plot);
		}
	}
	free(rows);
	return status;
}
