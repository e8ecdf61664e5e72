/* dp.privatize in FROM as a custom scan (privatize_scan.c). */
#ifndef INVARIANT_DP_PRIVATIZE_SCAN_H
#define INVARIANT_DP_PRIVATIZE_SCAN_H

/* At load: the planner hook and the scan's methods. */
extern void register_privatize_scan(void);

#endif
