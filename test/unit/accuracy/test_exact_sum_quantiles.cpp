// Exact quantiles of sums of integer noise cells by Fourier inversion
// (accuracy/independent_sum_quantiles.hpp, accuracy/zero_sum_quantiles.hpp;
// DERIVATIONS.md beside them, sections 10 and 11), against the laws
// computed directly: convolution of the cells' pmfs, and enumeration of
// small zero-sum groups and 2 x n tables. Every certified enclosure must
// contain the direct coverage, and every quantile must be the direct one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "accuracy/conditioned_marginal.hpp"
#include "accuracy/independent_sum_quantiles.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy/zero_sum_quantiles.hpp"
#include "errors.hpp"
#include "samplers/conditioned_laplace_variance.hpp"

namespace invariant_dp::accuracy {
namespace {

// The direct computation rounds too: the enclosures are compared with this slack.
constexpr double kDirectSlack = 1e-13;

// An unnormalised pmf on -X .. X, index x + X.
struct Pmf {
  std::int64_t X = 0;
  std::vector<double> p;
  double at(std::int64_t x) const { return x < -X || x > X ? 0.0 : p[static_cast<std::size_t>(x + X)]; }
};

Pmf cell_pmf(IntegerNoise noise, std::int64_t X) {
  Pmf out{X, std::vector<double>(static_cast<std::size_t>(2 * X + 1))};
  const double par = noise.parameter.to_double();
  for (std::int64_t x = -X; x <= X; ++x)
    out.p[static_cast<std::size_t>(x + X)] = noise.kind == IntegerNoise::Kind::laplace
                                                 ? std::exp(-std::fabs(double(x)) / par)
                                                 : std::exp(-double(x) * double(x) / (2 * par));
  return out;
}

// The pmf of w * (one cell).
Pmf scaled_pmf(const Pmf& p, std::int64_t w) {
  Pmf out{p.X * w, std::vector<double>(static_cast<std::size_t>(2 * p.X * w + 1), 0.0)};
  for (std::int64_t x = -p.X; x <= p.X; ++x) out.p[static_cast<std::size_t>(x * w + out.X)] = p.at(x);
  return out;
}

Pmf convolve(const Pmf& a, const Pmf& b) {
  Pmf out{a.X + b.X, std::vector<double>(static_cast<std::size_t>(2 * (a.X + b.X) + 1), 0.0)};
  for (std::int64_t x = -a.X; x <= a.X; ++x)
    for (std::int64_t y = -b.X; y <= b.X; ++y) out.p[static_cast<std::size_t>(x + y + out.X)] += a.at(x) * b.at(y);
  return out;
}

Pmf power(const Pmf& p, std::uint64_t m) {
  Pmf out{0, {1.0}};
  for (std::uint64_t i = 0; i < m; ++i) out = convolve(out, p);
  return out;
}

// P(|X| <= t) of a pmf.
double coverage(const Pmf& p, std::int64_t t) {
  double in = 0, all = 0;
  for (std::int64_t x = -p.X; x <= p.X; ++x) {
    all += p.at(x);
    if (std::llabs(x) <= t) in += p.at(x);
  }
  return in / all;
}

std::int64_t direct_pmf_quantile(const Pmf& p, double level) {
  std::int64_t t = 0;
  while (coverage(p, t) < level) ++t;
  return t;
}

IntegerNoise laplace_noise(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::laplace, {num, den}}; }
IntegerNoise gaussian_noise(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::gaussian, {num, den}}; }

// Cells taken out to this many of their scales (or standard deviations):
// the mass left out is below 1e-20.
std::int64_t reach(IntegerNoise noise) {
  const double par = noise.parameter.to_double();
  return noise.kind == IntegerNoise::Kind::laplace ? static_cast<std::int64_t>(50 * par) + 8
                                                   : static_cast<std::int64_t>(10 * std::sqrt(par)) + 6;
}

const std::vector<IntegerNoise>& laws() {
  static const std::vector<IntegerNoise> all{laplace_noise(1, 2),   laplace_noise(2, 1),  laplace_noise(7, 1),
                                             gaussian_noise(3, 10), gaussian_noise(3, 2), gaussian_noise(6, 1)};
  return all;
}

const double kLevels[] = {0.5, 0.9, 0.95, 0.99};

TEST(ExactSumQuantiles, IndependentSumsEncloseTheConvolution) {
  for (const IntegerNoise& noise : laws()) {
    const Pmf cell = cell_pmf(noise, reach(noise));
    for (const std::uint64_t m : {1u, 2u, 3u, 7u}) {
      const Pmf sum = power(cell, m);
      for (const std::int64_t t : {0, 1, 2, 5, 12, 40}) {
        const CoverageBounds c = independent_sum_coverage(noise, {{1, m}}, t, Interrupts());
        const double direct = coverage(sum, t);
        EXPECT_LE(c.lower, direct + kDirectSlack) << noise.parameter.to_double() << " m=" << m << " t=" << t;
        EXPECT_GE(c.upper, direct - kDirectSlack) << noise.parameter.to_double() << " m=" << m << " t=" << t;
        EXPECT_LT(c.upper - c.lower, 1e-10);
      }
      for (const double level : kLevels) {
        const Quantile q = independent_sum_quantile(noise, {{1, m}}, level, Interrupts());
        EXPECT_EQ(q.half_width, direct_pmf_quantile(sum, level)) << noise.parameter.to_double() << " m=" << m;
        EXPECT_TRUE(q.exact);
        EXPECT_GE(q.coverage_lower, level);
        EXPECT_LT(q.narrower_upper, level);
      }
    }
  }
}

// A node set over a rolled-up hierarchy: leaves weighted 1, 2 and 3.
TEST(ExactSumQuantiles, WeightedSumsEncloseTheConvolution) {
  for (const IntegerNoise& noise : {laplace_noise(3, 2), gaussian_noise(2, 1), gaussian_noise(1, 5)}) {
    const Pmf cell = cell_pmf(noise, reach(noise));
    const Pmf sum = convolve(convolve(power(cell, 3), power(scaled_pmf(cell, 2), 2)), scaled_pmf(cell, 3));
    const std::vector<WeightedCells> terms{{1, 3}, {2, 2}, {3, 1}};
    for (const std::int64_t t : {0, 1, 3, 8, 20}) {
      const CoverageBounds c = independent_sum_coverage(noise, terms, t, Interrupts());
      EXPECT_LE(c.lower, coverage(sum, t) + kDirectSlack) << t;
      EXPECT_GE(c.upper, coverage(sum, t) - kDirectSlack) << t;
    }
    for (const double level : kLevels)
      EXPECT_EQ(independent_sum_quantile(noise, terms, level, Interrupts()).half_width,
                direct_pmf_quantile(sum, level));
    // Weights with a common divisor: X = 2 X', whose half-widths are even.
    const Pmf even = convolve(power(scaled_pmf(cell, 2), 3), power(scaled_pmf(cell, 4), 1));
    for (const double level : kLevels) {
      const Quantile q = independent_sum_quantile(noise, {{2, 3}, {4, 1}}, level, Interrupts());
      EXPECT_EQ(q.half_width, direct_pmf_quantile(even, level));
      EXPECT_EQ(q.half_width % 2, 0);
    }
  }
}

// Sums of up to 10^6 cells: exact, and within a count or two of the normal
// quantile at the sum's variance (the central limit theorem).
TEST(ExactSumQuantiles, LargeSumsAreExactAndNearTheNormalQuantile) {
  for (const IntegerNoise& noise : {laplace_noise(104, 10), gaussian_noise(60, 1), gaussian_noise(1, 4)}) {
    const double var = NoiseTransform(noise).variance();
    for (const std::uint64_t m : {1000u, 100000u, 1000000u}) {
      for (const double level : kLevels) {
        const Quantile q = independent_sum_quantile(noise, {{1, m}}, level, Interrupts());
        EXPECT_TRUE(q.exact);
        EXPECT_NEAR(double(q.half_width), normal_quantile(level) * std::sqrt(var * double(m)), 2.5)
            << m << " " << level;
      }
    }
  }
}

// P(|X| <= t | the group sums to 0), X = sum w_i z_i, by enumeration of the
// plus, minus and zero sums A, B, C with A + B + C = 0.
double group_coverage(const Pmf& cell, SignedCounts g, std::int64_t t) {
  const Pmf A = power(cell, g.plus), B = power(cell, g.minus), C = power(cell, g.zero);
  double in = 0, all = 0;
  for (std::int64_t u = -A.X; u <= A.X; ++u)
    for (std::int64_t v = -B.X; v <= B.X; ++v) {
      const double w = A.at(u) * B.at(v) * C.at(-u - v);
      all += w;
      if (std::llabs(u - v) <= t) in += w;
    }
  return in / all;
}

TEST(ExactSumQuantiles, ZeroSumGroupsEncloseTheEnumeratedLaw) {
  const std::vector<SignedCounts> groups{{1, 0, 1}, {1, 0, 3}, {2, 0, 3}, {2, 1, 2}, {1, 1, 0},
                                         {2, 2, 0}, {3, 1, 1}, {1, 2, 4}, {0, 2, 3}};
  for (const IntegerNoise& noise : laws()) {
    const Pmf cell = cell_pmf(noise, reach(noise) / 2 + 6);
    for (const SignedCounts& g : groups) {
      std::int64_t last = 0;
      for (const std::int64_t t : {0, 1, 2, 5, 12}) {
        const CoverageBounds c = zero_sum_coverage(noise, g, t, Interrupts());
        const double direct = group_coverage(cell, g, t);
        EXPECT_LE(c.lower, direct + 1e-12) << noise.parameter.to_double() << " t=" << t;
        EXPECT_GE(c.upper, direct - 1e-12) << noise.parameter.to_double() << " t=" << t;
        EXPECT_LT(c.upper - c.lower, 1e-9);
      }
      for (const double level : kLevels) {
        const Quantile q = zero_sum_quantile(noise, g, level, Interrupts());
        std::int64_t t = 0;
        while (group_coverage(cell, g, t) < level) ++t;
        EXPECT_EQ(q.half_width, t) << noise.parameter.to_double() << " (" << g.plus << "," << g.minus << ","
                                   << g.zero << ") " << level;
        EXPECT_TRUE(q.exact);
        EXPECT_GE(q.half_width, last);
        last = q.half_width;
      }
    }
  }
}

// The pmf of X given the group's zero total, by the same enumeration.
Pmf group_pmf(const Pmf& cell, SignedCounts g) {
  const Pmf A = power(cell, g.plus), B = power(cell, g.minus), C = power(cell, g.zero);
  Pmf out{A.X + B.X, std::vector<double>(static_cast<std::size_t>(2 * (A.X + B.X) + 1), 0.0)};
  for (std::int64_t u = -A.X; u <= A.X; ++u)
    for (std::int64_t v = -B.X; v <= B.X; ++v) out.p[static_cast<std::size_t>(u - v + out.X)] += A.at(u) * B.at(v) * C.at(-u - v);
  return out;
}

// Sums over independent groups: the convolution of the groups' enumerated
// laws (pairs with weights of both signs, pairs with one cell taken and
// whole doubled sums among them).
TEST(ExactSumQuantiles, SumsOverSeveralGroupsEncloseTheConvolution) {
  const std::vector<std::vector<GroupTerm>> sums{{{{1, 0, 2}, 1}, {{2, 1, 1}, 1}},
                                                  {{{1, 0, 3}, 3}},
                                                  {{{1, 1, 0}, 2}, {{1, 0, 1}, 1}},
                                                  {{{1, 1, 0}, 3}},
                                                  {{{2, 0, 2}, 2}, {{1, 2, 1}, 1}}};
  for (const IntegerNoise& noise :
       {laplace_noise(3, 2), laplace_noise(7, 2), gaussian_noise(3, 2), gaussian_noise(3, 10)}) {
    const Pmf cell = cell_pmf(noise, reach(noise) / 2 + 6);
    for (const auto& terms : sums) {
      Pmf total{0, {1.0}};
      for (const GroupTerm& t : terms)
        for (std::uint64_t g = 0; g < t.groups; ++g) total = convolve(total, group_pmf(cell, t.counts));
      for (const std::int64_t t : {0, 1, 3, 7, 15}) {
        const CoverageBounds c = zero_sum_coverage(noise, terms, t, Interrupts());
        EXPECT_LE(c.lower, coverage(total, t) + 1e-12) << noise.parameter.to_double() << " t=" << t;
        EXPECT_GE(c.upper, coverage(total, t) - 1e-12) << noise.parameter.to_double() << " t=" << t;
        EXPECT_LT(c.upper - c.lower, 1e-8);
      }
      for (const double level : kLevels)
        EXPECT_EQ(zero_sum_quantile(noise, terms, level, Interrupts()).half_width, direct_pmf_quantile(total, level));
    }
  }
}

// One cell of each of 3,000 groups of 30 (a GROUP BY over a partition's
// other key): exact, near the normal quantile at the summed conditioned
// variances (the group variance of conditioned_laplace_variance.hpp).
TEST(ExactSumQuantiles, OneCellOfEachOfThousandsOfGroups) {
  const Rational b{104, 10};
  const Quantile q = zero_sum_quantile({IntegerNoise::Kind::laplace, b}, {{{1, 0, 29}, 3000}}, 0.9, Interrupts());
  EXPECT_TRUE(q.exact);
  EXPECT_NEAR(double(q.half_width), normal_quantile(0.9) * std::sqrt(3000 * conditioned_laplace_variance(b, 30)), 2);
  const Quantile g = zero_sum_quantile(gaussian_noise(60, 1), {{{1, 0, 29}, 3000}}, 0.9, Interrupts());
  EXPECT_TRUE(g.exact);
  EXPECT_NEAR(double(g.half_width), normal_quantile(0.9) * std::sqrt(3000 * 60.0 * 29 / 30), 2);
}

// One cell of a group: the recurrence of the per-cell intervals
// (conditioned_marginal.hpp) gives the same quantile, up to 10^5 cells.
TEST(ExactSumQuantiles, OneCellOfAGroupAgreesWithTheRecurrence) {
  for (const Rational b : {Rational{2, 1}, Rational{104, 10}}) {
    for (const std::uint64_t k : {2u, 10u, 1000u, 100000u}) {
      const std::vector<double> pmf = conditioned_laplace_marginal(b, k, 1e9);
      ASSERT_FALSE(pmf.empty());
      for (const double level : kLevels) {
        const Quantile q = zero_sum_quantile({IntegerNoise::Kind::laplace, b}, {1, 0, k - 1}, level, Interrupts());
        EXPECT_EQ(q.half_width, marginal_half_width(pmf, level)) << b.to_double() << " k=" << k << " " << level;
        EXPECT_TRUE(q.exact);
      }
    }
  }
}

// A 2 x n table with both margins, enumerated: sets of cells on either line.
TEST(ExactSumQuantiles, TwoLineTablesEncloseTheEnumeratedLaw) {
  const std::size_t n = 3;
  for (const IntegerNoise& noise : {laplace_noise(3, 2), gaussian_noise(3, 2)}) {
    const Pmf cell = cell_pmf(noise, reach(noise) / 2 + 6);
    // Tables (y, -y), y in Z^3 with zero sum, weight prod p(y_j)^2.
    const auto coverage_of = [&](const std::vector<int>& first, const std::vector<int>& second, std::int64_t t) {
      double in = 0, all = 0;
      for (std::int64_t a = -cell.X; a <= cell.X; ++a)
        for (std::int64_t b = -cell.X; b <= cell.X; ++b) {
          const std::int64_t y[3] = {a, b, -a - b};
          double w = 1;
          for (const std::int64_t v : y) w *= cell.at(v) * cell.at(v);
          std::int64_t x = 0;
          for (std::size_t j = 0; j < n; ++j) x += (first[j] ? y[j] : 0) - (second[j] ? y[j] : 0);
          all += w;
          if (std::llabs(x) <= t) in += w;
        }
      return in / all;
    };
    // cells (1,1); (1,1), (1,2); (1,1), (2,2); (1,1), (2,1) [a whole column: 0]; (1,1), (1,2), (2,3)
    const std::vector<std::pair<std::vector<int>, std::vector<int>>> sets{
        {{1, 0, 0}, {0, 0, 0}}, {{1, 1, 0}, {0, 0, 0}}, {{1, 0, 0}, {0, 1, 0}},
        {{1, 0, 0}, {1, 0, 0}}, {{1, 1, 0}, {0, 0, 1}}};
    for (const auto& [first, second] : sets) {
      std::uint64_t only_first = 0, only_second = 0;
      for (std::size_t j = 0; j < n; ++j) {
        only_first += first[j] && !second[j];
        only_second += second[j] && !first[j];
      }
      const SignedCounts g = two_line_counts(n, only_first, only_second);
      for (const std::int64_t t : {0, 1, 3, 6}) {
        const CoverageBounds c = zero_sum_coverage(halved(noise), g, t, Interrupts());
        EXPECT_LE(c.lower, coverage_of(first, second, t) + 1e-12);
        EXPECT_GE(c.upper, coverage_of(first, second, t) - 1e-12);
      }
    }
  }
  EXPECT_THROW(two_line_counts(3, 2, 2), InvalidArgument);
}

// Large groups are cheap: a cell and half of a group of 10^6 cells.
TEST(ExactSumQuantiles, LargeGroupsAreExact) {
  for (const IntegerNoise& noise : {laplace_noise(104, 10), gaussian_noise(60, 1)}) {
    const double var = NoiseTransform(noise).variance();
    const std::uint64_t k = 1000000;
    for (const std::uint64_t s : {1u, 1000u, 500000u}) {
      const Quantile q = zero_sum_quantile(noise, {s, 0, k - s}, 0.9, Interrupts());
      EXPECT_TRUE(q.exact);
      // The conditioned sum of s cells has variance about var s (k - s)/k.
      if (s > 1) {
        EXPECT_NEAR(double(q.half_width), normal_quantile(0.9) * std::sqrt(var * double(s) * double(k - s) / double(k)), 3);
      }
    }
  }
}

TEST(ExactSumQuantiles, RefusesWhatItCannotBound) {
  // A pair of cells at a huge scale with one of two taken is a closed form,
  // but three cells at b = 10^6 would sum N^2 terms.
  EXPECT_THROW(zero_sum_quantile(laplace_noise(1000000, 1), {1, 1, 1}, 0.9, Interrupts()), TooLarge);
  // Two cells at b = 10^7: millions of nodes of a slowly decaying transform.
  EXPECT_THROW(independent_sum_quantile(laplace_noise(10000000, 1), {{1, 2}}, 0.9, Interrupts()), TooLarge);
  EXPECT_THROW(independent_sum_quantile(laplace_noise(2, 1), {{1, 3}}, 1.0, Interrupts()), InvalidArgument);
  EXPECT_THROW(independent_sum_quantile(laplace_noise(2, 1), {{0, 3}}, 0.9, Interrupts()), InvalidArgument);
  EXPECT_THROW(independent_sum_quantile(laplace_noise(0, 1), {{1, 3}}, 0.9, Interrupts()), InvalidArgument);
  EXPECT_THROW(independent_sum_coverage(laplace_noise(2, 1), {{1, 3}}, -1, Interrupts()), InvalidArgument);
  // No cell, or a whole group: the sum's noise is 0.
  EXPECT_EQ(independent_sum_quantile(laplace_noise(2, 1), {}, 0.9, Interrupts()).half_width, 0);
  EXPECT_EQ(zero_sum_quantile(laplace_noise(2, 1), {4, 0, 0}, 0.9, Interrupts()).half_width, 0);
}

TEST(ExactSumQuantiles, PollsForCancellation) {
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(independent_sum_quantile(laplace_noise(1000, 1), {{1, 2}}, 0.9, stop), Interrupted);
  EXPECT_THROW(zero_sum_quantile(laplace_noise(100, 1), {3, 0, 4}, 0.9, stop), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::accuracy
