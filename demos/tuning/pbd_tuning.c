// SPDX-License-Identifier: MIT
// Material presets, tuning files (INI, read with libinih) and their C equivalent.
#include "pbd_tuning.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

pbd_tuning pbd_tuning_default(void)
{
	pbd_tuning t;
	memset(&t, 0, sizeof t);
	t.areal_density = pbd_cloth_def_default().areal_density;
	t.material = pbd_cloth_material_default();
	t.world = pbd_world_settings_default();
	return t;
}

// ---------------------------------------------------------------------------------------------
// Presets.
//
// Units as in pbd.h. How the numbers were chosen:
//  - areal density: typical fabric weights (silk charmeuse 60-90 g/m^2, cotton shirting
//    110-150 g/m^2, 12-14 oz denim 400-470 g/m^2, 1.2 mm garment leather at about
//    750 kg/m^3, a 1 mm natural rubber sheet at 1100 kg/m^3);
//  - bending: Kawabata (KES-FB2) bending rigidity B of such fabrics, in gf cm^2/cm: silk
//    about 0.02, cotton shirting about 0.1, denim about 1; garment leather 2-10; for the
//    rubber sheet E t^3 / 12 with E = 2 MPa, t = 1 mm. 1 gf cm^2/cm = 9.81e-5 N m, and the
//    compliance is 1 / B;
//  - stretch: a woven fabric's tensile curve is J-shaped: a soft start while the crimp of
//    the yarns straightens (a few hundred to a few thousand N/m over the first percent or
//    two), then the yarns themselves (about a hundred times stiffer). A single linear
//    compliance has to stand for the stiff part, or cloth sags like a net: 2e-5 m/N for silk
//    (50 kN/m), 5e-6 for cotton, 1e-6 for denim and 5e-7 for leather (E about 20 MPa over
//    1.2 mm is 24 kN/m at small strain, stiffening as its fibres align). Rubber has no
//    crimp: 2 MPa over 1 mm, 2000 N/m, compliance 5e-4. Wovens are far softer on the bias,
//    hence shear compliance ten times the stretch compliance; leather and rubber are nearly
//    isotropic (twice);
//  - friction: fabric on smooth hard surfaces, static and kinetic, from sliding tests of the
//    kind reported for apparel fabrics: silk low (0.25 / 0.2), cotton and denim middling,
//    leather a little higher, rubber high (1.0 / 0.8);
//  - damping: more internal friction in heavier, stiffer weaves; rubber is elastic;
//  - thickness: the collision thickness, which keeps a margin for robust self-contact at
//    demo resolutions (a few millimetres over the real 0.1-1.2 mm).
//  - tear strain: the edge strain at which the cloth tears. Fabrics break at roughly 15-25%
//    elongation (silk, cotton), 20-30% (denim), 40-60% (leather), 400-600% (rubber); an
//    edge of a coarse mesh stretches further than the fabric it stands for where it is
//    pinched or held (hang and drape keep the 99th percentile within strain_limit, a few
//    edges go past), so the presets tear at about twice the breaking elongation: a cloth
//    pulled hard tears, one that hangs or drapes does not.
//  - stretch limit: woven fabrics and leather stretch a few percent under the loads of use
//    (the soft start of the J-shaped curve above), so their edges are held within 5% each pass,
//    whatever one pass per substep leaves of a hard pull; rubber is meant to stretch (0: no
//    limit). A grab or a pin can still pull an edge past it, and so tear the cloth.
typedef struct preset {
	const char *name;
	float areal_density;
	float stretch_compliance, shear_compliance, bend_compliance;
	float damping, static_friction, kinetic_friction, thickness;
	float strain_limit;  // of the 99th-percentile edge elongation (pbd_tuning.h)
	float tear_strain;
	float stretch_limit;  // the engine's (pbd_cloth_material.stretch_limit)
} preset;

static const preset presets[] = {
	{"silk", 0.08f, 2e-5f, 2e-4f, 5e5f, 0.5f, 0.25f, 0.2f, 0.006f, 0.15f, 0.4f, 0.05f},
	{"cotton", 0.15f, 5e-6f, 5e-5f, 1e5f, 1.0f, 0.5f, 0.4f, 0.008f, 0.15f, 0.4f, 0.05f},
	{"denim", 0.42f, 1e-6f, 1e-5f, 1e4f, 1.5f, 0.6f, 0.5f, 0.010f, 0.15f, 0.5f, 0.05f},
	{"leather", 0.9f, 5e-7f, 1e-6f, 2e3f, 2.0f, 0.55f, 0.45f, 0.012f, 0.15f, 1.0f, 0.05f},
	{"rubber", 1.1f, 5e-4f, 1e-3f, 6e3f, 0.3f, 1.0f, 0.8f, 0.010f, 0.15f, 10.0f, 0.0f},
};

int pbd_tuning_preset_count(void) { return (int)(sizeof presets / sizeof presets[0]); }

const char *pbd_tuning_preset_name(int index)
{
	return index >= 0 && index < pbd_tuning_preset_count() ? presets[index].name : NULL;
}

float pbd_tuning_preset_strain_limit(int index)
{
	return index >= 0 && index < pbd_tuning_preset_count() ? presets[index].strain_limit : 0.0f;
}

int pbd_tuning_apply_preset(pbd_tuning *t, const char *name)
{
	for (int i = 0; name && i < pbd_tuning_preset_count(); ++i) {
		const preset *p = &presets[i];
		if (strcmp(p->name, name) != 0)
			continue;
		snprintf(t->material_name, sizeof t->material_name, "%s", p->name);
		t->areal_density = p->areal_density;
		t->material.stretch_compliance = p->stretch_compliance;
		t->material.shear_compliance = p->shear_compliance;
		t->material.bend_compliance = p->bend_compliance;
		t->material.damping = p->damping;
		t->material.static_friction = p->static_friction;
		t->material.kinetic_friction = p->kinetic_friction;
		t->material.thickness = p->thickness;
		t->material.tear_strain = p->tear_strain;
		t->material.stretch_limit = p->stretch_limit;
		return 0;
	}
	return -1;
}

// ---------------------------------------------------------------------------------------------
// The file: one table of keys, used for reading, writing and the C code.

typedef enum field_kind { FIELD_FLOAT, FIELD_INT, FIELD_VEC3 } field_kind;

typedef struct field {
	const char *section;
	const char *key;
	field_kind kind;
	size_t offset;       // in pbd_tuning
	float min, max;      // allowed range (closed)
	const char *c_name;  // the lvalue in the C code
} field;

#define CLOTH_FIELD(k, lo, hi) \
	{"cloth", #k, FIELD_FLOAT, offsetof(pbd_tuning, material.k), lo, hi, "cloth_def.material." #k}
#define WORLD_FIELD(k, kind, lo, hi) \
	{"world", #k, kind, offsetof(pbd_tuning, world.k), lo, hi, "world_def.settings." #k}

static const field fields[] = {
	// From 1 g/m^2 (the lightest tissues weigh ~10) to 100 t/m^2: the vertex masses it gives
	// must stay within the engine's limits at any resolution a scene uses, not only at the
	// check's (fine grids make light vertices, coarse ones heavy).
	{"cloth", "areal_density", FIELD_FLOAT, offsetof(pbd_tuning, areal_density), 1e-3f, 1e5f,
	 "cloth_def.areal_density"},
	CLOTH_FIELD(stretch_compliance, 0.0f, 1e30f),
	CLOTH_FIELD(shear_compliance, 0.0f, 1e30f),
	CLOTH_FIELD(bend_compliance, 0.0f, 1e30f),
	CLOTH_FIELD(damping, 0.0f, 1e30f),
	CLOTH_FIELD(static_friction, 0.0f, 1e30f),
	CLOTH_FIELD(kinetic_friction, 0.0f, 1e30f),
	CLOTH_FIELD(thickness, 0.0f, 1e30f),
	CLOTH_FIELD(tether_slack, -1e30f, 1e30f),
	CLOTH_FIELD(tear_strain, 0.0f, 1e30f),
	CLOTH_FIELD(stretch_limit, 0.0f, 1e30f),
	{"cloth", "self_collision", FIELD_INT, offsetof(pbd_tuning, material.self_collision), 0.0f, 1.0f,
	 "cloth_def.material.self_collision"},
	WORLD_FIELD(substeps, FIELD_INT, 1.0f, 1000.0f),
	WORLD_FIELD(iterations, FIELD_INT, 1.0f, 1000.0f),
	WORLD_FIELD(gravity, FIELD_VEC3, -1e30f, 1e30f),
	WORLD_FIELD(wind, FIELD_VEC3, -1e30f, 1e30f),
	WORLD_FIELD(wind_turbulence, FIELD_FLOAT, 0.0f, 1.0f),
	WORLD_FIELD(air_density, FIELD_FLOAT, 0.0f, 1e30f),
	WORLD_FIELD(drag_coefficient, FIELD_FLOAT, 0.0f, 1e30f),
	WORLD_FIELD(lift_coefficient, FIELD_FLOAT, 0.0f, 1e30f),
	WORLD_FIELD(particle_cloth_mass_ratio, FIELD_FLOAT, 0.0f, 1e30f),
	WORLD_FIELD(max_candidate_pairs, FIELD_INT, 0.0f, 1e9f),
	WORLD_FIELD(max_substeps, FIELD_INT, 0.0f, 1000.0f),
};
#define FIELD_COUNT ((int)(sizeof fields / sizeof fields[0]))

static void say(char *error, size_t capacity, const char *fmt, ...)
{
	if (!error || capacity == 0)
		return;
	va_list args;
	va_start(args, fmt);
	vsnprintf(error, capacity, fmt, args);
	va_end(args);
}

typedef struct reader {
	pbd_tuning work;
	char message[200];   // what was wrong (ini_parse gives the line)
} reader;

// A float: the whole text must be one finite number within [min, max].
static int parse_float(const char *text, float min, float max, float *out, char **rest)
{
	errno = 0;
	char *end;
	float v = strtof(text, &end);
	if (end == text || errno == ERANGE || !isfinite(v) || v < min || v > max)
		return 0;
	*out = v;
	if (rest)
		*rest = end;
	else if (*end != '\0')
		return 0;
	return 1;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	reader *r = user;
	if (strcmp(section, "cloth") == 0 && strcmp(key, "material") == 0) {
		if (strlen(value) >= sizeof r->work.material_name) {
			snprintf(r->message, sizeof r->message, "material name '%s' is too long", value);
			return 0;
		}
		snprintf(r->work.material_name, sizeof r->work.material_name, "%s", value);
		return 1;
	}
	for (int i = 0; i < FIELD_COUNT; ++i) {
		const field *f = &fields[i];
		if (strcmp(f->section, section) != 0 || strcmp(f->key, key) != 0)
			continue;
		char *at = (char *)&r->work + f->offset;
		float v[3];
		int ok = 1;
		if (f->kind == FIELD_VEC3) {
			char *rest = (char *)value;
			for (int k = 0; k < 3 && ok; ++k)
				ok = parse_float(rest, f->min, f->max, &v[k], &rest);
			while (ok && (*rest == ' ' || *rest == '\t'))
				rest++;
			ok = ok && *rest == '\0';
			if (ok)
				memcpy(at, v, sizeof v);
		} else {
			ok = parse_float(value, f->min, f->max, &v[0], NULL);
			if (ok && f->kind == FIELD_INT) {
				ok = v[0] == floorf(v[0]);
				int n = (int)v[0];
				if (ok)
					memcpy(at, &n, sizeof n);
			} else if (ok) {
				memcpy(at, &v[0], sizeof v[0]);
			}
		}
		if (!ok) {
			snprintf(r->message, sizeof r->message, "%s.%s = '%s': expected %s in %g..%g", section, key, value,
				 f->kind == FIELD_VEC3 ? "three numbers" : (f->kind == FIELD_INT ? "a whole number" : "a number"),
				 (double)f->min, (double)f->max);
			return 0;
		}
		return 1;
	}
	snprintf(r->message, sizeof r->message, "unknown key '%s' in section [%s]", key, section);
	return 0;
}

int pbd_tuning_load(const char *path, pbd_tuning *tuning, char *error, size_t error_capacity)
{
	if (!path || !tuning) {
		say(error, error_capacity, "pbd_tuning_load needs a path and a tuning");
		return -1;
	}
	reader r;
	r.work = *tuning;
	r.message[0] = '\0';
	int line = ini_parse(path, on_entry, &r);
	if (line == -1) {
		say(error, error_capacity, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (line != 0) {
		say(error, error_capacity, "%s:%d: %s", path, line, r.message[0] ? r.message : "not a valid INI line");
		return -1;
	}
	// Each value was checked on its own; the engine has the last word on the whole (limits
	// such as the largest gravity): a small world and cloth are made from the tuning.
	pbd_world_def world_def = pbd_world_def_default();
	pbd_cloth_def cloth_def = pbd_cloth_def_default();
	pbd_tuning_to_defs(&r.work, &world_def, &cloth_def);
	cloth_def.grid.res_x = cloth_def.grid.res_y = 2;
	pbd_world *world = NULL;
	pbd_result res = pbd_world_create(&world_def, &world);
	if (res != PBD_OK) {
		say(error, error_capacity, "%s: the world settings are refused: %s", path, pbd_result_string(res));
		return -1;
	}
	pbd_cloth_id cloth;
	res = pbd_cloth_create(world, &cloth_def, &cloth);
	if (res != PBD_OK)
		say(error, error_capacity, "%s: the cloth values are refused: %s", path, pbd_world_last_error(world));
	pbd_world_destroy(world);
	if (res != PBD_OK)
		return -1;
	*tuning = r.work;
	return 0;
}

static void write_value(FILE *out, const field *f, const pbd_tuning *t, int c_syntax)
{
	const char *at = (const char *)t + f->offset;
	if (f->kind == FIELD_INT) {
		int n;
		memcpy(&n, at, sizeof n);
		fprintf(out, "%d", n);
		return;
	}
	float v[3];
	int count = f->kind == FIELD_VEC3 ? 3 : 1;
	memcpy(v, at, (size_t)count * sizeof(float));
	for (int k = 0; k < count; ++k) {
		if (c_syntax) {
			char number[32];
			snprintf(number, sizeof number, "%.9g", (double)v[k]);
			// A C float literal needs a point or an exponent before the f.
			int plain = strpbrk(number, ".eEn") == NULL;
			fprintf(out, "%s%s%sf", k ? ", " : "", number, plain ? ".0" : "");
		} else {
			fprintf(out, "%s%.9g", k ? " " : "", (double)v[k]);
		}
	}
}

int pbd_tuning_save(const char *path, const pbd_tuning *tuning, char *error, size_t error_capacity)
{
	if (!path || !tuning) {
		say(error, error_capacity, "pbd_tuning_save needs a path and a tuning");
		return -1;
	}
	FILE *out = fopen(path, "w");
	if (!out) {
		say(error, error_capacity, "%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	fprintf(out, "# pbd tuning: the cloth's material and its world's settings (units as in pbd.h)\n");
	const char *section = NULL;
	for (int i = 0; i < FIELD_COUNT; ++i) {
		const field *f = &fields[i];
		if (!section || strcmp(section, f->section) != 0) {
			section = f->section;
			fprintf(out, "%s[%s]\n", i ? "\n" : "", section);
			if (strcmp(section, "cloth") == 0 && tuning->material_name[0])
				fprintf(out, "material = %s\n", tuning->material_name);
		}
		fprintf(out, "%s = ", f->key);
		write_value(out, f, tuning, 0);
		fprintf(out, "\n");
	}
	int bad = ferror(out);
	if (fclose(out) != 0 || bad) {
		say(error, error_capacity, "%s: write error", path);
		return -1;
	}
	return 0;
}

int pbd_tuning_write_c(FILE *out, const pbd_tuning *tuning)
{
	fprintf(out, "/* pbd tuning%s%s */\n", tuning->material_name[0] ? ": " : "", tuning->material_name);
	fprintf(out, "pbd_world_def world_def = pbd_world_def_default();\n");
	fprintf(out, "pbd_cloth_def cloth_def = pbd_cloth_def_default();\n");
	for (int i = 0; i < FIELD_COUNT; ++i) {
		const field *f = &fields[i];
		if (f->kind == FIELD_VEC3) {
			float v[3];
			memcpy(v, (const char *)tuning + f->offset, sizeof v);
			for (int k = 0; k < 3; ++k) {
				fprintf(out, "%s[%d] = ", f->c_name, k);
				pbd_tuning tmp = *tuning;
				memcpy((char *)&tmp + f->offset, &v[k], sizeof v[k]);
				field one = *f;
				one.kind = FIELD_FLOAT;
				write_value(out, &one, &tmp, 1);
				fprintf(out, ";\n");
			}
			continue;
		}
		fprintf(out, "%s = ", f->c_name);
		write_value(out, f, tuning, 1);
		fprintf(out, ";\n");
	}
	return ferror(out) ? -1 : 0;
}

void pbd_tuning_to_defs(const pbd_tuning *t, pbd_world_def *world_def, pbd_cloth_def *cloth_def)
{
	if (world_def)
		world_def->settings = t->world;
	if (cloth_def) {
		cloth_def->areal_density = t->areal_density;
		cloth_def->material = t->material;
	}
}

pbd_result pbd_tuning_apply(const pbd_tuning *t, pbd_world *world, pbd_cloth_id cloth)
{
	pbd_result r = pbd_world_set_settings(world, &t->world);
	if (r == PBD_OK)
		r = pbd_cloth_set_material(world, cloth, &t->material);
	if (r == PBD_OK)
		r = pbd_cloth_set_areal_density(world, cloth, t->areal_density);
	return r;
}

pbd_result pbd_tuning_read(pbd_tuning *t, const pbd_world *world, pbd_cloth_id cloth)
{
	pbd_cloth_material m;
	pbd_result r = pbd_cloth_get_material(world, cloth, &m);
	if (r != PBD_OK)
		return r;
	t->material = m;
	t->areal_density = pbd_cloth_get_areal_density(world, cloth);
	t->world = pbd_world_get_settings(world);
	return PBD_OK;
}
