// SPDX-License-Identifier: MIT
// Collider shapes: signed distances in the shape's local frame, and the closest points of a
// round collider (sphere, capsule) to a triangle, which the collider contacts and the carry
// both ask.
#include "../engine/world.h"

// The distances in the shape's frame. n, when not NULL, receives the outward unit normal; the
// tests that only ask how far pass NULL and skip its division (the functions are inlined, so
// the test on n goes away with it).
static inline float box_distance(pbd_v3 he, pbd_v3 p, pbd_v3 *n)
{
	pbd_v3 q = v3(fabsf(p.x) - he.x, fabsf(p.y) - he.y, fabsf(p.z) - he.z);
	if (q.x > 0.0f || q.y > 0.0f || q.z > 0.0f) {
		// Outside: distance to the clamped point.
		pbd_v3 c = v3(fmaxf(q.x, 0.0f), fmaxf(q.y, 0.0f), fmaxf(q.z, 0.0f));
		float d = v3_len(c);
		if (n) {
			pbd_v3 s = v3(p.x < 0 ? -c.x : c.x, p.y < 0 ? -c.y : c.y, p.z < 0 ? -c.z : c.z);
			*n = v3_scale(s, 1.0f / d);
		}
		return d;
	}
	// Inside: push out through the nearest face.
	if (q.x >= q.y && q.x >= q.z) {
		if (n)
			*n = v3(p.x < 0 ? -1.0f : 1.0f, 0, 0);
		return q.x;
	}
	if (q.y >= q.z) {
		if (n)
			*n = v3(0, p.y < 0 ? -1.0f : 1.0f, 0);
		return q.y;
	}
	if (n)
		*n = v3(0, 0, p.z < 0 ? -1.0f : 1.0f);
	return q.z;
}

static inline float round_distance(pbd_v3 center, float radius, pbd_v3 p, pbd_v3 *n)
{
	pbd_v3 d = v3_sub(p, center);
	float l = v3_len(d);
	// At the exact centre any direction is right; up keeps cloth on top.
	if (n)
		*n = l > 1e-12f ? v3_scale(d, 1.0f / l) : v3(0, 1, 0);
	return l - radius;
}

static inline float local_distance(const pbd_shape_query *shape, pbd_v3 local, pbd_v3 *n)
{
	switch (shape->type) {
	case PBD_SHAPE_PLANE:
		return local.y;
	case PBD_SHAPE_SPHERE:
		return round_distance(v3(0, 0, 0), shape->radius, local, n);
	case PBD_SHAPE_CAPSULE: {
		float y = clampf(local.y, -shape->half_height, shape->half_height);
		return round_distance(v3(0, y, 0), shape->radius, local, n);
	}
	case PBD_SHAPE_BOX:
		return box_distance(shape->half_extents, local, n);
	default:
		return INFINITY;
	}
}

float pbd_shape_signed_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point,
				pbd_v3 *normal)
{
	pbd_v3 local = quat_rotate(quat_conj(rotation), v3_sub(point, position));
	pbd_v3 n = v3(0, 1, 0);
	float d = local_distance(shape, local, &n);
	*normal = quat_rotate(rotation, n);
	return d;
}

float pbd_shape_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point)
{
	return local_distance(shape, quat_rotate(quat_conj(rotation), v3_sub(point, position)), NULL);
}

float pbd_shape_bounding_radius(const pbd_shape_query *shape)
{
	switch (shape->type) {
	case PBD_SHAPE_SPHERE: return shape->radius;
	case PBD_SHAPE_CAPSULE: return shape->radius + shape->half_height;
	case PBD_SHAPE_BOX: return v3_len(shape->half_extents);
	default: return INFINITY;
	}
}

// Closest point of the collider's core (a sphere's centre, a capsule's axis) to `point`,
// with the collider at `pose`.
pbd_v3 pbd_round_collider_core(const pbd_collider *c, const pbd_pose *pose, pbd_v3 point)
{
	if (c->shape.type == PBD_SHAPE_SPHERE)
		return pose->p;
	pbd_v3 axis = quat_rotate(pose->q, v3(0, 1, 0));
	float s = clampf(v3_dot(v3_sub(point, pose->p), axis), -c->shape.half_height, c->shape.half_height);
	return v3_mad(pose->p, axis, s);
}

bool pbd_collider_is_round(const pbd_collider *c)
{
	return c->shape.type == PBD_SHAPE_SPHERE || c->shape.type == PBD_SHAPE_CAPSULE;
}

pbd_round_core_box pbd_round_core_box_at(const pbd_collider *c, const pbd_pose *pose)
{
	pbd_v3 a = pose->p, b = pose->p;  // the ends of the core
	if (c->shape.type == PBD_SHAPE_CAPSULE) {
		pbd_v3 axis = v3_scale(quat_rotate(pose->q, v3(0, 1, 0)), c->shape.half_height);
		a = v3_sub(pose->p, axis), b = v3_add(pose->p, axis);
	}
	float scale = maxf(maxf(fabsf(a.x), fabsf(b.x)), maxf(maxf(fabsf(a.y), fabsf(b.y)), maxf(fabsf(a.z), fabsf(b.z))));
	return (pbd_round_core_box){v3(minf(a.x, b.x), minf(a.y, b.y), minf(a.z, b.z)),
				    v3(maxf(a.x, b.x), maxf(a.y, b.y), maxf(a.z, b.z)), scale};
}

bool pbd_round_collider_triangle(const pbd_collider *c, const pbd_pose *pose, const pbd_v3 corner[3], float reach,
				 double bary[3], float *distance, pbd_v3 *normal)
{
	pbd_v3 a = corner[0], b = corner[1], cc = corner[2];
	pbd_v3 centroid = v3_scale(v3_add(a, v3_add(b, cc)), 1.0f / 3.0f);
	// Every point of the triangle is within `size` of its centroid: one farther than
	// reach + size from the core cannot come within reach (squares, with a margin for their
	// rounding, where most triangles of a cloth are turned away).
	float size2 = maxf(v3_len2(v3_sub(a, centroid)), maxf(v3_len2(v3_sub(b, centroid)), v3_len2(v3_sub(cc, centroid))));
	pbd_v3 core = pbd_round_collider_core(c, pose, centroid);
	float far = reach + sqrtf(size2) * 1.0001f;
	if (v3_len2(v3_sub(centroid, core)) > far * far * 1.0001f)
		return false;
	pbd_d3 closest = d3(0, 0, 0);
	// A sphere's core is its centre: one pass. A capsule's core moves along its axis with the
	// closest point: alternate between the axis and the triangle.
	int passes = c->shape.type == PBD_SHAPE_SPHERE ? 1 : 2;
	for (int pass = 0; pass < passes; ++pass) {
		pbd_point_triangle_distance2(d3_of(core), d3_of(a), d3_of(b), d3_of(cc), bary);
		closest = d3_add(d3_scale(d3_of(a), bary[0]), d3_add(d3_scale(d3_of(b), bary[1]), d3_scale(d3_of(cc), bary[2])));
		core = pbd_round_collider_core(c, pose, v3((float)closest.x, (float)closest.y, (float)closest.z));
	}
	pbd_v3 out = v3_sub(v3((float)closest.x, (float)closest.y, (float)closest.z), core);
	*distance = v3_len(out);
	*normal = *distance > 1e-7f ? v3_scale(out, 1.0f / *distance)
				    : v3_normalize_or(v3_cross(v3_sub(b, a), v3_sub(cc, a)), v3(0, 1, 0));
	return true;
}

// Whether the collider moves within the substep.
bool pbd_collider_moves(const pbd_collider *c)
{
	const pbd_pose *a = &c->sub_start, *b = &c->sub_end;
	return a->p.x != b->p.x || a->p.y != b->p.y || a->p.z != b->p.z || a->q.x != b->q.x || a->q.y != b->q.y ||
	       a->q.z != b->q.z || a->q.w != b->q.w;
}

// Whether a point is closer than `margin` to the collider's surface, or inside, at its
// substep-end pose (bound: the shape's bounding radius, a quick rejection).
bool pbd_collider_near_at_end(const pbd_collider *c, float bound, pbd_v3 point, float margin)
{
	if (bound < INFINITY && v3_len(v3_sub(point, c->sub_end.p)) > bound + margin)
		return false;
	return pbd_shape_distance(&c->shape, c->sub_end.p, c->sub_end.q, point) < margin;
}

// Whether a triangle comes closer than `reach` to a round collider's core at its substep-end
// pose.
bool pbd_round_collider_within_at_end(const pbd_collider *c, const pbd_round_core_box *core, const pbd_v3 corner[3],
				      float reach)
{
	double bary[3];
	float d;
	pbd_v3 n;
	return !pbd_round_core_beyond(core, corner, reach) &&
	       pbd_round_collider_triangle(c, &c->sub_end, corner, reach, bary, &d, &n) && d < reach;
}

// The edges run along each axis at the four sign pairs of the other two half extents; a
// corner's outward direction is its signs, turned, over sqrt 3.
void pbd_box_features_at(const pbd_collider *c, const pbd_pose *pose, pbd_box_features *out)
{
	const pbd_v3 e = c->shape.half_extents;
	const float half[3] = {e.x, e.y, e.z};
	int n = 0;
	out->all = (pbd_aabb){v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)};
	for (int axis = 0; axis < 3; ++axis)
		for (int s1 = -1; s1 <= 1; s1 += 2)
			for (int s2 = -1; s2 <= 1; s2 += 2, ++n) {
				float a[3], b[3];
				int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
				a[axis] = -half[axis], b[axis] = half[axis];
				a[a1] = b[a1] = (float)s1 * half[a1];
				a[a2] = b[a2] = (float)s2 * half[a2];
				pbd_v3 wa = v3_add(quat_rotate(pose->q, v3(a[0], a[1], a[2])), pose->p);
				pbd_v3 wb = v3_add(quat_rotate(pose->q, v3(b[0], b[1], b[2])), pose->p);
				out->from[n] = d3_of(wa), out->to[n] = d3_of(wb);
				float o[3] = {0.0f, 0.0f, 0.0f};
				o[a1] = (float)s1, o[a2] = (float)s2;
				out->out[n] = v3_scale(quat_rotate(pose->q, v3(o[0], o[1], o[2])), 0.70710678f);
				float o1[3] = {0.0f, 0.0f, 0.0f}, o2[3] = {0.0f, 0.0f, 0.0f};
				o1[a1] = (float)s1, o2[a2] = (float)s2;
				out->side[n][0] = quat_rotate(pose->q, v3(o1[0], o1[1], o1[2]));
				out->side[n][1] = quat_rotate(pose->q, v3(o2[0], o2[1], o2[2]));
				pbd_v3 lo = v3(minf(wa.x, wb.x), minf(wa.y, wb.y), minf(wa.z, wb.z));
				pbd_v3 hi = v3(maxf(wa.x, wb.x), maxf(wa.y, wb.y), maxf(wa.z, wb.z));
				out->bounds[n] = (pbd_aabb){lo, hi};
				out->all.lo = v3(minf(out->all.lo.x, lo.x), minf(out->all.lo.y, lo.y), minf(out->all.lo.z, lo.z));
				out->all.hi = v3(maxf(out->all.hi.x, hi.x), maxf(out->all.hi.y, hi.y), maxf(out->all.hi.z, hi.z));
			}
	out->pose = *pose;
	out->half = e;
	for (int k = 0; k < 8; ++k) {
		const pbd_v3 sign = v3(k & 1 ? 1.0f : -1.0f, k & 2 ? 1.0f : -1.0f, k & 4 ? 1.0f : -1.0f);
		out->corner[k] = d3_of(v3_add(quat_rotate(pose->q, v3(sign.x * e.x, sign.y * e.y, sign.z * e.z)), pose->p));
		out->corner_out[k] = v3_scale(quat_rotate(pose->q, sign), 0.57735027f);
	}
}

bool pbd_box_edges_within(const pbd_box_features *box, const pbd_v3 corner[3], float reach)
{
	pbd_aabb tri_box = pbd_points_box(corner, 3, reach);
	if (!pbd_aabb_overlap(box->all, tri_box) || pbd_box_edges_beyond(box, tri_box))
		return false;
	const pbd_d3 t[3] = {d3_of(corner[0]), d3_of(corner[1]), d3_of(corner[2])};
	for (int k = 0; k < 12; ++k) {
		double s, bary[3];
		if (pbd_aabb_overlap(box->bounds[k], tri_box) &&
		    pbd_segment_triangle_distance2(box->from[k], box->to[k], t, &s, bary) < (double)reach * reach)
			return true;
	}
	return false;
}

bool pbd_box_triangle_crossed(const pbd_box_features *box, const pbd_v4 *now, const pbd_v4 *start, const uint32_t v[3],
			      float radius)
{
	const pbd_v3 corner[3] = {v3_of4(now[v[0]]), v3_of4(now[v[1]]), v3_of4(now[v[2]])};
	const pbd_v3 from[3] = {v3_of4(start[v[0]]), v3_of4(start[v[1]]), v3_of4(start[v[2]])};
	float reach = PBD_BOX_EDGE_SHARE * radius;
	return pbd_box_edges_within(box, corner, reach) && !pbd_box_edges_within(box, from, reach);
}
