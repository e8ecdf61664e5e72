// A privacy unit with contribution bounds (privacy_unit.hpp) and partition
// selection (partition_selection.hpp): the bounds hold exactly, the choice
// does not depend on the rows' order, bad bounds and bad combinations are
// refused with their SQLSTATE's status, and the calibrations follow the
// bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "request/unit_bounds.hpp"
#include "capi/invariant_dp_core.h"
#include "accuracy/published_law.hpp"
#include "errors.hpp"
#include "mechanisms/partition_selection.hpp"
#include "mechanisms/privacy_unit.hpp"
#include "random_source.hpp"
#include "table_builder.hpp"
#include "unit_cells.hpp"
#include "prepared_release.hpp"

namespace invariant_dp {
namespace {

using test_tables::TextKeys;
using test_tables::UnitCells;

// Rows (unit, cell) as text, a unit's rows anywhere in the list.
struct UnitRows {
  std::vector<std::string> unit, cell;
  void add(const std::string& u, const std::string& c, int times = 1) {
    for (int i = 0; i < times; ++i) {
      unit.push_back(u);
      cell.push_back(c);
    }
  }
  std::vector<const char*> pointers(const std::vector<std::string>& text) const {
    std::vector<const char*> out;
    for (const auto& t : text) out.push_back(t.c_str());
    return out;
  }
};

// bound_contributions on rows, as a map cell -> (count, units).
std::map<std::string, std::pair<std::int64_t, std::int64_t>> bounded(const UnitRows& rows, std::int64_t groups,
                                                                     std::int64_t per_group, std::uint64_t seed) {
  const TextKeys units(rows.pointers(rows.unit), 1), cells(rows.pointers(rows.cell), 1);
  auto rng = make_seeded_random_source(seed);
  const BoundedCells out = bound_contributions(units.rows(), cells.rows(), nullptr,
                                               ContributionBounds{groups, per_group}, *rng, Interrupts());
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> by_cell;
  for (std::size_t c = 0; c < out.row.size(); ++c)
    by_cell[rows.cell[out.row[c]]] = {out.counts[c], out.units[c]};
  return by_cell;
}

TEST(ContributionBounds, ParsesBothBoundsAndRefusesBadOnes) {
  const auto bounds = parse_contribution_bounds({{"max_groups_per_unit", "3"}, {"max_rows_per_group", "2"}});
  EXPECT_EQ(bounds.max_groups_per_unit, 3);
  EXPECT_EQ(bounds.max_rows_per_group, 2);
  EXPECT_DOUBLE_EQ(bounds.l1_factor(), 6.0);
  EXPECT_DOUBLE_EQ(bounds.l2_factor(), std::sqrt(3.0) * 2);
  for (const char* bad : {"0", "-1", "1.5", "", "abc", "1e7", "NaN", "Infinity"})
    EXPECT_THROW(parse_contribution_bounds({{"max_groups_per_unit", bad}, {"max_rows_per_group", "1"}}),
                 InvalidArgument)
        << bad;
  EXPECT_THROW(parse_contribution_bounds({{"max_groups_per_unit", "3"}}), InvalidArgument);
  EXPECT_THROW(parse_contribution_bounds({}), InvalidArgument);
  EXPECT_THROW(parse_contribution_bounds({{"max_groups", "3"}, {"max_rows_per_group", "1"}}), InvalidArgument);
  // Each bound within its range, but one unit's reach beyond 10^9 rows.
  EXPECT_THROW(parse_contribution_bounds({{"max_groups_per_unit", "1000000"}, {"max_rows_per_group", "1001"}}),
               InvalidArgument);
}

// A unit with 1,000 rows over 50 cells (20 in each) keeps G cells and R rows
// in each, exactly; units within the bounds keep everything.
TEST(ContributionBounds, AUnitContributesAtMostTheBounds) {
  UnitRows rows;
  for (int i = 0; i < 1000; ++i) rows.add("heavy", "cell" + std::to_string(i % 50));
  rows.add("light", "cell0", 2);
  rows.add("light", "cell1", 1);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto with_light = bounded(rows, 3, 2, seed);
    std::int64_t total = 0, heavy_cells = 0;
    for (const auto& [cell, count_units] : with_light) {
      const bool light = cell == "cell0" || cell == "cell1";
      const std::int64_t light_count = cell == "cell0" ? 2 : cell == "cell1" ? 1 : 0;
      const std::int64_t heavy = count_units.first - light_count;
      EXPECT_TRUE(heavy == 0 || heavy == 2) << cell;
      heavy_cells += heavy > 0;
      total += heavy;
      EXPECT_EQ(count_units.second, (heavy > 0) + (light ? 1 : 0)) << cell;
    }
    EXPECT_EQ(heavy_cells, 3);
    EXPECT_EQ(total, 6);
    // Every one of the 50 cells is listed (a released cell is a source key).
    EXPECT_EQ(with_light.size(), 50u);
  }
}

// The kept cells depend on the unit, the cells and the random key only:
// the same seed over the rows in any order keeps the same cells.
TEST(ContributionBounds, TheChoiceDoesNotDependOnTheRowOrder) {
  UnitRows rows;
  for (int u = 0; u < 200; ++u)
    for (int i = 0; i < 30; ++i) rows.add("unit" + std::to_string(u), "cell" + std::to_string((u * 7 + i * 13) % 40));
  const auto ordered = bounded(rows, 4, 1, 99);
  std::vector<std::size_t> order(rows.unit.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 shuffle(5);
  for (int trial = 0; trial < 3; ++trial) {
    std::shuffle(order.begin(), order.end(), shuffle);
    UnitRows permuted;
    for (std::size_t i : order) permuted.add(rows.unit[i], rows.cell[i]);
    EXPECT_EQ(bounded(permuted, 4, 1, 99), ordered);
  }
  // A different key chooses differently (so the test above can fail).
  EXPECT_NE(bounded(rows, 4, 1, 100), ordered);
}

// Rows that carry a count weigh as that many rows (a count of 0 holds no
// cell): the walk over each unit's rows reads their counts in unit order.
TEST(ContributionBounds, RowCountsWeighAsRepeatedRows) {
  UnitRows rows, repeated;
  std::vector<std::int64_t> counts;
  for (int u = 0; u < 300; ++u)
    for (int i = 0; i < 12; ++i) {
      const std::string unit = "unit" + std::to_string((u * 31 + i) % 300);
      const std::string cell = "cell" + std::to_string((u * 7 + i * 13) % 40);
      const int count = (u + i) % 4;
      rows.add(unit, cell);
      counts.push_back(count);
      repeated.add(unit, cell, count);
    }
  const TextKeys units(rows.pointers(rows.unit), 1), cells(rows.pointers(rows.cell), 1);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto rng = make_seeded_random_source(seed);
    const BoundedCells out = bound_contributions(units.rows(), cells.rows(), counts.data(),
                                                 ContributionBounds{3, 2}, *rng, Interrupts());
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> weighted;
    for (std::size_t c = 0; c < out.row.size(); ++c)
      if (out.units[c] > 0) weighted[rows.cell[out.row[c]]] = {out.counts[c], out.units[c]};
    auto expected = bounded(repeated, 3, 2, seed);
    for (auto it = expected.begin(); it != expected.end();) it = it->second.second > 0 ? std::next(it) : expected.erase(it);
    EXPECT_EQ(weighted, expected) << seed;
  }
}

TEST(ContributionBounds, ANullUnitIsRefused) {
  const std::vector<const char*> unit = {"a", nullptr}, cell = {"x", "y"};
  const TextKeys units(unit, 1), cells(cell, 1);
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(bound_contributions(units.rows(), cells.rows(), nullptr, ContributionBounds{1, 1}, *rng, Interrupts()),
               NullValue);
}

TEST(PartitionSelection, ParsesTheOption) {
  EXPECT_EQ(parse_partition_selection("laplace").method, SelectionMethod::Laplace);
  const auto gaussian = parse_partition_selection("{\"method\": \"gaussian\", \"budget_share\": 0.3}");
  EXPECT_EQ(gaussian.method, SelectionMethod::Gaussian);
  EXPECT_DOUBLE_EQ(gaussian.budget_share, 0.3);
  for (const char* bad : {"geometric", "{\"method\": \"laplace\", \"budget_share\": 1}",
                          "{\"method\": \"laplace\", \"budget_share\": 0}", "{\"method\": \"laplace\", \"x\": 1}", "{"})
    EXPECT_THROW(parse_partition_selection(bad), InvalidArgument) << bad;
}

// The Laplace threshold: a count of one unit passes with probability
// a^(tau - 1) / (1 + a) <= delta / k, and tau is the smallest that does.
TEST(PartitionSelection, LaplaceThresholdIsTheSmallestThatHoldsDelta) {
  for (std::int64_t groups : {1, 3}) {
    for (double delta : {0.05, 1e-6, 1e-12}) {
      const SelectionLaw law = calibrate_selection(SelectionMethod::Laplace, 0.5, delta, groups, false);
      EXPECT_EQ(law.moved_cells, groups);
      const double b = law.noise_parameter.to_double(), a = std::exp(-1 / b);
      EXPECT_GE(b, groups / 0.5 * (1 - 1e-12));
      const auto pass = [&](std::int64_t tau) { return std::pow(a, double(tau - 1)) / (1 + a); };
      EXPECT_LE(pass(law.threshold), delta / double(groups) * (1 + 1e-12));
      EXPECT_GT(pass(law.threshold - 1), delta / double(groups));
    }
  }
  EXPECT_EQ(calibrate_selection(SelectionMethod::Laplace, 1, 0.01, 2, true).moved_cells, 4);
}

TEST(PartitionSelection, ParsesNoisyCountAndRefusesABudgetShareWithIt) {
  EXPECT_EQ(parse_partition_selection("noisy_count").method, SelectionMethod::NoisyCount);
  EXPECT_EQ(parse_partition_selection("{\"method\": \"noisy_count\"}").method, SelectionMethod::NoisyCount);
  try {
    parse_partition_selection("{\"method\": \"noisy_count\", \"budget_share\": 0.3}");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "partition selection \"noisy_count\" takes no \"budget_share\"");
  }
}

// noisy_count on discrete Laplace counts: tau = R + max(1, ceil(b ln(k /
// (delta (1 + a))))), the smallest tau > R whose k lone cells of R rows are
// shown with probability k a^(tau-R) / (1 + a) <= delta in all.
TEST(PartitionSelection, NoisyCountLaplaceThresholdAtKnownValues) {
  // No unit, replace_one: b = 2 / 1, k = 2, R = 1; ceil(2 ln(2 / (1e-6 (1 + e^-0.5)))) = 29.
  SelectionLaw law = calibrate_noisy_count(false, Rational{2, 1}, 1.0, 1e-6, 1, 1, true);
  EXPECT_EQ(law.threshold, 30);
  EXPECT_EQ(law.moved_cells, 2);
  EXPECT_DOUBLE_EQ(law.epsilon, 0);
  EXPECT_DOUBLE_EQ(law.delta, 1e-6);
  // G = 3, R = 2, add_remove, epsilon 1: b = 6, k = 3; ceil(6 ln(3 / (1e-6 (1 + e^(-1/6))))) = 86.
  law = calibrate_noisy_count(false, Rational{6, 1}, 1.0, 1e-6, 3, 2, false);
  EXPECT_EQ(law.threshold, 88);
  // A large delta keeps tau - R at 1.
  EXPECT_EQ(calibrate_noisy_count(false, Rational{1, 2}, 4.0, 0.9, 1, 5, false).threshold, 6);
  // A threshold beyond bigint (epsilon 1e-17: b = 1e17) is out of range (22003).
  EXPECT_THROW(calibrate_noisy_count(false, Rational{100000000000000000, 1}, 1e-17, 1e-300, 1, 1, false), OutOfRange);
  for (std::int64_t groups : {1, 4}) {
    for (std::int64_t rows : {1, 3}) {
      for (double delta : {0.3, 1e-6, 1e-12}) {
        const double b = double(groups * rows) / 0.7;
        law = calibrate_noisy_count(false, rational_at_least(b), 0.7, delta, groups, rows, false);
        const double a = std::exp(-1 / law.noise_parameter.to_double()), k = double(groups);
        const auto lone = [&](std::int64_t tau) { return k * std::pow(a, double(tau - rows)) / (1 + a); };
        EXPECT_GE(law.threshold - rows, 1);
        EXPECT_LE(lone(law.threshold), delta * (1 + 1e-12)) << groups << " " << rows << " " << delta;
        if (law.threshold - rows > 1) {
          EXPECT_GT(lone(law.threshold - 1), delta);
        }
      }
    }
  }
}

// noisy_count on discrete Gaussian counts: tau = ceil(sigma sqrt(2 ln(2 (1 +
// e^epsilon) G / delta))), so (1 + e^epsilon) G exp(-tau^2 / (2 sigma^2)) <=
// delta / 2; G, not 2G, under replace_one too.
TEST(PartitionSelection, NoisyCountGaussianThresholdAtKnownValues) {
  // sigma^2 = 16, epsilon 1, G = 1, delta 1e-6: 4 sqrt(2 ln(2 (1 + e) / 1e-6)) = 22.50...
  SelectionLaw law = calibrate_noisy_count(true, Rational{16, 1}, 1.0, 1e-6, 1, 1, true);
  EXPECT_EQ(law.threshold, 23);
  EXPECT_EQ(law.moved_cells, 2);
  EXPECT_DOUBLE_EQ(law.delta, 0.5e-6);  // the other half is the counts'
  EXPECT_EQ(calibrate_noisy_count(true, Rational{16, 1}, 1.0, 1e-6, 1, 1, false).threshold, 23);
  for (std::int64_t groups : {1, 5})
    for (double delta : {0.3, 1e-9}) {
      law = calibrate_noisy_count(true, Rational{50, 1}, 0.5, delta, groups, 1, true);
      const auto excess = [&](std::int64_t tau) {
        return (1 + std::exp(0.5)) * double(groups) * std::exp(-double(tau) * double(tau) / 100);
      };
      EXPECT_LE(excess(law.threshold), delta / 2 * (1 + 1e-12));
      EXPECT_GT(excess(law.threshold - 1), delta / 2);
    }
}

// ---- through the C boundary --------------------------------------------

struct UnitRelease {
  UnitRows rows;
  std::vector<const char*> unit_text, cell_text;
  std::unique_ptr<UnitCells> unit_cells;
  std::vector<const char*> bounds = {"2", "1"};  // max_groups_per_unit, max_rows_per_group
  std::vector<const char*> option_keys, option_values, margins;
  idp_request request{};

  void build() {
    unit_text = rows.pointers(rows.unit);
    cell_text = rows.pointers(rows.cell);
    unit_cells = std::make_unique<UnitCells>(unit_text, cell_text, std::vector<const char*>{"clinic"}, bounds[0],
                                             bounds[1]);
    unit_cells->bind(request);
    request.mechanism = request.mechanism ? request.mechanism : "discrete_laplace";
    request.epsilon = request.epsilon ? request.epsilon : 1.0;
    request.n_options = option_keys.size();
    request.option_keys = option_keys.data();
    request.option_values = option_values.data();
    request.n_margins = margins.size();
    request.margins = margins.data();
  }
  idp_status run(idp_release_table** out, idp_error* error, std::uint64_t seed = 3) {
    idp_randomness randomness{true, seed, seed};
    return prepare_and_release(&request, &unit_cells->cells(), &randomness, nullptr, out, error);
  }
};

TEST(PrivacyUnitRelease, ReleasesDistinctCellsWithBoundedCountsAndStatesTheBounds) {
  UnitRelease r;
  for (int u = 0; u < 50; ++u) {
    r.rows.add("p" + std::to_string(u), "north", 3);
    r.rows.add("p" + std::to_string(u), "south", 1);
  }
  r.bounds = {"2", "2"};
  r.build();
  idp_release_table* out = nullptr;
  idp_error error{};
  ASSERT_EQ(r.run(&out, &error), IDP_OK) << error.message;
  ASSERT_EQ(out->n_rows, 2u);
  ASSERT_NE(out->row_cell, nullptr);
  std::set<std::string> printed;
  for (std::size_t i = 0; i < out->n_rows; ++i) printed.insert(r.rows.cell[out->row_cell[i]]);
  EXPECT_EQ(printed, (std::set<std::string>{"north", "south"}));
  const std::string metadata = out->metadata_json;
  EXPECT_NE(metadata.find("\"privacy_unit\": {\"column\": \"patient\", \"max_groups_per_unit\": 2, "
                          "\"max_rows_per_group\": 2"),
            std::string::npos)
      << metadata;
  // discrete_laplace's neighbours are replace_one: one unit's rows replaced
  // by another's move the counts by at most 2 G R = 8 in l1.
  EXPECT_NE(metadata.find("\"neighbours\": \"replace_one\""), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("\"l1_sensitivity\": 8"), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("\"scale\": 8"), std::string::npos) << metadata;
  idp_free_release(out);
}

TEST(PrivacyUnitRelease, RefusesUnitsWithoutBoundsAndSelectionWhereCellsMustBePublic) {
  idp_release_table* out = nullptr;
  idp_error error{};
  {
    UnitRelease r;
    r.rows.add("p", "north");
    r.build();
    r.request.has_bounds = false;
    r.request.n_bounds = 0;
    EXPECT_EQ(r.run(&out, &error), IDP_INVALID_ARGUMENT);
    EXPECT_STREQ(error.message, "a privacy unit needs contribution bounds");
    EXPECT_NE(std::string(error.hint).find("bounds =>"), std::string::npos);
  }
  {
    UnitRelease r;
    r.rows.add("p", "north");
    r.option_keys = {"partition_selection"};
    r.option_values = {"laplace"};
    r.margins = {"clinic"};
    r.request.mechanism = "integer_laplace";
    r.build();
    r.request.has_delta = true;
    r.request.delta = 1e-6;
    EXPECT_EQ(r.run(&out, &error), IDP_INVALID_ARGUMENT);
    EXPECT_STREQ(error.message, "partition selection cannot keep margins exact");
  }
  {
    UnitRelease r;
    r.rows.add("p", "north");
    r.option_keys = {"partition_selection"};
    r.option_values = {"laplace"};
    r.build();
    EXPECT_EQ(r.run(&out, &error), IDP_INVALID_ARGUMENT);  // no delta
    EXPECT_STREQ(error.message, "partition selection needs delta");
  }
  {
    UnitRelease r;
    r.rows.add("p", "north");
    r.option_keys = {"partition_selection", "keys"};
    r.option_values = {"laplace", "public"};
    r.build();
    r.request.has_delta = true;
    r.request.delta = 1e-6;
    EXPECT_EQ(r.run(&out, &error), IDP_INVALID_ARGUMENT);
  }
  EXPECT_EQ(out, nullptr);
}

// A budget so small that its share for the selection (or for the counts)
// rounds to 0 is out of range, not a selection without a budget.
TEST(PrivacyUnitRelease, SelectionRefusesAShareThatRoundsToZero) {
  // discrete_gaussian splits delta too: 0.3 of 5e-324 is 0.
  for (const auto& [epsilon, delta] : {std::pair<double, double>{5e-324, 1e-6}, {1.0, 5e-324}}) {
    UnitRelease r;
    if (epsilon == 1.0) r.request.mechanism = "discrete_gaussian";
    r.rows.add("p", "north");
    r.option_keys = {"partition_selection"};
    r.option_values = {"{\"method\": \"laplace\", \"budget_share\": 0.3}"};
    r.build();
    r.request.epsilon = epsilon;
    r.request.has_delta = true;
    r.request.delta = delta;
    idp_release_table* out = nullptr;
    idp_error error{};
    EXPECT_EQ(r.run(&out, &error), IDP_OUT_OF_RANGE) << epsilon << " " << delta << ": " << error.message;
    EXPECT_STREQ(error.message, "epsilon or delta is too small to share with partition selection");
    EXPECT_EQ(out, nullptr);
  }
}

// The metadata of a release whose partition selection (`method`, at delta
// 1e-9) shows none of these rare cells: no row, and the law all the same.
std::string law_of_empty_selection(UnitRelease& r, const char* method) {
  r.option_keys = {"partition_selection"};
  r.option_values = {method};
  r.build();
  r.request.has_delta = true;
  r.request.delta = 1e-9;
  idp_release_table* out = nullptr;
  idp_error error{};
  EXPECT_EQ(r.run(&out, &error), IDP_OK) << error.message;
  if (out == nullptr) return {};
  EXPECT_EQ(out->n_rows, 0u);
  std::string metadata = out->metadata_json;
  idp_free_release(out);
  return metadata;
}

// Partition selection that shows nothing releases nothing, with its law.
TEST(PrivacyUnitRelease, SelectionMayShowNoCell) {
  UnitRelease r;
  r.rows.add("p", "rare");
  EXPECT_NE(law_of_empty_selection(r, "laplace").find("\"partition_selection\""), std::string::npos);
}

// noisy_count: the counts drawn with all of epsilon, only those reaching
// the threshold released; the metadata counts the shown cells only (never
// the source's), states the threshold and the bias, and promises no error
// bar, which the margin-of-error functions refuse.
TEST(PrivacyUnitRelease, NoisyCountShowsTheCountsReachingTheThreshold) {
  for (const char* mechanism : {"discrete_laplace", "discrete_gaussian"}) {
    UnitRelease r;
    for (int u = 0; u < 200; ++u) {
      r.rows.add("n" + std::to_string(u), "north");
      r.rows.add("s" + std::to_string(u), "south");
    }
    for (int u = 0; u < 30; ++u) r.rows.add("r" + std::to_string(u), "rare" + std::to_string(u));
    r.option_keys = {"partition_selection"};
    r.option_values = {"noisy_count"};
    r.request.mechanism = mechanism;
    r.build();
    r.request.has_delta = true;
    r.request.delta = 1e-6;
    idp_release_table* out = nullptr;
    idp_error error{};
    ASSERT_EQ(r.run(&out, &error), IDP_OK) << mechanism << ": " << error.message;
    ASSERT_EQ(out->n_rows, 2u) << mechanism;
    ASSERT_NE(out->row_cell, nullptr);
    std::set<std::string> printed;
    for (std::size_t i = 0; i < out->n_rows; ++i) printed.insert(r.rows.cell[out->row_cell[i]]);
    EXPECT_EQ(printed, (std::set<std::string>{"north", "south"}));
    const std::string metadata = out->metadata_json;
    const std::size_t at = metadata.find("\"threshold\": ");
    ASSERT_NE(at, std::string::npos) << metadata;
    const std::int64_t threshold = std::stoll(metadata.substr(at + 13));
    EXPECT_GT(threshold, 1);
    ASSERT_NE(out->integer_values, nullptr);
    for (std::size_t i = 0; i < out->n_rows; ++i) EXPECT_GE(out->integer_values[i], threshold);
    for (const char* expected : {"\"method\": \"noisy_count\"", "\"cells\": 2,", "\"null_dimension\": 2}",
                                 "\"epsilon\": 1,", "\"delta\": 1e-06,", "\"counts_epsilon\": 1,",
                                 "biased upward near the threshold", "arXiv:1909.01917",
                                 "whose released count reached the threshold"})
      EXPECT_NE(metadata.find(expected), std::string::npos) << mechanism << " " << expected << "\n" << metadata;
    EXPECT_EQ(metadata.find("unit_variance * I (independent cells)\""), std::string::npos) << metadata;
    const bool gaussian = std::string(mechanism) == "discrete_gaussian";
    EXPECT_NE(metadata.find(gaussian ? "\"counts_delta\": 5e-07" : "\"counts_delta\": 0"), std::string::npos)
        << metadata;
    try {
      accuracy::read_published_law(metadata);
      FAIL() << mechanism;
    } catch (const InvalidArgument& e) {
      EXPECT_STREQ(e.what(), "a release with partition selection \"noisy_count\" has no error bars");
      EXPECT_NE(std::string(e.hint()).find("\"laplace\" or \"gaussian\""), std::string::npos);
    }
    idp_free_release(out);
  }
}

// A release in which no count reaches the threshold is empty, with its law.
TEST(PrivacyUnitRelease, NoisyCountMayShowNoCell) {
  UnitRelease r;
  for (int u = 0; u < 5; ++u) r.rows.add("r" + std::to_string(u), "rare" + std::to_string(u));
  const std::string metadata = law_of_empty_selection(r, "{\"method\": \"noisy_count\"}");
  EXPECT_NE(metadata.find("\"cells\": 0,"), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("\"method\": \"noisy_count\""), std::string::npos) << metadata;
}

// Other mechanisms, error bars and a budget share are refused (22023).
TEST(PrivacyUnitRelease, NoisyCountRefusals) {
  struct Case {
    const char* mechanism;
    std::vector<const char*> keys, values;
    const char* message;
    const char* hint;
  };
  const std::vector<Case> cases = {
      {"integer_laplace", {"partition_selection"}, {"noisy_count"},
       "partition selection \"noisy_count\" needs mechanism discrete_laplace or discrete_gaussian",
       "\"truncated_geometric\" partition selection"},
      {"subspace_gaussian", {"partition_selection"}, {"noisy_count"},
       "partition selection \"noisy_count\" needs mechanism discrete_laplace or discrete_gaussian", "discrete_gaussian"},
      {"discrete_laplace", {"partition_selection", "stddev"}, {"noisy_count", "true"},
       "option \"stddev\" cannot be used with partition selection \"noisy_count\"", "unbiased counts with error bars"},
      {"discrete_gaussian", {"interval", "partition_selection"}, {"0.9", "noisy_count"},
       "option \"interval\" cannot be used with partition selection \"noisy_count\"", "unbiased counts with error bars"},
      {"discrete_laplace", {"partition_selection"}, {"{\"method\": \"noisy_count\", \"budget_share\": 0.5}"},
       "partition selection \"noisy_count\" takes no \"budget_share\"", "Drop \"budget_share\""},
  };
  for (const Case& c : cases) {
    UnitRelease r;
    r.rows.add("p", "north");
    r.option_keys = c.keys;
    r.option_values = c.values;
    r.request.mechanism = c.mechanism;
    r.build();
    r.request.has_delta = true;
    r.request.delta = 1e-6;
    idp_release_table* out = nullptr;
    idp_error error{};
    EXPECT_EQ(r.run(&out, &error), IDP_INVALID_ARGUMENT) << c.mechanism << " " << c.values[0];
    EXPECT_STREQ(error.message, c.message);
    EXPECT_NE(std::string(error.hint).find(c.hint), std::string::npos) << error.hint;
    EXPECT_EQ(out, nullptr);
  }
}

}  // namespace
}  // namespace invariant_dp

namespace invariant_dp {
namespace {

// With a hierarchy the leaves are released on the bounds and summed up the
// tree; every row prints its keys from a source row of its cell.
TEST(PrivacyUnitRelease, HierarchyRollsUpBoundedLeaves) {
  std::vector<std::string> unit, region, clinic;
  for (int p = 0; p < 60; ++p)
    for (int v = 0; v < 5; ++v) {
      unit.push_back("p" + std::to_string(p));
      const int c = (p + v) % 6;
      region.push_back(c < 3 ? "north" : "south");
      clinic.push_back("clinic" + std::to_string(c));
    }
  std::vector<const char*> unit_text, key_text;
  for (std::size_t i = 0; i < unit.size(); ++i) {
    unit_text.push_back(unit[i].c_str());
    key_text.push_back(region[i].c_str());
    key_text.push_back(clinic[i].c_str());
  }
  const UnitCells cells(unit_text, key_text, {"region", "clinic"}, "2", "1");
  const char* levels[] = {"region", "clinic"};
  idp_request request{};
  cells.bind(request);
  request.mechanism = "integer_laplace";
  request.epsilon = 1;
  request.n_hierarchy = 2;
  request.hierarchy = levels;
  idp_randomness randomness{true, 5, 5};
  idp_release_table* out = nullptr;
  idp_error error{};
  ASSERT_EQ(prepare_and_release(&request, &cells.cells(), &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  ASSERT_EQ(out->n_rows, 1u + 2u + 6u);  // total, regions, clinics
  std::set<std::string> leaves;
  std::int64_t total = 0, leaf_sum = 0;
  for (std::size_t r = 0; r < out->n_rows; ++r) {
    ASSERT_LT(out->row_cell[r], unit.size());
    if (out->row_depth[r] == 2) {
      leaves.insert(clinic[out->row_cell[r]]);
      leaf_sum += out->integer_values[r];
    }
    if (out->row_depth[r] == 0) total = out->integer_values[r];
  }
  EXPECT_EQ(leaves.size(), 6u);
  EXPECT_EQ(total, leaf_sum);
  EXPECT_NE(std::string(out->metadata_json).find("\"max_groups_per_unit\": 2"), std::string::npos)
      << out->metadata_json;
  idp_free_release(out);
  // The cascades take a unit too, calibrated on (G R)^2 times one record's
  // sensitivity (test_cascade_calibration.cpp checks the bound).
  request.mechanism = "integer_cascade";
  request.has_delta = true;
  request.delta = 1e-6;
  ASSERT_EQ(prepare_and_release(&request, &cells.cells(), &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  EXPECT_EQ(out->n_rows, 1u + 2u + 6u);
  EXPECT_NE(std::string(out->metadata_json).find("\"max_groups_per_unit\": 2"), std::string::npos)
      << out->metadata_json;
  idp_free_release(out);
}

}  // namespace
}  // namespace invariant_dp
