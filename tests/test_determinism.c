// SPDX-License-Identifier: MIT
// Determinism: the same inputs give bit-identical positions across runs and across worker
// counts (no hooks, the task pool with 1, 2 and 4 workers, and hooks that cut every task for
// 2 and 3); and no allocation happens in steps after warm-up.
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "test.h"
#include "world.h"  // the color wave's count of waves and the cloths' band reach

// FNV-1a over the bytes of every cloth's and particle group's positions.
static uint64_t hash_positions(const pbd_world *w, const demo_scene_state *s)
{
	uint64_t h = 1469598103934665603ull;
	for (int c = 0; c < s->cloth_count + s->particle_group_count; ++c) {
		int n = 0;
		const float *x = c < s->cloth_count ? pbd_cloth_positions(w, s->cloths[c], &n)
						    : pbd_particles_positions(w, s->particles[c - s->cloth_count], &n);
		const unsigned char *b = (const unsigned char *)x;
		for (size_t i = 0; x && i < (size_t)n * 3 * sizeof(float); ++i)
			h = (h ^ b[i]) * 1099511628211ull;
	}
	return h;
}

// Hooks in front of the pool that count the tasks it really spread over its threads.
typedef struct counted_pool {
	pbd_task_pool *pool;
	long spread;
} counted_pool;

static void *counted_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context, void *user)
{
	counted_pool *c = user;
	void *handle = pbd_task_pool_enqueue(task, item_count, min_range, task_context, c->pool);
	c->spread += handle != NULL;
	return handle;
}

static void counted_finish(void *handle, void *user) { pbd_task_pool_finish(handle, ((counted_pool *)user)->pool); }

// The pool works alone while other processes keep the cores busy (a test suite running beside
// it), so it may cut few tasks or none. These hooks cut every task as `workers` threads could,
// whatever the machine is doing: into ranges run on the calling thread, the last one first,
// each on its own worker index. A result that depended on where the ranges begin, in which
// order they run or on which worker would differ from one worker count to another.
typedef struct cut_hooks {
	int workers;
	long spread;  // tasks cut into two ranges or more
} cut_hooks;

static void *cut_enqueue(pbd_task_fn *task, int item_count, int min_range, void *task_context, void *user)
{
	cut_hooks *c = user;
	int pieces = 4 * c->workers;
	int range = (item_count + pieces - 1) / pieces;
	range = range > min_range ? range : min_range;
	int ranges = (item_count + range - 1) / range;
	for (int r = ranges - 1; r >= 0; --r) {
		int end = (r + 1) * range < item_count ? (r + 1) * range : item_count;
		task(r * range, end, r % c->workers, task_context);
	}
	c->spread += ranges > 1;
	return NULL;  // the whole task has run
}

static void cut_finish(void *handle, void *user)
{
	(void)handle;
	(void)user;
}

// Task hooks for a run: none (workers 0), the task pool (workers > 0, counted) or the cutting
// hooks (workers < 0: -workers of them).
typedef struct run_hooks {
	pbd_task_pool *pool;
	counted_pool counted;
	cut_hooks cut;
} run_hooks;

static int use_hooks(pbd_world_def *wd, int workers, run_hooks *h)
{
	*h = (run_hooks){.pool = NULL};
	if (workers > 0) {
		CHECK_OK(pbd_task_pool_create(workers, &h->pool));
		pbd_world_def_use_task_pool(wd, h->pool);
		CHECK(wd->worker_count == workers);
		h->counted.pool = h->pool;
		wd->enqueue_task = counted_enqueue;
		wd->finish_task = counted_finish;
		wd->user_task_context = &h->counted;
	} else if (workers < 0) {
		h->cut.workers = -workers;
		wd->worker_count = -workers;
		wd->enqueue_task = cut_enqueue;
		wd->finish_task = cut_finish;
		wd->user_task_context = &h->cut;
	}
	return 0;
}

static void end_run(pbd_world *w, run_hooks *h)
{
	pbd_world_destroy(w);
	pbd_task_pool_destroy(h->pool);
}

// Tasks the run's hooks cut: the pool's count may be anything (it works alone on a busy
// machine); the cutting hooks must have cut many.
static int check_spread(const char *name, int workers, const run_hooks *h)
{
	if (workers > 0)
		fprintf(stderr, "  %s: the pool spread %ld tasks over %d workers\n", name, h->counted.spread, workers);
	if (workers < 0) {
		fprintf(stderr, "  %s: %ld tasks cut for %d workers\n", name, h->cut.spread, -workers);
		CHECK(h->cut.spread > 1000);  // the cut path really ran
	}
	return 0;
}

// workers 0: no hooks at all; > 0: the task pool; < 0: the cutting hooks (use_hooks). A
// resolution res > 0 and a thickness > 0 replace the scene's.
static int run_hash_thick(const char *name, int res, float thickness, int workers, int frames, uint64_t *out)
{
	const demo_scene *scene = demo_scene_find(name);
	CHECK(scene);
	run_hooks hooks;
	pbd_world_def wd = pbd_world_def_default();
	if (use_hooks(&wd, workers, &hooks))
		return 1;
	pbd_world *w;
	demo_scene_state st;
	char err[256];
	demo_scene_options options = {.res = res};
	CHECK_OK(demo_scene_load_def(scene, &options, &wd, &w, &st, err, sizeof err));
	for (int c = 0; c < st.cloth_count && thickness > 0.0f; ++c) {
		pbd_cloth_material m;
		CHECK_OK(pbd_cloth_get_material(w, st.cloths[c], &m));
		m.thickness = thickness;
		CHECK_OK(pbd_cloth_set_material(w, st.cloths[c], &m));
	}
	for (int f = 0; f < frames; ++f)
		CHECK_OK(demo_scene_step(scene, w, &st, 1.0f / 60.0f));
	*out = hash_positions(w, &st);
	if (check_spread(name, workers, &hooks))
		return 1;
	end_run(w, &hooks);
	return 0;
}

static int run_hash(const char *name, int workers, int frames, uint64_t *out)
{
	return run_hash_thick(name, 0, 0.0f, workers, frames, out);
}

// The same positions after `frames` frames for every run of `workers` (see run_hash_thick).
static int same_hash_for(const char *name, int res, float thickness, int frames, const int *workers, int runs)
{
	uint64_t first = 0;
	for (int k = 0; k < runs; ++k) {
		uint64_t h = 0;
		if (run_hash_thick(name, res, thickness, workers[k], frames, &h))
			return 1;
		fprintf(stderr, "  %s, %s%d: positions hash %016llx after %d frames\n", name,
			workers[k] > 0 ? "pool workers " : workers[k] < 0 ? "cut for workers " : "no hooks, run ",
			workers[k] ? abs(workers[k]) : k + 1, (unsigned long long)h, frames);
		if (k == 0)
			first = h;
		CHECK(h == first);
	}
	return 0;
}

static const int every_kind_of_run[] = {0, 0, 1, 2, 4, -2, -3};

static int same_hash_everywhere(const char *name)
{
	return same_hash_for(name, 0, 0.0f, 300, every_kind_of_run, (int)(sizeof every_kind_of_run / sizeof every_kind_of_run[0]));
}

static int fold_deterministic(void) { return same_hash_everywhere("fold"); }
static int drape_deterministic(void) { return same_hash_everywhere("drape"); }
// Tearing changes the cloths' vertex counts mid-run: the splits are the same on every thread count.
static int tear_deterministic(void) { return same_hash_everywhere("tear"); }
// The fold strip 3 cm thick at 48 x 48: its pairs near at rest are the near pairs' windows
// (collision/near_pairs.h), certified in ranges of rows on any thread.
static int thick_fold_deterministic(void)
{
	const int workers[] = {0, 2, 4, -3};
	return same_hash_for("fold", 48, 0.03f, 90, workers, 4);
}

// The hash does see a difference: one step more, or a nudge of one vertex, changes it.
static int hash_sees_differences(void)
{
	uint64_t a, b;
	if (run_hash("drape", 0, 30, &a) || run_hash("drape", 2, 31, &b))
		return 1;
	CHECK(a != b);
	return 0;
}

// FNV-1a over the bytes of the positions of `count` cloths.
static uint64_t hash_cloths(const pbd_world *w, const pbd_cloth_id *ids, int count)
{
	uint64_t h = 1469598103934665603ull;
	for (int k = 0; k < count; ++k) {
		int n = 0;
		const unsigned char *x = (const unsigned char *)pbd_cloth_positions(w, ids[k], &n);
		for (size_t i = 0; x && i < (size_t)n * 3 * sizeof(float); ++i)
			h = (h ^ x[i]) * 1099511628211ull;
	}
	return h;
}

static const char *hooks_name(int workers)
{
	return workers > 0 ? "pool workers " : workers < 0 ? "cut for workers " : "no hooks ";
}

// A world with a run's hooks (use_hooks) and a 64 x 64 sheet without self-collision hanging
// from one edge 1 m up; in steady wind when `wind` is given (m/s, x and z).
static int sheet_world(int workers, const float *wind, run_hooks *hooks, pbd_world **w, pbd_cloth_id *id)
{
	pbd_world_def wd = pbd_world_def_default();
	if (wind) {
		wd.settings.wind[0] = wind[0], wd.settings.wind[2] = wind[1];
		wd.settings.wind_turbulence = 0.0f;
	}
	if (use_hooks(&wd, workers, hooks))
		return 1;
	CHECK_OK(pbd_world_create(&wd, w));
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = d.grid.res_y = 64;
	d.grid.pins = PBD_PIN_EDGE_V0;
	d.material.self_collision = 0;
	d.position[1] = 1.0f;
	CHECK_OK(pbd_cloth_create(*w, &d, id));
	return 0;
}

static double mean_x(const pbd_world *w, pbd_cloth_id id)
{
	int n = 0;
	const float *x = pbd_cloth_positions(w, id, &n);
	double sum = 0.0;
	for (int i = 0; x && i < n; ++i)
		sum += x[3 * i] / n;
	return sum;
}

// Air on a cloth in steady wind (no gusts) is taken four triangles at a time, the rest of a
// range one at a time, both bit for bit alike: the pool and the cutting hooks cut the
// triangles at other places for each worker count (64 x 64: 7,938 triangles, ranges of 993
// for two workers and 662 for three), and the cloth ends where it ends on one thread.
static int air_same_on_any_thread_count(void)
{
	const int workers[] = {0, 2, 3, -2, -3};
	const float wind[2] = {4.0f, 1.5f};
	uint64_t first = 0;
	for (int k = 0; k < (int)(sizeof workers / sizeof workers[0]); ++k) {
		run_hooks hooks;
		pbd_world *w;
		pbd_cloth_id id;
		if (sheet_world(workers[k], wind, &hooks, &w, &id))
			return 1;  // the air alone: no self-collision
		double start_x = mean_x(w, id);
		for (int f = 0; f < 120; ++f)
			CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		uint64_t h = hash_cloths(w, &id, 1);
		double end_x = mean_x(w, id);
		fprintf(stderr, "  %s%d: positions hash %016llx, mean x %.4f m (at rest %.4f m)\n", hooks_name(workers[k]),
			abs(workers[k]), (unsigned long long)h, end_x, start_x);
		if (check_spread("air", workers[k], &hooks))
			return 1;
		CHECK(end_x > start_x + 0.05);  // blown downwind
		if (k == 0)
			first = h;
		CHECK(h == first);
		end_run(w, &hooks);
	}
	return 0;
}

// A sheet of n x n vertices 4 cm apart whose vertex numbers are shuffled (an OBJ file may
// number them anyhow): its constraints reach across the whole vertex range, too far for a wave.
static int shuffled_sheet(pbd_world *w, int n, pbd_cloth_id *id)
{
	int count = n * n, tris = 2 * (n - 1) * (n - 1);
	int *order = malloc(sizeof *order * (size_t)count);
	float *pos = malloc(sizeof *pos * 3 * (size_t)count);
	uint32_t *idx = malloc(sizeof *idx * 3 * (size_t)tris), pins[2];
	CHECK(order && pos && idx);
	for (int i = 0; i < count; ++i)
		order[i] = i;
	uint32_t seed = 12345u;
	for (int i = count - 1; i > 0; --i) {  // Fisher-Yates with a fixed linear congruential sequence
		seed = seed * 1664525u + 1013904223u;
		int j = (int)(seed % (uint32_t)(i + 1)), t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (int r = 0; r < n; ++r)
		for (int c = 0; c < n; ++c) {
			float *p = pos + 3 * order[r * n + c];
			p[0] = 1.5f + 0.04f * (float)c, p[1] = 1.5f - 0.04f * (float)r, p[2] = 0.0f;
		}
	int t = 0;
	for (int r = 0; r + 1 < n; ++r)
		for (int c = 0; c + 1 < n; ++c) {
			uint32_t a = (uint32_t)order[r * n + c], b = (uint32_t)order[r * n + c + 1];
			uint32_t d = (uint32_t)order[(r + 1) * n + c], e = (uint32_t)order[(r + 1) * n + c + 1];
			uint32_t quad[6] = {a, d, b, b, d, e};
			memcpy(idx + 3 * t, quad, sizeof quad);
			t += 2;
		}
	pins[0] = (uint32_t)order[0], pins[1] = (uint32_t)order[n - 1];
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.source = PBD_CLOTH_MESH;
	cd.mesh.positions = pos;
	cd.mesh.vertex_count = count;
	cd.mesh.indices = idx;
	cd.mesh.triangle_count = tris;
	cd.pinned = pins;
	cd.pinned_count = 2;
	cd.material.self_collision = 0;
	pbd_result r = pbd_cloth_create(w, &cd, id);
	free(order), free(pos), free(idx);
	CHECK_OK(r);
	return 0;
}

// With several workers the colors of a grid's constraints are solved as a wave (the workers
// wait only for the parts of the cloth next to theirs, engine/color_wave.c), those of a
// shuffled mesh color after color: both end bit for bit where one thread ends, with the pool
// and with hooks that run the ranges on one thread, the last first (so a range's run must
// take the parts of the others it waits for itself).
static int color_wave_same_as_color_after_color(void)
{
	const int workers[] = {0, 2, 4, -2, -3};
	uint64_t first = 0;
	for (int k = 0; k < (int)(sizeof workers / sizeof workers[0]); ++k) {
		run_hooks hooks;
		pbd_world *w;
		pbd_cloth_id cloths[2];  // the grid, the shuffled sheet
		if (sheet_world(workers[k], NULL, &hooks, &w, &cloths[0]))
			return 1;
		if (shuffled_sheet(w, 24, &cloths[1]))
			return 1;
		int reach[2] = {0, 0}, bodies = 0;
		for (int s = 0; s < w->bodies.capacity; ++s)
			if (w->bodies.slots[s].live && bodies < 2)
				reach[bodies++] = w->bodies.slots[s].bending.band_reach;
		CHECK(bodies == 2);
		CHECK(reach[0] <= 4 && reach[1] >= 32);  // the grid's rows are near; the shuffled sheet's are not
		for (int f = 0; f < 90; ++f)
			CHECK_OK(pbd_world_step(w, 1.0f / 60.0f));
		uint64_t h = hash_cloths(w, cloths, 2);
		fprintf(stderr, "  %s%d: positions hash %016llx after %u waves\n", hooks_name(workers[k]), abs(workers[k]),
			(unsigned long long)h, w->color_wave.number);
		CHECK((w->color_wave.number > 0) == (workers[k] != 0));  // several workers: the grid's colors went as waves
		if (k == 0)
			first = h;
		CHECK(h == first);
		end_run(w, &hooks);
	}
	return 0;
}

// A task pool used directly: every item runs exactly once, on a worker index in range.
typedef struct count_job {
	int hits[10000];
	int bad_worker;
} count_job;

static void count_items(int start, int end, int worker, void *context)
{
	count_job *job = context;
	if (worker < 0 || worker >= 3)
		job->bad_worker = 1;
	for (int i = start; i < end; ++i)
		job->hits[i]++;
}

static int task_pool_runs_every_item_once(void)
{
	pbd_task_pool *pool;
	CHECK(pbd_task_pool_create(0, &pool) == PBD_ERR_BAD_COUNT);
	CHECK(pbd_task_pool_create(65, &pool) == PBD_ERR_BAD_COUNT);
	CHECK_OK(pbd_task_pool_create(3, &pool));
	static count_job job;
	for (int round = 0; round < 200; ++round) {
		int n = 1 + (round * 7919) % 10000;
		memset(&job, 0, sizeof job);
		void *t = pbd_task_pool_enqueue(count_items, n, 1 + round % 50, &job, pool);
		pbd_task_pool_finish(t, pool);
		for (int i = 0; i < 10000; ++i)
			CHECK(job.hits[i] == (i < n ? 1 : 0));
		CHECK(!job.bad_worker);
	}
	pbd_task_pool_destroy(pool);
	// Hooks must come in pairs; worker counts are bounded.
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *w;
	wd.enqueue_task = pbd_task_pool_enqueue;
	CHECK(pbd_world_create(&wd, &w) == PBD_ERR_NULL_ARGUMENT);
	wd = pbd_world_def_default();
	wd.worker_count = 0;
	CHECK(pbd_world_create(&wd, &w) == PBD_ERR_BAD_COUNT);
	return 0;
}

typedef struct counting_allocator {
	long calls;
} counting_allocator;

static void *count_alloc(size_t size, size_t align, void *user)
{
	((counting_allocator *)user)->calls++;
	size_t rounded = (size + align - 1) / align * align;
	return aligned_alloc(align, rounded);
}

static void count_free(void *ptr, size_t size, void *user)
{
	(void)size;
	(void)user;
	free(ptr);
}

// After warm-up the step allocates nothing (counted through the allocator hooks) but the
// trims that give memory back: cloth in self-contact, on colliders, free particles, a moving
// collider and an attachment. (Contact buffers grow to the largest count seen lately, so a
// scene whose contacts keep rising, like bullet's later balls, still allocates when they do;
// every 150 steps a list over four times larger than its use shrinks, one allocation each:
// the cape's character meets a banner only now and then.)
static int no_allocation_after_warm_up(void)
{
	const char *names[] = {"fold", "drape", "pile", "cape"};
	// Contact buffers grow to their high-water marks the first time things meet: the cape's
	// character meets each banner first at about frames 130, 182, 286 and 384, so its warm-up
	// is one lap (7 s); the pile's particles keep pouring in, and its pair lists last grow at
	// about frame 300 (then not again in 1200 frames); the drape, at denim's bending, settles
	// into new folds for a while, and its lists last grow at frame 362 (then not again up to
	// frame 1020).
	const int warm_frames[] = {120, 420, 360, 420}, frames[] = {60, 60, 60, 60};
	for (int k = 0; k < 4; ++k) {
		counting_allocator counter = {0};
		pbd_world_def wd = pbd_world_def_default();
		wd.allocator = (pbd_allocator){count_alloc, count_free, &counter};
		const demo_scene *scene = demo_scene_find(names[k]);
		pbd_world *w;
		demo_scene_state st;
		char err[256];
		CHECK_OK(demo_scene_load_def(scene, NULL, &wd, &w, &st, err, sizeof err));
		for (int f = 0; f < warm_frames[k]; ++f)
			CHECK_OK(demo_scene_step(scene, w, &st, 1.0f / 60.0f));
		long warm = counter.calls;
		pbd_world_stats before = pbd_world_get_stats(w);
		for (int f = 0; f < frames[k]; ++f)
			CHECK_OK(demo_scene_step(scene, w, &st, 1.0f / 60.0f));
		pbd_world_stats after = pbd_world_get_stats(w);
		fprintf(stderr, "  %s: %ld allocations in %d frames of warm-up, %ld in the next %d (%lld by trims)\n",
			names[k], warm, warm_frames[k], counter.calls - warm, frames[k], (long long)(after.trims - before.trims));
		CHECK(warm > 0);
		CHECK(counter.calls - warm == after.allocations - before.allocations);
		// Nothing allocates but the trims that give back what a transient left (every 150 steps).
		CHECK(counter.calls - warm == after.trims - before.trims);
		pbd_world_destroy(w);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		DEEP_TEST(fold_deterministic),
		SLOW_TEST(drape_deterministic),
		DEEP_TEST(tear_deterministic),
		DEEP_TEST(thick_fold_deterministic),
		TEST(hash_sees_differences),
		TEST(air_same_on_any_thread_count),
		TEST(color_wave_same_as_color_after_color),
		TEST(task_pool_runs_every_item_once),
		DEEP_TEST(no_allocation_after_warm_up),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
