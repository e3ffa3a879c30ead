// SPDX-License-Identifier: MIT
// Tracks (pairs.h): where each particle is expected to be over its next substeps. A track is a
// point moving at a constant velocity in a frame that moves with the free particles' mean
// motion; a particle keeps to it while its motion stays within the track's slack. A cloth that
// falls or flies as one rests in the frame; a part that moves at its own speed (a strip
// falling onto its own pile, a flapping corner) has its own velocity there, so the pairs of
// neighbours that move together stay apart however fast they go. A frame that also turns
// (a twirling skirt) lets a cloth that spins as one rest in it too.
#include <string.h>

#include "pair_search.h"

#define TRACK_ARRAYS(t)                                                                                        \
	(pbd_array_ref[]) {                                                                                    \
		{(void **)&(t)->at, sizeof *(t)->at}, {(void **)&(t)->vel, sizeof *(t)->vel},                  \
		{(void **)&(t)->anchor, sizeof *(t)->anchor}, {(void **)&(t)->expiry, sizeof *(t)->expiry},    \
		{(void **)&(t)->slack, sizeof *(t)->slack}, {(void **)&(t)->from, sizeof *(t)->from},          \
		{(void **)&(t)->to, sizeof *(t)->to}, {(void **)&(t)->drift, sizeof *(t)->drift},              \
		{(void **)&(t)->stamp, sizeof *(t)->stamp}, {(void **)&(t)->straying, sizeof *(t)->straying},  \
		{(void **)&(t)->v_last, sizeof *(t)->v_last}, {(void **)&(t)->accel, sizeof *(t)->accel},      \
		{(void **)&(t)->strayed_at, sizeof *(t)->strayed_at},                                          \
		{(void **)&(t)->strayed_from, sizeof *(t)->strayed_from},                                      \
		{(void **)&(t)->restless, sizeof *(t)->restless},                                              \
		{(void **)&(t)->here, sizeof *(t)->here}, {(void **)&(t)->bend, sizeof *(t)->bend},            \
		{(void **)&(t)->moved, sizeof *(t)->moved},                                                    \
		{(void **)&(t)->moved_stamp, sizeof *(t)->moved_stamp},                                        \
	}
#define TRACK_ARRAY_COUNT 19

bool pbd_tracks_reserve(pbd_world *w, int n)
{
	pbd_tracks *t = &w->pairs.tracks;
	if (n <= t->capacity)
		return true;
	t->v_last_time = NAN;  // the arrays are new
	t->moved_serial = 0;   // and their stamps 0
	return pbd_reserve_scratch_arrays(w, TRACK_ARRAYS(t), TRACK_ARRAY_COUNT, &t->capacity, n);
}

void pbd_tracks_free(pbd_world *w)
{
	pbd_tracks *t = &w->pairs.tracks;
	pbd_free_arrays(w, TRACK_ARRAYS(t), TRACK_ARRAY_COUNT, (size_t)t->capacity);
	t->capacity = 0;
}

// Where particle i's motion of this substep starts: x, or the start a moving collider carries.
static pbd_v3 start_of(const pbd_world *w, uint32_t i)
{
	return v3_of4(pbd_carried(w, i) ? w->carry.to[i] : pbd_motion_starts(w)[i]);
}

pbd_quat pbd_frame_turn(const pbd_tracks *t, double when)
{
	if (!t->spin)
		return (pbd_quat){0.0f, 0.0f, 0.0f, 1.0f};
	double half = 0.5 * (double)t->spin_rate * (when - t->frame_time), s = sin(half);
	return (pbd_quat){(float)(t->spin_axis.x * s), (float)(t->spin_axis.y * s), (float)(t->spin_axis.z * s),
			  (float)cos(half)};
}

// The frame spins when the free particles turn together fast enough that tracks in a frame
// that only moves would run out before PBD_TRACK_SUBSTEPS substeps (the farthest one would run
// PBD_TRACK_LENGTH_RADII radii in that time on the turn alone), and when the turn explains at
// least SPIN_SHARE of their motion about its mean (a cloth that sways, flaps or folds does not
// spin as one). A turn of more than SPIN_MAX_STEP radians a substep is not taken: the bend of a
// track's world path over a substep (tracks_bend) grows with its square.
#define SPIN_SHARE 0.75
#define SPIN_MAX_STEP 0.05

// The turn that best fits the motion x -> p of the free particles over the substep [t, t + h]
// about their mean start (least squares, as a rigid body's angular velocity), into the frame
// when it is worth taking.
static void fit_spin(pbd_world *w, float h, pbd_v3 mean_velocity)
{
	pbd_tracks *t = &w->pairs.tracks;
	t->spin = false;
	double centre[3] = {0, 0, 0};
	int n = 0;
	float radius = 0.0f;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		pbd_v3 s = start_of(w, (uint32_t)i);
		centre[0] += s.x, centre[1] += s.y, centre[2] += s.z;
		radius = maxf(radius, w->particles.radius[i]);
		n++;
	}
	if (n < 3)
		return;
	pbd_v3 pivot = v3((float)(centre[0] / n), (float)(centre[1] / n), (float)(centre[2] / n));
	double inertia[6] = {0, 0, 0, 0, 0, 0}, momentum[3] = {0, 0, 0}, energy = 0.0, reach = 0.0;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		pbd_v3 s = start_of(w, (uint32_t)i);
		pbd_v3 r = v3_sub(s, pivot);
		pbd_v3 u = v3_sub(v3_scale(v3_sub(v3_of4(w->particles.p[i]), s), 1.0f / h), mean_velocity);
		pbd_v3 l = v3_cross(r, u);
		double r2 = v3_dot_d(r, r);
		inertia[0] += r2 - (double)r.x * r.x, inertia[1] += r2 - (double)r.y * r.y, inertia[2] += r2 - (double)r.z * r.z;
		inertia[3] -= (double)r.x * r.y, inertia[4] -= (double)r.x * r.z, inertia[5] -= (double)r.y * r.z;
		momentum[0] += l.x, momentum[1] += l.y, momentum[2] += l.z;
		energy += v3_dot_d(u, u);
		reach = fmax(reach, r2);
	}
	pbd_v3 omega = pbd_fit_omega(inertia, momentum);
	double rate = sqrt(v3_dot_d(omega, omega));
	double explained = (double)omega.x * momentum[0] + (double)omega.y * momentum[1] + (double)omega.z * momentum[2];
	double span = PBD_TRACK_SUBSTEPS * (double)h;
	if (!(rate > 0.0) || !isfinite(rate) || !v3_is_finite(pivot) || !(explained >= SPIN_SHARE * energy) ||
	    !(rate * sqrt(reach) * span > PBD_TRACK_LENGTH_RADII * (double)radius) || !(rate * h <= SPIN_MAX_STEP))
		return;
	t->spin = true;
	t->pivot = pivot;
	t->spin_axis = v3_scale(omega, (float)(1.0 / rate));
	t->spin_rate = (float)rate;
}

void pbd_tracks_set_frame(pbd_world *w, float h)
{
	pbd_tracks *t = &w->pairs.tracks;
	double sum[3] = {0, 0, 0};
	int n = 0;
	for (int i = 0; i < w->particles.count; ++i) {
		if (w->particles.pinned[i])
			continue;
		pbd_v3 s = start_of(w, (uint32_t)i);
		sum[0] += w->particles.p[i].x - s.x;
		sum[1] += w->particles.p[i].y - s.y;
		sum[2] += w->particles.p[i].z - s.z;
		n++;
	}
	t->frame_acc = n ? w->pairs.mean_accel : v3(0, 0, 0);
	double k = n ? 1.0 / ((double)n * h) : 0.0;
	pbd_v3 mean = v3((float)(sum[0] * k), (float)(sum[1] * k), (float)(sum[2] * k));
	// The frame passes through the mean of p at the end of this substep.
	t->frame_vel = v3_sub(mean, v3_scale(t->frame_acc, 0.5f * h));
	if (!v3_is_finite(t->frame_vel) || !v3_is_finite(t->frame_acc))
		t->frame_vel = t->frame_acc = v3(0, 0, 0);
	t->frame_time = w->time;
	t->points_time = NAN;
	fit_spin(w, h, mean);
}

static float largest_coordinate(pbd_v3 a)
{
	return maxf(fabsf(a.x), maxf(fabsf(a.y), fabsf(a.z)));
}

// A particle that leaves its track's slack again within PBD_TRACK_RESTLESS_SUBSTEPS of
// straying last grows restless (up to PBD_TRACK_RESTLESS_LEVELS doublings of its least
// slack); one that leaves it later calms down a level. A track that ran out says nothing of
// either: a cloth that sways gently has its moving tracks run out together after each full
// search, and is not restless for it. Only strays count (a full search gives everyone a new
// track). Returns its net velocity in the frame since it last strayed (NAN when unknown).
static pbd_v3 note_motion(pbd_world *w, uint32_t i, float h, bool strayed, pbd_v3 start)
{
	pbd_tracks *t = &w->pairs.tracks;
	double ts = w->time, last = t->strayed_at[i], age = ts - last;
	pbd_v3 net = v3(NAN, NAN, NAN);
	bool left_slack = strayed && !(ts + h > t->expiry[i]);
	if (last > 0.0 && age > 0.0) {
		if (t->spin) {
			pbd_v3 now = pbd_frame_of(t, pbd_frame_offset(t, ts), pbd_frame_turn(t, ts), start);
			pbd_v3 then = pbd_frame_of(t, pbd_frame_offset(t, last), pbd_frame_turn(t, last), t->strayed_from[i]);
			net = v3_scale(v3_sub(now, then), (float)(1.0 / age));
		} else {
			pbd_v3 frame_moved = v3_sub(pbd_frame_offset(t, ts), pbd_frame_offset(t, last));
			net = v3_scale(v3_sub(v3_sub(start, t->strayed_from[i]), frame_moved), (float)(1.0 / age));
		}
		if (left_slack && age < PBD_TRACK_RESTLESS_SUBSTEPS * (double)h)
			t->restless[i] = (uint8_t)mini(t->restless[i] + 1, PBD_TRACK_RESTLESS_LEVELS);
		else if (left_slack && t->restless[i] > 0)
			t->restless[i]--;
	}
	if (strayed) {
		t->strayed_at[i] = ts;
		t->strayed_from[i] = start;
	}
	return net;
}

// How far the world path of a track over a substep of length h strays from the straight line
// between its ends (`from`, `to`) in a spinning frame, for a track within `reach` of the pivot
// moving at `speed` in the frame. The frame's offset is the same for every particle and drops
// out of every pair's distance; what is left, turn (y - pivot) with y moving at vel, has an
// acceleration of at most rate^2 |y - pivot| + 2 rate |vel|, and a path whose acceleration is at
// most a keeps within a h^2 / 8 of its chord over a time h.
static float bend_bound(const pbd_tracks *t, float reach, float speed, float h)
{
	float rate = t->spin_rate, accel = rate * rate * reach + 2.0f * rate * speed;
	return 0.125f * accel * h * h * (1.0f + 1e-3f) + 1e-7f * reach;
}

// A spinning frame's track gets room in its slack for its bend (the stray test takes the bend
// off the slack) over its whole run at substeps of length h: without it, a thin cloth spinning
// fast had tracks whose bend outgrew their least slack, which then failed their own stray test
// at once, again and again, until the guard held the substep. (A later substep longer than h
// may still bend a track past its room: it strays then, and its new track makes room anew.)
static void make_room_to_bend(pbd_tracks *t, uint32_t i, float h)
{
	if (!t->spin)
		return;
	double run = isfinite(t->expiry[i]) ? t->expiry[i] - t->anchor[i] : 0.0;
	float speed = v3_len(t->vel[i]), reach = v3_len(v3_sub(t->at[i], t->pivot)) + t->slack[i] + speed * (float)run;
	t->slack[i] += bend_bound(t, reach, speed, h);
}

static float up_sum(float a, float b);

// A particle a slow collider carries is carried again the next substep, about as far again:
// its x, its carried start (x moved on with the collider, by c) and its p (pushed off the
// collider) move on at the particle's pace, p - x a substep. A track through the middle of x
// and the carried start at ts, moving at that pace, with half the carry as slack on top, holds
// all three now (p lies c / 2 behind it at te) and, while the carry keeps its pace, the next
// substeps' too: x then is this p and the carried start lies c on, c / 2 either side of the
// track. A track at rest around them ran out with every substep, and a cloth pushed by a
// character walking through it was searched anew several times a frame. A fast carry's track
// runs out within the substep all the same (it has run PBD_TRACK_LENGTH_RADII radii).
static bool carry_along(pbd_tracks *t, uint32_t i, pbd_v3 xs, pbd_v3 ys, pbd_v3 ye, float base, float r, float h)
{
	pbd_v3 mid = v3_scale(v3_add(xs, ys), 0.5f);
	float half = maxf(pbd_distance_up(xs, mid), pbd_distance_up(ys, mid));
	if (!(half < INFINITY))
		return false;
	t->at[i] = mid;
	t->vel[i] = v3_scale(v3_sub(ye, xs), 1.0f / h);
	t->slack[i] = up_sum(base, half);
	float speed = v3_len(t->vel[i]);
	double run = fmin(PBD_TRACK_LENGTH_RADII * r / speed, PBD_TRACK_SUBSTEPS * h);
	t->expiry[i] = t->anchor[i] + (run > h ? run : h);
	make_room_to_bend(t, i, h);
	return true;
}

void pbd_tracks_set(pbd_world *w, uint32_t i, float h, bool strayed)
{
	pbd_tracks *t = &w->pairs.tracks;
	pbd_v3 start = start_of(w, i), net = note_motion(w, i, h, strayed, start);
	double ts = w->time, te = ts + h;
	pbd_v3 so = pbd_frame_offset(t, ts), eo = pbd_frame_offset(t, te);
	pbd_quat qs = pbd_frame_turn(t, ts), qe = pbd_frame_turn(t, te);
	pbd_v3 ys = pbd_frame_of(t, so, qs, start), ye = pbd_frame_of(t, eo, qe, v3_of4(w->particles.p[i]));
	// Slack for PBD_TRACK_SUBSTEPS substeps at the last acceleration in the frame, within its
	// bounds (the least doubled for each level of restlessness); it covers float rounding of
	// positions far from the origin too.
	float r = w->particles.radius[i], span = PBD_TRACK_SUBSTEPS * h;
	pbd_v3 u = v3_scale(v3_sub(ye, ys), 1.0f / h);
	pbd_v3 frame_accel = t->frame_acc;
	if (t->spin) {
		// What a spinning frame adds to the acceleration of a point moving at u in it: towards
		// the axis (centripetal) and across its motion (Coriolis), both in world axes.
		pbd_v3 omega = v3_scale(t->spin_axis, t->spin_rate), arm = v3_sub(start, v3_add(t->pivot, so));
		frame_accel = v3_add(frame_accel, v3_cross(omega, v3_cross(omega, arm)));
		frame_accel = v3_add(frame_accel, v3_scale(v3_cross(omega, quat_rotate(qs, u)), 2.0f));
	}
	float wobble = 0.5f * v3_len(v3_sub(t->accel[i], frame_accel)) * span * span;
	float least = PBD_TRACK_SLACK_RADII * r * (float)(1u << t->restless[i]);
	float base = minf(maxf(wobble, least), PBD_TRACK_MAX_SLACK_RADII * r);
	float coordinates = 1.0f + largest_coordinate(ys) + largest_coordinate(ye);
	if (t->spin)
		coordinates += 2.0f * largest_coordinate(t->pivot);  // the turn's rounding
	base = maxf(isfinite(base) ? base : PBD_TRACK_MAX_SLACK_RADII * r, 4e-7f * coordinates);
	t->anchor[i] = ts;
	t->stamp[i] = w->pairs.update_serial;
	if (pbd_carried(w, i)) {
		// A carried start is a third point of the motion (x -> carried start -> p).
		pbd_v3 xs = pbd_frame_of(t, so, qs, v3_of4(w->particles.x[i]));
		if (carry_along(t, i, xs, ys, ye, base, r, h))
			return;
		// A long carry: the track rests in the frame around all three and runs out with the
		// substep.
		pbd_v3 lo = v3(minf(xs.x, minf(ys.x, ye.x)), minf(xs.y, minf(ys.y, ye.y)), minf(xs.z, minf(ys.z, ye.z)));
		pbd_v3 hi = v3(maxf(xs.x, maxf(ys.x, ye.x)), maxf(xs.y, maxf(ys.y, ye.y)), maxf(xs.z, maxf(ys.z, ye.z)));
		pbd_v3 c = v3_scale(v3_add(lo, hi), 0.5f);
		t->at[i] = c;
		t->vel[i] = v3(0, 0, 0);
		t->slack[i] = base + maxf(pbd_distance_up(xs, c), maxf(pbd_distance_up(ys, c), pbd_distance_up(ye, c)));
		t->expiry[i] = te;
		make_room_to_bend(t, i, h);
		return;
	}
	float speed = v3_len(u);
	// A restless particle whose net motion is slow grinds in place: at rest.
	bool grinding = t->restless[i] > 0 && v3_len(net) * span <= PBD_TRACK_REST_SHARE * base;
	if (grinding || !(speed * span > PBD_TRACK_REST_SHARE * base)) {
		// At rest in the frame (or not finite, which every test then reports as straying):
		// it keeps to the track until it strays, and its pairs move with the frame.
		t->at[i] = v3_scale(v3_add(ys, ye), 0.5f);
		t->vel[i] = v3(0, 0, 0);
		t->slack[i] = base + 0.5f * pbd_distance_up(ys, ye);
		t->expiry[i] = INFINITY;
		make_room_to_bend(t, i, h);
		return;
	}
	t->at[i] = ys;
	t->vel[i] = u;
	t->slack[i] = base;
	double run = fmin(PBD_TRACK_LENGTH_RADII * r / speed, span);
	t->expiry[i] = ts + (run > h ? run : h);
	make_room_to_bend(t, i, h);
}

static float tracks_bend(const pbd_tracks *t, uint32_t i, pbd_v3 ys, pbd_v3 ye, float h)
{
	return bend_bound(t, maxf(v3_len(v3_sub(ys, t->pivot)), v3_len(v3_sub(ye, t->pivot))), v3_len(t->vel[i]), h);
}

typedef struct points_job {
	pbd_world *w;
	pbd_v3 so, eo;
	pbd_quat qs, qe;          // the frame's turn at ts and te
	double ts, te;
	bool new_substep;         // take the velocities: v_last and accel
	float inv_dt;             // 1 / the time since v_last (0: v_last is not of the last substep)
} points_job;

static void track_points(const points_job *job, uint32_t i)
{
	pbd_tracks *t = &job->w->pairs.tracks;
	pbd_v3 ys = pbd_track_at(t, i, job->ts), ye = pbd_track_at(t, i, job->te);
	t->from[i] = pbd_frame_to_world(t, job->so, job->qs, ys);
	t->to[i] = pbd_frame_to_world(t, job->eo, job->qe, ye);
	if (t->spin) {
		t->here[i] = ys;
		t->bend[i] = tracks_bend(t, i, ys, ye, (float)(job->te - job->ts));
	}
}

static points_job points_at(pbd_world *w, double ts, double te)
{
	const pbd_tracks *t = &w->pairs.tracks;
	return (points_job){w, pbd_frame_offset(t, ts), pbd_frame_offset(t, te), pbd_frame_turn(t, ts), pbd_frame_turn(t, te),
			    ts, te, false, 0.0f};
}

void pbd_track_points(pbd_world *w, uint32_t i)
{
	const pbd_tracks *t = &w->pairs.tracks;
	points_job job = points_at(w, t->points_time, t->points_time + t->points_h);
	track_points(&job, i);
}

static void points_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const points_job *job = context;
	pbd_tracks *t = &job->w->pairs.tracks;
	for (int i = start; i < end; ++i) {
		track_points(job, (uint32_t)i);
		if (job->new_substep) {
			pbd_v3 v = job->w->particles.v[i];
			t->accel[i] = v3_scale(v3_sub(v, t->v_last[i]), job->inv_dt);
			t->v_last[i] = v;
		}
	}
}

void pbd_tracks_points(pbd_world *w, float h)
{
	pbd_tracks *t = &w->pairs.tracks;
	if (t->points_time == w->time && t->points_h == h)
		return;
	bool new_substep = t->v_last_time != w->time;
	double since = w->time - t->v_last_time;
	// Velocities are taken once per substep; an acceleration only from the substep just ended.
	float inv_dt = since > 0.5 * h && since < 1.5 * h ? (float)(1.0 / since) : 0.0f;
	t->points_time = w->time;
	t->points_h = h;
	points_job job = points_at(w, w->time, w->time + h);
	job.new_substep = new_substep;
	job.inv_dt = inv_dt;
	pbd_parallel_for(w, points_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
	if (new_substep)
		t->v_last_time = w->time;
}

// a + b rounded up, exactly: a drift must not come out short. The float sum's rounding error
// is recovered exactly (Knuth's two-sum; the build does not contract or reorder float
// arithmetic), and its sign says on which side of the true sum the float result fell. Not
// finite passes through (NaN counts as straying wherever it ends up).
static float up_sum(float a, float b)
{
	float s = a + b;
	if (!isfinite(s))
		return s;
	float bb = s - a, error = (a - (s - bb)) + (b - bb);
	return error > 0.0f ? nextafterf(s, INFINITY) : s;
}

// a - b rounded down (a bound on the slack must not come out large): negation is exact.
static float down_difference(float a, float b) { return -up_sum(-a, b); }

// Whether particle i leaves its track over the substep ending at te: the track ran out, or a
// point of its motion is farther from the track than the slack (the distance from the line
// from -> to is convex along the motion, so its ends decide; a spinning frame's track bends off
// that line by its bend at most). Not finite counts as leaving.
static bool strays(const pbd_world *w, uint32_t i, double te)
{
	const pbd_tracks *t = &w->pairs.tracks;
	if (te > t->expiry[i])
		return true;
	float b = t->spin ? down_difference(t->slack[i], t->bend[i]) : t->slack[i];
	if (!pbd_within_up(start_of(w, i), t->from[i], b) || !pbd_within_up(v3_of4(w->particles.p[i]), t->to[i], b))
		return true;
	return pbd_carried(w, i) && !pbd_within_up(v3_of4(w->particles.x[i]), t->from[i], b);
}

typedef struct stray_job {
	pbd_world *w;
	double te;
} stray_job;

static void stray_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const stray_job *job = context;
	for (int i = start; i < end; ++i)
		job->w->pairs.tracks.straying[i] = strays(job->w, (uint32_t)i, job->te);
}

int pbd_tracks_find_strays(pbd_world *w, float h)
{
	pbd_pairs *pr = &w->pairs;
	stray_job job = {w, w->time + h};
	pbd_parallel_for(w, stray_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
	pr->stray_count = 0;
	for (int i = 0; i < w->particles.count; ++i)
		if (pr->tracks.straying[i])
			pr->strays[pr->stray_count++] = (uint32_t)i;
	return pr->stray_count;
}

// ---- Drifts (pairs.h): how far each particle is from its track.

typedef struct drift_job {
	pbd_world *w;
	bool sweep;
} drift_job;

static void drift_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const drift_job *job = context;
	pbd_world *w = job->w;
	pbd_tracks *t = &w->pairs.tracks;
	const pbd_v4 *s = pbd_motion_starts(w);
	for (int i = start; i < end; ++i) {
		pbd_v3 p = v3_of4(w->particles.p[i]);
		float d = pbd_distance_up(p, t->to[i]);
		if (job->sweep) {
			// The motion from its start to p, against the track from its start to its end: the
			// offset between the two is affine in time, and a motion the guard shortens stays
			// on its segment, so the start against both track ends and p against the end
			// bound it.
			pbd_v3 a = v3_of4(s[i]);
			d = maxf(d, maxf(pbd_distance_up(a, t->from[i]), pbd_distance_up(a, t->to[i])));
			if (t->spin)
				d = up_sum(d, t->bend[i]);  // the track's world path bends off from -> to
		}
		t->drift[i] = isfinite(d) ? d : INFINITY;
	}
}

static void drift_all(pbd_world *w, bool sweep)
{
	pbd_pairs *pr = &w->pairs;
	if (!pr->valid || pr->nothing_to_pair || pr->vt_count + pr->ee_count == 0)
		return;  // no pairs of triangles or edges, nothing to decide
	PBD_ASSERT(pr->tracks.capacity >= w->particles.count && pr->tracks.points_time == w->time);
	drift_job job = {w, sweep};
	pbd_parallel_for(w, drift_range, w->particles.count, PBD_PARTICLES_PER_RANGE, &job);
}

void pbd_pairs_drift(pbd_world *w, float h)
{
	PBD_UNUSED(h);
	drift_all(w, false);
}

void pbd_pairs_sweep_drift(pbd_world *w)
{
	drift_all(w, true);
}
