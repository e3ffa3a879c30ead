// SPDX-License-Identifier: MIT
// Attachments (engine/attachment.c): cloth vertices held to frames the game moves.
#pragma once

#include "collider.h"
#include "core.h"

// Cloth vertices held to a frame the game moves (engine/attachment.c). Vertices are named
// by their index in the cloth, so they survive other cloths being removed.
typedef struct pbd_attachment {
	uint32_t generation;
	bool live;
	uint32_t body;             // body slot of the cloth
	uint32_t body_generation;
	int count;
	uint32_t *vertices;        // cloth-local vertex indices
	pbd_v3 *offset;            // each vertex's place in the frame
	float *lambda;             // XPBD multipliers of the springs, reset each substep
	float compliance;          // 0: kinematic
	float max_force;           // N per spring, 0: no limit
	pbd_pose pose_start;       // frame at the start of the step and where the step takes it
	pbd_pose pose_end;
	pbd_pose sub_end;          // frame at the end of the current substep
} pbd_attachment;

// The table; slots are reused, generations catch stale ids.
typedef struct pbd_attachments {
	pbd_attachment *slots;
	int capacity;
} pbd_attachments;

// Frames at the end of the substep ending at t1 (fraction of the step); kinematic vertices
// are placed there. Attachments of a removed body go with it.
void pbd_attachments_substep(pbd_world *world, float t1);
void pbd_attachments_end_step(pbd_world *world);
void pbd_attachments_remove_body(pbd_world *world, uint32_t body);
void pbd_attachments_free(pbd_world *world);
// Sets held[v] = 1 for every vertex (cloth-local) of body slot `body` that an attachment
// holds, exactly or through its spring.
void pbd_attachments_mark_held(const pbd_world *world, uint32_t body, uint8_t *held);
// Whether an exact attachment holds vertex `vertex` (cloth-local) of body slot `body`.
bool pbd_attachment_holds(const pbd_world *world, uint32_t body, uint32_t vertex);
// constraints/attachment_spring.c: the springs of compliant attachments.
void pbd_attachments_solve(pbd_world *world, float inv_h2);
void pbd_attachments_reset(pbd_world *world);
