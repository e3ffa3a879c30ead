// SPDX-License-Identifier: MIT
// What each scene is for, as a person watching it sees it: the cloth drapes over the sphere,
// lies flat on the floor, hangs from its pins, wrings two turns, flies from the pole. Finite
// values and no crossings are checked elsewhere (test_world, test_contacts); those alone let
// a cloth slide off its sphere unnoticed.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "intersect_check.h"
#include "scenes.h"
#include "test.h"

static const float kDt = 1.0f / 60.0f;
static const double kPi = 3.14159265358979;

typedef struct scene_run {
	const demo_scene *scene;
	pbd_world *w;
	demo_scene_state st;
} scene_run;

static int run_open(scene_run *r, const char *name)
{
	r->scene = demo_scene_find(name);
	CHECK(r->scene);
	char err[256];
	CHECK_OK(demo_scene_load(r->scene, NULL, NULL, &r->w, &r->st, err, sizeof err));
	return 0;
}

static int run_frames(scene_run *r, int frames)
{
	for (int f = 0; f < frames; ++f)
		CHECK_OK(demo_scene_step(r->scene, r->w, &r->st, kDt));
	return 0;
}

// Bounds and centroid (unweighted mean of the vertices) of cloth k.
typedef struct cloth_box {
	double lo[3], hi[3], mean[3];
	int count;
} cloth_box;

static cloth_box box_of(const scene_run *r, int k)
{
	cloth_box b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, {0, 0, 0}, 0};
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[k], &b.count);
	for (int i = 0; i < b.count; ++i)
		for (int a = 0; a < 3; ++a) {
			b.lo[a] = fmin(b.lo[a], x[3 * i + a]);
			b.hi[a] = fmax(b.hi[a], x[3 * i + a]);
			b.mean[a] += x[3 * i + a] / b.count;
		}
	return b;
}

static float fastest(const scene_run *r, int k)
{
	int n = 0;
	const float *v = pbd_cloth_velocities(r->w, r->st.cloths[k], &n);
	float worst = 0.0f;
	for (int i = 0; i < n; ++i)
		worst = fmaxf(worst, sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
	return worst;
}

// hang: pinned by its top corners (y = 2), brought 30% closer than its 1 m width: the corners
// stay where the pins hold them, the cloth hangs its full length down to about y = 1, and the
// slack falls in folds: the top edge sags between the pins as a limp edge does and the sheet
// leaves its plane, then comes to rest.
// The strain of triangle corner e's edge (to the next corner) against `rest`.
static double edge_strain(const float *x, const float *rest, const uint32_t *tri, int e)
{
	uint32_t a = tri[e], b = tri[e % 3 == 2 ? e - 2 : e + 1];
	double l0 = 0.0, l = 0.0;
	for (int c = 0; c < 3; ++c) {
		l0 += pow(rest[3 * a + c] - rest[3 * b + c], 2);
		l += pow(x[3 * a + c] - x[3 * b + c], 2);
	}
	return sqrt(l / l0) - 1.0;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// The strain of cloth k's edges against `rest` at the given share of them (0.99: all but the
// most stretched 1%).
static double edge_strain_percentile(const scene_run *r, int k, const float *rest, double share)
{
	int t = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[k], NULL);
	const uint32_t *tri = pbd_cloth_indices(r->w, r->st.cloths[k], &t);
	double *strain = malloc(sizeof *strain * 3 * (size_t)t);
	if (!strain || t == 0) {
		free(strain);
		return INFINITY;
	}
	for (int e = 0; e < 3 * t; ++e)
		strain[e] = edge_strain(x, rest, tri, e);
	qsort(strain, 3 * (size_t)t, sizeof *strain, compare_double);
	double v = strain[(size_t)(share * (3 * t - 1))];
	free(strain);
	return v;
}

static int hang_hangs_from_its_pins(void)
{
	scene_run r;
	if (run_open(&r, "hang"))
		return 1;
	static float rest[3 * 4096];
	int n0 = 0;
	const float *x0 = pbd_cloth_positions(r.w, r.st.cloths[0], &n0);
	CHECK(n0 <= 4096);
	memcpy(rest, x0, sizeof(float) * 3 * (size_t)n0);
	if (run_frames(&r, 300))
		return 1;
	cloth_box b = box_of(&r, 0);
	int n = 0;
	const float *x = pbd_cloth_positions(r.w, r.st.cloths[0], &n);
	int columns = (int)lround(sqrt((double)n));
	CHECK(columns * columns == n);
	const float *left = x, *right = x + 3 * (columns - 1), *middle = x + 3 * (columns / 2);
	fprintf(stderr,
		"hang: pins (%.4f %.4f %.4f) (%.4f %.4f %.4f), top middle y %.4f, bottom %.4f, depth %.4f, "
		"centroid (%.4f %.4f %.4f), fastest %.4f m/s\n",
		left[0], left[1], left[2], right[0], right[1], right[2], middle[1], b.lo[1], b.hi[2] - b.lo[2], b.mean[0],
		b.mean[1], b.mean[2], (double)fastest(&r, 0));
	CHECK_NEAR(left[0], -0.35, 1e-3);   // the pins hold, 0.7 m apart
	CHECK_NEAR(right[0], 0.35, 1e-3);
	CHECK_NEAR(left[1], 2.0, 1e-3);
	CHECK_NEAR(right[1], 2.0, 1e-3);
	CHECK_NEAR(b.hi[1], 2.0, 1e-3);     // nothing above them
	// Hangs its full length: the sides (1 m) hang from the pins and the slack between them lets
	// the middle hang lower, but no lower than 5% beyond its rest distance from the nearer pin
	// allows (the bottom middle is sqrt(0.5^2 + 1^2) m from it at rest, 0.35 m to its side).
	CHECK(b.lo[1] < 1.0 + 0.02);
	CHECK(b.lo[1] > 2.0 - sqrt(pow(1.05 * hypot(0.5, 1.0), 2) - 0.35 * 0.35));
	double strain99 = edge_strain_percentile(&r, 0, rest, 0.99);
	fprintf(stderr, "hang: 99%% of the edges stretched less than %.1f%%\n", 100.0 * strain99);
	CHECK(strain99 < 0.05);  // stretched less than 5% (but a few edges at the pins)
	// The top edge sags between the pins like the limp edge of cloth: a chain of length L = 1 m
	// hung from points d = 0.7 m apart sags about sqrt(3 d (L - d) / 8) = 0.28 m; a sheet
	// ten times as stiff in bending (1000, leather's) holds its top edge up (0.14 m).
	CHECK(middle[1] < 2.0 - 0.2);
	CHECK(b.hi[2] - b.lo[2] > 0.05);    // the slack has gone into folds out of the plane
	CHECK(fabs(b.mean[0]) < 0.05);      // between its pins
	CHECK(fastest(&r, 0) < 0.1f);       // at rest
	pbd_world_destroy(r.w);
	return 0;
}

// drop: the cloth lands flat and lies on the floor at half its thickness, its full 1 m square.
static int drop_lies_flat(void)
{
	scene_run r;
	if (run_open(&r, "drop") || run_frames(&r, 240))
		return 1;
	cloth_box b = box_of(&r, 0);
	fprintf(stderr, "drop: y %.5f..%.5f, x %.4f..%.4f, z %.4f..%.4f\n", b.lo[1], b.hi[1], b.lo[0], b.hi[0], b.lo[2],
		b.hi[2]);
	CHECK(b.lo[1] > 0.004 && b.hi[1] < 0.006);  // thickness / 2 = 5 mm, everywhere
	CHECK(b.hi[0] - b.lo[0] > 0.98 && b.hi[2] - b.lo[2] > 0.98);
	CHECK(fastest(&r, 0) < 1e-3f);
	pbd_world_destroy(r.w);
	return 0;
}

// incline: set down at rest on the 20 degree slope, the cloth stays put with the default
// friction (static 0.5 > tan 20 deg = 0.364).
static int incline_cloth_stays(void)
{
	scene_run r;
	if (run_open(&r, "incline"))
		return 1;
	cloth_box a = box_of(&r, 0);
	if (run_frames(&r, 300))
		return 1;
	cloth_box b = box_of(&r, 0);
	double moved = sqrt(pow(b.mean[0] - a.mean[0], 2) + pow(b.mean[1] - a.mean[1], 2) + pow(b.mean[2] - a.mean[2], 2));
	fprintf(stderr, "incline: moved %.6f m in 5 s\n", moved);
	CHECK(moved < 1e-3);
	pbd_world_destroy(r.w);
	return 0;
}

// drape: the cloth lands on the sphere (top at y = 0.80) and stays there: from frame 120 to
// 600 its highest point is within 3 cm of the sphere's top and its centroid within 5 cm of
// the sphere's axis. (A cloth that slides off ends with its top near the floor.)
static int drape_rests_on_sphere(void)
{
	scene_run r;
	if (run_open(&r, "drape"))
		return 1;
	pbd_collider_def sphere;
	CHECK_OK(pbd_collider_get_def(r.w, r.st.colliders[1], &sphere));
	CHECK(sphere.type == PBD_SHAPE_SPHERE);
	double top = sphere.position[1] + sphere.radius, worst_top = 0.0, worst_axis = 0.0;
	for (int f = 1; f <= 600; ++f) {
		if (run_frames(&r, 1))
			return 1;
		if (f < 120)
			continue;
		cloth_box b = box_of(&r, 0);
		worst_top = fmax(worst_top, fabs(b.hi[1] - top));
		worst_axis = fmax(worst_axis, fmax(fabs(b.mean[0] - sphere.position[0]), fabs(b.mean[2] - sphere.position[2])));
	}
	fprintf(stderr, "drape, frames 120-600: highest point within %.4f m of the sphere's top, centroid within %.4f m "
		"of its axis\n", worst_top, worst_axis);
	CHECK(worst_top <= 0.03);
	CHECK(worst_axis <= 0.05);
	// The statistics say so too: the cloth rests on the sphere through its triangles.
	pbd_world_stats st = pbd_world_get_stats(r.w);
	fprintf(stderr, "  at frame 600: %d triangle and %d vertex contacts with colliders\n", st.collider_triangle_contacts,
		st.collider_contacts);
	CHECK(st.collider_triangle_contacts > 0);
	pbd_world_destroy(r.w);
	return 0;
}

// The share of cloth k's vertices that stand over empty space: more than `gap` above the
// highest thing under them, which is the floor or a vertex of the cloth within `reach`
// horizontally and at least gap / 2 lower (the vertex's own layer around it does not count,
// though on a slope steeper than about 35 degrees its own layer lower down does). In a pile
// of flat folds each layer lies on the one below, a thickness apart, and the one below that
// is within reach too; over a tube or an arch of cloth there is air.
static double share_over_air(const scene_run *r, int k, double reach, double gap)
{
	int n = 0, hollow = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[k], &n);
	for (int i = 0; i < n; ++i) {
		double top = 0.0;  // the floor
		for (int j = 0; j < n; ++j) {
			double dx = (double)x[3 * j] - x[3 * i], dz = (double)x[3 * j + 2] - x[3 * i + 2];
			double y = x[3 * j + 1];
			if (dx * dx + dz * dz <= reach * reach && y < x[3 * i + 1] - 0.5 * gap)
				top = fmax(top, y);
		}
		hollow += x[3 * i + 1] - top > gap;
	}
	return n > 0 ? (double)hollow / n : 0.0;
}

// fold: the 2.4 m strip, dropped edge first, lies in flat folds: its footprint is much
// shorter than the strip, the folds stack a few thicknesses high, little of it stands over
// air, and it is at rest. (Share of the vertices 4 cm or more above what is under them, for
// the strip leaning 6 to 10 degrees instead of 8 as it falls: 4.5-10.7% with the default
// bending (denim's), 14.0-27.6% with ten times stiffer bending, 1000, which rolls up
// into tubes or arches over; both measured before the stretch limit.)
static int fold_lies_in_folds(void)
{
	scene_run r;
	if (run_open(&r, "fold") || run_frames(&r, 300))
		return 1;
	cloth_box b = box_of(&r, 0);
	double footprint = fmax(b.hi[0] - b.lo[0], b.hi[2] - b.lo[2]), hollow = share_over_air(&r, 0, 0.03, 0.04);
	fprintf(stderr, "fold: footprint %.3f m, height %.4f..%.4f m, %.0f%% of it over 4 cm of air, fastest %.4f m/s\n",
		footprint, b.lo[1], b.hi[1], 100.0 * hollow, (double)fastest(&r, 0));
	CHECK(hollow < 0.12);
	CHECK(footprint < 0.6 * 2.4);
	CHECK(b.lo[1] > 0.004);
	CHECK(b.hi[1] > 0.02 && b.hi[1] < 0.4);  // folded over itself, not standing up
	CHECK(fastest(&r, 0) < 0.05f);
	pbd_world_destroy(r.w);
	return 0;
}

// twist: after the wringing (4 s) the cloth between the held edges turns two full turns: the
// angle of each column (its first to last row, in the y-z plane) unwrapped from the still
// edge to the turned one adds up to 4 pi. Cloth that slipped through itself would add up to
// less. The wrung cloth hangs between the hands, off the floor. Then, held still, it grinds
// in place by a millimetre or so a frame: its contacts are found again for fewer than 5/4 of
// its particles a frame (a full search counts them all; 1,239 of 1,024 here), where every
// wobble counted as motion found them again for 1,669.
static int twist_wrings_two_turns(void)
{
	scene_run r;
	if (run_open(&r, "twist") || run_frames(&r, 300))
		return 1;
	int res = (int)r.st.values[0], n = 0;
	const float *x = pbd_cloth_positions(r.w, r.st.cloths[0], &n);
	CHECK(n == res * res);
	double total = 0.0, previous = 0.0;
	for (int i = 0; i < res; ++i) {
		const float *first = x + 3 * i, *last = x + 3 * ((res - 1) * res + i);
		double angle = atan2(-(last[1] - first[1]), last[2] - first[2]);
		if (i > 0) {
			double d = angle - previous;
			d -= 2.0 * kPi * floor((d + kPi) / (2.0 * kPi));
			total += d;
		}
		previous = angle;
	}
	cloth_box b = box_of(&r, 0);
	fprintf(stderr, "twist: %.3f turns from edge to edge; lowest point %.3f m\n", total / (2.0 * kPi), b.lo[1]);
	CHECK(fabs(total / (2.0 * kPi) - 2.0) < 0.25);
	CHECK(b.lo[1] > 0.3);
	const int held_frames = 60;
	int64_t renewed = 0;
	for (int f = 0; f < held_frames; ++f) {
		CHECK_OK(demo_scene_step(r.scene, r.w, &r.st, kDt));
		pbd_world_stats st = pbd_world_get_stats(r.w);
		renewed += st.broad_phase_strays + (int64_t)st.broad_phase_builds * n;
	}
	fprintf(stderr, "twist held: %.0f particles' pairs found again a frame, of %d\n", (double)renewed / held_frames, n);
	CHECK(4 * renewed < (int64_t)5 * held_frames * n);
	pbd_world_destroy(r.w);
	return 0;
}

// stack: the three cloths lie on each other in order, each one thickness (1 cm) above the one
// below where they overlap: the lowest flat on the floor, the highest at most three layers up.
static int stack_lies_in_layers(void)
{
	scene_run r;
	if (run_open(&r, "stack") || run_frames(&r, 300))
		return 1;
	CHECK(r.st.cloth_count == 3);
	double previous_top = 0.0;
	for (int k = 0; k < 3; ++k) {
		cloth_box b = box_of(&r, k);
		fprintf(stderr, "stack: cloth %d at y %.4f..%.4f\n", k, b.lo[1], b.hi[1]);
		CHECK(b.lo[1] > 0.004);
		if (k > 0)
			CHECK(b.hi[1] > previous_top + 0.007);  // on top of the one below, a thickness up
		CHECK(b.hi[1] < 0.005 + 0.01 * k + 0.004);  // and no higher: lying flat
		previous_top = b.hi[1];
	}
	pbd_world_destroy(r.w);
	return 0;
}

// The worst relative stretch of cloth k's triangle edges against the rest lengths in `rest`
// (its positions at creation: every scene's cloth starts unstretched).
static double worst_edge_strain(const scene_run *r, int k, const float *rest)
{
	int t = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[k], NULL);
	const uint32_t *tri = pbd_cloth_indices(r->w, r->st.cloths[k], &t);
	double worst = 0.0;
	for (int e = 0; e < 3 * t; ++e)
		worst = fmax(worst, edge_strain(x, rest, tri, e));
	return worst;
}

// cape: while the character runs its circle, the cape stays on its shoulders, flies out
// behind it (opposite to the running direction) and stretches less than 10% (its tethers
// follow the attachment that holds it); the banners it ran through hang again.
static int cape_flies_behind(void)
{
	scene_run r;
	if (run_open(&r, "cape"))
		return 1;
	CHECK(r.st.cloth_count == 4);
	static float rest[3 * 4096];
	int n = 0;
	const float *x0 = pbd_cloth_positions(r.w, r.st.cloths[0], &n);  // the cape
	CHECK(3 * n <= 3 * 4096);
	memcpy(rest, x0, sizeof(float) * 3 * (size_t)n);
	double least_behind = INFINITY, worst_strain = 0.0;
	for (int f = 1; f <= 480; ++f) {
		if (run_frames(&r, 1))
			return 1;
		if (f < 120 || f % 10)
			continue;
		pbd_collider_def body;
		CHECK_OK(pbd_collider_get_def(r.w, r.st.colliders[1], &body));
		double a = atan2(body.position[2], body.position[0]);
		double ahead[3] = {-sin(a), 0.0, cos(a)};  // counter-clockwise along the circle
		cloth_box cape = box_of(&r, 0);
		double behind = -((cape.mean[0] - body.position[0]) * ahead[0] + (cape.mean[2] - body.position[2]) * ahead[2]);
		least_behind = fmin(least_behind, behind);
		worst_strain = fmax(worst_strain, worst_edge_strain(&r, 0, rest));
		CHECK(cape.hi[1] < 1.65 && cape.lo[1] > 0.5);  // on the shoulders, off the ground
	}
	fprintf(stderr, "cape: centroid at least %.3f m behind the body's axis while running, worst strain %.1f%%\n",
		least_behind, 100.0 * worst_strain);
	CHECK(least_behind > 0.25 + 0.05);  // behind the body (radius 0.25), blown back
	CHECK(worst_strain < 0.10);
	for (int k = 1; k <= 3; ++k) {  // the banners
		cloth_box b = box_of(&r, k);
		CHECK(b.hi[1] < 2.11 && b.lo[1] > 0.9);  // still hanging from its top edge
	}
	pbd_world_destroy(r.w);
	return 0;
}

// tablecloth: the round cloth (radius 0.8 m) lies on the table top (y = 0.78) and hangs over
// its edges all round, its swinging rim at rest after 8 s.
static int tablecloth_covers_table(void)
{
	scene_run r;
	if (run_open(&r, "tablecloth") || run_frames(&r, 480))
		return 1;
	cloth_box b = box_of(&r, 0);
	fprintf(stderr, "tablecloth: y %.4f..%.4f, centroid (%.4f %.4f), x %.3f..%.3f\n", b.lo[1], b.hi[1], b.mean[0],
		b.mean[2], b.lo[0], b.hi[0]);
	// The middle lies on the table top, at half the thickness; the folds that bunch where the
	// round cloth leaves the square table rise a little higher.
	int n = 0;
	const float *x = pbd_cloth_positions(r.w, r.st.cloths[0], &n);
	for (int i = 0; i < n; ++i)
		if (hypot(x[3 * i], x[3 * i + 2]) < 0.3)
			CHECK_NEAR(x[3 * i + 1], 0.78 + 0.005, 0.002);
	CHECK(b.hi[1] < 0.78 + 0.05);
	CHECK(b.lo[1] < 0.78 - 0.2);              // the rim hangs down
	CHECK(fabs(b.mean[0]) < 0.05 && fabs(b.mean[2]) < 0.05);
	CHECK(b.lo[0] < -0.45 && b.hi[0] > 0.45 && b.lo[2] < -0.45 && b.hi[2] > 0.45);  // over every edge
	CHECK(fastest(&r, 0) < 0.05f);
	pbd_world_destroy(r.w);
	return 0;
}

// The mean horizontal distance of the skirt's vertices from the body's axis.
static double skirt_spread(const scene_run *r)
{
	int n = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[0], &n);
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
		sum += sqrt(x[3 * i] * x[3 * i] + x[3 * i + 2] * x[3 * i + 2]);
	return sum / n;
}

// The hem of the skirt (the vertices of its outer ring, 0.70 m from the waist's centre when it
// lies flat as loaded), in order round the ring; returns how many (at most `capacity`).
typedef struct hem_vertex {
	double angle;
	int index;
} hem_vertex;

static int compare_angle(const void *a, const void *b)
{
	return compare_double(&((const hem_vertex *)a)->angle, &((const hem_vertex *)b)->angle);
}

static int skirt_hem(const scene_run *r, int *hem, int capacity)
{
	int n = 0, count = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[0], &n);
	hem_vertex ring[256];
	for (int i = 0; i < n && count < capacity && count < 256; ++i)
		if (sqrt(x[3 * i] * x[3 * i] + x[3 * i + 2] * x[3 * i + 2]) > 0.69)
			ring[count++] = (hem_vertex){atan2(x[3 * i + 2], x[3 * i]), i};
	qsort(ring, (size_t)count, sizeof *ring, compare_angle);
	for (int k = 0; k < count; ++k)
		hem[k] = ring[k].index;
	return count;
}

// How a hanging skirt looks: how far its hem hangs below the waist (mean), and how many folds
// run round it (the hem's distance from the axis rises above its mean and falls back below
// it once per fold, by at least 1 cm each way: small ripples do not count).
static void skirt_hang(const scene_run *r, const int *hem, int count, double waist_y, double *drop, int *folds)
{
	int n = 0;
	const float *x = pbd_cloth_positions(r->w, r->st.cloths[0], &n);
	double radius[256], mean = 0.0;
	*drop = 0.0;
	for (int k = 0; k < count; ++k) {
		const float *p = x + 3 * hem[k];
		radius[k] = sqrt(p[0] * p[0] + p[2] * p[2]);
		mean += radius[k] / count;
		*drop += (waist_y - p[1]) / count;
	}
	// Start where the hem is furthest in, then count the rises past mean + 1 cm that follow
	// a dip below mean - 1 cm.
	int start = 0;
	for (int k = 1; k < count; ++k)
		if (radius[k] < radius[start])
			start = k;
	bool low = true;
	*folds = 0;
	for (int k = 1; k <= count; ++k) {
		double v = radius[(start + k) % count];
		if (low && v > mean + 0.01) {
			++*folds;
			low = false;
		} else if (!low && v < mean - 0.01)
			low = true;
	}
}

// skirt: it falls round the body in vertical folds (a cotton skirt: its 0.52 m hang down,
// not out like a lampshade); at full twirl (1.5 turns a second) it flares out; when the twirl
// has stopped it hangs round the body again as before.
static int skirt_flares_and_falls_back(void)
{
	scene_run r;
	if (run_open(&r, "skirt"))
		return 1;
	int hem[256];
	int hem_count = skirt_hem(&r, hem, 256);
	CHECK(hem_count >= 32);
	if (run_frames(&r, 85))
		return 1;
	double hanging = skirt_spread(&r), drop;
	int folds;
	skirt_hang(&r, hem, hem_count, 1.1, &drop, &folds);
	fprintf(stderr, "skirt: hem %d vertices, %.3f m below the waist in %d folds\n", hem_count, drop, folds);
	CHECK(drop > 0.9 * 0.52);  // hangs: nearly all its length below the waist
	CHECK(folds >= 6);
	if (run_frames(&r, 335 - 85))
		return 1;
	double twirling = skirt_spread(&r);
	cloth_box flared = box_of(&r, 0);
	if (run_frames(&r, 720 - 335))
		return 1;
	double after = skirt_spread(&r);
	cloth_box b = box_of(&r, 0);
	fprintf(stderr, "skirt: mean radius %.3f m hanging, %.3f twirling (hem up to y %.3f), %.3f after\n", hanging,
		twirling, flared.lo[1], after);
	CHECK(twirling > 1.25 * hanging);
	CHECK(flared.lo[1] > b.lo[1] + 0.1);  // the hem rises as it flares
	CHECK(fabs(after - hanging) < 0.1 * hanging);
	CHECK(b.lo[1] > 0.3);  // it hangs from the waist, not on the floor
	pbd_world_destroy(r.w);
	return 0;
}

// flag: in the 8 m/s wind the 1.5 m flag flies out from the pole (+x, downwind) instead of
// hanging down it.
static int flag_flies_out(void)
{
	scene_run r;
	if (run_open(&r, "flag") || run_frames(&r, 120))
		return 1;
	double least_out = INFINITY, least_reach = INFINITY;
	for (int f = 0; f < 360; f += 10) {
		if (run_frames(&r, 10))
			return 1;
		cloth_box b = box_of(&r, 0);
		least_out = fmin(least_out, b.mean[0]);
		least_reach = fmin(least_reach, b.hi[0]);
	}
	fprintf(stderr, "flag: centroid at least %.3f m and far edge at least %.3f m out from the pole\n", least_out,
		least_reach);
	CHECK(least_out > 0.5);     // a limp flag's centroid stays within its height of the pole
	CHECK(least_reach > 1.0);
	pbd_world_destroy(r.w);
	return 0;
}

// A grab of the settled drape cloth dragged at 20 m/s to the sphere's centre and back, held,
// then let go: in every frame no vertex inside the sphere and no crossing; the grabbed vertex
// reaches the sphere's surface on the way in; the sheet's worst strain stays under 100% and is
// under 10% a second after the release. Three places: an overhanging edge, a corner, the top.
static int drape_grab_into_sphere(void)
{
	const float centre[3] = {0.0f, 0.45f, 0.0f}, radius = 0.35f, speed = 20.0f;
	const int grabbed[3] = {16, 0, 16 * 32 + 16};
	for (int g = 0; g < 3; ++g) {
		scene_run r;
		if (run_open(&r, "drape") || run_frames(&r, 180))
			return 1;
		pbd_cloth_id cloth = r.st.cloths[0];
		int n = 0, nt = 0;
		const float *x = pbd_cloth_positions(r.w, cloth, &n);
		const uint32_t *tri = pbd_cloth_indices(r.w, cloth, &nt);
		float start[3] = {x[3 * grabbed[g]], x[3 * grabbed[g] + 1], x[3 * grabbed[g] + 2]};
		pbd_grab_def gd = pbd_grab_def_default();
		gd.cloth = cloth;
		gd.vertex = grabbed[g];
		pbd_attachment_id grab;
		CHECK_OK(pbd_grab_begin(r.w, &gd, &grab));
		float way = sqrtf((centre[0] - start[0]) * (centre[0] - start[0]) + (centre[1] - start[1]) * (centre[1] - start[1]) +
				  (centre[2] - start[2]) * (centre[2] - start[2]));
		int legs = (int)ceilf(way / (speed * kDt)), release = 2 * legs + 30;
		float worst = 0.0f, closest = INFINITY, after = 0.0f;
		for (int f = 0; f < release + 60; ++f) {
			float t = f < legs ? (float)(f + 1) / (float)legs : f < 2 * legs ? 1.0f - (float)(f + 1 - legs) / (float)legs : 0.0f;
			float target[3];
			for (int k = 0; k < 3; ++k)
				target[k] = start[k] + t * (centre[k] - start[k]);
			if (f < release)
				CHECK_OK(pbd_grab_move(r.w, grab, target));
			else if (f == release)
				CHECK_OK(pbd_grab_end(r.w, grab));
			CHECK_OK(demo_scene_step(r.scene, r.w, &r.st, kDt));
			x = pbd_cloth_positions(r.w, cloth, &n);
			for (int i = 0; i < n; ++i) {
				double d = sqrt((x[3 * i] - centre[0]) * (double)(x[3 * i] - centre[0]) +
						(x[3 * i + 1] - centre[1]) * (double)(x[3 * i + 1] - centre[1]) +
						(x[3 * i + 2] - centre[2]) * (double)(x[3 * i + 2] - centre[2]));
				if (d < radius) {
					fprintf(stderr, "grab %d frame %d: vertex %d %.4f m from the centre\n", grabbed[g], f, i, d);
					return 1;
				}
				if (i == grabbed[g] && f < 2 * legs)
					closest = fminf(closest, (float)d);
			}
			check_mesh m = {x, tri, nt};
			CHECK(check_count_intersections(&m, 1) == 0);
			float strain = pbd_world_get_stats(r.w).max_stretch_error;
			worst = fmaxf(worst, strain);
			after = strain;
		}
		fprintf(stderr, "  grab of vertex %d: closest %.3f m from the centre (radius %.2f), worst strain %.1f%%, "
				"%.1f%% a second after the release\n", grabbed[g], closest, radius, 100.0 * worst, 100.0 * after);
		CHECK(closest < radius + 0.05f);
		CHECK(worst < 1.0f);
		CHECK(after < 0.10f);
		pbd_world_destroy(r.w);
	}
	return 0;
}

// A grab of the drape cloth yanked off sideways and down past the sphere in two jumps of the
// cursor, as a fast mouse drag in the viewer does (the targets are those of such a drag; the
// viewer runs up to four steps per drawn frame). The guard once stopped vertices that slid
// around the sphere on the chord of their motion, 6 mm inside it: no vertex may be inside the
// sphere in any step, and none closer than the cloth's half thickness, which the collider
// contacts keep.
static int drape_yank_past_sphere(void)
{
	const float centre[3] = {0.0f, 0.45f, 0.0f}, radius = 0.35f, half_thickness = 0.005f;
	const float target[3][3] = {{0.26605165f, 0.64747107f, 0.146288395f},
				    {0.302966535f, 0.508618116f, 0.210226655f},
				    {0.498615146f, -0.22730279f, 0.549098492f}};
	scene_run r;
	if (run_open(&r, "drape") || run_frames(&r, 100))
		return 1;
	pbd_cloth_id cloth = r.st.cloths[0];
	pbd_grab_def gd = pbd_grab_def_default();
	gd.cloth = cloth;
	gd.vertex = 629;
	pbd_attachment_id grab;
	CHECK_OK(pbd_grab_begin(r.w, &gd, &grab));
	double closest = INFINITY;
	int64_t caught = 0;
	for (int f = 0; f < 60; ++f) {
		CHECK_OK(pbd_grab_move(r.w, grab, target[f / 4 < 2 ? f / 4 : 2]));
		CHECK_OK(demo_scene_step(r.scene, r.w, &r.st, kDt));
		caught += pbd_world_get_stats(r.w).ccd_hits;
		int n = 0;
		const float *x = pbd_cloth_positions(r.w, cloth, &n);
		for (int i = 0; i < n; ++i) {
			double d = sqrt((x[3 * i] - centre[0]) * (double)(x[3 * i] - centre[0]) +
					(x[3 * i + 1] - centre[1]) * (double)(x[3 * i + 1] - centre[1]) +
					(x[3 * i + 2] - centre[2]) * (double)(x[3 * i + 2] - centre[2])) -
				   radius;
			closest = fmin(closest, d);
		}
	}
	fprintf(stderr, "yanked drape: closest vertex %.5f m outside the sphere; the guard caught %lld crossings\n",
		closest, (long long)caught);
	CHECK(caught > 0);  // the guard was at work, as in the viewer's drag
	CHECK(closest > 0.0);
	CHECK(closest > 0.9 * half_thickness);
	pbd_world_destroy(r.w);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		TEST(hang_hangs_from_its_pins), TEST(drop_lies_flat),         TEST(incline_cloth_stays),
		TEST(drape_rests_on_sphere),    TEST(fold_lies_in_folds),     SLOW_TEST(twist_wrings_two_turns),
		SLOW_TEST(stack_lies_in_layers),     SLOW_TEST(cape_flies_behind),      TEST(tablecloth_covers_table),
		SLOW_TEST(skirt_flares_and_falls_back), TEST(flag_flies_out), SLOW_TEST(drape_grab_into_sphere), TEST(drape_yank_past_sphere),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
