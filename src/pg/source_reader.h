/*
 * Runs the analyst's source (or domain) query through SPI, read-only and
 * with the caller's privileges, and collects its rows into plain buffers:
 * each key as text (for the core) and as a Datum (to return with its own
 * type), and the count. Streams through a DestReceiver, so the query keeps
 * parallel plans and a too-large result is refused as it arrives.
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
	ColumnsKnownFn on_columns;
	void	   *on_columns_arg;

	/* filled by read_query_rows */
	int			n_keys;
	char	  **key_names;
	Oid		   *key_types;
	size_t		n_rows;
	char	  **key_text;		/* n_rows * n_keys, row-major; NULL = SQL NULL */
	Datum	   *key_values;		/* n_rows * n_keys */
	bool	   *key_nulls;		/* n_rows * n_keys */
	int64	   *counts;			/* n_rows, if has_count */
	size_t		capacity;
};

/* Must be called between SPI_connect and SPI_finish. */
extern void read_query_rows(const char *query, QueryRows *rows);

#endif
