// SPDX-License-Identifier: MIT
// Inside the pairs module (pairs.h): the tracks (tracks.c) and the searches (pair_search.c)
// that pairs.c drives.
#pragma once

#include "../engine/world.h"

// Slack of a track: how far its particle may stray. A track should hold for about
// PBD_TRACK_SUBSTEPS substeps at the particle's last acceleration, with at least
// PBD_TRACK_SLACK_RADII and at most PBD_TRACK_MAX_SLACK_RADII of its radius: small for a
// resting cloth, whose pairs are then only those that nearly touch, larger for a flapping one.
#ifndef PBD_TRACK_SUBSTEPS
#define PBD_TRACK_SUBSTEPS 8
#endif
#ifndef PBD_TRACK_SLACK_RADII
#define PBD_TRACK_SLACK_RADII 0.1f
#endif
#ifndef PBD_TRACK_MAX_SLACK_RADII
#define PBD_TRACK_MAX_SLACK_RADII 0.5f
#endif
// A moving track runs out after PBD_TRACK_SUBSTEPS substeps, or sooner once it has run this
// many particle radii: a pair of tracks is kept if they can meet before the first runs out,
// so its relative speed times that time is what the pair may close in by. A particle that
// would move less than PBD_TRACK_REST_SHARE of its slack in that time gets a track at rest,
// which never runs out.
#ifndef PBD_TRACK_LENGTH_RADII
#define PBD_TRACK_LENGTH_RADII 4.0f
#endif
#ifndef PBD_TRACK_REST_SHARE
#define PBD_TRACK_REST_SHARE 0.5f
#endif
// A particle that leaves its slack again within PBD_TRACK_RESTLESS_SUBSTEPS substeps of
// straying last is restless: its least slack doubles, up to PBD_TRACK_RESTLESS_LEVELS times
// (tracks.c).
#ifndef PBD_TRACK_RESTLESS_SUBSTEPS
#define PBD_TRACK_RESTLESS_SUBSTEPS 32
#endif
#ifndef PBD_TRACK_RESTLESS_LEVELS
#define PBD_TRACK_RESTLESS_LEVELS 1
#endif

// A pair of one cloth that is closer than thickness / PBD_KEPT_REST_SHARE in the rest shape
// keeps PBD_KEPT_REST_SHARE of its rest distance instead of the thickness (pair_search.c).
#define PBD_KEPT_REST_SHARE 0.5

// Triangles per patch (patches.c): small enough that a gently curved cloth still fits one rigid
// motion to a fraction of a millimetre, large enough that a flat cloth's patch pairs are few.
#define PBD_PATCH_TRIANGLES 8

// ---- tracks.c

// Room for the tracks of n particles (contents undefined until set); false when out of memory.
bool pbd_tracks_reserve(pbd_world *w, int n);
// The frame of a full search, from the motion of the substep [t, t + h] that starts now.
void pbd_tracks_set_frame(pbd_world *w, float h);
// A new track for particle i that covers its motion over the substep starting now (its start,
// p, and x too while a moving collider carries its start); marks it with the update serial.
// `strayed`: it left its old track (else a full search renews them all).
void pbd_tracks_set(pbd_world *w, uint32_t i, float h, bool strayed);
// The track points of every particle at the substep's start and end (from, to).
void pbd_tracks_points(pbd_world *w, float h);
// The same for one particle.
void pbd_track_points(pbd_world *w, uint32_t i);
// Lists in pairs.strays the particles that leave their tracks over the substep starting now
// (pbd_tracks_points first); returns how many.
int pbd_tracks_find_strays(pbd_world *w, float h);
// Whether particle i's start is carried by a moving collider (a third point of its motion).
static inline bool pbd_carried(const pbd_world *w, uint32_t i)
{
	return w->carry.count > 0 && w->carry.by[i] >= 0;
}
// The track's frame position at time t.
static inline pbd_v3 pbd_track_at(const pbd_tracks *t, uint32_t i, double when)
{
	return v3_mad(t->at[i], t->vel[i], (float)(when - t->anchor[i]));
}
// The frame's offset at time t.
static inline pbd_v3 pbd_frame_offset(const pbd_tracks *t, double when)
{
	float tau = (float)(when - t->frame_time);
	return v3_add(v3_scale(t->frame_vel, tau), v3_scale(t->frame_acc, 0.5f * tau * tau));
}
// How a spinning frame has turned by time t (the identity when it does not spin).
pbd_quat pbd_frame_turn(const pbd_tracks *t, double when);
// World position at time t of frame point y, with the frame's offset and turn at t.
static inline pbd_v3 pbd_frame_to_world(const pbd_tracks *t, pbd_v3 offset, pbd_quat turn, pbd_v3 y)
{
	if (!t->spin)
		return v3_add(offset, y);
	return v3_add(v3_add(t->pivot, offset), quat_rotate(turn, v3_sub(y, t->pivot)));
}
// Frame position at time t of world point x (the inverse of pbd_frame_to_world).
static inline pbd_v3 pbd_frame_of(const pbd_tracks *t, pbd_v3 offset, pbd_quat turn, pbd_v3 x)
{
	if (!t->spin)
		return v3_sub(x, offset);
	return v3_add(t->pivot, quat_rotate(quat_conj(turn), v3_sub(x, v3_add(t->pivot, offset))));
}
// Where the searches take the particles' positions at this substep's start: their tracks' frame
// positions (`from` differs from them by the frame's offset alone when the frame does not spin).
static inline const pbd_v3 *pbd_tracks_here(const pbd_tracks *t) { return t->spin ? t->here : t->from; }
void pbd_tracks_free(pbd_world *w);

// ---- patches.c

// Cuts the cloths into patches (when the topology changed since the last time).
bool pbd_patches_build(pbd_world *w);
// The angular velocity that best matches velocities v about a centre c (least squares): the
// inverse of inertia (xx, yy, zz, xy, xz, yz of sum(|r|^2 I - r r^T), r = x - c) times the
// angular momentum sum(r x v); 0 when the points are (nearly) on a line.
pbd_v3 pbd_fit_omega(const double inertia[6], const double momentum[3]);
// Each patch's tolerance for passing over rigid pairs of patches (when the patches were cut).
bool pbd_patches_tolerances(pbd_world *w);
void pbd_rest_closest_free(pbd_world *w);
// Fits patch p to a rigid motion of its rest shape, from its particles' tracks at `now` (into
// *fit), or now (into the patch's own fit).
void pbd_patch_fit_at(const pbd_world *w, int p, double now, pbd_patch_fit *fit);
void pbd_patch_fit_now(pbd_world *w, int p);

// Whether no pair of primitives of patches p and q (one cloth's) can be in contact while their
// particles keep to their tracks.
bool pbd_patches_rigid_together(const pbd_world *w, int p, int q);
void pbd_patches_free(pbd_world *w);

// ---- pair_search.c

// Searches every pair anew from the tracks (which must be set), into the pair lists.
bool pbd_pair_search_full(pbd_world *w);
// Marks and lists the patches of the particles in pairs.strays (whose tracks are new,
// stamped with pairs.update_serial); drop removes every pair with a primitive of theirs (a
// vertex, or a triangle or edge with such a corner); strays finds those pairs again and
// appends them.
bool pbd_pair_search_mark(pbd_world *w);
void pbd_pair_search_drop(pbd_world *w);
bool pbd_pair_search_strays(pbd_world *w);
// The pairs of the near pairs' windows that failed their certification and are not listed
// (pbd_near_pending), which it then marks listed; in an update, those of listed windows with a
// primitive that moved. Both append to the lists; false when out of memory or over the limit.
bool pbd_pair_search_near_windows(pbd_world *w);
bool pbd_pair_search_near_moved(pbd_world *w);
// The patches' grid built anew from their boxes now, in the same cells: it holds the same
// patches where they are, without the stale entries the updates left (false: out of memory).
bool pbd_pair_search_regrid(pbd_world *w);
// Joins the chunks' pairs onto the pair lists; false when out of memory or over the limit.
bool pbd_pair_chunks_join(pbd_world *w, int64_t limit);
void pbd_pair_search_trim(pbd_world *w);
void pbd_pair_search_free(pbd_world *w);
