// SPDX-License-Identifier: MIT
// The world-wide triangle and edge lists that the contact code works on, in world particle
// indices (engine/topology.c), rebuilt after bodies are created, destroyed or change thickness.
#pragma once

#include "core.h"

typedef struct pbd_topology {
	bool dirty;                // bodies changed: rebuild before the next pair search
	uint32_t version;          // counts rebuilds
	uint32_t *tri;             // 3 per triangle
	uint32_t *tri_owner;       // body slot
	int tri_count, tri_capacity;
	uint32_t *edge;            // 2 per edge
	uint32_t *edge_owner;
	int edge_count, edge_capacity;
	float max_radius;          // largest particle radius (a cloth vertex's: half its thickness)
} pbd_topology;

// Rebuilds the lists (and each particle's radius) when dirty; false when out of memory.
bool pbd_topology_update(pbd_world *world);
void pbd_topology_free(pbd_world *world);
