/*
 * dp.total_preserving_count(n, epsilon) OVER (PARTITION BY ...): each row's
 * count plus integer_laplace noise conditioned on its partition's total, so
 * every partition total is released exactly, the counts stay integers and
 * the noise is unbiased. The whole partition is noised once, at its first
 * row, and kept in the partition's local memory.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "windowapi.h"

#include "arguments.h"
#include "core_bridge.h"

PG_FUNCTION_INFO_V1(dp_total_preserving_count);

typedef struct PartitionNoise
{
	bool		computed;
	int64		noisy[FLEXIBLE_ARRAY_MEMBER];
} PartitionNoise;

/* The partition's counts and its (constant) epsilon: plain buffers. */
static int64 *
read_partition(WindowObject winobj, int64 rows, double *epsilon)
{
	int64	   *counts = palloc(sizeof(int64) * Max(rows, 1));
	int64		i;

	for (i = 0; i < rows; i++)
	{
		bool		isnull,
					isout;
		Datum		n = WinGetFuncArgInPartition(winobj, 0, i, WINDOW_SEEK_HEAD, false, &isnull, &isout);
		Datum		e;

		if ((i & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("count of dp.total_preserving_count must not be NULL")));
		counts[i] = DatumGetInt64(n);
		if (counts[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("count of dp.total_preserving_count must not be negative"),
					 errdetail("Row " INT64_FORMAT " of the partition has count " INT64_FORMAT ".", i + 1, counts[i])));
		e = WinGetFuncArgInPartition(winobj, 1, i, WINDOW_SEEK_HEAD, false, &isnull, &isout);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("epsilon must not be NULL")));
		if (i > 0 && DatumGetFloat8(e) != *epsilon)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("epsilon of dp.total_preserving_count must be the same for every row")));
		*epsilon = DatumGetFloat8(e);
		if ((i & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return counts;
}

Datum
dp_total_preserving_count(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	int64		rows = WinGetPartitionRowCount(winobj);
	PartitionNoise *state;

	state = WinGetPartitionLocalMemory(winobj, offsetof(PartitionNoise, noisy) + sizeof(int64) * Max(rows, 1));
	if (!state->computed)
	{
		double		epsilon = 0;
		int64	   *counts = read_partition(winobj, rows, &epsilon);
		idp_randomness randomness = current_randomness();
		idp_interrupts interrupts = pg_interrupts();
		idp_error	error;

		if (idp_total_preserving(counts, rows, epsilon, &randomness, &interrupts, state->noisy, &error) != IDP_OK)
			raise_core_error(&error);
		pfree(counts);
		state->computed = true;
	}
	PG_RETURN_INT64(state->noisy[WinGetCurrentPosition(winobj)]);
}
