// SPDX-License-Identifier: MIT
// Material presets and tuning files (demos/tuning) applied to, and read from, a whole scene.
#include <stdio.h>
#include <string.h>

#include "pbd_tuning.h"
#include "tools.h"

// A parameter of the table (scenes.h) by name: friction goes to every cloth and collider, so
// a contact gets exactly the value set.
static pbd_result set_param(pbd_world *world, demo_scene_state *state, const char *name, float value)
{
	return demo_param_find(name)->set(world, state, value);
}

pbd_result demo_apply_preset(pbd_world *world, demo_scene_state *state, const char *name, char *error,
			     size_t error_capacity)
{
	pbd_tuning preset = pbd_tuning_default();
	if (pbd_tuning_apply_preset(&preset, name) != 0) {
		snprintf(error, error_capacity, "unknown material '%s' (materials:", name);
		for (int i = 0; i < pbd_tuning_preset_count(); ++i) {
			size_t used = strlen(error);
			snprintf(error + used, error_capacity - used, " %s", pbd_tuning_preset_name(i));
		}
		size_t used = strlen(error);
		snprintf(error + used, error_capacity - used, ")");
		return PBD_ERR_BAD_COUNT;
	}
	for (int i = 0; i < state->cloth_count; ++i) {
		// The preset's fields only: a scene's tethers and self-collision stay as they are.
		pbd_cloth_material m;
		pbd_result r = pbd_cloth_get_material(world, state->cloths[i], &m);
		if (r == PBD_OK) {
			pbd_cloth_material p = preset.material;
			m.stretch_compliance = p.stretch_compliance;
			m.shear_compliance = p.shear_compliance;
			m.bend_compliance = p.bend_compliance;
			m.damping = p.damping;
			m.static_friction = p.static_friction;
			m.kinetic_friction = p.kinetic_friction;
			m.thickness = p.thickness;
			r = pbd_cloth_set_material(world, state->cloths[i], &m);
		}
		if (r == PBD_OK)
			r = pbd_cloth_set_areal_density(world, state->cloths[i], preset.areal_density);
		if (r != PBD_OK) {
			snprintf(error, error_capacity, "material %s: %s", name, pbd_world_last_error(world));
			return r;
		}
	}
	// Friction is per contact: colliders get the same coefficients, so contacts get exactly them.
	pbd_result r = set_param(world, state, "static_friction", preset.material.static_friction);
	if (r == PBD_OK)
		r = set_param(world, state, "kinetic_friction", preset.material.kinetic_friction);
	return r;
}

pbd_result demo_apply_tuning(pbd_world *world, demo_scene_state *state, const pbd_tuning *tuning, char *error,
			     size_t error_capacity)
{
	pbd_result r = state->cloth_count > 0 ? PBD_OK : pbd_world_set_settings(world, &tuning->world);
	for (int i = 0; r == PBD_OK && i < state->cloth_count; ++i)
		r = pbd_tuning_apply(tuning, world, state->cloths[i]);
	if (r == PBD_OK)
		r = set_param(world, state, "static_friction", tuning->material.static_friction);
	if (r == PBD_OK)
		r = set_param(world, state, "kinetic_friction", tuning->material.kinetic_friction);
	if (r != PBD_OK)
		snprintf(error, error_capacity, "tuning: %s", pbd_world_last_error(world));
	return r;
}

pbd_result demo_read_tuning(const pbd_world *world, const demo_scene_state *state, pbd_tuning *tuning)
{
	if (state->cloth_count == 0) {
		tuning->world = pbd_world_get_settings(world);
		return PBD_OK;
	}
	return pbd_tuning_read(tuning, world, state->cloths[0]);
}
