/* Settings of invariant_dp (docs/reference.md, "Settings"). */
#ifndef INVARIANT_DP_GUCS_H
#define INVARIANT_DP_GUCS_H

#include "postgres.h"

/* dp.seed: superuser-only fixed seed; empty = OS CSPRNG. */
extern bool dp_seed_is_set;
extern uint64 dp_seed_value;
extern uint64 dp_seed_generation;

/* dp.max_cells: the most cells one release may hold. */
extern int	dp_max_cells;

/* dp.max_source_memory (kB): the most memory a release's source or domain rows may take. */
extern int	dp_max_source_memory;

/* dp.progress_interval: NOTICE progress of long runs at most this often (ms); -1 off. */
extern int	dp_progress_interval;

/* dp.max_draw_workers: the most governed draws running at once in the cluster (draw_launcher.c). */
extern int	dp_max_draw_workers;

/* dp.privatize_scan: return dp.privatize's rows without a tuplestore (privatize_scan.c). */
extern bool dp_privatize_scan;

extern void define_gucs(void);

#endif
