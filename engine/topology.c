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
	if (!w->topology.dirty)
		return true;
	int tris = 0, edges = 0;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (!c->live || c->kind != PBD_BODY_CLOTH)
			continue;
		tris += c->triangle_count;
		for (int k = 0; k < c->distance.count; ++k)
			edges += c->distance.kind[k] == PBD_DISTANCE_STRETCH;
	}
	if (!reserve(w, &w->topology.tri, &w->topology.tri_owner, &w->topology.tri_capacity, tris, 3) ||
	    !reserve(w, &w->topology.edge, &w->topology.edge_owner, &w->topology.edge_capacity, edges, 2))
		return false;
	w->topology.tri_count = w->topology.edge_count = 0;
	w->topology.max_radius = 0.0f;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		const pbd_body *c = &w->bodies.slots[s];
		if (!c->live)
			continue;
		float radius = c->kind == PBD_BODY_CLOTH ? 0.5f * c->material.thickness : c->particle_radius;
		for (int i = c->first; i < c->first + c->count; ++i)
			w->particles.radius[i] = radius;
		w->topology.max_radius = fmaxf(w->topology.max_radius, radius);
		if (c->kind != PBD_BODY_CLOTH)
			continue;
		uint32_t base = (uint32_t)c->first;
		for (int t = 0; t < c->triangle_count; ++t) {
			for (int k = 0; k < 3; ++k)
				w->topology.tri[3 * w->topology.tri_count + k] = base + c->triangles[3 * t + k];
			w->topology.tri_owner[w->topology.tri_count++] = (uint32_t)s;
		}
		// Mesh edges are the stretch constraints (shear diagonals are not edges).
		for (int k = 0; k < c->distance.count; ++k) {
			if (c->distance.kind[k] != PBD_DISTANCE_STRETCH)
				continue;
			w->topology.edge[2 * w->topology.edge_count] = base + c->distance.ij[2 * k];
			w->topology.edge[2 * w->topology.edge_count + 1] = base + c->distance.ij[2 * k + 1];
			w->topology.edge_owner[w->topology.edge_count++] = (uint32_t)s;
		}
	}
	w->topology.dirty = false;
	w->topology.version++;
	return true;
}

void pbd_topology_free(pbd_world *w)
{
	pbd_topology *t = &w->topology;
	pbd_free_array(w, t->tri, (size_t)t->tri_capacity * 3, sizeof *t->tri);
	pbd_free_array(w, t->tri_owner, (size_t)t->tri_capacity, sizeof *t->tri_owner);
	pbd_free_array(w, t->edge, (size_t)t->edge_capacity * 2, sizeof *t->edge);
	pbd_free_array(w, t->edge_owner, (size_t)t->edge_capacity, sizeof *t->edge_owner);
	*t = (pbd_topology){0};
}
