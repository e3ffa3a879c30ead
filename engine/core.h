// SPDX-License-Identifier: MIT
// Internal basics shared by engine/, constraints/ and collision/: asserts, small vector math,
// and the core services (tasks, memory, errors).
#pragma once

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pbd/pbd.h>

// Programmer errors (broken internal invariants) assert; user input never does. The checks
// are compiled into debug and sanitizer builds (PBD_CHECK_INVARIANTS, engine/meson.build) and
// cost nothing in a release build, where the expression is not evaluated.
#ifdef PBD_CHECK_INVARIANTS
#define PBD_ASSERT(c) assert(c)
#else
#define PBD_ASSERT(c) ((void)sizeof(c))
#endif
#define PBD_ARRAY_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define PBD_UNUSED(x) ((void)(x))

typedef struct pbd_v3 {
	float x, y, z;
} pbd_v3;

// A particle position together with its inverse mass in w: one 16-byte load gives a
// constraint everything it needs about a particle.
typedef struct pbd_v4 {
	float x, y, z, w;
} pbd_v4;

static inline pbd_v3 v3(float x, float y, float z) { return (pbd_v3){x, y, z}; }
static inline pbd_v3 v3_of4(pbd_v4 a) { return (pbd_v3){a.x, a.y, a.z}; }
static inline pbd_v3 v3_load(const float *f) { return (pbd_v3){f[0], f[1], f[2]}; }
static inline void v3_store(float *f, pbd_v3 a) { f[0] = a.x; f[1] = a.y; f[2] = a.z; }
static inline pbd_v3 v3_add(pbd_v3 a, pbd_v3 b) { return (pbd_v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline pbd_v3 v3_sub(pbd_v3 a, pbd_v3 b) { return (pbd_v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline pbd_v3 v3_scale(pbd_v3 a, float s) { return (pbd_v3){a.x * s, a.y * s, a.z * s}; }
static inline pbd_v3 v3_mad(pbd_v3 a, pbd_v3 b, float s) { return (pbd_v3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline float v3_dot(pbd_v3 a, pbd_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double v3_dot_d(pbd_v3 a, pbd_v3 b) { return (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z; }
static inline pbd_v3 v3_cross(pbd_v3 a, pbd_v3 b)
{
	return (pbd_v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float v3_len2(pbd_v3 a) { return v3_dot(a, a); }
static inline float v3_len(pbd_v3 a) { return sqrtf(v3_dot(a, a)); }
static inline pbd_v3 v3_lerp(pbd_v3 a, pbd_v3 b, float t) { return v3_mad(a, v3_sub(b, a), t); }
static inline pbd_v3 v3_normalize_or(pbd_v3 a, pbd_v3 fallback)
{
	float l = v3_len(a);
	return l > 1e-20f ? v3_scale(a, 1.0f / l) : fallback;
}
static inline bool v3_is_finite(pbd_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static inline pbd_v4 v4_from3(pbd_v3 a, float w) { return (pbd_v4){a.x, a.y, a.z, w}; }
static inline void v4_set3(pbd_v4 *a, pbd_v3 b) { a->x = b.x; a->y = b.y; a->z = b.z; }

// Unit quaternion (x, y, z, w).
typedef struct pbd_quat {
	float x, y, z, w;
} pbd_quat;

static inline pbd_quat quat_load(const float *f) { return (pbd_quat){f[0], f[1], f[2], f[3]}; }
static inline pbd_v3 quat_rotate(pbd_quat q, pbd_v3 v)
{
	// v' = v + 2 q.w (q.v x v) + 2 q.v x (q.v x v)
	pbd_v3 u = {q.x, q.y, q.z};
	pbd_v3 t = v3_scale(v3_cross(u, v), 2.0f);
	return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
static inline pbd_quat quat_conj(pbd_quat q) { return (pbd_quat){-q.x, -q.y, -q.z, q.w}; }
// a * b: rotate by b, then by a.
static inline pbd_quat quat_mul(pbd_quat a, pbd_quat b)
{
	return (pbd_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
			  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static inline pbd_quat quat_nlerp(pbd_quat a, pbd_quat b, float t)
{
	// Take the short way round; nlerp is close enough to slerp within one substep.
	float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
	float s = d < 0.0f ? -1.0f : 1.0f;
	pbd_quat q = {a.x + (s * b.x - a.x) * t, a.y + (s * b.y - a.y) * t, a.z + (s * b.z - a.z) * t,
		      a.w + (s * b.w - a.w) * t};
	float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	return (pbd_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

// Plain comparisons: fminf/fmaxf are library calls at -O2 (they must handle NaN).
static inline float minf(float a, float b) { return a < b ? a : b; }
static inline float maxf(float a, float b) { return a > b ? a : b; }
static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
static inline int mini(int a, int b) { return a < b ? a : b; }
static inline int maxi(int a, int b) { return a > b ? a : b; }

// Core services every module may call: tasks, memory, errors, table slots. Each module owns
// its state; it calls these and the geometry queries (collision.h, collider.h), and reads
// what the step hands on from the other modules (docs/design.md, "Modules and their state").
// Smallest ranges worth a thread: below these the hand-over costs more than the work.
#define PBD_PARTICLES_PER_RANGE 256
#define PBD_CONSTRAINTS_PER_RANGE 128
// One turn of a wait for another thread: tells the core it spins.
static inline void pbd_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}
// tasks.c: runs task over items 0..count-1, through the hooks when there are any.
void pbd_parallel_for(pbd_world *world, pbd_task_fn *task, int count, int min_range, void *context);

// Why an id {index1, generation} does not name a live slot of a table of `capacity` slots
// (PBD_OK when it does); shared by the body, collider and attachment tables.
static inline pbd_result pbd_check_slot(uint32_t index1, uint32_t id_generation, int capacity, bool live,
					uint32_t slot_generation)
{
	if (index1 == 0 || index1 > (uint32_t)capacity || id_generation == 0 || id_generation > slot_generation)
		return PBD_ERR_UNKNOWN_ID;
	return live && slot_generation == id_generation ? PBD_OK : PBD_ERR_STALE_ID;
}

// memory.c
void *pbd_alloc(pbd_world *world, size_t size);
void pbd_free(pbd_world *world, void *ptr, size_t size);
// Allocates count * size bytes, zeroed; NULL on overflow or failure.
void *pbd_alloc_array(pbd_world *world, size_t count, size_t size);
void pbd_free_array(pbd_world *world, void *ptr, size_t count, size_t size);
// Grows *array from old_count to new_count elements, keeping the contents.
bool pbd_grow_array(pbd_world *world, void **array, size_t old_count, size_t new_count, size_t size);
// Room for `need` elements in *array of *capacity (grown to at least twice the capacity, so
// that a slowly rising need does not copy every time); false when out of memory.
bool pbd_reserve_array(pbd_world *world, void **array, int *capacity, int need, size_t size);
// Parallel arrays of one length (per particle, per attached vertex): each array and the
// size of its items.
typedef struct pbd_array_ref {
	void **array;
	size_t size;
} pbd_array_ref;
#define PBD_MAX_ARRAY_GROUP 20
// Replaces every array of a group of n (<= PBD_MAX_ARRAY_GROUP) with a zeroed one of `count`
// items, freeing the old ones (old_count items each). All or nothing: out of memory, the
// group is left as it was and the call returns false.
bool pbd_replace_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t old_count, size_t count);
// Room for `need` items in every array of a group of scratch whose contents are rebuilt
// before use: past *capacity the arrays are replaced (pbd_replace_arrays) by ones of
// max(need, 2 *capacity) items, and *capacity follows.
bool pbd_reserve_scratch_arrays(pbd_world *world, const pbd_array_ref *group, int n, int *capacity, int need);
// Frees every array of a group (count items each) and sets it to NULL.
void pbd_free_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t count);
// Gives back most of an array that has been far larger than needed: when *capacity is at least
// PBD_TRIM_FACTOR times `peak` (the most it held lately, at least 32) and that would free more
// than PBD_TRIM_MIN_BYTES, it becomes max(2 peak, 64) long, keeping its first `keep` items
// (keep <= peak). It grows again only past twice that peak, so a load that stays within a
// factor of two of itself never trims and regrows. On an allocation failure the array stays
// as it was.
#define PBD_TRIM_FACTOR 4
#define PBD_TRIM_MIN_BYTES ((size_t)4 << 10)
void pbd_trim_array(pbd_world *world, void **array, int *capacity, int peak, int keep, size_t size);

// errors.c
pbd_result pbd_fail(pbd_world *world, pbd_result code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
