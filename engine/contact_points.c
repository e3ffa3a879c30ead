// SPDX-License-Identifier: MIT
// pbd_world_get_contacts: the contact lists of the last substep (candidate pairs, collider
// contacts) and the guard's stops, as points a viewer can draw. Read-only: the closest points
// are found again from the positions the step left.
#include <math.h>
#include <string.h>

#include "world.h"

// Share of the kept distance a touching pair may lie beyond it (it rests there to rounding).
#define TOUCH_SLACK 0.01f

typedef struct point_list {
	pbd_contact_point *out;
	int capacity;
	int count;  // listed so far, also beyond the capacity
} point_list;

static void put3(float dst[3], pbd_d3 v)
{
	dst[0] = (float)v.x, dst[1] = (float)v.y, dst[2] = (float)v.z;
}

static pbd_d3 position(const pbd_world *w, uint32_t i) { return d3_of(v3_of4(w->particles.x[i])); }

// Adds the pair a-b (its normal from b toward a) when the filter takes it.
static void add_pair(point_list *l, pbd_contact_kind kind, pbd_d3 a, pbd_d3 b, float keep, bool touching_only)
{
	pbd_d3 d = d3_sub(a, b);
	double length = sqrt(d3_len2(d));
	if (touching_only && length > (double)keep * (1.0 + TOUCH_SLACK))
		return;
	if (l->count < l->capacity) {
		pbd_contact_point *c = &l->out[l->count];
		c->kind = kind;
		put3(c->a, a);
		put3(c->b, b);
		put3(c->normal, length > 0.0 ? d3_scale(d, 1.0 / length) : d3(0, 0, 0));
		c->distance = (float)length;
		c->keep = keep;
	}
	l->count++;
}

static void list_cloth_pairs(const pbd_world *w, point_list *l, bool touching_only)
{
	int total = w->pairs.vt_count + w->pairs.ee_count;
	for (int n = 0; n < total; ++n) {
		uint32_t ids[4];
		float thickness, clearance;
		int split = pbd_pair_particles(w, (uint32_t)n, ids, &thickness, &clearance);
		pbd_d3 p[4] = {position(w, ids[0]), position(w, ids[1]), position(w, ids[2]), position(w, ids[3])};
		if (split == 1) {
			double bary[3];
			pbd_point_triangle_distance2(p[0], p[1], p[2], p[3], bary);
			pbd_d3 on = d3_add(d3_add(d3_scale(p[1], bary[0]), d3_scale(p[2], bary[1])), d3_scale(p[3], bary[2]));
			add_pair(l, PBD_CONTACT_KIND_VERTEX_TRIANGLE, p[0], on, thickness, touching_only);
		} else {
			double s, t;
			pbd_segment_segment_distance2(p[0], p[1], p[2], p[3], &s, &t);
			pbd_d3 a = d3_mad(p[0], d3_sub(p[1], p[0]), s), b = d3_mad(p[2], d3_sub(p[3], p[2]), t);
			add_pair(l, PBD_CONTACT_KIND_EDGE_EDGE, a, b, thickness, touching_only);
		}
	}
	for (int n = 0; n < w->pairs.pp_count; ++n) {
		const pbd_pp_contact *c = &w->pairs.pp[n];
		add_pair(l, PBD_CONTACT_KIND_PARTICLE, position(w, c->i), position(w, c->j), c->thickness, touching_only);
	}
}

static void list_collider_contacts(const pbd_world *w, point_list *l, bool touching_only)
{
	for (int n = 0; n < w->collider_contacts.count; ++n) {
		const pbd_collider_contact *ct = &w->collider_contacts.items[n];
		const pbd_collider *c = &w->colliders.slots[ct->collider];
		if (!c->live)
			continue;
		pbd_v3 x = v3_of4(w->particles.x[ct->particle]), normal;
		float d = pbd_shape_signed_distance(&c->shape, c->sub_end.p, c->sub_end.q, x, &normal);
		if (touching_only && d > ct->radius * (1.0f + TOUCH_SLACK))
			continue;
		if (l->count < l->capacity) {
			pbd_contact_point *p = &l->out[l->count];
			p->kind = PBD_CONTACT_KIND_COLLIDER;
			memcpy(p->a, &x, sizeof p->a);
			pbd_v3 on = v3_mad(x, normal, -d);
			memcpy(p->b, &on, sizeof p->b);
			memcpy(p->normal, &normal, sizeof p->normal);
			p->distance = d;
			p->keep = ct->radius;
		}
		l->count++;
	}
}

// Triangles resting on a round collider (sphere, capsule) between their vertices: the
// triangle's closest point to the core and the surface point under it. A triangle whose
// closest point is one of its vertices is that vertex's contact, listed above.
static void list_collider_triangles(const pbd_world *w, point_list *l)
{
	for (int k = 0; k < w->colliders.capacity; ++k) {
		const pbd_collider *c = &w->colliders.slots[k];
		if (!c->live || !pbd_collider_is_round(c))
			continue;
		for (int t = 0; t < w->topology.tri_count; ++t) {
			const uint32_t *v = w->topology.tri + 3 * t;
			const pbd_v3 corner[3] = {v3_of4(w->particles.x[v[0]]), v3_of4(w->particles.x[v[1]]),
						  v3_of4(w->particles.x[v[2]])};
			float keep = w->particles.radius[v[0]], reach = c->shape.radius + keep, d;
			double bary[3];
			pbd_v3 n;
			if (!pbd_round_collider_triangle(c, &c->sub_end, corner, reach, bary, &d, &n) ||
			    d > reach + keep * TOUCH_SLACK || bary[0] >= 1.0 || bary[1] >= 1.0 || bary[2] >= 1.0)
				continue;
			if (l->count < l->capacity) {
				pbd_contact_point *p = &l->out[l->count];
				pbd_v3 on = v3_add(v3_add(v3_scale(corner[0], (float)bary[0]), v3_scale(corner[1], (float)bary[1])),
						   v3_scale(corner[2], (float)bary[2]));
				pbd_v3 surface = v3_mad(on, n, c->shape.radius - d);
				p->kind = PBD_CONTACT_KIND_COLLIDER;
				memcpy(p->a, &on, sizeof p->a);
				memcpy(p->b, &surface, sizeof p->b);
				memcpy(p->normal, &n, sizeof p->normal);
				p->distance = d - c->shape.radius;
				p->keep = keep;
			}
			l->count++;
		}
	}
}

static void list_guard_stops(const pbd_world *w, point_list *l)
{
	int n = mini(w->particles.count, w->guard.stopped_capacity);
	for (int i = 0; i < n && w->guard.stopped_count > 0; ++i) {
		if (!w->guard.stopped[i])
			continue;
		if (l->count < l->capacity) {
			pbd_contact_point *p = &l->out[l->count];
			memset(p, 0, sizeof *p);
			p->kind = PBD_CONTACT_KIND_GUARD;
			memcpy(p->a, &w->particles.x[i], sizeof p->a);
			memcpy(p->b, &w->particles.x[i], sizeof p->b);
			p->keep = w->particles.radius[i];
		}
		l->count++;
	}
}

pbd_result pbd_world_get_contacts(const pbd_world *world, pbd_contact_filter filter, pbd_contact_point *out,
				  int capacity, int *out_count)
{
	if (out_count)
		*out_count = 0;
	if (!world)
		return PBD_ERR_NULL_ARGUMENT;
	pbd_world *w = (pbd_world *)world;  // the error message only
	if (!out_count)
		return pbd_fail(w, PBD_ERR_NULL_ARGUMENT, "out_count is NULL");
	if (filter != PBD_CONTACTS_TOUCHING && filter != PBD_CONTACTS_CANDIDATES && filter != PBD_CONTACTS_GUARD_STOPS)
		return pbd_fail(w, PBD_ERR_BAD_SHAPE, "unknown contact filter %d", (int)filter);
	if (capacity < 0 || (!out && capacity > 0))
		return pbd_fail(w, PBD_ERR_BAD_COUNT, capacity < 0 ? "a negative capacity (%d) for contact points"
								     : "room for %d contact points in a NULL buffer",
				capacity);
	point_list l = {out, capacity, 0};
	pbd_result r = PBD_OK;
	if (filter == PBD_CONTACTS_GUARD_STOPS) {
		list_guard_stops(world, &l);
		if (world->guard.stopped_lost)
			r = pbd_fail(w, PBD_ERR_OUT_OF_MEMORY, "out of memory for the record of the guard's stops");
	} else {
		bool touching_only = filter == PBD_CONTACTS_TOUCHING;
		// Pairs name particles and triangles by index: after a change of bodies they are void
		// (and cleared) until the next step finds them again.
		if (!world->topology.dirty)
			list_cloth_pairs(world, &l, touching_only);
		list_collider_contacts(world, &l, touching_only);
		if (!world->topology.dirty)
			list_collider_triangles(world, &l);
	}
	*out_count = l.count;
	return r;
}
