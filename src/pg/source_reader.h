/*
 * Runs the analyst's source (or domain) query through SPI, read-only and
 * with the caller's privileges, and codes its rows as they arrive: each key
 * column has a dictionary of its distinct keys in the core (idp_key_encoder,
 * keyed by the value's binary image), and a row keeps only its keys' codes
 * (4 bytes each), its count and, with a privacy unit, its unit's code. Each
 * distinct key is kept once, as a Datum to return with its own type. A key
 * column whose every row brings a new key (ids, blocks: the widest
 * releases) keeps no codes at all while that lasts: they are the row
 * numbers (row_numbered).
 * Streams through a DestReceiver, so the query keeps parallel plans and a
 * too-large result (rows or bytes) is refused as it arrives.
 */
#ifndef INVARIANT_DP_SOURCE_READER_H
#define INVARIANT_DP_SOURCE_READER_H

#include "postgres.h"

#include "core_bridge.h"

typedef struct QueryRows QueryRows;

/* Called once the result's columns are known, before any row is read. */
typedef void (*ColumnsKnownFn) (const QueryRows *rows, void *arg);

struct QueryRows
{
	/* set by the caller */
	const char *what;			/* "source" or "domain", for messages */
	bool		has_count;		/* last column is a count */
	const char *unit_column;	/* NULL, or the column naming each row's privacy unit (not a key) */
	ColumnsKnownFn on_columns;	/* must check the key types against shares_keys_with's */
	void	   *on_columns_arg;
	QueryRows  *shares_keys_with;	/* NULL, or the rows whose dictionaries code these keys too */
	bool		rows_may_number_keys;	/* a key column whose every row brings a new key may be row-numbered */

	/* filled by read_query_rows */
	int			n_keys;
	char	  **key_names;
	Oid		   *key_types;
	Oid		   *key_collations;	/* each key column's collation, as ORDER BY would use */
	size_t		n_rows;
	uint32	  **codes;			/* n_keys arrays of n_rows: codes[k][row] is key k's code in its column's dictionary */
	bool	   *row_numbered;	/* per key: row r's code is r (every row brought a new key, as a source of
								 * distinct keys does), and codes[k] is not written: read codes with
								 * query_key_code */
	int64	   *counts;			/* n_rows, if has_count */
	uint32	   *unit_codes;		/* n_rows, with unit_column */

	/* internal */
	size_t		capacity;
	struct KeyColumn *columns;	/* per key: its dictionary, how it is stored and printed */
	struct KeyColumn *unit;		/* the unit column's, with unit_column */
	int			unit_attno;		/* its position in the result (0-based), -1 without */
	struct KeyArena *arena;		/* copies of by-reference keys */
	struct RowBatch *batch;		/* rows read but not yet coded */
	struct MappedArray **code_arrays;	/* where codes[k], counts, unit_codes live */
	struct MappedArray *count_array;
	struct MappedArray *unit_code_array;
	Size		bytes;			/* memory held, against dp.max_source_memory */
};

/* Must be called between SPI_connect and SPI_finish (source_reader.c). */
extern void read_query_rows(const char *query, QueryRows *rows);

/* The rows read back, once read_query_rows returned (query_rows.c). */

/* Key k's code on a row, stored or row-numbered. */
static inline uint32
query_key_code(const QueryRows *rows, size_t row, int k)
{
	return rows->row_numbered[k] ? (uint32) row : rows->codes[k][row];
}

/* Key k of a row as its Datum (*isnull for SQL NULL). */
extern Datum query_key_datum(const QueryRows *rows, size_t row, int k, bool *isnull);

/* How many distinct values key k has: its codes are 0 .. n - 1. */
extern size_t query_key_levels(const QueryRows *rows, int k);

/* The value of key k with this code (*isnull for SQL NULL). */
extern Datum query_level_datum(const QueryRows *rows, int k, uint32 code, bool *isnull);

/* Key k of a row as text (the type's output function), or NULL for SQL NULL. */
extern char *query_key_text(const QueryRows *rows, size_t row, int k);

/* The value of key k with this code as text, or NULL for SQL NULL. */
extern char *query_level_text(const QueryRows *rows, int k, uint32 code);

/*
 * The cells for the core: the source's keys, counts and units, and the
 * domain's keys (domain NULL: none; it must share the source's keys).
 */
extern idp_cells query_cells(const QueryRows *source, const QueryRows *domain);

/*
 * "(county, edu)=(Alpha, Low)": the keys of a row on the key columns whose
 * bit is set in columns (bit k for key k; all bits: every key).
 */
extern char *describe_keys(const QueryRows *rows, size_t row, uint64 columns);

#endif
