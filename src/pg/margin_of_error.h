/*
 * Error bars of sums of a release table's rows (dp.margin_of_error,
 * dp.sum_variance, dp.error_bar): the aggregates (margin_of_error.c) and the
 * release they read (release_table.c): its rows' identities, its published
 * noise law, and the core's structure kept for the session.
 */
#ifndef INVARIANT_DP_MARGIN_OF_ERROR_H
#define INVARIANT_DP_MARGIN_OF_ERROR_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "utils/relcache.h"

#include "../core/capi/invariant_dp_accuracy.h"

/*
 * A row's identity: a 128-bit hash of every column's value (its binary
 * image, detoasted), the same for a table's stored row and for that row as
 * a whole-row value handed to an aggregate.
 */
extern void row_identity(TupleDesc desc, const Datum *values, const bool *nulls, idp_row_id *id);

/*
 * Where a release's noise law comes from: given by the caller (law_jsonb),
 * or the latest completed draw of a governed release (dp.release_laws).
 */
typedef struct ReleaseLaw
{
	char	   *text;			/* the law as JSON text */
	bool		governed;		/* read from dp.release_laws */
	int64		draw_id;		/* governed: the draw it is of */
	int			n_key_names;	/* governed: the pinned source's key columns */
	char	  **key_names;
} ReleaseLaw;

/* The latest completed draw's law of the governed release relid, for the caller. */
extern void governed_release_law(Oid relid, ReleaseLaw *law);

/*
 * The core's structure of the release relid holds with this law, read from
 * the table (O(rows)) unless kept from an earlier call: a governed release's
 * until its next draw, a given law's while the snapshot sees the table as it
 * was read (release_law.c). fresh: read the table again even if kept (a row
 * the kept one does not know).
 */
extern idp_accuracy *prepared_release(Oid relid, const ReleaseLaw *law, bool fresh);

/* Reads the release table rel (open, its rights checked) into the core's structure under law. */
extern idp_accuracy *read_release_table(Relation rel, const ReleaseLaw *law);

#endif
