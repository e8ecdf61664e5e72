/*
 * Reads a source or domain query (see source_reader.h). Everything here is
 * C: errors are ordinary ereports, and the rows land in the memory context
 * that was current when read_query_rows was called.
 */
#include "postgres.h"

#include <sys/mman.h>

#include "access/detoast.h"
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
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "gucs.h"
#include "key_equality.h"
#include "source_reader.h"

/*
 * One key column (or the unit's): its dictionary in the core, and how its
 * values are stored and printed. A by-value key's binary image is its
 * Datum, so the dictionary gives it back; a by-reference key is copied into
 * the arena once, when it first appears (level_values, by code). Where
 * equal values may differ in their bytes, each value is first replaced by
 * the first one of its class (key_equality.h), kept in the arena.
 */
typedef struct KeyColumn
{
	int16		typlen;
	bool		typbyval;
	char		typstorage;
	FmgrInfo	output_fn;
	KeyEquality *equality;		/* NULL: equal values have equal bytes */
	idp_key_encoder *encoder;
	idp_key_dictionary dictionary;	/* as of the last batch coded */
	Datum	   *level_values;	/* by-reference types: per code */
	size_t		n_levels;
	size_t		level_capacity;
	struct MappedArray *level_array;
} KeyColumn;

/*
 * Rows read but not yet coded: the core codes a batch at a time so that
 * the cache misses of its dictionaries overlap. Each key of the batch is
 * kept as its Datum (by value) or as a copy of its bytes in buffer
 * (by reference: the slot's memory is the next row's once this one is read).
 * Slot k of a row is key k; the unit's is slot n_keys. A slot's keys are
 * side by side (values[s * BATCH_ROWS + r]): a by-value slot goes to the
 * core as it is, an array of words.
 */
#define BATCH_ROWS 64
/* A batch is coded early once its keys take this much (long text keys). */
#define BATCH_BYTES (1024 * 1024)

typedef struct RowBatch
{
	int			n_rows;
	int			n_slots;
	Datum	   *values;			/* n_slots * BATCH_ROWS: a Datum, or an offset into buffer (a by-reference key
								 * without equality classes) */
	bool	   *nulls;
	StringInfoData buffer;
	/* scratch for one column's call into the core */
	const void **data;
	uint32	   *size;
	uint32	   *codes;			/* a row-numbered column's codes, checked, not kept */
	idp_interrupts interrupts;	/* the coding's poller, made once per read (it reads the clock) */
} RowBatch;

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

/*
 * An array that grows while rows arrive, in an anonymous mapping of its own:
 * it grows by mremap, which moves page tables instead of copying the
 * elements and faulting every page in again (what repalloc's copy of
 * hundreds of megabytes cost), and is marked for huge pages. Unmapped when
 * the memory context holding it goes, error or not.
 */
typedef struct MappedArray
{
	void	   *data;
	Size		bytes;
	MemoryContextCallback unmap;
} MappedArray;

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

/* The value of a column's key with this code. */
static Datum
level_datum(const KeyColumn *column, uint32 code, bool *isnull)
{
	*isnull = idp_key_is_null(&column->dictionary, code);
	if (*isnull)
		return (Datum) 0;
	return column->typbyval ? (Datum) idp_key_word(&column->dictionary, code) : column->level_values[code];
}

Datum
query_key_datum(const QueryRows *rows, size_t row, int k, bool *isnull)
{
	return level_datum(&rows->columns[k], query_key_code(rows, row, k), isnull);
}

size_t
query_key_levels(const QueryRows *rows, int k)
{
	return rows->columns[k].dictionary.n_levels;
}

Datum
query_level_datum(const QueryRows *rows, int k, uint32 code, bool *isnull)
{
	return level_datum(&rows->columns[k], code, isnull);
}

char *
query_key_text(const QueryRows *rows, size_t row, int k)
{
	return query_level_text(rows, k, query_key_code(rows, row, k));
}

char *
query_level_text(const QueryRows *rows, int k, uint32 code)
{
	bool		isnull;
	Datum		value = level_datum(&rows->columns[k], code, &isnull);

	return isnull ? NULL : OutputFunctionCall(&rows->columns[k].output_fn, value);
}

/* A table's code arrays for the core: NULL for a row-numbered column. */
static const uint32 *const *
key_columns(const QueryRows *rows)
{
	const uint32 **columns = palloc(sizeof(uint32 *) * Max(rows->n_keys, 1));
	int			k;

	for (k = 0; k < rows->n_keys; k++)
		columns[k] = rows->row_numbered[k] ? NULL : rows->codes[k];
	return columns;
}

idp_cells
query_cells(const QueryRows *source, const QueryRows *domain)
{
	idp_cells	cells;
	idp_key_dictionary *dictionaries = palloc(sizeof(idp_key_dictionary) * Max(source->n_keys, 1));
	int			k;

	memset(&cells, 0, sizeof cells);
	for (k = 0; k < source->n_keys; k++)
		dictionaries[k] = source->columns[k].dictionary;
	cells.n_columns = source->n_keys;
	cells.column_names = (const char *const *) source->key_names;
	cells.dictionaries = dictionaries;
	cells.n_source_rows = source->n_rows;
	cells.source_keys.columns = key_columns(source);
	cells.source_counts = source->has_count ? source->counts : NULL;
	if (source->unit != NULL)
	{
		cells.unit_keys.columns = (const uint32 *const *) &source->unit_codes;
		cells.unit_dictionary = source->unit->dictionary;
	}
	if (domain != NULL)
	{
		Assert(domain->columns == source->columns);
		cells.has_domain = true;
		cells.n_domain_rows = domain->n_rows;
		cells.domain_keys.columns = key_columns(domain);
	}
	return cells;
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

static void
unmap_array(void *arg)
{
	MappedArray *array = (MappedArray *) arg;

	if (array->data != NULL)
		munmap(array->data, array->bytes);
	array->data = NULL;
	array->bytes = 0;
}

/* A new, empty array, unmapped with the current memory context. */
static MappedArray *
new_mapped_array(void)
{
	MappedArray *array = palloc0(sizeof(MappedArray));

	array->unmap.func = unmap_array;
	array->unmap.arg = array;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &array->unmap);
	return array;
}

/* The array's data, with room for bytes (new memory reads as zeros). */
static void *
grow_mapped(MappedArray *array, Size bytes)
{
	void	   *grown;

	if (bytes <= array->bytes)
		return array->data;
	if (array->data == NULL)
		grown = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		grown = mremap(array->data, array->bytes, bytes, MREMAP_MAYMOVE);
	if (grown == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu: %m.", (size_t) bytes)));
#ifdef MADV_HUGEPAGE
	/*
	 * The whole mapping, not only its whole huge pages: advice on part of it
	 * would split it, and mremap cannot grow a range that spans two.
	 */
	(void) madvise(grown, bytes, MADV_HUGEPAGE);
#endif
	array->data = grown;
	array->bytes = bytes;
	return array->data;
}

static Size
source_memory_limit(void)
{
	return (Size) dp_max_source_memory * 1024;
}

static void
refuse_memory(const QueryRows *rows, Size more)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s needs more than dp.max_source_memory (%d kB) to hold", rows->what,
					dp_max_source_memory),
			 more > 0 ? errdetail("%zu rows were read, their keys and counts take %zu kB, and the next ones need %zu kB more.",
								  rows->n_rows, rows->bytes / 1024, (more + 1023) / 1024)
			 : errdetail("%zu rows were read, their keys and counts take %zu kB, and a key dictionary must grow.",
						 rows->n_rows, rows->bytes / 1024),
			 errhint("Aggregate to fewer or shorter keys, or ask a superuser to raise dp.max_source_memory.")));
}

/*
 * Counts memory against dp.max_source_memory before it is allocated: the
 * caller allocates `bytes` only if this returns.
 */
static void
account(QueryRows *rows, Size bytes)
{
	if (bytes > source_memory_limit() || rows->bytes > source_memory_limit() - bytes)
		refuse_memory(rows, bytes);
	rows->bytes += bytes;
}

/*
 * Refuses unless `bytes` more fit under dp.max_source_memory now: for memory
 * held only briefly (a key detoasted to be copied), which is not counted.
 */
static void
check_room(QueryRows *rows, Size bytes)
{
	if (bytes > source_memory_limit() || rows->bytes > source_memory_limit() - bytes)
		refuse_memory(rows, bytes);
}

/* A varlena key detoasted takes its raw size: checked before it is. */
static void
check_detoast_room(QueryRows *rows, const KeyColumn *column, Datum value)
{
	if (column->typlen == -1 && VARATT_IS_EXTENDED(DatumGetPointer(value)))
		check_room(rows, toast_raw_datum_size(value));
}

/*
 * A copy of a by-reference key in the arena, detoasted: its Datum. A
 * varlena of a type that allows it is kept with a one-byte header when it
 * fits one (as heap_fill_tuple stores it: every Datum read from a table
 * may be so), needing no alignment; anything else is MAXALIGNed.
 */
static Datum
arena_copy(QueryRows *rows, const KeyColumn *column, Datum value)
{
	KeyArena   *arena = rows->arena;
	Pointer		source;
	Size		size;
	Size		stored;
	Size		pad = 0;
	bool		make_short = false;
	bool		packed = false;
	char	   *copy;

	/* A varlena stays packed (short header) unless compressed or external. */
	if (column->typlen == -1)
	{
		check_detoast_room(rows, column, value);
		source = (Pointer) PG_DETOAST_DATUM_PACKED(value);
		make_short = column->typstorage != TYPSTORAGE_PLAIN && VARATT_CAN_MAKE_SHORT(source);
		packed = make_short || VARATT_IS_SHORT(source);
	}
	else
		source = DatumGetPointer(value);
	size = datumGetSize(PointerGetDatum(source), false, column->typlen);
	stored = make_short ? VARATT_CONVERTED_SHORT_SIZE(source) : size;
	if (!packed && arena->next != NULL)
		pad = MAXALIGN((uintptr_t) arena->next) - (uintptr_t) arena->next;
	if (arena->next == NULL || pad + stored > arena->left)
	{
		Size		chunk = Max(MAXALIGN(stored), Min((Size) KEY_ARENA_CHUNK << Min(arena->chunks, 5), KEY_ARENA_MAX_CHUNK));

		account(rows, chunk);
		arena->next = alloc_huge(chunk);	/* MAXALIGNed */
		arena->chunks++;
		arena->left = chunk;
		pad = 0;
	}
	copy = arena->next + pad;
	if (make_short)
	{
		SET_VARSIZE_SHORT(copy, stored);
		memcpy(copy + VARHDRSZ_SHORT, VARDATA(source), stored - VARHDRSZ_SHORT);
	}
	else
		memcpy(copy, source, size);
	arena->next += pad + stored;
	arena->left -= pad + stored;
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

/* Frees a column's dictionary with the memory context holding the rows. */
static void
free_encoder(void *arg)
{
	KeyColumn  *column = (KeyColumn *) arg;

	idp_key_encoder_free(column->encoder);
	column->encoder = NULL;
}

/*
 * A column's storage, its dictionary and its equality classes, freed when
 * cxt is reset or deleted. kind and name say which column, for errors.
 */
static void
init_key_column(KeyColumn *column, Oid type, Oid collation, const char *kind, const char *name, const char *what,
				MemoryContext cxt)
{
	MemoryContextCallback *callback;
	Oid			output_fn;
	bool		varlena;

	memset(column, 0, sizeof *column);
	getTypeOutputInfo(type, &output_fn, &varlena);
	fmgr_info_cxt(output_fn, &column->output_fn, cxt);
	get_typlenbyval(type, &column->typlen, &column->typbyval);
	column->typstorage = get_typstorage(type);
	column->equality = key_equality_new(type, collation, kind, name, what, cxt);
	/* The callback first: nothing may fail between creating and registering. */
	callback = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	/*
	 * A by-value key's image is its Datum: 8 bytes (binary_image). A
	 * by-reference key is kept once, in the arena (code_slot): the encoder
	 * borrows those bytes instead of copying them again.
	 */
	column->encoder = column->typbyval ? idp_key_encoder_new_words() : idp_key_encoder_new_borrowing();
	if (column->encoder == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	callback->func = free_encoder;
	callback->arg = column;
	MemoryContextRegisterResetCallback(cxt, callback);
	column->dictionary = idp_key_encoder_dictionary(column->encoder);
	column->level_array = new_mapped_array();
}

static void
collector_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);
	RowBatch   *batch;
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
	rows->key_collations = palloc(sizeof(Oid) * Max(rows->n_keys, 1));
	rows->arena = palloc0(sizeof(KeyArena));
	for (k = 0; k < rows->n_keys; k++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, key_attno(rows, k));
		int			j;

		rows->key_names[k] = pstrdup(NameStr(attr->attname));
		rows->key_types[k] = attr->atttypid;
		rows->key_collations[k] = attr->attcollation;
		/* Source columns are named in margins; domain columns match by position. */
		for (j = 0; (rows->has_count || rows->unit_column != NULL) && j < k; j++)
			if (strcmp(rows->key_names[j], rows->key_names[k]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("%s returns two columns named \"%s\"", rows->what, rows->key_names[k]),
						 errhint("Give every key column a distinct name with AS.")));
	}
	MemoryContextSwitchTo(old);
	if (rows->on_columns)
		rows->on_columns(rows, rows->on_columns_arg);
	MemoryContextSwitchTo(collector->cxt);
	if (rows->shares_keys_with != NULL)
	{
		/* on_columns checked that the key types are the same. */
		Assert(rows->n_keys == rows->shares_keys_with->n_keys);
		rows->columns = rows->shares_keys_with->columns;
	}
	else
	{
		rows->columns = palloc(sizeof(KeyColumn) * Max(rows->n_keys, 1));
		for (k = 0; k < rows->n_keys; k++)
			init_key_column(&rows->columns[k], rows->key_types[k], rows->key_collations[k], "key",
							rows->key_names[k], rows->what, collector->cxt);
	}
	if (rows->unit_attno >= 0)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, rows->unit_attno);

		rows->unit = palloc(sizeof(KeyColumn));
		init_key_column(rows->unit, attr->atttypid, attr->attcollation, "privacy unit", rows->unit_column, rows->what,
						collector->cxt);
	}
	rows->codes = palloc0(sizeof(uint32 *) * Max(rows->n_keys, 1));
	/*
	 * A column starts row-numbered if the caller allows it and its dictionary
	 * is empty (a domain's shares the source's keys): its codes are then 0,
	 * 1, ... for as long as every row brings a new key (code_slot).
	 */
	rows->row_numbered = palloc0(sizeof(bool) * Max(rows->n_keys, 1));
	for (k = 0; k < rows->n_keys; k++)
		rows->row_numbered[k] = rows->rows_may_number_keys && rows->columns[k].dictionary.n_levels == 0;
	rows->code_arrays = palloc(sizeof(MappedArray *) * Max(rows->n_keys, 1));
	for (k = 0; k < rows->n_keys; k++)
		rows->code_arrays[k] = new_mapped_array();
	rows->count_array = new_mapped_array();
	rows->unit_code_array = new_mapped_array();
	batch = rows->batch = palloc0(sizeof(RowBatch));
	batch->n_slots = rows->n_keys + (rows->unit != NULL ? 1 : 0);
	batch->values = palloc(sizeof(Datum) * BATCH_ROWS * Max(batch->n_slots, 1));
	batch->nulls = palloc(sizeof(bool) * BATCH_ROWS * Max(batch->n_slots, 1));
	batch->data = palloc(sizeof(void *) * BATCH_ROWS);
	batch->size = palloc(sizeof(uint32) * BATCH_ROWS);
	batch->codes = palloc(sizeof(uint32) * BATCH_ROWS);
	batch->interrupts = pg_interrupts();
	initStringInfo(&batch->buffer);
	MemoryContextSwitchTo(old);
}

static void
grow(QueryRows *rows)
{
	size_t		old_capacity = rows->capacity;
	int			k;

	if (rows->n_rows < rows->capacity)
		return;
	if (rows->n_rows >= (size_t) dp_max_cells)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s returned more than %d rows", rows->what, dp_max_cells),
				 errhint("Aggregate to fewer cells, or ask a superuser to raise dp.max_cells.")));
	rows->capacity = Min(Max(rows->capacity * 2, 1024), (size_t) dp_max_cells);
	account(rows, (rows->capacity - old_capacity) *
			(rows->n_keys * sizeof(uint32) + (rows->has_count ? sizeof(int64) : 0) +
			 (rows->unit != NULL ? sizeof(uint32) : 0)));
	for (k = 0; k < rows->n_keys; k++)
		rows->codes[k] = grow_mapped(rows->code_arrays[k], rows->capacity * sizeof(uint32));
	if (rows->has_count)
		rows->counts = grow_mapped(rows->count_array, rows->capacity * sizeof(int64));
	if (rows->unit != NULL)
		rows->unit_codes = grow_mapped(rows->unit_code_array, rows->capacity * sizeof(uint32));
}

/*
 * A key's binary image for the core: a by-value key is its Datum, an 8-byte
 * word (coded by idp_key_encode_words); a varlena its data without the
 * header, a cstring its characters, any other by-reference type its typlen
 * bytes. Equal values of a type have equal images for every type GROUP BY
 * can tell apart by its output.
 */
StaticAssertDecl(SIZEOF_DATUM == 8, "a by-value key's image is an 8-byte word (idp_key_encoder_new_words)");

static void
binary_image(const KeyColumn *column, const Datum *datum, const void **data, uint32 *size)
{
	Pointer		value = DatumGetPointer(*datum);

	if (column->typlen == -1)
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

/*
 * The first value seen equal to value under SQL (key_equality.h), kept in
 * the arena (by reference) so that it outlives the read.
 */
static Datum
class_representative(QueryRows *rows, KeyColumn *column, Datum value)
{
	uint32		hash;
	bool		found;
	Datum		kept = key_equality_find(column->equality, value, &hash, &found);

	if (found)
		return kept;
	account(rows, key_equality_growth(column->equality));
	kept = column->typbyval ? value : arena_copy(rows, column, value);
	key_equality_add(column->equality, kept, hash);
	return kept;
}

/*
 * Keeps a row's key (slot s of the batch's last row) until the batch is
 * coded: by value, or its bytes copied into the batch's buffer (counted
 * under dp.max_source_memory as the buffer grows), or the representative of
 * its equality class.
 */
static void
batch_put(QueryRows *rows, KeyColumn *column, int s, Datum value, bool isnull)
{
	RowBatch   *batch = rows->batch;
	size_t		i = (size_t) s * BATCH_ROWS + batch->n_rows;
	Pointer		source;
	Size		size;
	Size		needed;

	batch->nulls[i] = isnull;
	if (!isnull && column->equality != NULL)
		value = class_representative(rows, column, value);
	batch->values[i] = value;
	if (isnull || column->typbyval || column->equality != NULL)
		return;
	/* A varlena stays packed (short header) unless compressed or external. */
	check_detoast_room(rows, column, value);
	source = column->typlen == -1 ? (Pointer) PG_DETOAST_DATUM_PACKED(value) : DatumGetPointer(value);
	size = datumGetSize(PointerGetDatum(source), false, column->typlen);
	needed = MAXALIGN(batch->buffer.len) + size + 1;
	if (needed > (Size) batch->buffer.maxlen)
	{
		/* As enlargeStringInfo grows it: doubling. */
		Size		grown = batch->buffer.maxlen;

		while (grown < needed && grown < MaxAllocSize)
			grown *= 2;
		account(rows, Min(grown, MaxAllocSize) - batch->buffer.maxlen);
	}
	appendStringInfoSpaces(&batch->buffer, (int) (MAXALIGN(batch->buffer.len) - batch->buffer.len));
	batch->values[i] = (Datum) batch->buffer.len;	/* an offset until the buffer stops moving */
	appendBinaryStringInfo(&batch->buffer, source, (int) size);
	if (source != DatumGetPointer(value))
		pfree(source);
}

/*
 * A row-numbered column's batch was coded into the batch's scratch codes:
 * while every row so far brought a new key its codes are the row numbers
 * and nothing is written (the column's array stays untouched, never
 * faulted in); at the first row that repeats a key, the codes so far are
 * written out and the column is stored from then on.
 */
static void
settle_row_numbers(QueryRows *rows, int k, const KeyColumn *column)
{
	RowBatch   *batch = rows->batch;
	size_t		first = rows->n_rows - batch->n_rows;
	size_t		r;

	if (column->dictionary.n_levels == rows->n_rows)
		return;
	for (r = 0; r < first; r++)
	{
		if ((r & ((1 << 20) - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
		rows->codes[k][r] = (uint32) r;
	}
	memcpy(rows->codes[k] + first, batch->codes, sizeof(uint32) * batch->n_rows);
	rows->row_numbered[k] = false;
}

/*
 * Codes the batch's keys of slot s in their column's dictionary: the core
 * writes the codes into column_codes (the batch's rows on), and a
 * by-reference key seen for the first time is copied into the arena.
 * column_codes NULL: into the batch's scratch codes (a row-numbered column).
 */
static void
code_slot(QueryRows *rows, KeyColumn *column, int s, uint32 *column_codes)
{
	RowBatch   *batch = rows->batch;
	uint32	   *codes = column_codes ? column_codes + (rows->n_rows - batch->n_rows) : batch->codes;
	Datum	   *values = batch->values + (size_t) s * BATCH_ROWS;
	bool	   *nulls = batch->nulls + (size_t) s * BATCH_ROWS;
	idp_error	error;
	idp_status	status;
	Size		before;
	Size		max_bytes;
	int			r;

	/*
	 * The dictionary may grow by what the limit leaves: the encoder refuses
	 * (IDP_TOO_LARGE; dp.max_cells keeps a column far below its limit of
	 * distinct keys, its only other refusal) before it allocates more.
	 */
	before = idp_key_encoder_bytes(column->encoder);
	max_bytes = before + (source_memory_limit() - rows->bytes);
	if (column->typbyval)
		status = idp_key_encode_words(column->encoder, batch->n_rows, (const uint64 *) values, nulls, codes,
									  &batch->interrupts, max_bytes, &error);
	else
	{
		for (r = 0; r < batch->n_rows; r++)
		{
			if (nulls[r])
			{
				batch->data[r] = NULL;
				batch->size[r] = 0;
				continue;
			}
			if (column->equality == NULL)
				values[r] = PointerGetDatum(batch->buffer.data + values[r]);
			binary_image(column, &values[r], &batch->data[r], &batch->size[r]);
		}
		status = idp_key_encode(column->encoder, batch->n_rows, batch->data, batch->size, codes,
								&batch->interrupts, max_bytes, &error);
	}
	switch (status)
	{
		case IDP_OK:
			break;
		case IDP_TOO_LARGE:
			refuse_memory(rows, 0);
			break;
		default:
			raise_core_error(&error);
	}
	rows->bytes += idp_key_encoder_bytes(column->encoder) - before;
	for (r = 0; r < batch->n_rows; r++)
	{
		uint32		code = codes[r];

		if (column->typbyval || code < column->n_levels)
			continue;
		/* New codes come in order: code == n_levels. */
		if (column->n_levels == column->level_capacity)
		{
			column->level_capacity = Max(column->level_capacity * 2, 1024);
			account(rows, (column->level_capacity - column->n_levels) * sizeof(Datum));
			column->level_values = grow_mapped(column->level_array, column->level_capacity * sizeof(Datum));
		}
		if (nulls[r])
			column->level_values[column->n_levels++] = (Datum) 0;
		else
		{
			/* A class's representative is in the arena already. */
			Datum		kept = column->equality != NULL ? values[r] : arena_copy(rows, column, values[r]);
			const void *data;
			uint32		size;

			column->level_values[column->n_levels++] = kept;
			/* The encoder borrowed the batch's bytes: from now on the arena's. */
			binary_image(column, &kept, &data, &size);
			if (idp_key_encoder_keep_bytes(column->encoder, code, data, &error) != IDP_OK)
				raise_core_error(&error);
		}
	}
	column->dictionary = idp_key_encoder_dictionary(column->encoder);
}

/* Codes the rows of the batch. */
static void
code_batch(QueryRows *rows)
{
	RowBatch   *batch = rows->batch;
	int			k;

	if (batch->n_rows == 0)
		return;
	for (k = 0; k < rows->n_keys; k++)
	{
		code_slot(rows, &rows->columns[k], k, rows->row_numbered[k] ? NULL : rows->codes[k]);
		if (rows->row_numbered[k])
			settle_row_numbers(rows, k, &rows->columns[k]);
	}
	if (rows->unit != NULL)
		code_slot(rows, rows->unit, rows->n_keys, rows->unit_codes);
	batch->n_rows = 0;
	resetStringInfo(&batch->buffer);
}

/*
 * The row's count, or an error naming its keys (the batch is coded first,
 * so that this row has its codes).
 */
static int64
count_value(const RowCollector *collector, Datum value, bool isnull, size_t row)
{
	QueryRows  *rows = collector->rows;
	int64		count;

	if (isnull)
	{
		code_batch(rows);
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("count in %s must not be NULL", rows->what),
				 errdetail("%s has a NULL count.", describe_row(rows, row)),
				 errhint("Use count(*) or coalesce(..., 0).")));
	}
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
			{
				code_batch(rows);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("count in %s must be an integer", rows->what),
						 errdetail("%s has a fractional count.", describe_row(rows, row))));
			}
	}
	if (count < 0)
	{
		code_batch(rows);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count in %s must not be negative", rows->what),
				 errdetail("%s has count " INT64_FORMAT ".", describe_row(rows, row), count)));
	}
	return count;
}

static bool
collector_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	RowBatch   *batch = rows->batch;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);
	int			k;

	if ((rows->n_rows & 8191) == 0)
		CHECK_FOR_INTERRUPTS();
	grow(rows);
	slot_getallattrs(slot);
	for (k = 0; k < rows->n_keys; k++)
	{
		int			a = key_attno(rows, k);

		batch_put(rows, &rows->columns[k], k, slot->tts_values[a], slot->tts_isnull[a]);
	}
	if (rows->unit != NULL)
		batch_put(rows, rows->unit, rows->n_keys, slot->tts_values[rows->unit_attno],
				  slot->tts_isnull[rows->unit_attno]);
	batch->n_rows++;
	rows->n_rows++;
	if (rows->has_count)
	{
		int			a = slot->tts_tupleDescriptor->natts - 1;

		rows->counts[rows->n_rows - 1] = count_value(collector, slot->tts_values[a], slot->tts_isnull[a],
													 rows->n_rows - 1);
	}
	if (batch->n_rows == BATCH_ROWS || batch->buffer.len > BATCH_BYTES)
		code_batch(rows);
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
	/* SPI returns in its own context: the rows' memory is the caller's. */
	MemoryContextSwitchTo(collector.cxt);
	if (rc != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", rows->what),
				 errdetail("SPI returned %s.", SPI_result_code_string(rc))));
	code_batch(rows);
}
