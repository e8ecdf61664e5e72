// Statistical tests of subspace_laplace (mechanisms/subspace_laplace.cpp)
// through run_release (the path dp.privatize takes): y = x + Pi_N e with e
// i.i.d. continuous Laplace(b), b = l1_sensitivity / epsilon (Gao, Gong,
// Yu 2022, arXiv:2108.11527, Cor. 3.8). Fixed seeds.
//  1. moments on a 3 x 4 table with both margins: every threshold 5
//     standard errors of the estimator under the stated law (two-sided
//     normal tail 6e-7 per check, 24 checks);
//  2. the law: 100,000 pairs with their totals kept, whose first cells'
//     noise (e_1 - e_2) / 2 has P(> s) = (1 + s/b) exp(-2s/b) / 2 for
//     s >= 0 (noise_laws.hpp), against it by Kolmogorov-Smirnov at
//     p = 1e-6. Power, each must be rejected: the same law at b x 1.1
//     (sqrt(N) D about 6 against 2.69), and the conditional law, Laplace
//     of scale b/2, that conditioning on the pair's total would give (the
//     two views of Liu, Sun, Zhou, Feng 2023, arXiv:2303.00228, differ:
//     subspace_laplace is of the projection family, mechanism.hpp).
// A correct mechanism fails this file with probability below 2e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "noise_laws.hpp"
#include "release_moments.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;
using invariant_dp::release_moments::noise_moments;
using invariant_dp::release_moments::two_way_projector;
using invariant_dp::test_tables::grid;

// subspace_laplace: unbiased, diagonal covariance 2 b^2 Pi_N (Cor 3.8).
TEST(SubspaceLaplace, UnbiasedWithVariance2b2PiN) {
  const int G = 3, H = 4, draws = 20000;
  const auto table = grid({"g", "h"}, {G, H}, std::vector<std::int64_t>(12, 7));
  const auto req = request("subspace_laplace", 0.5, {"g", "h"});
  const double b = calibrate_noise(req).scale;
  const auto m = noise_moments(table, req, draws, 77);
  for (int i = 0; i < G * H; ++i) {
    const double var = 2 * b * b * two_way_projector(G, H, i, i);
    EXPECT_LT(std::abs(m.mean[i]), 5 * std::sqrt(var / draws));
    // Var of e_i^2 is E e^4 - var^2; projected Laplace has excess kurtosis
    // below Laplace's 3, so E e^4 <= 6 var^2 bounds it: se <= sqrt(5) var / sqrt(n).
    EXPECT_NEAR(m.covariance[i * G * H + i], var, 5 * std::sqrt(5.0) * var / std::sqrt(double(draws)));
  }
}

// Pairs with their totals kept: the first cell's noise is (e_1 - e_2) / 2,
// whatever the counts.
TEST(SubspaceLaplace, PairNoiseIsHalfTheDifferenceOfTwoLaplaces) {
  const int pairs = 100000;
  const auto req = request("subspace_laplace", 0.5, {"g"});
  const double b = 2 / 0.5;
  ASSERT_DOUBLE_EQ(calibrate_noise(req).scale, b);
  const auto table = mechanism_release::pairs_table(pairs, 3, 500);
  const auto noise = mechanism_release::noise(mechanism_release::release_once(table, req, 814), table.counts);
  std::vector<double> first(pairs);
  for (int g = 0; g < pairs; ++g) first[g] = noise[2 * g];
  const double at_law =
      noise_laws::ks_statistic(first, [&](double s) { return noise_laws::half_laplace_difference_cdf(s, b); });
  const double wider =
      noise_laws::ks_statistic(first, [&](double s) { return noise_laws::half_laplace_difference_cdf(s, 1.1 * b); });
  const double conditioned = noise_laws::ks_statistic(first, [&](double s) { return noise_laws::laplace_cdf(s, b / 2); });
  std::cout << "[stat] subspace_laplace pairs: sqrt(N) D = " << at_law << " at b, " << wider << " at 1.1 b, "
            << conditioned << " against the conditional law (critical " << noise_laws::kKsCritical << ")\n";
  EXPECT_LT(at_law, noise_laws::kKsCritical);
  EXPECT_GT(wider, noise_laws::kKsCritical);
  EXPECT_GT(conditioned, noise_laws::kKsCritical);
}
