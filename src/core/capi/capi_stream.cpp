// The C entry points of governed streams: each converts, calls the core's
// stream entry (release/stream_entry.hpp) once, and converts back.
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../release/stream_entry.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_stream.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

namespace {

KeyValueTexts pairs_of(const idp_bounds* bounds) {
  KeyValueTexts pairs;
  if (bounds == nullptr) return pairs;
  for (std::size_t i = 0; i < bounds->n; ++i) pairs.emplace_back(bounds->keys[i], bounds->values[i]);
  return pairs;
}

}  // namespace

extern "C" {

idp_status idp_stream_variance(double epsilon, double delta, int64_t horizon, const char* neighbours,
                               const idp_bounds* bounds, double* variance, idp_error* error) {
  return guarded(error, [&] {
    *variance = stream_variance(epsilon, delta, horizon, neighbours,
                                bounds != nullptr ? std::optional<KeyValueTexts>(pairs_of(bounds)) : std::nullopt);
  });
}

idp_status idp_stream_append(const char* state, double variance, uint32_t horizon, uint64_t n_released, uint64_t count,
                             const idp_stream_units* units, const idp_randomness* randomness,
                             const idp_interrupts* interrupts, int64_t* counts, double* noise, char** new_state,
                             idp_error* error) {
  *new_state = nullptr;
  return guarded(error, [&] {
    StreamAppendRequest request;
    if (state != nullptr) request.state = std::string(state);
    request.variance = variance;
    request.horizon = horizon;
    request.n_released = n_released;
    request.count = count;
    const KeyDictionary dictionary = units != nullptr ? dictionary_of(units->dictionary) : KeyDictionary{};
    if (units != nullptr) {
      StreamUnits rows;
      rows.units.n_rows = units->n_rows;
      rows.units.n_columns = 1;
      rows.units.columns = &units->unit_codes;
      rows.units.dictionaries = &dictionary;
      rows.period_code = units->period_codes;
      rows.period_rank = units->period_rank;
      rows.n_period_codes = units->n_period_codes;
      rows.bounds = pairs_of(&units->bounds);
      request.units = std::move(rows);
    }
    const StreamAppend appended = stream_append(request, session_random_source(randomness), interrupts_of(interrupts));
    if (units != nullptr) std::memcpy(counts, appended.counts.data(), appended.counts.size() * sizeof(int64_t));
    std::memcpy(noise, appended.noise.data(), appended.noise.size() * sizeof(double));
    *new_state = malloc_copy(appended.state);
  });
}

idp_status idp_stream_range_variance(double variance, int64_t first, int64_t last, double* range_variance,
                                     idp_error* error) {
  return guarded(error, [&] { *range_variance = stream_range_variance(variance, first, last); });
}

idp_status idp_check_privacy_unit(bool has_privacy_unit, bool has_bounds, size_t n_bounds,
                                  const char* const* bound_keys, const char* const* bound_values, idp_error* error) {
  return guarded(error, [&] {
    KeyValueTexts bounds;
    for (std::size_t i = 0; i < n_bounds; ++i) bounds.emplace_back(bound_keys[i], bound_values[i]);
    check_stream_privacy_unit(has_privacy_unit, has_bounds, bounds);
  });
}

}  // extern "C"
