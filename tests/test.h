// SPDX-License-Identifier: MIT
// A small test harness: each test is `int name(void)` returning 0 on success; a test binary
// runs the case named on its command line (meson registers each case on its own) or all.
#pragma once

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <pbd/pbd.h>

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			return 1;                                                            \
		}                                                                            \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                          \
	do {                                                                                           \
		double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                          \
		if (!(fabs(a_ - b_) <= t_)) {                                                          \
			fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g, |diff| %.3g > %.3g\n", \
				__FILE__, __LINE__, #a, a_, #b, b_, fabs(a_ - b_), t_);                \
			return 1;                                                                      \
		}                                                                                      \
	} while (0)

#define CHECK_OK(expr)                                                                                   \
	do {                                                                                             \
		pbd_result r_ = (expr);                                                                  \
		if (r_ != PBD_OK) {                                                                      \
			fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #expr, (int)r_, \
				pbd_result_string(r_));                                                  \
			return 1;                                                                        \
		}                                                                                        \
	} while (0)

typedef struct test_case {
	const char *name;
	int (*run)(void);
} test_case;

// One row of a program's table of cases. tests/meson.build reads these tables, so a case is
// registered here and nowhere else; the macro it is written with picks its suites:
//   TEST       the quick suites of both builds (and valgrind's, for the programs listed there);
//   SLOW_TEST  the quick suite of the plain build; the deep suite under the sanitizers, which
//              run it several times slower;
//   DEEP_TEST  the deep suite of both builds (`meson test --suite deep`).
#define TEST(name) {#name, name}
#define SLOW_TEST(name) TEST(name)
#define DEEP_TEST(name) TEST(name)

static inline int test_main(int argc, char **argv, const test_case *cases, int count)
{
	int failed = 0, ran = 0;
	for (int i = 0; i < count; ++i) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		ran++;
		int r = cases[i].run();
		printf("%s %s\n", r ? "FAIL" : "ok  ", cases[i].name);
		failed += r != 0;
	}
	if (ran == 0) {
		fprintf(stderr, "no test named '%s'\n", argc > 1 ? argv[1] : "");
		return 1;
	}
	return failed ? 1 : 0;
}

// A world with default settings but no air, for analytic answers.
static inline pbd_world *test_world_vacuum(void)
{
	pbd_world_def d = pbd_world_def_default();
	d.settings.air_density = 0.0f;
	pbd_world *w = NULL;
	return pbd_world_create(&d, &w) == PBD_OK ? w : NULL;
}
