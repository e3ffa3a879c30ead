// SPDX-License-Identifier: MIT
// Collision queries: distances to collider shapes.
#pragma once

#include "core.h"

typedef struct pbd_shape_query {
	int type;              // pbd_shape_type
	float radius;
	float half_height;
	pbd_v3 half_extents;
} pbd_shape_query;

// Signed distance from `point` to the surface of a shape at pose (position, rotation);
// negative inside. *normal receives the outward unit normal at the closest surface point.
float pbd_shape_signed_distance(const pbd_shape_query *shape, pbd_v3 position, pbd_quat rotation, pbd_v3 point,
				pbd_v3 *normal);

// Conservative bounding radius of a shape around its position (infinite for planes).
float pbd_shape_bounding_radius(const pbd_shape_query *shape);
