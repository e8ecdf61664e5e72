// A stream with a privacy unit draws its noise at the variance its bounds
// call for: through the C boundary, the first period's noise of 4,000
// fresh streams calibrated for max_groups_per_unit 1 and 4 (R = 1) has
// variance v_1 and v_4 = 16 v_1. Each first period is one N(0, v) draw,
// independent across streams, so sum x^2 / v is chi-square with 4,000
// degrees of freedom: it must fall between the 1e-6 quantiles at the law's
// own v and outside them at the other bound's v (the power check: a stream
// calibrated for G = 4 but drawing at G = 1's variance, or the reverse).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "capi/invariant_dp_stream.h"
#include "chi_square.hpp"

namespace invariant_dp {
namespace {

using chi_square_test::chi2_critical;

double calibrated(const char* groups) {
  const char* keys[] = {"max_groups_per_unit", "max_rows_per_group"};
  const char* values[] = {groups, "1"};
  const idp_bounds bounds{2, keys, values};
  double v = 0;
  idp_error error{};
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, 8, "replace_one", &bounds, &v, &error), IDP_OK);
  return v;
}

// The first period of n fresh streams of node variance v (no unit rows:
// the noise law does not depend on them).
std::vector<double> first_periods(double v, int n, std::uint64_t generation) {
  const idp_randomness seeded{true, 20261125 + generation, generation};  // a fresh stream of draws per call
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double noise = 0;
    char* state = nullptr;
    idp_error error{};
    EXPECT_EQ(idp_stream_append(nullptr, v, 8, 0, 1, nullptr, &seeded, nullptr, nullptr, &noise, &state, &error),
              IDP_OK);
    idp_free(state);
    out.push_back(noise);
  }
  return out;
}

double scaled_sum_of_squares(const std::vector<double>& x, double v) {
  double s = 0;
  for (double e : x) s += e * e / v;
  return s;
}

TEST(StatStreamUnits, NoiseVarianceFollowsTheBounds) {
  const int n = 4000;
  const double lower = chi2_critical(n, 1 - 1e-6), upper = chi2_critical(n, 1e-6);
  const double v1 = calibrated("1"), v4 = calibrated("4");
  EXPECT_NEAR(v4 / v1, 16.0, 1e-9);
  const std::vector<double> g1 = first_periods(v1, n, 901), g4 = first_periods(v4, n, 902);
  const double s11 = scaled_sum_of_squares(g1, v1), s44 = scaled_sum_of_squares(g4, v4);
  const double s14 = scaled_sum_of_squares(g1, v4), s41 = scaled_sum_of_squares(g4, v1);
  std::printf("[stat] stream noise, %d first periods: G=1 %.1f, G=4 %.1f (accept %.1f..%.1f); wrong law %.1f, %.1f\n",
              n, s11, s44, lower, upper, s14, s41);
  EXPECT_GT(s11, lower);
  EXPECT_LT(s11, upper);
  EXPECT_GT(s44, lower);
  EXPECT_LT(s44, upper);
  // Power: each sample against the other bound's variance.
  EXPECT_FALSE(s14 > lower && s14 < upper);
  EXPECT_FALSE(s41 > lower && s41 < upper);
}

}  // namespace
}  // namespace invariant_dp
