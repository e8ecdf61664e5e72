/*
 * dp.cascade_range_variance(mechanism, children, level_variance,
 * fixed_nodes, first, last): the exact variance of a range of a cascade
 * release's leaves, from the pieces of its published noise law
 * (dp.range_variance takes them out of the jsonb).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
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
	char	   *mechanism = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int			n_internal;
	int			n_levels;
	int			n_fixed;
	uint32	   *children = array_values(PG_GETARG_ARRAYTYPE_P(1), INT4OID, 4, &n_internal);
	double	   *level_variance = array_values(PG_GETARG_ARRAYTYPE_P(2), FLOAT8OID, 8, &n_levels);
	uint32	   *fixed = array_values(PG_GETARG_ARRAYTYPE_P(3), INT4OID, 4, &n_fixed);
	int64		first = PG_GETARG_INT64(4);
	int64		last = PG_GETARG_INT64(5);
	double		variance;
	idp_error	error;
	idp_interrupts interrupts = pg_interrupts();

	if (strcmp(mechanism, "cascade") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("range variances are published for mechanism \"cascade\", not \"%s\"", mechanism),
				 errhint("Pass the noise law of a cascade release: dp.last_release() after it, or dp.draws.noise_law.")));
	if (n_internal == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the noise law does not list the tree's shape"),
				 errdetail("Trees with more than 100000 internal nodes publish their shape without the child counts.")));
	if (first < 0 || last < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("leaf positions must not be negative")));
	if (idp_cascade_range_variance(children, n_internal, level_variance, n_levels, fixed, n_fixed,
								   (uint64) first, (uint64) last, &interrupts, &variance, &error) != IDP_OK)
		raise_core_error(&error);
	PG_RETURN_FLOAT8(variance);
}
