/*
 * dp.cascade_range_variance(error_law, children, level_variance,
 * fixed_nodes, variance_deficit_bound, first, last): the variance of a range
 * of a cascade release's leaves, from the pieces of its published noise law
 * (dp.range_variance and dp.range_variance_bounds take them out of the
 * jsonb), as (lower, upper). Converts only: which laws have range variances
 * and which are exact is the core's (release/range_variance_entry.hpp).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "core_bridge.h"

PG_FUNCTION_INFO_V1(dp_cascade_range_variance);

static void *
array_values(ArrayType *array, Oid type, int element_size, int *count)
{
	Datum	   *elements;
	bool	   *nulls;
	char	   *out;
	int			i;

	deconstruct_array(array, type, element_size, true, element_size == 4 ? TYPALIGN_INT : TYPALIGN_DOUBLE,
					  &elements, &nulls, count);
	out = palloc(Max(*count, 1) * (type == FLOAT8OID ? sizeof(double) : sizeof(uint32)));
	for (i = 0; i < *count; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the noise law has a NULL entry")));
		if (type == FLOAT8OID)
			((double *) out)[i] = DatumGetFloat8(elements[i]);
		else
		{
			int32		value = DatumGetInt32(elements[i]);

			if (value < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the noise law has a negative node count or index")));
			((uint32 *) out)[i] = (uint32) value;
		}
	}
	return out;
}

Datum
dp_cascade_range_variance(PG_FUNCTION_ARGS)
{
	char	   *error_law = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int			n_internal;
	int			n_levels;
	int			n_fixed;
	uint32	   *children = array_values(PG_GETARG_ARRAYTYPE_P(1), INT4OID, 4, &n_internal);
	double	   *level_variance = array_values(PG_GETARG_ARRAYTYPE_P(2), FLOAT8OID, 8, &n_levels);
	uint32	   *fixed = array_values(PG_GETARG_ARRAYTYPE_P(3), INT4OID, 4, &n_fixed);
	double		deficit_bound = PG_GETARG_FLOAT8(4);
	int64		first = PG_GETARG_INT64(5);
	int64		last = PG_GETARG_INT64(6);
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	double		lower;
	double		upper;
	idp_error	error;
	idp_interrupts interrupts = pg_interrupts();

	if (n_internal == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the noise law does not list the tree's shape"),
				 errdetail("Trees with more than 100000 internal nodes, and crossed hierarchies, publish their shape without the child counts.")));
	if (first < 0 || last < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("leaf positions must not be negative")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp.cascade_range_variance must return a record")));
	if (idp_cascade_range_variance(error_law, children, n_internal, level_variance, n_levels, fixed, n_fixed,
								   deficit_bound, (uint64) first, (uint64) last, &interrupts, &lower, &upper,
								   &error) != IDP_OK)
		raise_core_error(&error);
	values[0] = Float8GetDatum(lower);
	values[1] = Float8GetDatum(upper);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
