/*
 * The public parameters of governed streams: dp.cascade_stream_variance (the
 * node variance a stream's epsilon, delta, horizon and bounds give),
 * dp.cascade_stream_range_variance (the noise variance of a range of
 * periods) and dp.check_privacy_unit (a stream's unit and bounds at
 * registration). No state is involved: each unpacks, calls the core once
 * (release/stream_entry.hpp decides), returns.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "../core/capi/invariant_dp_stream.h"
#include "arguments.h"
#include "core_bridge.h"
#include "stream.h"

PG_FUNCTION_INFO_V1(dp_cascade_stream_variance);
PG_FUNCTION_INFO_V1(dp_cascade_stream_range_variance);
PG_FUNCTION_INFO_V1(dp_check_privacy_unit);

/*
 * A privacy unit and bounds come together or not at all, and the bounds are
 * whole numbers in range (the core's rule): the bounds object at argument
 * bounds_arg.
 */
void
check_stream_privacy_unit(FunctionCallInfo fcinfo, bool has_privacy_unit, int bounds_arg, idp_bounds *out)
{
	idp_bounds	bounds;
	bool		has_bounds = unpack_bounds(fcinfo, bounds_arg, &bounds.n, &bounds.keys, &bounds.values);
	idp_error	error;

	if (idp_check_privacy_unit(has_privacy_unit, has_bounds, bounds.n, bounds.keys, bounds.values, &error) != IDP_OK)
		raise_core_error(&error);
	if (out != NULL)
		*out = bounds;
}

/*
 * dp.cascade_stream_variance(epsilon, delta, horizon, neighbours, bounds):
 * public calibration; bounds NULL for one row per person.
 */
Datum
dp_cascade_stream_variance(PG_FUNCTION_ARGS)
{
	double		variance;
	idp_bounds	bounds;
	bool		bounds_given;
	idp_error	error;
	int			i;

	/* Strict in its first four arguments; NULL bounds: one row per person. */
	for (i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	bounds_given = unpack_bounds(fcinfo, 4, &bounds.n, &bounds.keys, &bounds.values);
	if (idp_stream_variance(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), PG_GETARG_INT32(2),
							text_to_cstring(PG_GETARG_TEXT_PP(3)), bounds_given ? &bounds : NULL, &variance,
							&error) != IDP_OK)
		raise_core_error(&error);
	PG_RETURN_FLOAT8(variance);
}

/* dp.cascade_stream_range_variance(variance, first, last): from public parameters. */
Datum
dp_cascade_stream_range_variance(PG_FUNCTION_ARGS)
{
	double		variance;
	idp_error	error;

	if (idp_stream_range_variance(PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1), PG_GETARG_INT64(2), &variance,
								  &error) != IDP_OK)
		raise_core_error(&error);
	PG_RETURN_FLOAT8(variance);
}

/*
 * dp.check_privacy_unit(privacy_unit, bounds): a governed stream's
 * registration refuses a unit without bounds, or bounds without a unit, in
 * dp.privatize's words.
 */
Datum
dp_check_privacy_unit(PG_FUNCTION_ARGS)
{
	check_stream_privacy_unit(fcinfo, !PG_ARGISNULL(0), 1, NULL);
	PG_RETURN_VOID();
}
