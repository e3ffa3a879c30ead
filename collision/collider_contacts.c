// SPDX-License-Identifier: MIT
// Candidate particle-collider pairs for one substep.
#include "../engine/world.h"
#include "wide.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static bool push_contact(pbd_world *w, pbd_collider_contact ct)
{
	if (w->collider_contacts.count == w->collider_contacts.capacity) {
		int cap = maxi(256, w->collider_contacts.capacity * 2);
		if (!pbd_grow_array(w, (void **)&w->collider_contacts.items, (size_t)w->collider_contacts.capacity,
				    (size_t)cap, sizeof *w->collider_contacts.items))
			return false;
		w->collider_contacts.capacity = cap;
	}
	w->collider_contacts.items[w->collider_contacts.count++] = ct;
	w->collider_contacts.peak = maxi(w->collider_contacts.peak, w->collider_contacts.count);
	return true;
}

static pbd_v3 to_local(const pbd_pose *pose, pbd_v3 point)
{
	return quat_rotate(quat_conj(pose->q), v3_sub(point, pose->p));
}

static float local_distance(const pbd_shape_query *shape, pbd_v3 local, pbd_v3 *normal)
{
	return pbd_shape_signed_distance(shape, v3(0, 0, 0), (pbd_quat){0, 0, 0, 1}, local, normal);
}

// Distance from a point to the segment a-b.
static float segment_distance(pbd_v3 point, pbd_v3 a, pbd_v3 b)
{
	pbd_v3 ab = v3_sub(b, a);
	float l2 = v3_len2(ab);
	float t = l2 > 0.0f ? clampf(v3_dot(v3_sub(point, a), ab) / l2, 0.0f, 1.0f) : 0.0f;
	return v3_len(v3_sub(point, v3_mad(a, ab, t)));
}

// How close to the shape the sweep below takes for an entry.
#define SWEEP_STOP(radius) (1e-3f * (radius) + 1e-6f)

// Continuous test of a particle against a moving collider, in the collider's frame: the
// particle goes from x (in the substep-start frame) to p (in the substep-end frame). When
// that path enters the shape from outside and the end point would be pushed out on another
// side than the one it came in through (a fast collider swept over it, or a fast particle
// through a thin shape), p is moved back onto the tangent plane at the entry point, keeping
// the motion along the surface. Conservative advancement on the signed distance, which
// changes no faster than the path is long, finds the entry. Returns whether p moved.
static bool sweep_particle(pbd_world *w, const pbd_collider *c, int i)
{
	enum { MAX_ADVANCES = 48 };
	float radius = w->particles.radius[i];
	pbd_v3 l0 = to_local(&c->sub_start, v3_of4(w->particles.x[i])),
	       l1 = to_local(&c->sub_end, v3_of4(w->particles.p[i]));
	pbd_v3 n1, ne;
	float phi = local_distance(&c->shape, l0, &ne) - radius;
	if (phi <= 0.0f)
		return false;  // already touching: the ordinary contact keeps it on its side
	float length = v3_len(v3_sub(l1, l0));
	if (length <= phi)
		return false;
	float end = local_distance(&c->shape, l1, &n1) - radius;
	float stop = SWEEP_STOP(radius), t = 0.0f;
	bool entered = false;
	for (int k = 0; k < MAX_ADVANCES; ++k) {
		t += phi / length;
		if (t >= 1.0f)
			break;
		phi = local_distance(&c->shape, v3_lerp(l0, l1, t), &ne) - radius;
		if (phi <= stop) {
			entered = true;
			break;
		}
	}
	if (!entered)
		return false;
	if (end < 0.0f && v3_dot(n1, ne) > 0.7f)
		return false;  // ends shallow behind the face it entered: the ordinary contact pushes it back out
	pbd_v3 entry = v3_lerp(l0, l1, t);
	float below = v3_dot(v3_sub(entry, l1), ne);
	pbd_v3 local = below > 0.0f ? v3_mad(l1, ne, below) : l1;
	v4_set3(&w->particles.p[i], v3_add(quat_rotate(c->sub_end.q, local), c->sub_end.p));
	return true;
}

typedef struct search_job {
	pbd_world *w;
	const pbd_collider *c;
	float bound;
	int first;  // the cloth's first particle
	// A plane's normal and offset at the substep end: most particles of a cloth are far above
	// a floor, and one dot product rules them out before the exact distance is needed.
	bool plane;
	pbd_v3 plane_normal;
	float plane_offset;
} search_job;

// Whether a particle is certainly further from the job's plane than its radius plus its
// travel (given squared: most particles are ruled out before a square root). The margin
// covers the rounding of this dot product against the exact test, which rotates the point
// into the plane's frame, and of the travel's square.
static bool clear_of_plane(const search_job *job, pbd_v3 p, float radius, float travel2)
{
	float d = v3_dot(job->plane_normal, p) - job->plane_offset;
	float size = fabsf(p.x) + fabsf(p.y) + fabsf(p.z) + fabsf(job->plane_offset);
	float clearance = d - radius - (1e-5f * size + 1e-6f);
	return clearance > 0.0f && clearance * clearance > travel2 * 1.0001f;
}

// A pair is kept when the particle's path x -> p comes within its radius plus the length of
// that path of the collider at the end of the substep: the projection may move the particle
// by about that much, and anything further cannot touch within this substep.
static bool keep_contact(pbd_world *w, const search_job *job, int i)
{
	const pbd_collider *c = job->c;
	float bound = job->bound;
	if (w->particles.p[i].w == 0.0f)
		return false;
	float radius = w->particles.radius[i];
	pbd_v3 p = v3_of4(w->particles.p[i]), x = v3_of4(w->particles.x[i]);
	float travel2 = v3_len2(v3_sub(p, x));
	if (job->plane && clear_of_plane(job, p, radius, travel2))
		return false;
	float travel = sqrtf(travel2);
	float reach = radius + travel;
	// The collider's own path over the substep counts as well as the particle's.
	if (bound < INFINITY && segment_distance(p, c->sub_start.p, c->sub_end.p) > bound + reach + travel)
		return false;
	float end = pbd_shape_distance(&c->shape, c->sub_end.p, c->sub_end.q, p);
	if (bound < INFINITY) {
		// A particle further from the shape at the end than its radius and its path in the
		// collider's frame (and the sweep's stop) never came that close on the way: the
		// distance changes no faster than the path is long, and the sweep leaves it where it
		// is. Most particles within a collider's bounding sphere are decided so, with one
		// distance instead of the sweep's two or more and the last.
		pbd_v3 l0 = to_local(&c->sub_start, x), l1 = to_local(&c->sub_end, p);
		float path = v3_len(v3_sub(l1, l0));
		float margin = SWEEP_STOP(radius) + 1e-5f * (fabsf(l0.x) + fabsf(l0.y) + fabsf(l0.z) + fabsf(l1.x) +
							      fabsf(l1.y) + fabsf(l1.z) + radius) + 1e-6f;
		if (end > radius + maxf(path, travel) + margin)
			return false;
		if (sweep_particle(w, c, i))
			end = pbd_shape_distance(&c->shape, c->sub_end.p, c->sub_end.q, v3_of4(w->particles.p[i]));
	}
	return end <= reach;
}

// Particles first .. first + count - 1 of one cloth: the box around p, the square of a bound
// on how far any of them is from its x (the per-axis largest motions, summed: never less
// than the largest motion), the margins of keep_contact's tests. Four
// lanes at a time (the fourth, the inverse mass, is not used). A NaN leaves the box unbounded.
#if PBD_WIDE
// The SSE loop of span_of on two particles per eight-lane register, which halves its work;
// the same minima and maxima. Leaves particles count - count % 4 onwards to the caller.
PBD_WIDE_FN static int span_wide(const pbd_v4 *p, const pbd_v4 *x, int count, __m128 *lo, __m128 *hi, __m128 *far,
				 __m128 *unordered)
{
	__m256 lo0 = _mm256_set1_ps(INFINITY), lo1 = lo0, hi0 = _mm256_set1_ps(-INFINITY), hi1 = hi0;
	__m256 far0 = _mm256_setzero_ps(), far1 = far0, bad = far0;
	int i = 0;
	for (; i + 4 <= count; i += 4) {
		__m256 q0 = _mm256_loadu_ps(&p[i].x), q1 = _mm256_loadu_ps(&p[i + 2].x);
		__m256 d0 = _mm256_sub_ps(q0, _mm256_loadu_ps(&x[i].x)), d1 = _mm256_sub_ps(q1, _mm256_loadu_ps(&x[i + 2].x));
		bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(q0, d0, _CMP_UNORD_Q), _mm256_cmp_ps(q1, d1, _CMP_UNORD_Q)));
		lo0 = _mm256_min_ps(lo0, q0), lo1 = _mm256_min_ps(lo1, q1);
		hi0 = _mm256_max_ps(hi0, q0), hi1 = _mm256_max_ps(hi1, q1);
		far0 = _mm256_max_ps(far0, _mm256_mul_ps(d0, d0)), far1 = _mm256_max_ps(far1, _mm256_mul_ps(d1, d1));
	}
	__m256 l = _mm256_min_ps(lo0, lo1), h = _mm256_max_ps(hi0, hi1), f = _mm256_max_ps(far0, far1);
	*lo = _mm_min_ps(*lo, _mm_min_ps(_mm256_castps256_ps128(l), _mm256_extractf128_ps(l, 1)));
	*hi = _mm_max_ps(*hi, _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
	*far = _mm_max_ps(*far, _mm_max_ps(_mm256_castps256_ps128(f), _mm256_extractf128_ps(f, 1)));
	*unordered = _mm_or_ps(*unordered, _mm_or_ps(_mm256_castps256_ps128(bad), _mm256_extractf128_ps(bad, 1)));
	return i;
}
#endif

static pbd_body_extent span_of(const pbd_world *w, int first, int count)
{
	const pbd_v4 *p = w->particles.p + first, *x = w->particles.x + first;
	pbd_v3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY), travel2 = v3(0, 0, 0);
	bool nan = false;
	int i = 0;
#if defined(__SSE2__)
	// Four particles per round into four sets of running minima and maxima, which the
	// round's latency would otherwise hold up; then the sets are merged.
	__m128 vlo[4], vhi[4], far[4], unordered = _mm_setzero_ps();
	for (int k = 0; k < 4; ++k)
		vlo[k] = _mm_set1_ps(INFINITY), vhi[k] = _mm_set1_ps(-INFINITY), far[k] = _mm_setzero_ps();
#if PBD_WIDE
	if (pbd_wide_available())
		i = span_wide(p, x, count, &vlo[0], &vhi[0], &far[0], &unordered);
#endif
	for (; i < count; i += 4) {
		for (int k = 0; k < 4 && i + k < count; ++k) {
			__m128 q = _mm_loadu_ps(&p[i + k].x), d = _mm_sub_ps(q, _mm_loadu_ps(&x[i + k].x));
			unordered = _mm_or_ps(unordered, _mm_cmpunord_ps(q, d));
			vlo[k] = _mm_min_ps(vlo[k], q);
			vhi[k] = _mm_max_ps(vhi[k], q);
			far[k] = _mm_max_ps(far[k], _mm_mul_ps(d, d));
		}
	}
	for (int k = 1; k < 4; ++k) {
		vlo[0] = _mm_min_ps(vlo[0], vlo[k]);
		vhi[0] = _mm_max_ps(vhi[0], vhi[k]);
		far[0] = _mm_max_ps(far[0], far[k]);
	}
	float l[4], h[4], f[4];
	_mm_storeu_ps(l, vlo[0]);
	_mm_storeu_ps(h, vhi[0]);
	_mm_storeu_ps(f, far[0]);
	nan = (_mm_movemask_ps(unordered) & 7) != 0;
	lo = v3(l[0], l[1], l[2]), hi = v3(h[0], h[1], h[2]), travel2 = v3(f[0], f[1], f[2]);
#else
	for (; i < count; ++i) {
		pbd_v3 q = v3_of4(p[i]), d = v3_sub(q, v3_of4(x[i]));
		nan |= q.x != q.x || q.y != q.y || q.z != q.z || d.x != d.x || d.y != d.y || d.z != d.z;
		lo = v3(minf(lo.x, q.x), minf(lo.y, q.y), minf(lo.z, q.z));
		hi = v3(maxf(hi.x, q.x), maxf(hi.y, q.y), maxf(hi.z, q.z));
		travel2 = v3(maxf(travel2.x, d.x * d.x), maxf(travel2.y, d.y * d.y), maxf(travel2.z, d.z * d.z));
	}
#endif
	if (nan)
		return (pbd_body_extent){{v3(-INFINITY, -INFINITY, -INFINITY), v3(INFINITY, INFINITY, INFINITY)}, INFINITY};
	return (pbd_body_extent){{lo, hi}, travel2.x + travel2.y + travel2.z};
}

// A whole cloth's extent, its travel a length (with a margin for the rounding of the square).
static pbd_body_extent extent_of(const pbd_world *w, const pbd_body *cloth)
{
	pbd_body_extent e = span_of(w, cloth->first, cloth->count);
	e.travel = sqrtf(e.travel) * 1.0001f;
	return e;
}

// Whether no particle of a cloth can pass keep_contact's first test against the job's
// collider: a plane below the whole box, or a finite shape whose path's box is further from
// the cloth's box than its bound and the particles' reach. Each particle lies in the box,
// so each is at least as far as the box is; the margin covers the rounding of the tests.
// `radius`: the cloth's, which every particle of it has (they are set together).
static bool cloth_out_of_reach(const search_job *job, const pbd_body_extent *e, float radius)
{
	pbd_aabb b = e->box;
	if (!(b.lo.x <= b.hi.x && b.lo.y <= b.hi.y && b.lo.z <= b.hi.z))
		return false;  // empty, or not finite: left to the particles' own tests
	float size = maxf(fabsf(b.lo.x), fabsf(b.hi.x)) + maxf(fabsf(b.lo.y), fabsf(b.hi.y)) +
		     maxf(fabsf(b.lo.z), fabsf(b.hi.z));
	if (job->plane) {
		pbd_v3 n = job->plane_normal;
		// The box's corner furthest along -n.
		pbd_v3 low = v3(n.x >= 0.0f ? b.lo.x : b.hi.x, n.y >= 0.0f ? b.lo.y : b.hi.y, n.z >= 0.0f ? b.lo.z : b.hi.z);
		float d = v3_dot(n, low) - job->plane_offset;
		float margin = 2e-5f * (size + fabsf(job->plane_offset)) + 2e-6f;
		return d - radius - margin > e->travel;
	}
	if (!(job->bound < INFINITY))
		return false;
	const pbd_collider *c = job->c;
	pbd_aabb path = {v3(minf(c->sub_start.p.x, c->sub_end.p.x), minf(c->sub_start.p.y, c->sub_end.p.y),
			    minf(c->sub_start.p.z, c->sub_end.p.z)),
			 v3(maxf(c->sub_start.p.x, c->sub_end.p.x), maxf(c->sub_start.p.y, c->sub_end.p.y),
			    maxf(c->sub_start.p.z, c->sub_end.p.z))};
	float gap = maxf(maxf(path.lo.x - b.hi.x, b.lo.x - path.hi.x),
			 maxf(maxf(path.lo.y - b.hi.y, b.lo.y - path.hi.y), maxf(path.lo.z - b.hi.z, b.lo.z - path.hi.z)));
	float margin = 1e-5f * (size + fabsf(path.lo.x) + fabsf(path.lo.y) + fabsf(path.lo.z)) + 1e-6f;
	return gap - margin > job->bound + radius + 2.0f * e->travel;
}

// Each particle is decided on its own (the sweep moves only that particle): threads share
// the particles, and the contacts are then listed in particle order by one thread.
static void search_range(int start, int end, int worker, void *context)
{
	PBD_UNUSED(worker);
	const search_job *job = context;
	for (int i = job->first + start; i < job->first + end; ++i)
		job->w->collider_contacts.keep[i] = keep_contact(job->w, job, i);
}

static bool any_live_collider(const pbd_world *w)
{
	for (int ci = 0; ci < w->colliders.capacity; ++ci)
		if (w->colliders.slots[ci].live)
			return true;
	return false;
}

// Every live cloth's extent, once for all colliders (none without a collider).
static bool measure_cloths(pbd_world *w)
{
	if (!any_live_collider(w))
		return true;
	if (!pbd_reserve_array(w, (void **)&w->collider_contacts.extents, &w->collider_contacts.extent_capacity,
			       w->bodies.capacity, sizeof *w->collider_contacts.extents))
		return false;
	for (int s = 0; s < w->bodies.capacity; ++s)
		if (w->bodies.slots[s].live)
			w->collider_contacts.extents[s] = extent_of(w, &w->bodies.slots[s]);
	return true;
}

static pbd_body_extent empty_extent(void)
{
	return (pbd_body_extent){{v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)}, 0.0f};
}

// Every worker's share of every body slot, empty.
static void clear_shares(pbd_world *w)
{
	int need = w->worker_count * w->bodies.capacity;
	for (int k = 0; k < need; ++k)
		w->collider_contacts.partial[k] = empty_extent();
}

bool pbd_extents_begin(pbd_world *w)
{
	pbd_collider_contacts *cc = &w->collider_contacts;
	cc->measured = cc->predicted = false;
	if (!any_live_collider(w) || w->bodies.capacity == 0)
		return false;
	int need = w->worker_count * w->bodies.capacity;
	if (!pbd_reserve_array(w, (void **)&cc->partial, &cc->partial_capacity, need, sizeof *cc->partial) ||
	    !pbd_reserve_array(w, (void **)&cc->extents, &cc->extent_capacity, w->bodies.capacity, sizeof *cc->extents))
		return false;
	clear_shares(w);
	return true;
}

// Merges b into a; travel holds the squared travel until pbd_extents_finish.
static void merge_extent(pbd_body_extent *a, const pbd_body_extent *b)
{
	a->box.lo = v3(minf(a->box.lo.x, b->box.lo.x), minf(a->box.lo.y, b->box.lo.y), minf(a->box.lo.z, b->box.lo.z));
	a->box.hi = v3(maxf(a->box.hi.x, b->box.hi.x), maxf(a->box.hi.y, b->box.hi.y), maxf(a->box.hi.z, b->box.hi.z));
	a->travel = maxf(a->travel, b->travel);
}

void pbd_extents_measure(pbd_world *w, int worker, int start, int end)
{
	while (start < end) {
		int slot = (int)w->particles.owner[start];
		const pbd_body *body = &w->bodies.slots[slot];
		int stop = mini(end, body->first + body->count);
		pbd_body_extent part = span_of(w, start, stop - start);
		merge_extent(&w->collider_contacts.partial[worker * w->bodies.capacity + slot], &part);
		start = stop;
	}
}

void pbd_extents_finish(pbd_world *w)
{
	pbd_collider_contacts *cc = &w->collider_contacts;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		if (!w->bodies.slots[s].live)
			continue;
		pbd_body_extent e = empty_extent();
		for (int k = 0; k < w->worker_count; ++k)
			merge_extent(&e, &cc->partial[k * w->bodies.capacity + s]);
		e.travel = sqrtf(e.travel) * 1.0001f;
		cc->extents[s] = e;
	}
	cc->measured = cc->predicted = true;
}

bool pbd_extents_begin_moved(pbd_world *w)
{
	pbd_collider_contacts *cc = &w->collider_contacts;
	cc->measured = false;
	if (!cc->predicted)
		return false;
	clear_shares(w);
	return true;
}

void pbd_extents_moved(pbd_world *w, int worker, int start, int end, float motion2)
{
	while (start < end) {
		int slot = (int)w->particles.owner[start];
		const pbd_body *body = &w->bodies.slots[slot];
		pbd_body_extent *share = &w->collider_contacts.partial[worker * w->bodies.capacity + slot];
		if (!(motion2 <= share->travel))  // longer, or not finite
			share->travel = motion2 == motion2 ? motion2 : INFINITY;
		start = mini(end, body->first + body->count);
	}
}

void pbd_extents_finish_moved(pbd_world *w)
{
	pbd_collider_contacts *cc = &w->collider_contacts;
	for (int s = 0; s < w->bodies.capacity; ++s) {
		if (!w->bodies.slots[s].live)
			continue;
		float motion2 = 0.0f;
		for (int k = 0; k < w->worker_count; ++k)
			motion2 = maxf(motion2, cc->partial[k * w->bodies.capacity + s].travel);
		pbd_body_extent e = cc->extents[s];
		float motion = sqrtf(motion2) * 1.0001f, grow = (e.travel + motion) * 1.0001f;
		e.box.lo = v3(e.box.lo.x - grow, e.box.lo.y - grow, e.box.lo.z - grow);
		e.box.hi = v3(e.box.hi.x + grow, e.box.hi.y + grow, e.box.hi.z + grow);
		e.travel = motion;
		cc->extents[s] = e;
	}
	cc->predicted = false;
	cc->measured = true;
}

bool pbd_collider_contacts_find(pbd_world *w)
{
	w->collider_contacts.count = 0;
	if (!pbd_reserve_array(w, (void **)&w->collider_contacts.keep, &w->collider_contacts.keep_capacity,
			       w->particles.count, sizeof *w->collider_contacts.keep))
		return false;
	// Measured by the particle pass just before, or here.
	bool measured = w->collider_contacts.measured;
	w->collider_contacts.measured = false;
	if (!measured && !measure_cloths(w))
		return false;
	for (int ci = 0; ci < w->colliders.capacity; ++ci) {
		const pbd_collider *c = &w->colliders.slots[ci];
		if (!c->live)
			continue;
		float bound = pbd_shape_bounding_radius(&c->shape);
		for (int s = 0; s < w->bodies.capacity; ++s) {
			const pbd_body *cloth = &w->bodies.slots[s];
			if (!cloth->live)
				continue;
			search_job job = {w, c, bound, cloth->first, c->shape.type == PBD_SHAPE_PLANE, v3(0, 0, 0), 0.0f};
			if (job.plane) {
				job.plane_normal = quat_rotate(c->sub_end.q, v3(0, 1, 0));
				job.plane_offset = v3_dot(job.plane_normal, c->sub_end.p);
			}
			// A cloth hanging high above the floor is passed over whole.
			if (cloth->count > 0 &&
			    cloth_out_of_reach(&job, &w->collider_contacts.extents[s], w->particles.radius[cloth->first]))
				continue;
			pbd_parallel_for(w, search_range, cloth->count, 512, &job);
			for (int i = cloth->first; i < cloth->first + cloth->count; ++i) {
				if (!w->collider_contacts.keep[i])
					continue;
				pbd_collider_contact ct = {(uint32_t)i, (uint32_t)ci, w->particles.radius[i]};
				if (!push_contact(w, ct))
					return false;
			}
		}
	}
	return true;
}

void pbd_collider_contacts_free(pbd_world *w)
{
	pbd_free_array(w, w->collider_contacts.items, (size_t)w->collider_contacts.capacity,
		       sizeof *w->collider_contacts.items);
	pbd_free_array(w, w->collider_contacts.keep, (size_t)w->collider_contacts.keep_capacity,
		       sizeof *w->collider_contacts.keep);
	pbd_free_array(w, w->collider_contacts.partial, (size_t)w->collider_contacts.partial_capacity,
		       sizeof *w->collider_contacts.partial);
	pbd_free_array(w, w->collider_contacts.extents, (size_t)w->collider_contacts.extent_capacity,
		       sizeof *w->collider_contacts.extents);
}

void pbd_collider_contacts_trim(pbd_world *w)
{
	pbd_trim_array(w, (void **)&w->collider_contacts.items, &w->collider_contacts.capacity,
		       w->collider_contacts.peak, w->collider_contacts.count, sizeof *w->collider_contacts.items);
	w->collider_contacts.peak = w->collider_contacts.count;
}

void pbd_collider_contacts_clear(pbd_world *w)
{
	w->collider_contacts.count = 0;
	w->collider_contacts.measured = false;
	w->collider_contacts.measured = false;
}
