// SPDX-License-Identifier: MIT
// A small thread pool behind the task hooks: one task at a time, cut into ranges that the
// pool's threads and the finishing thread claim from a shared counter.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "world.h"

#define POOL_MAX_WORKERS 64

struct pbd_task_pool {
	int workers;
	int thread_count;
	pthread_t threads[POOL_MAX_WORKERS];
	pthread_mutex_t lock;
	pthread_cond_t wake;      // a task was published, or stop
	pthread_cond_t done;      // the last range of the task finished
	uint64_t generation;      // tasks published so far (under lock)
	bool stop;
	bool busy;                // a task is between enqueue and finish
	int active;               // threads inside run_ranges (under lock); a task is only
				  // replaced when none is, so no thread claims from a reset counter
	// The current task; written before next_range is reset, read after claiming a range.
	pbd_task_fn *task;
	void *context;
	int item_count;
	int range;
	int range_count;
	atomic_int next_range;
	atomic_int ranges_done;
};

typedef struct worker_start {
	pbd_task_pool *pool;
	int index;
} worker_start;

static void run_ranges(pbd_task_pool *pool, int worker)
{
	for (;;) {
		int r = atomic_fetch_add(&pool->next_range, 1);
		if (r >= pool->range_count)
			return;
		int start = r * pool->range;
		int end = mini(start + pool->range, pool->item_count);
		pool->task(start, end, worker, pool->context);
		if (atomic_fetch_add(&pool->ranges_done, 1) + 1 == pool->range_count) {
			pthread_mutex_lock(&pool->lock);
			pthread_cond_broadcast(&pool->done);
			pthread_mutex_unlock(&pool->lock);
		}
	}
}

static void *worker_main(void *arg)
{
	pbd_task_pool *pool = ((worker_start *)arg)->pool;
	int index = ((worker_start *)arg)->index;
	free(arg);
	uint64_t seen = 0;
	pthread_mutex_lock(&pool->lock);
	while (!pool->stop) {
		if (pool->generation != seen) {
			seen = pool->generation;
			if (!pool->busy)
				continue;  // woke after the task was finished
			pool->active++;
			pthread_mutex_unlock(&pool->lock);
			run_ranges(pool, index);
			pthread_mutex_lock(&pool->lock);
			if (--pool->active == 0)
				pthread_cond_broadcast(&pool->done);
			continue;
		}
		pthread_cond_wait(&pool->wake, &pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

pbd_result pbd_task_pool_create(int workers, pbd_task_pool **out_pool)
{
	if (!out_pool)
		return PBD_ERR_NULL_ARGUMENT;
	*out_pool = NULL;
	if (workers < 1 || workers > POOL_MAX_WORKERS)
		return PBD_ERR_BAD_COUNT;
	pbd_task_pool *pool = calloc(1, sizeof *pool);
	if (!pool)
		return PBD_ERR_OUT_OF_MEMORY;
	pool->workers = workers;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done, NULL);
	for (int i = 1; i < workers; ++i) {
		worker_start *start = malloc(sizeof *start);
		if (!start) {
			pbd_task_pool_destroy(pool);
			return PBD_ERR_OUT_OF_MEMORY;
		}
		*start = (worker_start){pool, i};
		if (pthread_create(&pool->threads[pool->thread_count], NULL, worker_main, start) != 0) {
			free(start);
			pbd_task_pool_destroy(pool);
			return PBD_ERR_OUT_OF_MEMORY;
		}
		pool->thread_count++;
	}
	*out_pool = pool;
	return PBD_OK;
}

void pbd_task_pool_destroy(pbd_task_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->thread_count; ++i)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

void *pbd_task_pool_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (item_count <= 0)
		return NULL;
	min_range = maxi(1, min_range);
	// Not worth waking anyone, or a task is already running (the pool runs one at a time).
	if (pool->workers == 1 || item_count <= min_range || pool->busy) {
		task(0, item_count, 0, task_context);
		return NULL;
	}
	// A few ranges per worker, so that a slow thread does not hold up the rest.
	int range = maxi(min_range, (item_count + 4 * pool->workers - 1) / (4 * pool->workers));
	pthread_mutex_lock(&pool->lock);
	while (pool->active > 0)
		pthread_cond_wait(&pool->done, &pool->lock);
	pool->busy = true;
	pool->task = task;
	pool->context = task_context;
	pool->item_count = item_count;
	pool->range = range;
	pool->range_count = (item_count + range - 1) / range;
	atomic_store(&pool->ranges_done, 0);
	atomic_store(&pool->next_range, 0);
	pool->generation++;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	return pool;
}

void pbd_task_pool_finish(void *user_task, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (!user_task)
		return;
	run_ranges(pool, 0);
	pthread_mutex_lock(&pool->lock);
	while (atomic_load(&pool->ranges_done) < pool->range_count)
		pthread_cond_wait(&pool->done, &pool->lock);
	pool->busy = false;
	pthread_mutex_unlock(&pool->lock);
}

void pbd_world_def_use_task_pool(pbd_world_def *def, const pbd_task_pool *pool)
{
	if (!def)
		return;
	if (!pool) {
		def->worker_count = 1;
		def->enqueue_task = NULL;
		def->finish_task = NULL;
		def->user_task_context = NULL;
		return;
	}
	def->worker_count = pool->workers;
	def->enqueue_task = pbd_task_pool_enqueue;
	def->finish_task = pbd_task_pool_finish;
	def->user_task_context = (void *)pool;
}
