// SPDX-License-Identifier: MIT
// Orbit camera: yaw and pitch around a target, zoom by distance, pan in the view plane.
#include "viewer.h"

#define FOV_DEGREES 45.0f

void camera_from_scene(camera *c, const demo_scene *scene)
{
	glm_vec3_copy((float *)scene->camera_target, c->target);
	c->distance = scene->camera_distance;
	c->yaw = scene->camera_yaw;
	c->pitch = scene->camera_pitch;
}

void camera_follow(camera *c, const demo_scene *scene, const pbd_world *world, const demo_scene_state *state,
		   float *heading)
{
	if (!scene->focus)
		return;
	float now = 0.0f;
	scene->focus(world, state, c->target, &now);
	if (!isnan(*heading))
		c->yaw += now - *heading;
	*heading = now;
}

void camera_eye(const camera *c, vec3 out)
{
	float yaw = glm_rad(c->yaw), pitch = glm_rad(c->pitch);
	out[0] = c->target[0] + c->distance * cosf(pitch) * sinf(yaw);
	out[1] = c->target[1] + c->distance * sinf(pitch);
	out[2] = c->target[2] + c->distance * cosf(pitch) * cosf(yaw);
}

void camera_view_proj(const camera *c, int width, int height, mat4 out)
{
	vec3 eye, up = {0.0f, 1.0f, 0.0f};
	camera_eye(c, eye);
	mat4 view, proj;
	vec3 target;
	glm_vec3_copy((float *)c->target, target);
	glm_lookat(eye, target, up, view);
	float aspect = height > 0 ? (float)width / (float)height : 1.0f;
	glm_perspective(glm_rad(FOV_DEGREES), aspect, 0.02f, 200.0f, proj);
	glm_mat4_mul(proj, view, out);
}

void camera_orbit(camera *c, float dx, float dy)
{
	c->yaw -= dx * 0.3f;
	c->pitch = glm_clamp(c->pitch + dy * 0.3f, -89.0f, 89.0f);
}

void camera_pan(camera *c, float dx, float dy, int height)
{
	vec3 eye, forward, right, up = {0.0f, 1.0f, 0.0f}, cam_up;
	camera_eye(c, eye);
	glm_vec3_sub(c->target, eye, forward);
	glm_vec3_normalize(forward);
	glm_vec3_crossn(forward, up, right);
	glm_vec3_cross(right, forward, cam_up);
	// One pixel moves the target by the size of a pixel at the target's distance.
	float scale = 2.0f * c->distance * tanf(glm_rad(FOV_DEGREES) * 0.5f) / (float)(height > 0 ? height : 1);
	glm_vec3_muladds(right, -dx * scale, c->target);
	glm_vec3_muladds(cam_up, dy * scale, c->target);
}

void camera_zoom(camera *c, float wheel)
{
	c->distance = glm_clamp(c->distance * powf(0.9f, wheel), 0.1f, 100.0f);
}

void camera_frame(camera *c, const float lo[3], const float hi[3], float aspect)
{
	float radius = 0.0f;
	for (int k = 0; k < 3; ++k) {
		c->target[k] = 0.5f * (lo[k] + hi[k]);
		radius += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
	}
	radius = fmaxf(sqrtf(radius), 0.05f);
	// The narrower of the two half-angles of the view: the sphere touches it, with a margin.
	float half_v = glm_rad(FOV_DEGREES) * 0.5f;
	float half_h = atanf(tanf(half_v) * (aspect > 0.0f ? aspect : 1.0f));
	c->distance = glm_clamp(1.1f * radius / sinf(fminf(half_v, half_h)), 0.1f, 100.0f);
}

void camera_ray(const camera *c, int width, int height, double x, double y, vec3 origin, vec3 dir)
{
	mat4 vp, inv;
	camera_view_proj(c, width, height, vp);
	glm_mat4_inv(vp, inv);
	float nx = (float)(2.0 * x / width - 1.0), ny = (float)(1.0 - 2.0 * y / height);
	vec4 near_p = {nx, ny, -1.0f, 1.0f}, far_p = {nx, ny, 1.0f, 1.0f}, a, b;
	glm_mat4_mulv(inv, near_p, a);
	glm_mat4_mulv(inv, far_p, b);
	for (int k = 0; k < 3; ++k) {
		a[k] /= a[3];
		b[k] /= b[3];
	}
	camera_eye(c, origin);
	vec3 bf = {b[0], b[1], b[2]};
	glm_vec3_sub(bf, origin, dir);
	glm_vec3_normalize(dir);
}
