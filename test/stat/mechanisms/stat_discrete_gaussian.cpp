// Statistical tests of discrete_gaussian (mechanisms/discrete_gaussian.cpp)
// through run_release: independent exact discrete Gaussian noise per cell,
// P(e) proportional to exp(-e^2 / (2 sigma^2)), at the sigma^2 its
// calibration certifies for two moved cells (calibration/
// discrete_gaussian_privacy.hpp, itself tested in test_calibration.cpp).
//  1. unbiased with the published variance, 100 cells x 1000 releases (5
//     standard errors: two-sided normal tail 5.7e-7 each);
//  2. the noise of the 200,000 cells of one release (counts 0 to 999) at
//     epsilon 1, delta 1e-6 against the exact pmf at the law's sigma^2:
//     chi-square goodness of fit at p = 1e-6 (noise_laws.hpp). Power, each
//     must be rejected: the same draws against sigma^2 x 1.1 (noncentrality
//     about 500 against a critical value about 90), and against the sigma^2
//     of one moved cell (add_remove's: a sensitivity taken wrong).
// Assertions expected to pass: 1 + 1 = 2 at about 1e-6 each, so a correct
// mechanism fails this file with probability about 2e-6.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "calibration/discrete_gaussian_privacy.hpp"
#include "mechanism_release.hpp"
#include "noise_laws.hpp"
#include "release_moments.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

TEST(DiscreteGaussian, UnbiasedWithPublishedVariance) {
  release_moments::expect_unbiased_with_published_variance(request("discrete_gaussian", 0.7, {}, 1e-6), 4242);
}

TEST(DiscreteGaussian, NoiseFollowsTheExactLawAtTheCalibratedScale) {
  const auto req = request("discrete_gaussian", 1, {}, 1e-6);
  const Rational sigma2 = calibrate_noise(req).exact_parameter;
  const Rational one_cell = discrete_gaussian_sigma2(1, 1e-6, 1);
  ASSERT_EQ(sigma2.to_double(), discrete_gaussian_sigma2(1, 1e-6, 2).to_double());
  ASSERT_LT(one_cell.to_double(), sigma2.to_double());
  const auto table = mechanism_release::cells_table(200000);
  const auto result = mechanism_release::release_once(table, req, 812);
  ASSERT_TRUE(result.integer_output);
  std::vector<std::int64_t> e(table.counts.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = result.integer_values[i] - table.counts[i];
  const double s2 = sigma2.to_double();
  EXPECT_TRUE(noise_laws::fit("discrete_gaussian at sigma^2", noise_laws::discrete_gaussian(s2), e).passes());
  EXPECT_FALSE(noise_laws::fit("discrete_gaussian at 1.1 sigma^2", noise_laws::discrete_gaussian(1.1 * s2), e).passes());
  EXPECT_FALSE(noise_laws::fit("discrete_gaussian at one moved cell's sigma^2",
                               noise_laws::discrete_gaussian(one_cell.to_double()), e)
                   .passes());
}
