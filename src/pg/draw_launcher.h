/*
 * The caller's side of a governed draw: it checks that it may draw, takes
 * one of dp.max_draw_workers slots, starts the draw worker, waits for it
 * interruptibly and re-raises its error.
 */
#ifndef INVARIANT_DP_DRAW_LAUNCHER_H
#define INVARIANT_DP_DRAW_LAUNCHER_H

#include "postgres.h"

#include "draw_task.h"

/*
 * Draws release in a worker and returns the task's outcome (the worker's
 * error re-raised). may_restore: a release restored from a dump returns its
 * stored draw instead (dp.draw).
 */
extern DrawTask draw_in_worker(Oid release, bool may_restore);

#endif
