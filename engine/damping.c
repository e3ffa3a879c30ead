// SPDX-License-Identifier: MIT
// Damping: once per step, each cloth's velocities move toward a reference motion that no
// internal force could change, so deformation dies out and momentum stays.
#include "damping.h"
#include "world.h"
#include "step.h"

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
		if (w->particles.x[i].w == 0.0f)
			continue;
		double r[3] = {w->particles.x[i].x - cm[0], w->particles.x[i].y - cm[1], w->particles.x[i].z - cm[2]};
		double ref[3] = {vm[0] + omega[1] * r[2] - omega[2] * r[1], vm[1] + omega[2] * r[0] - omega[0] * r[2],
				 vm[2] + omega[0] * r[1] - omega[1] * r[0]};
		w->particles.v[i].x += k * (float)(ref[0] - w->particles.v[i].x);
		w->particles.v[i].y += k * (float)(ref[1] - w->particles.v[i].y);
		w->particles.v[i].z += k * (float)(ref[2] - w->particles.v[i].z);
	}
}

// Damping acts on velocities relative to a reference motion that no internal force could
// change: the rigid motion (linear and angular) of the cloth's free particles when nothing
// holds it (Mueller et al. 2007, PBD section 3.5), so that deformation dies out at the damping
// rate while momentum stays untouched; and the rigid motion of its held particles when
// something does (a skirt twirled by its waist spins with it undamped, a cape carried along
// is not held back), or their mean velocity when they lie on a line (two pinned corners, a
// held edge), so that swinging about them is damped too.
void pbd_damp_body(pbd_world *w, pbd_body *c, float dt)
{
	float k = 1.0f - expf(-c->material.damping * dt);
	if (k <= 0.0f)
		return;
	double mass = 0.0, free_mass = 0.0, cm[3] = {0, 0, 0}, vm[3] = {0, 0, 0};
	int pins = 0;
	for (int i = c->first; i < c->first + c->count; ++i)
		pins += w->particles.x[i].w == 0.0f;
	if (pins == c->count)
		return;
	bool held = pins > 0;
	// The reference body: the held particles (unit weights) or the free ones (their masses).
	for (int i = c->first; i < c->first + c->count; ++i) {
		float wi = w->particles.x[i].w;
		if (wi > 0.0f)
			free_mass += 1.0 / wi;
		if (held != (wi == 0.0f))
			continue;
		double m = held ? 1.0 : 1.0 / wi;
		mass += m;
		cm[0] += m * w->particles.x[i].x; cm[1] += m * w->particles.x[i].y; cm[2] += m * w->particles.x[i].z;
		vm[0] += m * w->particles.v[i].x; vm[1] += m * w->particles.v[i].y; vm[2] += m * w->particles.v[i].z;
	}
	if (mass <= 0.0 || free_mass <= 0.0)
		return;
	for (int j = 0; j < 3; ++j) {
		cm[j] /= mass;
		vm[j] /= mass;
	}
	double L[3] = {0, 0, 0}, I[6] = {0, 0, 0, 0, 0, 0}, omega[3] = {0, 0, 0};
	for (int i = c->first; i < c->first + c->count; ++i) {
		float wi = w->particles.x[i].w;
		if (held != (wi == 0.0f))
			continue;
		double m = held ? 1.0 : 1.0 / wi;
		double r[3] = {w->particles.x[i].x - cm[0], w->particles.x[i].y - cm[1], w->particles.x[i].z - cm[2]};
		double u[3] = {w->particles.v[i].x - vm[0], w->particles.v[i].y - vm[1], w->particles.v[i].z - vm[2]};
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
	pbd_parallel_for(w, damp_range, c->count, PBD_PARTICLES_PER_RANGE, &job);
}
