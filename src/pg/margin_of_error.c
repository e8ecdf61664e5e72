/*
 * dp.margin_of_error(r, confidence [, noise_law]), dp.sum_variance(r
 * [, noise_law]) and dp.error_bar(r, confidence [, noise_law]): aggregates
 * beside sum(n) over a release table, r its whole row. The state is each
 * row's identity with its multiplicity (a row a join repeats counts as
 * often as sum(n) counts it), merged as it grows so it never holds more
 * than twice the release's distinct rows; partial states combine, so the
 * aggregates run under parallel query. The final function, in the leader,
 * finds the release from r's row type, its law (given, or the governed
 * release's latest draw), the core's structure of it (release_law.c) and
 * asks the core for the sum's variance and margin of error.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "libpq/pqformat.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "cancellable_sort.h"
#include "core_bridge.h"
#include "margin_of_error.h"

PG_FUNCTION_INFO_V1(dp_error_bar_rows);
PG_FUNCTION_INFO_V1(dp_error_bar_rows_law);
PG_FUNCTION_INFO_V1(dp_error_bar_rows_level);
PG_FUNCTION_INFO_V1(dp_error_bar_rows_level_law);
PG_FUNCTION_INFO_V1(dp_error_bar_combine);
PG_FUNCTION_INFO_V1(dp_error_bar_serialize);
PG_FUNCTION_INFO_V1(dp_error_bar_deserialize);
PG_FUNCTION_INFO_V1(dp_margin_of_error_final);
PG_FUNCTION_INFO_V1(dp_sum_variance_final);
PG_FUNCTION_INFO_V1(dp_error_bar_final);

typedef struct RowWeight
{
	idp_row_id	id;
	double		weight;
} RowWeight;

typedef struct ErrorBarState
{
	Oid			rowtype;		/* a table's row type */
	double		level;			/* NaN: no margin of error asked */
	Jsonb	   *law;			/* the law given, or NULL: the governed release's */
	/*
	 * A law read from a column (a joined table's) comes with every row, as
	 * stored: compressed or a TOAST pointer. The last one found equal to law,
	 * as stored, so that the same stored value is not decompressed and
	 * compared again at every row (not serialized: a fresh state compares
	 * its first row in full).
	 */
	struct varlena *law_as_stored;
	int64		n;
	int64		capacity;
	RowWeight  *rows;
} ErrorBarState;

/* The rows' tuple descriptor, kept with the transition function for the query. */
typedef struct RowType
{
	Oid			rowtype;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	/*
	 * The law argument is the same for every row of the query (it reads no
	 * column and calls nothing volatile: a literal, a parameter, a scalar
	 * subquery), so it is compared with the state's once, not at every row.
	 */
	bool		law_constant;
} RowType;

static ErrorBarState *
new_state(FunctionCallInfo fcinfo, Oid rowtype, double level, Jsonb *law)
{
	MemoryContext aggcontext;
	ErrorBarState *state;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp.margin_of_error support functions can only be called by the aggregates")));
	state = MemoryContextAllocZero(aggcontext, sizeof(ErrorBarState));
	state->rowtype = rowtype;
	state->level = level;
	if (law != NULL)
	{
		state->law = MemoryContextAlloc(aggcontext, VARSIZE(law));
		memcpy(state->law, law, VARSIZE(law));
	}
	state->capacity = 64;
	state->rows = MemoryContextAlloc(aggcontext, sizeof(RowWeight) * state->capacity);
	return state;
}

static int
compare_ids(const void *a, const void *b, void *unused)
{
	const idp_row_id *x = &((const RowWeight *) a)->id;
	const idp_row_id *y = &((const RowWeight *) b)->id;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

/*
 * Room for one more row. Past COMPACT_FROM rows (24 MB), the rows are
 * merged by identity (weights added) before the array grows, and it grows
 * only if that left it more than half full: it then holds at most twice the
 * distinct rows given, however often a join repeats them. Below, rows are
 * only appended (the core merges them): no sort for the usual sums.
 */
#define COMPACT_FROM (INT64CONST(1) << 20)

static void
make_room(ErrorBarState *state)
{
	int64		kept = 0;
	int64		i;

	if (state->n < state->capacity)
		return;
	if (state->n >= COMPACT_FROM)
	{
		cancellable_sort(state->rows, state->n, sizeof(RowWeight), compare_ids, NULL);
		for (i = 0; i < state->n; i++)
		{
			if (kept > 0 && compare_ids(&state->rows[kept - 1], &state->rows[i], NULL) == 0)
				state->rows[kept - 1].weight += state->rows[i].weight;
			else
				state->rows[kept++] = state->rows[i];
		}
		state->n = kept;
		if (2 * kept <= state->capacity)
			return;
	}
	state->capacity *= 2;
	state->rows = repalloc_huge(state->rows, sizeof(RowWeight) * state->capacity);
}

static void
check_same(const ErrorBarState *state, Oid rowtype, double level, const Jsonb *law)
{
	/* (law is NULL when it need not be compared again.) */
	if (state->rowtype != rowtype)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the rows of one error bar must be rows of one release table")));
	if (!(state->level == level || (isnan(state->level) && isnan(level))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the confidence of an error bar must be the same for every row")));
	if (law != NULL && (state->law == NULL || VARSIZE(law) != VARSIZE(state->law) ||
						memcmp(law, state->law, VARSIZE(law)) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the noise law of an error bar must be the same for every row")));
}

/*
 * Whether a law, as stored, is byte for byte the one last found equal to the
 * state's: then it is the same value (the same bytes, compressed or not, or
 * a TOAST pointer to the same stored value). A pointer into memory (an
 * indirect or expanded datum) says nothing of what it points to now, and is
 * compared in full.
 */
static bool
same_as_stored(const ErrorBarState *state, Datum law)
{
	const struct varlena *stored = (const struct varlena *) DatumGetPointer(law);

	if (VARATT_IS_EXTERNAL(stored) && !VARATT_IS_EXTERNAL_ONDISK(stored))
		return false;
	return state->law_as_stored != NULL && VARSIZE_ANY(stored) == VARSIZE_ANY(state->law_as_stored) &&
		memcmp(stored, state->law_as_stored, VARSIZE_ANY(stored)) == 0;
}

static void
remember_as_stored(ErrorBarState *state, Datum law)
{
	const struct varlena *stored = (const struct varlena *) DatumGetPointer(law);
	MemoryContext aggcontext = GetMemoryChunkContext(state);

	if (state->law_as_stored != NULL)
		pfree(state->law_as_stored);
	state->law_as_stored = MemoryContextAlloc(aggcontext, VARSIZE_ANY(stored));
	memcpy(state->law_as_stored, stored, VARSIZE_ANY(stored));
}

/* Whether the aggregate's argument arg (from 0) is the same for every row of the query. */
static bool
constant_argument(FunctionCallInfo fcinfo, int arg)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	TargetEntry *entry;

	if (aggref == NULL || arg >= list_length(aggref->args))
		return false;
	entry = list_nth_node(TargetEntry, aggref->args, arg);
	return !contain_var_clause((Node *) entry->expr) && !contain_volatile_functions((Node *) entry->expr);
}

/* The row's type, which must be a table's, its descriptor and room to deform a row. */
static RowType *
row_type(FunctionCallInfo fcinfo, HeapTupleHeader row, int law_arg)
{
	RowType    *cached = fcinfo->flinfo->fn_extra;
	Oid			rowtype = HeapTupleHeaderGetTypeId(row);
	TupleDesc	desc;
	MemoryContext old;

	if (cached != NULL && cached->rowtype == rowtype)
		return cached;
	if (!OidIsValid(get_typ_typrelid(rowtype)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("error bars are computed over a release table's rows, and type %s is not a table's",
						format_type_be(rowtype)),
				 errhint("Pass the table's whole row: SELECT ..., dp.margin_of_error(r, 0.95) FROM release r.")));
	desc = lookup_rowtype_tupdesc(rowtype, -1);
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cached = fcinfo->flinfo->fn_extra = palloc0(sizeof(RowType));
	cached->rowtype = rowtype;
	cached->desc = CreateTupleDescCopy(desc);
	cached->values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	cached->nulls = palloc(sizeof(bool) * Max(desc->natts, 1));
	cached->law_constant = law_arg > 0 && constant_argument(fcinfo, law_arg - 1);
	MemoryContextSwitchTo(old);
	ReleaseTupleDesc(desc);
	return cached;
}

/*
 * The transitions: (r), (r, law), (r, confidence), (r, confidence, law).
 * A row that is NULL, or a NULL confidence or law, is skipped, as a strict
 * aggregate skips it.
 */
static Datum
transition(FunctionCallInfo fcinfo, int level_arg, int law_arg)
{
	ErrorBarState *state = PG_ARGISNULL(0) ? NULL : (ErrorBarState *) PG_GETARG_POINTER(0);
	double		level = level_arg > 0 ? PG_GETARG_FLOAT8(level_arg) : NAN;
	HeapTupleHeader row;
	HeapTupleData tuple;
	RowType    *types;

	if (PG_ARGISNULL(1) || (level_arg > 0 && PG_ARGISNULL(level_arg)) || (law_arg > 0 && PG_ARGISNULL(law_arg)))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (level_arg > 0 && !(level > 0 && level < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must lie strictly between 0 and 1, not %g", level),
				 errhint("E.g. 0.95 for a 95%% margin of error.")));
	row = PG_GETARG_HEAPTUPLEHEADER(1);
	types = row_type(fcinfo, row, law_arg);
	if (state == NULL)
		state = new_state(fcinfo, HeapTupleHeaderGetTypeId(row), level, law_arg > 0 ? PG_GETARG_JSONB_P(law_arg) : NULL);
	else if (law_arg > 0 && !types->law_constant && !same_as_stored(state, PG_GETARG_DATUM(law_arg)))
	{
		check_same(state, HeapTupleHeaderGetTypeId(row), level, PG_GETARG_JSONB_P(law_arg));
		remember_as_stored(state, PG_GETARG_DATUM(law_arg));
	}
	else
		check_same(state, HeapTupleHeaderGetTypeId(row), level, NULL);
	tuple.t_len = HeapTupleHeaderGetDatumLength(row);
	tuple.t_data = row;
	heap_deform_tuple(&tuple, types->desc, types->values, types->nulls);
	make_room(state);
	row_identity(types->desc, types->values, types->nulls, &state->rows[state->n].id);
	state->rows[state->n++].weight = 1;
	PG_RETURN_POINTER(state);
}

Datum
dp_error_bar_rows(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, -1, -1);
}

Datum
dp_error_bar_rows_law(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, -1, 2);
}

Datum
dp_error_bar_rows_level(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, 2, -1);
}

Datum
dp_error_bar_rows_level_law(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, 2, 3);
}

Datum
dp_error_bar_combine(PG_FUNCTION_ARGS)
{
	ErrorBarState *a = PG_ARGISNULL(0) ? NULL : (ErrorBarState *) PG_GETARG_POINTER(0);
	ErrorBarState *b = PG_ARGISNULL(1) ? NULL : (ErrorBarState *) PG_GETARG_POINTER(1);
	int64		i;

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = new_state(fcinfo, b->rowtype, b->level, b->law);
	else
		check_same(a, b->rowtype, b->level, b->law);
	for (i = 0; i < b->n; i++)
	{
		make_room(a);
		a->rows[a->n++] = b->rows[i];
	}
	PG_RETURN_POINTER(a);
}

Datum
dp_error_bar_serialize(PG_FUNCTION_ARGS)
{
	ErrorBarState *state = (ErrorBarState *) PG_GETARG_POINTER(0);
	StringInfoData buffer;

	pq_begintypsend(&buffer);
	pq_sendint32(&buffer, state->rowtype);
	pq_sendfloat8(&buffer, state->level);
	pq_sendint32(&buffer, state->law ? VARSIZE(state->law) : 0);
	if (state->law)
		pq_sendbytes(&buffer, (const char *) state->law, VARSIZE(state->law));
	pq_sendint64(&buffer, state->n);
	pq_sendbytes(&buffer, (const char *) state->rows, sizeof(RowWeight) * state->n);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buffer));
}

Datum
dp_error_bar_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *serialized = PG_GETARG_BYTEA_PP(0);
	StringInfoData buffer;
	ErrorBarState *state;
	Oid			rowtype;
	double		level;
	int32		law_size;
	Jsonb	   *law = NULL;
	int64		n;

	initStringInfo(&buffer);
	appendBinaryStringInfo(&buffer, VARDATA_ANY(serialized), VARSIZE_ANY_EXHDR(serialized));
	rowtype = pq_getmsgint(&buffer, 4);
	level = pq_getmsgfloat8(&buffer);
	law_size = pq_getmsgint(&buffer, 4);
	if (law_size > 0)
		law = (Jsonb *) pq_getmsgbytes(&buffer, law_size);
	state = new_state(fcinfo, rowtype, level, law);
	n = pq_getmsgint64(&buffer);
	while (state->capacity < n)
		state->capacity *= 2;
	state->rows = repalloc_huge(state->rows, sizeof(RowWeight) * state->capacity);
	memcpy(state->rows, pq_getmsgbytes(&buffer, sizeof(RowWeight) * n), sizeof(RowWeight) * n);
	state->n = n;
	pq_getmsgend(&buffer);
	PG_RETURN_POINTER(state);
}

/* A governed release's law, read once per query by the final function. */
typedef struct KeptLaw
{
	Oid			relid;
	ReleaseLaw	law;
} KeptLaw;

/* The law of the state's release. */
static void
law_of(FunctionCallInfo fcinfo, const ErrorBarState *state, Oid relid, ReleaseLaw *law)
{
	KeptLaw    *kept = fcinfo->flinfo->fn_extra;
	MemoryContext old;

	if (state->law != NULL)
	{
		memset(law, 0, sizeof *law);
		law->text = JsonbToCString(NULL, &state->law->root, VARSIZE(state->law));
		return;
	}
	if (kept == NULL || kept->relid != relid)
	{
		old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		kept = fcinfo->flinfo->fn_extra = palloc0(sizeof(KeptLaw));
		governed_release_law(relid, &kept->law);
		kept->relid = relid;
		MemoryContextSwitchTo(old);
	}
	*law = kept->law;
}

/*
 * The state's sum: its rows' identities and weights to the core. A row the
 * kept structure does not know makes it read the table again once; a row
 * still unknown is not the release's.
 */
static bool
error_bar_of(FunctionCallInfo fcinfo, idp_error_bar *bar)
{
	ErrorBarState *state = PG_ARGISNULL(0) ? NULL : (ErrorBarState *) PG_GETARG_POINTER(0);
	Oid			relid;
	ReleaseLaw	law;
	idp_row_id *ids;
	double	   *weights;
	int64		i;
	int			attempt;

	if (state == NULL)
		return false;
	relid = get_typ_typrelid(state->rowtype);
	law_of(fcinfo, state, relid, &law);
	ids = palloc(sizeof(idp_row_id) * Max(state->n, 1));
	weights = palloc(sizeof(double) * Max(state->n, 1));
	for (i = 0; i < state->n; i++)
	{
		ids[i] = state->rows[i].id;
		weights[i] = state->rows[i].weight;
	}
	for (attempt = 0; attempt < 2; attempt++)
	{
		idp_accuracy *accuracy;
		idp_interrupts interrupts = pg_interrupts();
		idp_error	error;

		idp_keep_results_for(GetUserId());
		accuracy = prepared_release(relid, &law, attempt > 0);

		if (idp_accuracy_sum(accuracy, state->n, ids, weights, state->level, &interrupts, bar, &error) != IDP_OK)
			raise_core_error(&error);
		if (bar->unknown_rows == 0)
			return true;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%zu of the rows given are not rows of the release table %s", bar->unknown_rows,
					format_type_be(state->rowtype)),
			 errdetail("An error bar is computed for rows as the table holds them; a row built or changed by the "
					   "query is no released cell."),
			 errhint("Pass the table's own rows: FROM release r ... dp.margin_of_error(r, 0.95).")));
	return false;
}

Datum
dp_margin_of_error_final(PG_FUNCTION_ARGS)
{
	idp_error_bar bar;

	if (!error_bar_of(fcinfo, &bar))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(bar.margin_of_error);
}

Datum
dp_sum_variance_final(PG_FUNCTION_ARGS)
{
	idp_error_bar bar;

	if (!error_bar_of(fcinfo, &bar))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(bar.variance);
}

/* dp.error_bar's columns: cells, variance, variance_lower, variance_kind, confidence, margin_of_error, margin_kind, method, caveat. */
Datum
dp_error_bar_final(PG_FUNCTION_ARGS)
{
	ErrorBarState *state = PG_ARGISNULL(0) ? NULL : (ErrorBarState *) PG_GETARG_POINTER(0);
	idp_error_bar bar;
	TupleDesc	desc;
	Datum		values[9];
	bool		nulls[9] = {false, false, false, false, false, false, false, false, false};

	if (!error_bar_of(fcinfo, &bar))
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE || desc->natts != 9)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("type dp.error_bar does not have the columns this library returns"),
				 errhint("ALTER EXTENSION invariant_dp UPDATE")));
	values[0] = Int64GetDatum((int64) bar.cells);
	values[1] = Float8GetDatum(bar.variance);
	values[2] = Float8GetDatum(bar.variance_lower);
	values[3] = CStringGetTextDatum(bar.variance_kind);
	values[4] = Float8GetDatum(state->level);
	values[5] = Float8GetDatum(bar.margin_of_error);
	values[6] = CStringGetTextDatum(bar.margin_kind);
	values[7] = CStringGetTextDatum(bar.method);
	nulls[8] = bar.caveat == NULL;
	values[8] = bar.caveat ? CStringGetTextDatum(bar.caveat) : (Datum) 0;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
