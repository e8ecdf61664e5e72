/*
 * Runs the analyst's source (or domain) query through SPI, read-only and
 * with the caller's privileges, and collects its rows into plain buffers:
 * each key once, as a Datum (to return with its own type) whose binary
 * image the core reads, and the count. Streams through a DestReceiver, so
 * the query keeps parallel plans and a too-large result (rows or bytes) is
 * refused as it arrives.
 */
#ifndef INVARIANT_DP_SOURCE_READER_H
#define INVARIANT_DP_SOURCE_READER_H

#include "postgres.h"

typedef struct QueryRows QueryRows;

/* Called once the result's columns are known, before any row is read. */
typedef void (*ColumnsKnownFn) (const QueryRows *rows, void *arg);

struct QueryRows
{
	/* set by the caller */
	const char *what;			/* "source" or "domain", for messages */
	bool		has_count;		/* last column is a count */
	const char *unit_column;	/* NULL, or the column naming each row's privacy unit (not a key) */
	ColumnsKnownFn on_columns;
	void	   *on_columns_arg;

	/* filled by read_query_rows */
	int			n_keys;
	char	  **key_names;
	Oid		   *key_types;
	size_t		n_rows;
	Datum	   *key_values;		/* n_rows * n_keys, row-major; by-reference values in an arena */
	bool	   *key_nulls;		/* n_rows * n_keys */
	int64	   *counts;			/* n_rows, if has_count */
	/* each key as the core wants it (idp_keys): its binary image, NULL data = SQL NULL */
	const void **key_data;		/* n_rows * n_keys */
	uint32	   *key_size;		/* n_rows * n_keys */
	/* with unit_column: each row's unit, stored and imaged like a key */
	Datum	   *unit_values;	/* n_rows */
	bool	   *unit_nulls;
	const void **unit_data;
	uint32	   *unit_size;

	/* internal */
	size_t		capacity;
	struct KeyColumn *columns;	/* per key: how it is stored and printed */
	struct KeyColumn *unit;		/* the unit column's, with unit_column */
	int			unit_attno;		/* its position in the result (0-based), -1 without */
	struct KeyArena *arena;		/* copies of by-reference keys */
	Size		bytes;			/* memory held, against dp.max_source_memory */
};

/* Must be called between SPI_connect and SPI_finish. */
extern void read_query_rows(const char *query, QueryRows *rows);

/* Key k of a row as text (the type's output function), or NULL for SQL NULL. */
extern char *query_key_text(const QueryRows *rows, size_t row, int k);

/*
 * "(county, edu)=(Alpha, Low)": the keys of a row on the key columns whose
 * bit is set in columns (bit k for key k; all bits: every key).
 */
extern char *describe_keys(const QueryRows *rows, size_t row, uint64 columns);

#endif
