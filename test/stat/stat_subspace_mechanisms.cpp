// Statistical tests of the released laws, through run_release (the same path
// dp.privatize takes). Fixed seeds; every threshold is 5 standard errors of
// the estimator under the stated law, so the false-failure rate of each
// check is below 6e-7 (two-sided normal tail at 5), and below 1e-4 for the
// whole file (fewer than 200 checks).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "invariants/invariant_model.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

ReleaseRequest request(const std::string& mechanism, double epsilon, std::vector<std::string> margins,
                       double delta = 0) {
  RawRequest raw;
  raw.mechanism = mechanism;
  raw.epsilon = epsilon;
  raw.has_delta = delta > 0;
  raw.delta = delta;
  raw.margins = std::move(margins);
  return validate_request(raw);
}

// Pi_N of a G x H table with both margins: (I - J/G) kron (I - J/H).
double two_way_projector(int G, int H, int i, int j) {
  const int gi = i / H, hi = i % H, gj = j / H, hj = j % H;
  const double row = (gi == gj) - 1.0 / G, column = (hi == hj) - 1.0 / H;
  return row * column;
}

struct Moments {
  std::vector<double> mean;
  std::vector<double> covariance;  // d x d
  double mean_total_squared_error = 0;
};

Moments noise_moments(const test_tables::TestTable& table, const ReleaseRequest& req, int draws, std::uint64_t seed) {
  const auto keys = table.keys();
  const std::size_t d = table.counts.size();
  auto rng = make_seeded_random_source(seed);
  Moments m{std::vector<double>(d, 0), std::vector<double>(d * d, 0), 0};
  for (int r = 0; r < draws; ++r) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    std::vector<double> e(d);
    for (std::size_t i = 0; i < d; ++i) {
      e[i] = (result.integer_output ? double(result.integer_values[i]) : result.values[i]) - double(table.counts[i]);
      m.mean[i] += e[i];
      m.mean_total_squared_error += e[i] * e[i];
    }
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j) m.covariance[i * d + j] += e[i] * e[j];
  }
  for (auto& v : m.mean) v /= draws;
  for (auto& v : m.covariance) v /= draws;  // E[e e^T]: the mean is 0 under the law
  m.mean_total_squared_error /= draws;
  return m;
}

}  // namespace

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

// Integer mechanisms through the release path: unbiased, variance as published.
TEST(DiscreteMechanisms, UnbiasedWithPublishedVariance) {
  const int draws = 1000;
  const auto table = grid({"k"}, {100}, std::vector<std::int64_t>(100, 3));
  for (const auto& req : {request("discrete_laplace", 0.7, {}), request("discrete_gaussian", 0.7, {}, 1e-6)}) {
    const double var = calibrate_noise(req).unit_variance;
    const auto m = noise_moments(table, req, draws, 4242);
    double mean_all = 0, var_all = 0;
    for (int i = 0; i < 100; ++i) {
      mean_all += m.mean[i] / 100;
      var_all += m.covariance[i * 100 + i] / 100;
    }
    const double n = 100.0 * draws;
    EXPECT_LT(std::abs(mean_all), 5 * std::sqrt(var / n)) << req.mechanism->name;
    // Var of e^2: discrete Laplace kurtosis <= 6 var^2 (continuous Laplace's), Gaussian 3 var^2.
    EXPECT_NEAR(var_all, var, 5 * std::sqrt(5.0 / n) * var) << req.mechanism->name;
  }
}
