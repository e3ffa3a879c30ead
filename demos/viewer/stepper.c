// SPDX-License-Identifier: MIT
// The live window's steps on a thread of their own (viewer.h): the window keeps drawing,
// turning the camera and answering Escape at display rate whatever a step costs.
//
// One rule keeps it simple: while the worker steps, it alone touches the world and the scene
// state; the main thread draws what the last sync copied and queues the input that needs the
// world. The mutex hands the world over in both directions.
#include "viewer.h"

#include <GLFW/glfw3.h>  // glfwGetTime, which any thread may call

static void *work(void *context)
{
	stepper *s = context;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stop && s->pending == 0)
			pthread_cond_wait(&s->wake, &s->lock);
		if (s->stop)
			break;
		int steps = s->pending;
		app *a = s->a;
		pthread_mutex_unlock(&s->lock);
		pbd_world_stats stats;
		double start = glfwGetTime();
		int done = 0;
		pbd_result r = app_advance(a->scene, a->world, &a->state, steps, &done, &stats);
		double seconds = glfwGetTime() - start;
		pthread_mutex_lock(&s->lock);
		s->result = r;
		s->stats = stats;
		s->steps_done = done;
		s->seconds_per_step = done > 0 ? seconds / done : seconds;
		s->finished = true;
		s->pending = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

bool stepper_start(stepper *s, app *a)
{
	*s = (stepper){.a = a};
	if (pthread_mutex_init(&s->lock, NULL) != 0)
		return false;
	if (pthread_cond_init(&s->wake, NULL) != 0) {
		pthread_mutex_destroy(&s->lock);
		return false;
	}
	if (pthread_create(&s->thread, NULL, work, s) != 0) {
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		return false;
	}
	s->running = true;
	return true;
}

bool stepper_busy(stepper *s)
{
	pthread_mutex_lock(&s->lock);
	bool busy = s->pending > 0;
	pthread_mutex_unlock(&s->lock);
	return busy;
}

void stepper_launch(stepper *s, int steps)
{
	pthread_mutex_lock(&s->lock);
	s->pending = steps;
	s->finished = false;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

bool stepper_collect(stepper *s, int *steps_done, pbd_result *result, pbd_world_stats *stats)
{
	pthread_mutex_lock(&s->lock);
	bool collected = s->finished && s->pending == 0;
	if (collected) {
		*steps_done = s->steps_done;
		*result = s->result;
		*stats = s->stats;
		s->finished = false;
	}
	pthread_mutex_unlock(&s->lock);
	return collected;
}

bool stepper_stop(stepper *s)
{
	if (!s->running)
		return true;
	pthread_mutex_lock(&s->lock);
	bool idle = s->pending == 0;
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (!idle)
		return false;  // a step still runs: the process ends without waiting for it
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	s->running = false;
	return true;
}
