// SPDX-License-Identifier: MIT
// Candidate particle-collider pairs for one substep.
#include "../engine/world.h"

static bool push_contact(pbd_world *w, pbd_collider_contact ct)
{
	if (w->contact_count == w->contact_capacity) {
		int cap = maxi(256, w->contact_capacity * 2);
		if (!pbd_grow_array(w, (void **)&w->contacts, (size_t)w->contact_capacity, (size_t)cap, sizeof *w->contacts))
			return false;
		w->contact_capacity = cap;
	}
	w->contacts[w->contact_count++] = ct;
	return true;
}

// A pair is kept when the particle's path x -> p comes within its radius plus the length of
// that path of the collider at the end of the substep: the projection may move the particle
// by about that much, and anything further cannot touch within this substep.
bool pbd_collider_contacts_find(pbd_world *w)
{
	w->contact_count = 0;
	for (int ci = 0; ci < w->collider_capacity; ++ci) {
		const pbd_collider *c = &w->colliders[ci];
		if (!c->live)
			continue;
		float bound = pbd_shape_bounding_radius(&c->shape);
		for (int s = 0; s < w->cloth_capacity; ++s) {
			const pbd_cloth *cloth = &w->cloths[s];
			if (!cloth->live)
				continue;
			float mu_s = sqrtf(cloth->material.static_friction * c->static_friction);
			float mu_k = sqrtf(cloth->material.kinetic_friction * c->kinetic_friction);
			for (int i = cloth->first; i < cloth->first + cloth->count; ++i) {
				if (w->p[i].w == 0.0f)
					continue;
				float radius = w->radius[i];
				pbd_v3 p = v3_of4(w->p[i]), x = v3_of4(w->x[i]);
				float travel = v3_len(v3_sub(p, x));
				float reach = radius + travel;
				if (bound < INFINITY && v3_len(v3_sub(p, c->sub_end.p)) > bound + reach + travel)
					continue;
				pbd_v3 n;
				float d = pbd_shape_signed_distance(&c->shape, c->sub_end.p, c->sub_end.q, p, &n);
				if (d > reach)
					continue;
				pbd_collider_contact ct = {(uint32_t)i, (uint32_t)ci, radius, mu_s, mu_k};
				if (!push_contact(w, ct))
					return false;
			}
		}
	}
	return true;
}
