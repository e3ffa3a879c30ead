// SPDX-License-Identifier: MIT
// OBJ import: any text either parses into a mesh whose indices are in range (which then
// makes a cloth or is refused with an error code) or is refused with a message.
#include <math.h>

#include <pbd/pbd.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pbd_obj_options options = pbd_obj_options_default();
	if (size > 0 && (data[0] & 1))
		options.weld_distance = 1e-3f;
	pbd_mesh mesh = {0};
	char error[256] = "";
	pbd_result r = pbd_mesh_parse_obj((const char *)data, size, "fuzz.obj", &options, &mesh, error, sizeof error);
	if (r != PBD_OK) {
		FUZZ_REQUIRE(error[0] != '\0', "refused without a message (%d)", r);
		FUZZ_REQUIRE(mesh.positions == NULL && mesh.indices == NULL, "refused but left arrays");
		return 0;
	}
	FUZZ_REQUIRE(mesh.vertex_count >= 0 && mesh.triangle_count >= 0, "negative counts");
	for (int i = 0; i < 3 * mesh.triangle_count; ++i)
		FUZZ_REQUIRE(mesh.indices[i] < (uint32_t)mesh.vertex_count, "index %u of %d", mesh.indices[i],
			     mesh.vertex_count);
	// A mesh without non-manifold edges or unorientable pieces comes out wound one way: no
	// directed edge twice.
	if (mesh.edges_non_manifold == 0 && mesh.pieces_not_orientable == 0 && mesh.triangle_count <= 256)
		for (int a = 0; a < 3 * mesh.triangle_count; ++a)
			for (int b = a + 1; b < 3 * mesh.triangle_count; ++b) {
				const uint32_t *ta = mesh.indices + 3 * (a / 3), *tb = mesh.indices + 3 * (b / 3);
				FUZZ_REQUIRE(!(ta[a % 3] == tb[b % 3] && ta[(a + 1) % 3] == tb[(b + 1) % 3]),
					     "directed edge %u-%u twice", ta[a % 3], ta[(a + 1) % 3]);
			}
	// Small meshes also go into a world and step: refused or finite.
	if (mesh.vertex_count <= 256 && mesh.triangle_count >= 1) {
		pbd_world_def wd = pbd_world_def_default();
		pbd_world *w = NULL;
		if (pbd_world_create(&wd, &w) == PBD_OK) {
			pbd_cloth_def d = pbd_cloth_def_default();
			d.source = PBD_CLOTH_MESH;
			d.mesh.positions = mesh.positions;
			d.mesh.vertex_count = mesh.vertex_count;
			d.mesh.indices = mesh.indices;
			d.mesh.triangle_count = mesh.triangle_count;
			pbd_cloth_id id;
			pbd_result made = pbd_cloth_create(w, &d, &id);
			// The reader refuses repeated triangles itself.
			FUZZ_REQUIRE(made != PBD_ERR_DUPLICATE_TRIANGLE, "a parsed mesh repeats a triangle");
			if (made == PBD_OK) {
				for (int f = 0; f < 3; ++f)
					FUZZ_REQUIRE(pbd_world_step(w, 1.0f / 60.0f) == PBD_OK, "step failed");
				int n = 0;
				const float *x = pbd_cloth_positions(w, id, &n);
				for (int i = 0; i < 3 * n; ++i)
					FUZZ_REQUIRE(isfinite(x[i]), "position %d not finite", i);
			}
			pbd_world_destroy(w);
		}
	}
	pbd_mesh_free(&mesh);
	return 0;
}
