// SPDX-License-Identifier: MIT
// The step: substeps of predict, collide, project, update (DESIGN.md, "The step").
//
//   step(dt):  for each of `substeps` substeps of h = dt / substeps
//                predict      v += h (g + f/m); p = x + h v    (kinematic: along their path)
//                collide      particle-collider pairs near the path x -> p
//                project      `iterations` x (stretch, shear, bend, tethers; contacts + friction)
//                update       v = (p - x) / h; x = p
//              finalize       damping, normals, readback buffers, statistics
//
// XPBD multipliers start at zero in every substep (its first pass does not read them), so
// compliance alone sets the stiffness.
#define _POSIX_C_SOURCE 199309L
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "world.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void pbd_parallel_for(pbd_world *w, pbd_task_fn *task, int count, int min_range, void *context)
{
	if (count <= 0)
		return;
	if (!w->enqueue_task || w->worker_count < 2 || count < 2 * min_range) {
		task(0, count, 0, context);
		return;
	}
	void *handle = w->enqueue_task(task, count, min_range, context, w->user_task_context);
	if (handle)
		w->finish_task(handle, w->user_task_context);
}

// Smallest ranges worth a thread: below these the hand-over costs more than the work.
#define PARTICLES_PER_RANGE 256
#define CONSTRAINTS_PER_RANGE 128
// Passes of the final push of cloth triangles off round colliders.
#define COLLIDER_TRIANGLE_PASSES 8

static pbd_pose pose_lerp(pbd_pose a, pbd_pose b, float t)
{
	return (pbd_pose){v3_lerp(a.p, b.p, t), quat_nlerp(a.q, b.q, t)};
}

// Smooth gusts that travel with the wind: a few incommensurate sine waves along and across
// the wind direction, deterministic in position and time. Returns the factor on the wind.
static pbd_v3 gust_wind(const pbd_world_settings *s, pbd_v3 wind, float speed, pbd_v3 at, double time)
{
	if (s->wind_turbulence <= 0.0f || speed <= 0.0f)
		return wind;
	pbd_v3 dir = v3_scale(wind, 1.0f / speed);
	pbd_v3 side = v3_normalize_or(v3_cross(dir, v3(0, 1, 0)), v3(1, 0, 0));
	pbd_v3 up = v3_cross(side, dir);
	float along = v3_dot(at, dir) - speed * (float)time;
	float across = v3_dot(at, side), high = v3_dot(at, up);
	float g1 = 0.6f * sinf(1.3f * along + 0.7f * across) + 0.4f * sinf(3.1f * along - 1.1f * high + 1.7f);
	float g2 = sinf(2.3f * along + 1.9f * across + 0.5f);
	float g3 = sinf(1.7f * along - 2.1f * high + 2.9f);
	float t = s->wind_turbulence;
	pbd_v3 w = v3_scale(wind, 1.0f + t * g1);
	w = v3_mad(w, side, 0.3f * t * speed * g2);
	return v3_mad(w, up, 0.3f * t * speed * g3);
}

typedef struct air_job {
	pbd_world *w;
	const pbd_cloth *c;
	pbd_v3 wind;       // the settings' wind, its speed and half the air density
	float speed;
	float half_rho;
} air_job;

// Aerodynamic force per triangle, shared equally by its corners: a pressure along the normal
// proportional to the squared normal part of the relative air velocity (a plate facing the
// flow), and a lift across the flow for triangles at an angle to it, 0.5 rho C_l A |v| (v.n)
// along the part of n perpendicular to v. Still air (wind = 0) drags on moving cloth.
static pbd_v3 triangle_air_share(const air_job *job, int t)
{
	const pbd_world *w = job->w;
	const pbd_cloth *c = job->c;
	const pbd_world_settings *s = &w->settings;
	pbd_v3 wind = job->wind;
	float speed = job->speed, half_rho = job->half_rho;
	const pbd_v4 *x = w->x + c->first;
	const pbd_v3 *v = w->v + c->first;
	const uint32_t *tri = c->triangles + 3 * t;
	pbd_v3 a = v3_of4(x[tri[0]]), b = v3_of4(x[tri[1]]), d = v3_of4(x[tri[2]]);
	pbd_v3 cross = v3_cross(v3_sub(b, a), v3_sub(d, a));
	float twice_area = v3_len(cross);
	if (twice_area <= 1e-12f)
		return v3(0, 0, 0);
	pbd_v3 n = v3_scale(cross, 1.0f / twice_area);
	pbd_v3 center = v3_scale(v3_add(v3_add(a, b), d), 1.0f / 3.0f);
	pbd_v3 vel = v3_scale(v3_add(v3_add(v[tri[0]], v[tri[1]]), v[tri[2]]), 1.0f / 3.0f);
	pbd_v3 rel = v3_sub(gust_wind(s, wind, speed, center, w->time), vel);
	float rel_len = v3_len(rel);
	if (rel_len <= 1e-6f)
		return v3(0, 0, 0);
	float vn = v3_dot(rel, n), area = 0.5f * twice_area;
	pbd_v3 force = v3_scale(n, half_rho * s->drag_coefficient * area * fabsf(vn) * vn);
	pbd_v3 n_perp = v3_mad(n, rel, -vn / (rel_len * rel_len));
	force = v3_mad(force, n_perp, half_rho * s->lift_coefficient * area * rel_len * vn);
	return v3_scale(force, 1.0f / 3.0f);
}

static void air_share_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const air_job *job = context;
	for (int t = start; t < end; ++t)
		job->c->triangle_scratch[t] = triangle_air_share(job, t);
}

// Each vertex sums its triangles' shares in triangle order. A triangle without a share adds
// +0, which changes no sum (a sum started at +0 never becomes -0).
static void air_gather_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const air_job *job = context;
	const pbd_cloth *c = job->c;
	pbd_v3 *f = job->w->force + c->first;
	for (int i = start; i < end; ++i) {
		pbd_v3 sum = v3(0, 0, 0);
		for (int k = c->vertex_triangle_start[i]; k < c->vertex_triangle_start[i + 1]; ++k)
			sum = v3_add(sum, c->triangle_scratch[c->vertex_triangles[k]]);
		f[i] = sum;
	}
}

static void aerodynamic_forces(pbd_world *w, const pbd_cloth *c)
{
	if (c->triangle_count == 0)
		return;
	pbd_v3 wind = v3_load(w->settings.wind);
	air_job job = {w, c, wind, v3_len(wind), 0.5f * w->settings.air_density};
	pbd_parallel_for(w, air_share_range, c->triangle_count, 512, &job);
	pbd_parallel_for(w, air_gather_range, c->count, 1024, &job);
}

static bool air_is_on(const pbd_world *w)
{
	const pbd_world_settings *s = &w->settings;
	return s->air_density > 0.0f && (s->drag_coefficient > 0.0f || s->lift_coefficient > 0.0f);
}

// Aerodynamic forces are evaluated once per step from the state at its start: air varies
// slowly next to the substep rate, and this is the costliest force by far.
static void air_forces(pbd_world *w)
{
	if (w->particle_count > 0)  // an empty world has no array at all
		memset(w->force, 0, (size_t)w->particle_count * sizeof *w->force);
	for (int s = 0; s < w->cloth_capacity; ++s)
		if (w->cloths[s].live)
			aerodynamic_forces(w, &w->cloths[s]);
}

// Speeds stay within PBD_MAX_SPEED: a vertex pinned or attached far away, or a huge step,
// would otherwise give speeds whose squares (air drag, energy) overflow float.
static inline pbd_v3 limit_speed(pbd_v3 v)
{
	double s2 = v3_dot_d(v, v);
	if (s2 <= (double)PBD_MAX_SPEED * PBD_MAX_SPEED)
		return v;
	return v3_scale(v, (float)(PBD_MAX_SPEED / sqrt(s2)));
}

typedef struct predict_job {
	pbd_world *w;
	bool air;
	float h, t_end;
} predict_job;

static void predict_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const predict_job *job = context;
	pbd_world *w = job->w;
	float h = job->h;
	pbd_v3 g = v3_load(w->settings.gravity);
	pbd_v3 wind = v3_load(w->settings.wind);
	float gust = (1.0f + w->settings.wind_turbulence) * v3_len(wind);
	for (int i = start; i < end; ++i) {
		if (w->pinned[i]) {
			v4_set3(&w->p[i], v3_lerp(w->pin_from[i], w->pin_to[i], job->t_end));
			continue;
		}
		pbd_v3 v = w->v[i];
		if (job->air) {
			// Air can bring a particle to the air's speed but never past it: this keeps the
			// explicit force stable for light cloth in strong wind.
			pbd_v3 dv = v3_scale(w->force[i], h * w->p[i].w);
			float limit = v3_len(v3_sub(wind, v)) + gust, len = v3_len(dv);
			if (len > limit)
				dv = v3_scale(dv, limit / len);
			v = v3_add(v, dv);
		}
		w->v[i] = limit_speed(v3_mad(v, g, h));
		v4_set3(&w->p[i], v3_mad(v3_of4(w->x[i]), w->v[i], h));
	}
}

static void predict(pbd_world *w, bool air, float h, float t_end)
{
	predict_job job = {w, air, h, t_end};
	pbd_parallel_for(w, predict_range, w->particle_count, PARTICLES_PER_RANGE, &job);
}

typedef struct constraint_job {
	pbd_v4 *p;
	pbd_cloth *cloth;
	int first;          // first constraint of the colour
	float inv_h2;
	const float *gravity;
	bool fresh;         // first pass of the substep: the XPBD multipliers are zero
	bool keep;          // another pass follows: keep the multipliers
} constraint_job;

static void distance_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const constraint_job *job = context;
	pbd_distance_solve_range(job->p, &job->cloth->distance, job->first + start, job->first + end, job->inv_h2,
				 job->fresh, job->keep);
}

static void bending_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const constraint_job *job = context;
	pbd_bending_solve_range(job->p, &job->cloth->bending, job->first + start, job->first + end,
				job->cloth->material.bend_compliance, job->inv_h2, job->fresh, job->keep);
}

static void tether_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const constraint_job *job = context;
	const pbd_cloth *c = job->cloth;
	float weight = c->areal_density * v3_len(v3_load(job->gravity));
	pbd_tethers_solve_range(job->p, &c->tethers, start, end, c->material.tether_slack,
				c->material.stretch_compliance * weight);
}

// Colour by colour: constraints of one colour share no particle, so each colour is spread
// over the workers and any split gives the same result.
static void project_colours(pbd_world *w, pbd_task_fn *task, constraint_job *job, int colour_count,
			    const int *colour_start)
{
	for (int k = 0; k < colour_count; ++k) {
		job->first = colour_start[k];
		int count = colour_start[k + 1] - colour_start[k];
		if (k == PBD_OVERFLOW_COLOR)
			task(0, count, 0, job);  // may share particles: one thread, in order
		else
			pbd_parallel_for(w, task, count, CONSTRAINTS_PER_RANGE, job);
	}
}

static void project(pbd_world *w, float inv_h2, int pass, int passes)
{
	for (int s = 0; s < w->cloth_capacity; ++s) {
		pbd_cloth *c = &w->cloths[s];
		if (!c->live)
			continue;
		pbd_v4 *p = w->p + c->first;
		// Tethers first: when moving pins force the cloth to stretch (a twist), the stretch
		// constraints get the last word and the strain spreads instead of piling up at a pin.
		constraint_job job = {p, c, 0, inv_h2, w->settings.gravity, pass == 0, pass + 1 < passes};
		pbd_parallel_for(w, tether_range, c->tethers.count, CONSTRAINTS_PER_RANGE, &job);
		project_colours(w, distance_range, &job, c->distance.color_count, c->distance.color_start);
		project_colours(w, bending_range, &job, c->bending.color_count, c->bending.color_start);
	}
}

// v = (p - x) / h in principle; computed as v_predicted + (p - p_predicted) / h, where
// p_predicted = x + h v is recomputed bit for bit as predict() made it. Far from the origin
// p - x loses most of its digits (at 100 m a float step is 7.6e-6 m, a 0.5% velocity error at
// 600 Hz and 1 m/s); the correction form keeps free flight exact and rounds only what the
// constraints moved.
typedef struct update_job {
	pbd_world *w;
	float h, inv_h;
} update_job;

// Motion within one substep stays within PBD_MAX_SPEED too: contacts and constraints of
// extreme inputs (a thickness of kilometres, thousands of substeps) could otherwise push
// particles ever further, until products of lengths overflow. Each motion x -> p is only
// shortened along itself, before the guard sweeps it.
static void limit_motion_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const update_job *job = context;
	pbd_world *w = job->w;
	float reach = PBD_MAX_SPEED * job->h;
	double reach2 = (double)reach * reach;
	for (int i = start; i < end; ++i) {
		if (w->pinned[i])
			continue;
		pbd_v3 x = v3_of4(w->x[i]), d = v3_sub(v3_of4(w->p[i]), x);
		double d2 = v3_dot_d(d, d);
		if (d2 > reach2)
			v4_set3(&w->p[i], v3_mad(x, d, (float)(reach / sqrt(d2))));
	}
}

static void limit_motion(pbd_world *w, float h)
{
	update_job job = {w, h, 1.0f / h};
	pbd_parallel_for(w, limit_motion_range, w->particle_count, PARTICLES_PER_RANGE, &job);
}

static void update_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const update_job *job = context;
	pbd_world *w = job->w;
	for (int i = start; i < end; ++i) {
		pbd_v3 p = v3_of4(w->p[i]), x = v3_of4(w->x[i]);
		if (w->pinned[i]) {
			w->v[i] = v3_scale(v3_sub(p, x), job->inv_h);
		} else {
			pbd_v3 predicted = v3_mad(x, w->v[i], job->h);
			w->v[i] = v3_mad(w->v[i], v3_sub(p, predicted), job->inv_h);
		}
		w->v[i] = limit_speed(w->v[i]);
		w->x[i] = w->p[i];
	}
}

static void update(pbd_world *w, float h, float inv_h)
{
	update_job job = {w, h, inv_h};
	pbd_parallel_for(w, update_range, w->particle_count, PARTICLES_PER_RANGE, &job);
}

// Solves the symmetric 3x3 system I w = L; false when I is (nearly) singular.
static bool solve_sym3(const double I[6], const double L[3], double out[3])
{
	// I = [a b c; b d e; c e f]
	double a = I[0], b = I[1], c = I[2], d = I[3], e = I[4], f = I[5];
	double A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
	double det = a * A + b * B + c * C;
	double scale = a + d + f;
	if (!(fabs(det) > 1e-9 * scale * scale * scale))
		return false;
	double D = a * f - c * c, E = b * c - a * e, F = a * d - b * b;
	out[0] = (A * L[0] + B * L[1] + C * L[2]) / det;
	out[1] = (B * L[0] + D * L[1] + E * L[2]) / det;
	out[2] = (C * L[0] + E * L[1] + F * L[2]) / det;
	return true;
}

typedef struct damp_job {
	pbd_world *w;
	int first;
	float k;                          // fraction of the deviation removed
	double cm[3], vm[3], omega[3];    // the reference motion
} damp_job;

// Each particle's velocity moves toward the reference motion on its own: threads share them.
static void damp_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const damp_job *job = context;
	pbd_world *w = job->w;
	const double *cm = job->cm, *vm = job->vm, *omega = job->omega;
	float k = job->k;
	for (int i = job->first + start; i < job->first + end; ++i) {
		if (w->x[i].w == 0.0f)
			continue;
		double r[3] = {w->x[i].x - cm[0], w->x[i].y - cm[1], w->x[i].z - cm[2]};
		double ref[3] = {vm[0] + omega[1] * r[2] - omega[2] * r[1], vm[1] + omega[2] * r[0] - omega[0] * r[2],
				 vm[2] + omega[0] * r[1] - omega[1] * r[0]};
		w->v[i].x += k * (float)(ref[0] - w->v[i].x);
		w->v[i].y += k * (float)(ref[1] - w->v[i].y);
		w->v[i].z += k * (float)(ref[2] - w->v[i].z);
	}
}

// Damping acts on velocities relative to a reference motion that no internal force could
// change: the rigid motion (linear and angular) of the cloth's free particles when nothing
// holds it (Mueller et al. 2007, PBD section 3.5), so that deformation dies out at the damping
// rate while momentum stays untouched; and the rigid motion of its held particles when
// something does (a skirt twirled by its waist spins with it undamped, a cape carried along
// is not held back), or their mean velocity when they lie on a line (two pinned corners, a
// held edge), so that swinging about them is damped too.
static void damp(pbd_world *w, pbd_cloth *c, float dt)
{
	float k = 1.0f - expf(-c->material.damping * dt);
	if (k <= 0.0f)
		return;
	double mass = 0.0, free_mass = 0.0, cm[3] = {0, 0, 0}, vm[3] = {0, 0, 0};
	int pins = 0;
	for (int i = c->first; i < c->first + c->count; ++i)
		pins += w->x[i].w == 0.0f;
	if (pins == c->count)
		return;
	bool held = pins > 0;
	// The reference body: the held particles (unit weights) or the free ones (their masses).
	for (int i = c->first; i < c->first + c->count; ++i) {
		float wi = w->x[i].w;
		if (wi > 0.0f)
			free_mass += 1.0 / wi;
		if (held != (wi == 0.0f))
			continue;
		double m = held ? 1.0 : 1.0 / wi;
		mass += m;
		cm[0] += m * w->x[i].x; cm[1] += m * w->x[i].y; cm[2] += m * w->x[i].z;
		vm[0] += m * w->v[i].x; vm[1] += m * w->v[i].y; vm[2] += m * w->v[i].z;
	}
	if (mass <= 0.0 || free_mass <= 0.0)
		return;
	for (int j = 0; j < 3; ++j) {
		cm[j] /= mass;
		vm[j] /= mass;
	}
	double L[3] = {0, 0, 0}, I[6] = {0, 0, 0, 0, 0, 0}, omega[3] = {0, 0, 0};
	for (int i = c->first; i < c->first + c->count; ++i) {
		float wi = w->x[i].w;
		if (held != (wi == 0.0f))
			continue;
		double m = held ? 1.0 : 1.0 / wi;
		double r[3] = {w->x[i].x - cm[0], w->x[i].y - cm[1], w->x[i].z - cm[2]};
		double u[3] = {w->v[i].x - vm[0], w->v[i].y - vm[1], w->v[i].z - vm[2]};
		L[0] += m * (r[1] * u[2] - r[2] * u[1]);
		L[1] += m * (r[2] * u[0] - r[0] * u[2]);
		L[2] += m * (r[0] * u[1] - r[1] * u[0]);
		I[0] += m * (r[1] * r[1] + r[2] * r[2]);
		I[1] -= m * r[0] * r[1];
		I[2] -= m * r[0] * r[2];
		I[3] += m * (r[0] * r[0] + r[2] * r[2]);
		I[4] -= m * r[1] * r[2];
		I[5] += m * (r[0] * r[0] + r[1] * r[1]);
	}
	// Singular for a single particle or particles on a line: no rotation to follow.
	if (!solve_sym3(I, L, omega))
		omega[0] = omega[1] = omega[2] = 0.0;
	damp_job job = {w, c->first, k, {cm[0], cm[1], cm[2]}, {vm[0], vm[1], vm[2]}, {omega[0], omega[1], omega[2]}};
	pbd_parallel_for(w, damp_range, c->count, PARTICLES_PER_RANGE, &job);
}

typedef struct strain_job {
	const pbd_v4 *x;
	const pbd_distance_constraints *distance;
	_Atomic uint32_t worst;  // bits of a non-negative float: they order as the floats do
} strain_job;

static void strain_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	strain_job *job = context;
	float worst = pbd_distance_max_strain_range(job->x, job->distance, PBD_DISTANCE_STRETCH, start, end);
	uint32_t bits;
	memcpy(&bits, &worst, sizeof bits);
	uint32_t seen = atomic_load(&job->worst);
	while (bits > seen && !atomic_compare_exchange_weak(&job->worst, &seen, bits)) {
	}
}

// The largest stretch strain of a cloth, on all threads: a maximum is the same in any order.
static float max_stretch(pbd_world *w, const pbd_cloth *c)
{
	strain_job job = {w->x + c->first, &c->distance, 0};
	pbd_parallel_for(w, strain_range, c->distance.count, 2048, &job);
	uint32_t bits = atomic_load(&job.worst);
	float worst;
	memcpy(&worst, &bits, sizeof worst);
	return worst;
}

static void finalize(pbd_world *w, float dt)
{
	float strain = 0.0f;
	for (int s = 0; s < w->cloth_capacity; ++s) {
		pbd_cloth *c = &w->cloths[s];
		if (!c->live)
			continue;
		damp(w, c, dt);
		pbd_cloth_refresh_outputs(w, c);
		strain = fmaxf(strain, max_stretch(w, c));
	}
	w->stats.max_stretch_error = strain;
	// Kinematic particles have arrived; colliders too.
	for (int i = 0; i < w->particle_count; ++i)
		if (w->pinned[i])
			w->pin_from[i] = w->pin_to[i];
	pbd_attachments_end_step(w);
	for (int i = 0; i < w->collider_capacity; ++i)
		w->colliders[i].pose_start = w->colliders[i].sub_start = w->colliders[i].sub_end = w->colliders[i].pose_end;
}

// Tethers follow whatever holds a cloth at the moment: a cloth whose pins or attachments
// changed gets new ones before the step (a cape hung on an attachment after creation had
// none, and stretched 189% at 64 x 64). Out of memory, it keeps its old ones and asks again.
static void refresh_tethers(pbd_world *w)
{
	for (int s = 0; s < w->cloth_capacity; ++s) {
		pbd_cloth *c = &w->cloths[s];
		if (c->live && c->kind == PBD_BODY_CLOTH && c->holds_changed && c->material.tether_slack >= 0.0f)
			c->holds_changed = !pbd_tethers_rebuild(w, c);
	}
}

// When an allocation failed during the substep (contact lists, guard or carry scratch), some
// pairs may not have been found or swept, and the guard cannot vouch for the motion x -> p;
// nor can it when the pairs it needed were more than settings.max_candidate_pairs. The free
// particles then keep x, where the last substep left them free of crossings; the step goes on
// and says so (in its result for memory, in the stats for the limit). Kinematic particles
// follow their path as always. Returns whether it held them.
static bool hold_if_unchecked(pbd_world *w, int64_t failures_before)
{
	if (w->allocation_failures == failures_before && !w->pairs_over_limit)
		return false;
	for (int i = 0; i < w->particle_count; ++i)
		if (!w->pinned[i])
			w->p[i] = w->x[i];
	return true;
}

// Every PBD_TRIM_STEPS steps, contact memory a transient left behind goes back.
static void trim_contact_memory(pbd_world *w)
{
	if (++w->steps_since_trim < PBD_TRIM_STEPS)
		return;
	w->steps_since_trim = 0;
	pbd_pairs_trim(w);
	pbd_ccd_trim(w);
	pbd_collider_contacts_trim(w);
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
	double stage[PBD_STAGE_COUNT] = {0};
	int substeps = w->settings.substeps, iterations = w->settings.iterations;
	float h = dt / (float)substeps, inv_h = 1.0f / h, inv_h2 = inv_h * inv_h;
	int touching = 0, triangles_touching = 0, vt_touching = 0, ee_touching = 0, pp_touching = 0;
	int64_t ccd_tested = 0, ccd_hits = 0;
	int held_substeps = 0, memory_held_substeps = 0;  // of which memory ran out
	w->stats.broad_phase_builds = 0;
	w->stats.searches_over_limit = 0;
	w->stats.candidate_pairs_peak = 0;  // raised by each pair search
	refresh_tethers(w);
	pbd_pairs_step_begin(w);
	bool air = air_is_on(w);
	if (air) {
		double t = now_ms();
		air_forces(w);
		stage[PBD_STAGE_PREDICT] += now_ms() - t;
	}
	for (int sub = 0; sub < substeps; ++sub) {
		float t0 = (float)sub / (float)substeps, t1 = (float)(sub + 1) / (float)substeps;
		double t = now_ms();
		for (int i = 0; i < w->collider_capacity; ++i) {
			pbd_collider *c = &w->colliders[i];
			if (!c->live)
				continue;
			c->sub_start = pose_lerp(c->pose_start, c->pose_end, t0);
			c->sub_end = pose_lerp(c->pose_start, c->pose_end, t1);
		}
		predict(w, air, h, t1);
		pbd_attachments_substep(w, t1);
		double t2 = now_ms();
		stage[PBD_STAGE_PREDICT] += t2 - t;
		// Out of memory anywhere in the contact search, carry or guard: see hold_if_unchecked.
		int64_t failures = w->allocation_failures;
		if (!pbd_pairs_covered(w, h))
			pbd_pairs_find(w, substeps - sub, h);
		t = now_ms();
		stage[PBD_STAGE_BROAD_PHASE] += t - t2;
		pbd_collider_contacts_find(w);
		t2 = now_ms();
		stage[PBD_STAGE_NARROW_PHASE] += t2 - t;
		pbd_attachments_reset(w);
		for (int it = 0; it < iterations; ++it) {
			t2 = now_ms();
			project(w, inv_h2, it, iterations);  // the first pass starts the multipliers at zero
			pbd_attachments_solve(w, inv_h2);
			t = now_ms();
			stage[PBD_STAGE_CONSTRAINTS] += t - t2;
			vt_touching = pbd_vertex_triangle_solve(w);
			ee_touching = pbd_edge_edge_solve(w);
			pp_touching = pbd_particle_particle_solve(w);
			// Colliders last: they cannot give way, so their contacts have the last word.
			touching = pbd_collider_contacts_solve(w);
			t2 = now_ms();
			stage[PBD_STAGE_CONTACTS] += t2 - t;
		}
		// The projection may have dragged particles that were nowhere near a collider into it
		// (cloth pulled along by a fast collider): look again and push them out once more.
		t = now_ms();
		if (w->collider_capacity > 0) {
			pbd_collider_contacts_find(w);
			// Triangles over a round collider share vertices: pushing one off can pull its
			// neighbour in, so the pushes repeat (a few passes) while some triangle was deep.
			for (int pass = 0; pass < COLLIDER_TRIANGLE_PASSES; ++pass) {
				int deep = pbd_collider_triangles_solve(w, &triangles_touching);
				touching = pbd_collider_contacts_solve(w);
				if (deep == 0)
					break;
			}
		}
		t2 = now_ms();
		stage[PBD_STAGE_CONTACTS] += t2 - t;
		t = t2;
		limit_motion(w, h);
		// Starts a moving collider has swept over are carried with it for the guard.
		bool carried = w->collider_capacity > 0 && pbd_collider_carry_begin(w, substeps - sub, h, &ccd_tested);
		// The projection may have moved a particle out of its region: the guard needs every
		// pair that the final motion x -> p can bring together.
		if (!pbd_pairs_covered(w, h)) {
			pbd_pairs_find(w, substeps - sub, h);
			t2 = now_ms();
			stage[PBD_STAGE_BROAD_PHASE] += t2 - t;
			t = t2;
		}
		ccd_hits += pbd_ccd_guard(w, &ccd_tested);
		if (carried)
			pbd_collider_carry_end(w);
		bool out_of_memory = w->allocation_failures != failures;
		if (hold_if_unchecked(w, failures)) {
			held_substeps++;
			memory_held_substeps += out_of_memory;
		}
		t2 = now_ms();
		stage[PBD_STAGE_CCD] += t2 - t;
		update(w, h, inv_h);
		w->time += h;
		stage[PBD_STAGE_UPDATE] += now_ms() - t2;
	}
	double t = now_ms();
	finalize(w, dt);
	pbd_pairs_step_end(w, dt);
	trim_contact_memory(w);
	stage[PBD_STAGE_FINALIZE] += now_ms() - t;
	w->stats.collider_contacts = touching;
	w->stats.collider_triangle_contacts = triangles_touching;
	w->stats.vertex_triangle_contacts = vt_touching;
	w->stats.edge_edge_contacts = ee_touching;
	w->stats.particle_contacts = pp_touching;
	w->stats.candidate_pairs = pbd_candidate_count(w);
	w->stats.candidate_pairs_peak = maxi(w->stats.candidate_pairs_peak, pbd_candidate_count(w));
	w->stats.vertex_triangle_candidates = w->vt_count;
	w->stats.edge_edge_candidates = w->ee_count;
	w->stats.ccd_pairs_tested = ccd_tested;
	w->stats.ccd_hits = ccd_hits;
	w->stats.substeps_held = held_substeps;
	w->stats.steps++;
	memcpy(w->stats.stage_ms, stage, sizeof stage);
	w->stats.step_ms = now_ms() - t_step;
	if (memory_held_substeps > 0)
		return pbd_fail(w, PBD_ERR_OUT_OF_MEMORY,
				"out of memory for contacts: free particles kept their places in %d of %d substeps",
				memory_held_substeps, substeps);
	return PBD_OK;
}
