// SPDX-License-Identifier: MIT
// The world-wide triangle and edge lists (in world particle indices) that the contact code
// works on, rebuilt after bodies are created, destroyed or change thickness.
#include "world.h"

static bool reserve(pbd_world *w, uint32_t **a, uint32_t **owner, int *capacity, int need, int arity)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(need, *capacity * 2);
	uint32_t *fa = pbd_alloc_array(w, (size_t)cap * (size_t)arity, sizeof *fa);
	uint32_t *fo = pbd_alloc_array(w, (size_t)cap, sizeof *fo);
	if (!fa || !fo) {
		pbd_free_array(w, fa, (size_t)cap * (size_t)arity, sizeof *fa);
		pbd_free_array(w, fo, (size_t)cap, sizeof *fo);
		return false;
	}
	pbd_free_array(w, *a, (size_t)*capacity * (size_t)arity, sizeof **a);
	pbd_free_array(w, *owner, (size_t)*capacity, sizeof **owner);
	*a = fa;
	*owner = fo;
	*capacity = cap;
	return true;
}

bool pbd_topology_update(pbd_world *w)
{
	if (!w->topology_dirty)
		return true;
	int tris = 0, edges = 0;
	for (int s = 0; s < w->body_capacity; ++s) {
		const pbd_body *c = &w->bodies[s];
		if (!c->live || c->kind != PBD_BODY_CLOTH)
			continue;
		tris += c->triangle_count;
		for (int k = 0; k < c->distance.count; ++k)
			edges += c->distance.kind[k] == PBD_DISTANCE_STRETCH;
	}
	if (!reserve(w, &w->tri, &w->tri_owner, &w->tri_capacity, tris, 3) ||
	    !reserve(w, &w->edge, &w->edge_owner, &w->edge_capacity, edges, 2))
		return false;
	w->tri_count = w->edge_count = 0;
	w->max_radius = 0.0f;
	for (int s = 0; s < w->body_capacity; ++s) {
		const pbd_body *c = &w->bodies[s];
		if (!c->live)
			continue;
		float radius = c->kind == PBD_BODY_CLOTH ? 0.5f * c->material.thickness : c->particle_radius;
		for (int i = c->first; i < c->first + c->count; ++i)
			w->radius[i] = radius;
		w->max_radius = fmaxf(w->max_radius, radius);
		if (c->kind != PBD_BODY_CLOTH)
			continue;
		uint32_t base = (uint32_t)c->first;
		for (int t = 0; t < c->triangle_count; ++t) {
			for (int k = 0; k < 3; ++k)
				w->tri[3 * w->tri_count + k] = base + c->triangles[3 * t + k];
			w->tri_owner[w->tri_count++] = (uint32_t)s;
		}
		// Mesh edges are the stretch constraints (shear diagonals are not edges).
		for (int k = 0; k < c->distance.count; ++k) {
			if (c->distance.kind[k] != PBD_DISTANCE_STRETCH)
				continue;
			w->edge[2 * w->edge_count] = base + c->distance.ij[2 * k];
			w->edge[2 * w->edge_count + 1] = base + c->distance.ij[2 * k + 1];
			w->edge_owner[w->edge_count++] = (uint32_t)s;
		}
	}
	w->topology_dirty = false;
	return true;
}
