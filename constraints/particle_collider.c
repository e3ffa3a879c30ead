// SPDX-License-Identifier: MIT
// Particle against collider shape: C = distance(p, shape) - r >= 0, then friction.
// Generalises the particle-plane constraint of seed 004 (eq. 33.2.2) to any shape with a
// signed distance; the collider is kinematic, so the particle takes the whole correction.
#include "../engine/world.h"

// Moves a point that rides on the collider from its substep-end pose back to its
// substep-start pose: the collider's own displacement at that point over the substep.
static pbd_v3 collider_displacement(const pbd_collider *c, pbd_v3 point)
{
	pbd_v3 local = quat_rotate(quat_conj(c->sub_end.q), v3_sub(point, c->sub_end.p));
	pbd_v3 before = v3_add(quat_rotate(c->sub_start.q, local), c->sub_start.p);
	return v3_sub(point, before);
}

int pbd_collider_contacts_solve(pbd_world *world)
{
	int touching = 0;
	for (int k = 0; k < world->contact_count; ++k) {
		const pbd_collider_contact *ct = &world->contacts[k];
		pbd_v4 *p = &world->p[ct->particle];
		if (p->w == 0.0f)
			continue;
		const pbd_collider *c = &world->colliders[ct->collider];
		pbd_v3 n;
		pbd_v3 pos = v3_of4(*p);
		float depth = ct->radius - pbd_shape_signed_distance(&c->shape, c->sub_end.p, c->sub_end.q, pos, &n);
		if (depth <= 0.0f)
			continue;
		touching++;
		pos = v3_mad(pos, n, depth);
		pbd_v3 moved = v3_sub(pos, v3_of4(world->x[ct->particle]));
		pbd_v3 relative = v3_sub(moved, collider_displacement(c, pos));
		pos = v3_add(pos, pbd_friction_correction(relative, n, depth, ct->static_friction, ct->kinetic_friction));
		v4_set3(p, pos);
	}
	return touching;
}
