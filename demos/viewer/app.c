// SPDX-License-Identifier: MIT
// The viewer's state: the scene, stepping at a fixed rate, the overlay, mouse dragging.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "pbd_tuning.h"
#include "viewer.h"

#include <GLFW/glfw3.h>  // glfwGetTime, after glad (viewer.h)

void app_set_status(app *a, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vsnprintf(a->status, sizeof a->status, fmt, args);
	va_end(args);
	a->status_time = a->sim_time;
}

static bool is_mesh_scene(const demo_scene *scene) { return strcmp(scene->name, "mesh") == 0; }

// The new world of `scene` takes the old one's place: a loaded tuning, then the chosen preset,
// then (keep_params) what the keys changed in the old world; the camera looks at the scene.
static void adopt_world(app *a, const demo_scene *scene, pbd_world *world, demo_scene_state *state, bool keep_params)
{
	char error[512];
	int nparams = demo_param_count();
	if (a->have_tuning && demo_apply_tuning(world, state, a->tuning, error, sizeof error) != PBD_OK)
		app_set_status(a, "%s", error);
	if (a->material[0] && demo_apply_preset(world, state, a->material, error, sizeof error) != PBD_OK)
		app_set_status(a, "%s", error);
	if (keep_params && a->world)
		for (int i = 0; i < nparams && i < 64; ++i)
			demo_param_at(i)->set(world, state, demo_param_at(i)->get(a->world, &a->state));
	bool same_scene = a->scene == scene;
	renderer_forget_cloths(a->render);  // the new world's cloths are new, whatever their ids
	a->pin_count = a->normal_count = 0;  // the marks were the old world's (the next sync draws these)
	a->contact_count = a->candidate_count = a->flash_count = 0;
	pbd_world_destroy(a->world);
	a->world = world;
	a->state = *state;
	a->scene = scene;
	a->dragging = false;
	a->holding = false;
	a->accumulator = 0.0;
	a->sim_time = 0.0;  // t on the overlay is the scene's own time
	a->status_time = 0.0;
	if (!same_scene)
		camera_from_scene(&a->cam, scene);
	a->cam_heading = NAN;  // follows from here; a reset keeps the view turned as the mouse left it
	camera_follow(&a->cam, scene, a->world, &a->state, &a->cam_heading);
	if (is_mesh_scene(scene))
		app_frame_cloth(a);  // your own mesh, whatever its size: all of it in view
	if (state->message[0])  // your own mesh: what the reader found and how many vertices --pin held
		app_set_status(a, "%s", state->message);
}

bool app_load_scene(app *a, const demo_scene *scene, bool keep_params)
{
	if (a->load_async && is_mesh_scene(scene)) {
		if (a->loading || a->load.started) {
			app_set_status(a, "a mesh is still loading");
			return false;
		}
		if (!loader_start(&a->load, scene, &a->options, a->pool)) {
			app_set_status(a, "cannot start loading %s", a->options.cloth_path);
			return false;
		}
		a->loading = true;
		a->load_keep_params = keep_params;
		return true;
	}
	pbd_world *world = NULL;
	demo_scene_state state;
	char error[512];
	pbd_world_def wd = pbd_world_def_default();
	pbd_world_def_use_task_pool(&wd, a->pool);
	if (demo_scene_load_def(scene, &a->options, &wd, &world, &state, error, sizeof error) != PBD_OK) {
		app_set_status(a, "%s", error);
		fprintf(stderr, "pbd-viewer: %s\n", error);
		return false;
	}
	adopt_world(a, scene, world, &state, keep_params);
	return true;
}

// A cancelled first load: the first scene of the table takes the empty floor's place.
static void show_first_scene_instead(app *a)
{
	a->load_is_first = false;
	app_load_scene(a, demo_scene_at(0), false);
}

bool app_poll_load(app *a)
{
	if (!a->load.started)
		return true;
	if (!loader_finished(&a->load))
		return a->pool == NULL && !a->loading;  // an abandoned load on its own thread: steps may run beside it
	pbd_world *world = NULL;
	demo_scene_state state;
	char error[512] = "";
	pbd_result r = loader_collect(&a->load, &world, &state, error, sizeof error);
	bool wanted = a->loading;
	a->loading = false;
	if (!wanted) {  // cancelled: the old scene ran on (the first scene: the first of the table)
		pbd_world_destroy(world);
		if (a->load_is_first)
			show_first_scene_instead(a);
		return true;
	}
	if (r == PBD_OK) {
		snprintf(a->cloth_path, sizeof a->cloth_path, "%s", a->load.cloth_path);
		a->options.cloth_path = a->cloth_path;
		adopt_world(a, a->load.scene, world, &state, a->load_keep_params);
		fprintf(stderr, "pbd-viewer: loaded %s in %.1f s\n", a->cloth_path, glfwGetTime() - a->load.started_at);
	} else {
		app_set_status(a, "%s", error);
		fprintf(stderr, "pbd-viewer: %s\n", error);
		a->first_load_failed = a->load_is_first;
	}
	a->load_is_first = false;
	return true;
}

void app_cancel_load(app *a)
{
	if (!a->loading)
		return;
	loader_cancel(&a->load);
	a->loading = false;
	fprintf(stderr, "pbd-viewer: loading %s cancelled\n", a->load.cloth_path);
	// The first scene in place of the empty floor at once, unless the load still uses the
	// task pool (then when it stops).
	if (a->load_is_first && !a->pool)
		show_first_scene_instead(a);
	app_set_status(a, "loading %s cancelled", a->load.cloth_path);
}

const char *app_loading_name(const app *a)
{
	const char *slash = strrchr(a->load.cloth_path, '/');
	return slash ? slash + 1 : a->load.cloth_path;
}

float app_loading_share(const app *a) { return a->load.done; }

bool app_load_placeholder(app *a, const demo_scene *scene)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world_def_use_task_pool(&wd, a->pool);
	pbd_world *world = NULL;
	demo_scene_state state;
	memset(&state, 0, sizeof state);
	state.wind_direction[0] = 1.0f;
	pbd_collider_def floor = pbd_collider_def_default();
	if (pbd_world_create(&wd, &world) != PBD_OK)
		return false;
	if (pbd_collider_create(world, &floor, &state.colliders[0]) != PBD_OK) {
		pbd_world_destroy(world);
		return false;
	}
	state.collider_count = 1;
	a->world = world;
	a->state = state;
	a->scene = scene;
	camera_from_scene(&a->cam, scene);
	a->cam_heading = NAN;
	return true;
}

bool app_drop_file(app *a, const char *path)
{
	char previous[sizeof a->cloth_path];
	memcpy(previous, a->cloth_path, sizeof previous);
	const char *previous_option = a->options.cloth_path;
	snprintf(a->cloth_path, sizeof a->cloth_path, "%s", path);
	a->options.cloth_path = a->cloth_path;
	if (!a->options.pins)
		a->options.pins = "none";
	bool started = app_load_scene(a, demo_scene_find("mesh"), false);
	if (started && a->loading) {  // on the loader's thread: the path is its own until it is done
		memcpy(a->cloth_path, previous, sizeof previous);
		a->options.cloth_path = previous_option;
		return true;
	}
	if (started) {
		app_set_status(a, "loaded %s", path);
		return true;
	}
	// app_load_scene has shown and printed the error; the old scene runs on.
	memcpy(a->cloth_path, previous, sizeof previous);
	a->options.cloth_path = previous_option;
	return false;
}

bool app_save_tuning(app *a)
{
	pbd_tuning t = pbd_tuning_default();
	snprintf(t.material_name, sizeof t.material_name, "%s", a->material);
	char error[512];
	if (demo_read_tuning(a->world, &a->state, &t) != PBD_OK ||
	    pbd_tuning_save(a->tuning_path, &t, error, sizeof error) != 0) {
		app_set_status(a, "cannot save the tuning: %s", error);
		fprintf(stderr, "pbd-viewer: cannot save the tuning: %s\n", error);
		return false;
	}
	printf("pbd-viewer: tuning written to %s; the same as C:\n", a->tuning_path);
	pbd_tuning_write_c(stdout, &t);
	fflush(stdout);
	app_set_status(a, "tuning saved to %s (C code in the terminal)", a->tuning_path);
	return true;
}

void app_next_material(app *a)
{
	int n = pbd_tuning_preset_count(), next = 0;
	for (int i = 0; i < n; ++i)
		if (strcmp(a->material, pbd_tuning_preset_name(i)) == 0)
			next = i + 1;
	if (next >= n) {
		// Back to the scene's own material: reload it.
		a->material[0] = '\0';
		app_load_scene(a, a->scene, false);
		app_set_status(a, "material: the scene's own");
		return;
	}
	snprintf(a->material, sizeof a->material, "%s", pbd_tuning_preset_name(next));
	char error[256];
	if (demo_apply_preset(a->world, &a->state, a->material, error, sizeof error) == PBD_OK)
		app_set_status(a, "material: %s", a->material);
	else
		app_set_status(a, "%s", error);
}

void app_follow_drag(app *a)
{
	if (a->holding)
		pbd_grab_move(a->world, a->hold, a->hold_target);
	if (!a->dragging)
		return;
	// Keep the grabbed vertex under the cursor, at the depth where it was grabbed.
	vec3 origin, dir, eye, forward, target;
	camera_ray(&a->cam, a->width, a->height, a->mouse_x, a->mouse_y, origin, dir);
	camera_eye(&a->cam, eye);
	glm_vec3_sub(a->cam.target, eye, forward);
	glm_vec3_normalize(forward);
	float along = glm_vec3_dot(dir, forward);
	float t = along > 1e-4f ? a->drag_depth / along : 0.0f;
	glm_vec3_scale(dir, t, target);
	glm_vec3_add(origin, target, target);
	// The engine's grab pulls the vertex (a pinned one too, let go of its pin while dragged):
	// colliders, contacts and the no-crossing guard can stop it, however fast the cursor.
	glm_vec3_copy(target, a->drag_target);
	pbd_grab_move(a->world, a->grab, target);
}

pbd_result app_advance(const demo_scene *scene, pbd_world *world, demo_scene_state *state, int steps, int *done,
		       pbd_world_stats *stats)
{
	pbd_result r = PBD_OK;
	*done = 0;
	while (*done < steps && (r = demo_scene_step(scene, world, state, VIEWER_DT)) == PBD_OK)
		++*done;
	*stats = pbd_world_get_stats(world);
	return r;
}

void app_note_steps(app *a, int done, pbd_result result)
{
	a->sim_time += done * (double)VIEWER_DT;
	if (result != PBD_OK)
		app_set_status(a, "step failed: %s", pbd_world_last_error(a->world));
}

void app_step(app *a)
{
	app_follow_drag(a);
	int done = 0;
	pbd_result r = app_advance(a->scene, a->world, &a->state, 1, &done, &a->stats);
	app_note_steps(a, done, r);
}

bool app_write_screenshot(app *a, const char *path)
{
	bool ok = app_write_png(a, path);
	if (ok)
		app_set_status(a, "wrote %s", path);
	return ok;
}

bool app_write_png(app *a, const char *path)
{
	int w = a->width, h = a->height;
	unsigned char *pixels = malloc((size_t)w * (size_t)h * 3);
	if (!pixels)
		return false;
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadBuffer(GL_BACK);
	glFinish();
	glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels);
	// OpenGL's rows start at the bottom; PNG's at the top.
	stbi_flip_vertically_on_write(1);
	int ok = stbi_write_png(path, w, h, 3, pixels, w * 3);
	free(pixels);
	if (!ok)
		fprintf(stderr, "pbd-viewer: cannot write %s\n", path);
	return ok != 0;
}

// Window pixel of world point p (y down); false behind the camera.
static bool to_screen(const app *a, const mat4 view_proj, const float p[3], float *sx, float *sy)
{
	vec4 q = {p[0], p[1], p[2], 1.0f}, clip;
	glm_mat4_mulv((vec4 *)view_proj, q, clip);
	if (clip[3] <= 1e-6f)
		return false;
	*sx = (0.5f + 0.5f * clip[0] / clip[3]) * (float)a->width;
	*sy = (0.5f - 0.5f * clip[1] / clip[3]) * (float)a->height;
	return true;
}

// Room for `needed` items of `size` bytes in *items (grown by half again when short).
static bool reserve_items(void **items, int *capacity, int needed, size_t size)
{
	if (needed <= *capacity)
		return true;
	int grown_capacity = needed + needed / 2;
	void *grown = realloc(*items, size * (size_t)grown_capacity);
	if (!grown)
		return false;
	*items = grown;
	*capacity = grown_capacity;
	return true;
}

// The pinned vertices, and with N the vertex normals (every k-th vertex on a big cloth, to
// keep the overlay light), copied from the world for the overlay.
static void copy_pins_and_normals(app *a)
{
	enum { MAX_NORMALS = 6000 };
	const float normal_length = 0.03f;  // m
	a->pin_count = a->normal_count = 0;
	for (int c = 0; c < a->state.cloth_count; ++c) {
		int n = 0;
		const float *x = pbd_cloth_positions(a->world, a->state.cloths[c], &n);
		const float *normals = pbd_cloth_normals(a->world, a->state.cloths[c], NULL);
		if (!x)
			continue;
		int every = n > MAX_NORMALS ? (n + MAX_NORMALS - 1) / MAX_NORMALS : 1;
		for (int i = 0; i < n; ++i) {
			float inverse_mass = 1.0f;
			if (pbd_cloth_get_inverse_mass(a->world, a->state.cloths[c], i, &inverse_mass) == PBD_OK &&
			    inverse_mass == 0.0f &&
			    reserve_items((void **)&a->pins, &a->pin_capacity, a->pin_count + 1, sizeof *a->pins)) {
				viewer_pin *pin = &a->pins[a->pin_count++];
				memcpy(pin->position, x + 3 * i, sizeof pin->position);
				pin->cloth = c;
				pin->vertex = i;
			}
			if (a->show_normals && normals && i % every == 0 &&
			    reserve_items((void **)&a->normal_lines, &a->normal_capacity, a->normal_count + 1,
					  6 * sizeof *a->normal_lines)) {
				float *line = a->normal_lines + 6 * a->normal_count++;
				for (int k = 0; k < 3; ++k) {
					line[k] = x[3 * i + k];
					line[3 + k] = x[3 * i + k] + normal_length * normals[3 * i + k];
				}
			}
		}
	}
}

// Every pinned vertex marked (a dark square with a light centre), and with N the normals.
static void draw_pins_and_normals(app *a)
{
	static const float pin_edge[4] = {0.05f, 0.05f, 0.06f, 0.9f}, pin_fill[4] = {0.95f, 0.95f, 0.9f, 1.0f},
			   normal_color[4] = {0.35f, 0.85f, 1.0f, 0.85f};
	mat4 view_proj;
	camera_view_proj(&a->cam, a->width, a->height, view_proj);
	float sx, sy, tx, ty;
	if (a->show_normals)
		for (int i = 0; i < a->normal_count; ++i)
			if (to_screen(a, view_proj, a->normal_lines + 6 * i, &sx, &sy) &&
			    to_screen(a, view_proj, a->normal_lines + 6 * i + 3, &tx, &ty))
				renderer_line(a->render, sx, sy, tx, ty, 1.0f, normal_color);
	// 8 pixels across in a 720-row window, smaller in a small one (never below 4).
	float half = fmaxf(2.0f, 4.0f * fminf(1.0f, (float)a->height / 720.0f));
	for (int i = 0; i < a->pin_count; ++i)
		if (to_screen(a, view_proj, a->pins[i].position, &sx, &sy)) {
			renderer_panel(a->render, sx - half, sy - half, 2.0f * half, 2.0f * half, pin_edge);
			renderer_panel(a->render, sx - 0.5f * half, sy - 0.5f * half, half, half, pin_fill);
		}
}

// ---- Debug views: contacts (V), candidate pairs (E), the guard's stops (Z).

enum {
	MAX_DRAWN_CONTACTS = 12000,   // a dot and a normal each
	MAX_DRAWN_CANDIDATES = 16000, // a line each
	MAX_FLASHES = 2000,
};
static const double kFlashSeconds = 0.5;  // simulated time a guard stop stays lit
static const float kDebugPanel[4] = {0.05f, 0.06f, 0.08f, 0.72f};
static const unsigned char kDebugText[4] = {235, 238, 242, 255};

// The points of one filter, at most `cap` of them, into *items; *total gets how many exist.
static int copy_contact_points(app *a, pbd_contact_filter filter, pbd_contact_point **items, int *capacity,
			       int cap, int *total)
{
	// Into the room there is; a second pass only when the list grew past it (and the cap).
	int room = *capacity < cap ? *capacity : cap;
	*total = 0;
	if (pbd_world_get_contacts(a->world, filter, *items, room, total) != PBD_OK)
		return 0;
	int n = *total < cap ? *total : cap;
	if (n > room) {
		if (!reserve_items((void **)items, capacity, n, sizeof **items))
			return 0;
		pbd_world_get_contacts(a->world, filter, *items, n, total);
	}
	return n;
}

// Guard stops of the step just taken join the flashes (once per step: a paused window syncs
// every frame); flashes older than kFlashSeconds go.
static void copy_guard_stops(app *a)
{
	int kept = 0;
	for (int i = 0; i < a->flash_count; ++i)
		if (a->sim_time - a->flashes[i].time < kFlashSeconds)
			a->flashes[kept++] = a->flashes[i];
	a->flash_count = kept;
	int64_t step = pbd_world_get_stats(a->world).steps;
	if (step == a->flash_step)
		return;
	a->flash_step = step;
	pbd_contact_point *stops = NULL;
	int capacity = 0, total = 0;
	int n = copy_contact_points(a, PBD_CONTACTS_GUARD_STOPS, &stops, &capacity, MAX_FLASHES, &total);
	for (int i = 0; i < n && a->flash_count < MAX_FLASHES; ++i)
		if (reserve_items((void **)&a->flashes, &a->flash_capacity, a->flash_count + 1, sizeof *a->flashes)) {
			viewer_flash *f = &a->flashes[a->flash_count++];
			memcpy(f->position, stops[i].a, sizeof f->position);
			f->time = a->sim_time;
		}
	free(stops);
}

static void copy_debug_views(app *a)
{
	a->contact_count = a->candidate_count = 0;
	memset(a->contact_kinds, 0, sizeof a->contact_kinds);
	if (a->show_contacts) {
		a->contact_count = copy_contact_points(a, PBD_CONTACTS_TOUCHING, &a->contacts, &a->contact_capacity,
						       MAX_DRAWN_CONTACTS, &a->contact_total);
		for (int i = 0; i < a->contact_count; ++i)
			a->contact_kinds[a->contacts[i].kind]++;
	}
	if (a->show_candidates)
		a->candidate_count = copy_contact_points(a, PBD_CONTACTS_CANDIDATES, &a->candidates,
							 &a->candidate_capacity, MAX_DRAWN_CANDIDATES, &a->candidate_total);
	if (a->show_guard_stops)
		copy_guard_stops(a);
	else
		a->flash_count = 0;
}

// Colours by pbd_contact_kind: collider, vertex-triangle, edge-edge, particle, guard.
static const float kKindColor[5][4] = {
	{1.0f, 0.55f, 0.15f, 1.0f}, {0.35f, 0.95f, 0.45f, 1.0f}, {0.95f, 0.4f, 0.95f, 1.0f},
	{1.0f, 0.95f, 0.3f, 1.0f},  {1.0f, 0.15f, 0.1f, 1.0f},
};

static void draw_debug_views(app *a, float scale, float line)
{
	mat4 view_proj;
	camera_view_proj(&a->cam, a->width, a->height, view_proj);
	float sx, sy, tx, ty;
	const float normal_length = 0.03f;  // m
	for (int i = 0; i < a->candidate_count; ++i) {
		const pbd_contact_point *c = &a->candidates[i];
		const float *k = kKindColor[c->kind];
		const float dim[4] = {k[0], k[1], k[2], 0.35f};
		if (to_screen(a, view_proj, c->a, &sx, &sy) && to_screen(a, view_proj, c->b, &tx, &ty))
			renderer_line(a->render, sx, sy, tx, ty, 1.0f, dim);
	}
	for (int i = 0; i < a->contact_count; ++i) {
		const pbd_contact_point *c = &a->contacts[i];
		float tip[3];
		for (int j = 0; j < 3; ++j)
			tip[j] = c->b[j] + normal_length * c->normal[j];
		if (!to_screen(a, view_proj, c->b, &sx, &sy))
			continue;
		if (to_screen(a, view_proj, tip, &tx, &ty))
			renderer_line(a->render, sx, sy, tx, ty, 1.0f, kKindColor[c->kind]);
		renderer_panel(a->render, sx - 1.5f, sy - 1.5f, 3.0f, 3.0f, kKindColor[c->kind]);
	}
	for (int i = 0; i < a->flash_count; ++i) {
		float age = (float)((a->sim_time - a->flashes[i].time) / kFlashSeconds);
		const float *k = kKindColor[PBD_CONTACT_KIND_GUARD];
		const float lit[4] = {k[0], k[1], k[2], 1.0f - 0.8f * fminf(fmaxf(age, 0.0f), 1.0f)};
		float half = 5.0f - 2.0f * fminf(fmaxf(age, 0.0f), 1.0f);
		if (to_screen(a, view_proj, a->flashes[i].position, &sx, &sy))
			renderer_panel(a->render, sx - half, sy - half, 2.0f * half, 2.0f * half, lit);
	}
	// A line of figures for what is shown, above the status line.
	char text[256];
	int at = 0;
	text[0] = '\0';
	if (a->show_contacts)
		at += snprintf(text + at, sizeof text - (size_t)at,
			       "contacts %d (collider %d, vertex-triangle %d, edge-edge %d, particle %d)%s   ",
			       a->contact_total, a->contact_kinds[PBD_CONTACT_KIND_COLLIDER],
			       a->contact_kinds[PBD_CONTACT_KIND_VERTEX_TRIANGLE], a->contact_kinds[PBD_CONTACT_KIND_EDGE_EDGE],
			       a->contact_kinds[PBD_CONTACT_KIND_PARTICLE],
			       a->contact_total > a->contact_count ? " (first ones drawn)" : "");
	if (a->show_candidates && at < (int)sizeof text)
		at += snprintf(text + at, sizeof text - (size_t)at, "candidates %d%s   ", a->candidate_total,
			       a->candidate_total > a->candidate_count ? " (first ones drawn)" : "");
	if (a->show_guard_stops && at < (int)sizeof text)
		snprintf(text + at, sizeof text - (size_t)at, "guard stops lit %d", a->flash_count);
	if (text[0]) {
		float y = (float)a->height - 34.0f - line * 1.6f, w = renderer_text_width(text, scale);
		renderer_panel(a->render, 4.0f, y - 4.0f, w + 16.0f, line + 8.0f, kDebugPanel);
		renderer_text(a->render, 12.0f, y, scale, text, kDebugText);
	}
}

// While dragging, a line from the cursor to the grabbed vertex: the grab is a spring, so the
// vertex may lag behind the cursor or be held off by a collider.
static void draw_grab_line(app *a)
{
	mat4 view_proj;
	camera_view_proj(&a->cam, a->width, a->height, view_proj);
	float sx, sy;
	static const float hold[4] = {0.45f, 0.8f, 1.0f, 1.0f};
	if (a->holding && to_screen(a, view_proj, a->hold_target, &sx, &sy))
		renderer_panel(a->render, sx - 4.0f, sy - 4.0f, 8.0f, 8.0f, hold);  // where the right button holds
	if (!a->dragging || !a->drag_point_known)
		return;
	if (!to_screen(a, view_proj, a->drag_point, &sx, &sy))
		return;  // behind the camera
	static const float line[4] = {1.0f, 0.85f, 0.35f, 0.9f}, dot[4] = {1.0f, 0.85f, 0.35f, 1.0f};
	renderer_line(a->render, (float)a->mouse_x, (float)a->mouse_y, sx, sy, 2.0f, line);
	renderer_panel(a->render, sx - 3.0f, sy - 3.0f, 6.0f, 6.0f, dot);
}

static const unsigned char kWhite[4] = {235, 238, 242, 255}, kDim[4] = {170, 178, 190, 255},
			   kAccent[4] = {255, 206, 110, 255};
static const float kPanel[4] = {0.05f, 0.06f, 0.08f, 0.72f};

// The parameter lines (keys, name, value, unit; tab separated) as a table: columns start at
// measured offsets, since the font's letters are not all one width, and values align right.
typedef struct param_table {
	char cells[16][4][48];
	int rows;
	float column[4];  // widest cell of each column
} param_table;

static void param_table_build(param_table *t, char lines[][96], int rows, float scale)
{
	t->rows = rows;
	memset(t->column, 0, sizeof t->column);
	for (int i = 0; i < rows; ++i) {
		const char *s = lines[i];
		for (int c = 0; c < 4; ++c) {
			size_t len = strcspn(s, "\t");
			snprintf(t->cells[i][c], sizeof t->cells[i][c], "%.*s", (int)len, s);
			t->column[c] = fmaxf(t->column[c], renderer_text_width(t->cells[i][c], scale));
			s += len + (s[len] == '\t');
		}
	}
}

static float param_table_width(const param_table *t, float gap)
{
	return t->column[0] + t->column[1] + t->column[2] + t->column[3] + 3.0f * gap;
}

static void param_table_draw(const param_table *t, renderer *r, float x, float y, float line, float scale, float gap,
			     const unsigned char color[4])
{
	float name_x = x + t->column[0] + gap, value_end = name_x + t->column[1] + gap + t->column[2];
	for (int i = 0; i < t->rows; ++i, y += line) {
		renderer_text(r, x, y, scale, t->cells[i][0], color);
		renderer_text(r, name_x, y, scale, t->cells[i][1], color);
		renderer_text(r, value_end - renderer_text_width(t->cells[i][2], scale), y, scale, t->cells[i][2], color);
		renderer_text(r, value_end + gap, y, scale, t->cells[i][3], color);
	}
}

// The panel at the top left: scene, time, stage timings, counts, contacts of each kind, the
// parameters with their keys, the frame-time graph. Tab hides it.
static void draw_panel(app *a, float scale, float line)
{
	renderer *r = a->render;
	char text[256];
	int np = a->param_line_count;
	param_table table;
	const float gap = 8.0f * scale;
	param_table_build(&table, a->param_lines, np, scale);
	float x = 12.0f, y = 12.0f;
	int lines = np + 8;
	char counts[160], contacts[200];
	snprintf(counts, sizeof counts, "%d particles  %d triangles  %d constraints", a->stats.particles + a->stats.free_particles,
		 a->stats.triangles, a->stats.constraints);
	snprintf(contacts, sizeof contacts,
		 "contacts: collider %d (+%d tri)  v-t %d  e-e %d  particle %d",
		 a->stats.collider_contacts, a->stats.collider_triangle_contacts, a->stats.vertex_triangle_contacts,
		 a->stats.edge_edge_contacts, a->stats.particle_contacts);
	// As wide as its widest line (the stage timings, shown in the live window, included).
	float w = fmaxf(renderer_text_width(counts, scale), renderer_text_width(contacts, scale));
	w = fmaxf(w, param_table_width(&table, gap));
	if (!a->test_mode)
		w = fmaxf(w, renderer_text_width("predict 00.00 broad 00.00 narrow 00.00 solve 00.00 contact 00.00 ccd 00.00 ms",
						  scale));
	w += 20.0f;
	renderer_panel(r, x - 8.0f, y - 8.0f, w, line * (float)lines + 70.0f, kPanel);
	if (a->scene == demo_scene_find("mesh")) {
		const char *slash = strrchr(a->cloth_path, '/');
		snprintf(text, sizeof text, "mesh %.100s  material %s%s", slash ? slash + 1 : a->cloth_path,
			 a->material[0] ? a->material : "(the scene's)", a->paused ? "   PAUSED" : "");
	} else {
		snprintf(text, sizeof text, "scene %s  (%d/%d)  material %s%s", a->scene->name,
			 (int)(a->scene - demo_scene_at(0)) + 1, demo_scene_count(),
			 a->material[0] ? a->material : "(the scene's)", a->paused ? "   PAUSED" : "");
	}
	renderer_text(r, x, y, scale, text, kAccent);
	y += line;
	if (a->test_mode)
		snprintf(text, sizeof text, "frame %ld  t = %.2f s  (fixed 60 Hz)", a->frame, a->sim_time);
	else
		snprintf(text, sizeof text, "%.0f fps  step %.2f ms  t = %.1f s  (%.2fx real time%s)", a->fps,
			 a->stats.step_ms, a->sim_time, a->real_time_share, a->paused ? ", paused" : "");
	renderer_text(r, x, y, scale, text, kWhite);
	y += line;
	if (!a->test_mode) {
		snprintf(text, sizeof text, "predict %.2f broad %.2f narrow %.2f solve %.2f contact %.2f ccd %.2f ms",
			 a->stats.stage_ms[PBD_STAGE_PREDICT] + a->stats.stage_ms[PBD_STAGE_AIR], a->stats.stage_ms[PBD_STAGE_BROAD_PHASE],
			 a->stats.stage_ms[PBD_STAGE_NARROW_PHASE], a->stats.stage_ms[PBD_STAGE_CONSTRAINTS],
			 a->stats.stage_ms[PBD_STAGE_CONTACTS], a->stats.stage_ms[PBD_STAGE_CCD]);
		renderer_text(r, x, y, scale, text, kDim);
	}
	y += line;
	renderer_text(r, x, y, scale, counts, kDim);
	y += line;
	renderer_text(r, x, y, scale, contacts, kDim);
	y += line;
	snprintf(text, sizeof text, "max stretch %.2f%%   ccd: %lld pairs tested, %lld crossings caught",
		 100.0 * a->stats.max_stretch_error, (long long)a->stats.ccd_pairs_tested, (long long)a->stats.ccd_hits);
	renderer_text(r, x, y, scale, text, kDim);
	y += line * 1.4f;
	param_table_draw(&table, r, x, y, line, scale, gap, kWhite);
	y += line * (float)np;
	y += line * 0.4f;
	renderer_text(r, x, y, scale, "H help   Tab panel   space pause   R reset   1-9 [ ] scenes", kDim);
	y += line * 1.2f;
	// Frame-time graph (wall clock; flat in test mode so screenshots repeat exactly). Its top
	// doubles from 33 ms until the slowest frame fits; the line is the 60 Hz budget.
	float top = 1000.0f / 30.0f, slowest = 0.0f;
	for (int i = 0; i < VIEWER_HISTORY; ++i)
		slowest = fmaxf(slowest, a->frame_ms[i]);
	while (top < slowest && top < 4000.0f)
		top *= 2.0f;
	renderer_graph(r, x, y, w - 20.0f, 44.0f, a->frame_ms, VIEWER_HISTORY, a->frame_ms_newest, top);
	snprintf(text, sizeof text, "frame ms (top %.0f, line 16.7)", (double)top);
	renderer_text(r, x + 4.0f, y + 3.0f, scale, text, kDim);
}

// With the help: every scene and its one-line description, the one shown lit, at the bottom
// left above the status line (1-9, [ and ] choose them). Columns start at measured offsets: the
// font's letters are not all one width.
static void draw_scene_list(app *a, float scale, float line)
{
	renderer *r = a->render;
	int n = demo_scene_count();
	const char *title = "scenes (keys 1-9, [ and ])";
	float name_x = renderer_text_width("9 ", scale), text_x = 0.0f, w = renderer_text_width(title, scale);
	for (int i = 0; i < n; ++i)
		text_x = fmaxf(text_x, name_x + renderer_text_width(demo_scene_at(i)->name, scale) + 10.0f * scale);
	for (int i = 0; i < n; ++i)
		w = fmaxf(w, text_x + renderer_text_width(demo_scene_at(i)->description, scale));
	float x = 12.0f, h = line * (float)(n + 1), y = (float)a->height - 44.0f - h;
	renderer_panel(r, x - 8.0f, y - 8.0f, w + 16.0f, h + 8.0f, kPanel);
	renderer_text(r, x, y, scale, title, kAccent);
	y += line;
	for (int i = 0; i < n; ++i, y += line) {
		const demo_scene *s = demo_scene_at(i);
		const unsigned char *color = s == a->scene ? kAccent : kWhite;
		char digit[2] = {(char)('1' + i), '\0'};
		if (i < 9)
			renderer_text(r, x, y, scale, digit, color);
		renderer_text(r, x + name_x, y, scale, s->name, color);
		renderer_text(r, x + text_x, y, scale, s->description, color);
	}
}

// The keys, at the top right: the panel is as wide as its widest line, and the descriptions
// start in one column.
static void draw_help(app *a, float scale, float line)
{
	renderer *r = a->render;
	const char *title = "keys (a letter raises, Shift+letter lowers; S, B stiffen)";
	const char *mouse = "mouse: drag cloth / orbit, right pans, wheel zooms";
	float what_x = 0.0f, w = fmaxf(renderer_text_width(title, scale), renderer_text_width(mouse, scale));
	for (int i = 0; i < key_binding_count(); ++i)
		what_x = fmaxf(what_x, renderer_text_width(key_binding_at(i)->key, scale) + 10.0f * scale);
	for (int i = 0; i < key_binding_count(); ++i)
		w = fmaxf(w, what_x + renderer_text_width(key_binding_at(i)->what, scale));
	float hx = fmaxf(12.0f, (float)a->width - w - 20.0f), hy = 12.0f;
	renderer_panel(r, hx - 8.0f, hy - 8.0f, w + 16.0f, line * (float)(key_binding_count() + 3), kPanel);
	renderer_text(r, hx, hy, scale, title, kAccent);
	hy += line * 1.3f;
	for (int i = 0; i < key_binding_count(); ++i, hy += line) {
		const key_binding *b = key_binding_at(i);
		renderer_text(r, hx, hy, scale, b->key, kWhite);
		renderer_text(r, hx + what_x, hy, scale, b->what, kWhite);
	}
	renderer_text(r, hx, hy, scale, mouse, kDim);
}

// While your own mesh loads: a panel in the middle with the share of the file read (then the
// time spent building the cloth) and how to cancel.
static void draw_loading(app *a, float scale, float line)
{
	char text[256];
	float share = app_loading_share(a);
	if (share < 1.0f)
		snprintf(text, sizeof text, "loading %.160s: %d%% read   (Esc cancels)", app_loading_name(a), (int)(100.0f * share));
	else
		snprintf(text, sizeof text, "loading %.160s: building the cloth, %.1f s   (Esc cancels)", app_loading_name(a),
			 glfwGetTime() - a->load.started_at);
	float w = fmaxf(renderer_text_width(text, scale), 0.4f * (float)a->width);
	float x = 0.5f * ((float)a->width - w), y = 0.5f * (float)a->height - line;
	static const float bar_back[4] = {0.2f, 0.22f, 0.26f, 1.0f}, bar[4] = {1.0f, 0.8f, 0.43f, 1.0f};
	renderer_panel(a->render, x - 12.0f, y - 10.0f, w + 24.0f, 2.0f * line + 28.0f, kPanel);
	renderer_text(a->render, x, y, scale, text, kAccent);
	renderer_panel(a->render, x, y + line + 6.0f, w, 8.0f, bar_back);
	renderer_panel(a->render, x, y + line + 6.0f, w * fminf(fmaxf(share, 0.0f), 1.0f), 8.0f, bar);
}

static void draw_overlay(app *a)
{
	renderer *r = a->render;
	// Text grows with the window: 1.5x at 720 rows, never below 1x.
	const float scale = fmaxf(1.0f, 1.5f * (float)a->height / 720.0f), line = 11.0f * scale;
	renderer_begin_overlay(r, a->width, a->height);
	draw_debug_views(a, scale, line);
	draw_pins_and_normals(a);
	if (a->show_panel)
		draw_panel(a, scale, line);
	if (a->status[0] && a->sim_time - a->status_time < 3.0) {
		float sw = renderer_text_width(a->status, scale);
		renderer_panel(r, 12.0f - 8.0f, (float)a->height - 34.0f, sw + 16.0f, 28.0f, kPanel);
		renderer_text(r, 12.0f, (float)a->height - 28.0f, scale, a->status, kAccent);
	}
	if (a->show_help) {
		draw_help(a, scale, line);
		draw_scene_list(a, scale, line);
	}
	draw_grab_line(a);
	if (a->loading)
		draw_loading(a, scale, line);
	renderer_end_overlay(r);
}

void app_sync(app *a)
{
	camera_follow(&a->cam, a->scene, a->world, &a->state, &a->cam_heading);
	renderer_set_look(a->render, a->material);  // a cheap lookup: M may have changed it
	renderer_sync(a->render, a->world, &a->state);
	a->param_line_count = keys_param_lines(a, a->param_lines, 16);
	for (int i = 0; i < demo_param_count() && i < VIEWER_MAX_PARAMS; ++i)
		a->param_values[i] = demo_param_at(i)->get(a->world, &a->state);
	copy_pins_and_normals(a);
	copy_debug_views(a);
	if (a->dump_dir) {  // the world as the next frame shows it
		char path[4096];
		snprintf(path, sizeof path, "%s/frame_%05ld.obj", a->dump_dir, a->frame);
		a->dump_failed |= !app_dump_obj(a, path);
	}
	a->drag_point_known = false;
	if (a->dragging) {
		int n = 0;
		const float *x = pbd_cloth_positions(a->world, a->drag_cloth, &n);
		if (x && a->drag_vertex < n) {
			memcpy(a->drag_point, x + 3 * a->drag_vertex, sizeof a->drag_point);
			a->drag_point_known = true;
		}
	}
}

void app_queue_input(app *a, const input_event *event)
{
	if (a->queued_count < (int)(sizeof a->queued / sizeof a->queued[0]))
		a->queued[a->queued_count++] = *event;
}

static void set_param_now(app *a, int index, float value)
{
	const demo_param *p = demo_param_at(index);
	if (!p)
		return;
	if (p->set(a->world, &a->state, value) == PBD_OK)
		app_set_status(a, "%s = %.4g %s", p->label, (double)p->get(a->world, &a->state), p->unit);
	else
		app_set_status(a, "%s: %s", p->label, pbd_world_last_error(a->world));
	if (index < VIEWER_MAX_PARAMS)
		a->param_values[index] = p->get(a->world, &a->state);
}

static void choose_scene_now(app *a, int index)
{
	const demo_scene *s = demo_scene_at(index);
	if (s && app_load_scene(a, s, false))
		app_set_status(a, "scene %s", s->name);
}

void app_set_param(app *a, int index, float value)
{
	if (index >= 0 && index < VIEWER_MAX_PARAMS)
		a->param_values[index] = value;  // the slider shows it at once
	if (!a->stepping) {
		set_param_now(a, index, value);
		return;
	}
	// A slider dragged while a step runs: only its last value needs to wait.
	for (int i = 0; i < a->queued_count; ++i)
		if (a->queued[i].kind == INPUT_PARAM && a->queued[i].index == index) {
			a->queued[i].value = value;
			return;
		}
	app_queue_input(a, &(input_event){.kind = INPUT_PARAM, .index = index, .value = value});
}

void app_choose_scene(app *a, int index)
{
	if (!a->stepping)
		choose_scene_now(a, index);
	else
		app_queue_input(a, &(input_event){.kind = INPUT_SCENE, .index = index});
}

void app_queue_key(app *a, const char *key)
{
	if (!a->stepping) {
		keys_press(a, key, false);
		return;
	}
	input_event e = {.kind = INPUT_KEY};
	snprintf(e.key, sizeof e.key, "%s", key);
	app_queue_input(a, &e);
}

void app_apply_queued_input(app *a)
{
	int count = a->queued_count;
	a->queued_count = 0;
	for (int i = 0; i < count; ++i) {
		const input_event *e = &a->queued[i];
		if (e->kind == INPUT_KEY)
			keys_press(a, e->key, e->shift);
		else if (e->kind == INPUT_PARAM)
			set_param_now(a, e->index, e->value);
		else if (e->kind == INPUT_SCENE)
			choose_scene_now(a, e->index);
		else
			app_mouse_button(a, e->button, e->down, e->shift);
	}
	if (a->queued_drop[0]) {
		char path[sizeof a->queued_drop];
		memcpy(path, a->queued_drop, sizeof path);
		a->queued_drop[0] = '\0';
		app_drop_file(a, path);
	}
}

void app_free(app *a)
{
	free(a->pins);
	free(a->normal_lines);
	free(a->contacts);
	free(a->candidates);
	free(a->flashes);
	a->pins = NULL;
	a->normal_lines = NULL;
	a->contacts = a->candidates = NULL;
	a->flashes = NULL;
	a->pin_capacity = a->normal_capacity = a->contact_capacity = a->candidate_capacity = a->flash_capacity = 0;
}

void app_draw(app *a)
{
	renderer_draw(a->render, &a->cam, a->width, a->height, a->wireframe);
	draw_overlay(a);
}

// A pin's mark, as drawn, when the cursor is on it (within the mark's size, 6 pixels): pins
// are small targets, and the corner triangle under the cursor may well pick the pin's neighbour.
static bool pick_pin(app *a, const vec3 eye, const vec3 forward, pbd_cloth_id *cloth, int *vertex, float *depth)
{
	const float reach = 6.0f;
	mat4 view_proj;
	camera_view_proj(&a->cam, a->width, a->height, view_proj);
	float best = reach * reach;
	const viewer_pin *found = NULL;
	for (int i = 0; i < a->pin_count; ++i) {
		float sx, sy;
		const viewer_pin *pin = &a->pins[i];
		if (pin->cloth >= a->state.cloth_count || !to_screen(a, view_proj, pin->position, &sx, &sy))
			continue;
		float dx = sx - (float)a->mouse_x, dy = sy - (float)a->mouse_y, d2 = dx * dx + dy * dy;
		if (d2 <= best) {
			best = d2;
			found = pin;
		}
	}
	if (!found)
		return false;
	*cloth = a->state.cloths[found->cloth];
	*vertex = found->vertex;
	vec3 to;
	glm_vec3_sub((float *)found->position, (float *)eye, to);
	*depth = glm_vec3_dot(to, (float *)forward);
	return true;
}

// Ray against every cloth triangle (Moller-Trumbore); picks the nearest hit's closest vertex,
// or a pin whose mark is under the cursor.
static bool pick(app *a, pbd_cloth_id *cloth, int *vertex, float *depth)
{
	vec3 origin, dir, eye, forward;
	camera_ray(&a->cam, a->width, a->height, a->mouse_x, a->mouse_y, origin, dir);
	float best = INFINITY;
	for (int c = 0; c < a->state.cloth_count; ++c) {
		int n = 0, t = 0;
		const float *x = pbd_cloth_positions(a->world, a->state.cloths[c], &n);
		const uint32_t *tri = pbd_cloth_indices(a->world, a->state.cloths[c], &t);
		if (!x || !tri)
			continue;
		for (int k = 0; k < t; ++k) {
			const float *p0 = x + 3 * tri[3 * k], *p1 = x + 3 * tri[3 * k + 1], *p2 = x + 3 * tri[3 * k + 2];
			vec3 e1, e2, pv, tv, qv;
			glm_vec3_sub((float *)p1, (float *)p0, e1);
			glm_vec3_sub((float *)p2, (float *)p0, e2);
			glm_vec3_cross(dir, e2, pv);
			float det = glm_vec3_dot(e1, pv);
			if (fabsf(det) < 1e-12f)
				continue;
			float inv = 1.0f / det;
			glm_vec3_sub(origin, (float *)p0, tv);
			float u = glm_vec3_dot(tv, pv) * inv;
			if (u < 0.0f || u > 1.0f)
				continue;
			glm_vec3_cross(tv, e1, qv);
			float v = glm_vec3_dot(dir, qv) * inv;
			if (v < 0.0f || u + v > 1.0f)
				continue;
			float dist = glm_vec3_dot(e2, qv) * inv;
			if (dist <= 0.0f || dist >= best)
				continue;
			best = dist;
			*cloth = a->state.cloths[c];
			float wb[3] = {1.0f - u - v, u, v};
			int corner = wb[0] >= wb[1] && wb[0] >= wb[2] ? 0 : (wb[1] >= wb[2] ? 1 : 2);
			*vertex = (int)tri[3 * k + corner];
		}
	}
	camera_eye(&a->cam, eye);
	glm_vec3_sub(a->cam.target, eye, forward);
	glm_vec3_normalize(forward);
	if (pick_pin(a, eye, forward, cloth, vertex, depth))
		return true;
	if (best == INFINITY)
		return false;
	*depth = best * glm_vec3_dot(dir, forward);
	return true;
}

// Pins the dragged vertex where it is now.
static void pin_where_it_is(app *a)
{
	int n = 0;
	const float *x = pbd_cloth_positions(a->world, a->drag_cloth, &n);
	if (x && a->drag_vertex < n)
		pbd_cloth_pin_vertex(a->world, a->drag_cloth, a->drag_vertex, x + 3 * a->drag_vertex);
}

// A cloth that tears is grabbed as a hand would: stiffer than the cloth and with no limit on
// its pull (a cloth as stiff as cotton stretches 20% under hundreds of newtons per metre; the
// default grab, a soft spring pulling at most twice the cloth's weight, lifts a cloth but
// cannot tear it). Others keep the default grab.
static void grab_for_tearing(const app *a, pbd_cloth_id cloth, pbd_grab_def *gd)
{
	pbd_cloth_material m;
	if (pbd_cloth_get_material(a->world, cloth, &m) != PBD_OK || m.tear_strain <= 0.0f)
		return;
	gd->compliance = 1e-8f;
	gd->max_force = 1e9f;
}

// Grabs the picked vertex with the engine's grab. A pinned vertex is let go of its pin for
// the drag and grabbed alone (its neighbours keep hanging from it), as stiffly as the grab
// allows, with enough force to carry its cloth: the pin, too, cannot be dragged into a collider
// or through the cloth. It is pinned again where the drag leaves it.
static bool begin_drag(app *a)
{
	pbd_grab_def gd = pbd_grab_def_default();
	gd.cloth = a->drag_cloth;
	gd.vertex = a->drag_vertex;
	grab_for_tearing(a, a->drag_cloth, &gd);
	if (a->drag_was_pinned) {
		if (pbd_cloth_release_vertex(a->world, a->drag_cloth, a->drag_vertex) != PBD_OK) {
			app_set_status(a, "cannot drag this pin: %s", pbd_world_last_error(a->world));
			return false;
		}
		gd.radius = 1e-6f;  // the vertex alone
	}
	if (pbd_grab_begin(a->world, &gd, &a->grab) != PBD_OK) {
		app_set_status(a, "cannot grab: %s", pbd_world_last_error(a->world));
		if (a->drag_was_pinned)
			pin_where_it_is(a);  // back on its pin
		return false;
	}
	return true;
}

// The right button on a free vertex of the cloth: a grab that holds it where it is.
static bool begin_hold(app *a)
{
	pbd_cloth_id cloth;
	int vertex;
	float depth, w = 0.0f;
	if (!pick(a, &cloth, &vertex, &depth))
		return false;
	pbd_cloth_get_inverse_mass(a->world, cloth, vertex, &w);
	int n = 0;
	const float *x = pbd_cloth_positions(a->world, cloth, &n);
	if (w == 0.0f || !x || vertex >= n)
		return false;  // a pin holds itself
	pbd_grab_def gd = pbd_grab_def_default();
	gd.cloth = cloth;
	gd.vertex = vertex;
	grab_for_tearing(a, cloth, &gd);
	if (pbd_grab_begin(a->world, &gd, &a->hold) != PBD_OK) {
		app_set_status(a, "cannot hold: %s", pbd_world_last_error(a->world));
		return false;
	}
	memcpy(a->hold_target, x + 3 * vertex, sizeof a->hold_target);
	return true;
}

void app_mouse_button(app *a, int button, bool down, bool shift)
{
	if (down && button == 1 && !shift && !a->holding && begin_hold(a)) {
		a->holding = true;
		return;  // held, not panned
	}
	if (!down && button == 1 && a->holding) {
		pbd_grab_end(a->world, a->hold);
		a->holding = false;
		return;
	}
	if (down) {
		a->mouse_button = button;
		if (button == 0 && !shift && pick(a, &a->drag_cloth, &a->drag_vertex, &a->drag_depth)) {
			float w = 0.0f;
			pbd_cloth_get_inverse_mass(a->world, a->drag_cloth, a->drag_vertex, &w);
			a->drag_was_pinned = w == 0.0f;
			a->dragging = begin_drag(a);
		}
		if (button == 0 && shift)
			a->mouse_button = 2;  // shift+left pans
		return;
	}
	if (a->dragging && button == 0) {
		// A grabbed patch is let go with its motion; a dragged pin is pinned where it got to.
		pbd_grab_end(a->world, a->grab);
		if (a->drag_was_pinned)
			pin_where_it_is(a);
		a->dragging = false;
	}
	a->mouse_button = -1;
}

void app_mouse_move(app *a, double x, double y)
{
	float dx = (float)(x - a->mouse_x), dy = (float)(y - a->mouse_y);
	a->mouse_x = x;
	a->mouse_y = y;
	if (a->dragging)
		return;
	if (a->mouse_button == 0)
		camera_orbit(&a->cam, dx, dy);
	else if (a->mouse_button == 1 || a->mouse_button == 2)
		camera_pan(&a->cam, dx, dy, a->height);
}

void app_scroll(app *a, double dy)
{
	camera_zoom(&a->cam, (float)dy);
}

bool app_dump_obj(app *a, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "pbd-viewer: cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	// A drag in progress, for tests that drag the cloth with real mouse events.
	if (a->dragging)
		fprintf(f, "# drag vertex %d pinned %d target %.9g %.9g %.9g\n", a->drag_vertex, a->drag_was_pinned ? 1 : 0,
			(double)a->drag_target[0], (double)a->drag_target[1], (double)a->drag_target[2]);
	if (a->holding)
		fprintf(f, "# hold target %.9g %.9g %.9g\n", (double)a->hold_target[0], (double)a->hold_target[1],
			(double)a->hold_target[2]);
	int bad = demo_write_obj(f, a->world, &a->state);
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "pbd-viewer: error writing %s\n", path);
		return false;
	}
	return true;
}

// Grows the box (lo, hi) by n points.
static int grow_box(const float *x, int n, float lo[3], float hi[3], int seen)
{
	for (int i = 0; x && i < n; ++i, ++seen)
		for (int k = 0; k < 3; ++k) {
			lo[k] = seen == 0 || x[3 * i + k] < lo[k] ? x[3 * i + k] : lo[k];
			hi[k] = seen == 0 || x[3 * i + k] > hi[k] ? x[3 * i + k] : hi[k];
		}
	return seen;
}

void app_frame_cloth(app *a)
{
	float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
	int seen = 0, n = 0;
	for (int c = 0; c < a->state.cloth_count; ++c) {
		const float *x = pbd_cloth_positions(a->world, a->state.cloths[c], &n);
		seen = grow_box(x, n, lo, hi, seen);
	}
	for (int g = 0; g < a->state.particle_group_count; ++g) {
		const float *x = pbd_particles_positions(a->world, a->state.particles[g], &n);
		seen = grow_box(x, n, lo, hi, seen);
	}
	if (seen == 0) {
		app_set_status(a, "nothing to frame");
		return;
	}
	camera_frame(&a->cam, lo, hi, a->height > 0 ? (float)a->width / (float)a->height : 1.0f);
	app_set_status(a, "framed %d vertices", seen);
}
