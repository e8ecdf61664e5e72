/*
 * dp.privatize over two crossed hierarchies (crossed_release.h). Three
 * phases as everywhere: the rows are already read; one call into the core;
 * pack one row per (row node, column node) pair into a tuplestore.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"

#include "core_bridge.h"
#include "crossed_release.h"
#include "last_release.h"

bool
request_is_crossed(const idp_request *request)
{
	bool		crossed;
	idp_error	error;

	if (idp_request_is_crossed(request, &crossed, &error) != IDP_OK)
		raise_core_error(&error);
	return crossed;
}

/*
 * Every key column is a level of one of the two hierarchies, so a NULL key
 * would print like a rollup row: refuse it unless the level columns tell
 * the rows apart (as for one hierarchy).
 */
static void
check_crossed_keys(const idp_request_info *info, const QueryRows *cells)
{
	size_t		i;

	if (info->with_level)
		return;
	for (i = 0; i < cells->n_rows * (size_t) cells->n_keys; i++)
		if (cells->key_nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("hierarchy column \"%s\" has a NULL key", cells->key_names[i % cells->n_keys]),
					 errdetail("In a hierarchy release NULL marks the rollup rows."),
					 errhint("COALESCE the key in the source, or add {\"level\": true} to the options "
							 "and two trailing integer columns (row level, column level).")));
}

/*
 * print_depth[k]: the row or column depth from which key k is printed;
 * is_row[k]: whether that is the row hierarchy's depth.
 */
static void
key_ranks(const idp_crossed_output *out, int n_keys, int *print_depth, bool *is_row)
{
	size_t		v;
	int			k;

	for (k = 0; k < n_keys; k++)
		print_depth[k] = INT_MAX;
	for (v = 0; v < out->n_row_levels; v++)
	{
		print_depth[out->row_level_columns[v]] = (int) v + 1;
		is_row[out->row_level_columns[v]] = true;
	}
	for (v = 0; v < out->n_column_levels; v++)
	{
		print_depth[out->column_level_columns[v]] = (int) v + 1;
		is_row[out->column_level_columns[v]] = false;
	}
}

static void
pack_crossed_results(FunctionCallInfo fcinfo, const idp_request_info *info, TupleDesc result_desc,
					 const QueryRows *cells, const idp_crossed_output *out)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	Tuplestorestate *store = tuplestore_begin_heap(true, false, work_mem);
	int			n_keys = cells->n_keys;
	Oid			count_type = TupleDescAttr(result_desc, n_keys)->atttypid;
	Datum	   *values = palloc(sizeof(Datum) * result_desc->natts);
	bool	   *nulls = palloc0(sizeof(bool) * result_desc->natts);
	int		   *print_depth = palloc(sizeof(int) * Max(n_keys, 1));
	bool	   *is_row = palloc0(sizeof(bool) * Max(n_keys, 1));
	size_t		v;

	rsinfo->setDesc = CreateTupleDescCopy(result_desc);
	MemoryContextSwitchTo(old);
	key_ranks(out, n_keys, print_depth, is_row);
	for (v = 0; v < out->n_nodes; v++)
	{
		size_t		cell = out->node_cell[v];
		int			column = n_keys;
		int			k;

		CHECK_FOR_INTERRUPTS();
		for (k = 0; k < n_keys; k++)
		{
			int			depth = (int) (is_row[k] ? out->row_depth[v] : out->column_depth[v]);
			bool		printed = print_depth[k] <= depth;

			values[k] = printed ? cells->key_values[cell * n_keys + k] : (Datum) 0;
			nulls[k] = !printed || cells->key_nulls[cell * n_keys + k];
		}
		values[column++] = count_datum(out->values ? out->values[v] : 0,
									   out->integer_values ? out->integer_values[v] : 0,
									   out->integer_output, count_type);
		if (info->with_stddev)
			values[column++] = Float8GetDatum(out->noise_sd[v]);
		if (info->with_level)
		{
			values[column++] = Int32GetDatum((int32) out->row_depth[v]);
			values[column++] = Int32GetDatum((int32) out->column_depth[v]);
		}
		tuplestore_putvalues(store, result_desc, values, nulls);
	}
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
}

/* The core's output lives in malloc'd memory until it is packed. */
void
release_crossed(FunctionCallInfo fcinfo, const idp_request *request, const idp_request_info *info,
				const idp_cells *cells, const QueryRows *released, TupleDesc result_desc)
{
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_crossed_output out;
	idp_error	error;

	check_crossed_keys(info, released);
	if (idp_release_crossed(request, cells, &randomness, &interrupts, &out, &error) != IDP_OK)
		raise_core_error(&error);
	PG_TRY();
	{
		remember_release(out.metadata_json);
		pack_crossed_results(fcinfo, info, result_desc, released, &out);
	}
	PG_FINALLY();
	{
		idp_free_crossed_output(&out);
	}
	PG_END_TRY();
}
