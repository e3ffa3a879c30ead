// SPDX-License-Identifier: MIT
// A small log-log line chart written as PNG (stb_image_write; labels by stb_easy_font).
#pragma once

#define PLOT_MAX_POINTS 16

typedef struct plot_series {
	char label[64];
	double x[PLOT_MAX_POINTS], y[PLOT_MAX_POINTS];
	int count;
	int dashed;   // dashed line (pbd-bench: 2 threads)
	int color;   // 1 + palette index, so that related series share a color; 0: by position
	int hollow;   // open markers (pbd-bench: self-collision off)
} plot_series;

/// Draws every series (points joined in order of x) on log-log axes. Returns 0, or -1 when
/// the file cannot be written or there is nothing positive to draw.
int plot_write_png(const char *path, const char *title, const char *x_label, const char *y_label,
		   const plot_series *series, int series_count);
