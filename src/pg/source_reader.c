/*
 * Reads a source or domain query (see source_reader.h): runs it through SPI
 * into the receiver (source_receiver.c), and reads the coded rows back:
 * keys as Datums and text, the cells for the core. Everything here is C:
 * errors are ordinary ereports, and the rows land in the memory context that
 * was current when read_query_rows was called.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "source_reader_internal.h"

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
char *
describe_row(const QueryRows *rows, size_t row)
{
	return psprintf("Key %s", describe_keys(rows, row, ~(uint64) 0));
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
