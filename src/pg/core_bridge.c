/*
 * The one place core errors become PostgreSQL errors. Called only after the
 * core call has returned, so no C++ frame is alive when ereport longjmps.
 */
#include "postgres.h"

#include <pthread.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/procsignal.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "core_bridge.h"
#include "gucs.h"

/* Set when a progress NOTICE could not be sent: the core is asked to stop. */
static bool progress_failed = false;
/* Set when absorbing a barrier raised an error: the core is asked to stop. */
static bool barrier_failed = false;
static TimestampTz last_progress = 0;
/* The backend's own thread: only it may run PostgreSQL code. */
static pthread_t backend_thread;

/*
 * Absorbs the barriers other backends wait for (DROP DATABASE and DROP
 * TABLESPACE wait until every backend has released its file handles), as
 * CHECK_FOR_INTERRUPTS would: a release running in the core would otherwise
 * hold them up until it ends. Called from inside the core, so an error is
 * caught in this C frame (no longjmp crosses a C++ frame) and the core asked
 * to stop; PostgreSQL marks the barrier pending again, and the
 * CHECK_FOR_INTERRUPTS after the core returns absorbs it or reports its
 * error.
 */
static void
absorb_barriers(void)
{
	MemoryContext saved = CurrentMemoryContext;

	if (!ProcSignalBarrierPending || InterruptHoldoffCount != 0 || CritSectionCount != 0 ||
		!pthread_equal(pthread_self(), backend_thread))
		return;
	PG_TRY();
	{
		ProcessProcSignalBarrier();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(saved);
		FlushErrorState();
		barrier_failed = true;
	}
	PG_END_TRY();
}

static bool
interrupt_pending(void *context)
{
	absorb_barriers();
	return QueryCancelPending || ProcDiePending || progress_failed || barrier_failed;
}

/*
 * Called from inside the core: a C-only frame, so an error while sending the
 * NOTICE is caught here, its state flushed, and the core asked to stop;
 * raise_core_error then reports it. No longjmp crosses a C++ frame.
 */
static void
report_progress(void *context, const char *stage, uint64_t done, uint64_t total)
{
	MemoryContext saved = CurrentMemoryContext;
	TimestampTz now;

	if (dp_progress_interval < 0 || progress_failed)
		return;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(last_progress, now, dp_progress_interval))
		return;
	last_progress = now;
	PG_TRY();
	{
		ereport(NOTICE,
				(errmsg("invariant_dp: %s " UINT64_FORMAT " of " UINT64_FORMAT " (%d%%)", stage, done, total,
						total ? (int) (100.0 * done / total) : 100)));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(saved);
		FlushErrorState();
		progress_failed = true;
	}
	PG_END_TRY();
}

idp_interrupts
pg_interrupts(void)
{
	idp_interrupts interrupts = {interrupt_pending, NULL, report_progress};

	progress_failed = false;
	barrier_failed = false;
	backend_thread = pthread_self();
	last_progress = GetCurrentTimestamp();
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
		case IDP_NULL_VALUE:
			return ERRCODE_NULL_VALUE_NOT_ALLOWED;
		case IDP_OK:
		case IDP_INTERNAL:
			break;
	}
	return ERRCODE_INTERNAL_ERROR;
}

/* text with "{key0}" and "{key1}" replaced by the keys the error names. */
static char *
with_keys(const char *text, const idp_error *error, KeyRenderer render, void *arg)
{
	StringInfoData out;
	const char *p = text;

	initStringInfo(&out);
	while (*p)
	{
		if (strncmp(p, "{key", 4) == 0 && (p[4] == '0' || p[4] == '1') && p[5] == '}')
		{
			const idp_key_ref *ref = &error->keys[p[4] - '0'];

			appendStringInfoString(&out, render && ref->table != IDP_KEYS_NONE ? render(ref, arg) : "(?)");
			p += 6;
			continue;
		}
		appendStringInfoChar(&out, *p++);
	}
	return out.data;
}

void
raise_core_error_rendered(const idp_error *error, KeyRenderer render, void *arg)
{
	/* A cancel is reported by PostgreSQL itself, with its usual message. */
	if (error->status == IDP_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();
	if (error->status == IDP_INTERRUPTED && barrier_failed)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not absorb a barrier another backend waits for")));
	if (error->status == IDP_INTERRUPTED && progress_failed)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not report the progress of a release"),
				 errhint("Set dp.progress_interval to -1 to turn progress reports off.")));

	ereport(ERROR,
			(errcode(sqlstate_of(error->status)),
			 errmsg("%s", with_keys(error->message, error, render, arg)),
			 error->detail[0] ? errdetail("%s", with_keys(error->detail, error, render, arg)) : 0,
			 error->hint[0] ? errhint("%s", with_keys(error->hint, error, render, arg)) : 0));
	pg_unreachable();
}

void
raise_core_error(const idp_error *error)
{
	raise_core_error_rendered(error, NULL, NULL);
}
