/*
 * Governed streams (a growing time series released period by period,
 * docs/governed-releases.md, "Streams: a growing time series"): the limits the shim
 * enforces on the stored source before any noise is drawn.
 */
#ifndef INVARIANT_DP_STREAM_SHIM_H
#define INVARIANT_DP_STREAM_SHIM_H

#include "postgres.h"

/* The release table of a stream: (period key, noisy count float8). */
#define STREAM_RELEASE_COLUMNS 2

#endif
