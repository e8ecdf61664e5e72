// integer_laplace through the release path: integers, every margin group's
// total exact, the published per-cell sd equal to the exact conditional
// variance, and a clear refusal for crossing margins.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "accuracy/table_covariance_scale.hpp"
#include "errors.hpp"
#include "mechanisms/release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "samplers/conditioned_laplace_variance.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

ReleaseRequest integer_laplace(double epsilon, std::vector<std::string> margins) {
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = epsilon;
  raw.margins = std::move(margins);
  return validate_request(raw);
}

// Every row and every column total of a rows x columns release (row-major)
// equals the true one.
void expect_totals_kept(const std::vector<std::int64_t>& released, const std::vector<std::int64_t>& counts,
                        int rows, int columns) {
  for (int r = 0; r < rows; ++r) {
    std::int64_t row = 0, true_row = 0;
    for (int c = 0; c < columns; ++c) {
      row += released[std::size_t(r * columns + c)];
      true_row += counts[std::size_t(r * columns + c)];
    }
    EXPECT_EQ(row, true_row) << "row " << r;
  }
  for (int c = 0; c < columns; ++c) {
    std::int64_t column = 0, true_column = 0;
    for (int r = 0; r < rows; ++r) {
      column += released[std::size_t(r * columns + c)];
      true_column += counts[std::size_t(r * columns + c)];
    }
    EXPECT_EQ(column, true_column) << "column " << c;
  }
}

}  // namespace

// Reference variances by brute-force enumeration (Python, exact sums over a
// box of +-60 / +-40 / +-18 per free cell, tails below 1e-20), and for k = 2
// the closed form 2 a^2 / (1 - a^2)^2 with a = exp(-1/b).
TEST(ConditionedLaplaceVariance, MatchesEnumeration) {
  EXPECT_NEAR(conditioned_laplace_variance({1, 1}, 2), 0.3620308304831553, 1e-12);
  const double a2 = std::exp(-2.0);
  EXPECT_NEAR(conditioned_laplace_variance({1, 1}, 2), 2 * a2 / ((1 - a2) * (1 - a2)), 1e-12);
  EXPECT_NEAR(conditioned_laplace_variance({2, 1}, 2), 1.8413471884155848, 1e-12);
  EXPECT_NEAR(conditioned_laplace_variance({3, 2}, 3), 1.7030152028884915, 1e-10);
  EXPECT_NEAR(conditioned_laplace_variance({4, 5}, 4), 0.49799905337395894, 1e-10);
  EXPECT_EQ(conditioned_laplace_variance({1, 1}, 1), 0.0);
}

TEST(ConditionedLaplaceVariance, ApproachesTheUnconditionedVarianceForLargeGroups) {
  // Var(z_i) -> 2a/(1-a)^2 (1 - 1/k) as k grows (the sum constraint removes
  // one degree of freedom out of k).
  const double b = 10.41667;
  const double a = std::exp(-1 / b);
  const double free_variance = 2 * a / ((1 - a) * (1 - a));
  for (std::size_t k : {1000u, 100000u})
    EXPECT_NEAR(conditioned_laplace_variance({1041667, 100000}, k) / (free_variance * (1 - 1.0 / k)), 1.0, 2e-3);
}

// The series is summed at a step that grows with the spread of the total, so
// a tiny epsilon (a huge scale) costs a few thousand terms, not 10^8 (the
// attack that hung a backend at epsilon 1e-8). For k = 2 the closed form is
// the oracle at any scale; for k = 50 a plain sum over every integer, written
// out here, is the oracle at a scale where it is still affordable.
TEST(ConditionedLaplaceVariance, HugeScalesAreFastAndAgreeWithTheClosedForm) {
  for (std::uint64_t b : {20000u, 2000000u, 200000000u}) {
    // 1 - a^2 by expm1: at b = 2e8 the plain difference loses half the digits.
    const double a2 = std::exp(-2.0 / double(b)), one_minus_a2 = -std::expm1(-2.0 / double(b));
    const double closed = 2 * a2 / (one_minus_a2 * one_minus_a2);
    EXPECT_NEAR(conditioned_laplace_variance({b, 1}, 2) / closed, 1.0, 1e-9) << "b = " << b;
  }
}

TEST(ConditionedLaplaceVariance, CoarseStepMatchesTheSumOverEveryInteger) {
  for (double k : {2.0, 3.0, 50.0, 1000.0}) {
    for (std::uint64_t b : {300u, 3000u, 20000u}) {
      if (k * double(b) > 4e6) continue;  // the oracle's sum grows with k b
      // The oracle walks the weights by their ratio w(n+1)/w(n) = ((n+k)/(n+1))^2 a^2,
      // independent of the lgamma arithmetic under test, from n = 0 (log w = 0).
      const double log_a = -1 / double(b);
      std::vector<double> log_w{0.0};
      for (double n = 0; n < 1e7; ++n) {
        log_w.push_back(log_w.back() + 2 * std::log1p((k - 1) / (n + 1)) + 2 * log_a);
        if (log_w.back() < log_w.front() - 50 && log_w.back() < *std::max_element(log_w.begin(), log_w.end()) - 50) break;
      }
      const double top = *std::max_element(log_w.begin(), log_w.end());
      double total = 0, moment = 0;
      for (std::size_t n = 0; n < log_w.size(); ++n) {
        const double w = std::exp(log_w[n] - top);
        total += w;
        moment += w * double(n) * (double(n) + k);
      }
      const double every_integer = 2 * (k - 1) * (moment / total) / (k * k * (k + 1));
      EXPECT_NEAR(conditioned_laplace_variance({b, 1}, std::size_t(k)) / every_integer, 1.0, 1e-9)
          << "k = " << k << ", b = " << b;
    }
  }
}

TEST(IntegerLaplaceRelease, KeepsEveryGroupTotalAndPublishesExactSd) {
  // 3 states x 7 counties, state totals exact.
  std::vector<std::int64_t> counts(21);
  for (int i = 0; i < 21; ++i) counts[i] = 1000 * (i % 5) + i;
  const auto table = grid({"state", "county"}, {3, 7}, counts);
  const auto keys = table.keys();
  const auto request = integer_laplace(0.5, {"state"});
  auto rng = make_seeded_random_source(3);
  for (int draw = 0; draw < 200; ++draw) {
    const auto result = run_release(keys, table.counts.data(), request, *rng, Interrupts());
    ASSERT_TRUE(result.integer_output);
    for (int s = 0; s < 3; ++s) {
      std::int64_t released = 0, truth = 0;
      for (int c = 0; c < 7; ++c) {
        released += result.integer_values[s * 7 + c];
        truth += counts[s * 7 + c];
      }
      ASSERT_EQ(released, truth);
    }
    if (draw == 0) {
      const double expected = std::sqrt(conditioned_laplace_variance({4, 1}, 7));  // b = 2 / 0.5
      for (double sd : result.noise_sd) EXPECT_DOUBLE_EQ(sd, expected);
      EXPECT_NE(result.metadata_json.find("conditioned on every declared margin"), std::string::npos);
    }
  }
}

TEST(IntegerLaplaceRelease, NestedMarginsKeepTheFinestTotals) {
  const auto table = grid({"state", "county", "tract"}, {2, 3, 4}, std::vector<std::int64_t>(24, 50));
  auto rng = make_seeded_random_source(9);
  const auto result =
      run_release(table.keys(), table.counts.data(), integer_laplace(1, {"", "state", "state,county"}), *rng,
                  Interrupts());
  for (int g = 0; g < 6; ++g) {
    std::int64_t total = 0;
    for (int t = 0; t < 4; ++t) total += result.integer_values[g * 4 + t];
    EXPECT_EQ(total, 200);
  }
}

TEST(IntegerLaplaceRelease, WithoutMarginsIsDiscreteLaplace) {
  const auto table = grid({"k"}, {5}, std::vector<std::int64_t>(5, 9));
  auto rng = make_seeded_random_source(1);
  auto request = integer_laplace(1, {});
  request.with_stddev = true;
  const double variance = 2 * std::exp(-0.5) / std::pow(1 - std::exp(-0.5), 2);
  const auto result = run_release(table.keys(), table.counts.data(), request, *rng, Interrupts());
  ASSERT_EQ(result.integer_values.size(), 5u);
  ASSERT_EQ(result.noise_sd.size(), 5u);
  EXPECT_NEAR(result.noise_sd[0], std::sqrt(variance), 1e-12);
  // Not asked for, the sds are not spelled out per cell; the metadata's
  // expected total squared error is the same either way.
  request.with_stddev = false;
  const auto plain = run_release(table.keys(), table.counts.data(), request, *rng, Interrupts());
  EXPECT_TRUE(plain.noise_sd.empty());
  for (const auto* json : {&result.metadata_json, &plain.metadata_json}) {
    const auto at = json->find("\"expected_total_squared_error\": ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NEAR(std::stod(json->substr(at + 32)), 5 * variance, 1e-9);
  }
}

// The shortest protected move of a two-way table is a 2x2 swap (l1 norm 4),
// so integer_laplace runs at b = 4 / epsilon there.
TEST(LatticeRelease, TwoWayCalibrationUsesTheSwap) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(5);
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = 0.5;
  raw.margins = {"county", "edu"};
  raw.options = {{"iterations", "100"}, {"sampler", "chain"}};
  const auto json = run_release(table.keys(), table.counts.data(), validate_request(raw), *rng, Interrupts())
                        .metadata_json;
  EXPECT_NE(json.find("\"l1_sensitivity\": 4"), std::string::npos) << json;
  EXPECT_NE(json.find("\"exact_parameter\": \"8/1\""), std::string::npos) << json;
}

// Both margins of a 2 x n or 3 x n table: drawn exactly, no chain; the
// metadata says exact at the top and publishes the exact sd of a two-line
// table (its first row is one zero-sum group of n cells at b/2).
TEST(IntegerLaplaceRelease, TwoAndThreeLineTablesAreExact) {
  auto rng = make_seeded_random_source(6);
  for (const std::vector<int>& levels : {std::vector<int>{2, 5}, std::vector<int>{5, 2}, std::vector<int>{3, 4}}) {
    std::vector<std::int64_t> counts(std::size_t(levels[0] * levels[1]));
    for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(3 + 7 * i % 11);
    const auto table = grid({"a", "b"}, levels, counts);
    const auto result = run_release(table.keys(), table.counts.data(), integer_laplace(1.0, {"a", "b"}), *rng,
                                    Interrupts());
    const std::string& json = result.metadata_json;
    EXPECT_NE(json.find("\"exact\": true"), std::string::npos) << json;
    EXPECT_NE(json.find("\"delta\": null"), std::string::npos) << json;
    EXPECT_EQ(json.find("\"iterations\""), std::string::npos) << json;
    EXPECT_EQ(json.rfind("{\"mechanism\": \"integer_laplace\"", 0), 0u);
    EXPECT_NE(json.find("\"privacy\": \"epsilon-differential privacy"), std::string::npos) << json;
    expect_totals_kept(result.integer_values, counts, levels[0], levels[1]);
    ASSERT_EQ(result.noise_sd.size(), counts.size());
    if (levels[0] == 2 || levels[1] == 2) {
      // b = 4 / epsilon on the swap; the line of n cells is drawn at b/2.
      const double sd = std::sqrt(conditioned_laplace_variance(Rational{2, 1}, std::size_t(std::max(levels[0], levels[1]))));
      for (double s : result.noise_sd) EXPECT_NEAR(s, sd, 1e-12);
    } else {
      // Computed from the law (accuracy/table_covariance_scale.hpp), not
      // estimated: every cell the same sd.
      const double sd = std::sqrt(
          accuracy::table_covariance_scale({accuracy::IntegerNoise::Kind::laplace, {4, 1}}, 3, 4, Interrupts())
              .cell_variance);
      for (double s : result.noise_sd) EXPECT_NEAR(s, sd, 1e-12 * sd);
      EXPECT_NE(json.find("\"stddev\": \"exact\""), std::string::npos) << json;
    }
  }
}

// Tables with no side of at most four levels (5 x 5, drawn by row
// rejection): the sd is estimated by further exact draws, once per shape,
// so every table of a shape publishes one sd; and said so.
TEST(IntegerLaplaceRelease, EstimatedSdsArePooledPerShape) {
  std::vector<std::int64_t> counts(3 * 25);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(4 + 5 * i % 7);
  const auto tables = grid({"g", "a", "b"}, {3, 5, 5}, counts);
  auto rng = make_seeded_random_source(12);
  const auto result = run_release(tables.keys(), tables.counts.data(), integer_laplace(1.0, {"g,a", "g,b"}), *rng,
                                  Interrupts());
  ASSERT_NE(result.metadata_json.find("exact: each table drawn by rejection over its lines"), std::string::npos)
      << result.metadata_json;
  EXPECT_NE(result.metadata_json.find("Monte Carlo estimate from further exact draws of one table of each shape"),
            std::string::npos)
      << result.metadata_json;
  ASSERT_EQ(result.noise_sd.size(), counts.size());
  for (double s : result.noise_sd) {
    EXPECT_GT(s, 0);
    EXPECT_EQ(s, result.noise_sd[0]);
  }
}

// Row rejection on a 4 x 5 table (not square, so a transposed write would
// break the totals): exact, every row and column total kept.
TEST(IntegerLaplaceRelease, SmallTablesAreDrawnExactlyByRows) {
  std::vector<std::int64_t> counts(20);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(2 + 5 * i % 9);
  const auto table = grid({"a", "b"}, {4, 5}, counts);
  auto rng = make_seeded_random_source(8);
  for (int draw = 0; draw < 5; ++draw) {
    const auto result = run_release(table.keys(), table.counts.data(), integer_laplace(1.0, {"a", "b"}), *rng,
                                    Interrupts());
    ASSERT_NE(result.metadata_json.find("exact: each table drawn by rejection over its lines"), std::string::npos);
    expect_totals_kept(result.integer_values, counts, 4, 5);
  }
}

// A small table with long lines (4 x 4) is drawn exactly by row rejection;
// a large one (12 x 12 at b = 4) has no exact sampler: the default refuses
// rather than run an uncertified chain; named, the chain runs (on the small
// table too) and the metadata's first fields say that its guarantee is not
// certified.
TEST(IntegerLaplaceRelease, AnUncertifiedChainRunsOnlyWhenNamed) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(7);
  const auto small = run_release(table.keys(), table.counts.data(), integer_laplace(1.0, {"county", "edu"}), *rng,
                                 Interrupts());
  EXPECT_NE(small.metadata_json.find("\"exact\": true"), std::string::npos) << small.metadata_json;
  EXPECT_NE(small.metadata_json.find("exact: each table drawn by rejection over its lines"), std::string::npos);
  expect_totals_kept(small.integer_values, table.counts, 4, 4);
  for (double s : small.noise_sd) EXPECT_GT(s, 0);
  const auto large = grid({"a", "b"}, {12, 12}, std::vector<std::int64_t>(144, 5));
  try {
    run_release(large.keys(), large.counts.data(), integer_laplace(1.0, {"a", "b"}), *rng, Interrupts());
    ADD_FAILURE() << "a 12 x 12 table was released without the chain named";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "integer_laplace has no exact sampler for these margins");
    EXPECT_NE(e.hint().find("integer_gaussian"), std::string::npos);
  }
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = 1;
  raw.margins = {"county", "edu"};
  raw.options = {{"sampler", "chain"}, {"iterations", "50"}};
  const auto json =
      run_release(table.keys(), table.counts.data(), validate_request(raw), *rng, Interrupts()).metadata_json;
  EXPECT_NE(json.find("\"exact\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"delta\": \"TV, TV (the chain's total variation distance from the stated law) not "
                      "certified\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"privacy\": \"(epsilon, TV)-differential privacy, TV not certified"), std::string::npos)
      << json;
  raw.options = {{"sampler", "rejection"}};
  EXPECT_THROW(validate_request(raw), InvalidArgument);
  raw.mechanism = "congenial";
  raw.options = {{"sampler", "chain"}};
  EXPECT_THROW(validate_request(raw), InvalidArgument);
}

TEST(LatticeRelease, OptionsAreValidated) {
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = 1;
  for (const char* bad : {"0", "1.5", "-3", "x", "1e11"}) {
    raw.options = {{"iterations", bad}};
    EXPECT_THROW(validate_request(raw), InvalidArgument) << bad;
  }
  for (const char* bad : {"0", "1", "2", "y"}) {
    raw.options = {{"proposal_a", bad}};
    EXPECT_THROW(validate_request(raw), InvalidArgument) << bad;
  }
  raw.options = {{"iterations", "500"}, {"proposal_a", "0.2"}};
  const auto request = validate_request(raw);
  EXPECT_EQ(request.iterations, 500u);
  EXPECT_DOUBLE_EQ(request.proposal_a, 0.2);
}
