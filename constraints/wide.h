// SPDX-License-Identifier: MIT
// Eight constraints at a time on x86-64 machines with AVX, chosen when the step runs (the
// library itself is built for the SSE2 baseline). Eight particles of pbd_v4 are moved in and
// out of eight-lane registers by coordinate: lanes 0-3 come from the first four particles,
// 4-7 from the last four. Only the 256-bit forms of operations that SSE2 also has are used
// (no fused multiply-add), each correctly rounded, so a lane computes bit for bit what the
// one-at-a-time code computes: the result does not depend on which path took a constraint.
#ifndef PBD_WIDE_H
#define PBD_WIDE_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
#define PBD_WIDE 1
#include <immintrin.h>

#define PBD_WIDE_FN __attribute__((target("avx")))

// Whether this machine runs the eight-lane code (asked each time: no state is kept).
static inline bool pbd_wide_available(void) { return __builtin_cpu_supports("avx"); }

// Rows (one particle per 128-bit lane pair) to columns x, y, z, w, and back: within each
// 128-bit half this is the 4 x 4 transpose, which is its own inverse.
PBD_WIDE_FN static inline void pbd_wide_transpose(__m256 *r0, __m256 *r1, __m256 *r2, __m256 *r3)
{
	__m256 t0 = _mm256_unpacklo_ps(*r0, *r1), t1 = _mm256_unpackhi_ps(*r0, *r1);
	__m256 t2 = _mm256_unpacklo_ps(*r2, *r3), t3 = _mm256_unpackhi_ps(*r2, *r3);
	*r0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
	*r1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
	*r2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
	*r3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

// The particles at index[0], index[stride], ..., index[7 * stride] as columns c[0..3].
PBD_WIDE_FN static inline void pbd_wide_load(const float *base, const uint32_t *index, int stride, __m256 c[4])
{
	for (int j = 0; j < 4; ++j)
		c[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + 4 * (size_t)index[j * stride])),
					    _mm_loadu_ps(base + 4 * (size_t)index[(j + 4) * stride]), 1);
	pbd_wide_transpose(&c[0], &c[1], &c[2], &c[3]);
}

// Writes columns back to the particles of the lanes set in `lanes` (a bit per lane).
PBD_WIDE_FN static inline void pbd_wide_store(float *base, const uint32_t *index, int stride, __m256 c[4], int lanes)
{
	pbd_wide_transpose(&c[0], &c[1], &c[2], &c[3]);
	for (int j = 0; j < 4; ++j) {
		if (lanes & (1 << j))
			_mm_storeu_ps(base + 4 * (size_t)index[j * stride], _mm256_castps256_ps128(c[j]));
		if (lanes & (16 << j))
			_mm_storeu_ps(base + 4 * (size_t)index[(j + 4) * stride], _mm256_extractf128_ps(c[j], 1));
	}
}
#else
#define PBD_WIDE 0
static inline bool pbd_wide_available(void) { return false; }
#endif

#endif
