/*
 * Reads a source or domain query (see source_reader.h). Everything here is
 * C: errors are ordinary ereports, and the rows land in the memory context
 * that was current when read_query_rows was called.
 */
#include "postgres.h"

#include <sys/mman.h>

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

/* How one key column is stored (by value or copied) and printed. */
typedef struct KeyColumn
{
	int16		typlen;
	bool		typbyval;
	FmgrInfo	output_fn;
} KeyColumn;

/*
 * Copies of by-reference keys, packed into large chunks: one allocation per
 * chunk instead of one per key.
 */
typedef struct KeyArena
{
	char	   *next;
	Size		left;
	Size		chunks;			/* allocated so far: each chunk doubles, up to 32 MB */
} KeyArena;

#define KEY_ARENA_CHUNK (1024 * 1024)
#define KEY_ARENA_MAX_CHUNK (32 * 1024 * 1024)

typedef struct RowCollector
{
	DestReceiver pub;
	QueryRows  *rows;
	MemoryContext cxt;
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

char *
query_key_text(const QueryRows *rows, size_t row, int k)
{
	size_t		i = row * rows->n_keys + k;

	if (rows->key_nulls[i])
		return NULL;
	return OutputFunctionCall(&rows->columns[k].output_fn, rows->key_values[i]);
}

char *
describe_keys(const QueryRows *rows, size_t row, uint64 columns)
{
	StringInfoData names;
	StringInfoData values;
	int			k;

	initStringInfo(&names);
	initStringInfo(&values);
	for (k = 0; k < rows->n_keys; k++)
	{
		char	   *text;

		if (k < 64 && (columns & ((uint64) 1 << k)) == 0)
			continue;
		text = query_key_text(rows, row, k);
		appendStringInfo(&names, "%s%s", names.len ? ", " : "", rows->key_names[k]);
		appendStringInfo(&values, "%s%s", values.len ? ", " : "", text ? text : "NULL");
	}
	return psprintf("(%s)=(%s)", names.data, values.data);
}

/* "Key (county, edu)=(Alpha, Low)" for the row being read. */
static char *
describe_row(const QueryRows *rows, size_t row)
{
	return psprintf("Key %s", describe_keys(rows, row, ~(uint64) 0));
}

/*
 * Marks the whole 2 MB pages of a large array for transparent huge pages
 * (a hint, as large_buffer.hpp does in the core): filling ten million rows'
 * arrays otherwise costs a page fault per 4 kB, several microseconds each on
 * a virtual machine, which was a fifth of a privacy-unit release's time.
 */
static void *
advise_huge_pages(void *pointer, Size bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t) 1 << 21;
	uintptr_t	first = ((uintptr_t) pointer + huge - 1) & ~(huge - 1);
	uintptr_t	last = ((uintptr_t) pointer + bytes) & ~(huge - 1);

	if (last > first)
		(void) madvise((void *) first, last - first, MADV_HUGEPAGE);
#endif
	return pointer;
}

static void *
alloc_huge(Size bytes)
{
	return advise_huge_pages(MemoryContextAllocHuge(CurrentMemoryContext, bytes), bytes);
}

static void *
realloc_huge(void *pointer, Size bytes)
{
	return advise_huge_pages(repalloc_huge(pointer, bytes), bytes);
}

/* Counts memory the rows hold against dp.max_source_memory (kB). */
static void
account(QueryRows *rows, Size bytes)
{
	rows->bytes += bytes;
	if (rows->bytes / 1024 > (Size) dp_max_source_memory)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs more than dp.max_source_memory (%d kB) to hold", rows->what,
						dp_max_source_memory),
				 errdetail("%zu rows were read, their keys and counts take %zu kB.", rows->n_rows,
						   rows->bytes / 1024),
				 errhint("Aggregate to fewer or shorter keys, or ask a superuser to raise dp.max_source_memory.")));
}

/* A copy of a by-reference key in the arena, detoasted: its Datum. */
static Datum
arena_copy(QueryRows *rows, const KeyColumn *column, Datum value)
{
	Pointer		source;
	Size		size;
	char	   *copy;

	/* A varlena stays packed (short header) unless compressed or external. */
	if (column->typlen == -1)
		source = (Pointer) PG_DETOAST_DATUM_PACKED(value);
	else
		source = DatumGetPointer(value);
	size = MAXALIGN(datumGetSize(PointerGetDatum(source), false, column->typlen));
	if (size > rows->arena->left)
	{
		Size		chunk = Max(size, Min((Size) KEY_ARENA_CHUNK << Min(rows->arena->chunks, 5), KEY_ARENA_MAX_CHUNK));

		account(rows, chunk);
		rows->arena->next = alloc_huge(chunk);
		rows->arena->chunks++;
		rows->arena->left = chunk;
	}
	copy = rows->arena->next;
	memcpy(copy, source, datumGetSize(PointerGetDatum(source), false, column->typlen));
	rows->arena->next += size;
	rows->arena->left -= size;
	if (source != DatumGetPointer(value))
		pfree(source);
	return PointerGetDatum(copy);
}

/* The result column holding key k: the unit column is skipped. */
static int
key_attno(const QueryRows *rows, int k)
{
	return rows->unit_attno >= 0 && k >= rows->unit_attno ? k + 1 : k;
}

/* Where the privacy unit's column is, by name; an unknown name is refused. */
static int
unit_attno(TupleDesc desc, const QueryRows *rows)
{
	StringInfoData names;
	int			found = -1;
	int			a;

	initStringInfo(&names);
	for (a = 0; a < desc->natts; a++)
	{
		const char *name = NameStr(TupleDescAttr(desc, a)->attname);

		appendStringInfo(&names, "%s%s", a ? ", " : "", name);
		if (strcmp(name, rows->unit_column) != 0)
			continue;
		if (found >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_AMBIGUOUS_COLUMN),
					 errmsg("%s returns two columns named \"%s\"", rows->what, rows->unit_column)));
		found = a;
	}
	if (found < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("privacy unit column \"%s\" is not in the %s", rows->unit_column, rows->what),
				 errdetail("The %s returns: %s.", rows->what, names.data),
				 errhint("With a privacy unit the source returns rows, not counts: the unit column and the key "
						 "columns, e.g. SELECT patient_id, clinic FROM visits.")));
	if (desc->natts < 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the %s returns only the privacy unit", rows->what),
				 errhint("Return the unit column and at least one key column.")));
	return found;
}

static void
collector_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);
	int			k;

	rows->unit_attno = -1;
	if (rows->unit_column != NULL)
		rows->unit_attno = unit_attno(desc, rows);
	rows->n_keys = desc->natts - (rows->has_count ? 1 : 0) - (rows->unit_attno >= 0 ? 1 : 0);
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
	rows->columns = palloc(sizeof(KeyColumn) * Max(rows->n_keys, 1));
	rows->arena = palloc0(sizeof(KeyArena));
	if (rows->unit_attno >= 0)
	{
		rows->unit = palloc(sizeof(KeyColumn));
		get_typlenbyval(TupleDescAttr(desc, rows->unit_attno)->atttypid, &rows->unit->typlen, &rows->unit->typbyval);
	}
	for (k = 0; k < rows->n_keys; k++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, key_attno(rows, k));
		Oid			output_fn;
		bool		varlena;
		int			j;

		rows->key_names[k] = pstrdup(NameStr(attr->attname));
		rows->key_types[k] = attr->atttypid;
		/* Source columns are named in margins; domain columns match by position. */
		for (j = 0; (rows->has_count || rows->unit_column != NULL) && j < k; j++)
			if (strcmp(rows->key_names[j], rows->key_names[k]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("%s returns two columns named \"%s\"", rows->what, rows->key_names[k]),
						 errhint("Give every key column a distinct name with AS.")));
		getTypeOutputInfo(attr->atttypid, &output_fn, &varlena);
		fmgr_info_cxt(output_fn, &rows->columns[k].output_fn, collector->cxt);
		get_typlenbyval(attr->atttypid, &rows->columns[k].typlen, &rows->columns[k].typbyval);
	}
	MemoryContextSwitchTo(old);
	if (rows->on_columns)
		rows->on_columns(rows, rows->on_columns_arg);
}

static void
grow(QueryRows *rows)
{
	size_t		old_capacity = rows->capacity;
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
	account(rows, (rows->capacity - old_capacity) * (Max(rows->n_keys, 1) * (sizeof(Datum) + sizeof(bool)) +
													  sizeof(int64) + sizeof(Datum) + sizeof(bool)));
	if (rows->key_values == NULL)
	{
		rows->key_values = alloc_huge(keys * sizeof(Datum));
		rows->key_nulls = alloc_huge(keys * sizeof(bool));
		rows->counts = alloc_huge(rows->capacity * sizeof(int64));
		if (rows->unit_attno >= 0)
		{
			rows->unit_values = alloc_huge(rows->capacity * sizeof(Datum));
			rows->unit_nulls = alloc_huge(rows->capacity * sizeof(bool));
		}
		return;
	}
	rows->key_values = realloc_huge(rows->key_values, keys * sizeof(Datum));
	rows->key_nulls = realloc_huge(rows->key_nulls, keys * sizeof(bool));
	rows->counts = realloc_huge(rows->counts, rows->capacity * sizeof(int64));
	if (rows->unit_attno >= 0)
	{
		rows->unit_values = realloc_huge(rows->unit_values, rows->capacity * sizeof(Datum));
		rows->unit_nulls = realloc_huge(rows->unit_nulls, rows->capacity * sizeof(bool));
	}
}

/*
 * Each key's binary image for the core, once every row is read (the arrays
 * no longer move): a by-value key is its Datum's bytes, a varlena its data
 * without the header, a cstring its characters, any other type its typlen
 * bytes. Equal values of a type have equal images for every type GROUP BY
 * can tell apart by its output (as the text form did before).
 */
static void
binary_image(const KeyColumn *column, Datum *datum, bool isnull, const void **data, uint32 *size)
{
	Pointer		value = DatumGetPointer(*datum);

	if (isnull)
	{
		*data = NULL;
		*size = 0;
	}
	else if (column->typbyval)
	{
		*data = datum;
		*size = sizeof(Datum);
	}
	else if (column->typlen == -1)
	{
		*data = VARDATA_ANY(value);
		*size = VARSIZE_ANY_EXHDR(value);
	}
	else if (column->typlen == -2)
	{
		*data = value;
		*size = strlen(value);
	}
	else
	{
		*data = value;
		*size = column->typlen;
	}
}

static void
index_keys(QueryRows *rows)
{
	size_t		n = rows->n_rows * rows->n_keys;
	size_t		i;

	account(rows, n * (sizeof(void *) + sizeof(uint32)));
	rows->key_data = alloc_huge(Max(n, 1) * sizeof(void *));
	rows->key_size = alloc_huge(Max(n, 1) * sizeof(uint32));
	for (i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		binary_image(&rows->columns[i % rows->n_keys], &rows->key_values[i], rows->key_nulls[i],
					 &rows->key_data[i], &rows->key_size[i]);
	}
	if (rows->unit_attno < 0)
		return;
	account(rows, rows->n_rows * (sizeof(void *) + sizeof(uint32)));
	rows->unit_data = alloc_huge(Max(rows->n_rows, 1) * sizeof(void *));
	rows->unit_size = alloc_huge(Max(rows->n_rows, 1) * sizeof(uint32));
	for (i = 0; i < rows->n_rows; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		binary_image(rows->unit, &rows->unit_values[i], rows->unit_nulls[i], &rows->unit_data[i],
					 &rows->unit_size[i]);
	}
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

/* A value as the rows keep it: by value, or copied into the arena. */
static Datum
stored_value(QueryRows *rows, const KeyColumn *column, Datum value, bool isnull)
{
	if (isnull)
		return (Datum) 0;
	if (column->typbyval)
		return value;
	return arena_copy(rows, column, value);
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
		int			a = key_attno(rows, k);

		rows->key_nulls[base + k] = slot->tts_isnull[a];
		rows->key_values[base + k] = stored_value(rows, &rows->columns[k], slot->tts_values[a], slot->tts_isnull[a]);
	}
	if (rows->unit_attno >= 0)
	{
		rows->unit_nulls[rows->n_rows] = slot->tts_isnull[rows->unit_attno];
		rows->unit_values[rows->n_rows] = stored_value(rows, rows->unit, slot->tts_values[rows->unit_attno],
													   slot->tts_isnull[rows->unit_attno]);
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
	index_keys(rows);
}
