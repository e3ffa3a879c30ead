// SPDX-License-Identifier: MIT
// Allocator hooks that count live bytes (and their peak), for tests that watch the engine's
// memory: pbd_world_def.allocator = memory_count_allocator(&count).
#pragma once

#include <stdlib.h>

#include <pbd/pbd.h>

typedef struct memory_count {
	long long live, peak;
} memory_count;

static void *memory_count_alloc(size_t size, size_t align, void *user)
{
	memory_count *m = user;
	size_t a = align < 16 ? 16 : align;
	void *p = aligned_alloc(a, (size + a - 1) / a * a);
	if (p) {
		m->live += (long long)size;
		if (m->live > m->peak)
			m->peak = m->live;
	}
	return p;
}

static void memory_count_free(void *p, size_t size, void *user)
{
	memory_count *m = user;
	if (p)
		m->live -= (long long)size;
	free(p);
}

static inline pbd_allocator memory_count_allocator(memory_count *count)
{
	return (pbd_allocator){memory_count_alloc, memory_count_free, count};
}
