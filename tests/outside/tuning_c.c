// SPDX-License-Identifier: MIT
// Builds a hanging cloth from a tuning either way a game could: from the C code the tools
// print (compiled in with -DTUNING_SNIPPET="file"), or from the tuning file through the
// pbd_tuning helper; steps 120 frames and prints a hash of the positions. The two builds of
// this program must print the same hash.
// usage: tuning_c [FILE.ini]
#include <stdio.h>
#include <string.h>

#include <pbd/pbd.h>

#ifndef TUNING_SNIPPET
#include "pbd_tuning.h"
#endif

int main(int argc, char **argv)
{
#ifdef TUNING_SNIPPET
	(void)argc;
	(void)argv;
#include TUNING_SNIPPET
#else
	if (argc < 2)
		return 2;
	pbd_tuning tuning = pbd_tuning_default();
	char error[512];
	if (pbd_tuning_load(argv[1], &tuning, error, sizeof error) != 0) {
		fprintf(stderr, "%s\n", error);
		return 2;
	}
	pbd_world_def world_def = pbd_world_def_default();
	pbd_cloth_def cloth_def = pbd_cloth_def_default();
	pbd_tuning_to_defs(&tuning, &world_def, &cloth_def);
#endif
	cloth_def.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	cloth_def.rotation[0] = 0.70710678f;  // hanging: a quarter turn about x
	cloth_def.rotation[3] = 0.70710678f;
	cloth_def.position[1] = 1.5f;
	pbd_world *world;
	pbd_cloth_id cloth;
	pbd_collider_id floor;
	pbd_collider_def floor_def = pbd_collider_def_default();
	if (pbd_world_create(&world_def, &world) != PBD_OK || pbd_cloth_create(world, &cloth_def, &cloth) != PBD_OK ||
	    pbd_collider_create(world, &floor_def, &floor) != PBD_OK)
		return 1;
	for (int f = 0; f < 120; ++f)
		pbd_world_step(world, 1.0f / 60.0f);
	int n = 0;
	const unsigned char *bytes = (const unsigned char *)pbd_cloth_positions(world, cloth, &n);
	unsigned long long h = 1469598103934665603ull;
	for (size_t i = 0; i < (size_t)n * 3 * sizeof(float); ++i)
		h = (h ^ bytes[i]) * 1099511628211ull;
	printf("%d vertices, positions hash %016llx\n", n, h);
	pbd_world_destroy(world);
	return 0;
}
