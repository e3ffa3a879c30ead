// SPDX-License-Identifier: MIT
// Allocation through the world's hooks, with a live and peak byte count.
#include <stdlib.h>
#include <string.h>

#include "world.h"

#define PBD_ALIGN 32

void *pbd_alloc(pbd_world *world, size_t size)
{
	if (size == 0)
		return NULL;
	void *ptr = NULL;
	if (world->allocator.alloc) {
		ptr = world->allocator.alloc(size, PBD_ALIGN, world->allocator.user);
	} else {
		// aligned_alloc needs a size that is a multiple of the alignment.
		size_t rounded = (size + PBD_ALIGN - 1) & ~(size_t)(PBD_ALIGN - 1);
		ptr = rounded >= size ? aligned_alloc(PBD_ALIGN, rounded) : NULL;
	}
	if (ptr) {
		world->bytes_live += size;
		if (world->bytes_live > world->bytes_peak)
			world->bytes_peak = world->bytes_live;
		world->allocations++;
	} else {
		world->allocation_failures++;
	}
	return ptr;
}

void pbd_free(pbd_world *world, void *ptr, size_t size)
{
	if (!ptr)
		return;
	PBD_ASSERT(world->bytes_live >= size);
	world->bytes_live -= size;
	if (world->allocator.free)
		world->allocator.free(ptr, size, world->allocator.user);
	else
		free(ptr);
}

void *pbd_alloc_array(pbd_world *world, size_t count, size_t size)
{
	if (count == 0 || size == 0)
		return NULL;
	if (count > SIZE_MAX / size) {
		world->allocation_failures++;
		return NULL;
	}
	void *ptr = pbd_alloc(world, count * size);
	if (ptr)
		memset(ptr, 0, count * size);
	return ptr;
}

void pbd_free_array(pbd_world *world, void *ptr, size_t count, size_t size)
{
	pbd_free(world, ptr, count * size);
}

bool pbd_grow_array(pbd_world *world, void **array, size_t old_count, size_t new_count, size_t size)
{
	if (new_count <= old_count)
		return true;
	void *fresh = pbd_alloc_array(world, new_count, size);
	if (!fresh)
		return false;
	if (*array && old_count)
		memcpy(fresh, *array, old_count * size);
	pbd_free_array(world, *array, old_count, size);
	*array = fresh;
	return true;
}

bool pbd_reserve_array(pbd_world *world, void **array, int *capacity, int need, size_t size)
{
	if (need <= *capacity)
		return true;
	int grown = maxi(need, 2 * *capacity);
	if (!pbd_grow_array(world, array, (size_t)*capacity, (size_t)grown, size))
		return false;
	*capacity = grown;
	return true;
}

bool pbd_replace_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t old_count, size_t count)
{
	PBD_ASSERT(n <= PBD_MAX_ARRAY_GROUP);
	void *fresh[PBD_MAX_ARRAY_GROUP] = {0};
	for (int k = 0; k < n; ++k) {
		fresh[k] = pbd_alloc_array(world, count, group[k].size);
		if (!fresh[k]) {
			for (int j = 0; j < k; ++j)
				pbd_free_array(world, fresh[j], count, group[j].size);
			return false;
		}
	}
	pbd_free_arrays(world, group, n, old_count);
	for (int k = 0; k < n; ++k)
		*group[k].array = fresh[k];
	return true;
}

bool pbd_reserve_scratch_arrays(pbd_world *world, const pbd_array_ref *group, int n, int *capacity, int need)
{
	if (need <= *capacity)
		return true;
	int cap = maxi(need, 2 * *capacity);
	if (!pbd_replace_arrays(world, group, n, (size_t)*capacity, (size_t)cap))
		return false;
	*capacity = cap;
	return true;
}

void pbd_free_arrays(pbd_world *world, const pbd_array_ref *group, int n, size_t count)
{
	for (int k = 0; k < n; ++k) {
		pbd_free_array(world, *group[k].array, count, group[k].size);
		*group[k].array = NULL;
	}
}

void pbd_trim_array(pbd_world *world, void **array, int *capacity, int peak, int keep, size_t size)
{
	PBD_ASSERT(keep <= peak || keep == 0);
	int floor = maxi(peak, 32), fresh_capacity = maxi(2 * peak, 64);
	if (*capacity < PBD_TRIM_FACTOR * floor || *capacity <= fresh_capacity)
		return;
	if ((size_t)(*capacity - fresh_capacity) * size <= PBD_TRIM_MIN_BYTES)
		return;
	void *fresh = pbd_alloc_array(world, (size_t)fresh_capacity, size);
	if (!fresh)
		return;  // nothing lost: the old array stays (the trim runs after the substeps' checks)
	if (keep > 0)
		memcpy(fresh, *array, (size_t)keep * size);
	pbd_free_array(world, *array, (size_t)*capacity, size);
	*array = fresh;
	*capacity = fresh_capacity;
	world->trims++;
}
