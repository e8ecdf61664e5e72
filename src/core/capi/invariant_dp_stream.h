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
 * A privacy unit's contribution bounds, as dp.privatize takes them (jsonb
 * members flattened to key/value text): max_groups_per_unit (a stream's
 * periods) and max_rows_per_group.
 */
typedef struct idp_bounds
{
	size_t		n;
	const char *const *keys;
	const char *const *values;
} idp_bounds;

/*
 * The node variance that makes a whole stream of up to 2^horizon leaves
 * (epsilon, delta)-DP (analytic Gaussian on the depth-horizon cascade's
 * Mahalanobis sensitivity). neighbours "add_remove": one person added or removed (one
 * leaf moves by 1); "replace_one": one record moved between two leaves (else,
 * or a horizon outside 0..62, IDP_INVALID_ARGUMENT). bounds (NULL:
 * one row per person): one unit, counted in at most max_groups_per_unit
 * periods with at most max_rows_per_group rows each
 * (hierarchy/stream_units.hpp).
 */
idp_status	idp_stream_variance(double epsilon, double delta, int64_t horizon, const char *neighbours,
								const idp_bounds *bounds, double *variance, idp_error *error);

/*
 * The rows of a stream with a privacy unit, in any order: row i belongs to
 * unit unit_codes[i] (a code in dictionary) and to period
 * period_rank[period_codes[i]]: period_rank gives each of the
 * n_period_codes codes of the period column its period, 0 .. n_released +
 * count - 1 in time order (the released ones first).
 */
typedef struct idp_stream_units
{
	size_t		n_rows;
	const uint32_t *unit_codes;
	idp_key_dictionary dictionary;
	const uint32_t *period_codes;
	const uint32_t *period_rank;
	size_t		n_period_codes;
	idp_bounds	bounds;
} idp_stream_units;

/*
 * Noise of the next `count` leaves. state NULL starts a stream of node
 * variance `variance` and horizon `horizon`; otherwise the state must be one
 * an earlier call returned for the same variance and horizon, holding
 * exactly n_released leaves (else IDP_INVALID_DATA). Past the horizon:
 * IDP_TOO_LARGE and nothing is drawn. noise has room for count values;
 * *new_state is malloc'd (idp_free).
 *
 * units (NULL: the caller's counts are one row per person) bounds each
 * unit's rows and fills counts (room for count values) with the new
 * periods' bounded counts; the state then also keeps the ledger of who
 * counted in the released periods, and an append whose source no longer
 * counts the same units there is refused (IDP_INVALID_DATA, "the stream's
 * past changed") before anything is drawn.
 */
idp_status	idp_stream_append(const char *state, double variance, uint32_t horizon, uint64_t n_released,
							  uint64_t count, const idp_stream_units *units, const idp_randomness *randomness,
							  const idp_interrupts *interrupts, int64_t *counts, double *noise, char **new_state,
							  idp_error *error);

/*
 * A privacy unit and contribution bounds come together or not at all, and
 * each bound is a whole number in its range (request/unit_bounds.hpp):
 * IDP_INVALID_ARGUMENT otherwise, in the words dp.privatize uses. The bounds
 * are the n key/value pairs of the bounds object (has_bounds: it was given).
 */
idp_status	idp_check_privacy_unit(bool has_privacy_unit, bool has_bounds, size_t n_bounds,
								   const char *const *bound_keys, const char *const *bound_values,
								   idp_error *error);

/*
 * Noise variance of the sum of leaves first..last (0-based, first <= last,
 * else IDP_INVALID_ARGUMENT), public parameters only.
 */
idp_status	idp_stream_range_variance(double variance, int64_t first, int64_t last, double *range_variance,
									  idp_error *error);

#ifdef __cplusplus
}
#endif

#endif
