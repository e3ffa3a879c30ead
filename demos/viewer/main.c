// SPDX-License-Identifier: MIT
// pbd-viewer: an OpenGL 3.3 window on the scene table, tuned from the keyboard.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "pbd_tuning.h"
#include "tools.h"
#include "viewer.h"

#define MAX_KEY_EVENTS 256

// What a run of the scene on show cost, for the line the viewer prints when it ends: frames
// drawn and wall time since the scene (re)started, simulated time, the longest frame.
typedef struct run_summary {
	double started_at, sim_at_start, last_sim, longest;
	long frames;
} run_summary;

static void summary_frame(run_summary *r, const app *a, double now, double frame_seconds)
{
	if (a->sim_time < r->last_sim) {  // a reset or another scene: its own run from here
		*r = (run_summary){now, a->sim_time, a->sim_time, 0.0, 0};
	}
	r->last_sim = a->sim_time;
	r->frames++;
	if (r->frames > 1 && frame_seconds > r->longest)
		r->longest = frame_seconds;
}

static void print_summary(const run_summary *r, const app *a, double now)
{
	double wall = now - r->started_at, sim = a->sim_time - r->sim_at_start;
	if (r->frames <= 0 || !(wall > 0.0))
		return;
	fprintf(stderr,
		"pbd-viewer: summary %s: %ld frames drawn in %.2f s (%.1f fps, longest frame %.1f ms); "
		"%.2f s simulated (%.2fx real time)\n",
		a->scene ? a->scene->name : "none", r->frames, wall,
		r->frames / wall, 1000.0 * r->longest, sim, sim / wall);
}

typedef struct viewer_options {
	demo_flags common;        // frames < 0: interactive
	int width, height;
	const char *screenshot;
	const char *keys;
	const char *shaders;
	const char *drops[8];     // --drop FRAME:FILE, test mode
	int drop_count;
	const char *record_dir;   // --record: a PNG of every drawn frame
	const char *dump_dir;     // --dump: an OBJ of every drawn frame
	int samples;              // --samples: multisampling; -1: 4 in a live window, 0 in test mode
} viewer_options;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pbd-viewer [--scene NAME] [--size WxH] [--frames N] [--screenshot FILE]\n"
		"                  [--keys FRAME:KEY,...] [--res N] [--threads N] [--shaders DIR]\n"
		"                  [--cloth FILE.obj [--pin SPEC] [--sphere]] [--material NAME] [--params FILE]\n"
		"                  [--save-params FILE] [--drop FRAME:FILE.obj] [--record DIR] [--dump DIR]\n"
		"                  [--samples N]\n"
		"  --scene NAME       scene to show (default: the first); scenes:");
	for (int i = 0; i < demo_scene_count(); ++i)
		fprintf(out, " %s", demo_scene_at(i)->name);
	fprintf(out, "\n"
		     "  --size WxH         window size in pixels (default 1280x720)\n"
		     "  --samples N        multisampling, 0..16 (default 4; 0 with --frames, so test pictures\n"
		     "                     do not depend on the driver's resolve)\n"
		     "  --frames N         run exactly N frames at a fixed 1/60 s, then exit 0\n"
		     "  --screenshot FILE  write a PNG of the last frame (with --frames), and the P key's path\n"
		     "  --keys LIST        key presses at given frames, e.g. \"10:S,20:shift+S,30:space\"\n"
		     "  --save-params FILE where the O key writes the tuning (default pbd-tuning.ini)\n"
		     "  --drop FRAME:FILE  test mode: drop FILE on the window at FRAME (repeatable)\n"
		     "  --record DIR       write DIR/frame_%%05d.png of every drawn frame (with --frames: the\n"
		     "                     same pictures on every run; make an animation with ffmpeg or convert)\n"
		     "  --dump DIR         write DIR/frame_%%05d.obj of every drawn frame: the cloths, free\n"
		     "                     particles and spheres as pbd-sim --dump writes them, and a drag in\n"
		     "                     progress (# drag vertex V pinned 0|1 target X Y Z)\n"
		     "  --shaders DIR      where the GLSL files are (default: next to the build or install)\n");
	demo_flags_help(out, 21);
	fprintf(out, "\n");
	keys_print_help(out);
}

// The flags of the viewer alone; the shared ones (tools.h) are read before.
static int parse_own_flag(int argc, char **argv, int *i, viewer_options *o)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
		usage(stdout);
		exit(0);
	}
	if (!demo_flag_has_value("pbd-viewer", a, v))
		return 0;
	if (strcmp(a, "--size") == 0) {
		if (sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 64 || o->height < 64 || o->width > 8192 ||
		    o->height > 8192) {
			fprintf(stderr, "pbd-viewer: --size needs WxH between 64 and 8192, got '%s'\n", v);
			return 0;
		}
	} else if (strcmp(a, "--samples") == 0) {
		char *end = NULL;
		long n = strtol(v, &end, 10);
		if (end == v || *end || n < 0 || n > 16) {
			fprintf(stderr, "pbd-viewer: --samples needs 0..16, got '%s'\n", v);
			return 0;
		}
		o->samples = (int)n;
	} else if (strcmp(a, "--screenshot") == 0) {
		o->screenshot = v;
	} else if (strcmp(a, "--keys") == 0) {
		o->keys = v;
	} else if (strcmp(a, "--shaders") == 0) {
		o->shaders = v;
	} else if (strcmp(a, "--record") == 0) {
		o->record_dir = v;
	} else if (strcmp(a, "--dump") == 0) {
		o->dump_dir = v;
	} else if (strcmp(a, "--drop") == 0) {
		char *end = NULL;
		long frame = strtol(v, &end, 10);
		if (end == v || *end != ':' || frame < 0 || !end[1] || o->drop_count == 8) {
			fprintf(stderr, "pbd-viewer: --drop needs FRAME:FILE (at most 8), got '%s'\n", v);
			return 0;
		}
		o->drops[o->drop_count++] = v;
	} else {
		fprintf(stderr, "pbd-viewer: unknown option '%s' (try --help)\n", a);
		return 0;
	}
	++*i;
	return 1;
}

static int parse_args(int argc, char **argv, viewer_options *o)
{
	memset(o, 0, sizeof *o);
	o->common = (demo_flags){.tool = "pbd-viewer", .frames = -1, .threads = 1, .save_params = "pbd-tuning.ini"};
	o->width = 1280;
	o->height = 720;
	o->samples = -1;
	for (int i = 1; i < argc; ++i) {
		demo_flag_result shared = demo_flags_parse(&o->common, argc, argv, &i);
		if (shared == DEMO_FLAG_BAD || (shared == DEMO_FLAG_OTHER && !parse_own_flag(argc, argv, &i, o)))
			return 0;
	}
	return 1;
}

// The shaders: --shaders, else installed beside the binary (../share/pbd/shaders), else the
// source tree the binary was built from.
static const char *find_shaders(const char *given, char *buffer, size_t cap)
{
	if (given)
		return given;
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buffer, cap, "%s/../share/pbd/shaders", exe);
			if (access(buffer, R_OK) == 0)
				return buffer;
		}
	}
	return PBD_SOURCE_SHADER_DIR;
}

static const char *glfw_key_name(int key)
{
	static char letter[2];
	if (key >= GLFW_KEY_A && key <= GLFW_KEY_Z) {
		letter[0] = (char)('A' + (key - GLFW_KEY_A));
		letter[1] = '\0';
		return letter;
	}
	if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
		letter[0] = (char)('1' + (key - GLFW_KEY_1));
		letter[1] = '\0';
		return letter;
	}
	switch (key) {
	case GLFW_KEY_SPACE: return "space";
	case GLFW_KEY_TAB: return "tab";
	case GLFW_KEY_PERIOD: return ".";
	case GLFW_KEY_RIGHT_BRACKET: return "]";
	case GLFW_KEY_LEFT_BRACKET: return "[";
	case GLFW_KEY_ESCAPE: return "escape";
	default: return NULL;
	}
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
	(void)scancode;
	app *a = glfwGetWindowUserPointer(w);
	if (action != GLFW_PRESS && action != GLFW_REPEAT)
		return;
	if (panel_wants_keyboard(a))
		return;  // typing a value into the control panel
	const char *name = glfw_key_name(key);
	if (a->loading && name && strcmp(name, "escape") == 0) {  // Escape cancels a load first
		app_cancel_load(a);
		return;
	}
	// Held parameter keys repeat at the keyboard's rate; toggles act on the press only.
	if (!name || !(action == GLFW_PRESS || (name[1] == '\0' && name[0] >= 'A' && name[0] <= 'Z')))
		return;
	bool shift = (mods & GLFW_MOD_SHIFT) != 0;
	if (a->stepping && !keys_view_only(name)) {  // it needs the world: after the step
		input_event e = {.kind = INPUT_KEY, .shift = shift};
		snprintf(e.key, sizeof e.key, "%s", name);
		app_queue_input(a, &e);
		return;
	}
	keys_press(a, name, shift);
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods)
{
	app *a = glfwGetWindowUserPointer(w);
	int b = button == GLFW_MOUSE_BUTTON_LEFT ? 0 : (button == GLFW_MOUSE_BUTTON_RIGHT ? 1 : 2);
	bool down = action == GLFW_PRESS, shift = (mods & GLFW_MOD_SHIFT) != 0;
	if (down && panel_wants_mouse(a))
		return;  // a press on the control panel is the panel's (a release still ends a drag)
	// A plain left press picks the cloth and its release lets go: both need the world, so
	// while a step runs they wait for it (in order). Panning and orbiting do not.
	bool needs_world = (b == 0 && (down ? !shift : a->dragging || a->queued_count > 0)) ||
			   (b == 1 && (down ? !shift : a->holding || a->queued_count > 0));
	if (a->stepping && needs_world) {
		input_event e = {.kind = INPUT_MOUSE_BUTTON, .button = b, .down = down, .shift = shift};
		app_queue_input(a, &e);
		return;
	}
	app_mouse_button(a, b, down, shift);
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
	app *a = glfwGetWindowUserPointer(w);
	int ww, wh;
	glfwGetWindowSize(w, &ww, &wh);
	// Work in framebuffer pixels (they differ from window units on high-DPI screens).
	app_mouse_move(a, x * a->width / (ww > 0 ? ww : 1), y * a->height / (wh > 0 ? wh : 1));
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
	(void)dx;
	app *a = glfwGetWindowUserPointer(w);
	if (!panel_wants_mouse(a))
		app_scroll(a, dy);
}

static void on_error(int code, const char *text)
{
	fprintf(stderr, "pbd-viewer: GLFW error %d: %s\n", code, text);
}

// Files dropped on the window: the first one that is an OBJ file becomes the cloth.
static void on_drop(GLFWwindow *window, int count, const char **paths)
{
	app *a = glfwGetWindowUserPointer(window);
	if (count <= 0)
		return;
	if (a->stepping)
		snprintf(a->queued_drop, sizeof a->queued_drop, "%s", paths[0]);  // loaded after the step
	else
		app_drop_file(a, paths[0]);
}

// --record: the frame just drawn (frame numbers from 0, as pbd-sim's dumps). --dump's OBJ
// files are written where the world is read for drawing (app_sync): in a live window that is
// between steps, which run on their own thread, so some frame numbers have none.
static bool write_frame_files(app *a, const viewer_options *o, int frame)
{
	char path[4096];
	bool ok = !a->dump_failed;
	if (o->record_dir) {
		snprintf(path, sizeof path, "%s/frame_%05d.png", o->record_dir, frame);
		ok &= app_write_png(a, path);
	}
	return ok;
}

// A directory for --record or --dump: made when missing; false (with a message) when it
// cannot be written to.
static bool prepare_dir(const char *flag, const char *dir)
{
	if (!dir)
		return true;
	mkdir(dir, 0777);  // may exist already
	if (access(dir, W_OK) != 0) {
		fprintf(stderr, "pbd-viewer: %s %s: %s\n", flag, dir, strerror(errno));
		return false;
	}
	return true;
}

// Live window, world idle: takes in the last batch of steps, applies the input that waited
// for it, copies what the frames draw, and hands the steps now due (fixed 60 Hz against the
// wall clock) to the worker (or, without one, at most 4 here). While steps are faster than
// real time, a batch catches up on as much as a quarter of a second: a slow display (Mesa's
// software renderer draws some scenes at 5 frames a second) must not put the simulation in
// slow motion, and steps that keep up cannot spiral. When they are slower than real time,
// one at a time, and the time they miss is dropped.
#define CATCH_UP_SECONDS 0.25
static void run_due_steps(app *a, stepper *worker)
{
	int done = 0;
	pbd_result r;
	if (worker && stepper_collect(worker, &done, &r, &a->stats))
		app_note_steps(a, done, r);
	a->stepping = false;
	app_apply_queued_input(a);
	int most = !worker ? 4 : worker->seconds_per_step > VIEWER_DT ? 1 : (int)(CATCH_UP_SECONDS / VIEWER_DT);
	int due = 0;
	while (a->accumulator >= VIEWER_DT && due < most) {
		a->accumulator -= VIEWER_DT;
		due++;
	}
	if (a->accumulator > VIEWER_DT)
		a->accumulator = 0.0;  // fell behind: drop time rather than spiral
	int steps = a->paused ? (a->step_once ? 1 : 0) : due;
	a->step_once = false;
	app_sync(a);  // the frames draw this state until the steps are done
	if (steps == 0)
		return;
	app_follow_drag(a);
	if (worker) {
		a->stepping = true;
		stepper_launch(worker, steps);
		return;
	}
	r = app_advance(a->scene, a->world, &a->state, steps, &done, &a->stats);
	app_note_steps(a, done, r);
}

int main(int argc, char **argv)
{
	viewer_options o;
	if (!parse_args(argc, argv, &o))
		return 2;
	const demo_scene *scene = o.common.cloth ? demo_scene_find("mesh") : o.common.scene ? demo_scene_find(o.common.scene) : demo_scene_at(0);
	pbd_tuning tuning = pbd_tuning_default();
	char error[512];
	if (o.common.params && pbd_tuning_load(o.common.params, &tuning, error, sizeof error) != 0) {
		fprintf(stderr, "pbd-viewer: --params %s\n", error);
		return 2;
	}
	if (o.common.material && pbd_tuning_apply_preset(&tuning, o.common.material) != 0) {
		fprintf(stderr, "pbd-viewer: unknown material '%s' (materials:", o.common.material);
		for (int i = 0; i < pbd_tuning_preset_count(); ++i)
			fprintf(stderr, " %s", pbd_tuning_preset_name(i));
		fprintf(stderr, ")\n");
		return 2;
	}
	if (!scene) {
		fprintf(stderr, "pbd-viewer: unknown scene '%s'; scenes:", o.common.scene);
		for (int i = 0; i < demo_scene_count(); ++i)
			fprintf(stderr, " %s", demo_scene_at(i)->name);
		fprintf(stderr, "\n");
		return 2;
	}
	if (!prepare_dir("--record", o.record_dir) || !prepare_dir("--dump", o.dump_dir))
		return 2;
	key_event events[MAX_KEY_EVENTS];
	int event_count = 0;
	if (o.keys && (event_count = keys_parse_script(o.keys, events, MAX_KEY_EVENTS, error, sizeof error)) < 0) {
		fprintf(stderr, "pbd-viewer: %s\n", error);
		return 2;
	}
	glfwSetErrorCallback(on_error);
	if (!glfwInit()) {
		fprintf(stderr, "pbd-viewer: cannot open a window (no display?); try pbd-sim or xvfb-run\n");
		return 1;
	}
	glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
	glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
	glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
	glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
	// Edges smoothed in a live window; test mode draws without unless asked, so that its
	// pictures do not depend on how a driver resolves the samples.
	int samples = o.samples >= 0 ? o.samples : o.common.frames >= 0 ? 0 : 4;
	glfwWindowHint(GLFW_SAMPLES, samples);
	char title[128];
	snprintf(title, sizeof title, "pbd - %s", scene->name);
	if (o.common.frames < 0 && strcmp(scene->name, "mesh") == 0)  // a live window loads it first
		snprintf(title, sizeof title, "pbd - loading");
	GLFWwindow *window = glfwCreateWindow(o.width, o.height, title, NULL, NULL);
	if (!window) {
		fprintf(stderr, "pbd-viewer: cannot create an OpenGL 3.3 core window\n");
		glfwTerminate();
		return 1;
	}
	glfwMakeContextCurrent(window);
	if (!gladLoadGL(glfwGetProcAddress)) {
		fprintf(stderr, "pbd-viewer: cannot load OpenGL functions\n");
		glfwTerminate();
		return 1;
	}
	bool test_mode = o.common.frames >= 0;
	glfwSwapInterval(test_mode ? 0 : 1);
	char shader_buffer[1100];
	const char *shader_dir = find_shaders(o.shaders, shader_buffer, sizeof shader_buffer);
	app a;
	memset(&a, 0, sizeof a);
	a.mouse_button = -1;
	a.show_panel = true;
	a.test_mode = test_mode;
	a.options.res = o.common.res;
	a.options.pins = o.common.pins;
	a.options.sphere = o.common.sphere;
	if (o.common.cloth) {
		snprintf(a.cloth_path, sizeof a.cloth_path, "%s", o.common.cloth);
		a.options.cloth_path = a.cloth_path;
	}
	if (o.common.material)
		snprintf(a.material, sizeof a.material, "%s", o.common.material);
	a.have_tuning = o.common.params != NULL;
	a.tuning = &tuning;
	a.tuning_path = o.common.save_params;
	if (o.common.threads > 1 && pbd_task_pool_create(o.common.threads, &a.pool) != PBD_OK) {
		fprintf(stderr, "pbd-viewer: cannot start %d worker threads\n", o.common.threads);
		glfwTerminate();
		return 1;
	}
	a.screenshot_path = o.screenshot;
	a.dump_dir = o.dump_dir;
	a.render = renderer_create(shader_dir, error, sizeof error);
	if (!a.render) {
		fprintf(stderr, "pbd-viewer: %s\n", error);
		pbd_task_pool_destroy(a.pool);
		glfwTerminate();
		return 1;
	}
	// A live window reads your own mesh on a thread of its own, drawing an empty floor and
	// the progress meanwhile; test mode loads in line.
	a.load_async = !test_mode;
	bool first_async = a.load_async && strcmp(scene->name, "mesh") == 0;
	a.load_is_first = first_async;
	if (first_async ? !app_load_placeholder(&a, scene) || !app_load_scene(&a, scene, false)
			: !app_load_scene(&a, scene, false)) {
		renderer_destroy(a.render);
		pbd_task_pool_destroy(a.pool);
		glfwTerminate();
		return 1;
	}
	a.stats = pbd_world_get_stats(a.world);
	glfwSetWindowUserPointer(window, &a);
	glfwSetKeyCallback(window, on_key);
	glfwSetMouseButtonCallback(window, on_mouse_button);
	glfwSetCursorPosCallback(window, on_cursor);
	glfwSetScrollCallback(window, on_scroll);
	glfwSetDropCallback(window, on_drop);
	a.have_controls = panel_create(window);  // after the callbacks above: it passes events on to them
	glfwGetFramebufferSize(window, &a.width, &a.height);

	int next_event = 0, status = 0;
	double last = glfwGetTime(), fps_time = last, fps_sim_time = a.sim_time;
	long fps_frames = 0;
	run_summary summary = {last, a.sim_time, a.sim_time, 0.0, 0};
	// A live window steps on its own thread, so that it answers at display rate whatever a
	// step costs; test mode steps in line, one fixed step per frame, for repeatable pictures.
	stepper steps;
	bool threaded = !test_mode && stepper_start(&steps, &a);
	const demo_scene *titled = a.loading ? NULL : a.scene;  // the window's title names the scene shown
	while (!glfwWindowShouldClose(window) && !a.quit && !(test_mode && a.frame >= o.common.frames)) {
		glfwPollEvents();
		glfwGetFramebufferSize(window, &a.width, &a.height);
		double now = glfwGetTime();
		for (; next_event < event_count && events[next_event].frame <= a.frame; ++next_event)
			keys_press(&a, events[next_event].key, events[next_event].shift);
		for (int d = 0; d < o.drop_count; ++d)
			if (strtol(o.drops[d], NULL, 10) == a.frame)
				app_drop_file(&a, strchr(o.drops[d], ':') + 1);
		if (a.quit)
			break;
		if (test_mode) {
			// Exactly one fixed step per frame: the same flags give the same pictures.
			if (!a.paused || a.step_once)
				app_step(&a);
			a.step_once = false;
			app_sync(&a);
			a.frame_ms[a.frame_ms_newest = (a.frame_ms_newest + 1) % VIEWER_HISTORY] = 0.0f;  // no wall clock
		} else {
			a.accumulator += now - last;
			bool may_step = app_poll_load(&a);  // a mesh loading holds the steps (and the pool)
			if (a.first_load_failed) {
				status = 1;
				break;
			}
			if (!may_step && (!threaded || !stepper_busy(&steps))) {
				a.accumulator = 0.0;
				app_sync(&a);  // the old scene (or the empty floor) stands still meanwhile
			} else if (!threaded || !stepper_busy(&steps))
				run_due_steps(&a, threaded ? &steps : NULL);
			a.frame_ms[a.frame_ms_newest = (a.frame_ms_newest + 1) % VIEWER_HISTORY] = (float)((now - last) * 1000.0);
		}
		summary_frame(&summary, &a, now, now - last);
		last = now;
		if (++fps_frames, now - fps_time >= 0.5) {
			a.fps = fps_frames / (now - fps_time);
			// A scene reset or change restarts its time: that half second says nothing.
			a.real_time_share = a.sim_time >= fps_sim_time ? (a.sim_time - fps_sim_time) / (now - fps_time) : 1.0;
			fps_time = now;
			fps_sim_time = a.sim_time;
			fps_frames = 0;
		}
		if (a.loading) {  // the title tells the progress too (and the tests read it)
			char loading[sizeof title];
			snprintf(loading, sizeof loading, "pbd - loading %.80s %d%%", app_loading_name(&a),
				 (int)(100.0f * app_loading_share(&a)));
			if (strcmp(loading, title) != 0) {
				memcpy(title, loading, sizeof title);
				glfwSetWindowTitle(window, title);
			}
			titled = NULL;
		} else if (a.scene != titled) {
			snprintf(title, sizeof title, "pbd - %s", a.scene->name);
			glfwSetWindowTitle(window, title);
			titled = a.scene;
		}
		app_draw(&a);
		panel_draw(&a);
		a.frame++;
		bool last_frame = test_mode && a.frame >= o.common.frames;
		if (last_frame && o.screenshot && !app_write_screenshot(&a, o.screenshot))
			status = 1;
		if (!write_frame_files(&a, &o, a.frame - 1))
			status = 1;
		if (a.want_screenshot) {
			char path[1100];
			if (a.screenshot_path && !test_mode)
				snprintf(path, sizeof path, "%s", a.screenshot_path);
			else
				snprintf(path, sizeof path, "pbd-screenshot-%03d.png", ++a.screenshot_count);
			app_write_screenshot(&a, path);
			a.want_screenshot = false;
		}
		glfwSwapBuffers(window);
	}
	print_summary(&summary, &a, glfwGetTime());
	if (a.load.started) {  // quit while a mesh loads: stop it where it is
		a.load_is_first = false;
		app_cancel_load(&a);
		if (!loader_finished(&a.load)) {
			glfwDestroyWindow(window);
			glfwTerminate();
			fflush(stdout);
			fflush(stderr);
			_exit(status);
		}
		app_poll_load(&a);
	}
	if (threaded && !stepper_stop(&steps)) {
		// Quit while a step runs: the window goes at once and the process ends without
		// waiting for the step (the operating system takes back what the world holds).
		glfwDestroyWindow(window);
		glfwTerminate();
		fflush(stdout);
		fflush(stderr);
		_exit(status);
	}
	panel_destroy();
	app_free(&a);
	pbd_world_destroy(a.world);
	pbd_task_pool_destroy(a.pool);
	renderer_destroy(a.render);
	glfwDestroyWindow(window);
	glfwTerminate();
	return status;
}
