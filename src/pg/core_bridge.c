/*
 * The one place core errors become PostgreSQL errors. Called only after the
 * core call has returned, so no C++ frame is alive when ereport longjmps.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "core_bridge.h"
#include "gucs.h"

static bool
interrupt_pending(void *context)
{
	return QueryCancelPending || ProcDiePending;
}

idp_interrupts
pg_interrupts(void)
{
	idp_interrupts interrupts = {interrupt_pending, NULL};

	return interrupts;
}

idp_randomness
current_randomness(void)
{
	idp_randomness randomness = {dp_seed_is_set, dp_seed_value, dp_seed_generation};

	return randomness;
}

static int
sqlstate_of(idp_status status)
{
	switch (status)
	{
		case IDP_INVALID_ARGUMENT:
		case IDP_INCONSISTENT_INVARIANTS:
			return ERRCODE_INVALID_PARAMETER_VALUE;
		case IDP_OUT_OF_RANGE:
			return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
		case IDP_INVALID_DATA:
			return ERRCODE_DATA_EXCEPTION;
		case IDP_TOO_LARGE:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case IDP_OUT_OF_MEMORY:
			return ERRCODE_OUT_OF_MEMORY;
		case IDP_INTERRUPTED:
			return ERRCODE_QUERY_CANCELED;
		case IDP_OK:
		case IDP_INTERNAL:
			break;
	}
	return ERRCODE_INTERNAL_ERROR;
}

void
raise_core_error(const idp_error *error)
{
	/* A cancel is reported by PostgreSQL itself, with its usual message. */
	if (error->status == IDP_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();

	ereport(ERROR,
			(errcode(sqlstate_of(error->status)),
			 errmsg("%s", error->message),
			 error->detail[0] ? errdetail("%s", error->detail) : 0,
			 error->hint[0] ? errhint("%s", error->hint) : 0));
	pg_unreachable();
}
