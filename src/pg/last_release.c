/*
 * dp.last_release(): the noise law of this session's most recent release,
 * as jsonb, so it can be published next to the numbers. Kept in
 * TopMemoryContext; one string per backend.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "last_release.h"

PG_FUNCTION_INFO_V1(dp_last_release);

static char *last_release_json = NULL;

void
remember_release(const char *metadata_json)
{
	char	   *copy = MemoryContextStrdup(TopMemoryContext, metadata_json);

	if (last_release_json != NULL)
		pfree(last_release_json);
	last_release_json = copy;
}

Datum
dp_last_release(PG_FUNCTION_ARGS)
{
	if (last_release_json == NULL)
		PG_RETURN_NULL();
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(last_release_json));
}
