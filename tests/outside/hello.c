// SPDX-License-Identifier: MIT
// An outside program: built against an installed pbd with `pkg-config --cflags --libs pbd`
// alone. A 16 x 16 cloth pinned at two corners swings for two seconds above a floor; it
// prints what it saw, and the install test compares that with what it must be.
#include <math.h>
#include <stdio.h>

#include <pbd/pbd.h>

int main(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_world *world = NULL;
	if (pbd_world_create(&wd, &world) != PBD_OK)
		return 1;
	pbd_collider_def floor = pbd_collider_def_default();
	pbd_collider_id floor_id;
	pbd_cloth_def cd = pbd_cloth_def_default();
	cd.grid.res_x = cd.grid.res_y = 16;
	cd.grid.pins = PBD_PIN_CORNER_00 | PBD_PIN_CORNER_10;
	cd.position[1] = 1.5f;
	pbd_cloth_id cloth;
	if (pbd_collider_create(world, &floor, &floor_id) != PBD_OK || pbd_cloth_create(world, &cd, &cloth) != PBD_OK) {
		fprintf(stderr, "%s\n", pbd_world_last_error(world));
		return 1;
	}
	for (int frame = 0; frame < 120; ++frame)
		if (pbd_world_step(world, 1.0f / 60.0f) != PBD_OK)
			return 1;
	int n = 0;
	const float *xyz = pbd_cloth_positions(world, cloth, &n);
	float lowest = xyz[1], pin_y = xyz[1];
	int finite = 1;
	for (int i = 0; i < n; ++i) {
		finite &= isfinite(xyz[3 * i]) && isfinite(xyz[3 * i + 1]) && isfinite(xyz[3 * i + 2]);
		lowest = xyz[3 * i + 1] < lowest ? xyz[3 * i + 1] : lowest;
	}
	// A bad call is an error code and a message, never a crash.
	pbd_result bad = pbd_world_step(world, -1.0f);
	printf("vertices=%d steps=%lld finite=%d pin_y=%.4f lowest=%.3f bad_dt=%s\n", n,
	       (long long)pbd_world_get_stats(world).steps, finite, pin_y, lowest, pbd_result_string(bad));
	pbd_world_destroy(world);
	return 0;
}
