/*
 * dp.privatize(source, epsilon, mechanism, delta, margins, domain, options,
 * hierarchy, privacy_unit, bounds):
 * a private release of a GROUP BY's counts. Three phases, never interleaved:
 * read the arguments and the source rows into plain buffers; one call into
 * the core; return the released cells (into the function's tuplestore, or
 * row by row from the custom scan of privatize_scan.c).
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
#include "last_release.h"
#include "privatize.h"
#include "draw_worker.h"
#include "run_as.h"
#include "source_reader.h"

PG_FUNCTION_INFO_V1(dp_privatize);
PG_FUNCTION_INFO_V1(dp_privatize_as_owner);

typedef struct Privatize
{
	idp_request request;
	idp_prepared_request *prepared;	/* the request, validated once */
	MemoryContextCallback free_prepared;
	idp_request_info info;
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

/* The type a hint asks the count column to have: the mechanism's counts are integers or reals. */
static const char *
count_type_name(const idp_request_info *info)
{
	return info->integer_output ? "bigint" : "float8";
}

/* The release's interval columns: lower and upper, or none. */
static int
interval_columns(const idp_request_info *info)
{
	return info->interval_level > 0 ? 2 : 0;
}

/*
 * The column definition list has as many columns as the release: keys,
 * count[, sd][, levels][, lower, upper]; the error says which it lacks.
 */
static void
check_column_count(const Privatize *p, const QueryRows *rows)
{
	int			n_level = (int) p->info.n_level_columns;
	int			n_interval = interval_columns(&p->info);
	int			expected = rows->n_keys + 1 + (p->info.with_stddev ? 1 : 0) + n_level + n_interval;
	const char *count_name = count_type_name(&p->info);

	if (p->result_desc->natts != expected)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column definition list has %d columns, the release has %d", p->result_desc->natts,
						expected),
				 errdetail("The source has %d key column%s, then the count%s%s%s.", rows->n_keys, rows->n_keys == 1 ? "" : "s",
						   p->info.with_stddev ? ", then the noise standard deviation" : "",
						   n_level == 2 ? ", then the row and column levels" : n_level == 1 ? ", then the level" : "",
						   n_interval ? ", then the interval's lower and upper bounds" : ""),
				 n_interval ? errhint("With {\"interval\": ...} end the list with lower %s, upper %s.",
									  count_name, count_name) : 0));
}

/* Each key column of the list has the source's type. */
static void
check_key_types(TupleDesc desc, const QueryRows *rows)
{
	int			k;

	for (k = 0; k < rows->n_keys; k++)
		if (TupleDescAttr(desc, k)->atttypid != rows->key_types[k])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of the column definition list must have type %s", k + 1,
							format_type_be(rows->key_types[k])),
					 errdetail("The source's key column \"%s\" has type %s, the list declares %s.",
							   rows->key_names[k], format_type_be(rows->key_types[k]),
							   format_type_be(TupleDescAttr(desc, k)->atttypid))));
}

/*
 * The count column can hold the mechanism's counts (an integer mechanism's
 * in bigint too), and the standard deviation's is float8; returns the
 * count's type.
 */
static Oid
check_count_types(const Privatize *p, const QueryRows *rows)
{
	TupleDesc	desc = p->result_desc;
	Oid			count_type = TupleDescAttr(desc, rows->n_keys)->atttypid;

	if (!count_column_fits(count_type, p->info.integer_output))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the count column cannot be %s for mechanism \"%s\"", format_type_be(count_type),
						p->request.mechanism),
				 errhint("Declare it %s.", count_type_name(&p->info))));
	if (p->info.with_stddev && TupleDescAttr(desc, rows->n_keys + 1)->atttypid != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the standard deviation column must be float8")));
	return count_type;
}

/*
 * The level columns (before the interval's) are integers; the interval's
 * bounds are counts too: the count's type, whichever it is.
 */
static void
check_level_and_interval_types(const Privatize *p, Oid count_type)
{
	TupleDesc	desc = p->result_desc;
	int			n_interval = interval_columns(&p->info);
	int			first_level = desc->natts - n_interval - (int) p->info.n_level_columns;
	int			k;

	for (k = first_level; k < desc->natts - n_interval; k++)
		if (TupleDescAttr(desc, k)->atttypid != INT4OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the level column must be integer")));
	for (k = desc->natts - n_interval; k < desc->natts; k++)
		if (TupleDescAttr(desc, k)->atttypid != count_type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the interval's %s column must have the count's type, %s",
							k == desc->natts - 1 ? "upper" : "lower", format_type_be(count_type)),
					 errdetail("The list declares %s.", format_type_be(TupleDescAttr(desc, k)->atttypid)),
					 errhint("End the list with lower %s, upper %s.", format_type_be(count_type),
							 format_type_be(count_type))));
}

/*
 * The column definition list must mirror the source: keys, count[, sd][,
 * levels][, lower, upper]; then the core checks the margins and hierarchy
 * against the key columns' names.
 */
static void
check_result_columns(const QueryRows *rows, void *arg)
{
	Privatize  *p = (Privatize *) arg;
	Oid			count_type;
	idp_error	error;

	check_column_count(p, rows);
	check_key_types(p->result_desc, rows);
	count_type = check_count_types(p, rows);
	check_level_and_interval_types(p, count_type);
	if (idp_accept_columns(p->prepared, rows->n_keys, (const char *const *) rows->key_names, &error) != IDP_OK)
		raise_core_error(&error);
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

static void
free_prepared_request(void *arg)
{
	Privatize  *p = (Privatize *) arg;

	idp_free_prepared_request(p->prepared);
	p->prepared = NULL;
}

/*
 * dp.privatize's arguments start at fcinfo argument "base": 0 for
 * dp.privatize itself, 2 for dp.privatize_as_owner (whose first arguments
 * are the role and search_path the source runs with). Versions before 0.3.0
 * declare no hierarchy argument, before 0.5.0 no privacy_unit and bounds.
 */
static void
unpack_privatize(FunctionCallInfo fcinfo, int base, Privatize *p)
{
	const RequestArguments at = {
		.epsilon = base + 1, .mechanism = base + 2, .delta = base + 3, .margins = base + 4,
		.options = base + 6, .hierarchy = base + 7, .privacy_unit = base + 8, .bounds = base + 9
	};
	idp_error	error;

	memset(p, 0, sizeof *p);
	p->source = required_text(fcinfo, base + 0, "source");
	unpack_request(fcinfo, &at, &p->request);
	p->domain = PG_ARGISNULL(base + 5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(base + 5));
	/* Refuse a bad mechanism or epsilon before the source runs. */
	if (idp_prepare_request(&p->request, &p->prepared, &p->info, &error) != IDP_OK)
		raise_core_error(&error);
	/* Freed with the context p lives in, on success or error alike. */
	p->free_prepared.func = free_prepared_request;
	p->free_prepared.arg = p;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &p->free_prepared);
	p->result_desc = expected_result_desc(fcinfo);
}

static void
read_rows(Privatize *p)
{
	p->source_rows.what = "source";
	/*
	 * With a privacy unit the source returns rows (unit, keys), with
	 * {"source": "rows"} rows (keys), not counts.
	 */
	p->source_rows.unit_column = p->request.privacy_unit;
	p->source_rows.has_count = !p->info.source_rows;
	p->source_rows.on_columns = check_result_columns;
	p->source_rows.on_columns_arg = p;
	p->source_rows.rows_may_number_keys = true;
	read_query_rows(p->source, &p->source_rows);
	if (p->domain == NULL)
		return;
	p->domain_rows.what = "domain";
	p->domain_rows.has_count = false;
	p->domain_rows.on_columns = check_domain_columns;
	p->domain_rows.on_columns_arg = &p->source_rows;
	p->domain_rows.shares_keys_with = &p->source_rows;
	p->domain_rows.rows_may_number_keys = true;
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

/* A released count as the count column's type wants it. */
static Datum
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

/*
 * A release made and not yet returned: the arguments, the rows read (its
 * keys are returned from them) and the core's table. All of it lives in
 * one memory context; resetting or deleting it frees the core's table too.
 */
/*
 * The interval bounds of a few consecutive rows, read from the core as the
 * rows are returned (idp_release_bounds): a release of millions of rows
 * holds no arrays of bounds.
 */
#define BOUNDS_CHUNK 256
typedef struct RowBounds
{
	size_t		first;			/* the first row held */
	size_t		n;				/* rows held (0: none yet) */
	double		lower[BOUNDS_CHUNK];
	double		upper[BOUNDS_CHUNK];
	int64		integer_lower[BOUNDS_CHUNK];
	int64		integer_upper[BOUNDS_CHUNK];
} RowBounds;

struct PrivatizedRows
{
	Privatize	p;
	const QueryRows *cells;		/* the domain's rows, or the source's */
	idp_release_table *table;
	Oid			count_type;
	RowBounds  *bounds;			/* when the table has intervals */
	MemoryContextCallback free_table;
};

static void
free_release_table(void *arg)
{
	PrivatizedRows *rows = (PrivatizedRows *) arg;

	if (rows->table != NULL)
		idp_free_release(rows->table);
	rows->table = NULL;
}

/* A key the core names in an error, from the rows read. */
static char *
render_key(const idp_key_ref *key, void *arg)
{
	const Privatize *p = (const Privatize *) arg;

	return describe_keys(key->table == IDP_KEYS_DOMAIN ? &p->domain_rows : &p->source_rows, key->row, key->columns);
}

/*
 * The release itself, its rows kept in cxt. run_as: InvalidOid to read the
 * source with the caller's privileges, else the role whose privileges (and
 * search_path) it runs with.
 */
static PrivatizedRows *
release_rows(FunctionCallInfo fcinfo, int base, Oid run_as, const char *search_path, MemoryContext cxt)
{
	MemoryContext caller = MemoryContextSwitchTo(cxt);
	PrivatizedRows *out = palloc0(sizeof(PrivatizedRows));
	Privatize  *p = &out->p;
	idp_cells	cells;
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_error	error;

	unpack_privatize(fcinfo, base, p);
	SPI_connect();
	/* The rows outlive SPI: they are read into cxt. */
	MemoryContextSwitchTo(cxt);
	if (OidIsValid(run_as))
		read_rows_as(p, run_as, search_path);
	else
		read_rows(p);
	MemoryContextSwitchTo(cxt);
	out->cells = p->domain ? &p->domain_rows : &p->source_rows;
	out->count_type = TupleDescAttr(p->result_desc, out->cells->n_keys)->atttypid;
	cells = query_cells(&p->source_rows, p->domain ? &p->domain_rows : NULL);
	/* Nothing reads the counts after the release: it may noise them in place. */
	cells.counts_writable = true;
	idp_keep_results_for(GetUserId());
	if (idp_release(p->prepared, &cells, &randomness, &interrupts, &out->table, &error) != IDP_OK)
		raise_core_error_rendered(&error, render_key, p);
	out->free_table.func = free_release_table;
	out->free_table.arg = out;
	MemoryContextRegisterResetCallback(cxt, &out->free_table);
	if (p->info.interval_level > 0 && !out->table->has_intervals)
		elog(ERROR, "the release has no intervals");
	if (p->info.interval_level > 0)
		out->bounds = palloc0(sizeof(RowBounds));
	remember_release(out->table->metadata_json);
	SPI_finish();
	MemoryContextSwitchTo(caller);
	return out;
}

size_t
privatized_count(const PrivatizedRows *rows)
{
	return rows->table->n_rows;
}

/* A count-typed column (the count, an interval's bound): NULL when not needed. */
static void
put_count(const PrivatizedRows *rows, int column, const bool *needed, double value, int64 integer_value,
		  Datum *values, bool *nulls)
{
	nulls[column] = needed != NULL && !needed[column];
	values[column] = nulls[column] ? (Datum) 0 :
		count_datum(value, integer_value, rows->table->integer_output, rows->count_type);
}

/*
 * Released row r, as the column definition list declares it: the cell's
 * keys but those below its level (NULL), then the count, the sd, the
 * level columns and the interval's bounds as asked; a column not needed is
 * NULL. By-reference values point into the rows read (a numeric count or
 * bound is made in the current memory context).
 */
void
privatized_row(const PrivatizedRows *rows, size_t r, const bool *needed, Datum *values, bool *nulls)
{
	const Privatize *p = &rows->p;
	const QueryRows *cells = rows->cells;
	const idp_release_table *table = rows->table;
	size_t		cell = table->row_cell ? table->row_cell[r] : r;
	bool		is_cell = table->row_is_cell == NULL || table->row_is_cell[r];
	int			column = cells->n_keys;
	size_t		a;
	int			k;

	for (k = 0; k < cells->n_keys; k++)
	{
		uint32		axis = table->key_axis[k];
		bool		isnull = true;
		bool		printed = (needed == NULL || needed[k]) &&
			(is_cell || (axis < table->n_axes && table->key_depth[k] <= table->row_depth[r * table->n_axes + axis]));

		values[k] = printed ? query_key_datum(cells, cell, k, &isnull) : (Datum) 0;
		nulls[k] = isnull;
	}
	put_count(rows, column++, needed, table->values ? table->values[r] : 0,
			  table->integer_values ? table->integer_values[r] : 0, values, nulls);
	if (p->info.with_stddev)
	{
		nulls[column] = false;
		values[column++] = Float8GetDatum(table->noise_sd[r]);
	}
	for (a = 0; a < p->info.n_level_columns; a++)
	{
		nulls[column] = false;
		values[column++] = Int32GetDatum((int32) table->row_depth[r * table->n_axes + a]);
	}
	if (p->info.interval_level > 0)
	{
		RowBounds  *bounds = rows->bounds;
		size_t		j;

		if (r < bounds->first || r - bounds->first >= bounds->n)
		{
			bounds->first = r - r % BOUNDS_CHUNK;
			bounds->n = Min(BOUNDS_CHUNK, table->n_rows - bounds->first);
			idp_release_bounds(table, bounds->first, bounds->n, bounds->lower, bounds->upper,
							   bounds->integer_lower, bounds->integer_upper);
		}
		j = r - bounds->first;
		put_count(rows, column++, needed, bounds->lower[j], bounds->integer_lower[j], values, nulls);
		put_count(rows, column, needed, bounds->upper[j], bounds->integer_upper[j], values, nulls);
	}
}

PrivatizedRows *
privatize_rows(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	return release_rows(fcinfo, 0, InvalidOid, NULL, cxt);
}

/*
 * As a function in FROM: the release's rows into the tuplestore the
 * executor reads (a CustomScan, privatize_scan.c, returns them without it).
 */
static Datum
privatize(FunctionCallInfo fcinfo, int base, Oid run_as, const char *search_path)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "dp.privatize rows", ALLOCSET_DEFAULT_SIZES);
	PrivatizedRows *rows = release_rows(fcinfo, base, run_as, search_path, cxt);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	size_t		r;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	desc = rsinfo->setDesc;
	values = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc0(sizeof(bool) * desc->natts);
	for (r = 0; r < privatized_count(rows); r++)
	{
		if ((r & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		privatized_row(rows, r, NULL, values, nulls);
		tuplestore_putvalues(rsinfo->setResult, desc, values, nulls);
	}
	MemoryContextDelete(cxt);
	return (Datum) 0;
}

Datum
dp_privatize(PG_FUNCTION_ARGS)
{
	return privatize(fcinfo, 0, InvalidOid, NULL);
}

/*
 * dp.privatize_as_owner(owner, search_path, source, ...): the governed
 * releases' draw. Only dp.store_draw calls it, inside a draw worker
 * (draw_worker.h); it passes the role that registered the release, the
 * schemas pinned then and the release's source view, so the stored source
 * runs with that role's privileges, never the extension owner's, and never
 * with SQL or objects a caller supplied.
 */
Datum
dp_privatize_as_owner(PG_FUNCTION_ARGS)
{
	require_draw_worker("dp.privatize_as_owner");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("owner and search_path must not be NULL")));
	return privatize(fcinfo, 2, PG_GETARG_OID(0), text_to_cstring(PG_GETARG_TEXT_PP(1)));
}
