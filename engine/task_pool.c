// SPDX-License-Identifier: MIT
// A small thread pool behind the task hooks: one task at a time, cut into ranges that the
// pool's threads and the finishing thread claim. Each thread owns a block of the ranges, the
// same block for every task: the solver's tasks walk the cloth in the same order (particles,
// then each constraint color), so a thread keeps touching the same part of the cloth and its
// cache lines stay in its core (claimed by whoever came first, every color moved half the
// cloth between the cores and two threads ran slower than one). A thread that finishes its
// block takes what is left of the others', so a thread the system has put aside (other
// processes on every core) holds up no more than the range it is in.
//
// A step hands the pool dozens of short tasks per substep (one per constraint color), a few
// microseconds each, so the hand-over is lock-free and touches few shared cache lines: a
// block's next range is claimed from a counter on the block's own cache line, tagged with the
// task's number (a thread still finishing an old task can claim nothing of a new one), and
// each thread reports the ranges it ran once per task. Threads wait for the next task, and
// the caller for the last range, by spinning a while (about 75 us) before they sleep. When
// other processes keep every core busy, a pool thread gets little time, spends it spinning,
// and may be put aside in the middle of a range the caller then waits for. So the caller
// works alone, and the threads sleep, while its own thread is put aside often (other
// processes want the cores), and for a while after stalls come one soon after another or the
// other threads ran too few of the ranges (tasks split or not give the same results).
#if defined(__linux__)
#define _GNU_SOURCE  // RUSAGE_THREAD, clock_gettime
#else
#define _POSIX_C_SOURCE 199309L  // clock_gettime
#endif
#include <math.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "world.h"

#define POOL_MAX_WORKERS 64
// Ranges per worker: a few, so that a thread held up does not hold up the rest. On a 2-core
// host whose cores share no cache (330 ns round trip against 55), 8 rather than 4 made 2
// threads' 128 x 128 frame 7% shorter (2.64 ms against 2.85; the same on cores that do).
#define RANGES_PER_WORKER 8

enum { SPIN_LIMIT = 4000 };
// Tasks run alone after a stall, first and at most; tasks without a stall that bring it back
// to the first. The first while is short (a 128 x 128 step has about 30 tasks per substep):
// a quiet machine now and then holds a thread up twice in a row, and other processes on the
// cores are left to the look at the cores below.
enum { SOLO_FIRST = 128, SOLO_MOST = 32768, SOLO_FORGIVEN = 4096 };
// Every WINDOW_TASKS tasks the share of ranges the other threads ran is looked at: below half
// of theirs ((workers - 1) / workers), they are not getting the time to help (other
// processes on the cores) and only take it from the caller.
enum { WINDOW_TASKS = 128 };
// A wait for the last ranges is a stall when it is this much longer than the caller's own
// share of the task: a running thread is never that far behind, a descheduled one is.
#define STALL_MARGIN_MS 0.2
// A stall counts only when another came within this many tasks before it. On a quiet machine a
// thread is held up now and then for a millisecond (the host takes its core, a page is
// touched the first time): three such in 30,000 tasks of a 256 x 256 cloth sent the pool alone
// for thousands of tasks each. Other processes on every core hold it up again and again.
enum { STALL_REPEAT_TASKS = 1024 };
// Other processes that want the cores show as involuntary context switches of the calling
// thread while the pool's threads run: on a quiet 2-core machine 0 to 5 in 100 ms, with one or
// two busy processes beside it mostly 140 to 760 (two threads then ran a 128 x 128 cloth 0.8
// times as fast as one), at times 11 to 13 (and two threads still ran it in 3 ms where one
// takes 5 beside such processes). Their rate is looked at every LOAD_CHECK_TASKS tasks, over
// at least LOAD_WINDOW_MS; at LOADED_SWITCH_RATE a second or more the caller works alone for a
// while (ALONE_FIRST_MS, doubled up to ALONE_MOST_MS each time the next look finds the cores
// still taken) and the pool's threads sleep. Alone, the rate says nothing either way (2 to 14
// in 100 ms with the cores taken, up to 3 on a quiet machine), so after the while the threads
// run again and a short look (PROBE_WINDOW_MS: the cores taken give dozens of switches in it)
// decides; cores given back are used again within ALONE_MOST_MS. The first window of a calling
// thread is not looked at: the threads just started may share its core until the system
// spreads them (1,435 switches a second seen on a quiet machine). (Only where a thread's own
// count is known: Linux.)
enum { LOAD_CHECK_TASKS = 64 };
#define LOAD_WINDOW_MS 100.0
#define PROBE_WINDOW_MS 20.0
#define LOADED_SWITCH_RATE 200
#define ALONE_FIRST_MS 500.0
#define ALONE_MOST_MS 2000.0

// A block's claim counter (pack).
typedef struct pool_block {
	alignas(64) _Atomic uint64_t next;
} pool_block;

struct pbd_task_pool {
	int workers;
	int thread_count;
	pthread_t threads[POOL_MAX_WORKERS];
	// Sleeping only: workers wait on `wake` for a new task, the caller on `done` for the last
	// range. The counts of sleepers tell the other side whether to signal.
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t done;
	atomic_int sleeping_workers;
	atomic_bool caller_sleeping;
	atomic_bool stop;
	// The current task, published as a sequence lock: `writing` takes the next task's number
	// before its fields are written, `generation` after. A thread that read a number and the
	// fields reads `writing` again: still that number, and the fields were that task's.
	alignas(64) _Atomic uint32_t generation;
	_Atomic uint32_t writing;
	_Atomic(pbd_task_fn *) task;
	_Atomic(void *) context;
	atomic_int item_count, range, range_count;
	alignas(64) atomic_int ranges_done;
	// The caller's own line: it writes `busy` twice per task, and on a line the threads read
	// each write waits for the line to come back from another core. (The threads' wait reads
	// only the task number: stopping the pool changes it too.)
	alignas(64) atomic_bool busy;  // a task is between enqueue and finish
	// Alone for a while: when a thread the system put aside held the caller up, or the other
	// threads ran too few of the ranges (other processes on every core), the next `solo_left`
	// tasks run on the caller alone, and the while doubles each time it happens again.
	atomic_int solo_left, solo_length, clean_tasks;
	atomic_int since_stall;  // tasks since the last stall (counted up to STALL_REPEAT_TASKS)
	// The look at the cores (cores_taken): tasks since the last; one thread looks at a time,
	// against what the same thread saw last (when, and its involuntary switches then); what
	// it found; how long this look is; while loaded, how long the caller works alone, and the
	// while after the next.
	atomic_int load_tasks;
	atomic_bool load_looking;
	pthread_t load_thread;
	double load_since_ms;
	int64_t load_switches;
	atomic_bool loaded;
	double window_ms, alone_ms, next_alone_ms;
	bool settling;  // the first window of a thread is not looked at (below)
	atomic_int window_tasks, window_ranges, window_helped;  // since the last look at the share
	atomic_bool waking;  // the current task had to wake sleeping threads: no measure of help
	pool_block block[POOL_MAX_WORKERS];
};

typedef struct worker_start {
	pbd_task_pool *pool;
	int index;
} worker_start;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// The calling thread's involuntary context switches so far, or -1 where unknown.
static int64_t involuntary_switches(void)
{
#if defined(RUSAGE_THREAD)
	struct rusage u;
	return getrusage(RUSAGE_THREAD, &u) == 0 ? (int64_t)u.ru_nivcsw : -1;
#else
	return -1;
#endif
}

static int block_start(int block, int range_count, int workers)
{
	return (int)((int64_t)block * range_count / workers);
}

// A block's counter: the task's number, then the block's unclaimed ranges [next, end).
static uint64_t pack(uint32_t task, int next, int end)
{
	return (uint64_t)task << 32 | (uint64_t)(uint16_t)end << 16 | (uint16_t)next;
}

// Claims a range of a block for task `task`: its owner from the front, anyone else from the
// back (the ranges a thief runs are those the owner would have reached last, and the owner's
// part of the cloth stays in its cache). Returns the range, or -1 when nothing is left (or
// the task is over). A counter still tagged with an earlier task has not been touched by
// this one: the whole block is left.
static int claim(pbd_task_pool *pool, int block, uint32_t task, int range_count, bool owner)
{
	_Atomic uint64_t *counter = &pool->block[block].next;
	uint64_t seen = atomic_load_explicit(counter, memory_order_relaxed);
	for (;;) {
		uint32_t tag = (uint32_t)(seen >> 32);
		if (tag != task && (int32_t)(tag - task) > 0)
			return -1;  // a later task has started: this one is over
		int next = tag == task ? (int)(seen & 0xffff) : block_start(block, range_count, pool->workers);
		int end = tag == task ? (int)(seen >> 16 & 0xffff) : block_start(block + 1, range_count, pool->workers);
		if (next >= end)
			return -1;
		uint64_t want = owner ? pack(task, next + 1, end) : pack(task, next, end - 1);
		if (atomic_compare_exchange_weak(counter, &seen, want))
			return owner ? next : end - 1;
	}
}

// Runs what this thread can claim of task `task`, its own block first, and reports it.
// Returns how many ranges it ran.
static int run_ranges(pbd_task_pool *pool, int worker, uint32_t task)
{
	pbd_task_fn *fn = atomic_load_explicit(&pool->task, memory_order_relaxed);
	void *context = atomic_load_explicit(&pool->context, memory_order_relaxed);
	int items = atomic_load_explicit(&pool->item_count, memory_order_relaxed);
	int range = atomic_load_explicit(&pool->range, memory_order_relaxed);
	int range_count = atomic_load_explicit(&pool->range_count, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&pool->writing, memory_order_relaxed) != task)
		return 0;  // that task is over, and the fields may be the next one's
	int ran = 0;
	for (int k = 0; k < pool->workers; ++k) {
		int block = worker + k < pool->workers ? worker + k : worker + k - pool->workers;
		for (int r; (r = claim(pool, block, task, range_count, k == 0)) >= 0; ++ran)
			fn(r * range, mini((r + 1) * range, items), worker, context);
	}
	if (ran > 0 && atomic_fetch_add(&pool->ranges_done, ran) + ran == range_count &&
	    atomic_load(&pool->caller_sleeping)) {
		pthread_mutex_lock(&pool->lock);
		pthread_cond_broadcast(&pool->done);
		pthread_mutex_unlock(&pool->lock);
	}
	return ran;
}

// Returns the task number after `seen`, or `seen` when the pool stops.
static uint32_t wait_for_task(pbd_task_pool *pool, uint32_t seen)
{
	for (int k = 0; k < SPIN_LIMIT; ++k) {
		uint32_t g = atomic_load(&pool->generation);
		if (g != seen)
			return g;
		pbd_cpu_relax();
	}
	pthread_mutex_lock(&pool->lock);
	atomic_fetch_add(&pool->sleeping_workers, 1);
	// Sleepers are counted before the number is checked and the caller publishes before it
	// reads the count: one of the two sees the other, so no wake-up is lost.
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
	uint32_t seen = 0;
	for (;;) {
		uint32_t task = wait_for_task(pool, seen);
		if (atomic_load(&pool->stop))
			return NULL;
		seen = task;
		run_ranges(pool, index, task);
	}
}

pbd_result pbd_task_pool_create(int workers, pbd_task_pool **out_pool)
{
	if (!out_pool)
		return PBD_ERR_NULL_ARGUMENT;
	*out_pool = NULL;
	if (workers < 1 || workers > POOL_MAX_WORKERS)
		return PBD_ERR_BAD_COUNT;
	size_t bytes = (sizeof(pbd_task_pool) + 63) / 64 * 64;  // whole cache lines, for the blocks' counters
	pbd_task_pool *pool = aligned_alloc(64, bytes);
	if (!pool)
		return PBD_ERR_OUT_OF_MEMORY;
	memset(pool, 0, bytes);
	pool->workers = workers;
	atomic_store(&pool->since_stall, STALL_REPEAT_TASKS);
	pool->load_switches = -1;  // no thread seen yet
	pool->window_ms = LOAD_WINDOW_MS;
	pool->next_alone_ms = ALONE_FIRST_MS;
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
	atomic_fetch_add(&pool->generation, 1);  // spinning workers look, and find the pool stopping
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->thread_count; ++i)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

// Looks at the calling thread's involuntary switches since it last looked (LOADED_SWITCH_RATE);
// while the caller works alone, only at the end of its while.
static void look_at_cores(pbd_task_pool *pool)
{
	double now = now_ms();
	int64_t switches = involuntary_switches();
	pthread_t self = pthread_self();
	if (switches < 0)
		return;
	bool loaded = atomic_load_explicit(&pool->loaded, memory_order_relaxed);
	if (pool->load_switches < 0 || !pthread_equal(self, pool->load_thread)) {
		pool->load_thread = self;  // a thread it has not seen: from now on
		pool->settling = true;
	} else if (now - pool->load_since_ms < (loaded ? pool->alone_ms : pool->window_ms)) {
		return;
	} else if (pool->settling) {
		pool->settling = false;
	} else if (loaded) {
		atomic_store_explicit(&pool->loaded, false, memory_order_relaxed);  // the threads again,
		pool->window_ms = PROBE_WINDOW_MS;                                   // and a short look
	} else {
		double rate = (double)(switches - pool->load_switches) * 1e3 / (now - pool->load_since_ms);
		if (rate >= LOADED_SWITCH_RATE) {
			atomic_store_explicit(&pool->loaded, true, memory_order_relaxed);
			pool->alone_ms = pool->next_alone_ms;
			pool->next_alone_ms = fmin(2.0 * pool->alone_ms, ALONE_MOST_MS);
		} else {
			pool->next_alone_ms = ALONE_FIRST_MS;
		}
		pool->window_ms = LOAD_WINDOW_MS;
	}
	pool->load_since_ms = now;
	pool->load_switches = switches;
}

// Whether other processes want the cores, as last seen; every LOAD_CHECK_TASKS tasks a look.
static bool cores_taken(pbd_task_pool *pool)
{
	if (atomic_fetch_add_explicit(&pool->load_tasks, 1, memory_order_relaxed) + 1 >= LOAD_CHECK_TASKS &&
	    !atomic_exchange(&pool->load_looking, true)) {
		atomic_store_explicit(&pool->load_tasks, 0, memory_order_relaxed);
		look_at_cores(pool);
		atomic_store(&pool->load_looking, false);
	}
	return atomic_load_explicit(&pool->loaded, memory_order_relaxed);
}

void *pbd_task_pool_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (item_count <= 0)
		return NULL;
	min_range = maxi(1, min_range);
	// Not worth waking anyone, or a task is already running (the pool runs one at a time).
	if (pool->workers == 1 || item_count <= min_range || atomic_load_explicit(&pool->busy, memory_order_relaxed)) {
		task(0, item_count, 0, task_context);
		return NULL;
	}
	bool alone = cores_taken(pool);
	if (!alone && atomic_load_explicit(&pool->solo_left, memory_order_relaxed) > 0) {
		atomic_fetch_sub_explicit(&pool->solo_left, 1, memory_order_relaxed);
		alone = true;
	}
	if (alone) {
		task(0, item_count, 0, task_context);
		return NULL;
	}
	atomic_store_explicit(&pool->busy, true, memory_order_relaxed);
	int ranges = RANGES_PER_WORKER * pool->workers;
	int range = maxi(min_range, (item_count + ranges - 1) / ranges);
	uint32_t number = atomic_load_explicit(&pool->generation, memory_order_relaxed) + 1;
	atomic_store_explicit(&pool->writing, number, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&pool->task, task, memory_order_relaxed);
	atomic_store_explicit(&pool->context, task_context, memory_order_relaxed);
	atomic_store_explicit(&pool->item_count, item_count, memory_order_relaxed);
	atomic_store_explicit(&pool->range, range, memory_order_relaxed);
	atomic_store_explicit(&pool->range_count, (item_count + range - 1) / range, memory_order_relaxed);
	atomic_store_explicit(&pool->ranges_done, 0, memory_order_relaxed);
	atomic_store_explicit(&pool->generation, number, memory_order_release);  // publishes the fields above
	bool waking = atomic_load(&pool->sleeping_workers) > 0;
	atomic_store_explicit(&pool->waking, waking, memory_order_relaxed);
	if (waking) {
		pthread_mutex_lock(&pool->lock);
		pthread_cond_broadcast(&pool->wake);
		pthread_mutex_unlock(&pool->lock);
	}
	return pool;
}

// Whether a stall came soon after another one (a lone stall is forgiven).
static bool stalled_again(pbd_task_pool *pool, bool stalled)
{
	int since = atomic_load_explicit(&pool->since_stall, memory_order_relaxed);
	if (!stalled) {
		if (since < STALL_REPEAT_TASKS)
			atomic_store_explicit(&pool->since_stall, since + 1, memory_order_relaxed);
		return false;
	}
	atomic_store_explicit(&pool->since_stall, 0, memory_order_relaxed);
	return since < STALL_REPEAT_TASKS;
}

// After each task: a stall sends the pool alone for a while (longer each time), a long run
// of tasks without one forgives the past.
static void note_stall(pbd_task_pool *pool, bool stalled)
{
	if (stalled) {
		int length = maxi(SOLO_FIRST, atomic_load_explicit(&pool->solo_length, memory_order_relaxed));
		atomic_store_explicit(&pool->solo_left, length, memory_order_relaxed);
		atomic_store_explicit(&pool->solo_length, mini(2 * length, SOLO_MOST), memory_order_relaxed);
		atomic_store_explicit(&pool->clean_tasks, 0, memory_order_relaxed);
	} else if (atomic_fetch_add_explicit(&pool->clean_tasks, 1, memory_order_relaxed) + 1 == SOLO_FORGIVEN) {
		atomic_store_explicit(&pool->solo_length, SOLO_FIRST, memory_order_relaxed);
	}
}

// Adds a task to the window; at its end, whether the other threads ran less than half of
// their share of it.
static bool helped_too_little(pbd_task_pool *pool, int ranges, int helped)
{
	int tasks = atomic_fetch_add_explicit(&pool->window_tasks, 1, memory_order_relaxed) + 1;
	int total = atomic_fetch_add_explicit(&pool->window_ranges, ranges, memory_order_relaxed) + ranges;
	int others = atomic_fetch_add_explicit(&pool->window_helped, helped, memory_order_relaxed) + helped;
	if (tasks < WINDOW_TASKS)
		return false;
	atomic_store_explicit(&pool->window_tasks, 0, memory_order_relaxed);
	atomic_store_explicit(&pool->window_ranges, 0, memory_order_relaxed);
	atomic_store_explicit(&pool->window_helped, 0, memory_order_relaxed);
	return 2 * (int64_t)others * pool->workers < (int64_t)total * (pool->workers - 1);
}

void pbd_task_pool_finish(void *user_task, void *user_context)
{
	pbd_task_pool *pool = user_context;
	if (!user_task)
		return;
	int range_count = atomic_load_explicit(&pool->range_count, memory_order_relaxed);
	double start = now_ms();
	int own_ranges = run_ranges(pool, 0, atomic_load_explicit(&pool->generation, memory_order_relaxed));
	for (int k = 0; k < SPIN_LIMIT && atomic_load(&pool->ranges_done) < range_count; ++k)
		pbd_cpu_relax();
	bool stalled = false;
	if (atomic_load(&pool->ranges_done) < range_count) {
		double waiting = now_ms(), own = waiting - start;
		pthread_mutex_lock(&pool->lock);
		atomic_store(&pool->caller_sleeping, true);
		while (atomic_load(&pool->ranges_done) < range_count)
			pthread_cond_wait(&pool->done, &pool->lock);
		atomic_store(&pool->caller_sleeping, false);
		pthread_mutex_unlock(&pool->lock);
		stalled = now_ms() - waiting > own + STALL_MARGIN_MS;
	}
	PBD_ASSERT(atomic_load(&pool->ranges_done) == range_count);
	atomic_store_explicit(&pool->busy, false, memory_order_relaxed);
	// Threads woken for this task (after a long serial stretch) start late on any machine.
	if (!atomic_load_explicit(&pool->waking, memory_order_relaxed))
		note_stall(pool, stalled_again(pool, stalled) ||
					 helped_too_little(pool, range_count, range_count - own_ranges));
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
