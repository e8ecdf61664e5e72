// Statistical tests of project_nn_integer (mechanisms/project_nn_integer.cpp)
// through run_release: project_nn_l2's real table y (discrete Laplace noise
// at b = l1_sensitivity / epsilon, then the non-negative least-squares
// projection), then controlled rounding to an l1-nearest integer table z
// that keeps the invariants, each z_i rounded up or down from y_i
// (projection/controlled_rounding.hpp). At epsilon 1 (b = 2):
//  1. no margin: y = max(x + e, 0), an integer already, so z = y exactly;
//     100,000 cells of count 2 against the clamped discrete Laplace by
//     chi-square goodness of fit at p = 1e-6 (noise_laws.hpp). Power, each
//     must be rejected: the same draws against b x 1.1, and against the
//     unclamped law.
//  2. pairs (2, 4) with their total T = 6 kept, 10,000 pairs released as
//     20 tables of 500 (Clp once a release, at most 600 margin rows: the
//     QPs and LPs are this test's whole cost):
//     y_1 = min(max(2 + (e_1 - e_2) / 2, 0), T) is an integer or a
//     half-integer, and a half-integer may round either way (both tables
//     are l1-nearest: which one the LP returns is not part of the law), so
//     the law of z_1 is known up to those ties:
//     P(y_1 >= j) <= P(z_1 >= j) <= P(y_1 >= j - 1/2) for j = 1..6. Each
//     empirical share is checked against its bounds with 4.89 binomial
//     standard errors at the bound (one-sided 5e-7 each, 12 checks). Power:
//     the bounds at b/2 (one record's sensitivity taken as 1, add_remove's
//     scale) must fail at least one check (at j = 1 the true share, at
//     most 0.841, lies 28 standard errors below the wrong lower bound,
//     0.918); finer errors of scale are for part 1 and for
//     stat_project_nn_l2.cpp, whose real stage is this one's.
// Checks expected to pass: 1 + 12 at about 1e-6 or less each, so a correct
// mechanism fails this file with probability below 1e-5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "noise_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

namespace {

constexpr double kZNonnegative = 4.89;

// The law of twice y_1 for the pair (x1, x2) at scale b.
noise_laws::Pmf twice_real_law(std::int64_t x1, std::int64_t total, double b) {
  return noise_laws::image(noise_laws::difference(noise_laws::discrete_laplace(b)),
                           [&](std::int64_t d) { return std::clamp<std::int64_t>(2 * x1 + d, 0, 2 * total); });
}

// P(twice y_1 >= k).
double at_least(const noise_laws::Pmf& law, std::int64_t k) {
  double p = 0;
  for (const auto& [v, q] : law)
    if (v >= k) p += q;
  return p;
}

// How many of the shares P(z_1 >= j), j = 1..total, fall outside the bounds
// that the real law at scale b and any rounding of its ties allow.
int shares_outside_bounds(const std::vector<std::int64_t>& z1, std::int64_t x1, std::int64_t total, double b,
                          bool print) {
  const auto law = twice_real_law(x1, total, b);
  const double n = double(z1.size());
  int outside = 0;
  for (std::int64_t j = 1; j <= total; ++j) {
    const double share = double(std::count_if(z1.begin(), z1.end(), [j](std::int64_t v) { return v >= j; })) / n;
    const double low = at_least(law, 2 * j), high = at_least(law, 2 * j - 1);
    const bool below = share < low - kZNonnegative * std::sqrt(low * (1 - low) / n);
    const bool above = share > high + kZNonnegative * std::sqrt(high * (1 - high) / n);
    if (print)
      std::cout << "[stat] project_nn_integer pairs at b = " << b << ": P(z_1 >= " << j << ") = " << share
                << " in [" << low << ", " << high << "]\n";
    outside += below + above;
  }
  return outside;
}

}  // namespace

TEST(ProjectNnInteger, WithoutMarginsIsTheClampedDiscreteLaplace) {
  const int cells = 100000;
  const auto req = request("project_nn_integer", 1);
  const double b = 2;
  ASSERT_DOUBLE_EQ(calibrate_noise(req).scale, b);
  const auto table = test_tables::grid({"k"}, {cells}, std::vector<std::int64_t>(cells, 2));
  const auto result = mechanism_release::release_once(table, req, 821);
  ASSERT_TRUE(result.integer_output);
  const std::vector<std::int64_t>& y = result.integer_values;
  const auto law = [](double scale, bool clamped) {
    return noise_laws::image(noise_laws::discrete_laplace(scale),
                             [clamped](std::int64_t e) { return clamped ? std::max<std::int64_t>(2 + e, 0) : 2 + e; });
  };
  EXPECT_TRUE(noise_laws::fit("project_nn_integer cells at b", law(b, true), y).passes());
  EXPECT_FALSE(noise_laws::fit("project_nn_integer cells at 1.1 b", law(1.1 * b, true), y).passes());
  EXPECT_FALSE(noise_laws::fit("project_nn_integer cells unclamped", law(b, false), y).passes());
}

TEST(ProjectNnInteger, PairsRoundToANeighbourOfTheRealLaw) {
  const int pairs = 500, releases = 20;
  const std::int64_t x1 = 2, x2 = 4, total = x1 + x2;
  const auto req = request("project_nn_integer", 1, {"g"});
  const auto table = mechanism_release::pairs_table(pairs, x1, x2);
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(822);
  std::vector<std::int64_t> z1;
  for (int r = 0; r < releases; ++r) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    ASSERT_TRUE(result.integer_output);
    for (int g = 0; g < pairs; ++g) {
      z1.push_back(result.integer_values[2 * g]);
      ASSERT_EQ(result.integer_values[2 * g] + result.integer_values[2 * g + 1], total);
    }
  }
  EXPECT_EQ(shares_outside_bounds(z1, x1, total, 2, true), 0);
  EXPECT_GT(shares_outside_bounds(z1, x1, total, 1, true), 0);
}
