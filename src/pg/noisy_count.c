/*
 * dp.noisy_count(epsilon [, delta]): a per-group count with exact discrete
 * Laplace (or, with delta, discrete Gaussian) noise and no invariant. The
 * transition state is a plain counter (plus the parameters, which must be
 * the same on every row); noise is added once, in the final function, so the
 * aggregate runs partially in parallel workers (combine, serialize and
 * deserialize below) and is finalized in the leader.
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "arguments.h"
#include "core_bridge.h"

PG_FUNCTION_INFO_V1(dp_noisy_count_transition);
PG_FUNCTION_INFO_V1(dp_noisy_count_combine);
PG_FUNCTION_INFO_V1(dp_noisy_count_serialize);
PG_FUNCTION_INFO_V1(dp_noisy_count_deserialize);
PG_FUNCTION_INFO_V1(dp_noisy_count_final);

typedef struct NoisyCountState
{
	int64		count;
	double		epsilon;
	bool		has_delta;
	double		delta;
} NoisyCountState;

static NoisyCountState *
new_state(FunctionCallInfo fcinfo, double epsilon, bool has_delta, double delta)
{
	MemoryContext aggcontext;
	NoisyCountState *state;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp.noisy_count support functions can only be called by the aggregate")));
	state = MemoryContextAllocZero(aggcontext, sizeof(NoisyCountState));
	state->epsilon = epsilon;
	state->has_delta = has_delta;
	state->delta = delta;
	return state;
}

/* A group's count of rows, and the sum of two partial counts, checked. */
static int64
add_counts(int64 a, int64 b)
{
	int64		sum;

	if (pg_add_s64_overflow(a, b, &sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("sum of counts out of range for bigint")));
	return sum;
}

static void
check_same_parameters(const NoisyCountState *a, double epsilon, bool has_delta, double delta)
{
	if (a->epsilon != epsilon || a->has_delta != has_delta || (has_delta && a->delta != delta))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon and delta of dp.noisy_count must be the same for every row")));
}

Datum
dp_noisy_count_transition(PG_FUNCTION_ARGS)
{
	NoisyCountState *state = PG_ARGISNULL(0) ? NULL : (NoisyCountState *) PG_GETARG_POINTER(0);
	double		epsilon = required_float8(fcinfo, 1, "epsilon");
	bool		has_delta = PG_NARGS() > 2;
	double		delta = has_delta ? required_float8(fcinfo, 2, "delta") : 0;

	if (state == NULL)
		state = new_state(fcinfo, epsilon, has_delta, delta);
	else
		check_same_parameters(state, epsilon, has_delta, delta);
	state->count = add_counts(state->count, 1);
	PG_RETURN_POINTER(state);
}

Datum
dp_noisy_count_combine(PG_FUNCTION_ARGS)
{
	NoisyCountState *a = PG_ARGISNULL(0) ? NULL : (NoisyCountState *) PG_GETARG_POINTER(0);
	NoisyCountState *b = PG_ARGISNULL(1) ? NULL : (NoisyCountState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
		a = new_state(fcinfo, b->epsilon, b->has_delta, b->delta);
	else
		check_same_parameters(a, b->epsilon, b->has_delta, b->delta);
	a->count = add_counts(a->count, b->count);
	PG_RETURN_POINTER(a);
}

Datum
dp_noisy_count_serialize(PG_FUNCTION_ARGS)
{
	NoisyCountState *state = (NoisyCountState *) PG_GETARG_POINTER(0);
	StringInfoData buffer;

	pq_begintypsend(&buffer);
	pq_sendint64(&buffer, state->count);
	pq_sendfloat8(&buffer, state->epsilon);
	pq_sendbyte(&buffer, state->has_delta);
	pq_sendfloat8(&buffer, state->delta);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buffer));
}

Datum
dp_noisy_count_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *serialized = PG_GETARG_BYTEA_PP(0);
	StringInfoData buffer;
	NoisyCountState *state;

	state = new_state(fcinfo, 0, false, 0);
	initStringInfo(&buffer);
	appendBinaryStringInfo(&buffer, VARDATA_ANY(serialized), VARSIZE_ANY_EXHDR(serialized));
	state->count = pq_getmsgint64(&buffer);
	state->epsilon = pq_getmsgfloat8(&buffer);
	state->has_delta = pq_getmsgbyte(&buffer) != 0;
	state->delta = pq_getmsgfloat8(&buffer);
	pq_getmsgend(&buffer);
	PG_RETURN_POINTER(state);
}

Datum
dp_noisy_count_final(PG_FUNCTION_ARGS)
{
	NoisyCountState *state = PG_ARGISNULL(0) ? NULL : (NoisyCountState *) PG_GETARG_POINTER(0);
	idp_request request;
	idp_randomness randomness = current_randomness();
	idp_error	error;
	int64		noisy;

	/* No rows at all (an ungrouped aggregate over an empty input). */
	if (state == NULL)
		PG_RETURN_NULL();
	memset(&request, 0, sizeof request);
	request.mechanism = state->has_delta ? "discrete_gaussian" : "discrete_laplace";
	request.epsilon = state->epsilon;
	request.has_delta = state->has_delta;
	request.delta = state->delta;
	if (idp_noisy_count(state->count, &request, &randomness, &noisy, &error) != IDP_OK)
		raise_core_error(&error);
	PG_RETURN_INT64(noisy);
}
