// A stream's privacy units (stream_units.hpp).
#include "stream_units.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include <limits>

#include "../errors.hpp"
#include "../large_buffer.hpp"
#include "streaming_cascade.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr const char* kLedgerMagic = "units/1";

[[noreturn]] void malformed_ledger() {
  throw InvalidData("malformed stream unit ledger", "The state's units line is not the one a refresh stored.",
                    "Pass the state exactly as the previous refresh stored it.");
}

// Where a kept row sits in the fingerprint: its period and its rank among
// its unit's rows there (< R <= 10^6 < 2^20).
std::uint64_t row_place(std::size_t period, std::uint32_t rank) {
  return (static_cast<std::uint64_t>(period) << 20) | rank;
}

}  // namespace

UnitLedger UnitLedger::fresh(RandomSource& rng) {
  UnitLedger ledger;
  ledger.key = SipKey{rng.next_u64(), rng.next_u64()};
  return ledger;
}

std::string UnitLedger::serialize() const {
  char text[96];
  std::snprintf(text, sizeof text, "%s key=%016" PRIx64 "%016" PRIx64 " fingerprint=%016" PRIx64, kLedgerMagic, key.k0,
                key.k1, fingerprint);
  return text;
}

UnitLedger UnitLedger::deserialize(const std::string& text) {
  char k0[17], k1[17], fp[17];
  int consumed = 0;
  if (std::sscanf(text.c_str(), "units/1 key=%16[0-9a-f]%16[0-9a-f] fingerprint=%16[0-9a-f]%n", k0, k1, fp,
                  &consumed) != 3 ||
      static_cast<std::size_t>(consumed) != text.size())
    malformed_ledger();
  UnitLedger ledger;
  ledger.key = SipKey{std::strtoull(k0, nullptr, 16), std::strtoull(k1, nullptr, 16)};
  ledger.fingerprint = std::strtoull(fp, nullptr, 16);
  return ledger;
}

BoundedPeriods bound_stream_units(const StreamRows& rows, std::size_t n_past, const ContributionBounds& bounds,
                                  const SipKey& key, const Interrupts& interrupts) {
  if (!bounds.active()) throw Error("a stream's units are bounded only with contribution bounds");
  const KeyRows& units = rows.units;
  const std::size_t n_rows = units.n_rows, n_periods = rows.n_periods;
  if (units.n_columns != 1 || n_past > n_periods || n_rows > std::numeric_limits<std::uint32_t>::max() ||
      n_periods >= std::numeric_limits<std::uint32_t>::max())
    throw Error("the stream's periods do not match its rows");
  const std::size_t n_units = units.dictionaries[0].n_levels;
  const auto groups = static_cast<std::uint32_t>(bounds.max_groups_per_unit);
  const auto rows_per_group = static_cast<std::uint32_t>(bounds.max_rows_per_group);

  // The rows' units by period (a counting sort): the rule walks periods in
  // time order; within a period the order does not matter. Reading codes
  // in row order and writing them into a few periods' runs keeps both
  // passes sequential.
  auto period_of = [&](std::size_t i) {
    const std::uint32_t code = rows.period_code[i];
    if (code >= rows.n_period_codes || rows.period_rank[code] >= n_periods)
      throw Error("the stream's periods do not match its rows");
    return rows.period_rank[code];
  };
  std::vector<std::uint64_t> start(n_periods + 1, 0);
  for (std::size_t i = 0; i < n_rows; ++i) {
    interrupts.poll_every(i);
    ++start[period_of(i) + 1];
  }
  for (std::size_t p = 0; p < n_periods; ++p) {
    interrupts.poll_every(p);
    start[p + 1] += start[p];
  }
  std::vector<std::uint32_t> unit_by_period = zeroed_large_buffer<std::uint32_t>(n_rows);
  {
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n_rows; ++i) {
      interrupts.poll_every(i);
      unit_by_period[next[period_of(i)]++] = units.code(i, 0);
    }
  }

  // Per unit (one cache line's worth, read once per row): the periods it
  // has counted in so far, the last period it had rows in (+1; 0: none
  // yet), whether it counts there and the rows it has counted there; and
  // the hash of its bytes (what the fingerprint names it by, so the
  // fingerprint does not depend on how codes are numbered).
  struct UnitState {
    std::uint64_t hash = 0;
    std::uint32_t last_period = 0;
    std::uint32_t kept_periods = 0;
    std::uint32_t rows_here = 0;
    bool kept_here = false;
  };
  const KeyDictionary& dictionary = units.dictionaries[0];
  std::vector<UnitState> state = zeroed_large_buffer<UnitState>(n_units);

  BoundedPeriods out;
  out.counts.assign(n_periods, 0);
  std::uint64_t fingerprint = 0;
  for (std::size_t p = 0; p < n_periods; ++p) {
    if (p == n_past) out.past_fingerprint = fingerprint;
    const auto period = static_cast<std::uint32_t>(p + 1);
    for (std::uint64_t k = start[p]; k < start[p + 1]; ++k) {
      interrupts.poll_every(k);
      const std::uint32_t u = unit_by_period[k];
      UnitState& s = state[u];
      if (s.last_period != period) {
        if (s.last_period == 0) {
          if (dictionary.is_null(u))
            throw NullValue("the privacy unit is NULL in a row of the stream's source",
                            "A NULL unit would lump the rows of unrelated people into one.",
                            "Leave such rows out of the source, or give each its own unit.");
          std::uint64_t scratch;
          s.hash = hash_key_bytes(dictionary.key(u, scratch));
        }
        s.last_period = period;
        s.rows_here = 0;
        s.kept_here = s.kept_periods < groups;
        if (s.kept_here) ++s.kept_periods;
      }
      if (!s.kept_here || s.rows_here >= rows_per_group) continue;
      fingerprint += siphash_2_4(key, s.hash, row_place(p, s.rows_here));
      ++s.rows_here;
      ++out.counts[p];
    }
  }
  if (n_past == n_periods) out.past_fingerprint = fingerprint;
  out.fingerprint = fingerprint;
  return out;
}

double stream_sensitivity_squared(unsigned horizon, Neighbours neighbours, const ContributionBounds& bounds) {
  const double add_remove = StreamingCascade::unit_sensitivity_squared(horizon, Neighbours::AddRemove);
  if (!bounds.active()) {
    const double m = StreamingCascade::unit_sensitivity_squared(horizon, neighbours);
    // Horizon 0 under replace_one: one leaf, a record cannot move; calibrate as add_remove.
    return m > 0 ? m : add_remove;
  }
  const double records = double(bounds.max_groups_per_unit) * double(bounds.max_rows_per_group);
  double per_record = add_remove;
  if (neighbours == Neighbours::ReplaceOne)
    per_record = std::max(per_record, StreamingCascade::unit_sensitivity_squared(horizon, neighbours));
  return records * records * per_record;
}

}  // namespace invariant_dp::hierarchy
