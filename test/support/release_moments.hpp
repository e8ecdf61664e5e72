// The noise's first and second moments over repeated releases of one
// table through run_release, for the statistical tests of the mechanisms'
// covariances (test/stat/mechanisms): each release's noise is y - x, its
// mean and E[e e^T] averaged over the draws, and the projector Pi_N of a
// two-way table with both margins that the subspace mechanisms' covariance
// is a multiple of. Thresholds are the callers': 5 standard errors of the
// estimator under the stated law.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"

namespace invariant_dp::release_moments {

// Pi_N of a G x H table with both margins: (I - J/G) kron (I - J/H).
inline double two_way_projector(int G, int H, int i, int j) {
  const int gi = i / H, hi = i % H, gj = j / H, hj = j % H;
  const double row = (gi == gj) - 1.0 / G, column = (hi == hj) - 1.0 / H;
  return row * column;
}

struct Moments {
  std::vector<double> mean;
  std::vector<double> covariance;  // d x d
  double mean_total_squared_error = 0;
};

inline Moments noise_moments(const test_tables::TestTable& table, const ReleaseRequest& req, int draws,
                             std::uint64_t seed) {
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

// Independent integer noise (no invariant) through the release path:
// unbiased, variance as published, over 100 cells x 1000 releases.
inline void expect_unbiased_with_published_variance(const ReleaseRequest& req, std::uint64_t seed) {
  const int draws = 1000;
  const auto table = test_tables::grid({"k"}, {100}, std::vector<std::int64_t>(100, 3));
  const double var = calibrate_noise(req).unit_variance;
  const auto m = noise_moments(table, req, draws, seed);
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

}  // namespace invariant_dp::release_moments
