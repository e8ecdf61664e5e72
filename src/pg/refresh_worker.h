/*
 * Governed draws happen in a background worker, in a transaction of their
 * own that charges the budget, stores the draw and audits it, and commits
 * before the caller can read anything. PostgreSQL has no autonomous
 * transactions; this is the way to make "no noise is visible unless its
 * charge is durably committed" hold whatever the caller's transaction does
 * afterwards (ROLLBACK, an error, a cancel, a crash).
 *
 * The worker is also a fresh session: none of the caller's temporary
 * objects, settings or prepared state exist in it.
 *
 * dp.refresh_release(release) and dp.draw(NULL::release) call it;
 * dp.draw_in_worker (SQL) is what the worker runs, and the internal
 * functions that run a stored source refuse to run anywhere else.
 */
#ifndef INVARIANT_DP_REFRESH_WORKER_H
#define INVARIANT_DP_REFRESH_WORKER_H

#include "postgres.h"

/* True only inside a refresh worker. */
extern bool dp_in_refresh_worker;

/* Raises 42501 unless called inside a refresh worker. */
extern void require_refresh_worker(const char *function);

#endif
