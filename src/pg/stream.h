/*
 * Governed streams (a growing time series released period by period,
 * docs/governed-releases.md, "Streams: a growing time series"): the limits the shim
 * enforces on the stored source before any noise is drawn.
 */
#ifndef INVARIANT_DP_STREAM_SHIM_H
#define INVARIANT_DP_STREAM_SHIM_H

#include "postgres.h"

#include "fmgr.h"

#include "../core/capi/invariant_dp_stream.h"

/* The release table of a stream: (period key, noisy count float8). */
#define STREAM_RELEASE_COLUMNS 2

/*
 * A privacy unit and bounds come together or not at all, and the bounds are
 * whole numbers in range (the core's rule): has_privacy_unit, and the bounds
 * object at argument bounds_arg, unpacked into *out when out is not NULL.
 */
extern void check_stream_privacy_unit(FunctionCallInfo fcinfo, bool has_privacy_unit, int bounds_arg,
									  idp_bounds *out);

#endif
