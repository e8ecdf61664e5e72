/* Unpacking SQL arguments into the core's plain request (phase 1). */
#ifndef INVARIANT_DP_ARGUMENTS_H
#define INVARIANT_DP_ARGUMENTS_H

#include "postgres.h"

#include "fmgr.h"

#include "core_bridge.h"

/* The text argument, or an error naming it if it is NULL. */
extern char *required_text(FunctionCallInfo fcinfo, int arg, const char *name);

/* The float8 argument, or an error naming it if it is NULL. */
extern double required_float8(FunctionCallInfo fcinfo, int arg, const char *name);

/*
 * Where a function's arguments hold the parts of a release request
 * (dp.privatize's epsilon, mechanism, delta, margins, options, hierarchy,
 * privacy_unit, bounds);
 * -1 for a part it does not take. An argument number beyond PG_NARGS() (a
 * function declared by an older version) counts as not given.
 */
typedef struct RequestArguments
{
	int			epsilon;
	int			mechanism;
	int			delta;
	int			margins;
	int			options;
	int			hierarchy;
	int			privacy_unit;
	int			bounds;
} RequestArguments;

/*
 * The request, unvalidated (the core validates it). A NULL epsilon is
 * passed on as such (only a cascade may be calibrated without one); a NULL
 * mechanism or NULL array element is refused here.
 */
extern void unpack_request(FunctionCallInfo fcinfo, const RequestArguments *at, idp_request *request);

/*
 * A privacy unit's bounds argument (jsonb), flattened to key/value text for
 * the core: false when it is NULL or absent (then *n is 0).
 */
extern bool unpack_bounds(FunctionCallInfo fcinfo, int arg, size_t *n, const char *const **keys,
						  const char *const **values);

#endif
