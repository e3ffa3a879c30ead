// SPDX-License-Identifier: MIT
// The step: tables of stages run in order with one step context (step.h); the tables at the
// end of this file are the design, and docs/design.md draws it.
//
//   step(dt):  begin            tethers, the pair search's step state, air (once per step)
//              for each of `substeps` substeps of h = dt / substeps:
//                move colliders   poses at the substep's start and end
//                predict          v += h (g + f/m); p = x + h v   (kinematic: along their path)
//                find pairs       new tracks and pairs for particles that left their tracks
//                find collider contacts
//                passes           `iterations` x (constraints; self contacts; collider contacts)
//                limit motion, push off colliders (the limit's pass bounds where the cloths are)
//                carry, find pairs again, guard   no crossing of the motion x -> p lands (the
//                                 guard asks for pairs again while it leaves particles off their tracks)
//                update           v from the motion; x = p
//              finish           damping, normals, readback buffers, statistics
//
// XPBD multipliers start at zero in every substep (its first pass does not read them), so
// compliance alone sets the stiffness.
#define _POSIX_C_SOURCE 199309L
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include "air.h"
#include "damping.h"
#include "step.h"
#include "tear.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// Passes of the final push of cloth triangles off round colliders.
#define COLLIDER_TRIANGLE_PASSES 8

static pbd_pose pose_lerp(pbd_pose a, pbd_pose b, float t)
{
	return (pbd_pose){v3_lerp(a.p, b.p, t), quat_nlerp(a.q, b.q, t)};
}

// Speeds stay within PBD_MAX_SPEED: a vertex pinned or attached far away, or a huge step,
// would otherwise give speeds whose squares (air drag, energy) overflow float.
static inline pbd_v3 limit_speed(pbd_v3 v)
{
	if (v3_len2(v) < 0.5f * PBD_MAX_SPEED * PBD_MAX_SPEED)  // far below, in float: most calls
		return v;
	double s2 = v3_dot_d(v, v);
	if (s2 <= (double)PBD_MAX_SPEED * PBD_MAX_SPEED)
		return v;
	return v3_scale(v, (float)(PBD_MAX_SPEED / sqrt(s2)));
}

typedef struct predict_job {
	pbd_world *w;
	bool air;
	bool measure;  // the cloths' extents for the collider search (collider_contacts.h)
	float h, t_end;
} predict_job;

// A particle pass's range in pieces, each measured for the collider search (when `measure`)
// while it is still in the cache.
static void in_pieces(pbd_world *w, int worker, int start, int end, bool measure,
		      void (*piece)(const void *job, int start, int end), const void *job)
{
	for (int first = start; first < end; first += PBD_EXTENT_PIECE) {
		int stop = mini(end, first + PBD_EXTENT_PIECE);
		piece(job, first, stop);
		if (measure)
			pbd_extents_measure(w, worker, first, stop);
	}
}

// Particles start .. end - 1 of one piece.
static void predict_piece(const void *context, int start, int end)
{
	const predict_job *job = context;
	pbd_world *w = job->w;
	float h = job->h;
	pbd_v3 g = v3_load(w->settings.gravity);
	pbd_v3 wind = v3_load(w->settings.wind);
	float gust = (1.0f + w->settings.wind_turbulence) * v3_len(wind);
	for (int i = start; i < end; ++i) {
		if (w->particles.pinned[i]) {
			v4_set3(&w->particles.p[i],
				v3_lerp(w->particles.pin_from[i], w->particles.pin_to[i], job->t_end));
			continue;
		}
		pbd_v3 v = w->particles.v[i];
		if (job->air) {
			// Air can bring a particle to the air's speed but never past it: this keeps the
			// explicit force stable for light cloth in strong wind.
			pbd_v3 dv = v3_scale(w->particles.force[i], h * w->particles.p[i].w);
			float len2 = v3_len2(dv), rel2 = v3_len2(v3_sub(wind, v));
			// |dv| <= |wind - v| <= limit when the squares say so (a rounded square root,
			// and adding gust >= 0, never reverse an order): the roots only when it may exceed.
			if (len2 > rel2) {
				float limit = sqrtf(rel2) + gust, len = sqrtf(len2);
				if (len > limit)
					dv = v3_scale(dv, limit / len);
			}
			v = v3_add(v, dv);
		}
		w->particles.v[i] = limit_speed(v3_mad(v, g, h));
		v4_set3(&w->particles.p[i], v3_mad(v3_of4(w->particles.x[i]), w->particles.v[i], h));
	}
}

static void predict_range(int start, int end, int worker, void *context)
{
	const predict_job *job = context;
	in_pieces(job->w, worker, start, end, job->measure, predict_piece, job);
}

static void predict(pbd_world *w, bool air, float h, float t_end)
{
	predict_job job = {w, air, pbd_extents_begin(w), h, t_end};
	pbd_parallel_for(w, predict_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
	if (job.measure)
		pbd_extents_finish(w);
}

// A color cut at the particle bands (constraints.h): slice s of `slices` takes the bands
// s * PBD_BANDS / slices onwards, so that the pool's threads, each starting on its own block
// of slices, keep to the same part of the cloth in every color.
typedef struct band_job {
	pbd_task_fn *task;
	pbd_constraint_job *job;
	const int *band_start;  // the color's PBD_BANDS + 1 starts
	int slices;
} band_job;

static void solve_slices(int start, int end, int worker, void *context)
{
	const band_job *b = context;
	int lo = b->band_start[start * PBD_BANDS / b->slices] - b->job->first;
	int hi = b->band_start[end * PBD_BANDS / b->slices] - b->job->first;
	if (hi > lo)
		b->task(lo, hi, worker, b->job);
}

// Slices of a color per worker: a few, so that a thread held up does not hold up the rest
// (as many as the pool's ranges, engine/task_pool.c).
#define SLICES_PER_WORKER 8

// Color by color: constraints of one color share no particle, so each color is spread
// over the workers and any split gives the same result. With several workers the colors go
// as a wave where they can (color_wave.h): the same result without a barrier after each.
static void project_colors(pbd_world *w, pbd_task_fn *task, pbd_constraint_job *job, const pbd_color_layout *colors)
{
	int slices = mini(PBD_BANDS, SLICES_PER_WORKER * w->worker_count);
	int free_colors = mini(colors->count, PBD_OVERFLOW_COLOR);  // all but the overflow color
	int first = pbd_color_wave_solve(w, task, job, colors, free_colors) ? free_colors : 0;
	for (int k = first; k < colors->count; ++k) {
		job->first = colors->start[k];
		int count = colors->start[k + 1] - colors->start[k];
		if (k == PBD_OVERFLOW_COLOR) {
			task(0, count, 0, job);  // may share particles: one thread, in order
		} else if (colors->bands && w->worker_count > 1 && count >= 2 * PBD_CONSTRAINTS_PER_RANGE) {
			band_job bands = {task, job, colors->bands + (size_t)k * (PBD_BANDS + 1), slices};
			pbd_parallel_for(w, solve_slices, slices, 1, &bands);
		} else {
			pbd_parallel_for(w, task, count, PBD_CONSTRAINTS_PER_RANGE, job);
		}
	}
}

// Whether a kind's colors are ranges that run from 0 to its count in order.
static bool colors_cover(int count, int colors, const int *start)
{
	if (!start || start[0] != 0 || start[colors] != count)
		return false;
	for (int k = 0; k < colors; ++k)
		if (start[k] > start[k + 1])
			return false;
	return true;
}

// Each cloth, each kind in the table's order (constraints/kinds.c).
static void project(pbd_world *w, float inv_h2, int pass, int passes)
{
	for (int s = 0; s < w->bodies.capacity; ++s) {
		pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		pbd_constraint_job job = {w->particles.p + c->first, c, 0, inv_h2, w->settings.gravity, pass == 0,
					  pass + 1 < passes};
		for (int k = 0; k < pbd_constraint_kind_count; ++k) {
			const pbd_constraint_kind *kind = pbd_constraint_kinds[k];
			pbd_color_layout colors = kind->colors(c);
			int items = (kind->items ? kind->items : kind->count)(c);
			PBD_ASSERT(colors.count == 0 || colors_cover(items, colors.count, colors.start));
			job.first = 0;
			if (colors.count > 0)
				project_colors(w, kind->solve_range, &job, &colors);
			else
				pbd_parallel_for(w, kind->solve_range, items, PBD_CONSTRAINTS_PER_RANGE, &job);
		}
	}
}

// v = (p - x) / h in principle; computed as v_predicted + (p - p_predicted) / h, where
// p_predicted = x + h v is recomputed bit for bit as predict() made it. Far from the origin
// p - x loses most of its digits (at 100 m a float step is 7.6e-6 m, a 0.5% velocity error at
// 600 Hz and 1 m/s); the correction form keeps free flight exact and rounds only what the
// constraints moved.
// Motion within one substep stays within PBD_MAX_SPEED too: contacts and constraints of
// extreme inputs (a thickness of kilometres, thousands of substeps) could otherwise push
// particles ever further, until products of lengths overflow. Each motion x -> p is only
// shortened along itself, before the guard sweeps it. On the way the pass finds the longest
// motion, which bounds where the cloths are for the collider search that follows
// (pbd_extents_begin_moved).
typedef struct limit_job {
	pbd_world *w;
	float h;
	bool measure;
} limit_job;

// Particle i's motion shortened to `reach` when longer (not pinned ones: they follow their pins).
static void limit_one_motion(pbd_world *w, int i, float reach)
{
	if (w->particles.pinned[i])
		return;
	pbd_v3 x = v3_of4(w->particles.x[i]), d = v3_sub(v3_of4(w->particles.p[i]), x);
	double d2 = v3_dot_d(d, d);
	if (d2 > (double)reach * reach)
		v4_set3(&w->particles.p[i], v3_mad(x, d, (float)(reach / sqrt(d2))));
}

// Returns the longest squared motion of the piece before the limit (INFINITY when one is not
// finite), pinned particles' too. Most motions are far within the limit, which the squares in
// float tell; the others are looked at in double.
static float limit_motion_piece(const limit_job *job, int start, int end)
{
	pbd_world *w = job->w;
	float reach = PBD_MAX_SPEED * job->h, within = 0.5f * reach * reach, longest = 0.0f;
	const pbd_v4 *p = w->particles.p, *x = w->particles.x;
	int i = start;
	bool unordered = false;
#if defined(__SSE2__)
	// Four particles at a time: their motions' squares side by side.
	__m128 most = _mm_setzero_ps(), bad = _mm_setzero_ps(), limit = _mm_set1_ps(within);
	for (; i + 4 <= end; i += 4) {
		__m128 d0 = _mm_sub_ps(_mm_loadu_ps(&p[i].x), _mm_loadu_ps(&x[i].x));
		__m128 d1 = _mm_sub_ps(_mm_loadu_ps(&p[i + 1].x), _mm_loadu_ps(&x[i + 1].x));
		__m128 d2 = _mm_sub_ps(_mm_loadu_ps(&p[i + 2].x), _mm_loadu_ps(&x[i + 2].x));
		__m128 d3 = _mm_sub_ps(_mm_loadu_ps(&p[i + 3].x), _mm_loadu_ps(&x[i + 3].x));
		d0 = _mm_mul_ps(d0, d0), d1 = _mm_mul_ps(d1, d1), d2 = _mm_mul_ps(d2, d2), d3 = _mm_mul_ps(d3, d3);
		_MM_TRANSPOSE4_PS(d0, d1, d2, d3);  // rows: x^2, y^2, z^2 and w^2 of the four
		__m128 len2 = _mm_add_ps(_mm_add_ps(d0, d1), d2);
		most = _mm_max_ps(most, len2);
		bad = _mm_or_ps(bad, _mm_cmpunord_ps(len2, len2));
		int near = _mm_movemask_ps(_mm_cmpnlt_ps(len2, limit));  // not far within (or not finite)
		for (; near; near &= near - 1)
			limit_one_motion(w, i + __builtin_ctz((unsigned)near), reach);
	}
	float m[4];
	_mm_storeu_ps(m, most);
	longest = maxf(maxf(m[0], m[1]), maxf(m[2], m[3]));
	unordered = _mm_movemask_ps(bad) != 0;
#endif
	for (; i < end; ++i) {
		float len2 = v3_len2(v3_sub(v3_of4(p[i]), v3_of4(x[i])));
		unordered |= len2 != len2;
		longest = maxf(longest, len2);
		if (!(len2 < within))
			limit_one_motion(w, i, reach);
	}
	return unordered ? INFINITY : longest;
}

static void limit_motion_range(int start, int end, int worker, void *context)
{
	const limit_job *job = context;
	for (int first = start; first < end; first += PBD_EXTENT_PIECE) {
		int stop = mini(end, first + PBD_EXTENT_PIECE);
		float longest = limit_motion_piece(job, first, stop);
		if (job->measure)
			pbd_extents_moved(job->w, worker, first, stop, longest);
	}
}

static void limit_motion(pbd_world *w, float h, bool measure)
{
	limit_job job = {w, h, measure && pbd_extents_begin_moved(w)};
	pbd_parallel_for(w, limit_motion_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
	if (job.measure)
		pbd_extents_finish_moved(w);
}

typedef struct update_job {
	pbd_world *w;
	float h, inv_h;
} update_job;

static void update_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const update_job *job = context;
	pbd_world *w = job->w;
	for (int i = start; i < end; ++i) {
		pbd_v3 p = v3_of4(w->particles.p[i]), x = v3_of4(w->particles.x[i]);
		if (w->particles.pinned[i]) {
			w->particles.v[i] = v3_scale(v3_sub(p, x), job->inv_h);
		} else {
			pbd_v3 predicted = v3_mad(x, w->particles.v[i], job->h);
			w->particles.v[i] = v3_mad(w->particles.v[i], v3_sub(p, predicted), job->inv_h);
		}
		w->particles.v[i] = limit_speed(w->particles.v[i]);
		w->particles.x[i] = w->particles.p[i];
	}
}

static void update(pbd_world *w, float h, float inv_h)
{
	update_job job = {w, h, inv_h};
	pbd_parallel_for(w, update_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
}

static void finalize(pbd_world *w, float dt)
{
	for (int s = 0; s < w->bodies.capacity; ++s) {
		pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		pbd_damp_body(w, c, dt);
		pbd_body_refresh_outputs(w, c);
	}
	// Kinematic particles have arrived; colliders too.
	for (int i = 0; i < w->particles.count; ++i)
		if (w->particles.pinned[i])
			w->particles.pin_from[i] = w->particles.pin_to[i];
	pbd_attachments_end_step(w);
	for (int i = 0; i < w->colliders.capacity; ++i)
		w->colliders.slots[i].pose_start = w->colliders.slots[i].sub_start = w->colliders.slots[i].sub_end =
			w->colliders.slots[i].pose_end;
}

// Tethers follow whatever holds a cloth at the moment: a cloth whose pins or attachments
// changed gets new ones before the step (a cape hung on an attachment after creation had
// none, and stretched 189% at 64 x 64). Out of memory, it keeps its old ones and asks again.
static void refresh_tethers(pbd_world *w)
{
	for (int s = 0; s < w->bodies.capacity; ++s) {
		pbd_body *c = &w->bodies.slots[s];
		if (!c->live || c->kind != PBD_BODY_CLOTH || !c->holds_changed || c->material.tether_slack < 0.0f)
			continue;
		uint8_t *held = pbd_alloc_array(w, (size_t)c->count, sizeof *held);
		if (held) {
			pbd_attachments_mark_held(w, (uint32_t)s, held);
			c->holds_changed = !pbd_tethers_rebuild(w, c, held);
		}
		pbd_free_array(w, held, (size_t)c->count, sizeof *held);
	}
}

// When an allocation failed during the substep (contact lists, guard or carry scratch), some
// pairs may not have been found or swept, and the guard cannot vouch for the motion x -> p;
// nor can it when the pairs it needed were more than settings.max_candidate_pairs. The free
// particles then keep x, where the last substep left them free of crossings; the step goes on
// and says so (in its result for memory, in the stats for the limit). Kinematic particles
// follow their path as always. Returns whether it held them.
static bool hold_if_unchecked(pbd_world *w, int64_t failures_before, bool unchecked)
{
	if (w->allocation_failures == failures_before && !w->pairs.over_limit && !unchecked)
		return false;
	for (int i = 0; i < w->particles.count; ++i)
		if (!w->particles.pinned[i])
			w->particles.p[i] = w->particles.x[i];
	return true;
}

// Every PBD_TRIM_STEPS steps, contact memory a transient left behind goes back.
static void trim_contact_memory(pbd_world *w)
{
	if (++w->steps_since_trim < PBD_TRIM_STEPS)
		return;
	w->steps_since_trim = 0;
	pbd_pairs_trim(w);
	pbd_guard_trim(w);
	pbd_collider_contacts_trim(w);
}

// ---- The stages. Each takes the world and the step context; solver tables run them in order.

typedef void pbd_stage_fn(pbd_world *w, pbd_step_context *ctx);

typedef struct step_stage {
	pbd_stage timer;  // where its time goes in stats.stage_ms; PBD_STAGE_COUNT: its parts time themselves
	pbd_stage_fn *run;
} step_stage;

static void run_stages(pbd_world *w, pbd_step_context *ctx, const step_stage *stages, int count)
{
	for (int k = 0; k < count; ++k) {
		double t = now_ms();
		stages[k].run(w, ctx);
		if (stages[k].timer != PBD_STAGE_COUNT)
			ctx->stage_ms[stages[k].timer] += now_ms() - t;
	}
}

#define RUN_STAGES(w, ctx, table) run_stages(w, ctx, table, (int)(sizeof table / sizeof table[0]))

static void begin_step(pbd_world *w, pbd_step_context *ctx)
{
	PBD_ASSERT(!w->carry.active);
	w->stats.broad_phase_builds = 0;
	w->stats.broad_phase_updates = 0;
	w->stats.broad_phase_strays = 0;
	w->stats.searches_over_limit = 0;
	w->stats.candidate_pairs_peak = 0;  // raised by each pair search
	refresh_tethers(w);
	pbd_pairs_step_begin(w);
	pbd_guard_forget_stops(w);  // pbd_world_get_contacts lists this step's
	ctx->air = pbd_air_is_on(w);
}

static void apply_air(pbd_world *w, pbd_step_context *ctx)
{
	if (ctx->air)
		pbd_air_forces(w);
}

static void move_colliders(pbd_world *w, pbd_step_context *ctx)
{
	for (int i = 0; i < w->colliders.capacity; ++i) {
		pbd_collider *c = &w->colliders.slots[i];
		if (!c->live)
			continue;
		c->sub_start = pose_lerp(c->pose_start, c->pose_end, ctx->t0);
		c->sub_end = pose_lerp(c->pose_start, c->pose_end, ctx->t1);
	}
}

static void predict_particles(pbd_world *w, pbd_step_context *ctx)
{
	predict(w, ctx->air, ctx->h, ctx->t1);
	pbd_attachments_substep(w, ctx->t1);
}

static void find_pairs(pbd_world *w, pbd_step_context *ctx)
{
	// The triangle and edge lists the pairs index first, when bodies came, went or changed
	// thickness; then the pairs are found again. Out of memory the lists stay stale, the
	// search finds nothing and the substep is held.
	bool changed = w->topology.dirty;
	pbd_topology_update(w);
	pbd_pairs_update(w, ctx->h, changed);
}

// The pairs of a grid cloth near at rest are listed where the motion the guard sweeps may
// bring them together (collision/near_pairs.h); out of memory, the substep is held.
static void certify_near_pairs(pbd_world *w, pbd_step_context *ctx)
{
	PBD_UNUSED(ctx);
	pbd_pairs_certify(w);
}

static void find_collider_contacts(pbd_world *w, pbd_step_context *ctx)
{
	PBD_UNUSED(ctx);
	pbd_collider_contacts_find(w);
}

static void reset_attachments(pbd_world *w, pbd_step_context *ctx)
{
	PBD_UNUSED(ctx);
	pbd_attachments_reset(w);
}

static void project_constraints(pbd_world *w, pbd_step_context *ctx)
{
	project(w, ctx->inv_h2, ctx->pass, ctx->iterations);  // the first pass starts the multipliers at zero
	pbd_attachments_solve(w, ctx->inv_h2);
}

// The solvers of the candidate pairs' contact kinds, in the order each pass runs them (each
// file keeps its thickness on the pair's side and mixes friction as it solves); each returns
// how many touch, the tally the statistics report for its kind.
static int (*const pair_contact_solvers[PBD_PAIR_CONTACT_KINDS])(pbd_world *w) = {
	[PBD_CONTACT_VERTEX_TRIANGLE] = pbd_vertex_triangle_solve,
	[PBD_CONTACT_EDGE_EDGE] = pbd_edge_edge_solve,
	[PBD_CONTACT_PARTICLE] = pbd_particle_particle_solve,
};

static void solve_self_contacts(pbd_world *w, pbd_step_context *ctx)
{
	pbd_pairs_drift(w, ctx->h);  // the pairs still too far apart to touch are skipped
	for (int k = 0; k < PBD_PAIR_CONTACT_KINDS; ++k)
		ctx->pair_contacts[k] = pair_contact_solvers[k](w);
}

static void solve_collider_contacts(pbd_world *w, pbd_step_context *ctx)
{
	ctx->collider_contacts = pbd_collider_contacts_solve(w);
}

// One constraint pass, run `iterations` times per substep. Colliders last: they cannot give
// way, so their contacts have the last word.
static const step_stage pass_stages[] = {
	{PBD_STAGE_CONSTRAINTS, project_constraints},    // stretch, shear, bend, tethers, attachments
	{PBD_STAGE_CONTACTS, solve_self_contacts},       // vertex-triangle, edge-edge, particle
	{PBD_STAGE_CONTACTS, solve_collider_contacts},
};

static void project_passes(pbd_world *w, pbd_step_context *ctx)
{
	for (ctx->pass = 0; ctx->pass < ctx->iterations; ++ctx->pass)
		RUN_STAGES(w, ctx, pass_stages);
}

// Every motion within PBD_MAX_SPEED; the pass bounds where the cloths are for the push below.
static void limit_particle_motion(pbd_world *w, pbd_step_context *ctx)
{
	limit_motion(w, ctx->h, true);
}

// The projection may have dragged particles that were nowhere near a collider into it (cloth
// pulled along by a fast collider): look again and push them out once more. Triangles over a
// round collider share vertices: pushing one off can pull its neighbour in, so the pushes
// repeat (a few passes) while some triangle was deep. A push is as long as the particle was
// deep; the motions it made longer are kept within PBD_MAX_SPEED again.
static void push_off_colliders(pbd_world *w, pbd_step_context *ctx)
{
	if (w->colliders.capacity == 0)
		return;
	pbd_collider_contacts_find(w);
	int deep = 0;
	for (int pass = 0; pass < COLLIDER_TRIANGLE_PASSES; ++pass) {
		deep = pbd_collider_triangles_solve(w, &ctx->collider_triangle_contacts);
		ctx->collider_contacts = pbd_collider_contacts_solve(w);
		if (deep == 0)
			break;
	}
	if (deep > 0)  // some push did not settle: triangles left across a still box's edge stay put
		pbd_box_triangles_hold(w);
	if (ctx->collider_contacts > 0 || ctx->collider_triangle_contacts > 0)
		limit_motion(w, ctx->h, false);
}

// Pair searches the carried starts may ask for in one substep.
#define CARRY_MAX_SEARCHES 3

// Starts a moving collider has swept over are carried with it for the guard. The carried set
// grows until no pair of carried and still particles meets on the way, and the pairs must
// cover the motion x -> carried start as well as the motion to p (the tracks take the
// carried starts in while the carry holds some): when they do not, they are found again.
static void carry_swept_starts(pbd_world *w, pbd_step_context *ctx)
{
	ctx->carried = false;
	if (w->colliders.capacity == 0 || !pbd_collider_carry_seed(w))
		return;
	bool closed = false;
	for (int search = 0; search <= CARRY_MAX_SEARCHES && !closed; ++search) {
		if (!pbd_pairs_hold(w, ctx->h)) {
			if (search == CARRY_MAX_SEARCHES || !pbd_pairs_update(w, ctx->h, false))
				break;
		}
		if (!pbd_collider_carry_close(w, &ctx->ccd_tested))
			break;
		closed = pbd_pairs_hold(w, ctx->h);
	}
	ctx->carried = pbd_collider_carry_finish(w, closed);
}

// Pair searches the guard may ask for in one substep.
#define GUARD_MAX_SEARCHES 4

// The guard stops a particle somewhere on its motion, which can leave it behind its track: the
// pairs were found for particles that keep to their tracks, so those that no longer do get new
// tracks and pairs, and the guard goes over everything again, until every motion keeps to its
// track. When the searches run out, the substep is held.
static void guard_motion(pbd_world *w, pbd_step_context *ctx)
{
	bool checked = false;
	for (int search = 0; search <= GUARD_MAX_SEARCHES; ++search) {
		pbd_pairs_sweep_drift(w);  // the guard skips the pairs whose sweeps stay apart
		ctx->ccd_hits += pbd_guard_run(w, &ctx->ccd_tested);
		pbd_pairs_recertify_stopped(w);  // the near pairs the stops may have brought together
		if (pbd_pairs_hold(w, ctx->h)) {
			checked = true;
			break;
		}
		if (search == GUARD_MAX_SEARCHES || !pbd_pairs_update(w, ctx->h, false))
			break;
	}
	if (ctx->carried)
		pbd_collider_carry_end(w);
	bool out_of_memory = w->allocation_failures != ctx->failures_before;
	if (hold_if_unchecked(w, ctx->failures_before, !checked)) {
		ctx->substeps_held++;
		ctx->substeps_held_for_memory += out_of_memory;
	}
}

static void update_velocities(pbd_world *w, pbd_step_context *ctx)
{
	PBD_ASSERT(!w->carry.active);  // the guard's starts are x again: velocities come from x
	update(w, ctx->h, ctx->inv_h);
	w->time += ctx->h;
}

// ---- The design of a step, as tables run in order.

// Once per step, before the substeps: tethers for what holds each cloth now, the pair
// search's step state, and air from the state at the step's start (air varies slowly next to
// the substep rate, and it is the costliest force by far).
static const step_stage step_begin_stages[] = {
	{PBD_STAGE_COUNT, begin_step},
	{PBD_STAGE_AIR, apply_air},
};

// Once per substep of h = dt / substeps. The order is the design:
//  - colliders and kinematic particles move first, so that contacts see where they will be;
//  - pairs are found again only for particles that left their tracks (collision/pairs.h), and
//    collider contacts are found before the passes that solve them;
//  - the passes project constraints, then self contacts, then collider contacts;
//  - after the passes, every motion is kept below PBD_MAX_SPEED (a pass that also bounds
//    where the cloths are), particles the projection dragged into colliders are pushed off,
//    and the guard sweeps each motion x -> p so that no crossing lands (with the pairs it
//    needs, and starts a moving collider swept carried);
//  - only then do velocities and positions take the motion.
static const step_stage substep_stages[] = {
	{PBD_STAGE_PREDICT, move_colliders},             // poses at the substep's ends
	{PBD_STAGE_PREDICT, predict_particles},          // p = x + h v; kinematic along their path
	{PBD_STAGE_BROAD_PHASE, find_pairs},             // candidate pairs near the motion
	{PBD_STAGE_NARROW_PHASE, find_collider_contacts},
	{PBD_STAGE_CONSTRAINTS, reset_attachments},      // their multipliers start at zero
	{PBD_STAGE_COUNT, project_passes},               // `iterations` x pass_stages
	{PBD_STAGE_CCD, limit_particle_motion},          // and the cloths' extents for the push
	{PBD_STAGE_CONTACTS, push_off_colliders},
	{PBD_STAGE_CCD, carry_swept_starts},
	{PBD_STAGE_BROAD_PHASE, find_pairs},             // again: the passes may have moved particles off their tracks
	{PBD_STAGE_BROAD_PHASE, certify_near_pairs},     // the grid cloths' near pairs over the motion to sweep
	{PBD_STAGE_CCD, guard_motion},                   // no crossing of x -> p lands
	{PBD_STAGE_UPDATE, update_velocities},           // v from the motion; x = p
};

// Once per step, after the substeps: damping, normals and readback buffers, the pair
// search's reuse, and contact memory a transient left behind.
static void tear_cloths(pbd_world *w, pbd_step_context *ctx)
{
	ctx->tear_result = pbd_tear_cloths(w);
}

static void finish_step(pbd_world *w, pbd_step_context *ctx)
{
	finalize(w, ctx->dt);
	pbd_pairs_step_end(w, ctx->dt);
	trim_contact_memory(w);
}

static const step_stage step_end_stages[] = {
	{PBD_STAGE_TEAR, tear_cloths},  // before the readback buffers: they take the new vertices
	{PBD_STAGE_FINALIZE, finish_step},
};

static void record_stats(pbd_world *w, const pbd_step_context *ctx)
{
	w->stats.collider_contacts = ctx->collider_contacts;
	w->stats.collider_triangle_contacts = ctx->collider_triangle_contacts;
	w->stats.vertex_triangle_contacts = ctx->pair_contacts[PBD_CONTACT_VERTEX_TRIANGLE];
	w->stats.edge_edge_contacts = ctx->pair_contacts[PBD_CONTACT_EDGE_EDGE];
	w->stats.particle_contacts = ctx->pair_contacts[PBD_CONTACT_PARTICLE];
	w->stats.candidate_pairs = pbd_candidate_count(w);
	w->stats.candidate_pairs_peak = maxi(w->stats.candidate_pairs_peak, pbd_candidate_count(w));
	w->stats.vertex_triangle_candidates = w->pairs.vt_count;
	w->stats.edge_edge_candidates = w->pairs.ee_count;
	w->stats.ccd_pairs_tested = ctx->ccd_tested;
	w->stats.ccd_hits = ctx->ccd_hits;
	w->stats.substeps_held = ctx->substeps_held;
	w->stats.substeps_taken = ctx->substeps;
	w->stats.steps++;
	memcpy(w->stats.stage_ms, ctx->stage_ms, sizeof ctx->stage_ms);
}

pbd_result pbd_world_step(pbd_world *w, float dt)
{
	if (!w)
		return PBD_ERR_NULL_ARGUMENT;
	if (!isfinite(dt))
		return pbd_fail(w, PBD_ERR_NOT_FINITE, "dt is NaN or infinite");
	if (dt <= 0.0f)
		return pbd_fail(w, PBD_ERR_NON_POSITIVE, "dt must be > 0, got %g", (double)dt);
	double t_step = now_ms();
	pbd_step_context ctx = {.dt = dt, .substeps = pbd_colliders_substeps(w, dt), .iterations = w->settings.iterations};
	ctx.h = dt / (float)ctx.substeps;
	ctx.inv_h = 1.0f / ctx.h;
	ctx.inv_h2 = ctx.inv_h * ctx.inv_h;
	RUN_STAGES(w, &ctx, step_begin_stages);
	for (ctx.substep = 0; ctx.substep < ctx.substeps; ++ctx.substep) {
		ctx.t0 = (float)ctx.substep / (float)ctx.substeps;
		ctx.t1 = (float)(ctx.substep + 1) / (float)ctx.substeps;
		ctx.failures_before = w->allocation_failures;  // out of memory in the substep: see hold_if_unchecked
		RUN_STAGES(w, &ctx, substep_stages);
	}
	RUN_STAGES(w, &ctx, step_end_stages);
	record_stats(w, &ctx);
	w->stats.step_ms = now_ms() - t_step;
	if (ctx.tear_result != PBD_OK)
		return ctx.tear_result;  // its message says which tear memory did not allow
	if (ctx.substeps_held_for_memory > 0)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY,
				"out of memory for contacts: free particles kept their places in %d of %d substeps",
				ctx.substeps_held_for_memory, ctx.substeps);
	return PBD_OK;
}
