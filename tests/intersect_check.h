// SPDX-License-Identifier: MIT
// An independent intersection check for tests: counts pairs of triangles that share no
// vertex and cross each other (an edge of one passes through the other). Written for the
// tests alone; it shares no code with the engine's contact or CCD code: its own sweep over
// x, its own segment-triangle test in double precision.
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct check_mesh {
	const float *positions;    // packed xyz
	const uint32_t *indices;   // 3 per triangle, into positions
	int triangle_count;
} check_mesh;

typedef struct check_box {
	double lo[3], hi[3];
	int mesh, tri;
} check_box;

static int check_compare_lo_x(const void *a, const void *b)
{
	double x = ((const check_box *)a)->lo[0], y = ((const check_box *)b)->lo[0];
	return x < y ? -1 : (x > y ? 1 : 0);
}

static void check_vertex(const check_mesh *m, uint32_t i, double out[3])
{
	for (int k = 0; k < 3; ++k)
		out[k] = m->positions[3 * i + k];
}

// Segment p-q against triangle a-b-c: a proper crossing (Moller-Trumbore on the segment).
static int check_segment_triangle(const double p[3], const double q[3], const double a[3], const double b[3],
				  const double c[3])
{
	double d[3], e1[3], e2[3], h[3], s[3], qv[3];
	for (int k = 0; k < 3; ++k) {
		d[k] = q[k] - p[k];
		e1[k] = b[k] - a[k];
		e2[k] = c[k] - a[k];
		s[k] = p[k] - a[k];
	}
	h[0] = d[1] * e2[2] - d[2] * e2[1];
	h[1] = d[2] * e2[0] - d[0] * e2[2];
	h[2] = d[0] * e2[1] - d[1] * e2[0];
	double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
	if (fabs(det) < 1e-18)
		return 0;  // parallel to the plane: not a crossing
	double inv = 1.0 / det;
	double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) * inv;
	if (u < 0.0 || u > 1.0)
		return 0;
	qv[0] = s[1] * e1[2] - s[2] * e1[1];
	qv[1] = s[2] * e1[0] - s[0] * e1[2];
	qv[2] = s[0] * e1[1] - s[1] * e1[0];
	double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
	if (v < 0.0 || u + v > 1.0)
		return 0;
	double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
	return t >= 0.0 && t <= 1.0;
}

static int check_triangles_cross(const check_mesh *ma, int ta, const check_mesh *mb, int tb)
{
	double A[3][3], B[3][3];
	for (int k = 0; k < 3; ++k) {
		check_vertex(ma, ma->indices[3 * ta + k], A[k]);
		check_vertex(mb, mb->indices[3 * tb + k], B[k]);
	}
	for (int k = 0; k < 3; ++k) {
		if (check_segment_triangle(A[k], A[(k + 1) % 3], B[0], B[1], B[2]))
			return 1;
		if (check_segment_triangle(B[k], B[(k + 1) % 3], A[0], A[1], A[2]))
			return 1;
	}
	return 0;
}

// Number of crossing triangle pairs among all meshes (pairs within one mesh that share a
// vertex are skipped); -1 when out of memory.
static long check_count_intersections(const check_mesh *meshes, int mesh_count)
{
	int total = 0;
	for (int m = 0; m < mesh_count; ++m)
		total += meshes[m].triangle_count;
	check_box *boxes = malloc(sizeof *boxes * (size_t)(total > 0 ? total : 1));
	if (!boxes)
		return -1;
	int n = 0;
	for (int m = 0; m < mesh_count; ++m)
		for (int t = 0; t < meshes[m].triangle_count; ++t) {
			check_box *b = &boxes[n++];
			b->mesh = m;
			b->tri = t;
			for (int k = 0; k < 3; ++k) {
				b->lo[k] = INFINITY;
				b->hi[k] = -INFINITY;
			}
			for (int v = 0; v < 3; ++v) {
				double x[3];
				check_vertex(&meshes[m], meshes[m].indices[3 * t + v], x);
				for (int k = 0; k < 3; ++k) {
					b->lo[k] = fmin(b->lo[k], x[k]);
					b->hi[k] = fmax(b->hi[k], x[k]);
				}
			}
		}
	qsort(boxes, (size_t)n, sizeof *boxes, check_compare_lo_x);
	long crossings = 0;
	for (int i = 0; i < n; ++i) {
		for (int j = i + 1; j < n && boxes[j].lo[0] <= boxes[i].hi[0]; ++j) {
			const check_box *a = &boxes[i], *b = &boxes[j];
			if (a->lo[1] > b->hi[1] || b->lo[1] > a->hi[1] || a->lo[2] > b->hi[2] || b->lo[2] > a->hi[2])
				continue;
			if (a->mesh == b->mesh) {
				const uint32_t *ia = meshes[a->mesh].indices + 3 * a->tri, *ib = meshes[b->mesh].indices + 3 * b->tri;
				int shared = 0;
				for (int p = 0; p < 3; ++p)
					for (int q = 0; q < 3; ++q)
						shared |= ia[p] == ib[q];
				if (shared)
					continue;
			}
			crossings += check_triangles_cross(&meshes[a->mesh], a->tri, &meshes[b->mesh], b->tri);
		}
	}
	free(boxes);
	return crossings;
}
