// SPDX-License-Identifier: MIT
// Triangle-mesh topology checks shared by the OBJ reader and pbd_cloth_create: repeated
// triangles, consistent winding of each manifold piece, non-manifold edges, boundary loops.
// No allocation here: callers pass a workspace of pbd_mesh_workspace_bytes(), so the reader
// can use malloc and the world its own allocator.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pbd_mesh_topology {
	int faces_reoriented;      // faces turned to agree with the rest of their piece
	int edges_non_manifold;    // edges shared by three or more triangles
	int boundary_loops;        // closed chains of edges with one triangle
	int pieces;                // pieces joined across manifold edges
	int pieces_not_orientable; // pieces with no consistent winding (a Moebius strip), left as they are
} pbd_mesh_topology;

// Bytes of workspace the functions below need for nt triangles over nv vertices; 0 when the
// size would overflow.
size_t pbd_mesh_workspace_bytes(int nt, int nv);

// The first triangle (in order) whose three vertices, in any order, are those of an earlier
// triangle: its index, and the earlier one's in *earlier; -1 when there is none.
int pbd_mesh_find_repeated_triangle(const uint32_t *tri, int nt, void *workspace, int *earlier);

// Orients every orientable piece consistently, turning the fewer faces (on a tie, those that
// disagree with the piece's first face), and counts what it found.
void pbd_mesh_orient(uint32_t *tri, int nt, int nv, void *workspace, pbd_mesh_topology *out);
