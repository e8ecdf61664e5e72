// Statistical tests of integer_laplace (mechanisms/integer_laplace.cpp)
// through run_release: the discrete Laplace conditioned on the declared
// margins, P(z) proportional to exp(-|z|_1 / b) on the integer vectors that
// keep them, b = |v|_1 / epsilon for the shortest protected move v
// (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Def. 9), each drawn
// exactly here:
//  1. 100,000 pairs with their totals kept (one margin, the conditioned
//     sampler): |v|_1 = 2, so at epsilon 0.5 (b = 4) the first cell's noise
//     m (the second's is -m) has P(m) proportional to exp(-2|m| / b), a
//     discrete Laplace of scale b/2;
//  2. 50,000 2 x 3 tables with both margins (the two-line sampler): |v|_1 = 4
//     (a 2 x 2 swap), so at epsilon 1 b = 4, against the law of each table
//     enumerated on its two free cells (table_laws.hpp).
// Chi-square goodness of fit at p = 1e-6 (noise_laws.hpp). Power, each must
// be rejected: the same draws against b x 1.1, and against the noise the
// margins would not condition (pairs: a discrete Laplace of scale b;
// tables: b calibrated on one record's move, l1 2, instead of the swap).
// Assertions expected to pass: 2 at about 1e-6 each, so a correct mechanism
// fails this file with probability about 2e-6.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "noise_laws.hpp"
#include "table_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

TEST(IntegerLaplace, PairNoiseIsADiscreteLaplaceOfHalfTheScale) {
  const int pairs = 100000;
  const auto req = request("integer_laplace", 0.5, {"g"});
  const auto table = mechanism_release::pairs_table(pairs, 4, 900);
  const auto result = mechanism_release::release_once(table, req, 815);
  ASSERT_TRUE(result.integer_output);
  const double b = 4;
  ASSERT_DOUBLE_EQ(mechanism_release::number_at(mechanism_release::metadata(result), {"noise", "scale"}), b);
  std::vector<std::int64_t> m(pairs);
  for (int g = 0; g < pairs; ++g) {
    m[g] = result.integer_values[2 * g] - 4;
    ASSERT_EQ(result.integer_values[2 * g + 1] - 900, -m[g]);
  }
  EXPECT_TRUE(noise_laws::fit("integer_laplace pairs at b", noise_laws::discrete_laplace(b / 2), m).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace pairs at 1.1 b", noise_laws::discrete_laplace(1.1 * b / 2), m).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace pairs, unconditioned", noise_laws::discrete_laplace(b), m).passes());
}

TEST(IntegerLaplace, TwoByThreeTablesFollowTheEnumeratedLaw) {
  const int tables = 50000;
  const auto req = request("integer_laplace", 1, {"t,r", "t,c"});
  std::vector<std::int64_t> counts(6 * tables);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i % 7) * 10;
  const auto table = test_tables::grid({"t", "r", "c"}, {tables, 2, 3}, counts);
  const auto result = mechanism_release::release_once(table, req, 816);
  ASSERT_TRUE(result.integer_output);
  const auto json = mechanism_release::metadata(result);
  const double b = 4;
  ASSERT_DOUBLE_EQ(mechanism_release::number_at(json, {"noise", "scale"}), b);
  ASSERT_TRUE(json.find_path({"sampler", "exact"})->boolean("exact"));
  std::vector<std::int64_t> keys(tables);
  for (int t = 0; t < tables; ++t) {
    std::int64_t z[6];
    for (int i = 0; i < 6; ++i) z[i] = result.integer_values[6 * t + i] - counts[6 * t + i];
    keys[t] = table_laws::key(z, 2, 3);
  }
  EXPECT_TRUE(noise_laws::fit("integer_laplace 2 x 3 at b", table_laws::l1_law(2, 3, b, 60), keys).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace 2 x 3 at 1.1 b", table_laws::l1_law(2, 3, 1.1 * b, 60), keys).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace 2 x 3 at one record's b", table_laws::l1_law(2, 3, b / 2, 60), keys)
                   .passes());
}
