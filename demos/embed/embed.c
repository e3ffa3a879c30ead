// SPDX-License-Identifier: MIT
// pbd-embed: how a game uses pbd. It includes only <pbd/pbd.h> from the engine and draws with
// its own small OpenGL renderer (GLFW + glad + cglm). A kinematic capsule character runs a
// circle through three hanging banners with a cape attached to its shoulders; a boulder and
// a crate stand about. The game loop simulates at a fixed 60 Hz, renders at the display's
// rate and draws cloth positions interpolated between the last two steps.
//
//   pbd-embed                 a window (falls back to --headless when there is no display)
//   pbd-embed --headless      the same loop with a simulated 144 Hz display, no window
//   pbd-embed --frames N      stop after N rendered frames and print a summary
//   pbd-embed --screenshot F  with a window: write the last frame to the PNG file F
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pbd/pbd.h>

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <cglm/cglm.h>
#include <stb_image_write.h>

#define SIM_DT (1.0 / 60.0)
static const float kPi = 3.14159265358979f;
#define RUN_RADIUS 2.5f
#define RUN_SPEED 3.0f
#define BODY_Y 0.95f
#define BODY_RADIUS 0.25f
#define BODY_HALF 0.7f
#define BANNERS 3
#define CLOTHS (BANNERS + 1)

// ---------------------------------------------------------------------------------------------
// The game: its world, its character, and the cloth it owns.

typedef struct game {
	pbd_world *world;
	pbd_collider_id body;
	pbd_cloth_id cloths[CLOTHS];   // banners, then the cape
	pbd_attachment_id cape_hold;
	int cape_width;                // vertices along the cape's top edge
	double time;                   // simulated seconds
	float *previous[CLOTHS];       // positions before the last step, for interpolation
	int vertex_count[CLOTHS];
	float worst_hold_error;        // largest distance of a held cape vertex from its place, m
} game;

static void yaw_quat(float degrees, float q[4])
{
	float half = 0.5f * degrees * kPi / 180.0f;
	q[0] = 0.0f;
	q[1] = sinf(half);
	q[2] = 0.0f;
	q[3] = cosf(half);
}

// The character runs counter-clockwise (seen from above), speeding up over the first second.
static void character_pose(double t, float position[3], float rotation[4])
{
	float omega = RUN_SPEED / RUN_RADIUS;
	float angle = t < 1.0 ? 0.5f * omega * (float)(t * t) : omega * (float)(t - 0.5);
	position[0] = RUN_RADIUS * cosf(angle);
	position[1] = BODY_Y;
	position[2] = RUN_RADIUS * sinf(angle);
	yaw_quat(-angle * 180.0f / kPi, rotation);
}

static bool check(pbd_world *world, pbd_result r, const char *what)
{
	if (r != PBD_OK)
		fprintf(stderr, "pbd-embed: %s: %s (%s)\n", what, pbd_result_string(r), pbd_world_last_error(world));
	return r == PBD_OK;
}

// A grid cloth standing upright: +90 degrees about x makes the grid's row j = 0 its top edge,
// then `yaw` degrees about y.
static pbd_cloth_def upright_cloth(int res_x, int res_y, float width, float height, float yaw)
{
	pbd_cloth_def d = pbd_cloth_def_default();
	d.grid.res_x = res_x;
	d.grid.res_y = res_y;
	d.grid.width = width;
	d.grid.height = height;
	float s = sqrtf(0.5f), turn[4];
	yaw_quat(yaw, turn);
	// turn * (quarter turn about x)
	d.rotation[0] = turn[3] * s;
	d.rotation[1] = turn[1] * s;
	d.rotation[2] = -turn[1] * s;
	d.rotation[3] = turn[3] * s;
	return d;
}

static bool game_create(game *g)
{
	memset(g, 0, sizeof *g);
	pbd_world_def wd = pbd_world_def_default();
	if (pbd_world_create(&wd, &g->world) != PBD_OK)
		return false;
	pbd_world *w = g->world;
	pbd_collider_id id;
	pbd_collider_def floor = pbd_collider_def_default();
	if (!check(w, pbd_collider_create(w, &floor, &id), "floor"))
		return false;
	pbd_collider_def body = pbd_collider_def_default();
	body.type = PBD_SHAPE_CAPSULE;
	body.radius = BODY_RADIUS;
	body.half_height = BODY_HALF;
	character_pose(0.0, body.position, body.rotation);
	if (!check(w, pbd_collider_create(w, &body, &g->body), "character"))
		return false;
	pbd_collider_def boulder = pbd_collider_def_default();
	boulder.type = PBD_SHAPE_SPHERE;
	boulder.radius = 0.6f;
	boulder.position[1] = 0.3f;
	pbd_collider_def crate = pbd_collider_def_default();
	crate.type = PBD_SHAPE_BOX;
	crate.half_extents[0] = crate.half_extents[1] = crate.half_extents[2] = 0.3f;
	crate.position[0] = -4.0f;
	crate.position[1] = 0.3f;
	if (!check(w, pbd_collider_create(w, &boulder, &id), "boulder") ||
	    !check(w, pbd_collider_create(w, &crate, &id), "crate"))
		return false;
	for (int b = 0; b < BANNERS; ++b) {
		float degrees = 60.0f + 120.0f * (float)b, a = degrees * kPi / 180.0f;
		pbd_cloth_def d = upright_cloth(16, 18, 1.0f, 1.1f, -degrees);
		d.grid.pins = PBD_PIN_EDGE_V0;  // held along the top
		d.position[0] = RUN_RADIUS * cosf(a);
		d.position[1] = 1.55f;
		d.position[2] = RUN_RADIUS * sinf(a);
		d.material.bend_compliance = 300.0f;
		if (!check(w, pbd_cloth_create(w, &d, &g->cloths[b]), "banner"))
			return false;
	}
	// The cape hangs behind the shoulders of the character, which starts at (R, 0, 0)
	// facing +z; the attachment keeps the top edge where it is now relative to the
	// character's pose and carries it along.
	pbd_cloth_def cape = upright_cloth(16, 24, 0.5f, 0.75f, 0.0f);
	cape.position[0] = RUN_RADIUS;
	cape.position[1] = BODY_Y + 0.65f - 0.375f;
	cape.position[2] = -(BODY_RADIUS + 0.07f);
	cape.areal_density = 0.3f;
	if (!check(w, pbd_cloth_create(w, &cape, &g->cloths[BANNERS]), "cape"))
		return false;
	uint32_t top[16];
	for (int i = 0; i < 16; ++i)
		top[i] = (uint32_t)i;
	g->cape_width = 16;
	pbd_attachment_def hold = pbd_attachment_def_default();
	hold.cloth = g->cloths[BANNERS];
	hold.vertices = top;
	hold.vertex_count = 16;
	character_pose(0.0, hold.position, hold.rotation);
	if (!check(w, pbd_attachment_create(w, &hold, &g->cape_hold), "cape attachment"))
		return false;
	for (int c = 0; c < CLOTHS; ++c) {
		const float *x = pbd_cloth_positions(w, g->cloths[c], &g->vertex_count[c]);
		g->previous[c] = malloc((size_t)g->vertex_count[c] * 3 * sizeof(float));
		if (!g->previous[c])
			return false;
		memcpy(g->previous[c], x, (size_t)g->vertex_count[c] * 3 * sizeof(float));
	}
	return true;
}

// One fixed step: the game moves its character, then the cloth follows.
static bool game_step(game *g)
{
	for (int c = 0; c < CLOTHS; ++c)
		pbd_cloth_copy_positions(g->world, g->cloths[c], g->previous[c], g->vertex_count[c]);
	float position[3], rotation[4];
	character_pose(g->time + SIM_DT, position, rotation);
	pbd_collider_set_pose(g->world, g->body, position, rotation);
	pbd_attachment_set_pose(g->world, g->cape_hold, position, rotation);
	if (!check(g->world, pbd_world_step(g->world, (float)SIM_DT), "step"))
		return false;
	g->time += SIM_DT;
	const float *x = pbd_cloth_positions(g->world, g->cloths[BANNERS], NULL);
	for (int i = 0; i < g->cape_width; ++i) {
		float target[3];
		pbd_attachment_get_target(g->world, g->cape_hold, i, target);
		float dx = x[3 * i] - target[0], dy = x[3 * i + 1] - target[1], dz = x[3 * i + 2] - target[2];
		float d = sqrtf(dx * dx + dy * dy + dz * dz);
		g->worst_hold_error = d > g->worst_hold_error ? d : g->worst_hold_error;
	}
	return true;
}

static void game_destroy(game *g)
{
	for (int c = 0; c < CLOTHS; ++c)
		free(g->previous[c]);
	pbd_world_destroy(g->world);
}

// ---------------------------------------------------------------------------------------------
// A small renderer: one shader, lit two-sided triangles.

static const char *kVertexShader =
	"#version 330 core\n"
	"layout(location = 0) in vec3 position;\n"
	"layout(location = 1) in vec3 normal;\n"
	"uniform mat4 view_projection;\n"
	"uniform mat4 model;\n"
	"out vec3 world_normal;\n"
	"void main() {\n"
	"  world_normal = mat3(model) * normal;\n"
	"  gl_Position = view_projection * model * vec4(position, 1.0);\n"
	"}\n";

static const char *kFragmentShader =
	"#version 330 core\n"
	"in vec3 world_normal;\n"
	"uniform vec3 color;\n"
	"out vec4 frag;\n"
	"void main() {\n"
	"  vec3 n = normalize(world_normal);\n"
	"  float light = 0.35 + 0.65 * abs(dot(n, normalize(vec3(0.4, 1.0, 0.3))));\n"
	"  frag = vec4(color * light, 1.0);\n"
	"}\n";

typedef struct mesh_buffer {
	GLuint vao, vbo, ibo;
	int index_count;
} mesh_buffer;

typedef struct renderer {
	GLuint program;
	GLint u_view_projection, u_model, u_color;
	mesh_buffer cloth[CLOTHS];
	mesh_buffer sphere, capsule, box, floor;
	float *scratch;   // interleaved position + normal
} renderer;

static GLuint compile(GLenum kind, const char *source)
{
	GLuint s = glCreateShader(kind);
	glShaderSource(s, 1, &source, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024];
		glGetShaderInfoLog(s, sizeof log, NULL, log);
		fprintf(stderr, "pbd-embed: shader: %s\n", log);
	}
	return s;
}

// Interleaved (position, normal) vertices and 32-bit indices.
static mesh_buffer upload(const float *vertices, int vertex_count, const uint32_t *indices, int index_count,
			  GLenum usage)
{
	mesh_buffer m = {0, 0, 0, index_count};
	glGenVertexArrays(1, &m.vao);
	glGenBuffers(1, &m.vbo);
	glGenBuffers(1, &m.ibo);
	glBindVertexArray(m.vao);
	glBindBuffer(GL_ARRAY_BUFFER, m.vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)vertex_count * 6 * (GLsizeiptr)sizeof(float), vertices, usage);
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m.ibo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)index_count * (GLsizeiptr)sizeof(uint32_t), indices,
		     GL_STATIC_DRAW);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
	glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	return m;
}

// A unit sphere; with `stretch` > 0 its halves move apart by that much each way: a capsule.
static mesh_buffer make_round(float stretch)
{
	enum { RINGS = 16, SEGMENTS = 24 };
	static float v[(RINGS + 1) * (SEGMENTS + 1) * 6];
	static uint32_t idx[RINGS * SEGMENTS * 6];
	int n = 0, k = 0;
	for (int r = 0; r <= RINGS; ++r) {
		float phi = kPi * (float)r / RINGS;
		for (int s = 0; s <= SEGMENTS; ++s) {
			float theta = 2.0f * kPi * (float)s / SEGMENTS;
			float nx = sinf(phi) * cosf(theta), ny = cosf(phi), nz = sinf(phi) * sinf(theta);
			float shift = r < RINGS / 2 ? stretch : (r > RINGS / 2 ? -stretch : 0.0f);
			float *o = v + 6 * n++;
			o[0] = nx;
			o[1] = ny + shift;
			o[2] = nz;
			o[3] = nx;
			o[4] = ny;
			o[5] = nz;
		}
	}
	for (int r = 0; r < RINGS; ++r)
		for (int s = 0; s < SEGMENTS; ++s) {
			uint32_t a = (uint32_t)(r * (SEGMENTS + 1) + s), b = a + SEGMENTS + 1;
			uint32_t quad[6] = {a, b, a + 1, a + 1, b, b + 1};
			memcpy(idx + k, quad, sizeof quad);
			k += 6;
		}
	return upload(v, n, idx, k, GL_STATIC_DRAW);
}

static mesh_buffer make_box(void)
{
	static float v[24 * 6];
	static uint32_t idx[36];
	int n = 0, k = 0;
	for (int axis = 0; axis < 3; ++axis)
		for (int sign = -1; sign <= 1; sign += 2) {
			int u = (axis + 1) % 3, w = (axis + 2) % 3;
			uint32_t base = (uint32_t)n;
			for (int c = 0; c < 4; ++c) {
				float *o = v + 6 * n++;
				memset(o, 0, 6 * sizeof(float));
				o[axis] = (float)sign;
				o[u] = (c & 1) ? 1.0f : -1.0f;
				o[w] = (c & 2) ? 1.0f : -1.0f;
				o[3 + axis] = (float)sign;
			}
			uint32_t quad[6] = {base, base + 1, base + 2, base + 2, base + 1, base + 3};
			memcpy(idx + k, quad, sizeof quad);
			k += 6;
		}
	return upload(v, n, idx, k, GL_STATIC_DRAW);
}

static mesh_buffer make_floor(void)
{
	float v[4 * 6] = {-20, 0, -20, 0, 1, 0, 20, 0, -20, 0, 1, 0, -20, 0, 20, 0, 1, 0, 20, 0, 20, 0, 1, 0};
	uint32_t idx[6] = {0, 1, 2, 2, 1, 3};
	return upload(v, 4, idx, 6, GL_STATIC_DRAW);
}

static bool renderer_create(renderer *r, const game *g)
{
	memset(r, 0, sizeof *r);
	r->program = glCreateProgram();
	glAttachShader(r->program, compile(GL_VERTEX_SHADER, kVertexShader));
	glAttachShader(r->program, compile(GL_FRAGMENT_SHADER, kFragmentShader));
	glLinkProgram(r->program);
	GLint ok = 0;
	glGetProgramiv(r->program, GL_LINK_STATUS, &ok);
	if (!ok)
		return false;
	r->u_view_projection = glGetUniformLocation(r->program, "view_projection");
	r->u_model = glGetUniformLocation(r->program, "model");
	r->u_color = glGetUniformLocation(r->program, "color");
	int most = 0;
	for (int c = 0; c < CLOTHS; ++c) {
		int t = 0;
		const uint32_t *idx = pbd_cloth_indices(g->world, g->cloths[c], &t);
		r->cloth[c] = upload(NULL, g->vertex_count[c], idx, 3 * t, GL_STREAM_DRAW);
		most = g->vertex_count[c] > most ? g->vertex_count[c] : most;
	}
	r->scratch = malloc((size_t)most * 6 * sizeof(float));
	r->sphere = make_round(0.0f);
	r->capsule = make_round(BODY_HALF / BODY_RADIUS);  // in units of the radius
	r->box = make_box();
	r->floor = make_floor();
	glEnable(GL_DEPTH_TEST);
	return r->scratch != NULL;
}

static void draw(const renderer *r, const mesh_buffer *m, mat4 model, float red, float green, float blue)
{
	glUniformMatrix4fv(r->u_model, 1, GL_FALSE, (const float *)model);
	glUniform3f(r->u_color, red, green, blue);
	glBindVertexArray(m->vao);
	glDrawElements(GL_TRIANGLES, m->index_count, GL_UNSIGNED_INT, NULL);
}

// Draws the cloth where it was `alpha` of the way from the previous step to the last one.
static void render(renderer *r, const game *g, double alpha, int width, int height)
{
	static const float colors[CLOTHS][3] = {{0.75f, 0.2f, 0.2f}, {0.2f, 0.55f, 0.3f}, {0.25f, 0.4f, 0.75f},
						 {0.85f, 0.7f, 0.2f}};
	glViewport(0, 0, width, height);
	glClearColor(0.12f, 0.13f, 0.16f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glUseProgram(r->program);
	mat4 projection, view, view_projection, model;
	glm_perspective(glm_rad(50.0f), (float)width / (float)(height > 0 ? height : 1), 0.05f, 100.0f, projection);
	glm_lookat((vec3){5.5f, 4.5f, 5.5f}, (vec3){0.0f, 0.8f, 0.0f}, (vec3){0.0f, 1.0f, 0.0f}, view);
	glm_mat4_mul(projection, view, view_projection);
	glUniformMatrix4fv(r->u_view_projection, 1, GL_FALSE, (const float *)view_projection);
	glm_mat4_identity(model);
	draw(r, &r->floor, model, 0.35f, 0.36f, 0.38f);
	for (int c = 0; c < CLOTHS; ++c) {
		int n = g->vertex_count[c];
		const float *now = pbd_cloth_positions(g->world, g->cloths[c], NULL);
		const float *normals = pbd_cloth_normals(g->world, g->cloths[c], NULL);
		for (int i = 0; i < n; ++i)
			for (int k = 0; k < 3; ++k) {
				float before = g->previous[c][3 * i + k];
				r->scratch[6 * i + k] = before + (float)alpha * (now[3 * i + k] - before);
				r->scratch[6 * i + 3 + k] = normals[3 * i + k];
			}
		glBindBuffer(GL_ARRAY_BUFFER, r->cloth[c].vbo);
		glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)n * 6 * (GLsizeiptr)sizeof(float), r->scratch);
		draw(r, &r->cloth[c], model, colors[c][0], colors[c][1], colors[c][2]);
	}
	// The character, drawn where the game had it at the same moment.
	float position[3], rotation[4];
	character_pose(g->time - SIM_DT * (1.0 - alpha), position, rotation);
	glm_translate_make(model, position);
	glm_scale_uni(model, BODY_RADIUS);
	draw(r, &r->capsule, model, 0.6f, 0.55f, 0.5f);
	glm_translate_make(model, (vec3){0.0f, 0.3f, 0.0f});
	glm_scale_uni(model, 0.6f);
	draw(r, &r->sphere, model, 0.55f, 0.53f, 0.5f);
	glm_translate_make(model, (vec3){-4.0f, 0.3f, 0.0f});
	glm_scale_uni(model, 0.3f);
	draw(r, &r->box, model, 0.5f, 0.4f, 0.3f);
}

static void renderer_destroy(renderer *r) { free(r->scratch); }

// ---------------------------------------------------------------------------------------------
// The loop: fixed 60 Hz simulation, rendering at whatever rate the display gives.

static bool save_png(const char *path, int width, int height)
{
	unsigned char *pixels = malloc((size_t)width * (size_t)height * 3);
	if (!pixels)
		return false;
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels);
	stbi_flip_vertically_on_write(1);
	int ok = stbi_write_png(path, width, height, 3, pixels, width * 3);
	free(pixels);
	if (!ok)
		fprintf(stderr, "pbd-embed: cannot write %s\n", path);
	return ok != 0;
}

static double wall_seconds(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long max_frames = -1;
	bool headless = false;
	const char *screenshot = NULL;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--headless") == 0) {
			headless = true;
		} else if (strcmp(argv[i], "--screenshot") == 0 && i + 1 < argc) {
			screenshot = argv[++i];
		} else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
			char *end;
			max_frames = strtol(argv[++i], &end, 10);
			if (*end || max_frames < 1) {
				fprintf(stderr, "pbd-embed: --frames needs a positive number\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: pbd-embed [--headless] [--frames N] [--screenshot FILE.png]\n");
			return 2;
		}
	}
	GLFWwindow *window = NULL;
	if (!headless) {
		if (glfwInit()) {
			glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
			glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
			glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
			window = glfwCreateWindow(1280, 720, "pbd-embed", NULL, NULL);
		}
		if (!window) {
			fprintf(stderr, "pbd-embed: no display; running headless\n");
			glfwTerminate();
			headless = true;
			if (max_frames < 0)
				max_frames = 720;
		} else {
			glfwMakeContextCurrent(window);
			glfwSwapInterval(1);
			if (!gladLoadGL(glfwGetProcAddress)) {
				fprintf(stderr, "pbd-embed: cannot load OpenGL\n");
				return 1;
			}
		}
	} else if (max_frames < 0) {
		max_frames = 720;
	}
	game g;
	renderer r;
	if (!game_create(&g) || (!headless && !renderer_create(&r, &g))) {
		fprintf(stderr, "pbd-embed: setup failed\n");
		return 1;
	}
	// Headless, the display is a simulated 144 Hz one: the loop below is the same.
	const double headless_frame = 1.0 / 144.0;
	double previous = headless ? 0.0 : wall_seconds(), clock = previous, accumulator = 0.0;
	long frames = 0, steps = 0;
	int status = 0;
	while (max_frames < 0 || frames < max_frames) {
		if (window && glfwWindowShouldClose(window))
			break;
		double now = headless ? clock + headless_frame : wall_seconds();
		clock = now;
		double elapsed = now - previous;
		previous = now;
		if (elapsed > 0.25)
			elapsed = 0.25;  // after a stall, slow down rather than spiral
		accumulator += elapsed;
		while (accumulator >= SIM_DT) {
			if (!game_step(&g)) {
				status = 1;
				break;
			}
			steps++;
			accumulator -= SIM_DT;
		}
		if (status)
			break;
		double alpha = accumulator / SIM_DT;
		if (window) {
			int width, height;
			glfwGetFramebufferSize(window, &width, &height);
			render(&r, &g, alpha, width, height);
			if (screenshot && frames + 1 == max_frames && !save_png(screenshot, width, height))
				status = 1;
			glfwSwapBuffers(window);
			glfwPollEvents();
			if (glfwGetKey(window, GLFW_KEY_ESCAPE) == GLFW_PRESS)
				glfwSetWindowShouldClose(window, 1);
		}
		frames++;
	}
	// What happened, for people and for the tests.
	const float *cape = pbd_cloth_positions(g.world, g.cloths[BANNERS], NULL);
	int n = g.vertex_count[BANNERS];
	float lowest = cape[1];
	int finite = 1;
	for (int i = 0; i < n; ++i) {
		lowest = cape[3 * i + 1] < lowest ? cape[3 * i + 1] : lowest;
		finite &= isfinite(cape[3 * i]) && isfinite(cape[3 * i + 1]) && isfinite(cape[3 * i + 2]);
	}
	float body[3], turn[4];
	character_pose(g.time, body, turn);
	printf("pbd-embed: %ld frames rendered, %ld steps of %.4f s (%.2f s simulated)%s\n", frames, steps, SIM_DT,
	       g.time, headless ? ", headless" : "");
	printf("character at (%.2f, %.2f, %.2f); cape hold error %.2e m; cape lowest %.3f m; finite %d\n", body[0],
	       body[1], body[2], (double)g.worst_hold_error, (double)lowest, finite);
	if (window)
		renderer_destroy(&r);
	game_destroy(&g);
	if (window) {
		glfwDestroyWindow(window);
		glfwTerminate();
	}
	return status ? status : (finite ? 0 : 1);
}
