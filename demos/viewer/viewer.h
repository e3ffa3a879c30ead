// SPDX-License-Identifier: MIT
// pbd-viewer: shared declarations of the viewer's parts.
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include <cglm/cglm.h>
#include <glad/gl.h>

#include <pbd/pbd.h>

#include "tools.h"

#define VIEWER_DT (1.0f / 60.0f)
#define VIEWER_HISTORY 120
#define VIEWER_MAX_PARAMS 16

// The loader's flags are atomics in C; the control panel (C++) includes this header but never
// touches them, and the layout is the same.
#ifdef __cplusplus
#define VIEWER_ATOMIC(T) T
#else
#define VIEWER_ATOMIC(T) _Atomic T
#endif

// A point where the guard stopped a motion short, and the simulated time it was seen.
typedef struct viewer_flash {
	float position[3];
	double time;
} viewer_flash;

// A pinned vertex as the overlay shows it (and the mouse picks it).
typedef struct viewer_pin {
	float position[3];
	int cloth;                    // index in the scene state's cloths
	int vertex;
} viewer_pin;

// Input that touches the world, held while a step runs.
typedef struct input_event {
	enum { INPUT_KEY, INPUT_MOUSE_BUTTON, INPUT_PARAM, INPUT_SCENE } kind;
	char key[8];
	bool shift, down;
	int button;
	int index;    // INPUT_PARAM: the parameter; INPUT_SCENE: the scene in the table
	float value;  // INPUT_PARAM: its new value
} input_event;

// ---------------------------------------------------------------------------- camera.c
typedef struct camera {
	vec3 target;
	float distance;
	float yaw;    // degrees
	float pitch;  // degrees
} camera;

void camera_from_scene(camera *c, const demo_scene *scene);
// For a scene with a focus (the cape's runner): looks at it now and turns by how far its
// heading turned since *heading (NAN: only looks), which then takes the new heading. What
// the mouse did to the view is kept.
void camera_follow(camera *c, const demo_scene *scene, const pbd_world *world, const demo_scene_state *state,
		   float *heading);
void camera_eye(const camera *c, vec3 out);
void camera_view_proj(const camera *c, int width, int height, mat4 out);
void camera_orbit(camera *c, float dx, float dy);
void camera_pan(camera *c, float dx, float dy, int height);
void camera_zoom(camera *c, float wheel);
// Keeps the view direction and moves the target to the centre of the box (lo, hi) and the eye
// back until the box's bounding sphere fits the view of a window of that aspect ratio.
void camera_frame(camera *c, const float lo[3], const float hi[3], float aspect);
// A ray through window pixel (x, y), y down.
void camera_ray(const camera *c, int width, int height, double x, double y, vec3 origin, vec3 dir);

// ---------------------------------------------------------------------------- gl_util.c
// Reads shaders/NAME.vert and shaders/NAME.frag from `dir` and links them. On failure
// returns 0 and writes a message naming the file into `error`.
GLuint gl_program_from_files(const char *dir, const char *name, char *error, size_t error_capacity);
GLuint gl_program_link(const char *dir, const char *vertex, const char *const *fragments, int fragment_count,
		       char *error, size_t error_capacity);

// ---------------------------------------------------------------------------- render.c
typedef struct renderer renderer;

renderer *renderer_create(const char *shader_dir, char *error, size_t error_capacity);
void renderer_destroy(renderer *r);

typedef struct hud_text hud_text;

// Drops what the renderer keeps of the cloths drawn so far (their buffers stay for reuse): the
// next frame uploads every cloth afresh, with the weave printed on the shape it then has.
void renderer_forget_cloths(renderer *r);
// Reads what it draws from the world (cloth positions, colliders, particles) and uploads it;
// the world must not be stepping meanwhile.
void renderer_sync(renderer *r, const pbd_world *world, const demo_scene_state *state);
// The look the cloths are drawn with: a material preset's ("silk", ... pbd_tuning.h), or the
// scene's own colors for "" or a name without a look.
void renderer_set_look(renderer *r, const char *material);
// Draws the scene as the last sync left it: planes, colliders, cloths (and a wireframe overlay
// on demand). It reads nothing from the world, so it may run while a step does.
void renderer_draw(renderer *r, const camera *cam, int width, int height, bool wireframe);
void renderer_begin_overlay(renderer *r, int width, int height);
void renderer_panel(renderer *r, float x, float y, float w, float h, const float rgba[4]);
/// A line `width` pixels wide from (x0, y0) to (x1, y1), in overlay pixels.
void renderer_line(renderer *r, float x0, float y0, float x1, float y1, float width, const float rgba[4]);
void renderer_text(renderer *r, float x, float y, float scale, const char *text, const unsigned char rgba[4]);
void renderer_graph(renderer *r, float x, float y, float w, float h, const float *values, int count, int newest,
		    float max_value);
void renderer_end_overlay(renderer *r);
float renderer_text_width(const char *text, float scale);

// ---------------------------------------------------------------------------- loader.c
// Your own mesh loaded on a thread of its own in a live window (a big file takes seconds to
// read and to build): the window draws the progress, keeps answering, and Escape cancels.
typedef struct loader {
	pthread_t thread;
	bool started;                 // a thread to join (running, or finished and not collected)
	bool abandoned;               // cancelled by the user: the window went back, the result is dropped
	const demo_scene *scene;
	demo_scene_options options;
	char cloth_path[1024];
	pbd_task_pool *pool;
	double started_at;            // glfwGetTime() when it began
	VIEWER_ATOMIC(int) cancel;    // set by the window: stop at the next progress report
	VIEWER_ATOMIC(float) done;    // share of the file read (1: read, the cloth is being built)
	VIEWER_ATOMIC(int) finished;  // the thread has left its result
	pbd_result result;
	pbd_world *world;
	demo_scene_state state;
	char error[512];
} loader;

// Starts loading `scene` with `options` (copied, the cloth path too) into a new world on `pool`.
bool loader_start(loader *l, const demo_scene *scene, const demo_scene_options *options, pbd_task_pool *pool);
bool loader_finished(loader *l);
void loader_cancel(loader *l);
// After it finished: joins the thread and hands over its world and state (NULL world and the
// message in `error` when it failed or was cancelled).
pbd_result loader_collect(loader *l, pbd_world **world, demo_scene_state *state, char *error, size_t capacity);

// ---------------------------------------------------------------------------- app.c
typedef struct app {
	const demo_scene *scene;
	demo_scene_options options;
	pbd_task_pool *pool;      // NULL: the engine runs on the main thread alone
	char cloth_path[1024];    // the "mesh" scene's file (options.cloth_path points here)
	char material[32];        // the preset chosen (--material, M key), "" for the scene's own
	bool have_tuning;         // --params was given: applied to every scene loaded
	struct pbd_tuning *tuning;
	const char *tuning_path;  // where the O key writes
	pbd_world *world;
	demo_scene_state state;
	camera cam;
	float cam_heading;            // the followed scene's heading the camera last turned to
	renderer *render;
	int width, height;            // framebuffer size in pixels
	bool paused, step_once, wireframe, show_normals, show_help, show_panel, quit, want_screenshot;
	bool test_mode;               // fixed frames: no wall-clock figures on screen
	long frame;                   // frames drawn
	double sim_time;
	double accumulator;
	float frame_ms[VIEWER_HISTORY];
	int frame_ms_newest;
	double fps;
	double real_time_share;       // simulated seconds per wall-clock second (1: real time)
	pbd_world_stats stats;
	char status[256];             // last message shown on screen
	double status_time;
	const char *screenshot_path;  // where P writes (and --screenshot)
	int screenshot_count;
	// Mouse
	double mouse_x, mouse_y;
	int mouse_button;             // -1 none, else the GLFW button held
	bool dragging;
	pbd_cloth_id drag_cloth;
	int drag_vertex;
	bool drag_was_pinned;         // a pinned vertex is dragged by its pin; a free one by a grab
	pbd_attachment_id grab;       // the engine's grab of a free vertex (pbd_grab_begin)
	float drag_depth;             // distance of the grabbed point along the view direction
	float drag_target[3];         // where the cursor pulls the dragged vertex now
	// The right button held on the cloth: a second grab that holds its vertex where it was
	// taken while the left button pulls elsewhere (two hands: pull a sheet apart, tear it).
	bool holding;
	pbd_attachment_id hold;
	float hold_target[3];
	// What the overlay shows of the world, copied at the last sync (app_sync): frames drawn
	// while a step runs read these, never the world.
	char param_lines[16][96];
	int param_line_count;
	float param_values[VIEWER_MAX_PARAMS];  // every demo_param's value, for the control panel
	bool show_controls;           // the control panel (key L)
	viewer_pin *pins;             // every pinned vertex
	int pin_count, pin_capacity;
	float *normal_lines;          // two points (xyz, xyz) per drawn vertex normal
	int normal_count, normal_capacity;
	bool drag_point_known;
	float drag_point[3];          // where the dragged vertex is
	// Debug views (keys V, E, Z), copied at the last sync: the contacts touching and the
	// candidate pairs (at most the caps in app.c; the totals count all), and where the guard
	// stopped motions short, each kept with the simulated time it was seen, to flash.
	bool show_contacts, show_candidates, show_guard_stops;
	pbd_contact_point *contacts, *candidates;
	int contact_count, contact_total, contact_capacity;
	int candidate_count, candidate_total, candidate_capacity;
	int contact_kinds[5];         // touching contacts of each pbd_contact_kind
	viewer_flash *flashes;
	int flash_count, flash_capacity;
	int64_t flash_step;           // the world's step whose stops were taken last
	// Live window: your own mesh loads on a thread of its own (loader.c); meanwhile the old
	// scene is drawn but not stepped, and Escape cancels the load.
	bool load_async;              // a live window: load meshes on the loader's thread
	bool have_controls;           // the control panel could be made (panel_create)
	loader load;
	bool loading;                 // a load is shown (started and not cancelled or collected)
	bool load_keep_params;
	bool load_is_first;           // the scene the viewer started with: a failure ends it, a cancel shows the first scene
	bool first_load_failed;
	// Live window: steps run on their own thread (stepper.c); input that needs the world
	// waits here while one does.
	bool stepping;
	input_event queued[64];
	int queued_count;
	char queued_drop[1024];       // a file dropped while a step ran ("" none)
	const char *dump_dir;         // --dump: each sync writes DIR/frame_%05d.obj (frame = frames drawn)
	bool dump_failed;
} app;

// Loads `scene` (keeping `keep_params` values of the current world, if any). In a live window
// your own mesh is only started on the loader's thread (true: started); app_poll_load takes it
// in when it is done.
bool app_load_scene(app *a, const demo_scene *scene, bool keep_params);
// Once per frame in a live window: a finished load is taken in (or its failure shown), an
// abandoned one is dropped. Returns whether steps may run (no load holds the world or pool).
bool app_poll_load(app *a);
// The control panel's actions, through the same queue as the keys (they wait for a step
// that runs): a parameter's new value, a scene of the table, a key press.
void app_set_param(app *a, int index, float value);
void app_choose_scene(app *a, int index);
void app_queue_key(app *a, const char *key);
// Escape while loading: the load is cancelled and the old scene runs on.
void app_cancel_load(app *a);
// The file being loaded (its name without the directories) and the share of it read.
const char *app_loading_name(const app *a);
float app_loading_share(const app *a);
// An empty world with a floor, to draw while the first scene (your own mesh) loads.
bool app_load_placeholder(app *a, const demo_scene *scene);
// One step in test mode (or a paused window's single step): the drag, then the scene.
void app_step(app *a);
// Before steps, on the main thread: the dragged vertex is pulled to the cursor.
void app_follow_drag(app *a);
// `steps` steps of the scene (on any thread; it touches the world and state only). *done
// gets the steps taken (fewer when one failed: its result is returned), *stats the figures.
pbd_result app_advance(const demo_scene *scene, pbd_world *world, demo_scene_state *state, int steps, int *done,
		       pbd_world_stats *stats);
// Steps taken: the scene's time moves on by `done` steps; a failed one shows its error.
void app_note_steps(app *a, int done, pbd_result result);
// Copies what the next frames draw from the world (renderer and overlay) and lets the
// camera follow the scene's focus; the world must be idle.
void app_sync(app *a);
// Input that waits for the world while a step runs, applied in order once it is idle.
void app_queue_input(app *a, const input_event *event);
void app_apply_queued_input(app *a);
void app_free(app *a);
void app_set_status(app *a, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
bool app_write_screenshot(app *a, const char *path);
// The drawn frame as a PNG, without a status line (--record).
bool app_write_png(app *a, const char *path);
// Points the camera at every cloth and particle of the scene (the C key).
void app_frame_cloth(app *a);
// The world's cloths, particles and spheres as an OBJ file, as pbd-sim --dump writes (--dump).
bool app_dump_obj(app *a, const char *path);
// A file dropped on the window (or --drop in test mode): loads it as the "mesh" scene;
// on failure the previous scene keeps running and the message shows on screen and stderr.
bool app_drop_file(app *a, const char *path);
// Writes the tuning file (a->tuning_path) and prints the equivalent C code to stdout.
bool app_save_tuning(app *a);
// Switches every cloth to the next material preset (after the last: back to the scene's own).
void app_next_material(app *a);
// Draws the frame from what the last sync copied (the world may be stepping meanwhile).
void app_draw(app *a);

// ---------------------------------------------------------------------------- panel.cpp
// The control panel (key L; Dear ImGui). Without libimgui-dev the viewer is built with
// panel_none.c, whose panel_create returns false (the L key then says so).
struct GLFWwindow;
// After the viewer's own GLFW callbacks are set: the panel's pass every event on to them.
bool panel_create(struct GLFWwindow *window);
void panel_destroy(void);
// Whether the panel takes the mouse or the keyboard now (the viewer then leaves them alone).
bool panel_wants_mouse(const app *a);
bool panel_wants_keyboard(const app *a);
// Draws it over the frame (when a->show_controls).
void panel_draw(app *a);

// ---------------------------------------------------------------------------- stepper.c
typedef struct stepper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	app *a;
	int pending;              // steps handed to the worker and not yet done (0: idle)
	bool finished, stop, running;
	int steps_done;           // of the last batch
	pbd_result result;
	pbd_world_stats stats;
	double seconds_per_step;  // wall clock, last batch
} stepper;

bool stepper_start(stepper *s, app *a);
bool stepper_busy(stepper *s);
// Hands `steps` steps to the worker (it must be idle).
void stepper_launch(stepper *s, int steps);
// The last batch's outcome, once, after it finished.
bool stepper_collect(stepper *s, int *steps_done, pbd_result *result, pbd_world_stats *stats);
// Ends the worker; false when a step still runs (the caller then ends the process without
// waiting for it).
bool stepper_stop(stepper *s);
void app_mouse_button(app *a, int button, bool down, bool shift);
void app_mouse_move(app *a, double x, double y);
void app_scroll(app *a, double dy);

// ---------------------------------------------------------------------------- keys.c
// One key table drives the keyboard, the overlay and `--help`.
typedef enum key_action {
	KEY_PARAM,       // raise/lower a demo_param
	KEY_PAUSE,
	KEY_STEP,
	KEY_RESET,
	KEY_SCENE,       // 1..9
	KEY_NEXT_SCENE,  // ] (after the last: the first)
	KEY_PREVIOUS_SCENE, // [ (before the first: the last)
	KEY_WIREFRAME,
	KEY_NORMALS,     // short lines along the cloth's vertex normals
	KEY_CONTACTS,    // the contacts touching: points and normals
	KEY_CANDIDATES,  // the candidate pairs of the contact search
	KEY_GUARD_STOPS, // flashes where the guard (CCD) stopped a crossing
	KEY_HELP,
	KEY_PANEL,       // Tab: the stats and parameter panel
	KEY_SCREENSHOT,
	KEY_MATERIAL,    // next material preset
	KEY_SAVE_TUNING, // write the tuning file and print the C code
	KEY_FRAME,       // the camera looks at all of the cloth
	KEY_CONTROLS,    // the control panel (sliders, scene list, views, figures)
	KEY_QUIT,
} key_action;

typedef struct key_binding {
	const char *key;           // as written in --keys and shown: "S", "space", "1".."9", "[", "escape"
	key_action action;
	const char *what;
	const demo_param *param;   // KEY_PARAM only
} key_binding;

int key_binding_count(void);
const key_binding *key_binding_at(int index);
// Handles one key press (the same path for real keys and --keys). `name` is a key name as
// in the table, case-insensitive for letters; `shift` lowers parameters.
bool keys_press(app *a, const char *name, bool shift);
// Whether a key only changes the view (help, panel, wireframe, pause...): it acts at once even
// while a step runs; the others wait for the world.
bool keys_view_only(const char *name);
void keys_print_help(FILE *out);
// Overlay text of every tunable parameter, one line each: its keys, name, value and unit,
// separated by tabs (the panel puts each in its own column).
int keys_param_lines(const app *a, char lines[][96], int capacity);

// A parsed --keys list: FRAME:KEY pairs, KEY like S, shift+S, space, escape.
typedef struct key_event {
	long frame;
	char key[32];
	bool shift;
} key_event;

// Parses "FRAME:KEY,FRAME:KEY"; returns the count or -1 with a message in error.
int keys_parse_script(const char *text, key_event *events, int capacity, char *error, size_t error_capacity);
