// Statistical tests of subspace_gaussian (mechanisms/subspace_gaussian.cpp)
// through run_release (the path dp.privatize takes): y = x + Pi_N e with e
// i.i.d. N(0, sigma^2), sigma the analytic Gaussian mechanism's for the l2
// sensitivity sqrt 2 (Gao, Gong, Yu 2022, arXiv:2108.11527, Cor. 3.5).
// Fixed seeds. Moments: every threshold is 5 standard errors of the
// estimator under the stated law, so each check fails a correct mechanism
// with probability below 6e-7 (two-sided normal tail at 5), fewer than 200
// checks in all. The law: 100,000 pairs with their totals kept, whose first
// cells' noise (e_1 - e_2) / 2 is N(0, sigma^2 / 2), against that normal by
// Kolmogorov-Smirnov at p = 1e-6 (noise_laws.hpp); power, each must be
// rejected: the normal at 1.1 times that sd (sqrt(N) D about 7.6 against
// 2.69), and the unprojected N(0, sigma^2). So a correct mechanism fails
// this file with probability below 1.3e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "calibration/analytic_gaussian.hpp"
#include "invariants/invariant_model.hpp"
#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "noise_laws.hpp"
#include "release_moments.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;
using invariant_dp::release_moments::noise_moments;
using invariant_dp::release_moments::two_way_projector;
using invariant_dp::test_tables::grid;

// subspace_gaussian on a 3 x 4 table with both margins: unbiased, covariance
// sigma^2 Pi_N entry by entry, total error (d - rank) sigma^2.
TEST(SubspaceGaussian, UnbiasedWithCovarianceSigma2PiN) {
  const int G = 3, H = 4, draws = 20000;
  const auto table = grid({"g", "h"}, {G, H}, {0, 1, 2, 3, 50, 60, 70, 80, 1000, 2000, 3000, 4000});
  const auto req = request("subspace_gaussian", 1.0, {"g", "h"}, 1e-5);
  const double s2 = std::pow(calibrate_noise(req).scale, 2);
  const auto m = noise_moments(table, req, draws, 2024);
  const int d = G * H;
  for (int i = 0; i < d; ++i) {
    const double var = s2 * two_way_projector(G, H, i, i);
    EXPECT_LT(std::abs(m.mean[i]), 5 * std::sqrt(var / draws)) << "cell " << i;
    for (int j = 0; j < d; ++j) {
      const double cij = s2 * two_way_projector(G, H, i, j);
      // Var of the mean of e_i e_j for Gaussian e: (C_ii C_jj + C_ij^2) / n.
      const double se = std::sqrt((s2 * two_way_projector(G, H, i, i) * s2 * two_way_projector(G, H, j, j) + cij * cij) /
                                  draws);
      EXPECT_NEAR(m.covariance[i * d + j], cij, 5 * se) << "entry " << i << "," << j;
    }
  }
  // ||e||^2 ~ sigma^2 chi^2_{d - rank}: mean (d - rank) sigma^2, sd sigma^2 sqrt(2 (d - rank)).
  const int null_dim = d - (G + H - 1);
  EXPECT_NEAR(m.mean_total_squared_error, null_dim * s2, 5 * s2 * std::sqrt(2.0 * null_dim / draws));
}

// The WiFi example (Gao, Gong, Yu 2022, arXiv:2108.11527, Section 5.2): 20 buildings x 14 groups x 24
// hours, margins {building,hour} and {building,group}: rank 740, null
// dimension 5980, every cell's noise variance (13/14)(23/24) sigma^2.
TEST(SubspaceGaussian, WiFiCubePerCellVariance) {
  const int draws = 200;
  const auto table = grid({"building", "grp", "hour"}, {20, 14, 24}, std::vector<std::int64_t>(6720, 12));
  const auto req = request("subspace_gaussian", 1.0, {"building,hour", "building,grp"}, 1e-5);
  const double s2 = std::pow(calibrate_noise(req).scale, 2);
  const double per_cell = (13.0 / 14.0) * (23.0 / 24.0);
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(6720);
  double total = 0;
  std::vector<double> cell_sq(6720, 0);
  for (int r = 0; r < draws; ++r) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    if (r == 0) {
      for (double sd : result.noise_sd) ASSERT_NEAR(sd * sd, per_cell * s2, 1e-9 * s2);
      ASSERT_NE(result.metadata_json.find("\"rank\": 740"), std::string::npos);
      ASSERT_NE(result.metadata_json.find("\"null_dimension\": 5980"), std::string::npos);
    }
    for (int i = 0; i < 6720; ++i) {
      const double e = result.values[i] - 12.0;
      total += e * e;
      cell_sq[i] += e * e;
    }
  }
  // Mean per-cell squared error over all cells and draws: each draw's total
  // is sigma^2 chi^2_5980, so the estimate has sd sigma^2 sqrt(2*5980/draws)/6720.
  const double estimate = total / (6720.0 * draws);
  EXPECT_NEAR(estimate / s2, per_cell, 5 * std::sqrt(2.0 * 5980 / draws) / 6720);
  // Per-cell: each cell's mean of e^2 over draws has relative sd sqrt(2/draws);
  // the fraction of cells beyond 3 sd is about 0.27%: allow 1%.
  int outliers = 0;
  for (double sq : cell_sq)
    outliers += std::abs(sq / draws / (per_cell * s2) - 1) > 3 * std::sqrt(2.0 / draws);
  EXPECT_LT(outliers, 6720 / 100);
}

// Pairs with their totals kept: the first cell's noise is (e_1 - e_2) / 2,
// N(0, sigma^2 / 2), whatever the counts.
TEST(SubspaceGaussian, PairNoiseIsNormalAtHalfTheVariance) {
  const int pairs = 100000;
  const auto req = request("subspace_gaussian", 1.0, {"g"}, 1e-5);
  const double sigma = analytic_gaussian_sigma(1.0, 1e-5, std::sqrt(2.0));
  ASSERT_DOUBLE_EQ(calibrate_noise(req).scale, sigma);
  const auto table = mechanism_release::pairs_table(pairs, 7, 1000);
  const auto noise = mechanism_release::noise(mechanism_release::release_once(table, req, 813), table.counts);
  std::vector<double> first(pairs);
  for (int g = 0; g < pairs; ++g) first[g] = noise[2 * g];
  const double sd = sigma / std::sqrt(2.0);
  const double at_law = noise_laws::ks_statistic(first, [&](double x) { return noise_laws::normal_cdf(x, sd); });
  const double wider = noise_laws::ks_statistic(first, [&](double x) { return noise_laws::normal_cdf(x, 1.1 * sd); });
  const double unprojected = noise_laws::ks_statistic(first, [&](double x) { return noise_laws::normal_cdf(x, sigma); });
  std::cout << "[stat] subspace_gaussian pairs: sqrt(N) D = " << at_law << " at sd sigma/sqrt 2, " << wider
            << " at 1.1 sd, " << unprojected << " at sigma (critical " << noise_laws::kKsCritical << ")\n";
  EXPECT_LT(at_law, noise_laws::kKsCritical);
  EXPECT_GT(wider, noise_laws::kKsCritical);
  EXPECT_GT(unprojected, noise_laws::kKsCritical);
}
