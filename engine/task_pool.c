// SPDX-License-Identifier: MIT
// A small thread pool behind the task hooks: one task at a time, cut into ranges that the
// pool's threads and the finishing thread claim. Each thread starts on its own block of
// ranges, the same block for every task: the solver's tasks walk the cloth in the same order
// (particles, then each constraint color), so a thread keeps touching the same part of the
// cloth and its cache lines stay in its core. Claimed by whoever comes first, as a shared
// counter would hand them out, every color moved half the cloth between the cores and two
// threads ran slower than one. A thread that finishes its block takes what is left of the others.
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "world.h"

#define POOL_MAX_WORKERS 64
#define RANGES_PER_WORKER 4
#define POOL_MAX_RANGES (POOL_MAX_WORKERS * RANGES_PER_WORKER)

// A step hands the pool dozens of short tasks per substep (one per constraint color), tens of
// microseconds each, where waking a sleeping thread or passing a lock back and forth costs
// about as much. So the hand-over is lock-free: threads wait for the next task, and the caller
// for the last range, by spinning a while (about 75 us) before they sleep on a condition.
enum { SPIN_LIMIT = 4000 };

struct pbd_task_pool {
	int workers;
	int thread_count;
	pthread_t threads[POOL_MAX_WORKERS];
	// Sleeping only: workers wait on `wake` for a new generation, the caller on `done` for
	// the last range. The counts of sleepers tell the other side whether to signal.
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t done;
	atomic_int sleeping_workers;
	atomic_bool caller_sleeping;
	atomic_bool stop;
	_Atomic uint64_t generation;  // tasks published so far
	_Atomic uint64_t open;        // the generation whose ranges may be claimed, 0 between tasks
	atomic_int active;            // workers that may touch the current task's fields
	atomic_bool busy;             // a task is between enqueue and finish
	// The current task: written while no worker is active and none is open, then published.
	pbd_task_fn *task;
	void *context;
	int item_count;
	int range;
	int range_count;
	atomic_bool claimed[POOL_MAX_RANGES];
	atomic_int ranges_done;
};

typedef struct worker_start {
	pbd_task_pool *pool;
	int index;
} worker_start;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void finish_range(pbd_task_pool *pool)
{
	if (atomic_fetch_add(&pool->ranges_done, 1) + 1 == pool->range_count && atomic_load(&pool->caller_sleeping)) {
		pthread_mutex_lock(&pool->lock);
		pthread_cond_broadcast(&pool->done);
		pthread_mutex_unlock(&pool->lock);
	}
}

static void run_ranges(pbd_task_pool *pool, int worker)
{
	int count = pool->range_count;
	int first = (int)((int64_t)worker * count / pool->workers);
	for (int k = 0; k < count; ++k) {
		int r = first + k < count ? first + k : first + k - count;
		if (atomic_load_explicit(&pool->claimed[r], memory_order_relaxed) || atomic_exchange(&pool->claimed[r], true))
			continue;
		int start = r * pool->range;
		int end = mini(start + pool->range, pool->item_count);
		pool->task(start, end, worker, pool->context);
		finish_range(pool);
	}
}

// Returns the generation after `seen`, or `seen` when the pool stops.
static uint64_t wait_for_task(pbd_task_pool *pool, uint64_t seen)
{
	for (int k = 0; k < SPIN_LIMIT; ++k) {
		uint64_t g = atomic_load(&pool->generation);
		if (g != seen || atomic_load_explicit(&pool->stop, memory_order_relaxed))
			return g;
		cpu_relax();
	}
	pthread_mutex_lock(&pool->lock);
	atomic_fetch_add(&pool->sleeping_workers, 1);
	// Sleepers are counted before the generation is checked and the caller publishes before
	// it reads the count: one of the two sees the other, so no wake-up is lost.
	while (atomic_load(&pool->generation) == seen && !atomic_load(&pool->stop))
		pthread_cond_wait(&pool->wake, &pool->lock);
	atomic_fetch_sub(&pool->sleeping_workers, 1);
	pthread_mutex_unlock(&pool->lock);
	return atomic_load(&pool->generation);
}

static void *worker_main(void *arg)
{
	pbd_task_pool *pool = ((worker_start *)arg)->pool;
	int index = ((worker_start *)arg)->index;
	free(arg);
	uint64_t seen = 0;
	for (;;) {
		uint64_t g = wait_for_task(pool, seen);
		if (atomic_load(&pool->stop))
			return NULL;
		seen = g;
		// Counted as active before looking at `open`; the caller closes the task before it
		// waits for no active worker: either this thread sees the task closed or the caller
		// waits for it, so the task's fields are never rewritten under a running range.
		atomic_fetch_add(&pool->active, 1);
		if (atomic_load(&pool->open) == g)
			run_ranges(pool, index);
		atomic_fetch_sub(&pool->active, 1);
	}
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
	atomic_store(&pool->stop, true);
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->thread_count; ++i)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

static void wait_for_inactive_workers(pbd_task_pool *pool)
{
	for (int k = 0; atomic_load(&pool->active) > 0; ++k)
		if (k < SPIN_LIMIT)
			cpu_relax();
		else
			sched_yield();  // a worker between two loads was descheduled
}

void *pbd_task_pool_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (item_count <= 0)
		return NULL;
	min_range = maxi(1, min_range);
	// Not worth waking anyone, or a task is already running (the pool runs one at a time).
	if (pool->workers == 1 || item_count <= min_range || atomic_load(&pool->busy)) {
		task(0, item_count, 0, task_context);
		return NULL;
	}
	atomic_store(&pool->busy, true);
	wait_for_inactive_workers(pool);
	// A few ranges per worker, so that a slow thread does not hold up the rest.
	int ranges = RANGES_PER_WORKER * pool->workers;
	int range = maxi(min_range, (item_count + ranges - 1) / ranges);
	pool->task = task;
	pool->context = task_context;
	pool->item_count = item_count;
	pool->range = range;
	pool->range_count = (item_count + range - 1) / range;
	atomic_store(&pool->ranges_done, 0);
	for (int r = 0; r < pool->range_count; ++r)
		atomic_store_explicit(&pool->claimed[r], false, memory_order_relaxed);
	uint64_t g = atomic_load(&pool->generation) + 1;
	atomic_store(&pool->open, g);
	atomic_store(&pool->generation, g);
	if (atomic_load(&pool->sleeping_workers) > 0) {
		pthread_mutex_lock(&pool->lock);
		pthread_cond_broadcast(&pool->wake);
		pthread_mutex_unlock(&pool->lock);
	}
	return pool;
}

void pbd_task_pool_finish(void *user_task, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (!user_task)
		return;
	run_ranges(pool, 0);
	for (int k = 0; k < SPIN_LIMIT && atomic_load(&pool->ranges_done) < pool->range_count; ++k)
		cpu_relax();
	if (atomic_load(&pool->ranges_done) < pool->range_count) {
		pthread_mutex_lock(&pool->lock);
		atomic_store(&pool->caller_sleeping, true);
		while (atomic_load(&pool->ranges_done) < pool->range_count)
			pthread_cond_wait(&pool->done, &pool->lock);
		atomic_store(&pool->caller_sleeping, false);
		pthread_mutex_unlock(&pool->lock);
	}
	PBD_ASSERT(atomic_load(&pool->ranges_done) == pool->range_count);
	atomic_store(&pool->open, 0);
	atomic_store(&pool->busy, false);
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
