// SPDX-License-Identifier: MIT
// The public header alone, compiled as C99, C11, C17 and C++ with warnings as errors.
#include <pbd/pbd.h>

int header_check(void);
int header_check(void)
{
	pbd_world_def wd = pbd_world_def_default();
	pbd_cloth_id none = {0, 0};
	return wd.settings.substeps + (int)none.index1 + (int)PBD_STAGE_COUNT;
}
