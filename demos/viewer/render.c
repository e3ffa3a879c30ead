// SPDX-License-Identifier: MIT
// Drawing: cloth (streamed once per frame), colliders, planes as grids, and the overlay.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stb_easy_font.h>

#include "viewer.h"

typedef struct mesh {
	GLuint vao, vbo, ebo;
	GLsizei index_count;
} mesh;

typedef struct cloth_buffers {
	GLuint vao, positions, normals, rest, indices;  // rest: the positions it was first drawn at
	int vertex_capacity;
	int triangle_count;
	pbd_cloth_id id;
	float *first_seen;  // 3 per vertex of the cloth when first drawn: a torn vertex's weave is its origin's
	int first_seen_count;
} cloth_buffers;

typedef struct overlay_vertex {
	float x, y;
	float r, g, b, a;
} overlay_vertex;

#define OVERLAY_CAPACITY (6 * 60000)  // quads: the debug views' (app.c caps them) and the text's

// The key light's shadow map: depth seen from the light, over a box around what casts shadows.
typedef struct shadow_map {
	GLuint program, framebuffer, depth;
	int size;
	mat4 view_proj;
	float texel, offset;  // a texel in map coordinates (0: no shadows this frame), lookup offset in m
} shadow_map;

// What the last sync read from the world, so that frames can be drawn while a step runs.
typedef struct scene_copy {
	pbd_collider_def colliders[DEMO_MAX_COLLIDERS];
	int collider_count;
	int cloth_count;       // cloths uploaded (cloth buffers 0 .. count - 1)
	bool cloth_ok[DEMO_MAX_CLOTHS];
	int particle_count;    // instances in the instance buffer
	bool have_casters;     // the box around what casts shadows is known
	float casters_lo[3], casters_hi[3];
} scene_copy;

typedef struct cloth_look cloth_look;

struct renderer {
	GLuint cloth_program, solid_program, grid_program, overlay_program;
	shadow_map shadow;
	scene_copy scene;
	mesh sphere, ball, cylinder, box;
	GLuint grid_vao, grid_vbo;
	GLuint instance_vbo;       // free particles: xyz + radius per sphere
	int instance_capacity;
	float *instances;
	GLuint overlay_vao, overlay_vbo;
	overlay_vertex *overlay;
	int overlay_count;
	int overlay_width, overlay_height;
	cloth_buffers cloths[DEMO_MAX_CLOTHS];
	const cloth_look *material_look;  // every cloth's, from a material preset; NULL: the scene's
};

static const float kLight[3] = {0.35f, 0.9f, 0.45f};
// The gingham weave's period, m: bands 5 cm wide read at the distance scenes are framed from.
static const float kWeavePeriod = 0.1f;

static void mesh_upload(mesh *m, const float *vertices, int vertex_count, const GLuint *indices, int index_count)
{
	glGenVertexArrays(1, &m->vao);
	glGenBuffers(1, &m->vbo);
	glGenBuffers(1, &m->ebo);
	glBindVertexArray(m->vao);
	glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 6 * (size_t)vertex_count), vertices, GL_STATIC_DRAW);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->ebo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(GLuint) * (size_t)index_count), indices, GL_STATIC_DRAW);
	m->index_count = index_count;
	glBindVertexArray(0);
}

// Unit sphere, or (cylinder) the side of a unit cylinder from y = -1 to 1.
static void build_round(mesh *m, bool cylinder, int slices, int stacks)
{
	enum { MAX_SLICES = 32, MAX_STACKS = 20 };
	float v[(MAX_SLICES + 1) * (MAX_STACKS + 1) * 6];
	GLuint idx[MAX_SLICES * MAX_STACKS * 6];
	const int SLICES = slices < MAX_SLICES ? slices : MAX_SLICES, STACKS = stacks < MAX_STACKS ? stacks : MAX_STACKS;
	int nv = 0, ni = 0;
	for (int j = 0; j <= STACKS; ++j) {
		float t = (float)j / STACKS;
		float phi = GLM_PIf * t;
		for (int i = 0; i <= SLICES; ++i) {
			float theta = 2.0f * GLM_PIf * (float)i / SLICES;
			float nx = cylinder ? cosf(theta) : sinf(phi) * cosf(theta);
			float ny = cylinder ? 0.0f : cosf(phi);
			float nz = cylinder ? sinf(theta) : sinf(phi) * sinf(theta);
			float *o = v + 6 * nv++;
			o[0] = nx;
			o[1] = cylinder ? 1.0f - 2.0f * t : ny;
			o[2] = nz;
			o[3] = nx;
			o[4] = ny;
			o[5] = nz;
		}
	}
	for (int j = 0; j < STACKS; ++j)
		for (int i = 0; i < SLICES; ++i) {
			GLuint a = (GLuint)(j * (SLICES + 1) + i), b = a + SLICES + 1;
			GLuint q[6] = {a, b, a + 1, a + 1, b, b + 1};
			memcpy(idx + ni, q, sizeof q);
			ni += 6;
		}
	mesh_upload(m, v, nv, idx, ni);
}

static void build_box(mesh *m)
{
	float v[24 * 6];
	GLuint idx[36];
	int nv = 0, ni = 0;
	for (int axis = 0; axis < 3; ++axis)
		for (int sign = -1; sign <= 1; sign += 2) {
			int u = (axis + 1) % 3, w = (axis + 2) % 3;
			GLuint base = (GLuint)nv;
			for (int k = 0; k < 4; ++k) {
				float *o = v + 6 * nv++;
				float p[3];
				p[axis] = (float)sign;
				p[u] = (k & 1) ? 1.0f : -1.0f;
				p[w] = (k & 2) ? 1.0f : -1.0f;
				for (int c = 0; c < 3; ++c) {
					o[c] = p[c];
					o[3 + c] = c == axis ? (float)sign : 0.0f;
				}
			}
			GLuint q[6] = {base, base + 1, base + 2, base + 2, base + 1, base + 3};
			memcpy(idx + ni, q, sizeof q);
			ni += 6;
		}
	mesh_upload(m, v, nv, idx, ni);
}

// A square depth texture compared in lookups (sampler2DShadow) with linear filtering, which
// averages four comparisons per lookup; outside it everything is lit.
static bool shadow_map_create(shadow_map *m, char *error, size_t cap)
{
	m->size = 2048;
	glGenTextures(1, &m->depth);
	glBindTexture(GL_TEXTURE_2D, m->depth);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, m->size, m->size, 0, GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
	glGenFramebuffers(1, &m->framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, m->framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, m->depth, 0);
	glDrawBuffer(GL_NONE);
	glReadBuffer(GL_NONE);
	bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glBindTexture(GL_TEXTURE_2D, 0);
	if (!complete)
		snprintf(error, cap, "the shadow map's framebuffer is incomplete");
	return complete;
}

renderer *renderer_create(const char *shader_dir, char *error, size_t cap)
{
	renderer *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(error, cap, "out of memory");
		return NULL;
	}
	static const char *const cloth[] = {"cloth", "lighting"}, *const solid[] = {"solid", "lighting"},
				 *const grid[] = {"grid", "lighting"}, *const shadow[] = {"shadow"};
	r->cloth_program = gl_program_link(shader_dir, "cloth", cloth, 2, error, cap);
	if (r->cloth_program)
		r->solid_program = gl_program_link(shader_dir, "solid", solid, 2, error, cap);
	if (r->solid_program)
		r->grid_program = gl_program_link(shader_dir, "grid", grid, 2, error, cap);
	if (r->grid_program)  // the solid vertex shader places cloths (identity model) and shapes alike
		r->shadow.program = gl_program_link(shader_dir, "solid", shadow, 1, error, cap);
	if (r->shadow.program)
		r->overlay_program = gl_program_from_files(shader_dir, "overlay", error, cap);
	r->overlay = malloc(sizeof *r->overlay * OVERLAY_CAPACITY);
	if (!r->overlay_program || !r->overlay || !shadow_map_create(&r->shadow, error, cap)) {
		renderer_destroy(r);
		return NULL;
	}
	build_round(&r->sphere, false, 32, 20);
	// Particles are many and small: a coarse sphere keeps software rendering fast.
	build_round(&r->ball, false, 12, 8);
	build_round(&r->cylinder, true, 32, 20);
	build_box(&r->box);
	static const float corners[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
	glGenVertexArrays(1, &r->grid_vao);
	glGenBuffers(1, &r->grid_vbo);
	glBindVertexArray(r->grid_vao);
	glBindBuffer(GL_ARRAY_BUFFER, r->grid_vbo);
	glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
	glGenBuffers(1, &r->instance_vbo);
	glGenVertexArrays(1, &r->overlay_vao);
	glGenBuffers(1, &r->overlay_vbo);
	glBindVertexArray(r->overlay_vao);
	glBindBuffer(GL_ARRAY_BUFFER, r->overlay_vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * OVERLAY_CAPACITY), NULL, GL_DYNAMIC_DRAW);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(overlay_vertex), (void *)0);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(overlay_vertex), (void *)(2 * sizeof(float)));
	glBindVertexArray(0);
	return r;
}

static void delete_mesh(mesh *m)
{
	glDeleteVertexArrays(1, &m->vao);
	glDeleteBuffers(1, &m->vbo);
	glDeleteBuffers(1, &m->ebo);
}

void renderer_destroy(renderer *r)
{
	if (!r)
		return;
	for (int i = 0; i < DEMO_MAX_CLOTHS; ++i) {
		cloth_buffers *c = &r->cloths[i];
		if (c->vao) {
			glDeleteVertexArrays(1, &c->vao);
			GLuint b[4] = {c->positions, c->normals, c->rest, c->indices};
			glDeleteBuffers(4, b);
		}
		free(c->first_seen);
		c->first_seen = NULL;
	}
	if (r->sphere.vao) {
		delete_mesh(&r->sphere);
		delete_mesh(&r->ball);
		delete_mesh(&r->cylinder);
		delete_mesh(&r->box);
		glDeleteVertexArrays(1, &r->grid_vao);
		glDeleteBuffers(1, &r->grid_vbo);
		glDeleteVertexArrays(1, &r->overlay_vao);
		glDeleteBuffers(1, &r->overlay_vbo);
	}
	glDeleteProgram(r->cloth_program);
	glDeleteProgram(r->solid_program);
	glDeleteProgram(r->grid_program);
	glDeleteProgram(r->overlay_program);
	glDeleteProgram(r->shadow.program);
	if (r->shadow.framebuffer)
		glDeleteFramebuffers(1, &r->shadow.framebuffer);
	if (r->shadow.depth)
		glDeleteTextures(1, &r->shadow.depth);
	if (r->instance_vbo)
		glDeleteBuffers(1, &r->instance_vbo);
	free(r->instances);
	free(r->overlay);
	free(r);
}

void renderer_forget_cloths(renderer *r)
{
	if (!r)
		return;
	for (int i = 0; i < DEMO_MAX_CLOTHS; ++i) {
		r->cloths[i].vertex_capacity = -1;  // never equal to a cloth's count: uploaded afresh
		r->cloths[i].triangle_count = 0;
		free(r->cloths[i].first_seen);  // and its weave taken from its first frame
		r->cloths[i].first_seen = NULL;
		r->cloths[i].first_seen_count = 0;
	}
}

// Streams one cloth: positions and normals once per frame; indices when the cloth changes.
static cloth_buffers *upload_cloth(renderer *r, int slot, const pbd_world *world, pbd_cloth_id id)
{
	cloth_buffers *c = &r->cloths[slot];
	int n = 0, t = 0;
	const float *x = pbd_cloth_positions(world, id, &n);
	const float *nrm = pbd_cloth_normals(world, id, NULL);
	const uint32_t *tri = pbd_cloth_indices(world, id, &t);
	if (!x || !nrm || !tri)
		return NULL;
	if (!c->vao) {
		glGenVertexArrays(1, &c->vao);
		GLuint b[4];
		glGenBuffers(4, b);
		c->positions = b[0];
		c->normals = b[1];
		c->rest = b[2];
		c->indices = b[3];
	}
	glBindVertexArray(c->vao);
	bool same_cloth = c->id.index1 == id.index1 && c->id.generation == id.generation;
	bool fresh = c->vertex_capacity != n || c->triangle_count != t || !same_cloth;
	// The weave: the shape the cloth was first drawn in; a vertex a tear made takes its origin's
	// place in it, so the pattern stays put across the tear.
	const float *weave = x;
	float *torn = NULL;
	int origin_count = 0;
	const uint32_t *origin = pbd_cloth_vertex_origins(world, id, &origin_count);
	if (fresh && (!same_cloth || !c->first_seen)) {
		free(c->first_seen);
		c->first_seen_count = 0;
		c->first_seen = malloc(sizeof(float) * 3 * (size_t)n);
		if (c->first_seen) {
			memcpy(c->first_seen, x, sizeof(float) * 3 * (size_t)n);
			c->first_seen_count = n;
		}
	} else if (fresh && origin && origin_count == n && (torn = malloc(sizeof(float) * 3 * (size_t)n))) {
		for (int i = 0; i < n; ++i) {
			uint32_t o = origin[i] < (uint32_t)c->first_seen_count ? origin[i] : (uint32_t)i;
			memcpy(torn + 3 * i, (int)o < c->first_seen_count ? c->first_seen + 3 * o : x + 3 * i, 3 * sizeof(float));
		}
		weave = torn;
	}
	GLsizeiptr bytes = (GLsizeiptr)(sizeof(float) * 3 * (size_t)n);
	glBindBuffer(GL_ARRAY_BUFFER, c->positions);
	if (fresh)
		glBufferData(GL_ARRAY_BUFFER, bytes, x, GL_DYNAMIC_DRAW);
	else
		glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, x);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
	glBindBuffer(GL_ARRAY_BUFFER, c->normals);
	if (fresh)
		glBufferData(GL_ARRAY_BUFFER, bytes, nrm, GL_DYNAMIC_DRAW);
	else
		glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, nrm);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
	if (fresh) {  // the weave is printed on the shape the cloth is first seen in
		glBindBuffer(GL_ARRAY_BUFFER, c->rest);
		glBufferData(GL_ARRAY_BUFFER, bytes, weave, GL_STATIC_DRAW);
		glEnableVertexAttribArray(2);
		glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
	}
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, c->indices);
	if (fresh)
		glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(uint32_t) * 3 * (size_t)t), tri, GL_STATIC_DRAW);
	free(torn);
	c->vertex_capacity = n;
	c->triangle_count = t;
	c->id = id;
	return c;
}

// The uniforms every lit program shares: camera, key light and its shadow map (unit 0).
static void set_common(const renderer *r, GLuint program, const mat4 vp, const camera *cam)
{
	glUseProgram(program);
	glUniformMatrix4fv(glGetUniformLocation(program, "u_view_proj"), 1, GL_FALSE, (const float *)vp);
	vec3 eye;
	camera_eye(cam, eye);
	glUniform3fv(glGetUniformLocation(program, "u_eye"), 1, eye);
	glUniform3fv(glGetUniformLocation(program, "u_light_dir"), 1, kLight);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, r->shadow.depth);
	glUniform1i(glGetUniformLocation(program, "u_shadow_map"), 0);
	glUniformMatrix4fv(glGetUniformLocation(program, "u_light_view_proj"), 1, GL_FALSE,
			   (const float *)r->shadow.view_proj);
	glUniform1f(glGetUniformLocation(program, "u_shadow_texel"), r->shadow.texel);
	glUniform1f(glGetUniformLocation(program, "u_shadow_offset"), r->shadow.offset);
}

static void model_from_pose(const pbd_collider_def *d, const vec3 scale, mat4 out)
{
	versor q = {d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]};
	mat4 rot;
	glm_quat_mat4(q, rot);
	glm_mat4_identity(out);
	glm_translate(out, (float *)d->position);
	glm_mat4_mul(out, rot, out);
	glm_scale(out, (float *)scale);
}

static void draw_mesh(GLuint program, const mesh *m, const mat4 model, const float color[3])
{
	glUniformMatrix4fv(glGetUniformLocation(program, "u_model"), 1, GL_FALSE, (const float *)model);
	glUniform3fv(glGetUniformLocation(program, "u_color"), 1, color);
	glBindVertexArray(m->vao);
	glDrawElements(GL_TRIANGLES, m->index_count, GL_UNSIGNED_INT, (void *)0);
}

// Colliders other than planes, with `program` in use (the lit one, or the shadow map's).
static void draw_colliders(renderer *r, GLuint program)
{
	static const float color[3] = {0.62f, 0.58f, 0.52f};
	glUniform1f(glGetUniformLocation(program, "u_instanced"), 0.0f);
	for (int i = 0; i < r->scene.collider_count; ++i) {
		pbd_collider_def d = r->scene.colliders[i];
		mat4 model;
		if (d.type == PBD_SHAPE_SPHERE) {
			vec3 s = {d.radius, d.radius, d.radius};
			model_from_pose(&d, s, model);
			draw_mesh(program, &r->sphere, model, color);
		} else if (d.type == PBD_SHAPE_BOX) {
			model_from_pose(&d, d.half_extents, model);
			draw_mesh(program, &r->box, model, color);
		} else if (d.type == PBD_SHAPE_CAPSULE) {
			vec3 s = {d.radius, d.half_height, d.radius};
			model_from_pose(&d, s, model);
			draw_mesh(program, &r->cylinder, model, color);
			for (int end = -1; end <= 1; end += 2) {
				pbd_collider_def cap = d;
				vec3 local = {0.0f, (float)end * d.half_height, 0.0f}, world_off;
				versor q = {d.rotation[0], d.rotation[1], d.rotation[2], d.rotation[3]};
				glm_quat_rotatev(q, local, world_off);
				glm_vec3_add(cap.position, world_off, cap.position);
				vec3 rs = {d.radius, d.radius, d.radius};
				model_from_pose(&cap, rs, model);
				draw_mesh(program, &r->sphere, model, color);
			}
		}
	}
}

// Free particles into the instance buffer (xyz, radius); returns how many.
static int gather_particles(renderer *r, const pbd_world *world, const demo_scene_state *state)
{
	int total = 0;
	for (int g = 0; g < state->particle_group_count; ++g) {
		int n = 0;
		pbd_particles_positions(world, state->particles[g], &n);
		total += n;
	}
	if (total == 0)
		return 0;
	if (total > r->instance_capacity) {
		float *grown = realloc(r->instances, sizeof(float) * 4 * (size_t)total);
		if (!grown)
			return 0;
		r->instances = grown;
		r->instance_capacity = total;
	}
	int k = 0;
	for (int g = 0; g < state->particle_group_count; ++g) {
		int n = 0;
		const float *x = pbd_particles_positions(world, state->particles[g], &n);
		float radius = pbd_particles_radius(world, state->particles[g]);
		for (int i = 0; x && i < n; ++i, ++k) {
			memcpy(r->instances + 4 * k, x + 3 * i, sizeof(float) * 3);
			r->instances[4 * k + 3] = radius;
		}
	}
	glBindBuffer(GL_ARRAY_BUFFER, r->instance_vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 4 * (size_t)k), r->instances, GL_STREAM_DRAW);
	return k;
}

// Free particles: one instanced draw of the unit sphere, with `program` in use.
static void draw_particles(renderer *r, GLuint program, int count)
{
	static const float color[3] = {0.25f, 0.55f, 0.95f};
	if (count == 0)
		return;
	glUniform1f(glGetUniformLocation(program, "u_instanced"), 1.0f);
	glUniform3fv(glGetUniformLocation(program, "u_color"), 1, color);
	glBindVertexArray(r->ball.vao);
	glBindBuffer(GL_ARRAY_BUFFER, r->instance_vbo);
	glEnableVertexAttribArray(2);
	glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)0);
	glVertexAttribDivisor(2, 1);
	glDrawElementsInstanced(GL_TRIANGLES, r->ball.index_count, GL_UNSIGNED_INT, (void *)0, count);
	glVertexAttribDivisor(2, 0);
	glDisableVertexAttribArray(2);
	glUniform1f(glGetUniformLocation(program, "u_instanced"), 0.0f);
}

static void draw_planes(renderer *r, const mat4 vp, const camera *cam)
{
	static const float color[3] = {0.36f, 0.40f, 0.46f};
	set_common(r, r->grid_program, vp, cam);
	glUniform3fv(glGetUniformLocation(r->grid_program, "u_color"), 1, color);
	glUniform1f(glGetUniformLocation(r->grid_program, "u_extent"), 12.0f);
	glEnable(GL_BLEND);
	glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
	glDepthMask(GL_FALSE);
	glBindVertexArray(r->grid_vao);
	for (int i = 0; i < r->scene.collider_count; ++i) {
		const pbd_collider_def d = r->scene.colliders[i];
		if (d.type != PBD_SHAPE_PLANE)
			continue;
		mat4 model;
		vec3 one = {1.0f, 1.0f, 1.0f};
		model_from_pose(&d, one, model);
		glUniformMatrix4fv(glGetUniformLocation(r->grid_program, "u_model"), 1, GL_FALSE, (const float *)model);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	}
	glDepthMask(GL_TRUE);
	glDisable(GL_BLEND);
}

static void grow_box(float lo[3], float hi[3], const float *p, float margin)
{
	for (int k = 0; k < 3; ++k) {
		lo[k] = fminf(lo[k], p[k] - margin);
		hi[k] = fmaxf(hi[k], p[k] + margin);
	}
}

// The box around everything that casts a shadow (cloths, particles, colliders but planes).
static bool caster_bounds(const pbd_world *world, const demo_scene_state *state, float lo[3], float hi[3])
{
	for (int k = 0; k < 3; ++k) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	for (int i = 0; i < state->cloth_count && i < DEMO_MAX_CLOTHS; ++i) {
		int n = 0;
		const float *x = pbd_cloth_positions(world, state->cloths[i], &n);
		for (int v = 0; x && v < n; ++v)
			grow_box(lo, hi, x + 3 * v, 0.0f);
	}
	for (int g = 0; g < state->particle_group_count; ++g) {
		int n = 0;
		const float *x = pbd_particles_positions(world, state->particles[g], &n);
		float radius = pbd_particles_radius(world, state->particles[g]);
		for (int v = 0; x && v < n; ++v)
			grow_box(lo, hi, x + 3 * v, radius);
	}
	for (int i = 0; i < state->collider_count; ++i) {
		pbd_collider_def d;
		if (pbd_collider_get_def(world, state->colliders[i], &d) != PBD_OK || d.type == PBD_SHAPE_PLANE)
			continue;
		float reach = d.type == PBD_SHAPE_BOX ? glm_vec3_norm(d.half_extents)
			    : d.type == PBD_SHAPE_CAPSULE ? d.half_height + d.radius
							    : d.radius;
		grow_box(lo, hi, d.position, reach);
	}
	// A scene far larger than the viewer's floor is drawn unshadowed rather than blurred.
	return lo[0] <= hi[0] && isfinite(hi[0] - lo[0] + hi[1] - lo[1] + hi[2] - lo[2]) &&
	       hi[0] - lo[0] + hi[1] - lo[1] + hi[2] - lo[2] < 300.0f;
}

// Depth as the key light sees the casters, over the sphere around their box: cloth layers a
// centimetre apart shadow each other (one texel is a few millimetres for a metre-sized scene).
static void draw_shadow_map(renderer *r)
{
	shadow_map *m = &r->shadow;
	m->texel = 0.0f;
	if (!r->scene.have_casters)
		return;
	const float *lo = r->scene.casters_lo, *hi = r->scene.casters_hi;
	vec3 centre, light, eye, up = {0.0f, 1.0f, 0.0f};
	float radius = 0.5f * sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
				    (hi[2] - lo[2]) * (hi[2] - lo[2])) + 0.05f;
	for (int k = 0; k < 3; ++k)
		centre[k] = 0.5f * (lo[k] + hi[k]);
	glm_vec3_normalize_to((float *)kLight, light);
	glm_vec3_scale(light, 2.0f * radius, eye);
	glm_vec3_add(eye, centre, eye);
	mat4 view, proj;
	glm_lookat(eye, centre, up, view);
	glm_ortho(-radius, radius, -radius, radius, 0.5f * radius, 3.5f * radius, proj);
	glm_mat4_mul(proj, view, m->view_proj);
	m->texel = 1.0f / (float)m->size;
	m->offset = 1.5f * 2.0f * radius / (float)m->size;

	GLint target = 0;
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
	glBindFramebuffer(GL_FRAMEBUFFER, m->framebuffer);
	glViewport(0, 0, m->size, m->size);
	glClear(GL_DEPTH_BUFFER_BIT);
	glEnable(GL_DEPTH_TEST);
	glEnable(GL_POLYGON_OFFSET_FILL);
	glPolygonOffset(2.0f, 4.0f);
	glUseProgram(m->program);
	glUniformMatrix4fv(glGetUniformLocation(m->program, "u_view_proj"), 1, GL_FALSE, (const float *)m->view_proj);
	draw_colliders(r, m->program);
	draw_particles(r, m->program, r->scene.particle_count);
	mat4 identity;
	glm_mat4_identity(identity);
	glUniformMatrix4fv(glGetUniformLocation(m->program, "u_model"), 1, GL_FALSE, (const float *)identity);
	for (int i = 0; i < r->scene.cloth_count; ++i)
		if (r->scene.cloth_ok[i]) {
			glBindVertexArray(r->cloths[i].vao);
			glDrawElements(GL_TRIANGLES, 3 * r->cloths[i].triangle_count, GL_UNSIGNED_INT, (void *)0);
		}
	glDisable(GL_POLYGON_OFFSET_FILL);
	glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
}

void renderer_sync(renderer *r, const pbd_world *world, const demo_scene_state *state)
{
	scene_copy *c = &r->scene;
	c->cloth_count = state->cloth_count < DEMO_MAX_CLOTHS ? state->cloth_count : DEMO_MAX_CLOTHS;
	for (int i = 0; i < c->cloth_count; ++i)
		c->cloth_ok[i] = upload_cloth(r, i, world, state->cloths[i]) != NULL;
	c->particle_count = gather_particles(r, world, state);
	c->collider_count = 0;
	for (int i = 0; i < state->collider_count && i < DEMO_MAX_COLLIDERS; ++i)
		if (pbd_collider_get_def(world, state->colliders[i], &c->colliders[c->collider_count]) == PBD_OK)
			c->collider_count++;
	c->have_casters = caster_bounds(world, state, c->casters_lo, c->casters_hi);
}

// How a cloth is drawn: its two faces' colors, its weave and its highlight.
struct cloth_look {
	const char *material;  // a preset's name (pbd_tuning.h); NULL for the scenes' own cloths
	float front[3], back[3];
	float pattern;         // the weave's period in m (0: plain)
	bool twill;            // diagonal ribs instead of gingham
	float sheen, sharpness;
};

// The scenes' own cloths take one gingham of four colors each, in turn. A material preset
// gives every cloth the look of that fabric, so that switching presets shows which one is on:
// silk plain with a sharp, strong highlight; cotton a light gingham and dull; denim indigo
// twill with a pale back, as its weft shows there; leather brown and smooth with a broad
// sheen, its flesh side lighter (suede); rubber near black and glossy.
static const cloth_look kSceneLooks[] = {
	{NULL, {0.80f, 0.22f, 0.18f}, {0.80f, 0.90f, 0.55f}, kWeavePeriod, false, 0.15f, 24.0f},
	{NULL, {0.20f, 0.45f, 0.78f}, {0.85f, 0.85f, 0.88f}, kWeavePeriod, false, 0.15f, 24.0f},
	{NULL, {0.25f, 0.62f, 0.35f}, {0.90f, 0.86f, 0.72f}, kWeavePeriod, false, 0.15f, 24.0f},
	{NULL, {0.62f, 0.35f, 0.70f}, {0.88f, 0.80f, 0.88f}, kWeavePeriod, false, 0.15f, 24.0f},
};
enum { kSceneLookCount = sizeof kSceneLooks / sizeof kSceneLooks[0] };
static const cloth_look kMaterialLooks[] = {
	{"silk", {0.62f, 0.10f, 0.30f}, {0.72f, 0.22f, 0.40f}, 0.0f, false, 0.55f, 60.0f},
	{"cotton", {0.86f, 0.84f, 0.78f}, {0.78f, 0.76f, 0.70f}, kWeavePeriod, false, 0.04f, 8.0f},
	{"denim", {0.14f, 0.22f, 0.42f}, {0.58f, 0.64f, 0.74f}, 0.5f * kWeavePeriod, true, 0.05f, 10.0f},
	{"leather", {0.36f, 0.21f, 0.11f}, {0.62f, 0.50f, 0.38f}, 0.0f, false, 0.30f, 14.0f},
	{"rubber", {0.10f, 0.10f, 0.11f}, {0.16f, 0.16f, 0.17f}, 0.0f, false, 0.45f, 40.0f},
};

void renderer_set_look(renderer *r, const char *material)
{
	r->material_look = NULL;
	for (size_t k = 0; material && k < sizeof kMaterialLooks / sizeof kMaterialLooks[0]; ++k)
		if (strcmp(material, kMaterialLooks[k].material) == 0)
			r->material_look = &kMaterialLooks[k];
}

void renderer_draw(renderer *r, const camera *cam, int width, int height, bool wireframe)
{
	glDisable(GL_CULL_FACE);
	draw_shadow_map(r);

	glViewport(0, 0, width, height);
	glClearColor(0.13f, 0.15f, 0.18f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glEnable(GL_DEPTH_TEST);
	mat4 vp;
	camera_view_proj(cam, width, height, vp);
	set_common(r, r->solid_program, vp, cam);
	draw_colliders(r, r->solid_program);
	draw_particles(r, r->solid_program, r->scene.particle_count);

	set_common(r, r->cloth_program, vp, cam);
	for (int i = 0; i < r->scene.cloth_count; ++i) {
		if (!r->scene.cloth_ok[i])
			continue;
		const cloth_buffers *c = &r->cloths[i];
		glBindVertexArray(c->vao);
		const cloth_look *look = r->material_look ? r->material_look : &kSceneLooks[i % kSceneLookCount];
		glUniform3fv(glGetUniformLocation(r->cloth_program, "u_front_color"), 1, look->front);
		glUniform3fv(glGetUniformLocation(r->cloth_program, "u_back_color"), 1, look->back);
		glUniform1f(glGetUniformLocation(r->cloth_program, "u_flat"), 0.0f);
		glUniform1f(glGetUniformLocation(r->cloth_program, "u_pattern"), look->pattern);
		glUniform1f(glGetUniformLocation(r->cloth_program, "u_twill"), look->twill ? 1.0f : 0.0f);
		glUniform2f(glGetUniformLocation(r->cloth_program, "u_sheen"), look->sheen, look->sharpness);
		glEnable(GL_POLYGON_OFFSET_FILL);
		glPolygonOffset(1.0f, 1.0f);
		glDrawElements(GL_TRIANGLES, 3 * c->triangle_count, GL_UNSIGNED_INT, (void *)0);
		glDisable(GL_POLYGON_OFFSET_FILL);
		if (wireframe) {
			static const float line[3] = {0.05f, 0.05f, 0.06f};
			glUniform3fv(glGetUniformLocation(r->cloth_program, "u_front_color"), 1, line);
			glUniform1f(glGetUniformLocation(r->cloth_program, "u_flat"), 1.0f);
			glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
			glDrawElements(GL_TRIANGLES, 3 * c->triangle_count, GL_UNSIGNED_INT, (void *)0);
			glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
		}
	}
	draw_planes(r, vp, cam);
	glBindVertexArray(0);
}

// ------------------------------------------------------------------------------ overlay

void renderer_begin_overlay(renderer *r, int width, int height)
{
	r->overlay_count = 0;
	r->overlay_width = width;
	r->overlay_height = height;
}

static void push_vertex(renderer *r, float x, float y, const float rgba[4])
{
	if (r->overlay_count >= OVERLAY_CAPACITY)
		return;
	r->overlay[r->overlay_count++] = (overlay_vertex){x, y, rgba[0], rgba[1], rgba[2], rgba[3]};
}

static void push_quad(renderer *r, float x0, float y0, float x1, float y1, const float rgba[4])
{
	push_vertex(r, x0, y0, rgba);
	push_vertex(r, x1, y0, rgba);
	push_vertex(r, x0, y1, rgba);
	push_vertex(r, x0, y1, rgba);
	push_vertex(r, x1, y0, rgba);
	push_vertex(r, x1, y1, rgba);
}

void renderer_panel(renderer *r, float x, float y, float w, float h, const float rgba[4])
{
	push_quad(r, x, y, x + w, y + h, rgba);
}

void renderer_line(renderer *r, float x0, float y0, float x1, float y1, float width, const float rgba[4])
{
	float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
	if (len < 1e-3f)
		return;
	float nx = -dy / len * 0.5f * width, ny = dx / len * 0.5f * width;
	push_vertex(r, x0 + nx, y0 + ny, rgba);
	push_vertex(r, x1 + nx, y1 + ny, rgba);
	push_vertex(r, x0 - nx, y0 - ny, rgba);
	push_vertex(r, x0 - nx, y0 - ny, rgba);
	push_vertex(r, x1 + nx, y1 + ny, rgba);
	push_vertex(r, x1 - nx, y1 - ny, rgba);
}

float renderer_text_width(const char *text, float scale)
{
	return (float)stb_easy_font_width((char *)text) * scale;
}

void renderer_text(renderer *r, float x, float y, float scale, const char *text, const unsigned char rgba[4])
{
	static char buffer[64 * 1024];
	unsigned char color[4] = {rgba[0], rgba[1], rgba[2], rgba[3]};
	int quads = stb_easy_font_print(0.0f, 0.0f, (char *)text, color, buffer, (int)sizeof buffer);
	const float inv = 1.0f / 255.0f;
	float c[4] = {rgba[0] * inv, rgba[1] * inv, rgba[2] * inv, rgba[3] * inv};
	for (int q = 0; q < quads; ++q) {
		const float *v0 = (const float *)(buffer + (size_t)(q * 4) * 16);
		const float *v2 = (const float *)(buffer + (size_t)(q * 4 + 2) * 16);
		push_quad(r, x + v0[0] * scale, y + v0[1] * scale, x + v2[0] * scale, y + v2[1] * scale, c);
	}
}

void renderer_graph(renderer *r, float x, float y, float w, float h, const float *values, int count, int newest,
		    float max_value)
{
	static const float back[4] = {0.0f, 0.0f, 0.0f, 0.45f}, bar[4] = {0.45f, 0.85f, 0.55f, 0.9f},
			   slow[4] = {0.95f, 0.45f, 0.35f, 0.95f}, line[4] = {1.0f, 1.0f, 1.0f, 0.35f};
	push_quad(r, x, y, x + w, y + h, back);
	float bw = w / (float)count;
	for (int i = 0; i < count; ++i) {
		float v = values[(newest + 1 + i) % count];
		float bh = fminf(v / max_value, 1.0f) * h;
		push_quad(r, x + i * bw, y + h - bh, x + (i + 1) * bw - 0.5f, y + h, v > 1000.0f / 60.0f ? slow : bar);
	}
	// The 60 Hz budget.
	float budget = y + h - (1000.0f / 60.0f) / max_value * h;
	if (budget > y)
		push_quad(r, x, budget, x + w, budget + 1.0f, line);
}

void renderer_end_overlay(renderer *r)
{
	if (r->overlay_count == 0)
		return;
	glDisable(GL_DEPTH_TEST);
	glEnable(GL_BLEND);
	glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
	glUseProgram(r->overlay_program);
	glUniform2f(glGetUniformLocation(r->overlay_program, "u_screen"), (float)r->overlay_width,
		    (float)r->overlay_height);
	glBindVertexArray(r->overlay_vao);
	glBindBuffer(GL_ARRAY_BUFFER, r->overlay_vbo);
	glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(overlay_vertex) * (size_t)r->overlay_count), r->overlay);
	glDrawArrays(GL_TRIANGLES, 0, r->overlay_count);
	glBindVertexArray(0);
	glDisable(GL_BLEND);
	glEnable(GL_DEPTH_TEST);
}
