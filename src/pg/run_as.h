/*
 * Runs a piece of shim code with another role's privileges and search_path,
 * the way REFRESH MATERIALIZED VIEW runs its query as the view's owner: a
 * local user-id switch plus a security-restricted operation (no SET ROLE, no
 * temporary objects inside), and the search_path the source was registered
 * under, so neither the caller's role nor the caller's search_path reaches
 * it. Governed releases (privatize.c) and streams (stream_append.c) read their
 * stored sources through it.
 */
#ifndef INVARIANT_DP_RUN_AS_H
#define INVARIANT_DP_RUN_AS_H

#include "postgres.h"

typedef void (*RunAsFn) (void *arg);

/* Restores the caller's role and settings even when fn raises an error. */
extern void run_as_role(Oid role, const char *search_path, RunAsFn fn, void *arg);

#endif
