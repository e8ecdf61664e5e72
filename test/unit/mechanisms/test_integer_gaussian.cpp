// integer_gaussian through the release path: exact on one margin and on
// complete tables with all their (K-1)-way margins (the chain below the
// exact sampler's sigma^2), every margin kept, the published sd.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

// integer_gaussian at epsilon 1, delta 1e-6 with these margins.
RawRequest integer_gaussian_request(std::vector<std::string> margins) {
  RawRequest raw;
  raw.mechanism = "integer_gaussian";
  raw.epsilon = 1;
  raw.has_delta = true;
  raw.delta = 1e-6;
  raw.margins = std::move(margins);
  return raw;
}

}  // namespace

// integer_gaussian on a 60 x 50 table: exact, margins kept, the per-cell sd
// of the double-centred Gaussian; at epsilon = 10, delta = 1e-3 (sigma^2
// about 1) the exact sampler's acceptance bound fails at 10 x 10 and the
// release falls back to the chain, saying so.
TEST(TwoWayGaussianRelease, ExactAtPrivacyScalesChainBelowItsSigma) {
  const auto table = grid({"county", "age"}, {60, 50}, std::vector<std::int64_t>(3000, 7));
  auto rng = make_seeded_random_source(9);
  RawRequest raw = integer_gaussian_request({"county", "age"});
  const auto result = run_release(table.keys(), table.counts.data(), validate_request(raw), *rng, Interrupts());
  for (int r = 0; r < 60; ++r) {
    std::int64_t row = 0;
    for (int c = 0; c < 50; ++c) row += result.integer_values[r * 50 + c];
    ASSERT_EQ(row, 7 * 50);
  }
  for (int c = 0; c < 50; ++c) {
    std::int64_t column = 0;
    for (int r = 0; r < 60; ++r) column += result.integer_values[r * 50 + c];
    ASSERT_EQ(column, 7 * 60);
  }
  EXPECT_NE(result.metadata_json.find("\"exact\": true"), std::string::npos) << result.metadata_json;
  const std::string marker = "\"exact_parameter\": \"";
  const std::size_t at = result.metadata_json.find(marker) + marker.size();
  const std::string fraction = result.metadata_json.substr(at, result.metadata_json.find('"', at) - at);
  const double sigma2 = std::stod(fraction.substr(0, fraction.find('/'))) / std::stod(fraction.substr(fraction.find('/') + 1));
  EXPECT_NEAR(result.noise_sd[0], std::sqrt(sigma2 * (1 - 1.0 / 60) * (1 - 1.0 / 50)), 1e-9);

  const auto small = grid({"county", "age"}, {10, 10}, std::vector<std::int64_t>(100, 7));
  raw.epsilon = 10;
  raw.delta = 1e-3;
  raw.options = {{"iterations", "200"}};
  const auto chain = run_release(small.keys(), small.counts.data(), validate_request(raw), *rng, Interrupts());
  EXPECT_NE(chain.metadata_json.find("\"exact\": false"), std::string::npos) << chain.metadata_json;
}

// A 20 x 20 x 20 cube with its three two-way margins: exact, every
// two-way total kept, calibrated on the 2 x 2 x 2 sub-cube (|v|_2 = sqrt 8).
TEST(TableGaussianRelease, CubeWithItsThreeTwoWayMargins) {
  constexpr int n = 20;
  const auto table = grid({"a", "b", "c"}, {n, n, n}, std::vector<std::int64_t>(n * n * n, 3));
  auto rng = make_seeded_random_source(10);
  const RawRequest raw = integer_gaussian_request({"a,b", "a,c", "b,c"});
  const auto result = run_release(table.keys(), table.counts.data(), validate_request(raw), *rng, Interrupts());
  std::vector<std::int64_t> ab(n * n, 0), ac(n * n, 0), bc(n * n, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) {
        const std::int64_t v = result.integer_values[(a * n + b) * n + c];
        ab[a * n + b] += v;
        ac[a * n + c] += v;
        bc[b * n + c] += v;
      }
  for (int k = 0; k < n * n; ++k) {
    ASSERT_EQ(ab[k], 3 * n);
    ASSERT_EQ(ac[k], 3 * n);
    ASSERT_EQ(bc[k], 3 * n);
  }
  EXPECT_NE(result.metadata_json.find("\"exact\": true"), std::string::npos) << result.metadata_json;
  EXPECT_NE(result.metadata_json.find("\"l2_sensitivity\": 2.8284271247461903"), std::string::npos)
      << result.metadata_json;
}

// Twelve 3 x 4 x 5 cubes, one per state, each with its three two-way
// margins within the state: exact (each cube drawn by the Kronecker
// sampler), every margin kept.
TEST(TableGaussianRelease, FamilyOfCubes) {
  const auto table = grid({"state", "a", "b", "c"}, {12, 3, 4, 5}, std::vector<std::int64_t>(12 * 60, 4));
  auto rng = make_seeded_random_source(11);
  const RawRequest raw = integer_gaussian_request({"state,a,b", "state,a,c", "state,b,c"});
  const auto result = run_release(table.keys(), table.counts.data(), validate_request(raw), *rng, Interrupts());
  for (int s = 0; s < 12; ++s) {
    std::vector<std::int64_t> ab(12, 0), ac(15, 0), bc(20, 0);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 5; ++c) {
          const std::int64_t v = result.integer_values[s * 60 + (a * 4 + b) * 5 + c];
          ab[a * 4 + b] += v;
          ac[a * 5 + c] += v;
          bc[b * 5 + c] += v;
        }
    for (const std::int64_t t : ab) ASSERT_EQ(t, 20);
    for (const std::int64_t t : ac) ASSERT_EQ(t, 16);
    for (const std::int64_t t : bc) ASSERT_EQ(t, 12);
  }
  EXPECT_NE(result.metadata_json.find("\"exact\": true"), std::string::npos) << result.metadata_json;
  EXPECT_NE(result.metadata_json.find("\"structure\": \"k_way\""), std::string::npos) << result.metadata_json;
}

// integer_gaussian with one margin: the exact conditioned sampler (no MCMC),
// totals exact, sd = sigma sqrt(1 - 1/k).
TEST(IntegerGaussianRelease, PartitionIsExactWithPublishedSd) {
  const auto table = grid({"state", "county"}, {3, 7}, std::vector<std::int64_t>(21, 100));
  RawRequest raw;
  raw.mechanism = "integer_gaussian";
  raw.epsilon = 1;
  raw.has_delta = true;
  raw.delta = 1e-6;
  raw.margins = {"state"};
  const auto request = validate_request(raw);
  auto rng = make_seeded_random_source(8);
  const auto result = run_release(table.keys(), table.counts.data(), request, *rng, Interrupts());
  for (int s = 0; s < 3; ++s) {
    std::int64_t total = 0;
    for (int c = 0; c < 7; ++c) total += result.integer_values[s * 7 + c];
    EXPECT_EQ(total, 700);
  }
  EXPECT_NE(result.metadata_json.find("\"exact\": true"), std::string::npos) << result.metadata_json;
  const double sigma2 = calibrate_noise(request).exact_parameter.to_double();
  for (double sd : result.noise_sd) EXPECT_NEAR(sd, std::sqrt(sigma2 * 6.0 / 7.0), 1e-12);
}

// The published Gaussian sd against enumeration: for k = 2 the lattice is
// m (1, -1) with P(m) proportional to exp(-m^2 / sigma2), and Var(z_1) =
// E[m^2] should be sigma2 / 2 up to Poisson-summation terms ~exp(-pi^2 sigma2).
TEST(IntegerGaussianRelease, ContinuousSdMatchesTheLatticeForK2) {
  for (double sigma2 : {2.0, 10.0, 60.0}) {
    double total = 0, second = 0;
    for (int m = -2000; m <= 2000; ++m) {
      const double w = std::exp(-double(m) * m / sigma2);
      total += w;
      second += w * m * m;
    }
    EXPECT_NEAR(second / total, sigma2 / 2, 1e-6 * sigma2);
  }
}
