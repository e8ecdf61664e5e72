/*
 * The C boundary of the streaming cascade (a growing time series released
 * leaf by leaf, hierarchy/streaming_cascade.hpp). Same contract as
 * invariant_dp_core.h: every function catches every C++ exception and
 * reports it as an idp_status with a PostgreSQL-style message.
 *
 * The state string is SECRET: it holds the noise of released and pending
 * nodes, so whoever reads it can subtract the noise. The shim keeps it in a
 * table no analyst can read and never returns it to one.
 */
#ifndef INVARIANT_DP_STREAM_H
#define INVARIANT_DP_STREAM_H

#include "invariant_dp_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The node variance that makes a whole stream of up to 2^horizon leaves
 * (epsilon, delta)-DP (analytic Gaussian on the depth-horizon cascade's
 * Mahalanobis sensitivity). add_remove: one person added or removed (one
 * leaf moves by 1); else one record moved between two leaves.
 */
idp_status	idp_stream_variance(double epsilon, double delta, uint32_t horizon, bool add_remove,
								double *variance, idp_error *error);

/*
 * Noise of the next `count` leaves. state NULL starts a stream of node
 * variance `variance` and horizon `horizon`; otherwise the state must be one
 * an earlier call returned for the same variance and horizon, holding
 * exactly n_released leaves (else IDP_INVALID_DATA). Past the horizon:
 * IDP_TOO_LARGE and nothing is drawn. noise has room for count values;
 * *new_state is malloc'd (idp_free).
 */
idp_status	idp_stream_append(const char *state, double variance, uint32_t horizon, uint64_t n_released,
							  uint64_t count, const idp_randomness *randomness,
							  const idp_interrupts *interrupts, double *noise, char **new_state,
							  idp_error *error);

/* Noise variance of the sum of leaves first..last (0-based), public parameters only. */
idp_status	idp_stream_range_variance(double variance, uint64_t first, uint64_t last, double *range_variance,
									  idp_error *error);

#ifdef __cplusplus
}
#endif

#endif
