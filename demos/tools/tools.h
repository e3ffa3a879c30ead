// SPDX-License-Identifier: MIT
// What the command-line tools (pbd-sim, pbd-viewer) share beyond the scene table: the flags
// they both take, and material presets and tuning files applied to a whole scene. The scene
// table itself (demos/scenes) needs only the engine.
#pragma once

#include <stdio.h>

#include "scenes.h"

// -------------------------------------------------------------------------------------------
// Flags both tools take

/// Set the defaults a tool wants (frames, threads, save_params) before parsing.
typedef struct demo_flags {
	const char *tool;         ///< "pbd-sim": the name messages start with
	const char *scene;        ///< --scene NAME
	long frames;              ///< --frames N
	int res;                  ///< --res N: vertices per cloth side; 0 = the scene's
	int threads;              ///< --threads N: workers of the task pool
	const char *cloth;        ///< --cloth FILE.obj: the "mesh" scene
	const char *pins;         ///< --pin SPEC
	int sphere;               ///< --sphere
	const char *material;     ///< --material NAME
	const char *params;       ///< --params FILE
	const char *save_params;  ///< --save-params FILE
} demo_flags;

typedef enum demo_flag_result {
	DEMO_FLAG_OTHER,  ///< not a shared flag: the tool reads it
	DEMO_FLAG_TAKEN,  ///< read (with its value: *i is on the value)
	DEMO_FLAG_BAD,    ///< a shared flag with a missing or bad value; a message went to stderr
} demo_flag_result;

/// Reads argv[*i] when it is one of the shared flags, and its value (then *i moves onto it).
demo_flag_result demo_flags_parse(demo_flags *flags, int argc, char **argv, int *i);

/// The shared flags' lines of a --help text, for a tool whose descriptions start at `column`.
void demo_flags_help(FILE *out, int column);

/// Reads a whole number in lo..hi; else prints "TOOL: FLAG needs a whole number in lo..hi"
/// and returns 0.
int demo_parse_long(const char *tool, const char *flag, const char *text, long lo, long hi, long *out);

/// "TOOL: FLAG needs a value (try --help)" when value is NULL; returns whether it is there.
int demo_flag_has_value(const char *tool, const char *flag, const char *value);

// -------------------------------------------------------------------------------------------
// Material presets and tuning files (demos/tuning/pbd_tuning.h) on a whole scene

struct pbd_tuning;
/// Gives every cloth the preset's material fields and density (colliders its friction).
pbd_result demo_apply_preset(pbd_world *world, demo_scene_state *state, const char *name, char *error,
			     size_t error_capacity);
/// Gives the world the tuning's settings and every cloth its material and density.
pbd_result demo_apply_tuning(pbd_world *world, demo_scene_state *state, const struct pbd_tuning *tuning,
			     char *error, size_t error_capacity);
/// Reads the first cloth's material and density and the world's settings into *tuning.
pbd_result demo_read_tuning(const pbd_world *world, const demo_scene_state *state, struct pbd_tuning *tuning);
