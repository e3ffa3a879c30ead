// SPDX-License-Identifier: MIT
// Particle-particle contact (seed 004, eq. 33.2.3): C = |pi - pj| - (ri + rj) >= 0, shared by
// inverse masses so momentum is kept (between a ball and cloth the cloth's is capped:
// particle_cloth_mass_ratio), then friction on the relative tangential motion.
#include "../engine/world.h"

int pbd_particle_particle_solve(pbd_world *w)
{
	int touching = 0;
	float ratio = w->settings.particle_cloth_mass_ratio;
	for (int k = 0; k < w->pairs.pp_count; ++k) {
		const pbd_pp_contact *c = &w->pairs.pp[k];
		pbd_v4 *a = &w->particles.p[c->i], *b = &w->particles.p[c->j];
		float wa = a->w, wb = b->w;
		if (c->cloth_side == 1)
			wa = pbd_ball_contact_inverse_mass(wa, wb, ratio);
		else if (c->cloth_side == 2)
			wb = pbd_ball_contact_inverse_mass(wb, wa, ratio);
		float wsum = wa + wb;
		if (wsum <= 0.0f)
			continue;
		pbd_v3 d = v3_sub(v3_of4(*a), v3_of4(*b));
		float l2 = v3_len2(d);
		if (l2 >= c->thickness * c->thickness)
			continue;
		float l = sqrtf(l2);
		// Coincident centres: separate along the start offset, or straight up.
		pbd_v3 n = l > 1e-9f
				   ? v3_scale(d, 1.0f / l)
				   : v3_normalize_or(v3_sub(v3_of4(w->particles.x[c->i]), v3_of4(w->particles.x[c->j])),
						     v3(0, 1, 0));
		touching++;
		float depth = c->thickness - l;
		float dl = depth / wsum;
		v4_set3(a, v3_mad(v3_of4(*a), n, wa * dl));
		v4_set3(b, v3_mad(v3_of4(*b), n, -wb * dl));
		pbd_v3 moved = v3_sub(v3_sub(v3_of4(*a), v3_of4(w->particles.x[c->i])),
				      v3_sub(v3_of4(*b), v3_of4(w->particles.x[c->j])));
		pbd_friction_pair mu = pbd_bodies_friction(w, w->particles.owner[c->i], w->particles.owner[c->j]);
		pbd_v3 corr = pbd_friction_correction(moved, n, depth, mu.static_friction, mu.kinetic_friction);
		v4_set3(a, v3_mad(v3_of4(*a), corr, wa / wsum));
		v4_set3(b, v3_mad(v3_of4(*b), corr, -wb / wsum));
	}
	return touching;
}
