// The C entry points of the streaming cascade (invariant_dp_stream.h).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../calibration/analytic_gaussian.hpp"
#include "../errors.hpp"
#include "../hierarchy/stream_units.hpp"
#include "../hierarchy/streaming_cascade.hpp"
#include "../mechanisms/privacy_unit.hpp"
#include "../request/contribution_bounds.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_stream.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;
using hierarchy::StreamingCascade;
using hierarchy::UnitLedger;

namespace {

// The stored state, checked against the public parameters the catalog
// keeps beside it: a state from another stream (or an edited catalog row)
// would silently change the noise law or redraw released leaves.
StreamingCascade stored_stream(const char* state, double variance, std::uint32_t horizon, std::uint64_t n_released) {
  if (state == nullptr) {
    if (n_released != 0)
      throw InvalidData("the stream has released periods but no state",
                        std::to_string(n_released) + " periods are released.",
                        "The state was lost: no further period can be appended; register a new stream.");
    return StreamingCascade(variance, horizon);
  }
  StreamingCascade stream = StreamingCascade::deserialize(state);
  if (stream.variance() != variance || stream.horizon() != horizon)
    throw InvalidData("the stream's state does not match its registered variance and horizon");
  if (stream.n_released() != n_released)
    throw InvalidData("the stream's state does not match its release table",
                      "The state holds " + std::to_string(stream.n_released()) + " periods, the release table " +
                          std::to_string(n_released) + ".",
                      "Released rows must not be deleted or added by hand.");
  return stream;
}

ContributionBounds bounds_of(const idp_bounds* bounds) {
  if (bounds == nullptr) return {};
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < bounds->n; ++i) pairs.emplace_back(bounds->keys[i], bounds->values[i]);
  return parse_contribution_bounds(pairs);
}

// A stream with a privacy unit keeps its unit ledger on a second line of
// its state, so the one secret column holds both.
struct StoredState {
  std::string cascade;
  std::string ledger;  // empty: a stream without a unit
};

StoredState split_state(const char* state) {
  StoredState out;
  if (state == nullptr) return out;
  const std::string text = state;
  const auto newline = text.find('\n');
  out.cascade = text.substr(0, newline);
  if (newline != std::string::npos) out.ledger = text.substr(newline + 1);
  return out;
}

// The ledger of a stream with units: fresh at its first append, else the
// stored one, which must be there exactly when the stream has a unit.
UnitLedger stored_ledger(const StoredState& state, bool has_state, bool has_units, RandomSource& rng) {
  if (has_state && state.ledger.empty() == has_units)
    throw InvalidData("the stream's state does not match its registered privacy unit",
                      has_units ? "The state keeps no ledger of units." : "The state keeps a ledger of units.",
                      "The catalog row was changed by hand: register a new stream.");
  if (!has_units) return {};
  return has_state ? UnitLedger::deserialize(state.ledger) : UnitLedger::fresh(rng);
}

}  // namespace

extern "C" {

idp_status idp_stream_variance(double epsilon, double delta, uint32_t horizon, bool add_remove,
                               const idp_bounds* bounds, double* variance, idp_error* error) {
  return guarded(error, [&] {
    if (horizon > 62) throw InvalidArgument("horizon must be between 0 and 62", "At most 2^horizon periods are released.");
    const Neighbours neighbours = add_remove ? Neighbours::AddRemove : Neighbours::ReplaceOne;
    const double m = hierarchy::stream_sensitivity_squared(horizon, neighbours, bounds_of(bounds));
    const double sigma = analytic_gaussian_sigma(epsilon, delta, std::sqrt(m));
    *variance = sigma * sigma;
    refuse_non_finite(variance, 1, "stream's noise variance");
  });
}

idp_status idp_stream_append(const char* state, double variance, uint32_t horizon, uint64_t n_released, uint64_t count,
                             const idp_stream_units* units, const idp_randomness* randomness,
                             const idp_interrupts* interrupts, int64_t* counts, double* noise, char** new_state,
                             idp_error* error) {
  *new_state = nullptr;
  return guarded(error, [&] {
    const StoredState stored = split_state(state);
    StreamingCascade stream = stored_stream(state ? stored.cascade.c_str() : nullptr, variance, horizon, n_released);
    RandomSource& rng = session_random_source(randomness);
    const Interrupts polls = interrupts_of(interrupts);
    UnitLedger ledger = stored_ledger(stored, state != nullptr, units != nullptr, rng);
    if (units != nullptr) {
      const KeyDictionary dictionary = dictionary_of(units->dictionary);
      hierarchy::StreamRows rows;
      rows.units.n_rows = units->n_rows;
      rows.units.n_columns = 1;
      rows.units.columns = &units->unit_codes;
      rows.units.dictionaries = &dictionary;
      rows.period_code = units->period_codes;
      rows.period_rank = units->period_rank;
      rows.n_period_codes = units->n_period_codes;
      rows.n_periods = n_released + count;
      const hierarchy::BoundedPeriods bounded =
          hierarchy::bound_stream_units(rows, n_released, bounds_of(&units->bounds), ledger.key, polls);
      if (bounded.past_fingerprint != ledger.fingerprint)
        throw InvalidData("the stream's past changed",
                          "The released periods no longer count the same units: rows of a unit counted there were "
                          "added, removed or moved.",
                          "A stream appends new periods only: the rows of released periods must stay in the source. "
                          "Nothing was drawn, charged or changed.");
      for (std::uint64_t i = 0; i < count; ++i) counts[i] = bounded.counts[n_released + i];
      ledger.fingerprint = bounded.fingerprint;
    }
    const std::vector<double> drawn = stream.append(count, rng, polls);
    refuse_non_finite(drawn.data(), drawn.size(), "stream's noise value", polls);
    for (std::size_t i = 0; i < drawn.size(); ++i) noise[i] = drawn[i];
    *new_state = malloc_copy(units != nullptr ? stream.serialize() + "\n" + ledger.serialize() : stream.serialize());
  });
}

idp_status idp_stream_range_variance(double variance, uint64_t first, uint64_t last, double* range_variance,
                                     idp_error* error) {
  return guarded(error, [&] {
    *range_variance = StreamingCascade::prefix_range_variance(variance, first, last);
    refuse_non_finite(range_variance, 1, "range variance");
  });
}

idp_status idp_check_privacy_unit(bool has_privacy_unit, bool has_bounds, size_t n_bounds,
                                  const char* const* bound_keys, const char* const* bound_values, idp_error* error) {
  return guarded(error, [&] {
    check_unit_has_bounds(has_privacy_unit, has_bounds);
    if (!has_bounds) return;
    std::vector<std::pair<std::string, std::string>> bounds;
    for (std::size_t i = 0; i < n_bounds; ++i) bounds.emplace_back(bound_keys[i], bound_values[i]);
    (void)parse_contribution_bounds(bounds);
  });
}

}  // extern "C"
