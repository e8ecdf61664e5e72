// A stream's privacy units (hierarchy/stream_units.hpp): each unit counts in
// its first G periods with at most R rows each, as a brute-force oracle
// says; the ledger's fingerprint sees a changed past (even one that keeps
// every count) and nothing else; the sensitivity is (G R)^2 times one
// record's; and through the C boundary an append with a changed past is
// refused before anything is drawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "capi/invariant_dp_stream.h"
#include "errors.hpp"
#include "hierarchy/stream_units.hpp"
#include "hierarchy/streaming_cascade.hpp"
#include "table_builder.hpp"

namespace invariant_dp {
namespace {

using hierarchy::BoundedPeriods;
using hierarchy::bound_stream_units;
using test_tables::TextKeys;

// A stream's events: (period, unit), in any order; periods 0 .. n - 1.
struct EventRows {
  std::vector<std::pair<int, std::string>> rows;  // (period, unit)

  void add(int period, const std::string& unit, int times = 1) {
    for (int i = 0; i < times; ++i) rows.emplace_back(period, unit);
  }
  std::size_t n_periods() const {
    int last = -1;
    for (const auto& r : rows) last = std::max(last, r.first);
    return static_cast<std::size_t>(last + 1);
  }
  // Period codes as the shim has them: numbered by first appearance, each
  // code's period given by a rank table.
  void code_periods(std::vector<std::uint32_t>& codes, std::vector<std::uint32_t>& rank) const {
    std::map<int, std::uint32_t> code_of;
    codes.clear();
    rank.clear();
    for (const auto& r : rows) {
      auto [it, added] = code_of.emplace(r.first, static_cast<std::uint32_t>(rank.size()));
      if (added) rank.push_back(static_cast<std::uint32_t>(r.first));
      codes.push_back(it->second);
    }
  }
  std::vector<const char*> units() const {
    std::vector<const char*> out;
    for (const auto& r : rows) out.push_back(r.second.empty() ? nullptr : r.second.c_str());
    return out;
  }
};

const SipKey kKey{0x1234, 0x5678};

BoundedPeriods bound(const EventRows& s, std::size_t n_past, std::int64_t groups, std::int64_t rows_per_group,
                     const SipKey& key = kKey, const Interrupts& interrupts = Interrupts()) {
  const TextKeys units(s.units(), 1);
  std::vector<std::uint32_t> codes, rank;
  s.code_periods(codes, rank);
  hierarchy::StreamRows rows;
  rows.units = units.rows();
  rows.period_code = codes.data();
  rows.period_rank = rank.data();
  rows.n_period_codes = rank.size();
  rows.n_periods = s.n_periods();
  return bound_stream_units(rows, n_past, ContributionBounds{groups, rows_per_group}, key, interrupts);
}

// The rule, by brute force: a unit's distinct periods in order, the first G kept, min(rows, R) each.
std::vector<std::int64_t> oracle(const EventRows& s, std::size_t n_periods, int groups, int rows_per_group) {
  std::map<std::string, std::map<int, int>> rows_of;  // unit -> period -> rows
  for (const auto& [p, u] : s.rows) ++rows_of[u][p];
  std::vector<std::int64_t> counts(n_periods, 0);
  for (const auto& [u, periods] : rows_of) {
    int kept = 0;
    for (const auto& [p, n] : periods)
      if (kept++ < groups) counts[p] += std::min(n, rows_per_group);
  }
  return counts;
}

TEST(StreamUnits, AUnitWithAThousandRowsCountsInItsFirstPeriodsOnly) {
  EventRows s;
  for (int p = 0; p < 50; ++p) s.add(p, "heavy", 20);
  const BoundedPeriods out = bound(s, 0, 3, 2);
  ASSERT_EQ(out.counts.size(), 50u);
  for (int p = 0; p < 50; ++p) EXPECT_EQ(out.counts[p], p < 3 ? 2 : 0) << p;
}

TEST(StreamUnits, MatchesTheRuleOnRandomStreams) {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 20; ++trial) {
    EventRows s;
    const int periods = 1 + trial % 9, units = 1 + trial * 3;
    for (int p = 0; p < periods; ++p) {
      s.add(p, "u0");  // every period present
      for (int u = 0; u < units; ++u)
        if (gen() % 3 == 0) s.add(p, "u" + std::to_string(u), 1 + int(gen() % 4));
    }
    std::shuffle(s.rows.begin(), s.rows.end(), gen);  // rows in any order
    for (int groups : {1, 2, 4})
      for (int per_group : {1, 3}) {
        const BoundedPeriods out = bound(s, 0, groups, per_group);
        EXPECT_EQ(out.counts, oracle(s, periods, groups, per_group)) << trial << " " << groups << " " << per_group;
      }
  }
}

TEST(StreamUnits, TheFingerprintDoesNotDependOnRowOrderOrCodes) {
  EventRows s;
  for (int p = 0; p < 6; ++p)
    for (int u = 0; u < 9; ++u)
      if ((p + u) % 3 != 0) s.add(p, "unit " + std::to_string(u), 1 + (p * u) % 3);
  const BoundedPeriods a = bound(s, 4, 3, 2);
  // Reversed: the units and periods are coded in another order too.
  EventRows r;
  for (auto it = s.rows.rbegin(); it != s.rows.rend(); ++it) r.rows.push_back(*it);
  const BoundedPeriods b = bound(r, 4, 3, 2);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.past_fingerprint, b.past_fingerprint);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_NE(a.past_fingerprint, a.fingerprint);  // the new periods count someone
  // Another key, another fingerprint.
  EXPECT_NE(bound(s, 4, 3, 2, SipKey{1, 2}).past_fingerprint, a.past_fingerprint);
}

TEST(StreamUnits, TheFingerprintSeesAChangedPastAndOnlyThat) {
  // Periods 0..2 released, G = R = 2. a: 2 rows in 0, 1 in 2 and 3; b: 0
  // and 1; c: 1, 2, 3; e: 0, 1, 2 (its row in 2 never counts).
  EventRows base;
  base.add(0, "a", 2);
  base.add(0, "b");
  base.add(0, "e");
  base.add(1, "b");
  base.add(1, "c");
  base.add(1, "e");
  base.add(2, "a");
  base.add(2, "c");
  base.add(2, "e");
  base.add(3, "c");
  base.add(3, "a");
  const std::uint64_t past = bound(base, 3, 2, 2).past_fingerprint;
  auto past_of = [](const EventRows& s) { return bound(s, 3, 2, 2).past_fingerprint; };
  auto without = [&](int period, const std::string& unit) {
    EventRows s = base;
    s.rows.erase(std::find(s.rows.begin(), s.rows.end(), std::make_pair(period, unit)));
    return s;
  };
  // A counted row removed: a would count in period 3 instead.
  EXPECT_NE(past_of(without(2, "a")), past);
  // One of b's rows becomes d's: every count stays, the units counted do not.
  EventRows swapped = without(1, "b");
  swapped.add(1, "d");
  EXPECT_EQ(bound(swapped, 3, 2, 2).counts, bound(base, 3, 2, 2).counts);
  EXPECT_NE(past_of(swapped), past);
  // A counted row moved between released periods.
  EventRows moved = without(0, "b");
  moved.add(2, "b");
  EXPECT_NE(past_of(moved), past);
  // Rows that never counted may change: a third row of a in period 0
  // (R = 2), e's row in period 2 (its third period, G = 2).
  EventRows more = base;
  more.add(0, "a");
  EXPECT_EQ(past_of(more), past);
  EXPECT_EQ(past_of(without(2, "e")), past);
  // New periods never enter the past's fingerprint.
  EventRows later = base;
  later.add(4, "e", 3);
  EXPECT_EQ(past_of(later), past);
}

TEST(StreamUnits, RefusesANullUnitAndStopsWhenInterrupted) {
  EventRows s;
  s.add(0, "a");
  s.add(0, "");  // NULL
  EXPECT_THROW(bound(s, 0, 1, 1), NullValue);

  EventRows big;
  for (int p = 0; p < 100; ++p)
    for (int u = 0; u < 200; ++u) big.add(p, std::to_string(u));
  int polls = 0;
  const Interrupts cancel([](void* n) { return ++*static_cast<int*>(n) > 1; }, &polls);
  EXPECT_THROW(bound(big, 0, 3, 1, kKey, cancel), Interrupted);
  EXPECT_EQ(polls, 2);
}

TEST(StreamUnits, SensitivityIsGRSquaredTimesOneRecordsLargest) {
  using hierarchy::StreamingCascade;
  using hierarchy::stream_sensitivity_squared;
  for (unsigned k : {0u, 1u, 7u, 20u}) {
    const double add = StreamingCascade::unit_sensitivity_squared(k, Neighbours::AddRemove);
    const double replace = StreamingCascade::unit_sensitivity_squared(k, Neighbours::ReplaceOne);
    EXPECT_DOUBLE_EQ(stream_sensitivity_squared(k, Neighbours::AddRemove, {}), add);
    EXPECT_DOUBLE_EQ(stream_sensitivity_squared(k, Neighbours::ReplaceOne, {}), k == 0 ? add : replace);
    EXPECT_DOUBLE_EQ(stream_sensitivity_squared(k, Neighbours::AddRemove, ContributionBounds{4, 3}), 144 * add);
    // Replace-one pairs records as moves; unpaired ones are lone additions.
    EXPECT_DOUBLE_EQ(stream_sensitivity_squared(k, Neighbours::ReplaceOne, ContributionBounds{4, 3}),
                     144 * std::max(add, replace));
  }
}

// Through the C boundary: idp_stream_append with units.
struct UnitAppend {
  EventRows rows;
  idp_status status = IDP_OK;
  std::vector<std::int64_t> counts;
  std::vector<double> noise;
  std::string state;

  void run(const char* previous, std::uint64_t n_released, bool with_units = true) {
    const TextKeys units(rows.units(), 1);
    std::vector<std::uint32_t> codes, rank;
    rows.code_periods(codes, rank);
    const char* keys[] = {"max_groups_per_unit", "max_rows_per_group"};
    const char* values[] = {"2", "1"};
    const idp_stream_units in{rows.rows.size(), units.codes()[0], units.dictionaries()[0], codes.data(), rank.data(),
                              rank.size(), idp_bounds{2, keys, values}};
    const std::uint64_t count = rows.n_periods() - n_released;
    counts.assign(count, -1);
    noise.assign(count, 0);
    const idp_randomness seeded{true, 5, 1};
    char* next = nullptr;
    idp_error error{};
    status = idp_stream_append(previous, 2.0, 6, n_released, count, with_units ? &in : nullptr, &seeded, nullptr,
                               counts.data(), noise.data(), &next, &error);
    state = next ? next : "";
    idp_free(next);
  }
};

TEST(CapiStreamUnits, AppendsBoundedCountsAndRefusesAChangedPast) {
  UnitAppend first;
  first.rows.add(0, "a", 3);
  first.rows.add(0, "b");
  first.rows.add(1, "a");
  first.rows.add(2, "a");  // a's third period: not counted (G = 2)
  first.run(nullptr, 0);
  ASSERT_EQ(first.status, IDP_OK);
  EXPECT_EQ(first.counts, (std::vector<std::int64_t>{2, 1, 0}));
  ASSERT_NE(first.state.find("\nunits/1 key="), std::string::npos);

  UnitAppend next;
  next.rows = first.rows;
  next.rows.add(3, "b");
  next.rows.add(3, "a");
  next.run(first.state.c_str(), 3);
  ASSERT_EQ(next.status, IDP_OK);
  EXPECT_EQ(next.counts, (std::vector<std::int64_t>{1}));

  // b's row of period 0 becomes c's: refused, nothing returned.
  UnitAppend changed;
  changed.rows = next.rows;
  changed.rows.rows.erase(std::find(changed.rows.rows.begin(), changed.rows.rows.end(), std::make_pair(0, std::string("b"))));
  changed.rows.add(0, "c");
  changed.rows.add(4, "c");
  changed.run(next.state.c_str(), 4);
  EXPECT_EQ(changed.status, IDP_INVALID_DATA);
  EXPECT_EQ(changed.state, "");

  // A state with a ledger needs units, and one without refuses them.
  UnitAppend plain;
  plain.rows = next.rows;
  plain.run(next.state.c_str(), 4, false);
  EXPECT_EQ(plain.status, IDP_INVALID_DATA);
  const std::string cascade_only = next.state.substr(0, next.state.find('\n'));
  UnitAppend stray;
  stray.rows = next.rows;
  stray.run(cascade_only.c_str(), 4);
  EXPECT_EQ(stray.status, IDP_INVALID_DATA);
}

TEST(CapiStreamUnits, CalibratesOnTheUnitsMove) {
  const char* keys[] = {"max_groups_per_unit", "max_rows_per_group"};
  const char* values[] = {"4", "1"};
  const idp_bounds bounds{2, keys, values};
  double one = 0, unit = 0;
  idp_error error{};
  ASSERT_EQ(idp_stream_variance(1.0, 1e-6, 9, "add_remove", nullptr, &one, &error), IDP_OK);
  ASSERT_EQ(idp_stream_variance(1.0, 1e-6, 9, "add_remove", &bounds, &unit, &error), IDP_OK);
  EXPECT_NEAR(unit / one, 16.0, 1e-9);  // the analytic Gaussian's sigma is linear in the sensitivity
  const char* bad_values[] = {"0", "1"};
  const idp_bounds bad{2, keys, bad_values};
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, 9, "add_remove", &bad, &unit, &error), IDP_INVALID_ARGUMENT);
  const idp_bounds none{0, nullptr, nullptr};
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, 9, "add_remove", &none, &unit, &error), IDP_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace invariant_dp
