// SPDX-License-Identifier: MIT
// Viewer tests, run under xvfb-run: screenshots show the cloth where the scene puts it, keys
// change the picture, repeat runs give the same bytes, and bad input is a clear error.
// usage: test_viewer CASE VIEWER_BINARY
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>

#include "test.h"
#include "viewer.h"

static const char *g_viewer;
static char g_dir[256];

static const int kWidth = 960, kHeight = 540;

// Runs the viewer with extra arguments; returns its exit status, stderr in `err` (if given).
static int run_viewer(const char *args, char *err, size_t cap)
{
	char errfile[300], cmd[4096];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", g_dir);
	snprintf(cmd, sizeof cmd, "'%s' --size %dx%d %s 2>'%s' >/dev/null", g_viewer, kWidth, kHeight, args, errfile);
	int status = system(cmd);
	if (err) {
		err[0] = '\0';
		FILE *f = fopen(errfile, "r");
		if (f) {
			size_t n = fread(err, 1, cap - 1, f);
			err[n] = '\0';
			fclose(f);
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static unsigned char *load_png(const char *path, int *w, int *h)
{
	int channels = 0;
	return stbi_load(path, w, h, &channels, 3);
}

// The first cloth: red in front, pale green behind (no overlay color looks like either).
static bool is_cloth_red(const unsigned char *px)
{
	bool front = px[0] > px[1] + 50 && px[0] > px[2] + 50;
	bool back = px[1] > px[0] + 4 && px[1] > px[2] + 40;
	return front || back;
}

static bool is_particle_blue(const unsigned char *px)
{
	return px[2] > px[0] + 60 && px[2] > px[1] + 20;
}

// Scene `name` run headless for `frames` fixed steps, and the view-projection the viewer's
// camera has then (a followed scene's camera follows from its start, as in the viewer). The
// caller destroys *w.
static int run_and_view(const char *name, int frames, pbd_world **w, demo_scene_state *st, mat4 vp)
{
	const demo_scene *scene = demo_scene_find(name);
	CHECK(scene);
	char err[256];
	CHECK_OK(demo_scene_load(scene, NULL, NULL, w, st, err, sizeof err));
	camera cam;
	camera_from_scene(&cam, scene);
	float heading = NAN;
	camera_follow(&cam, scene, *w, st, &heading);
	for (int f = 0; f < frames; ++f)
		CHECK_OK(demo_scene_step(scene, *w, st, VIEWER_DT));
	camera_follow(&cam, scene, *w, st, &heading);
	camera_view_proj(&cam, kWidth, kHeight, vp);
	return 0;
}

// The scene run headless for `frames` fixed steps, then its cloths (or, for pile, its
// particles) projected with the viewer's camera: per body, the screen box that holds all of
// its vertices; the first is the one drawn red. *count receives the number of boxes.
static int expected_boxes(const char *name, int frames, float boxes[][4], int *count)
{
	pbd_world *w;
	demo_scene_state st;
	mat4 vp;
	if (run_and_view(name, frames, &w, &st, vp))
		return 1;
	bool particles = strcmp(name, "pile") == 0;
	*count = 0;
	for (int c = particles ? st.cloth_count : 0;
	     c < (particles ? st.cloth_count + st.particle_group_count : st.cloth_count); ++c) {
		float *box = boxes[(*count)++];
		box[0] = box[1] = INFINITY;
		box[2] = box[3] = -INFINITY;
		int n = 0;
		const float *x = c < st.cloth_count ? pbd_cloth_positions(w, st.cloths[c], &n)
						    : pbd_particles_positions(w, st.particles[c - st.cloth_count], &n);
		for (int i = 0; i < n; ++i) {
			vec4 p = {x[3 * i], x[3 * i + 1], x[3 * i + 2], 1.0f}, q;
			glm_mat4_mulv(vp, p, q);
			float sx = (q[0] / q[3] * 0.5f + 0.5f) * kWidth, sy = (0.5f - q[1] / q[3] * 0.5f) * kHeight;
			box[0] = fminf(box[0], sx);
			box[1] = fminf(box[1], sy);
			box[2] = fmaxf(box[2], sx);
			box[3] = fmaxf(box[3], sy);
		}
	}
	pbd_world_destroy(w);
	return 0;
}

// Each scene's screenshot shows the cloth (or the particles): plenty of cloth-colored (or
// particle-colored) pixels, nearly all of them inside the box where the simulation puts it.
static int screenshot_each_scene(void)
{
	for (int s = 0; s < demo_scene_count(); ++s) {
		const char *name = demo_scene_at(s)->name;
		char path[400], args[600];
		snprintf(path, sizeof path, "%s/%s.png", g_dir, name);
		snprintf(args, sizeof args, "--scene %s --frames 60 --screenshot '%s'", name, path);
		CHECK(run_viewer(args, NULL, 0) == 0);
		int w = 0, h = 0;
		unsigned char *img = load_png(path, &w, &h);
		CHECK(img && w == kWidth && h == kHeight);
		float boxes[DEMO_MAX_CLOTHS][4];
		int box_count;
		if (expected_boxes(name, 60, boxes, &box_count))
			return 1;
		long inside = 0, outside = 0;
		bool particles = demo_scene_at(s)->create && strcmp(name, "pile") == 0;
		for (int y = 0; y < h; ++y)
			for (int x = 0; x < w; ++x) {
				const unsigned char *px = img + 3 * (y * w + x);
				if (particles ? !is_particle_blue(px) : !is_cloth_red(px))
					continue;
				bool in = false;
				for (int b = 0; b < box_count; ++b) {
					const float *box = boxes[b];
					in |= x >= box[0] - 3 && x <= box[2] + 3 && y >= box[1] - 3 && y <= box[3] + 3;
				}
				inside += in;
				outside += !in;
			}
		stbi_image_free(img);
		// The first body's box alone must be well covered (other cloths have other colors).
		double area = (boxes[0][2] - boxes[0][0]) * (boxes[0][3] - boxes[0][1]);
		fprintf(stderr, "%s: %ld cloth pixels in the expected box (%.0f px), %ld outside\n", name, inside, area,
			outside);
		CHECK(inside > 2000);
		CHECK(inside > 0.2 * area);
		CHECK(outside < inside / 50);
	}
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	while (same) {
		int ca = fgetc(fa), cb = fgetc(fb);
		same = ca == cb;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

// Where the viewer draws vertex `vertex` of cloth 0 of scene `name` after `frames` frames.
static int projected_vertex(const char *name, int frames, int vertex, float *sx, float *sy)
{
	pbd_world *w;
	demo_scene_state st;
	mat4 vp;
	if (run_and_view(name, frames, &w, &st, vp))
		return 1;
	int n = 0;
	const float *x = pbd_cloth_positions(w, st.cloths[0], &n);
	CHECK(vertex < n);
	vec4 p = {x[3 * vertex], x[3 * vertex + 1], x[3 * vertex + 2], 1.0f}, q;
	glm_mat4_mulv(vp, p, q);
	*sx = (q[0] / q[3] * 0.5f + 0.5f) * kWidth;
	*sy = (0.5f - q[1] / q[3] * 0.5f) * kHeight;
	pbd_world_destroy(w);
	return 0;
}

static bool is_normal_line(const unsigned char *px) { return px[2] > px[0] + 80 && px[1] > px[0] + 50; }

// hang's two pins are marked where they are (a light square on the corner), with or without
// N; N draws the vertex normals over the cloth (cyan lines), and without it there are none.
static int pins_and_normals_drawn(void)
{
	char plain[400], normals[400], args[1200];
	snprintf(plain, sizeof plain, "%s/pins.png", g_dir);
	snprintf(normals, sizeof normals, "%s/normals.png", g_dir);
	snprintf(args, sizeof args, "--scene hang --frames 90 --screenshot '%s'", plain);
	CHECK(run_viewer(args, NULL, 0) == 0);
	snprintf(args, sizeof args, "--scene hang --frames 90 --keys 1:N --screenshot '%s'", normals);
	CHECK(run_viewer(args, NULL, 0) == 0);
	int w, h, w2, h2;
	unsigned char *a = load_png(plain, &w, &h), *b = load_png(normals, &w2, &h2);
	CHECK(a && b && w == kWidth && h == kHeight && w2 == w && h2 == h);
	const int corners[2] = {0, 31};  // hang is 32 x 32: its top corners hold the pins
	for (int k = 0; k < 2; ++k) {
		float sx, sy;
		if (projected_vertex("hang", 90, corners[k], &sx, &sy))
			return 1;
		int px = (int)lroundf(sx - 0.5f), py = (int)lroundf(sy - 0.5f), light = 0;
		for (int dy = -1; dy <= 1; ++dy)
			for (int dx = -1; dx <= 1; ++dx) {
				const unsigned char *p = a + 3 * ((py + dy) * w + px + dx);
				light += p[0] > 220 && p[1] > 220 && p[2] > 200;
			}
		fprintf(stderr, "pin %d at (%.1f, %.1f): %d light pixels of 9\n", k, (double)sx, (double)sy, light);
		CHECK(light >= 3);
	}
	long lines_plain = 0, lines_n = 0;
	for (long i = 0; i < (long)w * h; ++i) {
		lines_plain += is_normal_line(a + 3 * i);
		lines_n += is_normal_line(b + 3 * i);
	}
	stbi_image_free(a);
	stbi_image_free(b);
	fprintf(stderr, "normal-colored pixels: %ld without N, %ld with\n", lines_plain, lines_n);
	CHECK(lines_plain < 50);
	CHECK(lines_n > 1000);
	return 0;
}

// Within 3 of a colour in every channel.
static bool near_color(const unsigned char *px, int r, int g, int b)
{
	return abs(px[0] - r) <= 3 && abs(px[1] - g) <= 3 && abs(px[2] - b) <= 3;
}

// How many pixels of the picture at `path` pass `test` (with `user`); -1 if it cannot be read.
typedef bool (*pixel_test)(const unsigned char *px, const void *user);
static long count_pixels(const char *path, pixel_test test, const void *user)
{
	int w, h;
	unsigned char *p = load_png(path, &w, &h);
	if (!p)
		return -1;
	long n = 0;
	for (long k = 0; k < (long)w * h; ++k)
		n += test(p + 3 * k, user);
	stbi_image_free(p);
	return n;
}

static bool near_rgb(const unsigned char *px, const void *rgb)
{
	const int *c = rgb;
	return near_color(px, c[0], c[1], c[2]);
}

static long count_color(const char *path, int r, int g, int b)
{
	const int rgb[3] = {r, g, b};
	return count_pixels(path, near_rgb, rgb);
}

// The debug views: in stack, V draws the cloth-cloth contacts (edge-edge in magenta,
// vertex-triangle in green) and E the candidate pairs; in bullet, Z flashes the guard's stops
// (red). Without the keys none of those colours is on screen.
// A test-mode picture of `scene` after `frames` frames with the panel hidden and `keys`.
static int shot(const char *scene, int frames, const char *keys, const char *name, char *path, size_t capacity)
{
	char args[1200];
	snprintf(path, capacity, "%s/%s", g_dir, name);
	snprintf(args, sizeof args, "--scene %s --frames %d --keys 1:tab%s%s --screenshot '%s'", scene, frames,
		 keys[0] ? "," : "", keys, path);
	return run_viewer(args, NULL, 0);
}

static int debug_views_drawn(void)
{
	char plain[400], shown[400], bullet_plain[400], bullet_z[400];
	CHECK(shot("stack", 120, "", "stack.png", plain, sizeof plain) == 0);
	CHECK(shot("stack", 120, "1:V,1:E", "stack_v.png", shown, sizeof shown) == 0);
	CHECK(shot("bullet", 40, "", "bullet.png", bullet_plain, sizeof bullet_plain) == 0);
	CHECK(shot("bullet", 40, "1:Z", "bullet_z.png", bullet_z, sizeof bullet_z) == 0);
	long edge_plain = count_color(plain, 242, 102, 242), edge_v = count_color(shown, 242, 102, 242);
	long vt_plain = count_color(plain, 89, 242, 115), vt_v = count_color(shown, 89, 242, 115);
	long stop_plain = count_color(bullet_plain, 255, 38, 25), stop_z = count_color(bullet_z, 255, 38, 25);
	fprintf(stderr, "edge-edge pixels %ld / %ld, vertex-triangle %ld / %ld, guard stops %ld / %ld (without / with)\n",
		edge_plain, edge_v, vt_plain, vt_v, stop_plain, stop_z);
	CHECK(edge_plain < 20 && vt_plain < 20);
	CHECK(edge_v > 500 && vt_v > 100);
	// The guard stops 9 crossings in bullet's first 40 frames (33 before the steps took more
	// substeps while the ball was near the cloth), 16 pixels of their colour with Z and none
	// without.
	CHECK(stop_plain < 4 && stop_z > 8);
	return 0;
}

// Lowering the stretch stiffness through --keys changes the picture (the cloth sags); the
// same flags again give the same bytes.
static int keys_change_picture(void)
{
	char a[400], b[400], c[400], args[2000], keys[1200] = "";
	snprintf(a, sizeof a, "%s/plain_a.png", g_dir);
	snprintf(b, sizeof b, "%s/plain_b.png", g_dir);
	snprintf(c, sizeof c, "%s/soft.png", g_dir);
	snprintf(args, sizeof args, "--scene hang --frames 90 --screenshot '%s'", a);
	CHECK(run_viewer(args, NULL, 0) == 0);
	snprintf(args, sizeof args, "--scene hang --frames 90 --screenshot '%s'", b);
	CHECK(run_viewer(args, NULL, 0) == 0);
	CHECK(same_file(a, b));
	// Shift+S sixteen times: compliance 1e-6 -> 6.6e-2 m/N, a rubbery sheet.
	for (int i = 0; i < 16; ++i) {
		char one[32];
		snprintf(one, sizeof one, "%s%d:shift+S", i ? "," : "", i);
		strcat(keys, one);
	}
	snprintf(args, sizeof args, "--scene hang --frames 90 --screenshot '%s' --keys '%s'", c, keys);
	char err[4096];
	CHECK(run_viewer(args, err, sizeof err) == 0);
	int w, h, w2, h2;
	unsigned char *plain = load_png(a, &w, &h), *soft = load_png(c, &w2, &h2);
	CHECK(plain && soft && w == w2 && h == h2);
	// Compare the lowest cloth row: the softer cloth hangs lower.
	int low_plain = 0, low_soft = 0;
	long differing = 0;
	for (int y = 0; y < h; ++y)
		for (int x = 0; x < w; ++x) {
			const unsigned char *p = plain + 3 * (y * w + x), *q = soft + 3 * (y * w + x);
			if (is_cloth_red(p))
				low_plain = y;
			if (is_cloth_red(q))
				low_soft = y;
			differing += p[0] != q[0] || p[1] != q[1] || p[2] != q[2];
		}
	stbi_image_free(plain);
	stbi_image_free(soft);
	fprintf(stderr, "lowest cloth row %d -> %d; %ld pixels differ\n", low_plain, low_soft, differing);
	CHECK(differing > 1000);
	CHECK(low_soft > low_plain + 5);
	return 0;
}

// Each material preset has its own look, so a person sees which one is on: in hang, the cloth
// of silk is crimson, of cotton light and grey, of denim indigo, of leather brown. A pixel is
// counted as a preset's when its color is near that preset's front or back and far from the
// background, the floor's grid, the shadows and the other presets (`user` is not used).
static bool is_silk(const unsigned char *p, const void *user)
{
	(void)user;
	return p[0] > p[1] + 60 && p[2] > p[1] + 20;
}
static bool is_cotton(const unsigned char *p, const void *user)
{
	(void)user;
	int lo = p[0], hi = p[0];
	for (int c = 1; c < 3; ++c) {
		lo = p[c] < lo ? p[c] : lo;
		hi = p[c] > hi ? p[c] : hi;
	}
	return lo > 140 && hi - lo < 40;  // light and grey
}
static bool is_denim(const unsigned char *p, const void *user)
{
	(void)user;
	return p[2] > p[0] + 45 && p[2] > p[1] + 20;
}
static bool is_leather(const unsigned char *p, const void *user)
{
	(void)user;
	return p[0] > p[2] + 40 && p[1] > p[2] + 15 && p[0] > p[1] + 20;
}
static bool is_scene_red(const unsigned char *p, const void *user)
{
	(void)user;
	return is_cloth_red(p);
}

static int material_looks_differ(void)
{
	static const char *names[] = {"silk", "cotton", "denim", "leather"};
	static const pixel_test tests[] = {is_silk, is_cotton, is_denim, is_leather};
	enum { kCount = 4 };
	long counts[kCount][kCount];
	char path[400], args[1200];
	for (int m = 0; m < kCount; ++m) {
		snprintf(path, sizeof path, "%s/look_%s.png", g_dir, names[m]);
		snprintf(args, sizeof args, "--scene hang --frames 120 --material %s --keys 1:tab --screenshot '%s'", names[m],
			 path);
		CHECK(run_viewer(args, NULL, 0) == 0);
		for (int k = 0; k < kCount; ++k)
			counts[m][k] = count_pixels(path, tests[k], NULL);
		fprintf(stderr, "%-8s silk %6ld cotton %6ld denim %6ld leather %6ld\n", names[m], counts[m][0], counts[m][1],
			counts[m][2], counts[m][3]);
	}
	// The scene's own look (red gingham) is none of them.
	snprintf(path, sizeof path, "%s/look_scene.png", g_dir);
	snprintf(args, sizeof args, "--scene hang --frames 120 --keys 1:tab --screenshot '%s'", path);
	CHECK(run_viewer(args, NULL, 0) == 0);
	long scene_red = count_pixels(path, is_scene_red, NULL);
	CHECK(scene_red > 5000);
	for (int m = 0; m < kCount; ++m) {
		// Most of the cloth (some 20,000 pixels at 960 x 540) reads as its preset...
		CHECK(counts[m][m] > 5000);
		// ... and hardly any of the picture as another preset's.
		for (int k = 0; k < kCount; ++k)
			if (k != m)
				CHECK(counts[m][k] * 10 < counts[m][m]);
		CHECK(count_pixels(path, tests[m], NULL) * 10 < counts[m][m]);
	}
	return 0;
}

static int missing_shader(void)
{
	char err[4096];
	int status = run_viewer("--scene hang --frames 2 --shaders /nonexistent-shader-dir", err, sizeof err);
	fprintf(stderr, "exit %d: %s", status, err);
	CHECK(status != 0);
	CHECK(strstr(err, "/nonexistent-shader-dir/cloth.vert") != NULL);
	return 0;
}

static int unknown_scene(void)
{
	char err[4096];
	int status = run_viewer("--scene no-such-scene --frames 2", err, sizeof err);
	fprintf(stderr, "exit %d: %s", status, err);
	CHECK(status == 2);
	CHECK(strstr(err, "unknown scene 'no-such-scene'") != NULL);
	CHECK(strstr(err, "hang") != NULL);  // and it lists the real ones
	return 0;
}

static int bad_keys(void)
{
	char err[4096];
	int status = run_viewer("--scene hang --frames 2 --keys '3:nosuchkey'", err, sizeof err);
	CHECK(status == 2);
	CHECK(strstr(err, "unknown key 'nosuchkey'") != NULL);
	status = run_viewer("--scene hang --frames 2 --keys 'x:S'", err, sizeof err);
	CHECK(status == 2);
	return 0;
}

// Escape through --keys ends the run early with status 0; scene keys switch scenes.
static int escape_and_scene_keys(void)
{
	char path[400], args[800];
	snprintf(path, sizeof path, "%s/switched.png", g_dir);
	snprintf(args, sizeof args, "--scene hang --frames 40 --keys '5:2' --screenshot '%s'", path);
	CHECK(run_viewer(args, NULL, 0) == 0);
	// After 2: the drop scene, seen from above: its cloth lies low and wide.
	int w, h;
	unsigned char *img = load_png(path, &w, &h);
	CHECK(img);
	stbi_image_free(img);
	CHECK(run_viewer("--scene hang --frames 100000 --keys '3:escape'", NULL, 0) == 0);
	return 0;
}

// Pixels of a test-mode screenshot (deterministic: same run, same bytes); NULL if unreadable.
static unsigned char *screenshot(const char *scene, const char *keys, const char *file)
{
	char path[400], args[800];
	snprintf(path, sizeof path, "%s/%s", g_dir, file);
	snprintf(args, sizeof args, "--scene %s --frames 12 --keys '%s' --screenshot '%s'", scene, keys, path);
	if (run_viewer(args, NULL, 0) != 0)
		return NULL;
	int w = 0, h = 0;
	unsigned char *img = load_png(path, &w, &h);
	if (img && (w != kWidth || h != kHeight)) {
		stbi_image_free(img);
		return NULL;
	}
	return img;
}

// ] and [ reach every scene, the ones past 9 too, and wrap around: ] from the scene before
// and [ from the scene after show the same picture (the same scene from the same frame on,
// its name on the overlay), which is not the picture of the scene before; ] from the first
// scene shows what the key 2 shows.
static int bracket_keys_reach_every_scene(void)
{
	int count = demo_scene_count();
	size_t bytes = (size_t)kWidth * kHeight * 3;
	unsigned char *before = NULL;
	for (int s = 0; s <= count; ++s) {
		const char *prev = demo_scene_at((s + count - 1) % count)->name;
		const char *next = demo_scene_at((s + 1) % count)->name;
		unsigned char *forward = screenshot(prev, "3:]", "forward.png");
		unsigned char *backward = screenshot(next, "3:[", "backward.png");
		CHECK(forward && backward);
		if (memcmp(forward, backward, bytes) != 0) {
			fprintf(stderr, "] from %s and [ from %s differ\n", prev, next);
			return 1;
		}
		if (before && memcmp(forward, before, bytes) == 0) {
			fprintf(stderr, "] from %s shows the scene before it\n", prev);
			return 1;
		}
		if (s == 1) {  // drop: the key 2 as well
			unsigned char *digit = screenshot(demo_scene_at(0)->name, "3:2", "digit.png");
			CHECK(digit && memcmp(digit, forward, bytes) == 0);
			stbi_image_free(digit);
		}
		stbi_image_free(backward);
		if (before)
			stbi_image_free(before);
		before = forward;
	}
	stbi_image_free(before);
	return 0;
}

// Pixels of the overlay's text colors (white 235,238,242 and the accent 255,206,110) in a
// region of a screenshot, and in the panel's corner.
static long text_pixels_in(const unsigned char *img, int x0, int y0, int x1, int y1)
{
	long n = 0;
	for (int y = y0; y < y1; ++y)
		for (int x = x0; x < x1; ++x) {
			const unsigned char *px = img + 3 * (y * kWidth + x);
			n += px[0] > 200 && px[1] > 180 && (px[2] > 200 || px[2] < 130);
		}
	return n;
}

static long text_pixels(const unsigned char *img) { return text_pixels_in(img, 0, 0, 300, 100); }

// Tab hides the panel of figures and parameters (its text is gone from the corner) and shows
// it again.
static int tab_hides_panel(void)
{
	unsigned char *shown = screenshot("drape", "2:R", "shown.png");
	unsigned char *hidden = screenshot("drape", "2:tab", "hidden.png");
	unsigned char *again = screenshot("drape", "2:tab,4:tab", "again.png");
	CHECK(shown && hidden && again);
	long with = text_pixels(shown), without = text_pixels(hidden), back = text_pixels(again);
	if (with < 500 || without > 20 || back < 500) {
		fprintf(stderr, "text pixels in the panel's corner: %ld shown, %ld hidden, %ld shown again\n", with,
			without, back);
		return 1;
	}
	stbi_image_free(shown);
	stbi_image_free(hidden);
	stbi_image_free(again);
	return 0;
}

// camera_frame: for boxes of many shapes, view directions and window shapes, every corner of the
// box lands inside the picture and in front of the eye, and a box as wide as it is long in two
// directions is not lost in the middle: it spans at least an eighth of the view. (Framing fits
// the box's bounding sphere, at least 5 cm: loose for a long box seen along its length, as a
// 6 x 0.5 x 1 m box seen end-on, and for the 0.2 x 2 x 0.2 m needle and the 1 cm cube, which
// are left out of that bound.)
static int camera_frame_fits_box(void)
{
	const float boxes[][6] = {{-1, 0, -1, 1, 0.01f, 1},  {0, 0, 0, 0.2f, 2.0f, 0.2f}, {-3, 1, -0.5f, 3, 1.5f, 0.5f},
				  {5, 5, 5, 5.01f, 5.01f, 5.01f}, {-0.4f, -2, 3, 0.4f, 0, 3.2f}};
	const float aspects[] = {16.0f / 9.0f, 1.0f, 0.5f};
	int checked = 0;
	for (int b = 0; b < (int)(sizeof boxes / sizeof boxes[0]); ++b)
		for (int yaw = -150; yaw <= 180; yaw += 55)
			for (int pitch = -60; pitch <= 80; pitch += 35)
				for (int k = 0; k < (int)(sizeof aspects / sizeof aspects[0]); ++k) {
					camera cam = {{9, -4, 2}, 7.0f, (float)yaw, (float)pitch};
					int width = 600, height = (int)(600 / aspects[k]);
					camera_frame(&cam, boxes[b], boxes[b] + 3, aspects[k]);
					mat4 vp;
					camera_view_proj(&cam, width, height, vp);
					float span = 0.0f;
					float lo[2] = {2, 2}, hi[2] = {-2, -2};
					for (int c = 0; c < 8; ++c) {
						vec4 corner = {boxes[b][(c & 1) ? 3 : 0], boxes[b][(c & 2) ? 4 : 1], boxes[b][(c & 4) ? 5 : 2], 1},
						     clip;
						glm_mat4_mulv(vp, corner, clip);
						CHECK(clip[3] > 0.0f);
						for (int j = 0; j < 2; ++j) {
							float ndc = clip[j] / clip[3];
							CHECK(ndc >= -1.0f && ndc <= 1.0f);
							lo[j] = fminf(lo[j], ndc);
							hi[j] = fmaxf(hi[j], ndc);
						}
					}
					span = fmaxf(hi[0] - lo[0], hi[1] - lo[1]);
					bool needle = b == 1 || b == 3;
					if (!needle && span < 0.25f)
						fprintf(stderr, "box %d yaw %d pitch %d aspect %.2f: spans %.2f of the view\n", b,
							yaw, pitch, (double)aspects[k], (double)span);
					CHECK(needle || span >= 0.25f);
					checked++;
				}
	fprintf(stderr, "%d framings: every corner in view\n", checked);
	return 0;
}

// The cloth's box in a screenshot: {x0, y0, x1, y1}, x1 < 0 when no cloth pixel shows.
static void cloth_box(const unsigned char *img, int box[4])
{
	box[0] = kWidth, box[1] = kHeight, box[2] = box[3] = -1;
	for (int y = 0; y < kHeight; ++y)
		for (int x = 0; x < kWidth; ++x)
			if (is_cloth_red(img + 3 * (y * kWidth + x))) {
				box[0] = x < box[0] ? x : box[0];
				box[1] = y < box[1] ? y : box[1];
				box[2] = x > box[2] ? x : box[2];
				box[3] = y > box[3] ? y : box[3];
			}
}

// The C key in a live scene: the fold strip, lifted by its corner, runs off the top of the
// scene's view; after C the whole cloth is in the picture (no cloth pixel on its border) and
// fills a good part of it.
static int frame_key_shows_cloth(void)
{
	unsigned char *before = screenshot("fold", "1:tab", "unframed.png");
	unsigned char *after = screenshot("fold", "1:tab,11:C", "framed.png");
	CHECK(before && after);
	int b[4], a[4];
	cloth_box(before, b);
	cloth_box(after, a);
	stbi_image_free(before);
	stbi_image_free(after);
	fprintf(stderr, "cloth pixels from (%d, %d) to (%d, %d), after C from (%d, %d) to (%d, %d), in %dx%d\n", b[0],
		b[1], b[2], b[3], a[0], a[1], a[2], a[3], kWidth, kHeight);
	CHECK(b[2] >= 0 && a[2] >= 0);
	CHECK(b[0] == 0 || b[1] == 0 || b[2] == kWidth - 1 || b[3] == kHeight - 1);  // cut off without C
	CHECK(a[0] > 0 && a[1] > 0 && a[2] < kWidth - 1 && a[3] < kHeight - 1);
	CHECK(a[2] - a[0] > kWidth / 4 || a[3] - a[1] > kHeight / 2);
	return 0;
}


// H shows the keys at the top right, inside the window (the panel once ran past its right
// edge), and the list of scenes at the bottom left; without H neither is there.
static int help_lists_scenes_and_fits(void)
{
	unsigned char *plain = screenshot("drape", "1:tab", "no_help.png");
	unsigned char *help = screenshot("drape", "1:tab,2:H", "help.png");
	CHECK(plain && help);
	long list_without = text_pixels_in(plain, 0, kHeight / 2, kWidth / 3, kHeight - 50);
	long list_with = text_pixels_in(help, 0, kHeight / 2, kWidth / 3, kHeight - 50);
	long keys_with = text_pixels_in(help, kWidth / 2, 0, kWidth, kHeight / 2);
	long at_edge = text_pixels_in(help, kWidth - 6, 0, kWidth, kHeight / 2);
	fprintf(stderr, "text pixels: scene list %ld without H, %ld with; keys %ld; at the right edge %ld\n",
		list_without, list_with, keys_with, at_edge);
	stbi_image_free(plain);
	stbi_image_free(help);
	CHECK(list_without < 20);
	CHECK(list_with > 1000);
	CHECK(keys_with > 1000);
	CHECK(at_edge == 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_viewer CASE VIEWER_BINARY\n");
		return 1;
	}
	g_viewer = argv[2];
	snprintf(g_dir, sizeof g_dir, "/tmp/pbd-viewer-test-XXXXXX");
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	static const test_case cases[] = {
		SLOW_TEST(screenshot_each_scene), TEST(keys_change_picture), TEST(missing_shader),
		TEST(unknown_scene),         TEST(bad_keys),            TEST(escape_and_scene_keys),
		SLOW_TEST(bracket_keys_reach_every_scene), TEST(tab_hides_panel), TEST(camera_frame_fits_box),
		TEST(frame_key_shows_cloth), TEST(help_lists_scenes_and_fits), TEST(pins_and_normals_drawn),
		TEST(debug_views_drawn),     TEST(material_looks_differ),
	};
	char *args[2] = {argv[0], argv[1]};
	int r = test_main(2, args, cases, (int)(sizeof cases / sizeof cases[0]));
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", g_dir);
	return r;
}
