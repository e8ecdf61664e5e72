#include "stream_entry.hpp"

#include <cmath>

#include "../calibration/analytic_gaussian.hpp"
#include "../errors.hpp"
#include "../finite_values.hpp"
#include "../hierarchy/stream_units.hpp"
#include "../hierarchy/streaming_cascade.hpp"
#include "../privacy/neighbours.hpp"
#include "../request/unit_bounds.hpp"

namespace invariant_dp {

using hierarchy::StreamingCascade;
using hierarchy::UnitLedger;

namespace {

// The stored state, checked against the public parameters the catalog
// keeps beside it: a state from another stream (or an edited catalog row)
// would silently change the noise law or redraw released leaves.
StreamingCascade stored_stream(const std::string* state, double variance, std::uint32_t horizon,
                               std::uint64_t n_released) {
  if (state == nullptr) {
    if (n_released != 0)
      throw InvalidData("the stream has released periods but no state",
                        std::to_string(n_released) + " periods are released.",
                        "The state was lost: no further period can be appended; register a new stream.");
    return StreamingCascade(variance, horizon);
  }
  StreamingCascade stream = StreamingCascade::deserialize(*state);
  if (stream.variance() != variance || stream.horizon() != horizon)
    throw InvalidData("the stream's state does not match its registered variance and horizon");
  if (stream.n_released() != n_released)
    throw InvalidData("the stream's state does not match its release table",
                      "The state holds " + std::to_string(stream.n_released()) + " periods, the release table " +
                          std::to_string(n_released) + ".",
                      "Released rows must not be deleted or added by hand.");
  return stream;
}

// A stream with a privacy unit keeps its unit ledger on a second line of
// its state, so the one secret column holds both.
struct StoredState {
  std::string cascade;
  std::string ledger;  // empty: a stream without a unit
};

StoredState split_state(const std::string& text) {
  StoredState out;
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

// Each unit's rows bounded; the released periods must count the same units.
std::vector<std::int64_t> bounded_new_counts(const StreamAppendRequest& request, UnitLedger& ledger,
                                             const Interrupts& interrupts) {
  const StreamUnits& units = *request.units;
  hierarchy::StreamRows rows;
  rows.units = units.units;
  rows.period_code = units.period_code;
  rows.period_rank = units.period_rank;
  rows.n_period_codes = units.n_period_codes;
  rows.n_periods = request.n_released + request.count;
  const hierarchy::BoundedPeriods bounded = hierarchy::bound_stream_units(
      rows, request.n_released, parse_contribution_bounds(units.bounds), ledger.key, interrupts);
  if (bounded.past_fingerprint != ledger.fingerprint)
    throw InvalidData("the stream's past changed",
                      "The released periods no longer count the same units: rows of a unit counted there were "
                      "added, removed or moved.",
                      "A stream appends new periods only: the rows of released periods must stay in the source. "
                      "Nothing was drawn, charged or changed.");
  ledger.fingerprint = bounded.fingerprint;
  return std::vector<std::int64_t>(bounded.counts.begin() + std::ptrdiff_t(request.n_released),
                                   bounded.counts.begin() + std::ptrdiff_t(request.n_released + request.count));
}

}  // namespace

void check_stream_privacy_unit(bool has_privacy_unit, bool has_bounds, const KeyValueTexts& bounds) {
  check_unit_has_bounds(has_privacy_unit, has_bounds);
  if (has_bounds) (void)parse_contribution_bounds(bounds);
}

double stream_variance(double epsilon, double delta, std::int64_t horizon, const std::string& neighbours,
                       const std::optional<KeyValueTexts>& bounds) {
  if (neighbours != "add_remove" && neighbours != "replace_one")
    throw InvalidArgument("unknown neighbours \"" + neighbours + "\"", {}, "Use \"replace_one\" or \"add_remove\".");
  if (horizon < 0 || horizon > 62)
    throw InvalidArgument("horizon must be between 0 and 62", "A stream releases at most 2^horizon periods.");
  const ContributionBounds parsed = bounds ? parse_contribution_bounds(*bounds) : ContributionBounds{};
  const double m = hierarchy::stream_sensitivity_squared(
      unsigned(horizon), neighbours == "add_remove" ? Neighbours::AddRemove : Neighbours::ReplaceOne, parsed);
  const double sigma = analytic_gaussian_sigma(epsilon, delta, std::sqrt(m));
  double variance = sigma * sigma;
  refuse_non_finite(&variance, 1, "stream's noise variance");
  return variance;
}

StreamAppend stream_append(const StreamAppendRequest& request, RandomSource& rng, const Interrupts& interrupts) {
  const StoredState stored = request.state ? split_state(*request.state) : StoredState{};
  StreamingCascade stream =
      stored_stream(request.state ? &stored.cascade : nullptr, request.variance, request.horizon, request.n_released);
  UnitLedger ledger = stored_ledger(stored, request.state.has_value(), request.units.has_value(), rng);
  StreamAppend out;
  if (request.units) out.counts = bounded_new_counts(request, ledger, interrupts);
  out.noise = stream.append(request.count, rng, interrupts);
  refuse_non_finite(out.noise.data(), out.noise.size(), "stream's noise value", interrupts);
  out.state = request.units ? stream.serialize() + "\n" + ledger.serialize() : stream.serialize();
  return out;
}

double stream_range_variance(double variance, std::int64_t first, std::int64_t last) {
  if (first < 0 || last < first)
    throw InvalidArgument("invalid period range " + std::to_string(first) + ".." + std::to_string(last), {},
                          "Periods are numbered from 0; first must not exceed last.");
  double v = StreamingCascade::prefix_range_variance(variance, std::uint64_t(first), std::uint64_t(last));
  refuse_non_finite(&v, 1, "range variance");
  return v;
}

}  // namespace invariant_dp
