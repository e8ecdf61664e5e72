/*
 * The C boundary of releases over two crossed hierarchies (dp.privatize with
 * `hierarchy` and options {"crossed": [...]}); the types and the guard
 * contract are invariant_dp_core.h's.
 */
#ifndef INVARIANT_DP_CROSSED_H
#define INVARIANT_DP_CROSSED_H

#include "invariant_dp_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whether a (checked) request asks for two crossed hierarchies: the shim
 * then expects two level columns, and calls idp_release_crossed instead of
 * idp_release_hierarchy.
 */
idp_status	idp_request_is_crossed(const idp_request *request, bool *crossed, idp_error *error);

/*
 * One row per (row node, column node) pair, row-major, each tree in level
 * order. Every array is malloc'd by the core; release them with
 * idp_free_crossed_output.
 */
typedef struct idp_crossed_output
{
	bool		integer_output;
	size_t		n_row_levels;
	uint32_t   *row_level_columns;	/* key column index per row level, coarsest first */
	size_t		n_column_levels;
	uint32_t   *column_level_columns;	/* same for the crossed hierarchy */
	size_t		n_nodes;
	uint32_t   *node_cell;		/* the released cell whose keys the row prints */
	uint32_t   *row_depth;		/* row levels printed (0 = all rows), NULL below */
	uint32_t   *column_depth;	/* column levels printed, NULL below */
	double	   *values;			/* real mechanisms, else NULL */
	int64_t    *integer_values;	/* integer mechanisms, else NULL */
	double	   *noise_sd;		/* when stddev was asked, else NULL */
	char	   *metadata_json;
} idp_crossed_output;

idp_status	idp_release_crossed(const idp_request *request, const idp_cells *cells,
								const idp_randomness *randomness,
								const idp_interrupts *interrupts,
								idp_crossed_output *output, idp_error *error);

void		idp_free_crossed_output(idp_crossed_output *output);

#ifdef __cplusplus
}
#endif

#endif
