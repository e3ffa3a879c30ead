// SPDX-License-Identifier: MIT
// The scene table shared by the viewer, pbd-sim, the tests and the benchmarks, and the
// table of tunable parameters shared by pbd-sim --set and the viewer's keys.
#pragma once

#include <stdio.h>

#include <pbd/pbd.h>

#define DEMO_MAX_CLOTHS 16
#define DEMO_MAX_COLLIDERS 16

typedef struct demo_scene_options {
	int res;                  ///< vertices per cloth side; 0 = the scene's default
	const char *cloth_path;   ///< scene "mesh": the OBJ file to load
	const char *pins;         ///< scene "mesh": "none", "top", "highest:N" (percent) or "i,j,k,..."
	int sphere;               ///< scene "mesh": 1 puts a sphere under the cloth
	/// scene "mesh": told the share of the file read (pbd_obj_options.progress); returning 0
	/// cancels the load (the scene then fails with PBD_ERR_CANCELLED). NULL: none.
	int (*progress)(float done, void *user);
	void *progress_user;
} demo_scene_options;

/// What a scene created, so tools can address it.
typedef struct demo_scene_state {
	pbd_cloth_id cloths[DEMO_MAX_CLOTHS];
	int cloth_count;
	pbd_collider_id colliders[DEMO_MAX_COLLIDERS];
	int collider_count;
	pbd_particles_id particles[DEMO_MAX_CLOTHS];
	int particle_group_count;
	pbd_attachment_id attachments[DEMO_MAX_CLOTHS];
	int attachment_count;
	float wind_direction[3];  ///< unit direction the "wind" parameter blows along
	double time;              ///< seconds since the scene started
	float values[8];          ///< scene-specific values (e.g. the incline angle)
	char message[512];        ///< why create failed when the world cannot say (a mesh file)
} demo_scene_state;

typedef struct demo_scene {
	const char *name;
	const char *description;
	int default_res;
	float camera_target[3];
	float camera_distance;
	float camera_yaw;    ///< degrees about y
	float camera_pitch;  ///< degrees above the horizon
	pbd_result (*create)(pbd_world *world, const demo_scene_options *options, demo_scene_state *state);
	/// Optional: called before each step (moves kinematic things).
	void (*update)(pbd_world *world, demo_scene_state *state, float dt);
	/// Optional: what the camera follows now (a running character): the point to look at
	/// and the heading in degrees about y, by which the camera turns with it.
	void (*focus)(const pbd_world *world, const demo_scene_state *state, float target[3], float *heading);
} demo_scene;

int demo_scene_count(void);
const demo_scene *demo_scene_at(int index);
/// A scene of the table by name, or "mesh" (your own OBJ file: options.cloth_path), which
/// is not in the numbered table.
const demo_scene *demo_scene_find(const char *name);

/// Creates `scene` in a fresh world (settings from `settings`, or defaults when NULL).
/// On failure returns the error and, when the world was created, its message in `error`.
pbd_result demo_scene_load(const demo_scene *scene, const demo_scene_options *options,
			   const pbd_world_settings *settings, pbd_world **out_world, demo_scene_state *state,
			   char *error, size_t error_capacity);

/// The same with a whole world def (task hooks, allocator).
pbd_result demo_scene_load_def(const demo_scene *scene, const demo_scene_options *options,
			       const pbd_world_def *world_def, pbd_world **out_world, demo_scene_state *state,
			       char *error, size_t error_capacity);

/// Where the sample meshes (demos/meshes/*.obj) are: $PBD_MESH_DIR, else the installed
/// copy, else the source tree.
const char *demo_mesh_dir(void);

/// Runs the scene's update (if any) and steps the world by dt.
pbd_result demo_scene_step(const demo_scene *scene, pbd_world *world, demo_scene_state *state, float dt);

/// Writes the scene's cloths as Wavefront OBJ: one `o clothN` per cloth, `v` lines and
/// 1-based `f` lines in the cloth's own order, `# sphere cx cy cz r` per sphere collider and
/// `# particle x y z r` per free particle. Returns 0 on success, -1 on a write error.
int demo_write_obj(FILE *out, const pbd_world *world, const demo_scene_state *state);

// -------------------------------------------------------------------------------------------
// Tunable parameters

typedef enum demo_param_step {
	DEMO_STEP_MULTIPLY,  ///< up multiplies by step, down divides
	DEMO_STEP_ADD,       ///< up adds step, down subtracts
} demo_param_step;

typedef struct demo_param {
	const char *name;    ///< key for --set and files
	const char *label;   ///< for the overlay
	const char *unit;
	char key;            ///< viewer key: the letter raises, Shift+letter lowers
	demo_param_step step_kind;
	float step;
	float min, max;
	int is_integer;
	/// Reads the value (from the first cloth for cloth parameters).
	float (*get)(const pbd_world *world, const demo_scene_state *state);
	/// Sets it on the world and every cloth (and, for friction, every collider).
	pbd_result (*set)(pbd_world *world, demo_scene_state *state, float value);
	/// 1 for compliances: the key letter lowers the value (raises the stiffness).
	int key_lowers;
} demo_param;

int demo_param_count(void);
const demo_param *demo_param_at(int index);
const demo_param *demo_param_find(const char *name);
/// Applies "name=value"; returns PBD_OK, or PBD_ERR_BAD_COUNT for an unknown name or a
/// value that is not a number (with a message in `error`), or the setter's error.
pbd_result demo_param_apply(pbd_world *world, demo_scene_state *state, const char *assignment, char *error,
			    size_t error_capacity);
/// One key press: raises (up != 0) or lowers the parameter by its step, within its limits.
pbd_result demo_param_nudge(const demo_param *param, pbd_world *world, demo_scene_state *state, int up);
