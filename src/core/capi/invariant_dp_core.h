/*
 * The C boundary of the C++ core, as the PostgreSQL shim sees it: releases
 * (dp.privatize in every form), the per-group aggregate and window
 * function, MCMC diagnostics and range variances. invariant_dp_stream.h
 * adds the streaming cascade on the same terms. Every function here catches
 * every C++ exception (one guard, capi_guard.hpp) and reports it as an
 * idp_status plus PostgreSQL-style message/detail/hint, so no exception and
 * no C++ frame ever meets a PostgreSQL longjmp. What the core allocates
 * (a release table, diagnostic rows, JSON text) the caller releases with the
 * matching idp_free_* call.
 */
#ifndef INVARIANT_DP_CORE_H
#define INVARIANT_DP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum idp_status {
	IDP_OK = 0,
	IDP_INVALID_ARGUMENT,		/* 22023 */
	IDP_OUT_OF_RANGE,			/* 22003 */
	IDP_INVALID_DATA,			/* 22000 */
	IDP_INCONSISTENT_INVARIANTS,	/* 22023 */
	IDP_TOO_LARGE,				/* 54000 */
	IDP_OUT_OF_MEMORY,			/* 53200 */
	IDP_INTERRUPTED,			/* 57014 */
	IDP_INTERNAL,				/* XX000 */
	IDP_NULL_VALUE				/* 22004 */
} idp_status;

/*
 * A cell's key named by an error. The core holds keys only as bytes: its
 * message, detail or hint say "{key0}" or "{key1}" where the keys of
 * error->keys[0] or [1] belong, and the caller renders them
 * ("(county, edu)=(Alpha, Low)") from the rows it passed.
 */
typedef enum idp_key_table
{
	IDP_KEYS_NONE = 0,
	IDP_KEYS_SOURCE,			/* idp_cells.source_keys */
	IDP_KEYS_DOMAIN				/* idp_cells.domain_keys */
} idp_key_table;

typedef struct idp_key_ref
{
	idp_key_table table;
	uint64_t	row;
	uint64_t	columns;		/* bit k: key column k is named (all bits: every column) */
} idp_key_ref;

typedef struct idp_error
{
	idp_status	status;
	char		message[256];
	char		detail[1024];
	char		hint[512];
	idp_key_ref keys[2];
} idp_error;

/*
 * Polled by long loops; pending must only read a flag, never raise an
 * error. progress (optional) is told how far a long computation is; it must
 * not raise either (report a failure by making pending return true).
 */
typedef struct idp_interrupts
{
	bool		(*pending) (void *context);
	void	   *context;
	void		(*progress) (void *context, const char *stage, uint64_t done, uint64_t total);
} idp_interrupts;

/*
 * Where noise comes from: the OS CSPRNG unless a superuser fixed a seed. A
 * new seed_generation restarts the seeded stream; otherwise it continues.
 */
typedef struct idp_randomness
{
	bool		seeded;
	uint64_t	seed;
	uint64_t	seed_generation;
} idp_randomness;

/* dp.privatize's arguments, unvalidated. */
typedef struct idp_request
{
	const char *mechanism;
	double		epsilon;
	bool		epsilon_is_null;	/* the cascade may be calibrated otherwise */
	bool		has_delta;
	double		delta;
	size_t		n_margins;
	const char *const *margins;		/* each "a,b" or "" */
	size_t		n_options;
	const char *const *option_keys;
	const char *const *option_values;	/* jsonb scalars as text, arrays as JSON */
	const char *option_types;	/* one per option: 's'tring, 'n'umber, 'b'oolean,
								 * 'a'rray, 'o'bject, 'z' null; NULL: not said */
	size_t		n_hierarchy;
	const char *const *hierarchy;	/* level columns, coarsest first; none = flat */
	const char *privacy_unit;	/* the unit column's name; NULL: one row per person */
	bool		has_bounds;		/* bounds given (jsonb, flattened like options) */
	size_t		n_bounds;
	const char *const *bound_keys;
	const char *const *bound_values;
} idp_request;

/* What a valid request's result looks like: its columns after the keys. */
typedef struct idp_request_info
{
	bool		integer_output;	/* the count column may be bigint */
	bool		with_stddev;	/* a float8 noise standard deviation column */
	size_t		n_level_columns;	/* integer level columns: one per hierarchy with {"level": true} */
	double		interval_level;	/* {"interval": level}: lower and upper columns last; 0: none */
	bool		source_rows;	/* the source returns rows, no count ({"source": "rows"}, a privacy unit) */
} idp_request_info;

/*
 * A request validated once, before its source runs: idp_prepare_request
 * checks it and says what its result looks like (*info); idp_accept_columns
 * checks the margins and hierarchy against the source's key columns as
 * soon as they are known; idp_release then releases with it. *prepared is
 * NULL unless IDP_OK; free it with idp_free_prepared_request.
 */
typedef struct idp_prepared_request idp_prepared_request;

idp_status	idp_prepare_request(const idp_request *request, idp_prepared_request **prepared,
								idp_request_info *info, idp_error *error);
idp_status	idp_accept_columns(idp_prepared_request *prepared, size_t n_key_columns,
							   const char *const *key_columns, idp_error *error);
void		idp_free_prepared_request(idp_prepared_request *prepared);

/*
 * One key column's distinct keys, by code: key c is size[c] bytes at data[c]
 * (the value's binary image: equal values must be equal bytes), or SQL NULL
 * when data[c] is NULL; or, for keys of 8 bytes each (data and size NULL),
 * the word of code c (idp_key_word): words[c], or, while every word is a
 * sign-extended 32-bit integer, narrow_words[c] sign-extended (one of the
 * two is non-NULL); SQL NULL when c is null_code (0xffffffff: no NULL).
 * The bytes stay the caller's.
 */
typedef struct idp_key_dictionary
{
	size_t		n_levels;
	const void *const *data;
	const uint32_t *size;
	const uint64_t *words;
	uint32_t	null_code;
	const int32_t *narrow_words;
} idp_key_dictionary;

static inline bool
idp_key_has_words(const idp_key_dictionary *dictionary)
{
	return dictionary->words != NULL || dictionary->narrow_words != NULL;
}

static inline bool
idp_key_is_null(const idp_key_dictionary *dictionary, uint32_t code)
{
	return idp_key_has_words(dictionary) ? code == dictionary->null_code : dictionary->data[code] == NULL;
}

/* Key code's word (not NULL), in a dictionary of words. */
static inline uint64_t
idp_key_word(const idp_key_dictionary *dictionary, uint32_t code)
{
	return dictionary->words != NULL ? dictionary->words[code] : (uint64_t) (int64_t) dictionary->narrow_words[code];
}

/*
 * Keys, dictionary-encoded, a column at a time: columns[k][row] is the code
 * of the row's key k in dictionary k (n_columns arrays of n_rows codes).
 * A column whose codes are numbered by first appearance is used in place,
 * not copied, for the length of the call. columns[k] NULL: the column is
 * row-numbered, row r's code is r (every row brought a new key, as a
 * source of distinct keys does; the codes are not stored), and its
 * dictionary has at least n_rows levels. Unit keys are never row-numbered.
 */
typedef struct idp_keys
{
	const uint32_t *const *columns;
} idp_keys;

/*
 * The cells: source rows, and optionally a domain listing every cell; the
 * two share one dictionary per key column. With a privacy unit the source
 * rows are a unit's rows (unit_keys, one key per row, in unit_dictionary)
 * with no count (source_counts NULL: each row counts one); the core bounds
 * each unit's contribution and releases the distinct key tuples, each
 * printed from one of its source rows (idp_release_table.row_cell).
 */
typedef struct idp_cells
{
	size_t		n_columns;
	const char *const *column_names;
	const idp_key_dictionary *dictionaries;	/* n_columns */
	size_t		n_source_rows;
	idp_keys	source_keys;
	const int64_t *source_counts;
	bool		has_domain;
	size_t		n_domain_rows;
	idp_keys	domain_keys;
	idp_keys	unit_keys;		/* one column; columns NULL: no privacy unit */
	idp_key_dictionary unit_dictionary;
	/*
	 * The core may write the released values over source_counts when the
	 * released cells are the source rows themselves (no domain, unit,
	 * partition selection or hierarchy): integers as they are, reals as
	 * float8 in the same 8 bytes a row. idp_release_table.integer_values or
	 * values then points into them, and they must outlive the table.
	 */
	bool		counts_writable;
} idp_cells;

/*
 * How the shim codes keys as rows arrive: one encoder per key column (and
 * one for the unit). Codes are numbered 0, 1, ... in order of first
 * appearance; each new key's bytes are copied, so the caller's may go.
 * idp_key_encoder_new returns NULL when out of memory.
 */
typedef struct idp_key_encoder idp_key_encoder;

idp_key_encoder *idp_key_encoder_new(void);

/* An encoder of keys of exactly 8 bytes each (by-value Datums): see key_encoder.hpp. */
idp_key_encoder *idp_key_encoder_new_words(void);

/*
 * An encoder that does not copy keys: a new key's code points at the bytes
 * the caller passed, and after each idp_key_encode the caller gives every
 * new code (n_levels before the call on) the place its bytes will stay,
 * with idp_key_encoder_keep_bytes, before it frees the bytes it passed.
 */
idp_key_encoder *idp_key_encoder_new_borrowing(void);
idp_status	idp_key_encoder_keep_bytes(idp_key_encoder *encoder, uint32_t code, const void *data,
									   idp_error *error);

/*
 * codes[i] = the code of key i (data[i] NULL: SQL NULL, else size[i] bytes);
 * interrupts (may be NULL) are polled while the dictionary grows. The
 * encoder never holds more than max_bytes (SIZE_MAX: no limit): a growth
 * that would pass it is refused before it allocates (IDP_TOO_LARGE, as is a
 * column of more than 3 * 2^30 distinct keys).
 */
idp_status	idp_key_encode(idp_key_encoder *encoder, size_t n, const void *const *data,
						   const uint32_t *size, uint32_t *codes, const idp_interrupts *interrupts,
						   size_t max_bytes, idp_error *error);

/*
 * The same for an encoder of words (idp_key_encoder_new_words): key i is
 * the 8 bytes of words[i], or SQL NULL when nulls[i].
 */
idp_status	idp_key_encode_words(idp_key_encoder *encoder, size_t n, const uint64_t *words, const bool *nulls,
								 uint32_t *codes, const idp_interrupts *interrupts, size_t max_bytes,
								 idp_error *error);

/* The keys coded so far; valid until the next idp_key_encode or free. */
idp_key_dictionary idp_key_encoder_dictionary(const idp_key_encoder *encoder);

/* Memory the encoder holds, in bytes. */
size_t		idp_key_encoder_bytes(const idp_key_encoder *encoder);

void		idp_key_encoder_free(idp_key_encoder *encoder);

/*
 * A release, row by row: one row per released cell (the source's rows, or
 * the domain's if given; with a privacy unit or partition selection some of
 * the source's rows), or with a hierarchy one per node (the cells and
 * every rollup), or with two crossed hierarchies one per pair of nodes.
 * Row r prints the keys of cell row_cell[r] (row_cell NULL: cell r),
 * except the keys below its level: key k is printed when row_is_cell[r]
 * (row_is_cell NULL: every row is a cell), or when it is a level of
 * hierarchy key_axis[k] (< n_axes) and key_depth[k] <= the row's depth in
 * that hierarchy, row_depth[r * n_axes + key_axis[k]] (0 = the hierarchy's
 * total). The depths are also the level columns. Core-allocated; release it
 * with idp_free_release.
 */
typedef struct idp_release_table
{
	bool		integer_output;
	size_t		n_rows;
	size_t		n_keys;
	size_t		n_axes;			/* hierarchies: 0, 1, or 2 when crossed */
	uint32_t   *row_cell;
	bool	   *row_is_cell;
	uint32_t   *row_depth;		/* n_rows * n_axes */
	uint32_t   *key_axis;		/* n_keys; n_axes for a key that is no level */
	uint32_t   *key_depth;		/* n_keys */
	double	   *values;			/* real mechanisms, else NULL */
	int64_t    *integer_values;	/* integer mechanisms, else NULL */
	double	   *noise_sd;		/* when stddev was asked, else NULL */
	bool		has_intervals;	/* an interval was asked: idp_release_bounds reads them */
	char	   *metadata_json;	/* the published noise law */
	void	   *storage;		/* the core's: what the arrays point into */
} idp_release_table;

/*
 * The release of a prepared request (the cells' key columns are checked
 * here unless idp_accept_columns accepted these); *table is NULL unless
 * IDP_OK.
 */
idp_status	idp_release(const idp_prepared_request *prepared, const idp_cells *cells,
						const idp_randomness *randomness,
						const idp_interrupts *interrupts,
						idp_release_table **table, idp_error *error);

void		idp_free_release(idp_release_table *table);

/*
 * Rows [first, first + n) of a table with intervals: each row's bounds,
 * value - t and value + t, in the values' type (integer_lower and
 * integer_upper for integer values, lower and upper for real ones, which
 * are rounded outward; the other pair is not written). The core computes
 * them as they are read, a few rows at a time, instead of two arrays of
 * bounds per release; integer bounds were checked to fit bigint when the
 * release was made, so this cannot fail.
 */
void		idp_release_bounds(const idp_release_table *table, size_t first, size_t n, double *lower,
							   double *upper, int64_t *integer_lower, int64_t *integer_upper);

/*
 * Names the role a call into the core runs as, before any call that may
 * read what the core keeps in the process between calls (lattice bases,
 * table cells' quantiles): a role other than the last one named starts
 * from nothing kept (release/kept_results.hpp).
 */
void		idp_keep_results_for(uint32_t role);

/*
 * dp.range_variance: the variance of the sum of released leaves first..last
 * (0-based, leaf order) of a cascade release, rebuilt from its published
 * law: its error_law (which laws have range variances, and whether they
 * are exact, is the core's decision), children per internal node (level
 * order), variance per depth, and the nodes whose totals are exact.
 * deficit_bound is the law's certified B (a lattice Gaussian cascade's;
 * not read for a Gaussian cascade): *upper is the closed form, *lower
 * (1 - B) times it rounded down (equal to it when B is 0).
 */
idp_status	idp_cascade_range_variance(const char *error_law, const uint32_t *children, size_t n_internal,
									   const double *level_variance, size_t n_levels,
									   const uint32_t *fixed_nodes, size_t n_fixed,
									   double deficit_bound, uint64_t first, uint64_t last,
									   const idp_interrupts *interrupts, double *lower,
									   double *upper, idp_error *error);

/* One noisy count for dp.noisy_count (no invariants). */
idp_status	idp_noisy_count(int64_t count, const idp_request *request,
							const idp_randomness *randomness, int64_t *noisy,
							idp_error *error);

/*
 * dp.total_preserving_count: the counts of one window partition plus
 * integer_laplace noise conditioned on the partition's total, so the total
 * stays exact. noisy has n entries.
 */
idp_status	idp_total_preserving(const int64_t *counts, size_t n, double epsilon,
								 const idp_randomness *randomness,
								 const idp_interrupts *interrupts, int64_t *noisy,
								 idp_error *error);

/* dp.diagnose: one row of MCMC diagnostics. */
typedef struct idp_diagnostic_row
{
	char		metric[64];
	bool		has_iteration;
	int64_t		iteration;
	double		value;
} idp_diagnostic_row;

/*
 * dp.diagnose, as dp.privatize: the request checked once before the source
 * runs (idp_prepare_diagnosis; *source_rows says whether the source returns
 * rows, no count: {"source": "rows"} or a privacy unit), then the MCMC
 * sampler a release with it would use diagnosed on the cells (idp_diagnose;
 * only their keys are read, never their counts; with {"source": "rows"} the
 * source's rows, whose distinct keys are the cells). *rows is malloc'd
 * (idp_free). Options beyond dp.privatize's: coupled_pairs, lag,
 * surrogate_count.
 */
typedef struct idp_prepared_diagnosis idp_prepared_diagnosis;

idp_status	idp_prepare_diagnosis(const idp_request *request, idp_prepared_diagnosis **prepared,
								  bool *source_rows, idp_error *error);
void		idp_free_prepared_diagnosis(idp_prepared_diagnosis *prepared);
idp_status	idp_diagnose(const idp_prepared_diagnosis *prepared, const idp_cells *cells,
						 const idp_randomness *randomness,
						 const idp_interrupts *interrupts,
						 idp_diagnostic_row **rows, size_t *n_rows, idp_error *error);

void		idp_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif							/* INVARIANT_DP_CORE_H */
