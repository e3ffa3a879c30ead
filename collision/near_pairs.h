// SPDX-License-Identifier: MIT
// Near pairs (collision/near_pairs.c): the pairs of a grid cloth's primitives that lie close
// together in its rest shape are left out of the candidate lists wherever the cloth is shown,
// substep by substep, not to be folding onto itself.
//
// A cloth thicker than its edges (a 1 m sheet of 1 cm at 128 x 128 vertices: 7.9 mm edges) has
// some 80 primitives within twice the thickness of each vertex in its rest shape. Those pairs
// keep half their rest distance (pair_search.c) and stay about their rest distance apart while
// the cloth lies flat or curves gently, yet a search over tracks cannot tell: a curving cloth
// fits no rigid motion, and the tracks' slacks swallow the gap. So the pairs of a grid cloth
// that span at most `reach` grid steps along each axis (every pair of it nearer than twice the
// thickness at rest is one) are left to this module.
//
// Why a cloth that curves cannot bring them together: let F be the deformation gradient of
// each rest triangle (current edges times the inverse of the rest edges, a 3 x 2 matrix), and
// take a rest rectangle of the grid. If every F in it stays within eta of one matrix G (in
// norm), then along any straight rest segment of length r in it the current positions keep
// moving within asin(eta / sigma_min(G)) of G's direction, each step at least sigma (the
// least singular value of the F met) long: the two ends stay at least
// r sigma sqrt(1 - (eta / sigma_min(G))^2) apart. A window certified with that factor above
// the share of its rest distance a pair keeps (one half) holds every pair in it apart. The
// bound is quadratic in the bending, so a window bending by about a right angle still passes;
// creases, squeezing to under half the width and collapsing triangles fail. F is linear in the
// positions, so the bound over a substep's straight motion follows from its two ends.
//
// Each quad of the grid starts one window of reach x reach quads, and each pair belongs to the
// window at its lowest grid corner. Every substep, before the guard, the windows are certified
// from the motion the guard will sweep. In a window that fails, the rectangles of quads from
// its corner (a x b quads, a and b up to the reach) are certified in turn: the rest segment
// between a pair's closest points lies in the rectangle its grid corners span, so the same
// bound over that rectangle holds the pair apart. The pairs of the rectangles that fail are
// listed: found over the tracks as every other pair is, and kept up to date while listed.
#pragma once

#include "core.h"

// Per grid cloth the module covers.
typedef struct pbd_near_body {
	uint32_t slot;             // the body's slot
	int first, nx, ny;         // its first particle; vertices per row and rows
	int tri_first, edge_first; // its first triangle and edge in the topology's lists
	int reach;                 // the grid steps per axis a pair of it spans at most to be near
	int block;                 // quads per side of its search patches (pair_search.c)
	int patch_first;           // its first patch
	int window_first;          // its first window (one per quad)
	int edge_cell_first;       // its first entry of pbd_near.edge_at
	int step_first;            // its first entry of pbd_near.inverse_steps
} pbd_near_body;

typedef struct pbd_near {
	uint32_t version;          // the topology version it was built for (0: none)
	int body_count;
	pbd_near_body *bodies;
	int *body_of_slot;         // per body slot: index into bodies, or -1
	int slot_capacity;
	int particle_count;
	uint16_t *grid_i, *grid_j; // per particle: grid column and row (covered cloths only)
	uint32_t *edge_at;         // per covered cloth, 3 x nx x ny: the topology edge of each grid edge
	int edge_at_count;
	float *inverse_steps;      // per covered cloth: 1 / its rest steps, of its columns then its rows
	int step_count;
	int window_count;          // windows of every covered cloth (one per quad)
	uint8_t *certified;        // per window: shown apart at the last certification
	uint64_t *held;            // per window: its rectangles shown apart at the last certification
	                           // (pbd_near_rectangle; every bit when the window is, and the bits
	                           // of no rectangle always)
	uint64_t *listed;          // per window: the rectangles whose pairs are in the candidate lists
	float *quad_bounds;        // per quad: the bounds of its F and its least singular value
	float *row_bounds;         // scratch: the bounds over `reach` quads of a row
	uint8_t *marks;            // scratch: a byte per quad or window
	int *items;                // scratch: windows a search lists
	int item_count;
	int64_t windows_listed;    // windows listed since creation (stats)
} pbd_near;

// Which cloths it covers, their windows and grids (when the topology changed since it was
// built; all windows uncertified and unlisted); false when out of memory.
bool pbd_near_build(pbd_world *w);
// Whether body `slot` is a covered cloth.
static inline const pbd_near_body *pbd_near_body_of(const pbd_near *n, uint32_t slot)
{
	if ((int)slot >= n->slot_capacity || n->body_of_slot[slot] < 0)
		return NULL;
	return &n->bodies[n->body_of_slot[slot]];
}
// Whether a pair of body b with the given grid columns [ilo, ihi] and rows [jlo, jhi] is the
// module's (spans at most reach steps along each axis).
static inline bool pbd_near_spans(const pbd_near_body *b, int ilo, int ihi, int jlo, int jhi)
{
	return ihi - ilo <= b->reach && jhi - jlo <= b->reach;
}
// Whether the vertex-triangle pair (q, tri) or the edge pair (a, b) of one covered cloth is
// the module's.
bool pbd_near_owns_vt(const pbd_world *w, const pbd_near_body *b, uint32_t q, uint32_t tri);
bool pbd_near_owns_ee(const pbd_world *w, const pbd_near_body *b, uint32_t ea, uint32_t eb);

// Certifies every window from the motion from the starts (pbd_motion_starts) to p; windows
// holding a carried start are not certified. Those that fail and are not listed are pending.
void pbd_near_certify(pbd_world *w);
// Certifies again the windows whose particles the guard stopped (stamped since its run
// began); returns how many it found failing and unlisted (now pending).
int pbd_near_recertify_stopped(pbd_world *w);
// The rectangles of a window that failed and are not listed: their pairs must be found
// (pair_search.c); the search marks them listed. A window with any is pending.
static inline uint64_t pbd_near_wanted(const pbd_near *n, int window) { return ~n->held[window] & ~n->listed[window]; }
bool pbd_near_pending(const pbd_near *n, int window);
// The window a pair with lowest grid corner (ilo, jlo) of body b belongs to.
static inline int pbd_near_window(const pbd_near_body *b, int ilo, int jlo)
{
	int qi = ilo < b->nx - 2 ? ilo : b->nx - 2, qj = jlo < b->ny - 2 ? jlo : b->ny - 2;
	return b->window_first + qj * (b->nx - 1) + qi;
}
// What a search of the module's pairs visits (pair_search.c): vertex-triangle pairs (q, tri)
// and edge pairs (a, b), a < b, of one covered cloth, sharing no particle.
typedef struct pbd_near_visitor {
	void (*vt)(void *context, uint32_t q, uint32_t tri);
	void (*ee)(void *context, uint32_t a, uint32_t b);
	void *context;
} pbd_near_visitor;
// The bit of the rectangle of a x b quads (along i and j) from a window's corner, 1 <= a, b <= 8.
static inline uint64_t pbd_near_rectangle(int a, int b) { return (uint64_t)1 << ((a - 1) * 8 + (b - 1)); }
// Every pair of window `window` in the given rectangles (~0: all of them). A pair is in the
// least rectangle holding its grid corners.
void pbd_near_window_pairs(const pbd_world *w, int window, uint64_t rectangles, const pbd_near_visitor *visit);
// Every pair of a listed rectangle with a primitive that has particle v and moved (a particle
// moved when stamp[i] == serial), each once over all the particles that moved.
void pbd_near_moved_pairs(const pbd_world *w, uint32_t v, const uint32_t *stamp, uint32_t serial,
			  const pbd_near_visitor *visit);
// Whether every window that may own a pair with a carried start (the carry moves starts off
// their straight motion) is listed; marks them failing, so that those that are not are pending.
bool pbd_near_carried_listed(pbd_world *w);
// Unlists the windows whose listed rectangles are all shown apart again, dropping their pairs
// from the lists (once a step: a cloth that crumpled and smoothed out again stops paying for
// its old pairs).
void pbd_near_unlist_certified(pbd_world *w);
// Forgets which windows are listed (the pair lists are rebuilt).
void pbd_near_forget_listed(pbd_near *n);
void pbd_near_free(pbd_world *w);
