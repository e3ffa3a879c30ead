// SPDX-License-Identifier: MIT
// Every pbd_*_default() in one place, so the documented defaults are easy to check.
#include "world.h"

pbd_world_settings pbd_world_settings_default(void)
{
	return (pbd_world_settings){
		.substeps = 10,
		.iterations = 1,
		.gravity = {0.0f, -9.81f, 0.0f},
		.wind = {0.0f, 0.0f, 0.0f},
		.wind_turbulence = 0.3f,
		.air_density = 1.2f,
		.drag_coefficient = 1.0f,
		.lift_coefficient = 0.3f,
		.particle_cloth_mass_ratio = 3.0f,
		.max_candidate_pairs = 0,
		.max_substeps = 128,
	};
}

pbd_world_def pbd_world_def_default(void)
{
	return (pbd_world_def){
		.settings = pbd_world_settings_default(),
		.allocator = {NULL, NULL, NULL},
		.worker_count = 1,
		.enqueue_task = NULL,
		.finish_task = NULL,
		.user_task_context = NULL,
		.internal_cookie = PBD_COOKIE,
	};
}

pbd_cloth_material pbd_cloth_material_default(void)
{
	return (pbd_cloth_material){
		.stretch_compliance = 1e-6f,
		.shear_compliance = 1e-5f,
		.bend_compliance = 1.0e4f,
		.damping = 1.0f,
		.static_friction = 0.5f,
		.kinetic_friction = 0.4f,
		.thickness = 0.01f,
		.tether_slack = 0.02f,
		.self_collision = 1,
		.stretch_limit = 0.05f,
	};
}

pbd_cloth_def pbd_cloth_def_default(void)
{
	return (pbd_cloth_def){
		.source = PBD_CLOTH_GRID,
		.grid = {.res_x = 32, .res_y = 32, .width = 1.0f, .height = 1.0f, .pins = 0, .shear_diagonals = 1},
		.mesh = {NULL, 0, NULL, 0},
		.masses = NULL,
		.areal_density = 0.2f,
		.pinned = NULL,
		.pinned_count = 0,
		.position = {0.0f, 0.0f, 0.0f},
		.rotation = {0.0f, 0.0f, 0.0f, 1.0f},
		.velocity = {0.0f, 0.0f, 0.0f},
		.material = pbd_cloth_material_default(),
		.internal_cookie = PBD_COOKIE,
	};
}

pbd_particles_def pbd_particles_def_default(void)
{
	return (pbd_particles_def){
		.count = 0,
		.positions = NULL,
		.velocities = NULL,
		.radius = 0.05f,
		.mass = 0.1f,
		.static_friction = 0.5f,
		.kinetic_friction = 0.4f,
		.internal_cookie = PBD_COOKIE,
	};
}

pbd_collider_def pbd_collider_def_default(void)
{
	return (pbd_collider_def){
		.type = PBD_SHAPE_PLANE,
		.normal = {0.0f, 1.0f, 0.0f},
		.offset = 0.0f,
		.radius = 0.5f,
		.half_height = 0.5f,
		.half_extents = {0.5f, 0.5f, 0.5f},
		.position = {0.0f, 0.0f, 0.0f},
		.rotation = {0.0f, 0.0f, 0.0f, 1.0f},
		.static_friction = 0.5f,
		.kinetic_friction = 0.4f,
		.internal_cookie = PBD_COOKIE,
	};
}

pbd_attachment_def pbd_attachment_def_default(void)
{
	return (pbd_attachment_def){
		.cloth = {0, 0},
		.vertices = NULL,
		.vertex_count = 0,
		.position = {0.0f, 0.0f, 0.0f},
		.rotation = {0.0f, 0.0f, 0.0f, 1.0f},
		.compliance = 0.0f,
		.max_force = 0.0f,
		.internal_cookie = PBD_COOKIE,
	};
}

pbd_obj_options pbd_obj_options_default(void)
{
	return (pbd_obj_options){
		.weld_distance = -1.0f,
		.max_bytes = (size_t)256 << 20,
		.internal_cookie = PBD_COOKIE,
	};
}
