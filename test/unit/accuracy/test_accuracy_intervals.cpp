// Unit tests of the per-cell intervals and their quantiles
// (accuracy/tail_quantiles.hpp, conditioned_marginal.hpp, cell_intervals.hpp)
// against brute force:
//  - the discrete Laplace and discrete Gaussian half-widths are the smallest
//    t whose summed tail is at most 1 - level (both Gaussian routes; the
//    continuous one at most one count wider);
//  - the sum of m discrete Laplace variables by the recurrence against
//    direct convolution, and a group cell's law against enumeration;
//  - the theta ratio bounds the enumerated marginal of a lattice Gaussian
//    group and table cell against the discrete Gaussian at sigma^2 (Pi_N)_ii;
//  - each family's intervals cover at least the level under the enumerated
//    law; the tail bounds; integer bounds and their overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/conditioned_marginal.hpp"
#include "accuracy/lattice_bounds.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;

const double kLevels[] = {0.5, 0.8, 0.9, 0.95, 0.99, 0.999};

// P(|X| > t) by summing a symmetric pmf given on 0..T.
double tail_of(const std::vector<double>& pmf, std::int64_t t) {
  double s = 0;
  for (std::size_t x = static_cast<std::size_t>(t) + 1; x < pmf.size(); ++x) s += 2 * pmf[x];
  return s;
}

std::vector<double> discrete_laplace_pmf(double b, std::size_t top) {
  const double a = std::exp(-1 / b);
  std::vector<double> p(top + 1);
  for (std::size_t x = 0; x <= top; ++x) p[x] = (1 - a) / (1 + a) * std::pow(a, double(x));
  return p;
}

std::vector<double> discrete_gaussian_pmf(double s2, std::size_t top) {
  std::vector<double> p(top + 1);
  double total = 0;
  for (std::size_t x = 0; x <= top; ++x) total += (x ? 2 : 1) * (p[x] = std::exp(-double(x * x) / (2 * s2)));
  for (double& v : p) v /= total;
  return p;
}

void expect_smallest(const std::vector<double>& pmf, std::int64_t t, double level, double ratio = 1) {
  EXPECT_LE(ratio * tail_of(pmf, t), (1 - level) * (1 + 1e-12)) << "t = " << t << " level " << level;
  if (t > 0) {
    EXPECT_GT(ratio * tail_of(pmf, t - 1), (1 - level) * (1 - 1e-6)) << "t - 1 = " << t - 1;
  }
}

TEST(AccuracyIntervals, DiscreteLaplaceQuantilesAreExact) {
  for (const Rational b : {Rational{1, 2}, Rational{2, 1}, Rational{125, 12}, Rational{1000, 3}})
    for (const double level : kLevels) {
      const std::int64_t t = discrete_laplace_half_width(b, level);
      expect_smallest(discrete_laplace_pmf(b.to_double(), static_cast<std::size_t>(60 * b.to_double()) + 60), t,
                      level);
    }
}

TEST(AccuracyIntervals, DiscreteGaussianQuantilesAreExactOrOneWider) {
  for (const double s2 : {0.3, 1.0, 7.5, 400.0, 2.5e5})
    for (const double level : kLevels) {
      const std::int64_t t = discrete_gaussian_half_width(s2, level);
      expect_smallest(discrete_gaussian_pmf(s2, static_cast<std::size_t>(40 * std::sqrt(s2)) + 40), t, level);
      const std::int64_t inflated = discrete_gaussian_half_width(s2, level, 1.5);
      expect_smallest(discrete_gaussian_pmf(s2, static_cast<std::size_t>(40 * std::sqrt(s2)) + 40), inflated, level,
                      1.5);
    }
  // The continuous route (s2 > 1e6): valid, and at most one count above
  // the exact quantile (found here by brute force).
  const double s2 = 4e6;
  const std::vector<double> pmf = discrete_gaussian_pmf(s2, 40 * 2000);
  for (const double level : kLevels) {
    const std::int64_t t = discrete_gaussian_half_width(s2, level);
    EXPECT_LE(tail_of(pmf, t), 1 - level);
    std::int64_t exact = t;
    while (exact > 0 && tail_of(pmf, exact - 1) <= 1 - level) --exact;
    EXPECT_LE(t, exact + 1) << level;
  }
}

TEST(AccuracyIntervals, SumsOfDiscreteLaplaceMatchConvolution) {
  for (const double b : {0.6, 2.0, 6.5})
    for (const std::uint64_t m : {1u, 2u, 3u, 7u, 20u}) {
      const double a = std::exp(-1 / b);
      const int W = static_cast<int>(80 * b * std::sqrt(double(m))) + 60;
      std::vector<double> one(2 * W + 1), sum;
      for (int x = -W; x <= W; ++x) one[x + W] = (1 - a) / (1 + a) * std::pow(a, std::abs(x));
      sum = one;
      for (std::uint64_t j = 1; j < m; ++j) {
        std::vector<double> next(2 * W + 1, 0.0);
        for (int x = -W; x <= W; ++x)
          for (int y = -W; y <= W; ++y)
            if (x + y >= -W && x + y <= W) next[x + y + W] += sum[x + W] * one[y + W];
        sum = next;
      }
      const std::vector<double> p = discrete_laplace_sum_pmf(a, m, 30);
      for (int s = 0; s <= 30; ++s) EXPECT_NEAR(p[s], sum[s + W], 1e-12 * sum[s + W] + 1e-300) << b << " " << m;
    }
}

TEST(AccuracyIntervals, ConditionedCellLawMatchesEnumeration) {
  // A group of 3 cells: z_3 = -z_1 - z_2.
  const double b = 1.7;
  const int M = 90;
  std::map<int, double> law;
  double total = 0;
  for (int x = -M; x <= M; ++x)
    for (int y = -M; y <= M; ++y) {
      const double w = std::exp(-(std::abs(x) + std::abs(y) + std::abs(x + y)) / b);
      law[x] += w;
      total += w;
    }
  const std::vector<double> q = conditioned_laplace_marginal(Rational{17, 10}, 3, 1e9);
  for (int t = 0; t < 40; ++t) EXPECT_NEAR(q[static_cast<std::size_t>(t)], law[t] / total, 1e-12);
  for (const double level : kLevels) expect_smallest(q, marginal_half_width(q, level), level);
  EXPECT_TRUE(conditioned_laplace_marginal(Rational{17, 10}, 1000000, 1e3).empty());  // past the work limit
  EXPECT_TRUE(conditioned_laplace_marginal(Rational{200000, 1}, 2, 1e12).empty());   // past the memory limit
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(conditioned_laplace_marginal(Rational{17, 10}, 1000000, 1e9, stop), Interrupted);
}

// The marginal of one cell of a lattice Gaussian on a group of k cells, by
// enumeration, against the discrete Gaussian at sigma^2 (1 - 1/k): their
// ratio varies by at most the certified theta ratio R.
TEST(AccuracyIntervals, ThetaRatioBoundsTheCellMarginal) {
  for (const double s2 : {0.35, 0.6, 1.2}) {
    const Rational sigma2 = rational_at_least(s2, 1000);
    const double sg = sigma2.to_double();
    const int M = 12;
    std::map<int, double> law;  // k = 4: enumerate z_1..z_3, z_4 = -sum
    double total = 0;
    for (int a = -M; a <= M; ++a)
      for (int b = -M; b <= M; ++b)
        for (int c = -M; c <= M; ++c) {
          const int d = -a - b - c;
          const double w = std::exp(-(double(a) * a + double(b) * b + double(c) * c + double(d) * d) / (2 * sg));
          law[a] += w;
          total += w;
        }
    const double cell_s2 = sg * 0.75;
    double lo = INFINITY, hi = 0;
    for (int t = -5; t <= 5; ++t) {
      const double r = law[t] / std::exp(-double(t) * t / (2 * cell_s2));
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    const double R = std::exp(log_theta_ratio(table_coordinates(sigma2, {4})));
    EXPECT_LE(hi / lo, R * (1 + 1e-9)) << "s2 " << s2 << " R " << R;
    std::cout << "[accuracy] group of 4 at sigma^2 " << sg << ": marginal / rho ratio spread " << hi / lo
              << ", certified R " << R << "\n";
  }
}

TEST(AccuracyIntervals, FamiliesCoverUnderTheirLaws) {
  const double level = 0.9;
  // integer_laplace on a partition: groups of 2, 3, 5 at b = 1.5; exact.
  std::vector<Tuple> cells;
  for (int g = 0; g < 3; ++g)
    for (int k = 0; k < (g == 0 ? 2 : g == 1 ? 3 : 5); ++k) cells.push_back({g, k});
  const Release partition(cells, 2, {{0}});
  const Rational b{3, 2};
  const auto acc = laplace_lattice_accuracy(form_of_model(*partition.model, Interrupts()), b, nullptr, Interrupts());
  const CellIntervals iv = laplace_lattice_intervals(acc, b, level, Interrupts());
  EXPECT_EQ(iv.kind(), Exactness::exact);
  for (std::uint64_t k : {2u, 3u, 5u}) {
    const auto q = conditioned_laplace_marginal(b, k, 1e9);
    const std::uint32_t cell = k == 2 ? 0 : k == 3 ? 2 : 6;
    expect_smallest(q, static_cast<std::int64_t>(iv.half_width(cell)), level);
  }
  // Past the recurrence's limit: the unconditioned quantile, certified and wider.
  const CellIntervals fallback = laplace_lattice_intervals(acc, b, level, Interrupts(), 1.0);
  EXPECT_EQ(fallback.kind(), Exactness::certified);
  EXPECT_EQ(fallback.half_width(6), double(discrete_laplace_half_width(b, level)));
  EXPECT_GE(fallback.half_width(0), iv.half_width(0));

  // integer_gaussian on a 3 x 3 table: exact (the tilt decides the quantile),
  // the smallest half-width covering the enumerated law.
  const Rational sigma2{3, 1};
  const Release table(grid({3, 3}), 2, {{0}, {1}});
  const auto gacc = lattice_gaussian_accuracy(form_of_model(*table.model, Interrupts()), sigma2, Interrupts());
  const CellIntervals giv = lattice_gaussian_intervals(gacc.shared_form(), sigma2, level, Interrupts());
  EXPECT_EQ(giv.kind(), Exactness::exact);
  // The 3 x 3 cell law: enumerate the free 2 x 2 block.
  std::map<int, double> law;
  double total = 0;
  const int M = 10;
  for (int a = -M; a <= M; ++a)
    for (int bb = -M; bb <= M; ++bb)
      for (int c = -M; c <= M; ++c)
        for (int d = -M; d <= M; ++d) {
          const int z[9] = {a, bb, -a - bb, c, d, -c - d, -a - c, -bb - d, a + bb + c + d};
          double s = 0;
          for (int v : z) s += double(v) * v;
          const double w = std::exp(-s / 6);
          law[std::abs(a)] += w;
          total += w;
        }
  const auto t = static_cast<int>(giv.half_width(0));
  double outside = 0;
  for (const auto& [x, w] : law)
    if (x > t) outside += w;
  EXPECT_LE(outside / total, 1 - level);
  EXPECT_GT((outside + law[t]) / total, 1 - level) << "one count less would cover";
}

TEST(AccuracyIntervals, TailBoundsAndIntegerBounds) {
  EXPECT_NEAR(normal_quantile(0.95), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.9), 1.6448536269514722, 1e-12);
  EXPECT_GE(normal_quantile(0.95), 1.959963984540054);
  EXPECT_NEAR(chebyshev_half_width(4, 0.75), 4, 1e-9);
  EXPECT_NEAR(gauss_half_width(9, 0.96), (2.0 / 3) * 3 / std::sqrt(0.04), 1e-9);
  EXPECT_NEAR(sub_gaussian_half_width(1, 0.9), std::sqrt(2 * std::log(20.0)), 1e-9);
  EXPECT_THROW(check_level(1.0), InvalidArgument);
  EXPECT_THROW(check_level(0.0), InvalidArgument);

  const CellIntervals iv(3, 5, true, Exactness::exact, "x");
  const std::int64_t values[] = {0, -7, INT64_MAX - 2};
  std::int64_t lower[3], upper[3];
  EXPECT_THROW(iv.check_integer_bounds(values, Interrupts()), OutOfRange);
  const std::int64_t fine[] = {0, -7, 100};
  iv.check_integer_bounds(fine, Interrupts());
  iv.integer_bounds(0, 3, fine, lower, upper);
  EXPECT_EQ(lower[1], -12);
  EXPECT_EQ(upper[2], 105);
  // A few rows from the middle: the bounds of rows 1 and 2 at 0 and 1.
  iv.integer_bounds(1, 2, fine, lower, upper);
  EXPECT_EQ(lower[0], -12);
  EXPECT_EQ(upper[1], 105);
  // Per block: a bound past bigint in any cell is found, whatever its block.
  const CellIntervals per_cell(std::vector<double>{1, 2, 3}, true, Exactness::exact, "x");
  const std::int64_t near_top[] = {0, 0, INT64_MAX - 2};
  EXPECT_THROW(per_cell.check_integer_bounds(near_top, Interrupts()), OutOfRange);
  const std::int64_t at_top_fine[] = {0, 0, INT64_MAX - 3};
  per_cell.check_integer_bounds(at_top_fine, Interrupts());
  const double real[] = {1.5};
  double rl, ru;
  CellIntervals(1, 0.25, false, Exactness::exact, "x").real_bounds(0, 1, real, &rl, &ru);
  EXPECT_LT(rl, 1.25);
  EXPECT_GT(ru, 1.75);
}

}  // namespace
}  // namespace invariant_dp
