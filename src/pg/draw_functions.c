/*
 * dp.refresh_release(release) and dp.draw(NULL::release): every governed
 * draw runs in a background worker (draw_worker.h says why), started by
 * draw_launcher.c; these return its audit id, or the rows it stored.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "draw_launcher.h"
#include "run_as.h"

PG_FUNCTION_INFO_V1(dp_refresh_release);
PG_FUNCTION_INFO_V1(dp_draw);

/* dp.refresh_release(release): a new draw; returns its audit id. */
Datum
dp_refresh_release(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("release must not be NULL")));
	PG_RETURN_INT64(draw_in_worker(PG_GETARG_OID(0), false).draw_id);
}

/* The release's rows, read by read_release_rows. */
typedef struct ReleaseRead
{
	const char *query;
} ReleaseRead;

static void
read_release_rows(void *arg)
{
	const ReleaseRead *read = (const ReleaseRead *) arg;

	PushActiveSnapshot(GetLatestSnapshot());
	if (SPI_execute(read->query, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read a governed release");
	PopActiveSnapshot();
}

/*
 * The release's rows as committed by the worker, read as the release's
 * owner (run_as_role: a security-restricted operation under search_path
 * pg_catalog, pg_temp) with a snapshot taken now (the caller's own snapshot
 * may predate the draw under REPEATABLE READ).
 */
static void
return_release_rows(FunctionCallInfo fcinfo, Oid release, Oid owner)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ReleaseRead read;
	uint64		i;

	read.query = psprintf("SELECT t FROM ONLY %s AS t",
						  quote_qualified_identifier(get_namespace_name(get_rel_namespace(release)),
													 get_rel_name(release)));
	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	run_as_role(owner, "pg_catalog, pg_temp", read_release_rows, &read);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		HeapTupleHeader row = DatumGetHeapTupleHeader(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull));
		HeapTupleData tuple;

		tuple.t_len = HeapTupleHeaderGetDatumLength(row);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = InvalidOid;
		tuple.t_data = row;
		tuplestore_puttuple(rsinfo->setResult, &tuple);
	}
	SPI_finish();
}

/*
 * dp.draw(NULL::release): a new draw, returned with the release's row type
 * (for REFRESH MATERIALIZED VIEW). A release whose table was recreated by a
 * restore returns its restored draw instead, without drawing.
 */
Datum
dp_draw(PG_FUNCTION_ARGS)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			release = OidIsValid(type) ? typeidTypeRelid(type) : InvalidOid;
	DrawTask	outcome;

	if (!OidIsValid(release))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type %s is not the row type of a governed release", format_type_be(type)),
				 errhint("Pass NULL cast to the release table's type: dp.draw(NULL::state_counts).")));
	outcome = draw_in_worker(release, true);
	return_release_rows(fcinfo, release, outcome.release_owner);
	return (Datum) 0;
}
