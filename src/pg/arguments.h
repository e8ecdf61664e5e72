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

/* margins text[]: one C string per element; NULL elements are refused. */
extern void unpack_margins(FunctionCallInfo fcinfo, int arg, idp_request *request);

/*
 * hierarchy text[]: the level columns, coarsest first. arg may be beyond
 * PG_NARGS() (a function declared before the argument existed): no hierarchy.
 */
extern void unpack_hierarchy(FunctionCallInfo fcinfo, int arg, idp_request *request);

/* options jsonb: a flat object of scalars, as key/value text pairs. */
extern void unpack_options(FunctionCallInfo fcinfo, int arg, idp_request *request);

#endif
