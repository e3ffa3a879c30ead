// SPDX-License-Identifier: MIT
// Result codes and the per-world error message.
#include <stdarg.h>
#include <stdio.h>

#include "world.h"

const char *pbd_result_string(pbd_result result)
{
	switch (result) {
	case PBD_OK: return "ok";
	case PBD_ERR_NULL_ARGUMENT: return "a required pointer was NULL";
	case PBD_ERR_BAD_DEF: return "the definition was not made by its pbd_*_def_default() function";
	case PBD_ERR_INDEX_OUT_OF_RANGE: return "an index is out of range";
	case PBD_ERR_REPEATED_INDEX: return "a list of distinct vertices names one twice";
	case PBD_ERR_DEGENERATE_TRIANGLE: return "a triangle has zero area";
	case PBD_ERR_NOT_FINITE: return "a value is NaN or infinite";
	case PBD_ERR_NON_POSITIVE: return "a value that must be positive is not";
	case PBD_ERR_BAD_COUNT: return "a count is out of range";
	case PBD_ERR_NEGATIVE: return "a value that must not be negative is";
	case PBD_ERR_ZERO_NORMAL: return "a normal or rotation has zero length";
	case PBD_ERR_STALE_ID: return "the id names a destroyed object";
	case PBD_ERR_UNKNOWN_ID: return "the id names no object of this world";
	case PBD_ERR_OUT_OF_MEMORY: return "out of memory";
	case PBD_ERR_BAD_SHAPE: return "unknown shape type";
	case PBD_ERR_PARSE: return "the text is not a valid mesh file";
	case PBD_ERR_IO: return "a file could not be read or written";
	case PBD_ERR_OUT_OF_RANGE: return "a value is beyond what the engine can simulate";
	case PBD_ERR_VERTEX_HELD: return "the vertex is held by an exact attachment";
	case PBD_ERR_DUPLICATE_TRIANGLE: return "a triangle repeats the three vertices of another";
	case PBD_ERR_CANCELLED: return "cancelled (a progress callback asked to stop)";
	}
	return "unknown result code";
}

pbd_result pbd_fail(pbd_world *world, pbd_result code, const char *fmt, ...)
{
	if (world) {
		va_list args;
		va_start(args, fmt);
		vsnprintf(world->error, sizeof world->error, fmt, args);
		va_end(args);
	}
	return code;
}

const char *pbd_world_last_error(const pbd_world *world)
{
	return world ? world->error : "no world";
}

const char *pbd_stage_name(pbd_stage stage)
{
	static const char *const names[PBD_STAGE_COUNT] = {"predict", "broad_phase", "narrow_phase", "constraints",
							   "contacts", "ccd", "update", "finalize", "air", "tear"};
	return (unsigned)stage < PBD_STAGE_COUNT ? names[stage] : "?";
}
