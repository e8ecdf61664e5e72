/*
 * What every shim file needs to call the core: the interrupt poller, the
 * current randomness settings, and the one table from core status to
 * SQLSTATE.
 */
#ifndef INVARIANT_DP_CORE_BRIDGE_H
#define INVARIANT_DP_CORE_BRIDGE_H

#include "postgres.h"

#include "../core/capi/invariant_dp_core.h"

/* Polls QueryCancelPending/ProcDiePending; never raises. */
extern idp_interrupts pg_interrupts(void);

/* The dp.seed setting as the core wants it. */
extern idp_randomness current_randomness(void);

/* Raises the error the core reported (never returns). */
extern void raise_core_error(const idp_error *error) pg_attribute_noreturn();

/* Renders a key an error names, e.g. "(county, edu)=(Alpha, Low)". */
typedef char *(*KeyRenderer) (const idp_key_ref *key, void *arg);

/* raise_core_error, the keys it names ({key0}, {key1}) rendered by render. */
extern void raise_core_error_rendered(const idp_error *error, KeyRenderer render, void *arg) pg_attribute_noreturn();

#endif
