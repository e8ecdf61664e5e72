// Laplace combinations in closed form (accuracy/laplace_closed_form.hpp)
// against the Fourier series of the same law (laplace_combination.hpp, its
// terms split so that no closed form applies) for groups of 2 to 300 cells,
// non-integer ratios and one weight carried many times; r L_0 - L_1
// against a direct quadrature; the same quantiles as the series, exact;
// which combinations take it; refusals; cancels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "accuracy/laplace_closed_form.hpp"
#include "accuracy/laplace_combination.hpp"
#include "accuracy/projected_laplace.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp::accuracy {
namespace {

// The law of unit (r L_0 - T_m) as the series reads it: the m variables
// split into two terms, which no closed form takes.
LaplaceCombination series_of(double unit, double r, std::size_t m, double ceiling) {
  std::vector<LaplaceTerm> terms{{r, 1}, {1, double(m - 1)}, {1, 1}};
  if (r == 0) terms = {{1, double(m - 1)}, {1, 1}};
  LaplaceCombination law(unit, terms, ceiling, Interrupts());
  EXPECT_FALSE(law.closed_form());
  return law;
}

void expect_agree(double r, std::size_t m) {
  const double sd = std::sqrt(2 * (r * r + double(m)));
  const LaplaceClosedForm closed(1, r, m);
  const LaplaceCombination series = series_of(1, r, m, 8 * sd);
  for (const double f : {0.05, 0.3, 0.7, 1.0, 1.6, 2.5, 4.0, 7.9}) {
    const double x = f * sd;
    const CoverageBounds c = closed.coverage(x, Interrupts());
    const CoverageBounds s = series.coverage(x, Interrupts());
    // Both hold the law: they meet, and the closed form is the narrower.
    EXPECT_LE(c.lower, s.upper) << "r " << r << " m " << m << " x " << x;
    EXPECT_GE(c.upper, s.lower) << "r " << r << " m " << m << " x " << x;
    // As narrow as the series' at worst (some 1e-11): at r = 1.5, where
    // 1/beta1 = 3, some 1.5e-11 far in the tail; else within the weights'
    // rounding, 12m units of double (some 1e-12 at m = 299).
    EXPECT_LT(c.upper - c.lower, r == 1.5 ? 3e-11 : 2e-12) << "r " << r << " m " << m << " x " << x;
    EXPECT_NEAR((c.lower + c.upper) / 2, (s.lower + s.upper) / 2, 1e-11) << "r " << r << " m " << m << " x " << x;
  }
}

TEST(LaplaceClosedForm, GroupCellsMatchTheSeries) {
  for (const std::size_t m : {1u, 2u, 3u, 5u, 10u, 37u, 100u, 299u}) {
    if (m >= 2) expect_agree(double(m), m);  // a group of m + 1 cells
    if (m >= 2) expect_agree(0, m);          // one weight carried m times
  }
  expect_agree(2.5, 3);  // ratios need not be whole
  expect_agree(1.5, 30);
  expect_agree(17.25, 6);
}

// P(|r L_0 - L_1| <= y) by Simpson's rule over L_1's value t: the inner
// probability is Laplace's closed form.
double quadrature_coverage(double r, double y) {
  const auto laplace_cdf = [](long double z) { return z < 0 ? std::exp(z) / 2 : 1 - std::exp(-z) / 2; };
  const int n = 400000;
  const long double span = 60, h = 2 * span / n;
  long double total = 0;
  for (int i = 0; i <= n; ++i) {
    const long double t = -span + h * i;
    const long double inner = laplace_cdf((t + y) / r) - laplace_cdf((t - y) / r);
    total += (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2)) * std::exp(-std::fabs(t)) / 2 * inner;
  }
  return double(total * h / 3);
}

TEST(LaplaceClosedForm, OneVariableEachMatchesAQuadrature) {
  for (const double r : {1.5, 2.0, 7.0})
    for (const double y : {0.2, 1.0, 3.0, 9.0}) {
      const CoverageBounds c = LaplaceClosedForm(1, r, 1).coverage(y, Interrupts());
      const double expected = quadrature_coverage(r, y);
      EXPECT_NEAR(c.lower, expected, 1e-9) << r << " " << y;
      EXPECT_LT(c.upper - c.lower, 1e-13);
    }
  // Power: a ratio 1 % off moves the coverage well past that.
  EXPECT_GT(std::fabs(LaplaceClosedForm(1, 2.02, 1).coverage(3, Interrupts()).lower - quadrature_coverage(2, 3)), 1e-4);
}

TEST(LaplaceClosedForm, GroupQuantilesAreTheSeriesQuantiles) {
  const double b = 2;
  for (const std::size_t g : {2u, 3u, 4u, 9u, 50u, 150u, 300u})
    for (const double level : {0.5, 0.9, 0.99}) {
      const std::vector<LaplaceTerm> terms = cell_projected_weights({g});
      const RealQuantile closed = laplace_combination_quantile(b, terms, level, Interrupts());
      EXPECT_TRUE(closed.closed_form) << g;
      EXPECT_TRUE(closed.exact) << g;
      // The series of the same law: each term of several variables split in two.
      std::vector<LaplaceTerm> split;
      for (const LaplaceTerm& t : terms) {
        if (t.count > 1) split.push_back({t.weight, t.count - 1});
        split.push_back({t.weight, 1});
      }
      const RealQuantile series = laplace_combination_quantile(b, split, level, Interrupts());
      ASSERT_FALSE(series.closed_form);
      ASSERT_TRUE(series.exact);
      EXPECT_NEAR(closed.half_width, series.half_width, 2 * kQuantileResolution * series.half_width)
          << g << " " << level;
    }
  // Power: a 1 % wider scale moves the quantile far past the resolution.
  const RealQuantile right = laplace_combination_quantile(2, cell_projected_weights({50}), 0.9, Interrupts());
  const RealQuantile wrong = laplace_combination_quantile(2.02, cell_projected_weights({50}), 0.9, Interrupts());
  EXPECT_GT(wrong.half_width, right.half_width * (1 + 1e-3));
}

TEST(LaplaceClosedForm, WhichCombinationsTakeIt) {
  EXPECT_TRUE(LaplaceClosedForm::of(1, {{0.5, 4}}));
  EXPECT_TRUE(LaplaceClosedForm::of(1, {{3, 1}, {1, 3}}));
  EXPECT_TRUE(LaplaceClosedForm::of(1, {{1, 3}, {3, 1}}));     // in either order
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{1, 1}}));            // Laplace itself
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{1, 1}, {1, 1}}));    // a ratio of 1
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{1.4, 1}, {1, 3}}));  // below 1.5
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{3, 2}, {1, 3}}));    // neither carried once
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{3, 1}, {1, 2.5}}));  // not a count
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{3, 1}, {2, 1}, {1, 1}}));
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{2000, 1}, {1, 1999}}));  // past its variables
  EXPECT_TRUE(LaplaceClosedForm::of(1, {{1.5, 1}, {1, 36}}));      // 36 ln 3 < 40: in double's range
  EXPECT_FALSE(LaplaceClosedForm::of(1, {{1.5, 1}, {1, 37}}));     // 37 ln 3 > 40
  EXPECT_FALSE(LaplaceCombination(1, cell_projected_weights({2000}), 10, Interrupts()).closed_form());
  EXPECT_TRUE(LaplaceCombination(1, cell_projected_weights({1000}), 10, Interrupts()).closed_form());
}

TEST(LaplaceClosedForm, RefusesAndStops) {
  EXPECT_THROW(LaplaceClosedForm(0, 2, 3), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 1.2, 3), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 2, 0), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 2, kMaxClosedFormVariables + 1), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 1.5, 100), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 2, 3).coverage(-1, Interrupts()), InvalidArgument);
  EXPECT_THROW(LaplaceClosedForm(1, 2, 3).coverage(1, Interrupts(test_interrupts::always_pending, nullptr)),
               Interrupted);
  // From 0 to far in the tails (where e^(y/r) passes any range), for
  // every kind it takes: enclosures within [0, 1], narrow, non-decreasing.
  for (const double r : {0.0, 1.5, 2.0, 50.0, 1e6})
    for (const std::size_t m : {2u, 10u, 36u, 999u}) {
      if (!LaplaceClosedForm::of(
              1, r == 0 ? std::vector<LaplaceTerm>{{1, double(m)}} : std::vector<LaplaceTerm>{{r, 1}, {1, double(m)}}))
        continue;
      const LaplaceClosedForm law(1, r, m);
      const double sd = std::sqrt(2 * (r * r + double(m)));
      CoverageBounds last{0, 0};
      for (double t = 1e-6; t < 1e4; t *= 1.7) {
        const CoverageBounds c = law.coverage(t * sd, Interrupts());
        EXPECT_GE(c.lower, 0) << r << " " << m << " " << t;
        EXPECT_LE(c.upper, 1) << r << " " << m << " " << t;
        EXPECT_LT(c.upper - c.lower, 3e-11) << r << " " << m << " " << t;
        EXPECT_GE(c.lower, last.lower - 1e-12) << r << " " << m << " " << t;
        last = c;
      }
      EXPECT_GE(last.lower, 1 - 1e-12) << r << " " << m;
    }
}

}  // namespace
}  // namespace invariant_dp::accuracy
