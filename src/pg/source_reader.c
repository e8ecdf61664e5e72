/*
 * Reads a source or domain query (see source_reader.h). Everything here is
 * C: errors are ordinary ereports, and the rows land in the memory context
 * that was current when read_query_rows was called.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "gucs.h"
#include "source_reader.h"

typedef struct RowCollector
{
	DestReceiver pub;
	QueryRows  *rows;
	MemoryContext cxt;
	FmgrInfo   *output_fns;
	int16	   *typlen;
	bool	   *typbyval;
	Oid			count_type;
} RowCollector;

/* A syntax error's position points into the query text, as SPI does it. */
static void
query_error_callback(void *arg)
{
	const char *query = (const char *) arg;
	int			position = geterrposition();

	if (position > 0)
	{
		errposition(0);
		internalerrposition(position);
		internalerrquery(query);
	}
}

static List *
parse_query(const char *query)
{
	ErrorContextCallback callback;
	List	   *statements;

	callback.callback = query_error_callback;
	callback.arg = unconstify(char *, query);
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	statements = raw_parser(query, RAW_PARSE_DEFAULT);
	error_context_stack = callback.previous;
	return statements;
}

/* Only a single plain SELECT (or VALUES/TABLE), without INTO, is accepted. */
static void
check_single_select(const char *query, const char *what)
{
	List	   *statements = parse_query(query);
	Node	   *statement;
	ListCell   *cell;

	if (list_length(statements) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", what),
				 errdetail("It contains %d statements.", list_length(statements))));
	statement = linitial_node(RawStmt, statements)->stmt;
	if (!IsA(statement, SelectStmt) || ((SelectStmt *) statement)->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", what),
				 errhint("The %s is run read-only; it may not modify data.", what)));
	if (((SelectStmt *) statement)->withClause == NULL)
		return;
	foreach(cell, ((SelectStmt *) statement)->withClause->ctes)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, cell);

		if (!IsA(cte->ctequery, SelectStmt))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be a single SELECT query", what),
					 errdetail("WITH query \"%s\" modifies data.", cte->ctename)));
	}
}

static bool
is_count_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID || type == NUMERICOID;
}

/* "Key (county, edu)=(Alpha, Low)" for the row being read. */
static char *
describe_row(const QueryRows *rows, size_t row)
{
	StringInfoData text;
	int			k;

	initStringInfo(&text);
	appendStringInfoString(&text, "Key (");
	for (k = 0; k < rows->n_keys; k++)
		appendStringInfo(&text, "%s%s", k ? ", " : "", rows->key_names[k]);
	appendStringInfoString(&text, ")=(");
	for (k = 0; k < rows->n_keys; k++)
	{
		const char *value = rows->key_text[row * rows->n_keys + k];

		appendStringInfo(&text, "%s%s", k ? ", " : "", value ? value : "NULL");
	}
	appendStringInfoString(&text, ")");
	return text.data;
}

static void
collector_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);
	int			k;

	rows->n_keys = desc->natts - (rows->has_count ? 1 : 0);
	if (rows->has_count &&
		(desc->natts < 1 || !is_count_type(TupleDescAttr(desc, desc->natts - 1)->atttypid)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the last column of %s must be an integer count", rows->what),
				 errhint("End the select list with count(*), e.g. SELECT county, edu, count(*) FROM t GROUP BY 1, 2.")));
	if (rows->has_count)
		collector->count_type = TupleDescAttr(desc, desc->natts - 1)->atttypid;
	rows->key_names = palloc(sizeof(char *) * Max(rows->n_keys, 1));
	rows->key_types = palloc(sizeof(Oid) * Max(rows->n_keys, 1));
	collector->output_fns = palloc(sizeof(FmgrInfo) * Max(rows->n_keys, 1));
	collector->typlen = palloc(sizeof(int16) * Max(rows->n_keys, 1));
	collector->typbyval = palloc(sizeof(bool) * Max(rows->n_keys, 1));
	for (k = 0; k < rows->n_keys; k++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, k);
		Oid			output_fn;
		bool		varlena;
		int			j;

		rows->key_names[k] = pstrdup(NameStr(attr->attname));
		rows->key_types[k] = attr->atttypid;
		/* Source columns are named in margins; domain columns match by position. */
		for (j = 0; rows->has_count && j < k; j++)
			if (strcmp(rows->key_names[j], rows->key_names[k]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("%s returns two columns named \"%s\"", rows->what, rows->key_names[k]),
						 errhint("Give every key column a distinct name with AS.")));
		getTypeOutputInfo(attr->atttypid, &output_fn, &varlena);
		fmgr_info_cxt(output_fn, &collector->output_fns[k], collector->cxt);
		get_typlenbyval(attr->atttypid, &collector->typlen[k], &collector->typbyval[k]);
	}
	MemoryContextSwitchTo(old);
	if (rows->on_columns)
		rows->on_columns(rows, rows->on_columns_arg);
}

static void
grow(QueryRows *rows)
{
	size_t		keys;

	if (rows->n_rows < rows->capacity)
		return;
	if (rows->n_rows >= (size_t) dp_max_cells)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s returned more than %d rows", rows->what, dp_max_cells),
				 errhint("Aggregate to fewer cells, or ask a superuser to raise dp.max_cells.")));
	rows->capacity = Min(Max(rows->capacity * 2, 1024), (size_t) dp_max_cells);
	keys = rows->capacity * Max(rows->n_keys, 1);
	if (rows->key_text == NULL)
	{
		rows->key_text = MemoryContextAllocHuge(CurrentMemoryContext, keys * sizeof(char *));
		rows->key_values = MemoryContextAllocHuge(CurrentMemoryContext, keys * sizeof(Datum));
		rows->key_nulls = MemoryContextAllocHuge(CurrentMemoryContext, keys * sizeof(bool));
		rows->counts = MemoryContextAllocHuge(CurrentMemoryContext, rows->capacity * sizeof(int64));
		return;
	}
	rows->key_text = repalloc_huge(rows->key_text, keys * sizeof(char *));
	rows->key_values = repalloc_huge(rows->key_values, keys * sizeof(Datum));
	rows->key_nulls = repalloc_huge(rows->key_nulls, keys * sizeof(bool));
	rows->counts = repalloc_huge(rows->counts, rows->capacity * sizeof(int64));
}

static int64
count_value(const RowCollector *collector, Datum value, bool isnull, size_t row)
{
	const QueryRows *rows = collector->rows;
	int64		count;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("count in %s must not be NULL", rows->what),
				 errdetail("%s has a NULL count.", describe_row(rows, row)),
				 errhint("Use count(*) or coalesce(..., 0).")));
	switch (collector->count_type)
	{
		case INT2OID:
			count = DatumGetInt16(value);
			break;
		case INT4OID:
			count = DatumGetInt32(value);
			break;
		case INT8OID:
			count = DatumGetInt64(value);
			break;
		default:
			count = DatumGetInt64(DirectFunctionCall1(numeric_int8, value));
			if (!DatumGetBool(DirectFunctionCall2(numeric_eq, value,
												  DirectFunctionCall1(int8_numeric, Int64GetDatum(count)))))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("count in %s must be an integer", rows->what),
						 errdetail("%s has a fractional count.", describe_row(rows, row))));
	}
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count in %s must not be negative", rows->what),
				 errdetail("%s has count " INT64_FORMAT ".", describe_row(rows, row), count)));
	return count;
}

static bool
collector_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);
	size_t		base;
	int			k;

	if ((rows->n_rows & 8191) == 0)
		CHECK_FOR_INTERRUPTS();
	grow(rows);
	slot_getallattrs(slot);
	base = rows->n_rows * rows->n_keys;
	for (k = 0; k < rows->n_keys; k++)
	{
		bool		isnull = slot->tts_isnull[k];

		rows->key_nulls[base + k] = isnull;
		rows->key_values[base + k] = isnull ? (Datum) 0 :
			datumCopy(slot->tts_values[k], collector->typbyval[k], collector->typlen[k]);
		rows->key_text[base + k] = isnull ? NULL :
			OutputFunctionCall(&collector->output_fns[k], slot->tts_values[k]);
	}
	if (rows->has_count)
		rows->counts[rows->n_rows] = count_value(collector, slot->tts_values[rows->n_keys],
												 slot->tts_isnull[rows->n_keys], rows->n_rows);
	rows->n_rows++;
	MemoryContextSwitchTo(old);
	return true;
}

static void
collector_noop(DestReceiver *self)
{
}

void
read_query_rows(const char *query, QueryRows *rows)
{
	RowCollector collector;
	SPIExecuteOptions options;
	int			rc;
	bool		saved_read_only;

	check_single_select(query, rows->what);
	memset(&collector, 0, sizeof collector);
	collector.pub.receiveSlot = collector_receive;
	collector.pub.rStartup = collector_startup;
	collector.pub.rShutdown = collector_noop;
	collector.pub.rDestroy = collector_noop;
	/* Not DestNone (SPI would report a discarded result) nor DestSPI. */
	collector.pub.mydest = DestTuplestore;
	collector.rows = rows;
	collector.cxt = CurrentMemoryContext;

	memset(&options, 0, sizeof options);
	options.read_only = true;
	options.dest = (DestReceiver *) &collector;
	/*
	 * SPI's read_only refuses data-modifying statements in the query itself;
	 * a read-only transaction state also stops the functions it calls from
	 * writing (INSERT, nextval, ...). Restored afterwards: the caller's own
	 * transaction may write (a governed draw stores what it read).
	 */
	saved_read_only = XactReadOnly;
	XactReadOnly = true;
	PG_TRY();
	{
		rc = SPI_execute_extended(query, &options);
	}
	PG_FINALLY();
	{
		XactReadOnly = saved_read_only;
	}
	PG_END_TRY();
	if (rc != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", rows->what),
				 errdetail("SPI returned %s.", SPI_result_code_string(rc))));
}
