// Statistical tests of project_nn_l2 (mechanisms/project_nn_l2.cpp) through
// run_release: discrete Laplace noise e at b = l1_sensitivity / epsilon,
// then the least-squares projection of x + e onto the tables that keep the
// invariants with every cell non-negative, a QP (Gong, Meng 2020,
// arXiv:2008.10202, Sec. 3 "NNL2"). For a pair (x_1, x_2) with its total T
// kept the QP's answer is explicit: y_1 = min(max(x_1 + (e_1 - e_2) / 2, 0), T)
// (the equality projection, then the segment's nearest point), so twice
// y_1 is an integer of known law: the difference of two independent
// discrete Laplaces, shifted by 2 x_1 and clamped to [0, 2T]. 25,000 pairs
// (2, 4), at epsilon 1 (b = 2), released as 50 tables of 500 pairs (Clp
// solves one QP a release, of at most 600 margin rows: the QPs are this
// test's whole cost), against that law by chi-square goodness of fit at
// p = 1e-6 (noise_laws.hpp), after checking that each y_1 lies within 1e-6
// of a half-integer and the pair keeps its total. Power, each must be
// rejected: the same draws against b x 1.1 (13 bins: noncentrality about
// 230 against a critical value about 51, so a correct mechanism passes it
// with probability below 1e-9), and against the law without
// non-negativity (project_l2's: no mass piled at 0 and T; noncentrality
// about 10^4). A correct mechanism fails this file with probability about
// 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mechanism_release.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "noise_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

TEST(ProjectNnL2, PairsNearZeroFollowTheClampedLaw) {
  const int pairs = 500, releases = 50;
  const std::int64_t x1 = 2, x2 = 4, total = x1 + x2;
  const auto req = request("project_nn_l2", 1, {"g"});
  const double b = 2;
  ASSERT_DOUBLE_EQ(calibrate_noise(req).scale, b);
  const auto table = mechanism_release::pairs_table(pairs, x1, x2);
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(820);
  std::vector<std::int64_t> twice;
  for (int r = 0; r < releases; ++r) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    ASSERT_FALSE(result.integer_output);
    for (int g = 0; g < pairs; ++g) {
      const double y1 = result.values[2 * g], y2 = result.values[2 * g + 1];
      twice.push_back(std::llround(2 * y1));
      ASSERT_NEAR(2 * y1, double(twice.back()), 1e-6);
      ASSERT_NEAR(y1 + y2, double(total), 1e-6);
    }
  }
  const auto law = [&](double scale, bool clamped) {
    return noise_laws::image(noise_laws::difference(noise_laws::discrete_laplace(scale)), [&](std::int64_t d) {
      const std::int64_t y = 2 * x1 + d;
      return clamped ? std::clamp<std::int64_t>(y, 0, 2 * total) : y;
    });
  };
  EXPECT_TRUE(noise_laws::fit("project_nn_l2 pairs at b", law(b, true), twice).passes());
  EXPECT_FALSE(noise_laws::fit("project_nn_l2 pairs at 1.1 b", law(1.1 * b, true), twice).passes());
  EXPECT_FALSE(noise_laws::fit("project_nn_l2 pairs without non-negativity", law(b, false), twice).passes());
}
