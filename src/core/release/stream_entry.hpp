// The core's entries for governed streams (hierarchy/streaming_cascade.hpp,
// hierarchy/stream_units.hpp): the noise variance of a stream's parameters,
// one append of its next periods from its stored state, a range's
// variance, and the check of a stream's privacy unit and bounds at
// registration. The state a stream keeps is checked here against the
// public parameters the catalog keeps beside it, its format is written
// here, and each unit's rows are bounded here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/key_rows.hpp"
#include "../random_source.hpp"

namespace invariant_dp {

using KeyValueTexts = std::vector<std::pair<std::string, std::string>>;

// A privacy unit and contribution bounds come together or not at all, and
// each bound is a whole number in its range (InvalidArgument otherwise).
void check_stream_privacy_unit(bool has_privacy_unit, bool has_bounds, const KeyValueTexts& bounds);

// The node variance that gives (epsilon, delta)-DP to a stream of horizon
// 0..62 (InvalidArgument beyond), for records or units within the bounds;
// neighbours "replace_one" or "add_remove" (InvalidArgument otherwise).
double stream_variance(double epsilon, double delta, std::int64_t horizon, const std::string& neighbours,
                       const std::optional<KeyValueTexts>& bounds);

// A stream's rows with a privacy unit: row i is unit units[i] of period
// period_code[i], the codes ranked by period_rank.
struct StreamUnits {
  KeyRows units;
  const std::uint32_t* period_code = nullptr;
  const std::uint32_t* period_rank = nullptr;
  std::size_t n_period_codes = 0;
  KeyValueTexts bounds;
};

struct StreamAppendRequest {
  std::optional<std::string> state;  // none: the stream's first append
  double variance = 0;
  std::uint32_t horizon = 0;
  std::uint64_t n_released = 0;
  std::uint64_t count = 0;  // periods to append
  std::optional<StreamUnits> units;
};

struct StreamAppend {
  std::vector<std::int64_t> counts;  // with units: the bounded counts of the new periods
  std::vector<double> noise;         // one value per new period
  std::string state;                 // to store
};

// InvalidData when the state does not match the catalog's parameters or the
// released periods' units changed; TooLarge past the horizon.
StreamAppend stream_append(const StreamAppendRequest& request, RandomSource& rng, const Interrupts& interrupts);

// The noise variance of the sum of periods first..last (InvalidArgument
// unless 0 <= first <= last).
double stream_range_variance(double variance, std::int64_t first, std::int64_t last);

}  // namespace invariant_dp
