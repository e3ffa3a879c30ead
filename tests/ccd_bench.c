// SPDX-License-Identifier: MIT
// pbd-ccd-bench: runs CCD query files with ground truth (format of shared/ccd-queries: 8 rows
// per query, `xn,xd,yn,yd,zn,zd,gt`) through the engine's narrow phase and reports misses,
// false alarms and time per query.
//
//   pbd-ccd-bench [--vf FILE]... [--ee FILE]... [--method refined|additive|inclusion]
//                 [--min-distance D]
//
// One line per file, then `queries=N collisions=N false_negatives=N false_positives=N
// us_per_query=X` over all files. Exit 0 on success, 2 on a bad argument or malformed file.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../collision/collision.h"

enum { ROWS_PER_QUERY = 8 };

typedef enum method { METHOD_REFINED, METHOD_ADDITIVE, METHOD_INCLUSION } method;

typedef struct query {
	pbd_d3 x0[4], x1[4];
	int truth;
} query;

typedef struct query_file {
	const char *path;
	bool edge_edge;
	query *queries;
	int count;
} query_file;

typedef struct tally {
	long queries, collisions, false_negatives, false_positives;
	double *us;  // time of each query
} tally;

// Parses a decimal integer field exactly as written (optional sign, digits) into a double.
static bool parse_integer(const char *s, const char *end, double *out)
{
	const char *c = s;
	if (c < end && (*c == '-' || *c == '+'))
		++c;
	if (c == end)
		return false;
	for (const char *d = c; d < end; ++d)
		if (*d < '0' || *d > '9')
			return false;
	char buf[128];
	size_t n = (size_t)(end - s);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, NULL);
	return errno == 0 || errno == ERANGE ? isfinite(*out) : false;
}

// One row: 7 integer fields. Returns an error text or NULL.
static const char *parse_row(char *line, pbd_d3 *point, int *truth)
{
	double f[7];
	char *c = line;
	for (int k = 0; k < 7; ++k) {
		char *end = strchr(c, ',');
		if (k < 6 && !end)
			return "expected 7 comma-separated integers (xn,xd,yn,yd,zn,zd,gt)";
		if (k == 6) {
			if (end)
				return "more than 7 fields";
			end = c + strlen(c);
		}
		if (!parse_integer(c, end, &f[k]))
			return "field is not an integer";
		c = end + 1;
	}
	for (int k = 1; k < 6; k += 2)
		if (f[k] <= 0.0)
			return "denominator must be positive";
	if (f[6] != 0.0 && f[6] != 1.0)
		return "ground truth must be 0 or 1";
	*point = d3(f[0] / f[1], f[2] / f[3], f[4] / f[5]);
	if (!isfinite(point->x) || !isfinite(point->y) || !isfinite(point->z))
		return "coordinate is not finite";
	*truth = (int)f[6];
	return NULL;
}

static bool fail(const char *path, long line, const char *what)
{
	if (line > 0)
		fprintf(stderr, "pbd-ccd-bench: %s:%ld: %s\n", path, line, what);
	else
		fprintf(stderr, "pbd-ccd-bench: %s: %s\n", path, what);
	return false;
}

static bool push_row(query_file *qf, int *capacity, long row, pbd_d3 point, int truth, const char **error)
{
	int qi = (int)(row / ROWS_PER_QUERY), r = (int)(row % ROWS_PER_QUERY);
	if (qi >= *capacity) {
		int cap = *capacity ? 2 * *capacity : 256;
		query *grown = realloc(qf->queries, (size_t)cap * sizeof *grown);
		if (!grown) {
			*error = "out of memory";
			return false;
		}
		qf->queries = grown;
		*capacity = cap;
	}
	query *q = &qf->queries[qi];
	if (r == 0)
		q->truth = truth;
	else if (q->truth != truth) {
		*error = "ground truth differs between the rows of one query";
		return false;
	}
	if (r < 4)
		q->x0[r] = point;
	else
		q->x1[r - 4] = point;
	qf->count = qi + 1;
	return true;
}

static bool read_queries(query_file *qf)
{
	FILE *f = fopen(qf->path, "r");
	if (!f) {
		char what[160];
		snprintf(what, sizeof what, "cannot open (%s)", strerror(errno));
		return fail(qf->path, 0, what);
	}
	int capacity = 0;
	long row = 0, line_no = 0;
	char *line = NULL;
	size_t line_cap = 0;
	bool ok = true;
	while (ok && getline(&line, &line_cap, f) != -1) {
		++line_no;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		pbd_d3 point;
		int truth;
		const char *error = parse_row(line, &point, &truth);
		if (!error)
			push_row(qf, &capacity, row, point, truth, &error);
		if (error)
			ok = fail(qf->path, line_no, error);
		++row;
	}
	free(line);
	if (ok && ferror(f))
		ok = fail(qf->path, 0, "read error");
	fclose(f);
	if (ok && row == 0)
		ok = fail(qf->path, 0, "no queries");
	if (ok && row % ROWS_PER_QUERY != 0) {
		char what[120];
		snprintf(what, sizeof what, "%ld rows, not a multiple of %d (truncated query)", row, ROWS_PER_QUERY);
		ok = fail(qf->path, 0, what);
	}
	return ok;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static bool run_query(method m, const query *q, bool edge_edge, double min_distance)
{
	double toi;
	switch (m) {
	case METHOD_ADDITIVE:
		return edge_edge ? pbd_ccd_edge_edge(q->x0, q->x1, min_distance, &toi)
				 : pbd_ccd_vertex_triangle(q->x0, q->x1, min_distance, &toi);
	case METHOD_INCLUSION:
		return pbd_ccd_inclusion(q->x0, q->x1, edge_edge, min_distance, PBD_CCD_TOLERANCE, PBD_CCD_BOX_BUDGET,
					 &toi);
	default:
		return pbd_ccd_refined(q->x0, q->x1, edge_edge, min_distance, &toi);
	}
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void print_times(double *us, long n)
{
	if (n == 0)
		return;
	double sum = 0.0;
	for (long i = 0; i < n; ++i)
		sum += us[i];
	qsort(us, (size_t)n, sizeof *us, compare_double);
	long p99 = (long)(0.99 * (double)(n - 1) + 0.5);
	printf(" us_median=%.3f us_p99=%.3f us_max=%.3f us_per_query=%.3f", us[(n - 1) / 2], us[p99], us[n - 1],
	       sum / (double)n);
}

static void run_file(const query_file *qf, method m, double min_distance, tally *all)
{
	tally t = {0};
	t.us = malloc((size_t)(qf->count ? qf->count : 1) * sizeof *t.us);
	for (int i = 0; i < qf->count; ++i) {
		const query *q = &qf->queries[i];
		double start = now_us();
		bool hit = run_query(m, q, qf->edge_edge, min_distance);
		double us = now_us() - start;
		t.us[i] = us;
		all->us[all->queries + i] = us;
		t.collisions += hit;
		t.false_negatives += q->truth && !hit;
		t.false_positives += !q->truth && hit;
	}
	t.queries = qf->count;
	printf("file=%s kind=%s queries=%ld collisions=%ld false_negatives=%ld false_positives=%ld", qf->path,
	       qf->edge_edge ? "ee" : "vf", t.queries, t.collisions, t.false_negatives, t.false_positives);
	print_times(t.us, t.queries);
	printf("\n");
	free(t.us);
	all->queries += t.queries;
	all->collisions += t.collisions;
	all->false_negatives += t.false_negatives;
	all->false_positives += t.false_positives;
}

static int usage(const char *why)
{
	fprintf(stderr,
		"pbd-ccd-bench: %s\n"
		"usage: pbd-ccd-bench [--vf FILE]... [--ee FILE]... [--method refined|additive|inclusion]"
		" [--min-distance D]\n",
		why);
	return 2;
}

static void free_files(query_file *files, int count)
{
	for (int i = 0; i < count; ++i)
		free(files[i].queries);
	free(files);
}

// Parses the arguments, reads every file, runs them; files are freed by the caller.
static int run(int argc, char **argv, query_file *files, int *file_count_out)
{
	int file_count = 0;
	method m = METHOD_REFINED;
	double min_distance = 0.0;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		bool has_value = i + 1 < argc;
		if ((!strcmp(a, "--vf") || !strcmp(a, "--ee")) && has_value) {
			files[file_count].path = argv[++i];
			files[file_count++].edge_edge = !strcmp(a, "--ee");
			*file_count_out = file_count;
		} else if (!strcmp(a, "--method") && has_value) {
			const char *v = argv[++i];
			if (!strcmp(v, "refined"))
				m = METHOD_REFINED;
			else if (!strcmp(v, "additive"))
				m = METHOD_ADDITIVE;
			else if (!strcmp(v, "inclusion"))
				m = METHOD_INCLUSION;
			else
				return usage("unknown --method (refined, additive, inclusion)");
		} else if (!strcmp(a, "--min-distance") && has_value) {
			char *end;
			min_distance = strtod(argv[++i], &end);
			if (*end || !(min_distance >= 0.0) || !isfinite(min_distance))
				return usage("--min-distance needs a finite number >= 0");
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: pbd-ccd-bench [--vf FILE]... [--ee FILE]... [--method refined|additive|inclusion]"
			       " [--min-distance D]\n");
			return 0;
		} else {
			char why[256];
			snprintf(why, sizeof why, "bad argument '%s'", a);
			return usage(why);
		}
	}
	if (file_count == 0)
		return usage("no query files (give --vf FILE or --ee FILE)");
	long total = 0;
	for (int i = 0; i < file_count; ++i) {
		if (!read_queries(&files[i]))
			return 2;
		total += files[i].count;
	}
	tally all = {0};
	all.us = malloc((size_t)total * sizeof *all.us);
	for (int i = 0; i < file_count; ++i)
		run_file(&files[i], m, min_distance, &all);
	double sum = 0.0;
	for (long i = 0; i < all.queries; ++i)
		sum += all.us[i];
	printf("queries=%ld collisions=%ld false_negatives=%ld false_positives=%ld us_per_query=%.3f\n", all.queries,
	       all.collisions, all.false_negatives, all.false_positives, sum / (double)all.queries);
	free(all.us);
	return 0;
}

int main(int argc, char **argv)
{
	query_file *files = calloc((size_t)argc, sizeof *files);
	if (!files)
		return 2;
	int file_count = 0;
	int code = run(argc, argv, files, &file_count);
	free_files(files, file_count);
	return code;
}
