/*
 * dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy): the
 * validation dp.privatize does before its source runs, on its own, so
 * dp.register_release refuses a bad release when it is registered rather
 * than at its first draw.
 */
#include "postgres.h"

#include "fmgr.h"

#include "arguments.h"
#include "core_bridge.h"

PG_FUNCTION_INFO_V1(dp_check_request);

Datum
dp_check_request(PG_FUNCTION_ARGS)
{
	idp_request request;
	idp_request_info info;
	idp_error	error;

	memset(&request, 0, sizeof request);
	request.mechanism = required_text(fcinfo, 0, "mechanism");
	request.epsilon_is_null = PG_ARGISNULL(1);
	request.epsilon = request.epsilon_is_null ? 0 : PG_GETARG_FLOAT8(1);
	request.has_delta = !PG_ARGISNULL(2);
	request.delta = request.has_delta ? PG_GETARG_FLOAT8(2) : 0;
	unpack_margins(fcinfo, 3, &request);
	unpack_options(fcinfo, 4, &request);
	unpack_hierarchy(fcinfo, 5, &request);
	if (idp_check_request(&request, 0, NULL, &info, &error) != IDP_OK)
		raise_core_error(&error);
	PG_RETURN_VOID();
}
