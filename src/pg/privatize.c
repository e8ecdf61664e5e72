/*
 * dp.privatize(source, epsilon, mechanism, delta, margins, domain, options):
 * a private release of a GROUP BY's counts. Three phases, never interleaved:
 * read the arguments and the source rows into plain buffers; one call into
 * the core; pack the released cells into a tuplestore.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "arguments.h"
#include "core_bridge.h"
#include "crossed_release.h"
#include "last_release.h"
#include "refresh_worker.h"
#include "run_as.h"
#include "source_reader.h"

PG_FUNCTION_INFO_V1(dp_privatize);
PG_FUNCTION_INFO_V1(dp_privatize_as_owner);

typedef struct Privatize
{
	idp_request request;
	idp_request_info info;
	bool		crossed;		/* two crossed hierarchies (crossed_release.c) */
	char	   *source;
	char	   *domain;
	TupleDesc	result_desc;
	QueryRows	source_rows;
	QueryRows	domain_rows;
} Privatize;

static TupleDesc
expected_result_desc(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		(rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp.privatize must be called in the FROM clause")));
	if (rsinfo->expectedDesc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("dp.privatize needs a column definition list"),
				 errhint("Name the key columns and the count, e.g. "
						 "SELECT * FROM dp.privatize(...) AS t(county text, edu text, n float8).")));
	return rsinfo->expectedDesc;
}

static bool
count_column_fits(Oid type, bool integer_output)
{
	if (type == FLOAT8OID || type == NUMERICOID)
		return true;
	return integer_output && type == INT8OID;
}

/* The column definition list must mirror the source: keys, count[, sd]. */
static void
check_result_columns(const QueryRows *rows, void *arg)
{
	Privatize  *p = (Privatize *) arg;
	TupleDesc	desc = p->result_desc;
	/* {"level": true}: one level column, two (row, column) when crossed */
	int			n_level = p->info.with_level ? (p->crossed ? 2 : 1) : 0;
	int			expected = rows->n_keys + 1 + (p->info.with_stddev ? 1 : 0) + n_level;
	int			k;
	Oid			count_type;

	if (desc->natts != expected)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column definition list has %d columns, the release has %d", desc->natts, expected),
				 errdetail("The source has %d key column%s, then the count%s%s.", rows->n_keys, rows->n_keys == 1 ? "" : "s",
						   p->info.with_stddev ? ", then the noise standard deviation" : "",
						   n_level == 2 ? ", then the row and column levels" : n_level == 1 ? ", then the level" : "")));
	for (k = 0; k < rows->n_keys; k++)
		if (TupleDescAttr(desc, k)->atttypid != rows->key_types[k])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of the column definition list must have type %s", k + 1,
							format_type_be(rows->key_types[k])),
					 errdetail("The source's key column \"%s\" has type %s, the list declares %s.",
							   rows->key_names[k], format_type_be(rows->key_types[k]),
							   format_type_be(TupleDescAttr(desc, k)->atttypid))));
	count_type = TupleDescAttr(desc, rows->n_keys)->atttypid;
	if (!count_column_fits(count_type, p->info.integer_output))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the count column cannot be %s for mechanism \"%s\"", format_type_be(count_type),
						p->request.mechanism),
				 errhint("Declare it %s.", p->info.integer_output ? "bigint" : "float8")));
	if (p->info.with_stddev && TupleDescAttr(desc, rows->n_keys + 1)->atttypid != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the standard deviation column must be float8")));
	for (k = desc->natts - n_level; k < desc->natts; k++)
		if (TupleDescAttr(desc, k)->atttypid != INT4OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the level column must be integer")));
	{
		idp_error	error;

		if (idp_check_request(&p->request, rows->n_keys, (const char *const *) rows->key_names,
							  &p->info, &error) != IDP_OK)
			raise_core_error(&error);
	}
}

/* The domain lists the same key columns as the source, with no count. */
static void
check_domain_columns(const QueryRows *rows, void *arg)
{
	const QueryRows *source = (const QueryRows *) arg;
	int			k;

	if (rows->n_keys != source->n_keys)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("domain returns %d column%s, the source has %d key column%s", rows->n_keys,
						rows->n_keys == 1 ? "" : "s", source->n_keys, source->n_keys == 1 ? "" : "s")));
	for (k = 0; k < rows->n_keys; k++)
		if (rows->key_types[k] != source->key_types[k])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("domain column %d has type %s, the source's key column \"%s\" has type %s", k + 1,
							format_type_be(rows->key_types[k]), source->key_names[k],
							format_type_be(source->key_types[k]))));
}

/*
 * dp.privatize's arguments start at fcinfo argument "base": 0 for
 * dp.privatize itself, 2 for dp.privatize_as_owner (whose first arguments
 * are the role and search_path the source runs with). Versions before 0.3.0
 * declare no hierarchy argument.
 */
static void
unpack_privatize(FunctionCallInfo fcinfo, int base, Privatize *p)
{
	idp_error	error;

	memset(p, 0, sizeof *p);
	p->source = required_text(fcinfo, base + 0, "source");
	/* NULL epsilon: only a cascade calibrated from rho or targets (the core decides). */
	p->request.epsilon_is_null = PG_ARGISNULL(base + 1);
	p->request.epsilon = p->request.epsilon_is_null ? 0 : PG_GETARG_FLOAT8(base + 1);
	p->request.mechanism = required_text(fcinfo, base + 2, "mechanism");
	p->request.has_delta = !PG_ARGISNULL(base + 3);
	p->request.delta = p->request.has_delta ? PG_GETARG_FLOAT8(base + 3) : 0;
	unpack_margins(fcinfo, base + 4, &p->request);
	p->domain = PG_ARGISNULL(base + 5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(base + 5));
	unpack_options(fcinfo, base + 6, &p->request);
	unpack_hierarchy(fcinfo, base + 7, &p->request);
	/* Refuse a bad mechanism or epsilon before the source runs. */
	if (idp_check_request(&p->request, 0, NULL, &p->info, &error) != IDP_OK)
		raise_core_error(&error);
	p->crossed = request_is_crossed(&p->request);
	p->result_desc = expected_result_desc(fcinfo);
}

static void
read_rows(Privatize *p)
{
	p->source_rows.what = "source";
	p->source_rows.has_count = true;
	p->source_rows.on_columns = check_result_columns;
	p->source_rows.on_columns_arg = p;
	read_query_rows(p->source, &p->source_rows);
	if (p->domain == NULL)
		return;
	p->domain_rows.what = "domain";
	p->domain_rows.has_count = false;
	p->domain_rows.on_columns = check_domain_columns;
	p->domain_rows.on_columns_arg = &p->source_rows;
	read_query_rows(p->domain, &p->domain_rows);
}

static void
read_rows_callback(void *arg)
{
	read_rows((Privatize *) arg);
}

/* read_rows as the release's owner under its search_path (run_as.h). */
static void
read_rows_as(Privatize *p, Oid role, const char *search_path)
{
	run_as_role(role, search_path, read_rows_callback, p);
}

Datum
count_datum(double value, int64 integer_value, bool integer_output, Oid type)
{
	if (integer_output && type == INT8OID)
		return Int64GetDatum(integer_value);
	if (integer_output && type == NUMERICOID)
		return NumericGetDatum(int64_to_numeric(integer_value));
	if (integer_output)
		return Float8GetDatum((double) integer_value);
	if (type == NUMERICOID)
		return DirectFunctionCall1(float8_numeric, Float8GetDatum(value));
	return Float8GetDatum(value);
}

static void
pack_results(FunctionCallInfo fcinfo, Privatize *p, const QueryRows *cells, const idp_release_output *out)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	Tuplestorestate *store = tuplestore_begin_heap(true, false, work_mem);
	int			natts = p->result_desc->natts;
	Oid			count_type = TupleDescAttr(p->result_desc, cells->n_keys)->atttypid;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc0(sizeof(bool) * natts);
	size_t		i;

	/* The executor frees setDesc: it must outlive SPI_finish. */
	rsinfo->setDesc = CreateTupleDescCopy(p->result_desc);
	MemoryContextSwitchTo(old);
	for (i = 0; i < cells->n_rows; i++)
	{
		int			k;

		if ((i & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		for (k = 0; k < cells->n_keys; k++)
		{
			values[k] = cells->key_values[i * cells->n_keys + k];
			nulls[k] = cells->key_nulls[i * cells->n_keys + k];
		}
		values[k] = count_datum(out->values ? out->values[i] : 0, out->integer_values ? out->integer_values[i] : 0,
								p->info.integer_output, count_type);
		if (p->info.with_stddev)
			values[k + 1] = Float8GetDatum(out->noise_sd[i]);
		tuplestore_putvalues(store, p->result_desc, values, nulls);
	}
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
}

/*
 * A NULL key in a hierarchy column would print like a rollup row: refuse
 * it, unless the level column tells the rows apart.
 */
static void
check_hierarchy_keys(const Privatize *p, const QueryRows *cells)
{
	size_t		h;

	if (p->info.with_level)
		return;
	for (h = 0; h < p->request.n_hierarchy; h++)
	{
		int			k;
		size_t		i;

		for (k = 0; k < cells->n_keys; k++)
			if (strcmp(cells->key_names[k], p->request.hierarchy[h]) == 0)
				break;
		for (i = 0; k < cells->n_keys && i < cells->n_rows; i++)
			if (cells->key_nulls[i * cells->n_keys + k])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("hierarchy column \"%s\" has a NULL key", p->request.hierarchy[h]),
						 errdetail("In a hierarchy release NULL marks the rollup rows."),
						 errhint("COALESCE the key in the source, or add {\"level\": true} to the options "
								 "and a trailing integer column: level 0 is the grand total.")));
	}
}

/*
 * One row per node: an internal node prints its first node_depth levels and
 * NULL for every other key, a leaf every key; then the count, the sd and
 * the level as asked.
 */
static void
pack_hierarchy_results(FunctionCallInfo fcinfo, Privatize *p, const QueryRows *cells,
					   const idp_hierarchy_output *out)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	Tuplestorestate *store = tuplestore_begin_heap(true, false, work_mem);
	int			natts = p->result_desc->natts;
	Oid			count_type = TupleDescAttr(p->result_desc, cells->n_keys)->atttypid;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc0(sizeof(bool) * natts);
	int		   *level_rank = palloc(sizeof(int) * Max(cells->n_keys, 1));
	size_t		v;
	int			k;

	rsinfo->setDesc = CreateTupleDescCopy(p->result_desc);
	MemoryContextSwitchTo(old);
	/* level_rank[k]: the depth from which key k is printed (INT_MAX: only at the leaves) */
	for (k = 0; k < cells->n_keys; k++)
		level_rank[k] = INT_MAX;
	for (v = 0; v < out->n_levels; v++)
		level_rank[out->level_columns[v]] = (int) v + 1;
	for (v = 0; v < out->n_nodes; v++)
	{
		size_t		cell = out->node_cell[v];
		int			column = cells->n_keys;

		CHECK_FOR_INTERRUPTS();
		for (k = 0; k < cells->n_keys; k++)
		{
			bool		printed = out->node_is_leaf[v] || level_rank[k] <= (int) out->node_depth[v];

			values[k] = printed ? cells->key_values[cell * cells->n_keys + k] : (Datum) 0;
			nulls[k] = !printed || cells->key_nulls[cell * cells->n_keys + k];
		}
		values[column++] = count_datum(out->values ? out->values[v] : 0,
									   out->integer_values ? out->integer_values[v] : 0,
									   out->integer_output, count_type);
		if (p->info.with_stddev)
			values[column++] = Float8GetDatum(out->noise_sd[v]);
		if (p->info.with_level)
			values[column++] = Int32GetDatum((int32) out->node_depth[v]);
		tuplestore_putvalues(store, p->result_desc, values, nulls);
	}
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
}


static idp_cells
core_cells(const Privatize *p)
{
	idp_cells	cells;

	cells.n_columns = p->source_rows.n_keys;
	cells.column_names = (const char *const *) p->source_rows.key_names;
	cells.n_source_rows = p->source_rows.n_rows;
	cells.source_keys = (const char *const *) p->source_rows.key_text;
	cells.source_counts = p->source_rows.counts;
	cells.has_domain = p->domain != NULL;
	cells.n_domain_rows = p->domain_rows.n_rows;
	cells.domain_keys = (const char *const *) p->domain_rows.key_text;
	return cells;
}

/* The core's hierarchy output lives in malloc'd memory until it is packed. */
static void
release_hierarchy(FunctionCallInfo fcinfo, Privatize *p, const QueryRows *released)
{
	idp_cells	cells = core_cells(p);
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_hierarchy_output out;
	idp_error	error;

	check_hierarchy_keys(p, released);
	if (idp_release_hierarchy(&p->request, &cells, &randomness, &interrupts, &out, &error) != IDP_OK)
		raise_core_error(&error);
	PG_TRY();
	{
		remember_release(out.metadata_json);
		pack_hierarchy_results(fcinfo, p, released, &out);
	}
	PG_FINALLY();
	{
		idp_free_hierarchy_output(&out);
	}
	PG_END_TRY();
}

/*
 * The release itself. run_as: InvalidOid to read the source with the
 * caller's privileges, else the role whose privileges (and search_path)
 * it runs with.
 */
static Datum
privatize(FunctionCallInfo fcinfo, int base, Oid run_as, const char *search_path)
{
	Privatize	p;
	idp_cells	cells;
	idp_release_output out;
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_error	error;
	const QueryRows *released;
	size_t		n;

	unpack_privatize(fcinfo, base, &p);
	SPI_connect();
	if (OidIsValid(run_as))
		read_rows_as(&p, run_as, search_path);
	else
		read_rows(&p);
	released = p.domain ? &p.domain_rows : &p.source_rows;
	if (p.request.n_hierarchy > 0)
	{
		cells = core_cells(&p);
		if (p.crossed)
			release_crossed(fcinfo, &p.request, &p.info, &cells, released, p.result_desc);
		else
			release_hierarchy(fcinfo, &p, released);
		SPI_finish();
		return (Datum) 0;
	}
	n = Max(released->n_rows, 1);
	out.values = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(double));
	out.integer_values = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(int64));
	out.noise_sd = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(double));
	cells = core_cells(&p);

	if (idp_release(&p.request, &cells, &randomness, &interrupts, &out, &error) != IDP_OK)
		raise_core_error(&error);

	remember_release(out.metadata_json);
	idp_free(out.metadata_json);
	pack_results(fcinfo, &p, released, &out);
	SPI_finish();
	return (Datum) 0;
}

Datum
dp_privatize(PG_FUNCTION_ARGS)
{
	return privatize(fcinfo, 0, InvalidOid, NULL);
}

/*
 * dp.privatize_as_owner(owner, search_path, source, ...): the governed
 * releases' draw. Only dp.draw_in_worker calls it, inside a draw worker
 * (refresh_worker.h); it passes the role that registered the release, the
 * schemas pinned then and the release's source view, so the stored source
 * runs with that role's privileges, never the extension owner's, and never
 * with SQL or objects a caller supplied.
 */
Datum
dp_privatize_as_owner(PG_FUNCTION_ARGS)
{
	require_refresh_worker("dp.privatize_as_owner");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("owner and search_path must not be NULL")));
	return privatize(fcinfo, 2, PG_GETARG_OID(0), text_to_cstring(PG_GETARG_TEXT_PP(1)));
}
