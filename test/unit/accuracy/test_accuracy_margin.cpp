// Unit tests of margins of error of sums (accuracy/margin_of_error.hpp):
// each tail's half-width, the kind it reports for each law and variance,
// the default choice by law and size, integer rounding, refusals of tails
// that do not hold for a law, sums of margins (no noise).
#include <gtest/gtest.h>

#include <cmath>

#include "accuracy/margin_of_error.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "errors.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;

TEST(AccuracyMargin, TailsKindsAndRounding) {
  const VarianceFigure exact{25, 25, Exactness::exact};
  const MarginOfError normal = margin_of_error(exact, 0.95, SumTail::normal, LawShape::gaussian, false);
  EXPECT_NEAR(normal.half_width, 5 * 1.959963984540054, 1e-9);
  EXPECT_EQ(normal.kind, Exactness::exact);
  const MarginOfError approx = margin_of_error(exact, 0.95, SumTail::normal, LawShape::other, true);
  EXPECT_EQ(approx.half_width, 10);  // ceil(9.8)
  EXPECT_EQ(approx.kind, Exactness::estimate);
  EXPECT_NE(approx.method.find("approximation"), std::string::npos);
  const MarginOfError cheb = margin_of_error(exact, 0.75, SumTail::chebyshev, LawShape::other, false);
  EXPECT_NEAR(cheb.half_width, 10, 1e-9);
  EXPECT_EQ(cheb.kind, Exactness::certified);
  const VarianceFigure certified{24, 25, Exactness::certified};
  const MarginOfError sub = margin_of_error(certified, 0.9, SumTail::sub_gaussian, LawShape::lattice_gaussian, true);
  EXPECT_EQ(sub.half_width, std::ceil(5 * std::sqrt(2 * std::log(20.0))));
  EXPECT_EQ(sub.kind, Exactness::certified);
  const VarianceFigure estimate{25, 25, Exactness::estimate};
  EXPECT_EQ(margin_of_error(estimate, 0.9, SumTail::chebyshev, LawShape::other, true).kind, Exactness::estimate);
  EXPECT_THROW(margin_of_error(exact, 0.9, SumTail::sub_gaussian, LawShape::other, true), InvalidArgument);
  EXPECT_THROW(margin_of_error(exact, 0.9, SumTail::gauss, LawShape::lattice_gaussian, true), InvalidArgument);
  EXPECT_THROW(margin_of_error(exact, 1.5, SumTail::normal, LawShape::gaussian, true), InvalidArgument);
  // A sum of declared margins has no noise: 0, exact, whatever the tail;
  // an estimated 0 stays an estimate.
  const VarianceFigure none{0, 0, Exactness::certified};
  const MarginOfError zero = margin_of_error(none, 0.9, SumTail::sub_gaussian, LawShape::lattice_gaussian, true);
  EXPECT_EQ(zero.half_width, 0);
  EXPECT_EQ(zero.kind, Exactness::exact);
  EXPECT_NE(zero.method.find("variance is 0"), std::string::npos) << zero.method;
  EXPECT_EQ(margin_of_error({0, 0, Exactness::estimate}, 0.9, SumTail::chebyshev, LawShape::other, true).kind,
            Exactness::estimate);
}

TEST(AccuracyMargin, DefaultTailByLawAndSize) {
  EXPECT_EQ(recommended_tail(LawShape::gaussian, 1), SumTail::normal);
  EXPECT_EQ(recommended_tail(LawShape::other, kNormalCells), SumTail::normal);
  EXPECT_EQ(recommended_tail(LawShape::other, 5), SumTail::chebyshev);
  EXPECT_EQ(recommended_tail(LawShape::lattice_gaussian, 5), SumTail::sub_gaussian);
  EXPECT_EQ(recommended_tail(LawShape::log_concave, 5), SumTail::gauss);
}

}  // namespace
}  // namespace invariant_dp
