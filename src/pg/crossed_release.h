/*
 * dp.privatize over two crossed hierarchies (hierarchy => '{state,county}',
 * options => '{"crossed": ["age_group", "age"]}'): one row per (row node,
 * column node) pair. privatize.c reads the arguments and the rows, then
 * hands over here.
 */
#ifndef INVARIANT_DP_CROSSED_RELEASE_H
#define INVARIANT_DP_CROSSED_RELEASE_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"

#include "../core/capi/invariant_dp_crossed.h"
#include "source_reader.h"

/* Whether the (already checked) request crosses two hierarchies. */
extern bool request_is_crossed(const idp_request *request);

/*
 * The release: released are the rows the cells come from (the domain's if
 * given); result_desc the checked column definition list.
 */
extern void release_crossed(FunctionCallInfo fcinfo, const idp_request *request, const idp_request_info *info,
							const idp_cells *cells, const QueryRows *released, TupleDesc result_desc);

/* privatize.c's: a released count as the count column's type wants it. */
extern Datum count_datum(double value, int64 integer_value, bool integer_output, Oid type);

#endif
