// SPDX-License-Identifier: MIT
// Compliant attachments: an XPBD zero-length spring from each attached vertex to its place
// in the moving frame, C = |p - target|. The target has no mass, so the whole correction
// goes to the vertex: dlambda = (-C - alpha lambda) / (w + alpha), alpha = compliance / h^2.
// A force limit F bounds the multiplier, |lambda| <= F h^2 (the force is lambda / h^2): the
// spring then pulls no harder than F, however far the target has run ahead.
#include "world.h"

void pbd_attachments_reset(pbd_world *w)
{
	for (int s = 0; s < w->attachments.capacity; ++s) {
		pbd_attachment *a = &w->attachments.slots[s];
		if (a->live && a->compliance > 0.0f)
			for (int k = 0; k < a->count; ++k)
				a->lambda[k] = 0.0f;
	}
}

void pbd_attachments_solve(pbd_world *w, float inv_h2)
{
	for (int s = 0; s < w->attachments.capacity; ++s) {
		pbd_attachment *a = &w->attachments.slots[s];
		if (!a->live || a->compliance <= 0.0f)
			continue;
		float alpha = a->compliance * inv_h2;
		float limit = a->max_force > 0.0f ? a->max_force / inv_h2 : INFINITY;
		int first = w->bodies.slots[a->body].first;
		for (int k = 0; k < a->count; ++k) {
			pbd_v4 *p = &w->particles.p[first + (int)a->vertices[k]];
			if (p->w == 0.0f)
				continue;  // pinned by other means
			pbd_v3 target = v3_add(quat_rotate(a->sub_end.q, a->offset[k]), a->sub_end.p);
			pbd_v3 d = v3_sub(v3_of4(*p), target);
			float c = v3_len(d);
			if (c < 1e-9f)
				continue;
			float dl = (-c - alpha * a->lambda[k]) / (p->w + alpha);
			float lambda = clampf(a->lambda[k] + dl, -limit, limit);
			dl = lambda - a->lambda[k];
			a->lambda[k] = lambda;
			v4_set3(p, v3_mad(v3_of4(*p), d, p->w * dl / c));
		}
	}
}
