// SPDX-License-Identifier: MIT
// The public API driven by fuzz bytes: a sequence of calls (cloths from grids and from
// random, degenerate meshes; destroy and reuse of ids; random and extreme parameters; steps
// with any dt; colliders moved fast or teleported; attachments, grabs, pins and particles added
// and removed; tear strains, weakness maps, cuts and vertex splits). Checks: a refused call returns an error code and the world still steps; after
// accepted calls no position is NaN or infinite; live memory returns to zero at the end.
#include <math.h>
#include <stdarg.h>

#include <pbd/pbd.h>

#include "fuzz_util.h"
#include "../memory_count.h"

typedef struct reader {
	const uint8_t *data;
	size_t size, at;
} reader;

static uint8_t byte(reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

// Interesting values first (zero, negatives, tiny, huge, NaN, infinities), raw bits otherwise.
static float value(reader *r)
{
	static const float table[] = {0.0f, 1.0f, -1.0f, 0.5f, 1e-6f, 1e6f, 1e30f, -1e30f, NAN, INFINITY, -INFINITY,
				      0.01f, 0.1f, 10.0f, 100.0f, -0.0f, 3.0f, 1e-3f, 2.0f, 0.25f};
	uint8_t b = byte(r);
	if (b < 200)
		return table[b % (sizeof table / sizeof table[0])];
	uint32_t bits = (uint32_t)byte(r) | (uint32_t)byte(r) << 8 | (uint32_t)byte(r) << 16 | (uint32_t)byte(r) << 24;
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

// A plausible value most of the time (so that the simulation gets going), any value else.
static float scaled(reader *r, float typical)
{
	uint8_t b = byte(r);
	return b < 160 ? typical * (0.1f + (float)b / 40.0f) : value(r);
}

enum { MAX_IDS = 8 };

typedef struct driver {
	pbd_world *w;
	pbd_cloth_id cloths[MAX_IDS];
	int cloth_count;
	pbd_collider_id colliders[MAX_IDS];
	int collider_count;
	pbd_attachment_id attachments[MAX_IDS];
	int attachment_count;
	pbd_particles_id particles[MAX_IDS];
	int particle_count;
	int64_t work;  // substeps stepped times the particles and candidate pairs of each, and the
		       // pairs searches over the limit found before they stopped
} driver;

// An input stops once its steps have done this much work (see step): a tiny world with a
// thickness of kilometres and thousands of substeps pairs everything with everything in every
// substep, and a few dozen such steps would run for minutes under the sanitizers, past
// libFuzzer's time-out.
#define WORK_BUDGET 4000000

// One step must fit the budget too: two cloths a kilometre thick pair every primitive of one
// with every primitive of the other (millions of pairs for two 32x32 cloths), and one step of
// 728 substeps over a few thousand such pairs ran for a minute under the sanitizers. So the
// world always has a limit on candidate pairs (the fuzzed one when it is smaller): a search
// that reaches it stops and the cloth holds for that substep, which the input exercises too.
// A fast collider may make a step take more substeps than the settings say, up to
// max_substeps: the fuzzed worlds allow four times as many (taken from the substeps, so that
// the saved inputs keep reading the same bytes), and the limit is set for that many.
static int max_substeps_for(int substeps)
{
	return substeps > 0 && substeps < 250 ? 4 * substeps : 1000;
}

static int pair_limit_for(int substeps, int fuzzed_limit)
{
	int most = max_substeps_for(substeps);
	int cap = (int)(WORK_BUDGET / (4 * (most > 0 ? most : 1)));
	return fuzzed_limit > 0 && fuzzed_limit < cap ? fuzzed_limit : cap;
}

static pbd_result step(driver *d, float dt)
{
	pbd_result r = pbd_world_step(d->w, dt);
	pbd_world_stats st = pbd_world_get_stats(d->w);
	pbd_world_settings s = pbd_world_get_settings(d->w);
	d->work += (int64_t)st.substeps_taken * (st.particles + st.candidate_pairs_peak) +
		   (int64_t)st.searches_over_limit * s.max_candidate_pairs;
	return r;
}

// A refused call must leave a world that still steps.
// FUZZ_TRACE=1 in the environment prints every call (for reading a finding).
static void after(driver *d, pbd_result r, const char *call)
{
	if (getenv("FUZZ_TRACE"))
		fprintf(stderr, "%s -> %d %s\n", call, r, r == PBD_OK ? "" : pbd_world_last_error(d->w));
	if (r == PBD_OK)
		return;
	FUZZ_REQUIRE(r < 0, "%s: unexpected result %d", call, r);
	FUZZ_REQUIRE(pbd_world_last_error(d->w)[0] != '\0' || r == PBD_ERR_NULL_ARGUMENT, "%s: no message", call);
	pbd_result s = step(d, 1.0f / 240.0f);
	if (getenv("FUZZ_TRACE")) {
		pbd_world_stats st = pbd_world_get_stats(d->w);
		fprintf(stderr,
			"  step after it: %.1f ms (pairs peak %d, searches %d + %d updates, %d over the limit, "
			"%d substeps held, %lld swept)\n",
			st.step_ms, st.candidate_pairs_peak, st.broad_phase_builds, st.broad_phase_updates, st.searches_over_limit,
			st.substeps_held, (long long)st.ccd_pairs_tested);
	}
	FUZZ_REQUIRE(s == PBD_OK, "step after refused %s: %s", call, pbd_world_last_error(d->w));
}

static void trace(const char *format, ...)
{
	if (!getenv("FUZZ_TRACE"))
		return;
	va_list args;
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
}

static void check_finite(const driver *d)
{
	for (int c = 0; c < d->cloth_count; ++c) {
		int n = 0;
		const float *x = pbd_cloth_positions(d->w, d->cloths[c], &n);
		for (int i = 0; x && i < 3 * n; ++i)
			FUZZ_REQUIRE(isfinite(x[i]), "cloth %d position %d is %g", c, i, (double)x[i]);
	}
	for (int p = 0; p < d->particle_count; ++p) {
		int n = 0;
		const float *x = pbd_particles_positions(d->w, d->particles[p], &n);
		for (int i = 0; x && i < 3 * n; ++i)
			FUZZ_REQUIRE(isfinite(x[i]), "particle position %d is %g", i, (double)x[i]);
	}
}

static void create_cloth(driver *d, reader *r)
{
	pbd_cloth_def def = pbd_cloth_def_default();
	float positions[3 * 12];
	uint32_t indices[3 * 12], pinned[4];
	if (byte(r) & 1) {
		def.grid.res_x = 2 + byte(r) % 7;
		def.grid.res_y = 2 + byte(r) % 7;
		def.grid.width = scaled(r, 1.0f);
		def.grid.height = scaled(r, 1.0f);
		def.grid.pins = byte(r);
	} else {
		def.source = PBD_CLOTH_MESH;
		int nv = 3 + byte(r) % 10, nt = 1 + byte(r) % 12;
		for (int i = 0; i < 3 * nv; ++i)
			positions[i] = byte(r) & 0x80 ? value(r) : (float)(byte(r) % 8) * 0.1f;
		for (int i = 0; i < 3 * nt; ++i)
			indices[i] = byte(r) % 0x40 < 60 ? byte(r) % (uint32_t)nv : byte(r);
		def.mesh.positions = positions;
		def.mesh.vertex_count = nv;
		def.mesh.indices = indices;
		def.mesh.triangle_count = nt;
	}
	def.pinned_count = byte(r) % 5;
	for (int i = 0; i < def.pinned_count; ++i)
		pinned[i] = byte(r) % 40;
	def.pinned = pinned;
	def.areal_density = scaled(r, 0.2f);
	def.position[1] = scaled(r, 1.0f);
	def.velocity[1] = byte(r) & 1 ? value(r) : 0.0f;
	def.material.thickness = scaled(r, 0.01f);
	def.material.self_collision = byte(r) & 1;
	if (getenv("FUZZ_TRACE")) {
		fprintf(stderr, "cloth: %dx%d size %g x %g %s nv %d nt %d density %g y %g vy %g thickness %g self %d pins %d\n",
			def.grid.res_x, def.grid.res_y, (double)def.grid.width, (double)def.grid.height,
			def.source == PBD_CLOTH_MESH ? "mesh" : "grid", def.mesh.vertex_count, def.mesh.triangle_count,
			(double)def.areal_density, (double)def.position[1], (double)def.velocity[1],
			(double)def.material.thickness, def.material.self_collision, def.pinned_count);
		for (int i = 0; def.source == PBD_CLOTH_MESH && i < def.mesh.vertex_count; ++i)
			fprintf(stderr, "  v %g %g %g\n", (double)positions[3 * i], (double)positions[3 * i + 1],
				(double)positions[3 * i + 2]);
		for (int i = 0; def.source == PBD_CLOTH_MESH && i < def.mesh.triangle_count; ++i)
			fprintf(stderr, "  f %u %u %u\n", indices[3 * i], indices[3 * i + 1], indices[3 * i + 2]);
	}
	pbd_cloth_id id;
	pbd_result res = pbd_cloth_create(d->w, &def, &id);
	if (res == PBD_OK && d->cloth_count < MAX_IDS)
		d->cloths[d->cloth_count++] = id;
	after(d, res, "pbd_cloth_create");
}

static void create_collider(driver *d, reader *r)
{
	pbd_collider_def def = pbd_collider_def_default();
	def.type = (pbd_shape_type)(byte(r) % 5);
	def.radius = scaled(r, 0.3f);
	def.half_height = scaled(r, 0.3f);
	for (int k = 0; k < 3; ++k) {
		def.half_extents[k] = scaled(r, 0.3f);
		def.position[k] = scaled(r, 0.5f);
		def.normal[k] = k == 1 ? 1.0f : (byte(r) & 1 ? value(r) : 0.0f);
	}
	def.static_friction = scaled(r, 0.5f);
	def.kinetic_friction = scaled(r, 0.4f);
	pbd_collider_id id;
	pbd_result res = pbd_collider_create(d->w, &def, &id);
	if (res == PBD_OK && d->collider_count < MAX_IDS)
		d->colliders[d->collider_count++] = id;
	after(d, res, "pbd_collider_create");
}

static void do_op(driver *d, reader *r)
{
	uint8_t op = byte(r) % 21;
	int pick = byte(r);
	pbd_cloth_id cloth = d->cloth_count ? d->cloths[pick % d->cloth_count] : (pbd_cloth_id){0};
	pbd_collider_id collider = d->collider_count ? d->colliders[pick % d->collider_count] : (pbd_collider_id){0};
	float p[3] = {scaled(r, 1.0f), scaled(r, 1.0f), scaled(r, 1.0f)};
	float q[4] = {byte(r) & 1 ? value(r) : 0.0f, 0.0f, 0.0f, 1.0f};
	switch (op) {
	case 0:
		create_cloth(d, r);
		break;
	case 1:
		if (d->cloth_count)  // the id stays in the list: later calls use it stale
			after(d, pbd_cloth_destroy(d->w, cloth), "pbd_cloth_destroy");
		break;
	case 2:
	case 3: {
		static const float dts[] = {1.0f / 60.0f, 1e-5f, 0.1f, 0.0f, -1.0f, NAN, 1.0f / 240.0f, 0.05f};
		after(d, step(d, dts[byte(r) % 8]), "pbd_world_step");
		break;
	}
	case 4:
		create_collider(d, r);
		break;
	case 5:
		after(d, pbd_collider_set_pose(d->w, collider, p, q), "pbd_collider_set_pose");
		break;
	case 6:
		if (d->collider_count)
			after(d, pbd_collider_destroy(d->w, collider), "pbd_collider_destroy");
		break;
	case 7: {
		pbd_cloth_material m = pbd_cloth_material_default();
		m.stretch_compliance = byte(r) & 1 ? value(r) : 0.0f;
		m.bend_compliance = scaled(r, 1e3f);
		m.static_friction = scaled(r, 0.5f);
		m.kinetic_friction = scaled(r, 0.4f);
		m.damping = byte(r) & 1 ? value(r) : m.damping;
		m.thickness = scaled(r, 0.01f);
		after(d, pbd_cloth_set_material(d->w, cloth, &m), "pbd_cloth_set_material");
		break;
	}
	case 8: {
		pbd_world_settings s = pbd_world_get_settings(d->w);
		s.substeps = byte(r) % 2 ? 1 + byte(r) % 40 : byte(r) * 8 - 40;
		s.iterations = 1 + byte(r) % 4;
		s.gravity[1] = -scaled(r, 9.81f);
		s.wind[0] = byte(r) & 1 ? scaled(r, 20.0f) : 0.0f;
		// A small limit on candidate pairs now and then, taken from the substeps so that the
		// saved inputs keep reading the same bytes.
		s.max_candidate_pairs = pair_limit_for(s.substeps, s.substeps > 0 && s.substeps % 5 == 0 ? 20 * s.substeps : 0);
		s.max_substeps = max_substeps_for(s.substeps);
		trace("settings: substeps %d iterations %d gravity %g wind %g pair limit %d\n", s.substeps, s.iterations,
		      (double)s.gravity[1], (double)s.wind[0], s.max_candidate_pairs);
		after(d, pbd_world_set_settings(d->w, &s), "pbd_world_set_settings");
		break;
	}
	case 9: {
		uint32_t vertices[3] = {byte(r) % 30u, byte(r) % 30u, byte(r)};
		pbd_attachment_def a = pbd_attachment_def_default();
		a.cloth = cloth;
		a.vertices = vertices;
		a.vertex_count = byte(r) % 4;
		a.compliance = byte(r) & 1 ? value(r) : 0.0f;
		memcpy(a.position, p, sizeof p);
		pbd_attachment_id id;
		pbd_result res = pbd_attachment_create(d->w, &a, &id);
		if (res == PBD_OK && d->attachment_count < MAX_IDS)
			d->attachments[d->attachment_count++] = id;
		after(d, res, "pbd_attachment_create");
		break;
	}
	case 10:
		if (d->attachment_count)
			after(d, pbd_attachment_set_pose(d->w, d->attachments[pick % d->attachment_count], p, q),
			      "pbd_attachment_set_pose");
		break;
	case 11:
		if (d->attachment_count)
			after(d, pbd_attachment_destroy(d->w, d->attachments[pick % d->attachment_count]),
			      "pbd_attachment_destroy");
		break;
	case 12: {
		float x[6] = {p[0], p[1], p[2], p[0] + 0.3f, p[1], p[2]}, v[6] = {0, -value(r), 0, 0, 0, 0};
		pbd_particles_def pd = pbd_particles_def_default();
		pd.count = 1 + byte(r) % 2;
		pd.positions = x;
		pd.velocities = v;
		pd.radius = scaled(r, 0.05f);
		pd.mass = scaled(r, 0.1f);
		pbd_particles_id id;
		pbd_result res = pbd_particles_create(d->w, &pd, &id);
		if (res == PBD_OK && d->particle_count < MAX_IDS)
			d->particles[d->particle_count++] = id;
		after(d, res, "pbd_particles_create");
		break;
	}
	case 13:
		trace("pin at %g %g %g\n", (double)p[0], (double)p[1], (double)p[2]);
		after(d, pbd_cloth_pin_vertex(d->w, cloth, byte(r) % 40 - 2, p), "pbd_cloth_pin_vertex");
		break;
	case 14:
		after(d, pbd_cloth_release_vertex(d->w, cloth, byte(r) % 40 - 2), "pbd_cloth_release_vertex");
		break;
	case 15: {
		float v[3] = {0.0f, byte(r) & 1 ? value(r) : 0.0f, 0.0f};
		trace("teleport to %g %g %g velocity %g\n", (double)p[0], (double)p[1], (double)p[2], (double)v[1]);
		after(d, pbd_cloth_teleport(d->w, cloth, p, v), "pbd_cloth_teleport");
		break;
	}
	case 16: {  // a tear strain, from none to any (weakened here and there)
		pbd_cloth_material m;
		if (pbd_cloth_get_material(d->w, cloth, &m) != PBD_OK)
			break;
		m.tear_strain = byte(r) & 1 ? scaled(r, 0.2f) : value(r);
		m.stretch_limit = byte(r) & 1 ? scaled(r, 0.1f) : value(r);  // the limit with it, any or none
		trace("tear strain %g stretch limit %g\n", (double)m.tear_strain, (double)m.stretch_limit);
		after(d, pbd_cloth_set_material(d->w, cloth, &m), "pbd_cloth_set_material (tear)");
		int n = 0;
		pbd_cloth_positions(d->w, cloth, &n);
		if (n > 0 && byte(r) & 1) {
			float *share = malloc(sizeof *share * (size_t)n);
			for (int i = 0; share && i < n; ++i)
				share[i] = i % 7 == 0 ? 0.5f : 1.0f;
			if (share && byte(r) & 1)
				share[byte(r) % n] = value(r);
			after(d, pbd_cloth_set_tear_weakness(d->w, cloth, share, n - (byte(r) & 1)), "pbd_cloth_set_tear_weakness");
			free(share);
		}
		break;
	}
	case 17: {  // a cut through a plane near the cloth
		float n[3] = {value(r), 1.0f - (float)(byte(r) & 1), scaled(r, 1.0f)};
		int splits = 0;
		trace("cut at %g %g %g\n", (double)p[0], (double)p[1], (double)p[2]);
		after(d, pbd_cloth_cut(d->w, cloth, p, n, scaled(r, 0.5f), &splits), "pbd_cloth_cut");
		break;
	}
	case 18: {  // a vertex split, then what a game asks of the pieces
		float n[3] = {scaled(r, 1.0f), value(r), 0.0f};
		int made = 0, pieces = 0, count = 0;
		after(d, pbd_cloth_split_vertex(d->w, cloth, byte(r) % 40 - 2, n, &made), "pbd_cloth_split_vertex");
		const uint32_t *origin = pbd_cloth_vertex_origins(d->w, cloth, &count);
		int nt = 0;
		pbd_cloth_indices(d->w, cloth, &nt);
		uint32_t *piece = nt > 0 ? malloc(sizeof *piece * (size_t)nt) : NULL;
		if (piece && pbd_cloth_pieces(d->w, cloth, piece, nt, &pieces) == PBD_OK)
			FUZZ_REQUIRE(pieces >= 1 && pieces <= nt, "%d pieces of %d triangles", pieces, nt);
		for (int i = 0; origin && i < count; ++i)
			FUZZ_REQUIRE(origin[i] <= (uint32_t)i, "vertex %d comes from vertex %u", i, origin[i]);
		free(piece);
		break;
	}
	case 19: {  // a grab dragged anywhere
		pbd_grab_def g = pbd_grab_def_default();
		g.cloth = cloth;
		g.vertex = byte(r) % 40 - 2;
		g.max_force = byte(r) & 1 ? value(r) : 0.0f;
		pbd_attachment_id id;
		pbd_result res = pbd_grab_begin(d->w, &g, &id);
		after(d, res, "pbd_grab_begin");
		if (res == PBD_OK) {
			after(d, pbd_grab_move(d->w, id, p), "pbd_grab_move");
			if (d->attachment_count < MAX_IDS)
				d->attachments[d->attachment_count++] = id;
		}
		break;
	}
	case 20: {  // the contact points, into a buffer of any size (the count must not depend on it)
		pbd_contact_filter filter = (pbd_contact_filter)(byte(r) % 4);
		pbd_contact_point few[4];
		int capacity = byte(r) % 6 - 1, count = 0, all = 0;
		pbd_result res = pbd_world_get_contacts(d->w, filter, capacity > 0 ? few : NULL,
						       capacity > 4 ? 4 : capacity, &count);
		after(d, res, "pbd_world_get_contacts");
		if (res == PBD_OK) {
			FUZZ_REQUIRE(pbd_world_get_contacts(d->w, filter, NULL, 0, &all) == PBD_OK && all == count,
				     "pbd_world_get_contacts counted %d, then %d", count, all);
			for (int k = 0; k < count && k < capacity && k < 4; ++k)
				FUZZ_REQUIRE((int)few[k].kind >= 0 && (int)few[k].kind <= PBD_CONTACT_KIND_GUARD,
					     "contact kind %d", (int)few[k].kind);
		}
		break;
	}
	}
	check_finite(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 2048)
		return 0;
	memory_count t = {0, 0};
	pbd_world_def wd = pbd_world_def_default();
	wd.allocator = memory_count_allocator(&t);
	wd.settings.max_candidate_pairs = pair_limit_for(wd.settings.substeps, 0);
	wd.settings.max_substeps = max_substeps_for(wd.settings.substeps);
	driver d = {0};
	if (pbd_world_create(&wd, &d.w) != PBD_OK)
		return 0;
	reader r = {data, size, 0};
	for (int ops = 0; r.at < r.size && ops < 32 && d.work < WORK_BUDGET; ++ops)
		do_op(&d, &r);
	pbd_world_destroy(d.w);
	FUZZ_REQUIRE(t.live == 0, "%lld bytes still allocated after pbd_world_destroy", t.live);
	return 0;
}
