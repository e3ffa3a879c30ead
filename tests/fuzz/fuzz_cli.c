// SPDX-License-Identifier: MIT
// pbd-sim's command line and its --set key=value / --material options: the input is split
// at newlines and NUL bytes into arguments. Arguments parse or are refused; every accepted
// --set and --material is applied to a small world, which must accept it or refuse it with
// a message, and keep stepping with finite positions. (--help prints and exits by design:
// it is left out.)
#define main pbd_sim_main
#include "../../demos/sim/pbd_sim.c"
#undef main

#include "fuzz_util.h"

enum { MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *argv[MAX_ARGS + 1] = {"pbd-sim"};
	int argc = 1;
	for (size_t i = 0, start = 0; i <= size && argc < MAX_ARGS; ++i) {
		if (i == size || text[i] == '\n' || text[i] == '\0') {
			text[i] = '\0';
			if (strcmp(text + start, "--help") != 0 && strcmp(text + start, "-h") != 0)
				argv[argc++] = text + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	sim_options o;
	if (parse_args(argc, argv, &o)) {
		const demo_scene *scene = demo_scene_find("hang");
		demo_scene_options so = {4, NULL, NULL, 0};
		pbd_world *w = NULL;
		demo_scene_state s;
		char error[512];
		if (demo_scene_load(scene, &so, NULL, &w, &s, error, sizeof error) == PBD_OK) {
			if (o.common.material && demo_apply_preset(w, &s, o.common.material, error, sizeof error) != PBD_OK)
				FUZZ_REQUIRE(error[0] != '\0', "preset refused without a message");
			for (int k = 0; k < o.set_count; ++k) {
				error[0] = '\0';
				if (demo_param_apply(w, &s, o.sets[k], error, sizeof error) != PBD_OK)
					FUZZ_REQUIRE(error[0] != '\0', "--set %s refused without a message", o.sets[k]);
			}
			// Accepted values may be extreme (1000 substeps): one short step.
			FUZZ_REQUIRE(pbd_world_step(w, 1.0f / 600.0f) == PBD_OK, "step failed: %s",
				     pbd_world_last_error(w));
			int n = 0;
			const float *x = pbd_cloth_positions(w, s.cloths[0], &n);
			for (int i = 0; i < 3 * n; ++i)
				FUZZ_REQUIRE(isfinite(x[i]), "position not finite after the options");
			pbd_world_destroy(w);
		}
	}
	free(text);
	return 0;
}
