// SPDX-License-Identifier: MIT
// Shared by the fuzz targets: fuzz bytes as a file path (the readers under test take paths)
// and a reader of values from the input.
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Puts the bytes in an anonymous in-memory file; *path receives /proc/self/fd/N. Returns
// the descriptor (close it when done) or -1.
static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t path_size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

// A fuzz crash: the message goes to stderr and abort() ends the run with a report.
#define FUZZ_REQUIRE(cond, ...)                               \
	do {                                                  \
		if (!(cond)) {                                \
			fprintf(stderr, "fuzz check failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);         \
			fprintf(stderr, "\n");                \
			abort();                              \
		}                                             \
	} while (0)
