/*
 * The C boundary of the error bars of sums of released cells
 * (dp.margin_of_error, dp.sum_variance, dp.error_bar: src/pg/margin_of_error.c):
 * a release table's rows and its published noise law in, the variance of
 * any weighted sum of its rows and its margin of error out
 * (src/core/accuracy/published_release.hpp). On the terms of
 * invariant_dp_core.h: one guard per entry point, errors as idp_status with
 * PostgreSQL-style texts, the core's allocations freed by the matching
 * idp_accuracy_free.
 *
 * Use: idp_accuracy_layout says which of the table's columns are keys and
 * levels; the caller reads the table, codes each key column (equal keys,
 * equal codes: an idp_key_encoder) and gives every row a 128-bit identity
 * computed from the whole row; idp_accuracy_prepare builds the structure
 * (O(rows)); then each idp_accuracy_sum costs O(rows in the sum), its rows
 * named by the same identities.
 */
#ifndef INVARIANT_DP_ACCURACY_H
#define INVARIANT_DP_ACCURACY_H

#include "invariant_dp_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the layout needs to know of a column's type. */
typedef enum idp_column_type
{
	IDP_COLUMN_OTHER = 0,
	IDP_COLUMN_INT4,
	IDP_COLUMN_INT8,
	IDP_COLUMN_FLOAT8,
	IDP_COLUMN_NUMERIC
} idp_column_type;

/* A release table's columns, in order. */
typedef struct idp_table_columns
{
	size_t		n_columns;
	const char *const *names;
	const idp_column_type *types;
	/*
	 * The release's key columns as its law names them, when known (a
	 * governed release's pinned source): the table's first n_key_names
	 * columns. 0: found from the law and the types.
	 */
	size_t		n_key_names;
	const char *const *key_names;
} idp_table_columns;

typedef struct idp_row_layout
{
	size_t		n_keys;			/* the table's first n_keys columns are the keys */
	size_t		n_level_columns;	/* the law's hierarchies: 0, 1 or 2 */
	int			level_column[2];	/* the table column of each one's level, or -1 */
	bool		period_order;	/* a stream: pass the rows in period order */
} idp_row_layout;

idp_status	idp_accuracy_layout(const char *law_json, const idp_table_columns *columns,
								idp_row_layout *layout, idp_error *error);

/* A row's identity: a 128-bit hash of the whole row, equal for equal rows. */
typedef struct idp_row_id
{
	uint64_t	hi;
	uint64_t	lo;
} idp_row_id;

/* One key column: each row's code, the number of codes, the code of NULL. */
typedef struct idp_key_codes
{
	const uint32_t *codes;
	uint32_t	n_levels;
	uint32_t	null_code;		/* 0xffffffff: the column holds no NULL */
} idp_key_codes;

typedef struct idp_release_rows
{
	size_t		n_rows;
	const idp_row_id *ids;
	const idp_key_codes *keys;	/* layout.n_keys */
	/* layout.n_level_columns arrays of n_rows (NULL: no level column); < 0: NULL */
	const int32_t *const *levels;
} idp_release_rows;

typedef struct idp_accuracy idp_accuracy;

/*
 * The structure of the release the rows and the law describe; *out is NULL
 * unless IDP_OK (IDP_INVALID_DATA: the rows are not the law's release).
 */
idp_status	idp_accuracy_prepare(const char *law_json, const idp_table_columns *columns,
								 const idp_release_rows *rows, const idp_interrupts *interrupts,
								 idp_accuracy **out, idp_error *error);

typedef struct idp_error_bar
{
	size_t		unknown_rows;	/* rows of no cell of the release: nothing else is set */
	size_t		cells;			/* released rows in the sum (non-zero total weight) */
	double		variance_lower;
	double		variance;		/* the upper end when certified */
	const char *variance_kind;	/* "exact", "certified", "estimate" */
	bool		has_margin;
	double		margin_of_error;	/* the half-width at the level asked */
	const char *margin_kind;
	char		method[192];	/* how the margin follows from the variance */
	const char *caveat;			/* NULL, or why the figure is the law's only (a chain) */
} idp_error_bar;

/*
 * The sum of weights[i] times row ids[i] (NULL weights: every one 1; a row
 * twice counts twice); level in (0, 1), or NaN for no margin of error.
 */
idp_status	idp_accuracy_sum(idp_accuracy *accuracy, size_t n, const idp_row_id *ids, const double *weights,
							 double level, const idp_interrupts *interrupts, idp_error_bar *out,
							 idp_error *error);

/* The covariance in words, with how it is known (valid until freed). */
const char *idp_accuracy_statement(const idp_accuracy *accuracy);

/* The rows the structure was built from. */
size_t		idp_accuracy_rows(const idp_accuracy *accuracy);

void		idp_accuracy_free(idp_accuracy *accuracy);

#ifdef __cplusplus
}
#endif

#endif							/* INVARIANT_DP_ACCURACY_H */
