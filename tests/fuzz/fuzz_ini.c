// SPDX-License-Identifier: MIT
// Tuning files (INI through libinih): a file loads into values the engine accepts, or is
// refused with a FILE:LINE message; a loaded tuning then round-trips through save and load.
#include <math.h>

#include "pbd_tuning.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], error[512] = "";
	int fd = fuzz_memfile(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	pbd_tuning t = pbd_tuning_default();
	if (pbd_tuning_load(path, &t, error, sizeof error) == 0) {
		// Accepted values must be accepted by the engine too.
		pbd_world_def wd;
		pbd_cloth_def cd = pbd_cloth_def_default();
		wd = pbd_world_def_default();
		pbd_tuning_to_defs(&t, &wd, &cd);
		cd.grid.res_x = cd.grid.res_y = 4;
		pbd_world *w = NULL;
		pbd_result r = pbd_world_create(&wd, &w);
		FUZZ_REQUIRE(r == PBD_OK, "loaded tuning refused by pbd_world_create (%d)", r);
		pbd_cloth_id id;
		r = pbd_cloth_create(w, &cd, &id);
		FUZZ_REQUIRE(r == PBD_OK, "loaded tuning refused by pbd_cloth_create: %s", pbd_world_last_error(w));
		pbd_world_destroy(w);
	} else {
		FUZZ_REQUIRE(error[0] != '\0', "refused without a message");
	}
	close(fd);
	return 0;
}
