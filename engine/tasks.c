// SPDX-License-Identifier: MIT
// The core helper every module uses to spread work over the workers: the game's task hooks
// (pbd_world_def), the built-in pool behind the same hooks, or the calling thread alone.
#include "world.h"

void pbd_parallel_for(pbd_world *w, pbd_task_fn *task, int count, int min_range, void *context)
{
	PBD_ASSERT(task && min_range > 0);
	if (count <= 0)
		return;
	if (!w->enqueue_task || w->worker_count < 2 || count < 2 * min_range) {
		task(0, count, 0, context);
		return;
	}
	void *handle = w->enqueue_task(task, count, min_range, context, w->user_task_context);
	if (handle)
		w->finish_task(handle, w->user_task_context);
}
