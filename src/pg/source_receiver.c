/*
 * The receiver that codes a source's rows as they arrive: each row's keys
 * wait in a batch, coded 64 rows at a time in their columns' dictionaries,
 * and its count is checked (source_reader_internal.h).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "gucs.h"

#include "source_reader_internal.h"

/*
 * The result's columns: where the unit and the count are, each key's name,
 * type and collation (names must differ where margins name them), checked
 * against the caller's expectations (on_columns).
 */
static void
describe_columns(RowCollector *collector, TupleDesc desc)
{
	QueryRows  *rows = collector->rows;
	int			k;

	rows->unit_attno = rows->unit_column != NULL ? unit_attno(desc, rows) : -1;
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
}

/*
 * Each key column's dictionary (shared with the rows whose keys these
 * share, as a domain shares the source's) and the unit's, and the arrays
 * the codes go to.
 */
static void
init_columns(QueryRows *rows, TupleDesc desc, MemoryContext cxt)
{
	int			k;

	rows->arena = palloc0(sizeof(KeyArena));
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
							rows->key_names[k], rows->what, cxt);
	}
	if (rows->unit_attno >= 0)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, rows->unit_attno);

		rows->unit = palloc(sizeof(KeyColumn));
		init_key_column(rows->unit, attr->atttypid, attr->attcollation, "privacy unit", rows->unit_column, rows->what,
						cxt);
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
}

/* The batch of rows waiting to be coded: one slot a key, and the unit's. */
static RowBatch *
new_batch(const QueryRows *rows)
{
	RowBatch   *batch = palloc0(sizeof(RowBatch));

	batch->n_slots = rows->n_keys + (rows->unit != NULL ? 1 : 0);
	batch->values = palloc(sizeof(Datum) * BATCH_ROWS * Max(batch->n_slots, 1));
	batch->nulls = palloc(sizeof(bool) * BATCH_ROWS * Max(batch->n_slots, 1));
	batch->data = palloc(sizeof(void *) * BATCH_ROWS);
	batch->size = palloc(sizeof(uint32) * BATCH_ROWS);
	batch->codes = palloc(sizeof(uint32) * BATCH_ROWS);
	batch->interrupts = pg_interrupts();
	initStringInfo(&batch->buffer);
	return batch;
}

void
collector_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RowCollector *collector = (RowCollector *) self;
	QueryRows  *rows = collector->rows;
	MemoryContext old = MemoryContextSwitchTo(collector->cxt);

	describe_columns(collector, desc);
	MemoryContextSwitchTo(old);
	if (rows->on_columns)
		rows->on_columns(rows, rows->on_columns_arg);
	MemoryContextSwitchTo(collector->cxt);
	init_columns(rows, desc, collector->cxt);
	rows->batch = new_batch(rows);
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
				 rows->has_count ?
				 errhint("Aggregate to fewer cells, or ask a superuser to raise dp.max_cells.") :
				 errhint("Each row of a source of rows (a privacy unit's, or {\"source\": \"rows\"}) counts "
						 "against dp.max_cells: ask a superuser to raise it, or aggregate the source with "
						 "GROUP BY (without a privacy unit).")));
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

static void
encode_slot(QueryRows *rows, KeyColumn *column, Datum *values, const bool *nulls, uint32 *codes)
{
	RowBatch   *batch = rows->batch;
	idp_error	error;
	idp_status	status;
	Size		before = idp_key_encoder_bytes(column->encoder);
	/*
	 * The dictionary may grow by what the limit leaves: the encoder refuses
	 * (IDP_TOO_LARGE; dp.max_cells keeps a column far below its limit of
	 * distinct keys, its only other refusal) before it allocates more.
	 */
	Size		max_bytes = before + (source_memory_limit() - rows->bytes);
	int			r;

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
	if (status == IDP_TOO_LARGE)
		refuse_memory(rows, 0);
	if (status != IDP_OK)
		raise_core_error(&error);
	rows->bytes += idp_key_encoder_bytes(column->encoder) - before;
}

/*
 * The by-reference keys the batch brought for the first time, kept by code
 * (a copy in the arena, which the encoder borrows from now on instead of
 * the batch's bytes).
 */
static void
keep_new_levels(QueryRows *rows, KeyColumn *column, const Datum *values, const bool *nulls, const uint32 *codes)
{
	idp_error	error;
	int			r;

	for (r = 0; r < rows->batch->n_rows; r++)
	{
		Datum		kept;
		const void *data;
		uint32		size;

		if (codes[r] < column->n_levels)
			continue;
		/* New codes come in order: code == n_levels. */
		if (column->n_levels == column->level_capacity)
		{
			column->level_capacity = Max(column->level_capacity * 2, 1024);
			account(rows, (column->level_capacity - column->n_levels) * sizeof(Datum));
			column->level_values = grow_mapped(column->level_array, column->level_capacity * sizeof(Datum));
		}
		if (nulls[r])
		{
			column->level_values[column->n_levels++] = (Datum) 0;
			continue;
		}
		/* A class's representative is in the arena already. */
		kept = column->equality != NULL ? values[r] : arena_copy(rows, column, values[r]);
		column->level_values[column->n_levels++] = kept;
		binary_image(column, &kept, &data, &size);
		if (idp_key_encoder_keep_bytes(column->encoder, codes[r], data, &error) != IDP_OK)
			raise_core_error(&error);
	}
}

/*
 * Codes the batch's keys of slot s in their column's dictionary: the core
 * writes the codes into column_codes (the batch's rows on), or, when it is
 * NULL, into the batch's scratch codes (a row-numbered column).
 */
static void
code_slot(QueryRows *rows, KeyColumn *column, int s, uint32 *column_codes)
{
	RowBatch   *batch = rows->batch;
	uint32	   *codes = column_codes ? column_codes + (rows->n_rows - batch->n_rows) : batch->codes;
	Datum	   *values = batch->values + (size_t) s * BATCH_ROWS;
	bool	   *nulls = batch->nulls + (size_t) s * BATCH_ROWS;

	encode_slot(rows, column, values, nulls, codes);
	if (!column->typbyval)
		keep_new_levels(rows, column, values, nulls, codes);
	column->dictionary = idp_key_encoder_dictionary(column->encoder);
}

/* Codes the rows of the batch. */
void
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

bool
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

void
collector_noop(DestReceiver *self)
{
}
