/*
 * Governed draws happen in a background worker, in a transaction of their
 * own that charges the budget, stores the draw and audits it, and commits
 * before the caller can read anything. PostgreSQL has no autonomous
 * transactions; this is the way to make "no noise is visible unless its
 * charge is durably committed" hold whatever the caller's transaction does
 * afterwards (ROLLBACK, an error, a cancel, a crash).
 *
 * The worker is also a fresh session: none of the caller's temporary
 * objects, settings or prepared state exist in it, and none stored for its
 * database or role (worker_settings.h).
 *
 * draw_launcher.c starts it for dp.refresh_release and dp.draw
 * (draw_functions.c); the internal functions that run a stored source
 * (dp.privatize_as_owner, dp.stream_append_as_owner, dp.check_release_objects)
 * refuse to run anywhere else.
 */
#ifndef INVARIANT_DP_DRAW_WORKER_H
#define INVARIANT_DP_DRAW_WORKER_H

#include "postgres.h"

/* True only inside a draw worker. */
extern bool dp_in_draw_worker;

/* Raises 42501 unless called inside a draw worker. */
extern void require_draw_worker(const char *function);

/* The worker's entry point (bgw_function_name). */
extern PGDLLEXPORT void dp_draw_worker_main(Datum main_arg);

#endif
