// SPDX-License-Identifier: MIT
// The flags pbd-sim and pbd-viewer share: one parser, one help text, one wording of errors.
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pbd_tuning.h"
#include "tools.h"

int demo_parse_long(const char *tool, const char *flag, const char *text, long lo, long hi, long *out)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (!text[0] || *end || errno == ERANGE || v < lo || v > hi) {
		fprintf(stderr, "%s: %s needs a whole number in %ld..%ld, got '%s'\n", tool, flag, lo, hi, text);
		return 0;
	}
	*out = v;
	return 1;
}

int demo_flag_has_value(const char *tool, const char *flag, const char *value)
{
	if (!value)
		fprintf(stderr, "%s: %s needs a value (try --help)\n", tool, flag);
	return value != NULL;
}

// Where a flag's text value goes (NULL: a number or a switch, read below).
static const char **text_slot(demo_flags *f, const char *flag)
{
	static const struct {
		const char *flag;
		size_t offset;
	} texts[] = {
		{"--scene", offsetof(demo_flags, scene)},         {"--cloth", offsetof(demo_flags, cloth)},
		{"--pin", offsetof(demo_flags, pins)},            {"--material", offsetof(demo_flags, material)},
		{"--params", offsetof(demo_flags, params)},       {"--save-params", offsetof(demo_flags, save_params)},
	};
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; ++k)
		if (strcmp(flag, texts[k].flag) == 0)
			return (const char **)((char *)f + texts[k].offset);
	return NULL;
}

demo_flag_result demo_flags_parse(demo_flags *f, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (strcmp(a, "--sphere") == 0) {
		f->sphere = 1;
		return DEMO_FLAG_TAKEN;
	}
	const char **text = text_slot(f, a);
	bool number = strcmp(a, "--frames") == 0 || strcmp(a, "--res") == 0 || strcmp(a, "--threads") == 0;
	if (!text && !number)
		return DEMO_FLAG_OTHER;
	if (!demo_flag_has_value(f->tool, a, v))
		return DEMO_FLAG_BAD;
	++*i;
	if (text) {
		*text = v;
		return DEMO_FLAG_TAKEN;
	}
	long n = 0;
	if (strcmp(a, "--frames") == 0) {
		if (!demo_parse_long(f->tool, a, v, 0, 100000000, &n))
			return DEMO_FLAG_BAD;
		f->frames = n;
	} else if (strcmp(a, "--res") == 0) {
		if (!demo_parse_long(f->tool, a, v, 2, 4096, &n))
			return DEMO_FLAG_BAD;
		f->res = (int)n;
	} else {
		if (!demo_parse_long(f->tool, a, v, 1, 64, &n))
			return DEMO_FLAG_BAD;
		f->threads = (int)n;
	}
	return DEMO_FLAG_TAKEN;
}

void demo_flags_help(FILE *out, int column)
{
	const char *lines[][2] = {
		{"--res N", "vertices per cloth side (default: the scene's)"},
		{"--threads N", "workers of the engine's task pool, 1..64 (default 1); results do not depend on it"},
		{"--cloth FILE", "your own cloth from an OBJ file over a floor (exact duplicate vertices are welded)"},
		{"--pin SPEC", "with --cloth: none (default), top, highest:N (percent of the height) or 0,15,31"},
		{"--sphere", "with --cloth: a sphere under the cloth"},
		{"--params FILE", "load a tuning file (INI, as the viewer's O key writes) onto the world and every cloth"},
	};
	for (size_t k = 0; k < sizeof lines / sizeof lines[0]; ++k)
		fprintf(out, "  %-*s%s\n", column - 2, lines[k][0], lines[k][1]);
	fprintf(out, "  %-*s%s", column - 2, "--material NAME", "a material preset for every cloth:");
	for (int k = 0; k < pbd_tuning_preset_count(); ++k)
		fprintf(out, " %s", pbd_tuning_preset_name(k));
	fprintf(out, "\n");
}
