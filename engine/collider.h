// SPDX-License-Identifier: MIT
// The collider table (engine/collider.c) and the geometry of colliders (collision/narrow_phase.c).
#pragma once

#include "broad_phase.h"
#include "collision.h"
#include "core.h"

typedef struct pbd_pose {
	pbd_v3 p;
	pbd_quat q;
} pbd_pose;

typedef struct pbd_collider {
	uint32_t generation;
	bool live;
	pbd_shape_query shape;
	pbd_pose pose_start;   // pose at the start of the current step
	pbd_pose pose_end;     // pose the step moves it to
	pbd_pose sub_start;    // poses at the start and end of the current substep
	pbd_pose sub_end;
	float static_friction;
	float kinetic_friction;
	int64_t moved_at;      // the last step (stats.steps) that moved it; INT64_MIN: never
} pbd_collider;

// The table; slots are reused, generations catch stale ids.
typedef struct pbd_colliders {
	pbd_collider *slots;
	int capacity;
	int substeps_last;    // what the last step took (pbd_colliders_substeps)
	int64_t flung_until;  // the latest flung_until of any cloth
} pbd_colliders;

// The substeps a step of dt needs: settings.substeps, or more (up to settings.max_substeps) so
// that no moving collider near a cloth travels more than PBD_COLLIDER_TRAVEL_SHARE of the
// cloth's shortest edge in one substep relative to it, and that a cloth such a collider flung
// about keeps enough while it still races (PBD_FLUNG_STEPS); after a step that took more, at
// least half as many. Remembers the count for the next step.
int pbd_colliders_substeps(pbd_world *world, float dt);
pbd_collider *pbd_collider_lookup(const pbd_world *world, pbd_collider_id id, pbd_result *why);
void pbd_colliders_free(pbd_world *world);
// A finite position and a rotation of non-zero length (normalised into out); `what` names the
// object in the message.
pbd_result pbd_check_pose(pbd_world *w, const float position[3], const float rotation[4], const char *what,
			  pbd_pose *out);

// collision/narrow_phase.c: round colliders. The point of the core (a sphere's centre, a
// capsule's axis) nearest `point` with the collider at `pose`.
pbd_v3 pbd_round_collider_core(const pbd_collider *collider, const pbd_pose *pose, pbd_v3 point);
// Closest point of a triangle to a round collider's core (centre, axis) at `pose`: false
// when the triangle is further than `reach` plus its own size; otherwise its barycentric
// coordinates, the distance to the core and the direction away from it.
bool pbd_round_collider_triangle(const pbd_collider *collider, const pbd_pose *pose, const pbd_v3 corner[3],
				 float reach, double bary[3], float *distance, pbd_v3 *normal);
// The box of a round collider's core (a sphere's centre, a capsule's axis) at a pose, and the
// largest magnitude of its coordinates (for the rounding margin below).
typedef struct pbd_round_core_box {
	pbd_v3 lo, hi;
	float scale;
} pbd_round_core_box;
pbd_round_core_box pbd_round_core_box_at(const pbd_collider *collider, const pbd_pose *pose);
// Whether a triangle's box misses the core's box grown by `reach` (and by more than the
// rounding of either): then every point of the triangle is farther than reach from the core.
// A few comparisons that turn away most of a cloth's triangles before
// pbd_round_collider_triangle looks for the closest point; loops over the triangles take the
// core's box once.
static inline bool pbd_round_core_beyond(const pbd_round_core_box *core, const pbd_v3 p[3], float reach)
{
	float grow = reach + 1e-5f * (reach + core->scale) + 1e-6f;
	return minf(p[0].x, minf(p[1].x, p[2].x)) > core->hi.x + grow || maxf(p[0].x, maxf(p[1].x, p[2].x)) < core->lo.x - grow ||
	       minf(p[0].y, minf(p[1].y, p[2].y)) > core->hi.y + grow || maxf(p[0].y, maxf(p[1].y, p[2].y)) < core->lo.y - grow ||
	       minf(p[0].z, minf(p[1].z, p[2].z)) > core->hi.z + grow || maxf(p[0].z, maxf(p[1].z, p[2].z)) < core->lo.z - grow;
}
bool pbd_collider_is_round(const pbd_collider *collider);
// Whether the collider's pose changes within the substep.
bool pbd_collider_moves(const pbd_collider *collider);
// Whether a point is closer than `margin` to the collider's surface, or inside, at its
// substep-end pose (bound: the shape's bounding radius, a quick rejection).
bool pbd_collider_near_at_end(const pbd_collider *collider, float bound, pbd_v3 point, float margin);
// Whether a triangle comes closer than `reach` to a round collider's core at its substep-end
// pose; `core` is pbd_round_core_box_at(collider, &collider->sub_end), taken once per loop.
bool pbd_round_collider_within_at_end(const pbd_collider *collider, const pbd_round_core_box *core,
				      const pbd_v3 corner[3], float reach);

// collision/narrow_phase.c: a box's features at a pose, for the contacts of cloth triangles and
// edges with its edges and corners (a vertex's own contact sees only the box's faces).
typedef struct pbd_box_features {
	pbd_d3 from[12], to[12];  // the twelve edges
	pbd_v3 out[12];           // each edge's outward direction: between its two faces' normals
	pbd_v3 side[12][2];       // and those normals
	pbd_aabb bounds[12];      // each edge's box
	pbd_aabb all;             // the box's
	pbd_d3 corner[8];
	pbd_v3 corner_out[8];     // each corner's outward direction: among its three faces' normals
	pbd_pose pose;            // the box's pose and half extents
	pbd_v3 half;
} pbd_box_features;
void pbd_box_features_at(const pbd_collider *collider, const pbd_pose *pose, pbd_box_features *out);
// Whether a box (of cloth triangles or edges, already grown by their radius) lies clear of
// every edge and corner of the box: a cloth resting on a table's top, far from its edges, is
// turned away here before the twelve edges are asked. The distance from a point to the edges
// along axis i is at least the distance across the other two axes to the faces' lines.
static inline bool pbd_box_edges_beyond(const pbd_box_features *box, pbd_aabb b)
{
	pbd_v3 centre = v3_scale(v3_add(b.lo, b.hi), 0.5f), size = v3_sub(b.hi, b.lo);
	float radius = 0.5f * v3_len(size);
	pbd_v3 local = quat_rotate(quat_conj(box->pose.q), v3_sub(centre, box->pose.p));
	float dx = fabsf(fabsf(local.x) - box->half.x), dy = fabsf(fabsf(local.y) - box->half.y),
	      dz = fabsf(fabsf(local.z) - box->half.z);
	float nearest2 = minf(dy * dy + dz * dz, minf(dx * dx + dz * dz, dx * dx + dy * dy));
	float clear = 1.001f * radius + 1e-6f;  // and a margin for the rounding of the above
	return nearest2 > clear * clear;
}
// Whether some edge of the box comes closer than `reach` to a triangle (or cuts it).
bool pbd_box_edges_within(const pbd_box_features *box, const pbd_v3 corner[3], float reach);
// Share of a cloth's radius within which a box edge counts as inside the cloth.
#define PBD_BOX_EDGE_SHARE 0.999f
// Whether triangle v (positions `now`) has a box edge inside the cloth while it was clear of
// the edges at `start`: what may be put back at its start.
bool pbd_box_triangle_crossed(const pbd_box_features *box, const pbd_v4 *now, const pbd_v4 *start, const uint32_t v[3],
			      float radius);
