/*
 * dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy,
 * privacy_unit, bounds): the
 * validation dp.privatize does before its source runs, on its own, so
 * dp.register_release refuses a bad release when it is registered rather
 * than at its first draw.
 */
#include "postgres.h"

#include "fmgr.h"

#include "arguments.h"
#include "core_bridge.h"

PG_FUNCTION_INFO_V1(dp_check_request);

static const RequestArguments check_request_arguments = {
	.mechanism = 0, .epsilon = 1, .delta = 2, .margins = 3, .options = 4, .hierarchy = 5,
	.privacy_unit = 6, .bounds = 7
};

Datum
dp_check_request(PG_FUNCTION_ARGS)
{
	idp_request request;
	idp_prepared_request *prepared;
	idp_request_info info;
	idp_error	error;

	unpack_request(fcinfo, &check_request_arguments, &request);
	if (idp_prepare_request(&request, &prepared, &info, &error) != IDP_OK)
		raise_core_error(&error);
	idp_free_prepared_request(prepared);
	PG_RETURN_VOID();
}
