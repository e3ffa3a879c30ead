// SPDX-License-Identifier: MIT
// A log-log line chart rasterised by hand into an RGB buffer: axes with decade ticks and
// labels, one colored polyline with markers per series, a legend.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#include <stb_easy_font.h>

#include "plot.h"

enum { WIDTH = 1100, HEIGHT = 700, LEFT = 90, RIGHT = 300, TOP = 50, BOTTOM = 70 };

typedef struct canvas {
	unsigned char *rgb;
} canvas;

static const unsigned char kColors[][3] = {
	{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189}, {140, 86, 75},
	{227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}, {0, 0, 0}, {90, 90, 200},
};

static void put(canvas *c, int x, int y, const unsigned char col[3])
{
	if (x < 0 || y < 0 || x >= WIDTH || y >= HEIGHT)
		return;
	memcpy(c->rgb + 3 * ((size_t)y * WIDTH + (size_t)x), col, 3);
}

static void rect(canvas *c, int x0, int y0, int x1, int y1, const unsigned char col[3])
{
	for (int y = y0; y <= y1; ++y)
		for (int x = x0; x <= x1; ++x)
			put(c, x, y, col);
}

// A square marker, filled or open.
static void marker(canvas *c, int x, int y, const unsigned char col[3], int hollow)
{
	if (!hollow) {
		rect(c, x - 3, y - 3, x + 3, y + 3, col);
		return;
	}
	rect(c, x - 4, y - 4, x + 4, y - 3, col);
	rect(c, x - 4, y + 3, x + 4, y + 4, col);
	rect(c, x - 4, y - 4, x - 3, y + 4, col);
	rect(c, x + 3, y - 4, x + 4, y + 4, col);
}

// Bresenham, two pixels thick; `dashed` leaves gaps every 8 pixels.
static void line(canvas *c, int x0, int y0, int x1, int y1, const unsigned char col[3], int dashed)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
	for (int step = 0;; ++step) {
		if (!dashed || (step / 8) % 2 == 0) {
			put(c, x0, y0, col);
			put(c, x0 + 1, y0, col);
			put(c, x0, y0 + 1, col);
		}
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * err;
		if (e2 >= dy)
			err += dy, x0 += sx;
		if (e2 <= dx)
			err += dx, y0 += sy;
	}
}

// stb_easy_font emits quads (4 vertices of 16 bytes: x, y, z floats and a color).
static void text(canvas *c, int x, int y, const char *s, int scale, const unsigned char col[3])
{
	static char buffer[60000];
	int quads = stb_easy_font_print(0.0f, 0.0f, (char *)s, NULL, buffer, (int)sizeof buffer);
	for (int q = 0; q < quads; ++q) {
		const float *v0 = (const float *)(buffer + 64 * q), *v2 = (const float *)(buffer + 64 * q + 32);
		rect(c, x + (int)(v0[0] * scale), y + (int)(v0[1] * scale), x + (int)(v2[0] * scale) - 1,
		     y + (int)(v2[1] * scale) - 1, col);
	}
}

int plot_write_png(const char *path, const char *title, const char *x_label, const char *y_label,
		   const plot_series *series, int series_count)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	for (int s = 0; s < series_count; ++s)
		for (int i = 0; i < series[s].count; ++i)
			if (series[s].x[i] > 0 && series[s].y[i] > 0) {
				xmin = fmin(xmin, series[s].x[i]), xmax = fmax(xmax, series[s].x[i]);
				ymin = fmin(ymin, series[s].y[i]), ymax = fmax(ymax, series[s].y[i]);
			}
	if (!(xmin <= xmax))
		return -1;
	// Whole decades around the data.
	double lx0 = floor(log10(xmin)), lx1 = fmax(ceil(log10(xmax)), lx0 + 1);
	double ly0 = floor(log10(ymin)), ly1 = fmax(ceil(log10(ymax)), ly0 + 1);
	canvas c = {malloc((size_t)WIDTH * HEIGHT * 3)};
	if (!c.rgb)
		return -1;
	memset(c.rgb, 255, (size_t)WIDTH * HEIGHT * 3);
	const unsigned char black[3] = {0, 0, 0}, grid[3] = {225, 225, 225};
	int px0 = LEFT, px1 = WIDTH - RIGHT, py0 = HEIGHT - BOTTOM, py1 = TOP;
#define PX(v) (px0 + (int)((log10(v) - lx0) / (lx1 - lx0) * (px1 - px0)))
#define PY(v) (py0 - (int)((log10(v) - ly0) / (ly1 - ly0) * (py0 - py1)))
	char buf[64];
	for (double d = lx0; d <= lx1 + 1e-9; d += 1.0) {
		int x = PX(pow(10.0, d));
		line(&c, x, py0, x, py1, grid, 0);
		snprintf(buf, sizeof buf, "1e%d", (int)d);
		text(&c, x - 10, py0 + 8, buf, 2, black);
	}
	for (double d = ly0; d <= ly1 + 1e-9; d += 1.0) {
		int y = PY(pow(10.0, d));
		line(&c, px0, y, px1, y, grid, 0);
		snprintf(buf, sizeof buf, "%g", pow(10.0, d));
		text(&c, 10, y - 6, buf, 2, black);
	}
	line(&c, px0, py0, px1, py0, black, 0);
	line(&c, px0, py0, px0, py1, black, 0);
	text(&c, LEFT, 12, title, 2, black);
	text(&c, (px0 + px1) / 2 - 40, HEIGHT - 30, x_label, 2, black);
	text(&c, LEFT + 8, TOP - 16, y_label, 2, black);
	for (int s = 0; s < series_count; ++s) {
		int palette = (int)(sizeof kColors / sizeof kColors[0]);
		const unsigned char *col = kColors[(series[s].color > 0 ? series[s].color - 1 : s) % palette];
		int prev_x = -1, prev_y = -1;
		for (int i = 0; i < series[s].count; ++i) {
			if (!(series[s].x[i] > 0 && series[s].y[i] > 0))
				continue;
			int x = PX(series[s].x[i]), y = PY(series[s].y[i]);
			marker(&c, x, y, col, series[s].hollow);
			if (prev_x >= 0)
				line(&c, prev_x, prev_y, x, y, col, series[s].dashed);
			prev_x = x, prev_y = y;
		}
		int ly = TOP + 20 * s;
		line(&c, WIDTH - RIGHT + 20, ly + 6, WIDTH - RIGHT + 50, ly + 6, col, series[s].dashed);
		marker(&c, WIDTH - RIGHT + 35, ly + 6, col, series[s].hollow);
		text(&c, WIDTH - RIGHT + 58, ly, series[s].label, 2, col);
	}
#undef PX
#undef PY
	int ok = stbi_write_png(path, WIDTH, HEIGHT, 3, c.rgb, WIDTH * 3);
	free(c.rgb);
	return ok ? 0 : -1;
}
