/*
 * dp.stream_append_as_owner(release, owner, search_path, source, past_keys,
 * state, variance, horizon, privacy_unit, bounds): one refresh of a governed
 * stream. Called only by dp.refresh_release (EXECUTE is revoked from
 * PUBLIC), inside its transaction and after its budget and refresher checks.
 * Three phases: read the stored source as its owner, order its distinct
 * periods and check that the first are exactly the released ones; one core call
 * (with a privacy unit, bounding each unit's rows and checking that the
 * released periods still count the same units) draws the new periods' noise
 * from the secret state; insert the new rows into the release table and
 * return (appended, last_key, state) for the catalog. The public parameters
 * of a stream are stream_parameters.c's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "../core/capi/invariant_dp_stream.h"
#include "arguments.h"
#include "core_bridge.h"
#include "draw_worker.h"
#include "run_as.h"
#include "source_reader.h"
#include "stream.h"

PG_FUNCTION_INFO_V1(dp_stream_append_as_owner);

typedef struct StreamAppend
{
	Oid			release;
	Oid			owner;
	char	   *search_path;
	char	   *query;
	Datum	   *past_keys;		/* text, in key order */
	int			n_past;
	char	   *state;			/* NULL before the first draw */
	double		variance;
	int32		horizon;
	char	   *privacy_unit;	/* NULL: the source returns (period, count) */
	idp_bounds	bounds;
	Oid			key_type;
	QueryRows	rows;
	/* The source's distinct periods in time order, and each code's period. */
	size_t		n_periods;
	uint32	   *period_codes;	/* period p's code in the period column */
	uint32	   *period_rank;	/* a code's period */
	int64	   *new_counts;		/* the n_periods - n_past new periods' counts */
} StreamAppend;

static void
unpack_stream(FunctionCallInfo fcinfo, StreamAppend *s)
{
	int			i;

	memset(s, 0, sizeof *s);
	for (i = 0; i < 8; i++)
		if (i != 5 && PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only the state, privacy unit and bounds of a stream may be NULL")));
	s->release = PG_GETARG_OID(0);
	s->owner = PG_GETARG_OID(1);
	s->search_path = text_to_cstring(PG_GETARG_TEXT_PP(2));
	/* The source need not sort: its distinct periods are ordered once read. */
	s->query = required_text(fcinfo, 3, "source");
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(4), TEXTOID, -1, false, TYPALIGN_INT, &s->past_keys, NULL, &s->n_past);
	s->state = PG_ARGISNULL(5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(5));
	s->variance = PG_GETARG_FLOAT8(6);
	s->horizon = PG_GETARG_INT32(7);
	s->privacy_unit = PG_ARGISNULL(8) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(8));
	check_stream_privacy_unit(fcinfo, s->privacy_unit != NULL, 9, &s->bounds);
	s->key_type = get_atttype(s->release, 1);
	if (get_atttype(s->release, STREAM_RELEASE_COLUMNS) != FLOAT8OID ||
		get_atttype(s->release, STREAM_RELEASE_COLUMNS + 1) != InvalidOid || s->horizon < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the release table of a stream must have two columns, the period and a float8 count")));
}

/*
 * One period column, of the release table's period type, first; then the
 * count, or with a privacy unit the unit's column (one row per event).
 */
static void
check_stream_columns(const QueryRows *rows, void *arg)
{
	const StreamAppend *s = (const StreamAppend *) arg;
	const char *then = s->privacy_unit != NULL ? psprintf("the privacy unit column \"%s\"", s->privacy_unit)
		: "the count";

	if (rows->n_keys != 1 || rows->key_types[0] != s->key_type || (s->privacy_unit != NULL && rows->unit_attno != 1))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the source of a stream must return one period column of type %s, then %s",
						format_type_be(s->key_type), then),
				 errdetail("It returns %d period column%s%s%s%s.", rows->n_keys, rows->n_keys == 1 ? "" : "s",
						   rows->n_keys >= 1 ? ", the first of type " : "",
						   rows->n_keys >= 1 ? format_type_be(rows->key_types[0]) : "",
						   s->privacy_unit != NULL && rows->unit_attno != 1 ? ", and the unit is not second" : "")));
}

static void
read_stream_rows(void *arg)
{
	StreamAppend *s = (StreamAppend *) arg;

	s->rows.what = "source";
	s->rows.has_count = s->privacy_unit == NULL;
	s->rows.unit_column = s->privacy_unit;
	s->rows.on_columns = check_stream_columns;
	s->rows.on_columns_arg = s;
	read_query_rows(s->query, &s->rows);
}

static void
past_changed(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("the stream's past changed"),
			 errdetail_internal("%s", detail),
			 errhint("A stream appends new periods only: released periods must stay in the source with their keys. "
					 "Nothing was drawn, charged or changed.")));
}

static void
period_twice(const StreamAppend *s, const char *key)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("the source of a stream returned period %s twice", key),
			 s->privacy_unit == NULL ? errhint("Periods must be distinct: GROUP BY the period.") :
			 errhint("Two values of the period compare equal: return one form of each period.")));
}

/* Period codes in the period type's order, as ORDER BY would sort them. */
typedef struct PeriodOrder
{
	const QueryRows *rows;
	SortSupportData sort;
	uint64		calls;
} PeriodOrder;

static int
compare_periods(const void *a, const void *b, void *arg)
{
	PeriodOrder *order = (PeriodOrder *) arg;
	bool		a_null;
	bool		b_null;
	Datum		a_value = query_level_datum(order->rows, 0, *(const uint32 *) a, &a_null);
	Datum		b_value = query_level_datum(order->rows, 0, *(const uint32 *) b, &b_null);

	if ((++order->calls & 65535) == 0)
		CHECK_FOR_INTERRUPTS();
	return ApplySortComparator(a_value, a_null, b_value, b_null, &order->sort);
}

/*
 * The source's distinct periods in time order: their codes sorted by the
 * period type's default ordering, as ORDER BY sorts them.
 */
static void
order_periods(StreamAppend *s, PeriodOrder *order)
{
	TypeCacheEntry *type = lookup_type_cache(s->key_type, TYPECACHE_LT_OPR);
	size_t		p;

	if (!OidIsValid(type->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the period type %s has no ordering", format_type_be(s->key_type))));
	s->n_periods = query_key_levels(&s->rows, 0);
	s->period_codes = palloc(Max(s->n_periods, 1) * sizeof(uint32));
	s->period_rank = palloc(Max(s->n_periods, 1) * sizeof(uint32));
	for (p = 0; p < s->n_periods; p++)
		s->period_codes[p] = (uint32) p;
	memset(order, 0, sizeof *order);
	order->rows = &s->rows;
	order->sort.ssup_cxt = CurrentMemoryContext;
	order->sort.ssup_collation = s->rows.key_collations[0];
	PrepareSortSupportFromOrderingOp(type->lt_opr, &order->sort);
	qsort_arg(s->period_codes, s->n_periods, sizeof(uint32), compare_periods, order);
}

/* Without a privacy unit each period is one row, with its count. */
static void
check_one_row_per_period(const StreamAppend *s)
{
	const QueryRows *rows = &s->rows;
	bool	   *seen = palloc0(Max(s->n_periods, 1) * sizeof(bool));
	size_t		i;

	for (i = 0; i < rows->n_rows; i++)
	{
		uint32		code = rows->codes[0][i];

		if ((i & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		if (seen[code])
			period_twice(s, query_level_text(rows, 0, code));
		seen[code] = true;
	}
}

/*
 * The source's distinct periods in time order, of which the first must be
 * the released ones and every later one new (the noise of a period is
 * drawn once: a period released twice, or a past period changed, would
 * average or leak it).
 */
static void
find_periods(StreamAppend *s)
{
	const QueryRows *rows = &s->rows;
	PeriodOrder order;
	size_t		p;

	order_periods(s, &order);
	for (p = 0; p < s->n_periods; p++)
	{
		bool		isnull;

		if ((p & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		(void) query_level_datum(rows, 0, s->period_codes[p], &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the source of a stream returned a NULL period")));
		/* Released periods are compared as the text they were stored as. */
		if (p < (size_t) s->n_past)
		{
			const char *key = query_level_text(rows, 0, s->period_codes[p]);

			if (strcmp(key, TextDatumGetCString(s->past_keys[p])) != 0)
				past_changed(psprintf("Period %zu was released as %s; the source now has %s there.", p + 1,
									  TextDatumGetCString(s->past_keys[p]), key));
		}
		if (p > 0 && compare_periods(&s->period_codes[p - 1], &s->period_codes[p], &order) == 0)
			period_twice(s, query_level_text(rows, 0, s->period_codes[p]));
		s->period_rank[s->period_codes[p]] = (uint32) p;
	}
	if (s->n_periods < (size_t) s->n_past)
		past_changed(psprintf("The source returns %zu periods; %d were released.", s->n_periods, s->n_past));
	if (s->privacy_unit == NULL)
		check_one_row_per_period(s);
}

/*
 * Noise for the new periods from the state, and with a privacy unit their
 * bounded counts (the core checks the released ones still count the same
 * units); without one, the source's counts. Returns the new state.
 */
static char *
draw_new_periods(StreamAppend *s, double *noise)
{
	uint64		count = s->n_periods - s->n_past;
	char	   *new_state = NULL;
	idp_error	error;
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_stream_units units;
	uint64		p;
	size_t		i;

	s->new_counts = palloc(Max(count, 1) * sizeof(int64));
	if (s->privacy_unit != NULL)
	{
		idp_cells	cells = query_cells(&s->rows, NULL);

		units.n_rows = s->rows.n_rows;
		units.unit_codes = cells.unit_keys.columns[0];
		units.dictionary = cells.unit_dictionary;
		units.period_codes = s->rows.codes[0];
		units.period_rank = s->period_rank;
		units.n_period_codes = s->n_periods;
		units.bounds = s->bounds;
	}
	else
		for (i = 0; i < s->rows.n_rows; i++)
		{
			p = s->period_rank[s->rows.codes[0][i]];
			if (p >= (uint64) s->n_past)
				s->new_counts[p - s->n_past] = s->rows.counts[i];
		}
	if (idp_stream_append(s->state, s->variance, (uint32) s->horizon, (uint64) s->n_past, count,
						  s->privacy_unit != NULL ? &units : NULL, &randomness, &interrupts,
						  s->privacy_unit != NULL ? s->new_counts : NULL, noise, &new_state, &error) != IDP_OK)
		raise_core_error(&error);
	return new_state;
}

/* Appends the new periods (count + noise) to the release table, as the definer. */
static void
insert_new_rows(const StreamAppend *s, const double *noise)
{
	const char *table = quote_qualified_identifier(get_namespace_name(get_rel_namespace(s->release)),
												   get_rel_name(s->release));
	Oid			types[2] = {s->key_type, FLOAT8OID};
	SPIPlanPtr	plan = SPI_prepare(psprintf("INSERT INTO %s VALUES ($1, $2)", table), 2, types);
	size_t		p;

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for the stream's release table: %s", SPI_result_code_string(SPI_result));
	for (p = s->n_past; p < s->n_periods; p++)
	{
		bool		isnull;
		Datum		values[2] = {query_level_datum(&s->rows, 0, s->period_codes[p], &isnull),
		Float8GetDatum((double) s->new_counts[p - s->n_past] + noise[p - s->n_past])};

		CHECK_FOR_INTERRUPTS();
		if (SPI_execute_plan(plan, values, NULL, false, 1) != SPI_OK_INSERT)
			elog(ERROR, "could not append to the stream's release table");
	}
}

/* (appended, last_key, new_state) for the catalog; last_key NULL if none. */
static Datum
stream_result(FunctionCallInfo fcinfo, uint64 count, const char *last_key, const char *state)
{
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, last_key == NULL, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dp.stream_append_as_owner must return a record");
	values[0] = Int64GetDatum((int64) count);
	values[1] = last_key == NULL ? (Datum) 0 : CStringGetTextDatum(last_key);
	values[2] = CStringGetTextDatum(state);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

Datum
dp_stream_append_as_owner(PG_FUNCTION_ARGS)
{
	StreamAppend s;
	uint64		count;
	double	   *noise;
	char	   *new_state;
	char	   *state_copy;
	char	   *last_key;
	/* SPI_finish frees everything allocated after SPI_connect. */
	MemoryContext caller_cxt = CurrentMemoryContext;

	require_draw_worker("dp.stream_append_as_owner");
	unpack_stream(fcinfo, &s);
	SPI_connect();
	run_as_role(s.owner, s.search_path, read_stream_rows, &s);
	find_periods(&s);
	count = s.n_periods - s.n_past;
	noise = palloc(Max(count, 1) * sizeof(double));
	new_state = draw_new_periods(&s, noise);
	state_copy = MemoryContextStrdup(caller_cxt, new_state);
	idp_free(new_state);

	insert_new_rows(&s, noise);
	last_key = s.n_periods == 0 ? NULL
		: MemoryContextStrdup(caller_cxt, query_level_text(&s.rows, 0, s.period_codes[s.n_periods - 1]));
	SPI_finish();
	PG_RETURN_DATUM(stream_result(fcinfo, count, last_key, state_copy));
}
