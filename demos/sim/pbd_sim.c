// SPDX-License-Identifier: MIT
// pbd-sim: runs a scene headless, for tests, benchmarks and OBJ dumps.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pbd/pbd.h>

#include "pbd_tuning.h"
#include "tools.h"

#define MAX_SETS 64

typedef struct sim_options {
	demo_flags common;  // the flags pbd-sim shares with the viewer (--cloth: the "mesh" scene)
	double dt;
	int substeps;     // 0: keep the default
	int iterations;
	const char *sets[MAX_SETS];
	int set_count;
	const char *dump_dir;
	int dump_every;
	const char *frame_log;  // --frame-log: one CSV row of figures per frame
	int json;
	int list;
	int print_c;
} sim_options;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pbd-sim --list\n"
		"       pbd-sim (--scene NAME | --cloth FILE.obj [--pin SPEC] [--sphere]) [--frames N] [--dt S]\n"
		"               [--substeps K] [--iterations K] [--res N] [--material NAME] [--params FILE]\n"
		"               [--set key=value]... [--save-params FILE] [--print-c] [--dump DIR]\n"
		"               [--dump-every K] [--frame-log FILE] [--threads N] [--json]\n"
		"\n"
		"  --list           print the scene names, one per line\n"
		"  --scene NAME     scene to run (see --list)\n"
		"  --frames N       frames to simulate (default 300)\n"
		"  --dt S           seconds per frame (default 1/60)\n"
		"  --substeps K     substeps per frame (default: the engine's)\n"
		"  --iterations K   constraint passes per substep (default: the engine's)\n"
		"  --save-params F  write the tuning (first cloth and world) after the options above\n"
		"  --print-c        print the tuning as C code for a pbd_world_def and a pbd_cloth_def\n"
		"  --dump DIR       write DIR/frame_%%05d.obj for frame 0, every K-th frame and the last\n"
		"  --dump-every K   dump interval in frames (default 1)\n"
		"  --frame-log FILE write one CSV row per frame: its time, substeps, searches, pairs, contacts\n"
		"  --json           last line of output: one JSON object of figures\n"
		"  --set key=value  set a parameter (applied after --material and --params); keys:");
	for (int i = 0; i < demo_param_count(); ++i)
		fprintf(out, "%s%s", i % 4 == 0 ? "\n                     " : " ", demo_param_at(i)->name);
	fprintf(out, "\n");
	demo_flags_help(out, 19);
}

static int parse_int(const char *flag, const char *s, int lo, int hi, int *out)
{
	long v = 0;
	if (!demo_parse_long("pbd-sim", flag, s, lo, hi, &v))
		return 0;
	*out = (int)v;
	return 1;
}

// The flags of pbd-sim alone; the shared ones (tools.h) are read before.
static int parse_own_flag(int argc, char **argv, int *i, sim_options *o)
{
	const char *a = argv[*i];
	const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	int takes = strcmp(a, "--dt") == 0 || strcmp(a, "--substeps") == 0 || strcmp(a, "--iterations") == 0 ||
		    strcmp(a, "--set") == 0 || strcmp(a, "--dump") == 0 || strcmp(a, "--dump-every") == 0 ||
		    strcmp(a, "--frame-log") == 0;
	if (takes && !demo_flag_has_value("pbd-sim", a, v))
		return 0;
	if (strcmp(a, "--list") == 0) {
		o->list = 1;
	} else if (strcmp(a, "--json") == 0) {
		o->json = 1;
	} else if (strcmp(a, "--print-c") == 0) {
		o->print_c = 1;
	} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
		usage(stdout);
		exit(0);
	} else if (strcmp(a, "--dt") == 0) {
		char *end = NULL;
		o->dt = strtod(v, &end);
		if (!v[0] || *end || !isfinite(o->dt) || o->dt <= 0.0 || o->dt > 10.0) {
			fprintf(stderr, "pbd-sim: --dt needs seconds in (0, 10], got '%s'\n", v);
			return 0;
		}
	} else if (strcmp(a, "--substeps") == 0) {
		if (!parse_int(a, v, 1, 1000, &o->substeps))
			return 0;
	} else if (strcmp(a, "--iterations") == 0) {
		if (!parse_int(a, v, 1, 1000, &o->iterations))
			return 0;
	} else if (strcmp(a, "--set") == 0) {
		if (o->set_count == MAX_SETS) {
			fprintf(stderr, "pbd-sim: at most %d --set options\n", MAX_SETS);
			return 0;
		}
		o->sets[o->set_count++] = v;
	} else if (strcmp(a, "--dump") == 0) {
		o->dump_dir = v;
	} else if (strcmp(a, "--frame-log") == 0) {
		o->frame_log = v;
	} else if (strcmp(a, "--dump-every") == 0) {
		if (!parse_int(a, v, 1, INT_MAX, &o->dump_every))
			return 0;
	} else {
		fprintf(stderr, "pbd-sim: unknown option '%s' (try --help)\n", a);
		return 0;
	}
	if (takes)
		++*i;
	return 1;
}

static int parse_args(int argc, char **argv, sim_options *o)
{
	memset(o, 0, sizeof *o);
	o->dt = 1.0 / 60.0;
	o->dump_every = 1;
	o->common = (demo_flags){.tool = "pbd-sim", .frames = 300, .threads = 1};
	for (int i = 1; i < argc; ++i) {
		demo_flag_result shared = demo_flags_parse(&o->common, argc, argv, &i);
		if (shared == DEMO_FLAG_BAD || (shared == DEMO_FLAG_OTHER && !parse_own_flag(argc, argv, &i, o)))
			return 0;
	}
	demo_flags *f = &o->common;
	if (f->cloth && f->scene) {
		fprintf(stderr, "pbd-sim: give --scene or --cloth, not both\n");
		return 0;
	}
	if (f->cloth)
		f->scene = "mesh";
	if ((f->pins || f->sphere) && !f->cloth) {
		fprintf(stderr, "pbd-sim: --pin and --sphere go with --cloth\n");
		return 0;
	}
	if (!o->list && !f->scene) {
		fprintf(stderr, "pbd-sim: give --scene NAME, --cloth FILE.obj or --list (try --help)\n");
		return 0;
	}
	return 1;
}

static int dump_frame(const sim_options *o, int frame, const pbd_world *w, const demo_scene_state *s)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/frame_%05d.obj", o->dump_dir, frame);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "pbd-sim: cannot write %s: %s\n", path, strerror(errno));
		return 0;
	}
	int bad = demo_write_obj(f, w, s);
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "pbd-sim: error writing %s\n", path);
		return 0;
	}
	return 1;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

typedef struct sim_figures {
	int finite;
	float min_y, max_speed, max_strain;
} sim_figures;

// Over every cloth vertex and free particle.
static sim_figures measure(const pbd_world *w, const demo_scene_state *s)
{
	sim_figures f = {1, INFINITY, 0.0f, pbd_world_get_stats(w).max_stretch_error};
	for (int c = 0; c < s->cloth_count + s->particle_group_count; ++c) {
		int n = 0;
		const float *x, *v;
		if (c < s->cloth_count) {
			x = pbd_cloth_positions(w, s->cloths[c], &n);
			v = pbd_cloth_velocities(w, s->cloths[c], NULL);
		} else {
			x = pbd_particles_positions(w, s->particles[c - s->cloth_count], &n);
			v = pbd_particles_velocities(w, s->particles[c - s->cloth_count], NULL);
		}
		for (int i = 0; x && v && i < n; ++i) {
			for (int k = 0; k < 3; ++k)
				if (!isfinite(x[3 * i + k]) || !isfinite(v[3 * i + k]))
					f.finite = 0;
			f.min_y = fminf(f.min_y, x[3 * i + 1]);
			f.max_speed = fmaxf(f.max_speed, sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] +
							       v[3 * i + 2] * v[3 * i + 2]));
		}
	}
	if (!isfinite(f.min_y))
		f.min_y = 0.0f;  // nothing to measure: JSON has no infinity
	return f;
}

static int run(const sim_options *options, pbd_task_pool *pool);

// --frame-log: a row per frame, to find the frames that cost most and see why (a stall in a
// median that looks fine). The columns are pbd_world_stats of the frame's step.
static void write_frame_log_header(FILE *log)
{
	fprintf(log, "frame,ms,substeps,held,builds,updates,strays,candidate_pairs,candidate_pairs_peak,"
		     "vertex_triangle_contacts,edge_edge_contacts,collider_contacts,ccd_pairs_tested,ccd_hits");
	for (int k = 0; k < PBD_STAGE_COUNT; ++k)
		fprintf(log, ",%s_ms", pbd_stage_name((pbd_stage)k));
	fprintf(log, "\n");
}

static void write_frame_log_row(FILE *log, int frame, const pbd_world_stats *st)
{
	fprintf(log, "%d,%.4f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%lld,%lld", frame, st->step_ms, st->substeps_taken,
		st->substeps_held, st->broad_phase_builds, st->broad_phase_updates, st->broad_phase_strays,
		st->candidate_pairs, st->candidate_pairs_peak, st->vertex_triangle_contacts, st->edge_edge_contacts,
		st->collider_contacts, (long long)st->ccd_pairs_tested, (long long)st->ccd_hits);
	for (int k = 0; k < PBD_STAGE_COUNT; ++k)
		fprintf(log, ",%.4f", st->stage_ms[k]);
	fprintf(log, "\n");
}

int main(int argc, char **argv)
{
	sim_options o;
	if (!parse_args(argc, argv, &o))
		return 2;
	pbd_task_pool *pool = NULL;
	if (o.common.threads > 1 && pbd_task_pool_create(o.common.threads, &pool) != PBD_OK) {
		fprintf(stderr, "pbd-sim: cannot start %d worker threads\n", o.common.threads);
		return 2;
	}
	int status = run(&o, pool);
	pbd_task_pool_destroy(pool);
	return status;
}

static int run(const sim_options *options, pbd_task_pool *pool)
{
	const sim_options o = *options;
	const int frames = (int)o.common.frames;  // at most 1e8 (demo_flags_parse)
	if (o.list) {
		for (int i = 0; i < demo_scene_count(); ++i)
			printf("%s\n", demo_scene_at(i)->name);
		return 0;
	}
	const demo_scene *scene = demo_scene_find(o.common.scene);
	if (!scene) {
		fprintf(stderr, "pbd-sim: unknown scene '%s'; scenes:", o.common.scene);
		for (int i = 0; i < demo_scene_count(); ++i)
			fprintf(stderr, " %s", demo_scene_at(i)->name);
		fprintf(stderr, "\n");
		return 2;
	}
	pbd_world_settings settings = pbd_world_settings_default();
	if (o.substeps)
		settings.substeps = o.substeps;
	if (o.iterations)
		settings.iterations = o.iterations;
	demo_scene_options so = {o.common.res, o.common.cloth, o.common.pins, o.common.sphere};
	pbd_world *world = NULL;
	demo_scene_state state;
	char error[512];
	pbd_world_def wd = pbd_world_def_default();
	wd.settings = settings;
	pbd_world_def_use_task_pool(&wd, pool);
	if (demo_scene_load_def(scene, &so, &wd, &world, &state, error, sizeof error) != PBD_OK) {
		fprintf(stderr, "pbd-sim: %s\n", error);
		return 2;
	}
	if (o.common.material && demo_apply_preset(world, &state, o.common.material, error, sizeof error) != PBD_OK) {
		fprintf(stderr, "pbd-sim: --material: %s\n", error);
		pbd_world_destroy(world);
		return 2;
	}
	pbd_tuning tuning = pbd_tuning_default();
	if (o.common.material)
		pbd_tuning_apply_preset(&tuning, o.common.material);
	if (o.common.params) {
		demo_read_tuning(world, &state, &tuning);
		if (pbd_tuning_load(o.common.params, &tuning, error, sizeof error) != 0 ||
		    demo_apply_tuning(world, &state, &tuning, error, sizeof error) != PBD_OK) {
			fprintf(stderr, "pbd-sim: --params %s\n", error);
			pbd_world_destroy(world);
			return 2;
		}
	}
	for (int i = 0; i < o.set_count; ++i) {
		if (demo_param_apply(world, &state, o.sets[i], error, sizeof error) != PBD_OK) {
			fprintf(stderr, "pbd-sim: --set %s\n", error);
			pbd_world_destroy(world);
			return 2;
		}
	}
	if (o.common.save_params || o.print_c) {
		demo_read_tuning(world, &state, &tuning);
		if (o.common.save_params && pbd_tuning_save(o.common.save_params, &tuning, error, sizeof error) != 0) {
			fprintf(stderr, "pbd-sim: --save-params %s\n", error);
			pbd_world_destroy(world);
			return 1;
		}
		if (o.print_c)
			pbd_tuning_write_c(stdout, &tuning);
	}
	if (o.dump_dir) {
		mkdir(o.dump_dir, 0777);  // may exist already; a real problem shows when writing
		if (!dump_frame(&o, 0, world, &state)) {
			pbd_world_destroy(world);
			return 1;
		}
	}
	FILE *log = NULL;
	if (o.frame_log) {
		log = fopen(o.frame_log, "w");
		if (!log) {
			fprintf(stderr, "pbd-sim: --frame-log %s: %s\n", o.frame_log, strerror(errno));
			pbd_world_destroy(world);
			return 1;
		}
		write_frame_log_header(log);
	}
	double *frame_ms = calloc((size_t)(frames > 0 ? frames : 1), sizeof *frame_ms);
	double phase_ms[PBD_STAGE_COUNT] = {0};
	// pairs_peak: the most candidate pairs in any substep of the run; substeps_most: the most
	// substeps any step took.
	long long ccd_hits_total = 0, builds_total = 0, updates_total = 0, strays_total = 0, pairs_peak = 0, held_total = 0,
		  substeps_total = 0, substeps_most = 0;
	int status = 0;
	for (int frame = 1; frame <= frames; ++frame) {
		pbd_result r = demo_scene_step(scene, world, &state, (float)o.dt);
		if (r != PBD_OK) {
			fprintf(stderr, "pbd-sim: step %d failed: %s\n", frame, pbd_world_last_error(world));
			status = 1;
			break;
		}
		pbd_world_stats st = pbd_world_get_stats(world);
		frame_ms[frame - 1] = st.step_ms;
		for (int k = 0; k < PBD_STAGE_COUNT; ++k)
			phase_ms[k] += st.stage_ms[k];
		ccd_hits_total += st.ccd_hits;
		builds_total += st.broad_phase_builds;
		updates_total += st.broad_phase_updates;
		strays_total += st.broad_phase_strays;
		held_total += st.substeps_held;
		substeps_total += st.substeps_taken;
		substeps_most = st.substeps_taken > substeps_most ? st.substeps_taken : substeps_most;
		pairs_peak = st.candidate_pairs_peak > pairs_peak ? st.candidate_pairs_peak : pairs_peak;
		if (log)
			write_frame_log_row(log, frame, &st);
		if (o.dump_dir && (frame % o.dump_every == 0 || frame == frames) && !dump_frame(&o, frame, world, &state)) {
			status = 1;
			break;
		}
	}
	if (log && fclose(log) != 0) {
		fprintf(stderr, "pbd-sim: --frame-log %s: could not write it\n", o.frame_log);
		status = 1;
	}
	sim_figures fig = measure(world, &state);
	pbd_world_stats st = pbd_world_get_stats(world);
	pbd_world_settings ws = pbd_world_get_settings(world);
	qsort(frame_ms, (size_t)frames, sizeof *frame_ms, compare_doubles);
	double median = frames > 0 ? frame_ms[frames / 2] : 0.0;
	printf("scene %s: %d frames of %.4g s, %d particles, %d triangles, %d constraints, %d x %d\n", scene->name,
	       frames, o.dt, st.particles, st.triangles, st.constraints, ws.substeps, ws.iterations);
	printf("median %.3f ms/frame; lowest y %.4f m; max speed %.3g m/s; max stretch %.2f%%%s\n", median,
	       (double)fig.min_y, (double)fig.max_speed, 100.0 * (double)fig.max_strain, fig.finite ? "" : "; NOT FINITE");
	if (state.message[0])
		printf("mesh %s\n", state.message);
	if (o.json) {
		printf("{\"scene\":\"%s\",\"frames\":%d,\"dt\":%.9g,\"particles\":%d,\"free_particles\":%d,\"triangles\":%d,"
		       "\"constraints\":%d,\"substeps\":%d,\"iterations\":%d,\"ms_per_frame\":%.4f,\"ms_min\":%.4f,\"ms_max\":%.4f,"
		       "\"ms_p99\":%.4f,",
		       scene->name, frames, o.dt, st.particles, st.free_particles, st.triangles, st.constraints,
		       ws.substeps, ws.iterations, median, frames ? frame_ms[0] : 0.0, frames ? frame_ms[frames - 1] : 0.0,
		       frames ? frame_ms[(int)ceil(0.99 * frames) - 1] : 0.0);
		printf("\"phase_ms\":{");
		for (int k = 0; k < PBD_STAGE_COUNT; ++k)
			printf("%s\"%s\":%.4f", k ? "," : "", pbd_stage_name((pbd_stage)k),
			       frames ? phase_ms[k] / frames : 0.0);
		printf("},\"contacts\":{\"collider\":%d,\"collider_triangle\":%d,\"vertex_triangle\":%d,\"edge_edge\":%d,"
		       "\"particle\":%d},"
		       "\"candidate_pairs\":%d,\"candidate_pairs_peak\":%lld,\"substeps_held\":%lld,\"ccd_pairs_tested\":%lld,\"ccd_hits\":%lld,\"ccd_hits_total\":%lld,"
		       "\"broad_phase_builds_per_frame\":%.2f,\"broad_phase_updates_per_frame\":%.2f,"
		       "\"broad_phase_strays_per_frame\":%.1f,\"collider_contacts\":%d,\"max_stretch\":%.6f,\"min_y\":%.6f,\"max_speed\":%.6f,"
		       "\"finite\":%s,\"bytes_peak\":%zu,\"substeps_taken_per_frame\":%.2f,\"substeps_taken_max\":%lld}\n",
		       st.collider_contacts, st.collider_triangle_contacts, st.vertex_triangle_contacts, st.edge_edge_contacts,
		       st.particle_contacts, st.candidate_pairs, pairs_peak, held_total, (long long)st.ccd_pairs_tested, (long long)st.ccd_hits, (long long)ccd_hits_total,
		       frames ? (double)builds_total / frames : 0.0, frames ? (double)updates_total / frames : 0.0,
		       frames ? (double)strays_total / frames : 0.0, st.collider_contacts, (double)fig.max_strain, (double)fig.min_y, (double)fig.max_speed,
		       fig.finite ? "true" : "false", st.bytes_peak, frames ? (double)substeps_total / frames : 0.0, substeps_most);
	}
	free(frame_ms);
	pbd_world_destroy(world);
	return status ? status : (fig.finite ? 0 : 1);
}
