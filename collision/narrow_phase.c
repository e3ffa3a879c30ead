// SPDX-License-Identifier: MIT
// Signed distances to collider shapes, in the shape's local frame.
#include <pbd/pbd.h>

#include "collision.h"

static float box_distance(pbd_v3 he, pbd_v3 p, pbd_v3 *n)
{
	pbd_v3 q = v3(fabsf(p.x) - he.x, fabsf(p.y) - he.y, fabsf(p.z) - he.z);
	if (q.x > 0.0f || q.y > 0.0f || q.z > 0.0f) {
		// Outside: distance to the clamped point.
		pbd_v3 c = v3(fmaxf(q.x, 0.0f), fmaxf(q.y, 0.0f), fmaxf(q.z, 0.0f));
		float d = v3_len(c);
		pbd_v3 s = v3(p.x < 0 ? -c.x : c.x, p.y < 0 ? -c.y : c.y, p.z < 0 ? -c.z : c.z);
		*n = v3_scale(s, 1.0f / d);
		return d;
	}
	// Inside: push out through the nearest face.
	if (q.x >= q.y && q.x >= q.z) {
		*n = v3(p.x < 0 ? -1.0f : 1.0f, 0, 0);
		return q.x;
	}
	if (q.y >= q.z) {
		*n = v3(0, p.y < 0 ? -1.0f : 1.0f, 0);
		return q.y;
	}
	*n = v3(0, 0, p.z < 0 ? -1.0f : 1.0f);
	return q.z;
}

static float round_distance(pbd_v3 center, float radius, pbd_v3 p, pbd_v3 *n)
{
	pbd_v3 d = v3_sub(p, center);
	float l = v3_len(d);
	// At the exact centre any direction is right; up keeps cloth on top.
	*n = l > 1e-12f ? v3_scale(d, 1.0f / l) : v3(0, 1, 0);
	return l - radius;
}

float pbd_shape_signed_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point,
				pbd_v3 *normal)
{
	pbd_v3 local = quat_rotate(quat_conj(rotation), v3_sub(point, position));
	pbd_v3 n = v3(0, 1, 0);
	float d;
	switch (shape->type) {
	case PBD_SHAPE_PLANE:
		d = local.y;
		break;
	case PBD_SHAPE_SPHERE:
		d = round_distance(v3(0, 0, 0), shape->radius, local, &n);
		break;
	case PBD_SHAPE_CAPSULE: {
		float y = clampf(local.y, -shape->half_height, shape->half_height);
		d = round_distance(v3(0, y, 0), shape->radius, local, &n);
		break;
	}
	case PBD_SHAPE_BOX:
		d = box_distance(shape->half_extents, local, &n);
		break;
	default:
		d = INFINITY;
		break;
	}
	*normal = quat_rotate(rotation, n);
	return d;
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
