// Statistical tests of project_l2 (mechanisms/project_l2.cpp) through
// run_release: discrete Laplace noise e at b = l1_sensitivity / epsilon,
// then the least-squares projection onto the invariants, y = x + Pi_N e
// (Liu, Sun, Zhou, Feng 2023, arXiv:2303.00228, Eq. 5). On 100,000 pairs
// with their totals kept, at epsilon 0.5 (b = 4), the first cell's noise is
// (e_1 - e_2) / 2: twice it, an integer, has the law of the difference of
// two independent discrete Laplaces (noise_laws.hpp), against which it is
// tested by chi-square goodness of fit at p = 1e-6. Power, each must be
// rejected: the same draws against b x 1.1, and against the conditional
// law integer_laplace draws on the same pairs (the other family: e given
// e_1 + e_2 = 0, so twice the noise is even, 2m with m a discrete Laplace
// of scale b/2). A correct mechanism fails this file with probability
// about 1e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "noise_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

TEST(ProjectL2, PairNoiseIsHalfTheDifferenceOfTwoDiscreteLaplaces) {
  const int pairs = 100000;
  const auto req = request("project_l2", 0.5, {"g"});
  const double b = 4;
  ASSERT_DOUBLE_EQ(calibrate_noise(req).scale, b);
  const auto table = mechanism_release::pairs_table(pairs, 6, 300);
  const auto noise = mechanism_release::noise(mechanism_release::release_once(table, req, 819), table.counts);
  std::vector<std::int64_t> twice(pairs);
  for (int g = 0; g < pairs; ++g) {
    twice[g] = std::llround(2 * noise[2 * g]);
    ASSERT_NEAR(2 * noise[2 * g], double(twice[g]), 1e-9);
    ASSERT_NEAR(noise[2 * g + 1], -noise[2 * g], 1e-9);
  }
  const auto law = [](double scale) { return noise_laws::difference(noise_laws::discrete_laplace(scale)); };
  EXPECT_TRUE(noise_laws::fit("project_l2 pairs at b", law(b), twice).passes());
  EXPECT_FALSE(noise_laws::fit("project_l2 pairs at 1.1 b", law(1.1 * b), twice).passes());
  const auto conditioned = noise_laws::image(noise_laws::discrete_laplace(b / 2), [](std::int64_t m) { return 2 * m; });
  EXPECT_FALSE(noise_laws::fit("project_l2 pairs against the conditional law", conditioned, twice).passes());
}
