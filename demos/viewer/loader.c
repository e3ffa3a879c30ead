// SPDX-License-Identifier: MIT
// Your own mesh loaded on a thread of its own (viewer.h): reading a 490k-vertex OBJ and building
// its cloth takes seconds, and the window keeps drawing, shows how far the read has come and
// lets Escape cancel. The thread touches only the new world it makes (and the task pool, which
// the window leaves to it: no steps run meanwhile).
#include "viewer.h"

#include <stdatomic.h>
#include <string.h>

#include <GLFW/glfw3.h>  // glfwGetTime, which any thread may call

// The reader's progress callback: notes the share read; 0 (stop) once the window cancelled.
static int note_progress(float done, void *user)
{
	loader *l = user;
	atomic_store(&l->done, done);
	return !atomic_load(&l->cancel);
}

static void *work(void *context)
{
	loader *l = context;
	pbd_world_def wd = pbd_world_def_default();
	pbd_world_def_use_task_pool(&wd, l->pool);
	l->result = demo_scene_load_def(l->scene, &l->options, &wd, &l->world, &l->state, l->error, sizeof l->error);
	atomic_store(&l->finished, 1);
	return NULL;
}

bool loader_start(loader *l, const demo_scene *scene, const demo_scene_options *options, pbd_task_pool *pool)
{
	memset(l, 0, sizeof *l);
	l->scene = scene;
	l->options = *options;
	if (options->cloth_path)
		snprintf(l->cloth_path, sizeof l->cloth_path, "%s", options->cloth_path);
	l->options.cloth_path = options->cloth_path ? l->cloth_path : NULL;
	l->options.progress = note_progress;
	l->options.progress_user = l;
	l->pool = pool;
	l->started_at = glfwGetTime();
	if (pthread_create(&l->thread, NULL, work, l) != 0)
		return false;
	l->started = true;
	return true;
}

bool loader_finished(loader *l) { return l->started && atomic_load(&l->finished); }

void loader_cancel(loader *l) { atomic_store(&l->cancel, 1); }

pbd_result loader_collect(loader *l, pbd_world **world, demo_scene_state *state, char *error, size_t capacity)
{
	pthread_join(l->thread, NULL);
	l->started = false;
	*world = l->world;
	*state = l->state;
	l->world = NULL;
	if (l->result != PBD_OK && error)
		snprintf(error, capacity, "%s", l->error);
	return l->result;
}
