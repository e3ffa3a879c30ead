// SPDX-License-Identifier: MIT
// Fast colliders against the no-crossing promise: pbd-bench's capsule swept through a
// 48 x 48 curtain pinned along its top (demos/bench/fast_colliders.c), every frame checked by
// the independent intersection check (intersect_check.h).
//  - at walking and running pace (3 and 10 m/s) with the default substeps, what a person
//    sees: the capsule pushes through
//    and comes back, the curtain never crosses itself, the capsule never ends up inside it,
//    no edge stretches past 200%, and a second after the capsule stops the curtain hangs again
//    (edges within 15% of their length);
//  - at 3, 10 and 50 m/s with one substep: no frame with a crossing (at 3 m/s a collapsing
//    pair of triangles once crept together over many substeps until rounding crossed it), and
//    at 10 m/s the curtain is not torn into slivers: the steps after the hit take what the
//    flung curtain's motion asks, and no edge stretches past 200% (it reached 251% when the
//    count fell back to one substep half a second after the hit). The other runs' strain is
//    still above the bench's targets.
#include "test.h"

#include "fast_colliders.h"

// The bench's figure printer, for fast_colliders.c: here to stderr.
void bench_print_target(const char *what, double measured, const char *unit, const char *op, double limit,
			const char *note)
{
	fprintf(stderr, "  %s %.3f %s (target %s %g) %s\n", what, measured, unit, op, limit, note ? note : "");
}

static const double kBudgetSeconds = 600.0;  // a run never stops short in a test

static int report(const char *name, const capsule_sweep_result *r)
{
	fprintf(stderr,
		"%s: %d frames, %d with crossings, %d with cloth inside; worst strain %.1f%%, %.1f%% 1 s after "
		"it stops; fastest vertex %.2f m/s\n",
		name, r->frames, r->crossing_frames, r->inside_frames, 100.0 * r->worst_strain, 100.0 * r->settled_strain,
		r->fastest_vertex);
	CHECK(!r->failed && !r->partial && r->frames > 0);
	return 0;
}

// The capsule lying across, at `speed` with 10 substeps (the default): it pushes through and
// comes back, the curtain never crosses itself, the capsule never ends up inside it, no edge
// stretches past 200%, and a second after the capsule stops the curtain hangs again.
static int capsule_across_keeps_the_curtain(float speed, const char *name)
{
	capsule_sweep_result r;
	fast_capsule_sweep(true, speed, 10, kBudgetSeconds, &r);
	if (report(name, &r))
		return 1;
	CHECK(r.crossing_frames == 0);
	CHECK(r.inside_frames == 0);
	CHECK(r.worst_strain <= 2.0);
	CHECK(r.settled_seen && r.settled_strain <= 0.15);
	return 0;
}

static int capsule_at_walking_pace(void) { return capsule_across_keeps_the_curtain(3.0f, "across, 3 m/s, 10 substeps"); }

static int capsule_sweeps_one_substep_never_cross(void)
{
	const struct {
		bool across;
		float speed;
	} runs[] = {{true, 3.0f}, {true, 10.0f}, {false, 50.0f}};
	for (int i = 0; i < 3; ++i) {
		capsule_sweep_result r;
		fast_capsule_sweep(runs[i].across, runs[i].speed, 1, kBudgetSeconds, &r);
		char name[64];
		snprintf(name, sizeof name, "%s, %g m/s, 1 substep", runs[i].across ? "across" : "upright",
			 (double)runs[i].speed);
		if (report(name, &r))
			return 1;
		CHECK(r.crossing_frames == 0);
		if (runs[i].across && runs[i].speed == 10.0f)
			CHECK(r.worst_strain <= 2.0);
	}
	return 0;
}

// At 10 m/s the capsule travels 1.7 cm a substep, most of one of the curtain's 2.1 cm edges, so
// the step takes more substeps while it is near (settings.max_substeps) and a person sees
// what walking pace gives. With max_substeps at 0 the capsule dragged the vertices it touched
// along, stretched edges 2,500% and sat inside the curtain for 93 frames.
static int capsule_at_running_pace(void)
{
	return capsule_across_keeps_the_curtain(10.0f, "across, 10 m/s, 10 substeps");
}

// A 64 x 64 cloth dropped across the ridge of a box turned 45 degrees, with the default
// substeps: what a person sees is the cloth folded over the ridge, both halves hanging down its
// sides; no frame has a crossing, and in no frame does a box edge come within the cloth's
// thickness of its mid-surface (boxes keep triangles and edges off, not only vertices).
static int cloth_folds_over_a_ridge(void)
{
	ridge_drop_result r;
	fast_ridge_drop(10, kBudgetSeconds, &r);
	fprintf(stderr,
		"ridge, 10 substeps: %d frames, %d with crossings, %d with a box edge within the cloth; lowest "
		"vertex at %.3f m, the halves hang %.3f and %.3f m below the ridge\n",
		r.frames, r.crossing_frames, r.inside_frames, r.lowest_y, r.hang_left, r.hang_right);
	CHECK(!r.failed && !r.partial && r.frames == 120);
	CHECK(r.crossing_frames == 0);
	CHECK(r.inside_frames == 0);
	// Each half hangs well down its side (0.5 m of cloth each side of a ridge 0.51 m high):
	// neither slid off, neither rests flat above the ridge.
	CHECK(r.hang_left > 0.25 && r.hang_right > 0.25);
	CHECK(fabs(r.hang_left - r.hang_right) < 0.1);
	return 0;
}

int main(int argc, char **argv)
{
	static const test_case cases[] = {
		SLOW_TEST(capsule_at_walking_pace),
		SLOW_TEST(capsule_sweeps_one_substep_never_cross),
		SLOW_TEST(capsule_at_running_pace),
		SLOW_TEST(cloth_folds_over_a_ridge),
	};
	return test_main(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
