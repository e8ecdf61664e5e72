// Statistical tests of discrete_laplace (mechanisms/discrete_laplace.cpp)
// through run_release: independent exact discrete Laplace noise per cell at
// b = l1_sensitivity / epsilon, 2 / epsilon between databases that differ in
// one record, 1 / epsilon for add_remove (mechanisms/noise_calibration.hpp).
//  1. unbiased with the published variance, 100 cells x 1000 releases (5
//     standard errors of the estimator: two-sided normal tail 5.7e-7 each);
//  2. the noise of the 200,000 cells of one release (counts 0 to 999, the
//     noise drawn apart from them) against the exact pmf
//     P(e) = (1 - a) / (1 + a) a^|e|, a = exp(-1/b), at epsilon 0.5 for
//     replace_one (b = 4) and add_remove (b = 2): chi-square goodness of fit
//     at p = 1e-6 (noise_laws.hpp). Power, each must be rejected: the same
//     draws against b x 1.1 (noncentrality about 1,800 against a critical
//     value about 130), and against the other relation's scale (a
//     sensitivity taken wrong).
// Assertions expected to pass: 2 + 2 = 4 at about 1e-6 each, so a correct
// mechanism fails this file with probability about 4e-6.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mechanism_release.hpp"
#include "noise_laws.hpp"
#include "release_moments.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

namespace {

std::vector<std::int64_t> cell_noise(const ReleaseRequest& req, std::uint64_t seed) {
  const auto table = mechanism_release::cells_table(200000);
  const auto result = mechanism_release::release_once(table, req, seed);
  EXPECT_TRUE(result.integer_output);
  std::vector<std::int64_t> e(table.counts.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = result.integer_values[i] - table.counts[i];
  return e;
}

}  // namespace

TEST(DiscreteLaplace, UnbiasedWithPublishedVariance) {
  release_moments::expect_unbiased_with_published_variance(request("discrete_laplace", 0.7, {}), 4242);
}

TEST(DiscreteLaplace, NoiseFollowsTheExactLawAtTheCalibratedScale) {
  struct Case {
    const char* neighbours;
    double b, other_b;
  };
  for (const Case& c : {Case{"replace_one", 4, 2}, Case{"add_remove", 2, 4}}) {
    const auto req = request("discrete_laplace", 0.5, {}, 0, {{"neighbours", c.neighbours}});
    const auto e = cell_noise(req, 811);
    const std::string what = std::string("discrete_laplace ") + c.neighbours;
    EXPECT_TRUE(noise_laws::fit(what + " at b", noise_laws::discrete_laplace(c.b), e).passes());
    EXPECT_FALSE(noise_laws::fit(what + " at 1.1 b", noise_laws::discrete_laplace(1.1 * c.b), e).passes());
    EXPECT_FALSE(noise_laws::fit(what + " at the other relation's b", noise_laws::discrete_laplace(c.other_b), e)
                     .passes());
  }
}
