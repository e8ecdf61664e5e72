// The tilted truncated discrete Laplace's bookkeeping (congenial/
// tilted_laplace.hpp): the rates are exact rationals with alpha_+ + alpha_- =
// 2/b; the closed-form moments agree with direct sums; the balancing tilt
// brings the summed means to about 0 and leans against zero cells.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "congenial/tilted_laplace.hpp"

using namespace invariant_dp;

TEST(CongenialTilted, RatesAreExactAndSumToTwiceTheInverseScale) {
  const Rational scale{125, 6};  // b = 20.8333
  const TiltedRates r = tilted_rates(scale, -9830, 16);
  // alpha_+ + alpha_- = 2 den / num, compared in integers.
  const unsigned __int128 lhs = static_cast<unsigned __int128>(r.up.num) * r.down.den * scale.num +
                                static_cast<unsigned __int128>(r.down.num) * r.up.den * scale.num;
  const unsigned __int128 rhs = static_cast<unsigned __int128>(2) * scale.den * r.up.den * r.down.den;
  EXPECT_TRUE(lhs == rhs);
  EXPECT_GT(r.up.to_double(), r.down.to_double());  // a negative tilt: the positive side decays faster
  EXPECT_THROW(tilted_rates(scale, 1 << 16, 16), std::exception);
}

TEST(CongenialTilted, ClosedFormMomentsMatchDirectSums) {
  const TiltedRates r = tilted_rates(Rational{5, 2}, 20000, 16);
  for (std::int64_t x : {0, 1, 3, 50, 100000}) {
    double w = 0, m1 = 0, m2 = 0;
    for (std::int64_t z = -std::min<std::int64_t>(x, 4000); z <= 4000; ++z) {
      const double p = std::exp(z >= 0 ? -r.up.to_double() * z : r.down.to_double() * z);
      w += p;
      m1 += z * p;
      m2 += double(z) * z * p;
    }
    const CellMoments m = truncated_moments(r, x);
    EXPECT_NEAR(m.mean, m1 / w, 1e-9) << x;
    EXPECT_NEAR(m.variance, m2 / w - (m1 / w) * (m1 / w), 1e-7) << x;
    EXPECT_NEAR(m.mass_at_zero, 1 / w, 1e-12) << x;
  }
}

TEST(CongenialTilted, BalancingTiltCentresTheGroup) {
  const std::vector<std::int64_t> x = {0, 0, 0, 2, 5, 40, 900, 12000};
  const Rational scale{125, 6};
  const TiltedRates r = balancing_tilt(scale, x);
  double sum = 0, untilted = 0;
  for (auto c : x) {
    sum += truncated_moments(r, c).mean;
    untilted += truncated_moments(untilted_rates(scale), c).mean;
  }
  EXPECT_LT(r.theta_times_b, 0);
  EXPECT_GT(untilted, 30);
  EXPECT_LT(std::fabs(sum), 0.05);
}
