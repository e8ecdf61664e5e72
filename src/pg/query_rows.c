/*
 * The coded rows of a source or domain read back (see source_reader.h),
 * as read_query_rows fills them: keys as Datums and text, the cells for
 * the core, and a row's keys as an error names them (the receiver's, when
 * a count is bad). Reads only: nothing here runs a query or codes a row,
 * so the receiver may call it and it calls nothing back.
 */
#include "postgres.h"

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
