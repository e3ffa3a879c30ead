// SPDX-License-Identifier: MIT
// pbd_tuning: an optional helper, outside the engine library, that carries a cloth tuning
// from the viewer into a game: material presets, INI files (read with libinih) and the
// equivalent C code. Link libpbd_tuning (and libinih) next to libpbd.
#ifndef PBD_TUNING_H
#define PBD_TUNING_H

#include <stddef.h>
#include <stdio.h>

#include <pbd/pbd.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Everything the viewer's keys tune, for one cloth and its world.
typedef struct pbd_tuning {
	char material_name[32];        ///< the preset it started from ("" if none)
	float areal_density;           ///< kg/m^2, > 0
	pbd_cloth_material material;   ///< compliances, damping, friction, thickness, tethers, self-collision
	pbd_world_settings world;      ///< substeps, iterations, gravity, wind, air
} pbd_tuning;

/// The engine's defaults (material "", 0.2 kg/m^2).
pbd_tuning pbd_tuning_default(void);

/// Material presets: "silk", "cotton", "denim", "leather", "rubber". Where the values come
/// from is written next to them in pbd_tuning.c.
int pbd_tuning_preset_count(void);
/// Name of preset i, or NULL.
const char *pbd_tuning_preset_name(int index);
/// The stretch the preset stays within hanging from two corners (hang) or draped over a
/// sphere (drape): the 99th percentile over the cloth's edges of the elongation (L - L0) / L0,
/// at every frame. (A few edges pinched in tight folds can stretch further.) The presets test
/// holds every preset to it.
float pbd_tuning_preset_strain_limit(int index);
/// Sets the material part of *tuning (density, material, name) to a preset; the world part
/// is left alone. Returns 0, or -1 for an unknown name (tuning unchanged).
int pbd_tuning_apply_preset(pbd_tuning *tuning, const char *name);

/// Reads an INI file over *tuning: keys it names replace the values, others stay. Unknown
/// sections or keys, values that are not numbers, and out-of-range values are errors
/// ("FILE:LINE: ..." in `error`); on error *tuning is unchanged. Returns 0 or -1.
int pbd_tuning_load(const char *path, pbd_tuning *tuning, char *error, size_t error_capacity);
/// Writes every value, floats with nine significant digits (they read back bit for bit, and
/// load then save gives the same file). Returns 0 or -1.
int pbd_tuning_save(const char *path, const pbd_tuning *tuning, char *error, size_t error_capacity);
/// Writes the same values as C statements on a pbd_world_def `world_def` and a
/// pbd_cloth_def `cloth_def` (declared and defaulted first by the code), to paste into a game.
int pbd_tuning_write_c(FILE *out, const pbd_tuning *tuning);

/// Puts the tuning into defs before creation.
void pbd_tuning_to_defs(const pbd_tuning *tuning, pbd_world_def *world_def, pbd_cloth_def *cloth_def);
/// Applies the tuning to a live world and cloth (settings, material, density).
pbd_result pbd_tuning_apply(const pbd_tuning *tuning, pbd_world *world, pbd_cloth_id cloth);
/// Reads a live world and cloth back into a tuning (material_name is left as it was).
pbd_result pbd_tuning_read(pbd_tuning *tuning, const pbd_world *world, pbd_cloth_id cloth);

#ifdef __cplusplus
}
#endif

#endif
