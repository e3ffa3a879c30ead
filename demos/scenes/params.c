// SPDX-License-Identifier: MIT
// Tunable parameters: one table for pbd-sim --set, the viewer's keys and its overlay. Every
// setter goes through the same public calls a game would use.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenes.h"

static pbd_cloth_material first_material(const pbd_world *w, const demo_scene_state *s)
{
	pbd_cloth_material m = pbd_cloth_material_default();
	if (s->cloth_count > 0)
		pbd_cloth_get_material(w, s->cloths[0], &m);
	return m;
}

// Sets one material field on every cloth of the scene.
static pbd_result set_material_field(pbd_world *w, demo_scene_state *s, size_t offset, float value)
{
	for (int i = 0; i < s->cloth_count; ++i) {
		pbd_cloth_material m;
		pbd_result r = pbd_cloth_get_material(w, s->cloths[i], &m);
		if (r != PBD_OK)
			return r;
		memcpy((char *)&m + offset, &value, sizeof value);
		r = pbd_cloth_set_material(w, s->cloths[i], &m);
		if (r != PBD_OK)
			return r;
	}
	return PBD_OK;
}

#define MATERIAL_PARAM(field)                                                                              \
	static float get_##field(const pbd_world *w, const demo_scene_state *s)                            \
	{                                                                                                  \
		return first_material(w, s).field;                                                         \
	}                                                                                                  \
	static pbd_result set_##field(pbd_world *w, demo_scene_state *s, float v)                          \
	{                                                                                                  \
		return set_material_field(w, s, offsetof(pbd_cloth_material, field), v);                   \
	}

MATERIAL_PARAM(stretch_compliance)
MATERIAL_PARAM(shear_compliance)
MATERIAL_PARAM(bend_compliance)
MATERIAL_PARAM(damping)
MATERIAL_PARAM(thickness)
MATERIAL_PARAM(tether_slack)
MATERIAL_PARAM(tear_strain)
MATERIAL_PARAM(stretch_limit)

// Friction: the contact coefficient is sqrt(cloth * collider), so the demos set both sides
// to the same value and the contact gets exactly that value.
static pbd_result set_friction(pbd_world *w, demo_scene_state *s, float v, int kinetic)
{
	pbd_result r = set_material_field(
		w, s, kinetic ? offsetof(pbd_cloth_material, kinetic_friction) : offsetof(pbd_cloth_material, static_friction), v);
	for (int i = 0; r == PBD_OK && i < s->collider_count; ++i) {
		pbd_collider_def d;
		r = pbd_collider_get_def(w, s->colliders[i], &d);
		if (r == PBD_OK)
			r = pbd_collider_set_friction(w, s->colliders[i], kinetic ? d.static_friction : v,
						      kinetic ? v : d.kinetic_friction);
	}
	return r;
}

static float get_self_collision(const pbd_world *w, const demo_scene_state *s)
{
	return (float)first_material(w, s).self_collision;
}
static pbd_result set_self_collision(pbd_world *w, demo_scene_state *s, float v)
{
	for (int i = 0; i < s->cloth_count; ++i) {
		pbd_cloth_material m;
		pbd_result r = pbd_cloth_get_material(w, s->cloths[i], &m);
		if (r != PBD_OK)
			return r;
		m.self_collision = v >= 0.5f;
		r = pbd_cloth_set_material(w, s->cloths[i], &m);
		if (r != PBD_OK)
			return r;
	}
	return PBD_OK;
}

static float get_static_friction(const pbd_world *w, const demo_scene_state *s)
{
	return first_material(w, s).static_friction;
}
static pbd_result set_static_friction(pbd_world *w, demo_scene_state *s, float v) { return set_friction(w, s, v, 0); }
static float get_kinetic_friction(const pbd_world *w, const demo_scene_state *s)
{
	return first_material(w, s).kinetic_friction;
}
static pbd_result set_kinetic_friction(pbd_world *w, demo_scene_state *s, float v) { return set_friction(w, s, v, 1); }

static float get_substeps(const pbd_world *w, const demo_scene_state *s)
{
	(void)s;
	return (float)pbd_world_get_settings(w).substeps;
}
static pbd_result set_substeps(pbd_world *w, demo_scene_state *s, float v)
{
	(void)s;
	return pbd_world_set_substeps(w, (int)lroundf(v));
}
static float get_iterations(const pbd_world *w, const demo_scene_state *s)
{
	(void)s;
	return (float)pbd_world_get_settings(w).iterations;
}
static pbd_result set_iterations(pbd_world *w, demo_scene_state *s, float v)
{
	(void)s;
	return pbd_world_set_iterations(w, (int)lroundf(v));
}

// Gravity as a magnitude pointing down.
static float get_gravity(const pbd_world *w, const demo_scene_state *s)
{
	(void)s;
	return -pbd_world_get_settings(w).gravity[1];
}
static pbd_result set_gravity(pbd_world *w, demo_scene_state *s, float v)
{
	(void)s;
	float g[3] = {0.0f, -v, 0.0f};
	return pbd_world_set_gravity(w, g);
}

// Wind as a speed along the scene's wind direction.
static float get_wind(const pbd_world *w, const demo_scene_state *s)
{
	pbd_world_settings st = pbd_world_get_settings(w);
	const float *d = s->wind_direction;
	return st.wind[0] * d[0] + st.wind[1] * d[1] + st.wind[2] * d[2];
}
static pbd_result set_wind(pbd_world *w, demo_scene_state *s, float v)
{
	const float *d = s->wind_direction;
	float wind[3] = {d[0] * v, d[1] * v, d[2] * v};
	return pbd_world_set_wind(w, wind);
}

static const demo_param params[] = {
	{"stretch_compliance", "stretch compliance", "m/N", 'S', DEMO_STEP_MULTIPLY, 0.5f, 1e-9f, 1e-1f, 0,
	 get_stretch_compliance, set_stretch_compliance, 1},
	{"bend_compliance", "bend compliance", "1/(N m)", 'B', DEMO_STEP_MULTIPLY, 0.5f, 1e-4f, 1e6f, 0,
	 get_bend_compliance, set_bend_compliance, 1},
	{"static_friction", "static friction", "", 'F', DEMO_STEP_ADD, 0.05f, 0.0f, 10.0f, 0, get_static_friction,
	 set_static_friction},
	{"kinetic_friction", "kinetic friction", "", 'K', DEMO_STEP_ADD, 0.05f, 0.0f, 10.0f, 0, get_kinetic_friction,
	 set_kinetic_friction},
	{"substeps", "substeps", "", 'U', DEMO_STEP_ADD, 1.0f, 1.0f, 100.0f, 1, get_substeps, set_substeps},
	{"iterations", "iterations", "", 'I', DEMO_STEP_ADD, 1.0f, 1.0f, 50.0f, 1, get_iterations, set_iterations},
	{"gravity", "gravity", "m/s^2", 'G', DEMO_STEP_ADD, 1.0f, 0.0f, 100.0f, 0, get_gravity, set_gravity},
	{"wind", "wind", "m/s", 'W', DEMO_STEP_ADD, 1.0f, -100.0f, 100.0f, 0, get_wind, set_wind},
	{"damping", "damping", "1/s", 'D', DEMO_STEP_ADD, 0.25f, 0.0f, 50.0f, 0, get_damping, set_damping},
	{"shear_compliance", "shear compliance", "m/N", 0, DEMO_STEP_MULTIPLY, 0.5f, 1e-9f, 1e-1f, 0,
	 get_shear_compliance, set_shear_compliance, 1},
	{"thickness", "thickness", "m", 0, DEMO_STEP_ADD, 0.001f, 0.0f, 0.1f, 0, get_thickness, set_thickness},
	{"tether_slack", "tether slack", "", 0, DEMO_STEP_ADD, 0.01f, -1.0f, 1.0f, 0, get_tether_slack,
	 set_tether_slack},
	{"self_collision", "self collision", "", 0, DEMO_STEP_ADD, 1.0f, 0.0f, 1.0f, 1, get_self_collision,
	 set_self_collision},
	// 0 never tears; T makes any scene's cloth tear at 5%, 10%, ... of stretch.
	{"tear_strain", "tear strain", "", 'T', DEMO_STEP_ADD, 0.05f, 0.0f, 10.0f, 0, get_tear_strain, set_tear_strain},
	// 0: no limit; edges longer than 1 + this times their rest length are brought back each pass.
	{"stretch_limit", "stretch limit", "", 0, DEMO_STEP_ADD, 0.01f, 0.0f, 10.0f, 0, get_stretch_limit,
	 set_stretch_limit},
};

int demo_param_count(void) { return (int)(sizeof params / sizeof params[0]); }

const demo_param *demo_param_at(int index)
{
	return index >= 0 && index < demo_param_count() ? &params[index] : NULL;
}

const demo_param *demo_param_find(const char *name)
{
	for (int i = 0; i < demo_param_count(); ++i)
		if (strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

pbd_result demo_param_apply(pbd_world *world, demo_scene_state *state, const char *assignment, char *error,
			    size_t error_capacity)
{
	const char *eq = strchr(assignment, '=');
	char name[64];
	size_t len = eq ? (size_t)(eq - assignment) : 0;
	if (!eq || len == 0 || len >= sizeof name) {
		snprintf(error, error_capacity, "expected key=value, got '%s'", assignment);
		return PBD_ERR_BAD_COUNT;
	}
	memcpy(name, assignment, len);
	name[len] = '\0';
	const demo_param *p = demo_param_find(name);
	if (!p) {
		snprintf(error, error_capacity, "unknown parameter '%s'", name);
		return PBD_ERR_BAD_COUNT;
	}
	char *end = NULL;
	errno = 0;
	double v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end != '\0' || errno == ERANGE || !isfinite(v)) {
		snprintf(error, error_capacity, "value of '%s' is not a finite number: '%s'", name, eq + 1);
		return PBD_ERR_NOT_FINITE;
	}
	pbd_result r = p->set(world, state, (float)v);
	if (r != PBD_OK)
		snprintf(error, error_capacity, "%s: %s", name, pbd_world_last_error(world));
	return r;
}

pbd_result demo_param_nudge(const demo_param *p, pbd_world *world, demo_scene_state *state, int up)
{
	float v = p->get(world, state);
	if (p->step_kind == DEMO_STEP_MULTIPLY) {
		if (v <= 0.0f)
			v = up ? p->min : 0.0f;
		else
			v = up ? v / p->step : v * p->step;
	} else {
		v = up ? v + p->step : v - p->step;
	}
	if (v < p->min)
		v = p->min;
	if (v > p->max)
		v = p->max;
	return p->set(world, state, v);
}
