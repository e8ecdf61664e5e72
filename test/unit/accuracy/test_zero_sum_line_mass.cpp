// Tails of the l1 mass of zero-sum lines of discrete Laplace cells
// (accuracy/zero_sum_line_mass.hpp; DERIVATIONS.md, section 12, "Aliasing
// by the lines' mass"), against the law of the mass enumerated over the
// lines of three and four cells: every bound holds at every point, the
// points are where the bounds reach their targets, and the bound of the
// mass at 2N lies far below the bound of one row's partial sum at N that
// the aliasing took before (a bound with the marginal's decay fails that).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "accuracy/integer_noise_transforms.hpp"
#include "accuracy/zero_sum_line_mass.hpp"
#include "errors.hpp"

namespace invariant_dp::accuracy {
namespace {

// The law of one line's mass |y|_1 over the zero-sum lines of r cells with
// every |y_i| <= R (what lies beyond weighs below a^R of the whole).
std::vector<double> line_mass_law(double b, int r, int R) {
  const double a = std::exp(-1 / b);
  std::vector<double> law(std::size_t(2 * r * R + 1), 0.0);
  std::vector<int> y(std::size_t(r - 1), -R);
  double total = 0;
  for (;;) {
    int sum = 0, mass = 0;
    for (const int v : y) sum += v, mass += std::abs(v);
    mass += std::abs(sum);  // the last cell is minus the others
    const double w = std::pow(a, mass);
    law[std::size_t(mass)] += w;
    total += w;
    std::size_t k = 0;
    // Ends: an odometer over (2R + 1)^(r - 1) tuples.
    while (k < y.size() && y[k] == R) y[k++] = -R;
    if (k == y.size()) break;
    ++y[k];
  }
  for (double& p : law) p /= total;
  return law;
}

std::vector<double> mass_convolution(const std::vector<double>& f, const std::vector<double>& g) {
  std::vector<double> out(f.size() + g.size() - 1, 0.0);
  for (std::size_t i = 0; i < f.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j) out[i + j] += f[i] * g[j];
  return out;
}

double at_least(const std::vector<double>& law, std::size_t x) {
  double sum = 0;
  for (std::size_t t = x; t < law.size(); ++t) sum += law[t];
  return sum;
}

TEST(ZeroSumLineMass, BoundsHoldOnTheEnumeratedMassAndReadItsJointDecay) {
  struct Case {
    std::uint64_t num, den;  // b
    int r, R;
  };
  for (const Case& c : {Case{3, 2, 3, 80}, Case{1, 1, 4, 45}}) {
    const double b = double(c.num) / double(c.den);
    const std::string what = "b = " + std::to_string(b) + ", r = " + std::to_string(c.r);
    const ZeroSumLineMass mass(Rational{c.num, c.den}, c.r, Interrupts());
    const std::vector<double> one = line_mass_law(b, c.r, c.R);
    // Three lines: the mass's law, and E[L_1 L_2 1{L = t}] from the
    // measure s p(s) of the first two.
    std::vector<double> weighted(one.size());
    for (std::size_t s = 0; s < one.size(); ++s) weighted[s] = double(s) * one[s];
    const std::vector<double> three = mass_convolution(mass_convolution(one, one), one);
    const std::vector<double> products = mass_convolution(mass_convolution(weighted, weighted), one);
    for (std::size_t x = 0; x <= 60; x += 3) {
      const double tail = at_least(three, x), product = at_least(products, x);
      if (tail < 1e-250) break;
      EXPECT_GE(mass.tail_bound(3, double(x)), tail * (1 - 1e-9)) << what << " at " << x;
      EXPECT_GE(mass.product_tail_bound(3, double(x)), product * (1 - 1e-9)) << what << " at " << x;
    }
    // The points: the bound is at most p there and above p one before.
    for (const double p : {1e-3, 1e-9, 1e-15}) {
      const std::int64_t x = mass.tail_point(3, p);
      EXPECT_LE(mass.tail_bound(3, double(x)), p * (1 + 1e-12)) << what;
      EXPECT_GT(mass.tail_bound(3, double(x - 1)), p) << what;
      const std::int64_t y = mass.product_tail_point(3, p);
      EXPECT_LE(mass.product_tail_bound(3, double(y)), p * (1 + 1e-12)) << what;
      EXPECT_GT(mass.product_tail_bound(3, double(y - 1)), p) << what;
    }
    // Power: a partial sum at N needs L >= 2N, where one row's sum of the
    // unconditioned cells decays as a^N: far apart at large N.
    const NoiseTransform cells(IntegerNoise{IntegerNoise::Kind::laplace, {c.num, c.den}});
    const std::vector<WeightedCells> row{{1, 3}};
    for (const double N : {60.0, 90.0}) {
      const double marginal = cells.tail_bound(row, N) * double(c.r - 1);
      EXPECT_LT(mass.tail_bound(3, 2 * N), marginal * std::exp(-0.5 * N / b)) << what << " at " << N;
    }
  }
  // Scales past the limit give no bound, and bad input is refused.
  const ZeroSumLineMass huge(Rational{65, 1}, 4, Interrupts());
  EXPECT_EQ(huge.tail_bound(3, 100), 1);
  EXPECT_EQ(huge.tail_point(3, 1e-9), INT64_MAX);
  EXPECT_THROW(ZeroSumLineMass(Rational{0, 1}, 3, Interrupts()), InvalidArgument);
  EXPECT_THROW(ZeroSumLineMass(Rational{1, 1}, 1, Interrupts()), InvalidArgument);
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(ZeroSumLineMass(Rational{64, 1}, 4, stop), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::accuracy
