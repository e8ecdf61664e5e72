// Statistical tests of the discrete Laplace conditioned on zero group sums
// (samplers/conditioned_laplace.hpp) and of its group-total sampler, with
// fixed seeds, against exact laws:
//  1. d = 2, one sum: z = (m, -m), m discrete Laplace of parameter exp(-2/b).
//  2. one group of 3 cells: the joint law of (z1, z2), enumerated on a box.
//  3. one group of 6 cells against naive rejection (i.i.d. discrete Laplace
//     kept iff the sum is 0): two-sample chi-square on |z1|, z1 + z2, max|zi|.
//  4. the group total N for k = 50 against C(n+49, 49)^2 a^(2n), through the
//     squeeze and through the pure MPFR path.
//  5. k = 1000: cell means are 0 and the per-cell variance equals the exact
//     conditional variance, computed from the definition (see below).
// Thresholds: chi-square critical value at p = 1e-6 for the actual degrees of
// freedom (categories with expected count < 5 pooled into one bin; in the
// two-sample test, categories with < 10 draws in both samples together);
// z-tests at |z| < 4.89 (two-sided 1e-6). So each assertion fails a correct
// sampler with probability about 1e-6 (large-sample approximations). Every
// test is also run against a deliberately wrong law (b 5% off) and asserts
// that it fails, so none of them is vacuous. Against two deliberate bugs
// (checked when written) the file fails: tail proposals accepted against the
// envelope of the next block, a wrong N law (1-4 fail); Floyd's algorithm
// keeping a taken position (1-3 and 5 fail). There are 12 random assertions
// at 1e-6 each: a correct sampler fails this file with probability about
// 1.2e-5 for fresh seeds (the seeds here are fixed, so runs are repeatable).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "random_source.hpp"
#include "samplers/composition_total.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
constexpr double kZCritical = 4.8916;  // two-sided normal quantile at 1e-6
const Rational kCensus{125, 12};       // 2 / 0.192
const Rational kTwo{2, 1};

// Many independent groups of k cells in one release (cells grouped
// consecutively); returns the z vector.
std::vector<std::int64_t> release_groups(std::uint64_t seed, Rational b, std::size_t groups, std::size_t k) {
  std::vector<std::uint32_t> group_of(groups * k);
  for (std::size_t i = 0; i < group_of.size(); ++i) group_of[i] = static_cast<std::uint32_t>(i / k);
  std::vector<std::int64_t> z(group_of.size());
  auto rng = make_seeded_random_source(seed);
  sample_laplace_with_zero_group_sums(*rng, b, {group_of.data(), z.size(), groups}, z.data(), {});
  return z;
}

Rational five_percent_off(Rational b) { return Rational{b.num * 21, b.den * 20}; }

// ---- 1. d = 2 --------------------------------------------------------------

// m has P(m) = (1-c)/(1+c) c^|m|, c = exp(-2/b): the discrete Laplace of
// scale b/2 (pmf on |m| <= 400; the rest is < 1e-30 at these scales).
std::map<std::int64_t, double> pair_law(double b) {
  const double c = std::exp(-2 / b);
  std::map<std::int64_t, double> p;
  for (std::int64_t m = -400; m <= 400; ++m) p[m] = (1 - c) / (1 + c) * std::pow(c, std::abs(double(m)));
  return p;
}

TEST(StatConditionedLaplace, PairIsDiscreteLaplaceOfDoubleRate) {
  constexpr std::size_t kPairs = 300000;
  for (Rational b : {kTwo, kCensus}) {
    const auto z = release_groups(21, b, kPairs, 2);
    std::map<std::int64_t, std::int64_t> counts;
    for (std::size_t g = 0; g < kPairs; ++g) {
      ASSERT_EQ(z[2 * g], -z[2 * g + 1]);
      ++counts[z[2 * g]];
    }
    const ChiSquare fit = goodness_of_fit(pair_law(b.to_double()), counts, kPairs);
    report("pair, b = " + std::to_string(b.to_double()), fit);
    EXPECT_TRUE(fit.passes());
    const ChiSquare bad = goodness_of_fit(pair_law(five_percent_off(b).to_double()), counts, kPairs);
    report("pair against b 5% off", bad);
    EXPECT_FALSE(bad.passes());
  }
}

// ---- 2. joint law of a group of 3 ---------------------------------------

// P(z1, z2) proportional to a^(|z1| + |z2| + |z1 + z2|), enumerated on
// |z1|, |z2| <= B. Outside, ||z||_1 >= 2B + 2 and at most 6s points have
// ||z||_1 = s, so the lost mass is < sum_{s >= 2B+2} 6 s a^s (checked < 1e-12;
// the normaliser is >= 1, the mass of z = 0).
std::map<std::int64_t, double> triple_law(double b) {
  const double a = std::exp(-1 / b);
  const std::int64_t B = static_cast<std::int64_t>(std::ceil(40 * b));
  double lost = 0;
  for (std::int64_t s = 2 * B + 2; s < 20 * B; ++s) lost += 6.0 * s * std::pow(a, double(s));
  EXPECT_LT(lost, 1e-12);
  std::map<std::int64_t, double> p;
  double total = 0;
  for (std::int64_t x = -B; x <= B; ++x)
    for (std::int64_t y = -B; y <= B; ++y) {
      const double w = std::pow(a, double(std::abs(x) + std::abs(y) + std::abs(x + y)));
      p[x * 100000 + y] = w;
      total += w;
    }
  for (auto& [key, w] : p) w /= total;
  return p;
}

TEST(StatConditionedLaplace, GroupOfThreeMatchesTheJointLaw) {
  constexpr std::size_t kGroups = 300000;
  const Rational b = kTwo;
  const auto z = release_groups(22, b, kGroups, 3);
  std::map<std::int64_t, std::int64_t> counts;
  for (std::size_t g = 0; g < kGroups; ++g) {
    ASSERT_EQ(z[3 * g] + z[3 * g + 1] + z[3 * g + 2], 0);
    ++counts[z[3 * g] * 100000 + z[3 * g + 1]];
  }
  const ChiSquare fit = goodness_of_fit(triple_law(b.to_double()), counts, kGroups);
  report("group of 3, joint law", fit);
  EXPECT_TRUE(fit.passes());
  const ChiSquare bad = goodness_of_fit(triple_law(five_percent_off(b).to_double()), counts, kGroups);
  report("group of 3 against b 5% off", bad);
  EXPECT_FALSE(bad.passes());
}

// ---- 3. against naive rejection -----------------------------------------

struct Statistics {
  std::map<std::int64_t, std::int64_t> abs_first, first_two, max_abs;
  double n = 0;
  void add(const std::int64_t* z, std::size_t k) {
    std::int64_t m = 0;
    for (std::size_t i = 0; i < k; ++i) m = std::max(m, std::abs(z[i]));
    ++abs_first[std::abs(z[0])];
    ++first_two[z[0] + z[1]];
    ++max_abs[m];
    ++n;
  }
};

Statistics naive_rejection(std::uint64_t seed, Rational b, std::size_t k, std::size_t draws) {
  auto rng = make_seeded_random_source(seed);
  Statistics s;
  std::vector<std::int64_t> z(k);
  while (s.n < draws) {
    std::int64_t sum = 0;
    for (auto& v : z) sum += v = sample_discrete_laplace(*rng, b);
    if (sum == 0) s.add(z.data(), k);
  }
  return s;
}

bool all_pass(const Statistics& x, const Statistics& y, const std::string& what) {
  const ChiSquare r1 = two_sample(x.abs_first, x.n, y.abs_first, y.n);
  const ChiSquare r2 = two_sample(x.first_two, x.n, y.first_two, y.n);
  const ChiSquare r3 = two_sample(x.max_abs, x.n, y.max_abs, y.n);
  report(what + ", |z1|", r1);
  report(what + ", z1 + z2", r2);
  report(what + ", max |zi|", r3);
  return r1.passes() && r2.passes() && r3.passes();
}

TEST(StatConditionedLaplace, GroupOfSixAgreesWithNaiveRejection) {
  constexpr std::size_t kK = 6, kDraws = 50000;
  const Rational b = kTwo;
  const auto z = release_groups(23, b, kDraws, kK);
  Statistics ours;
  for (std::size_t g = 0; g < kDraws; ++g) ours.add(z.data() + g * kK, kK);
  EXPECT_TRUE(all_pass(ours, naive_rejection(24, b, kK, kDraws), "group of 6 vs naive"));
  EXPECT_FALSE(all_pass(ours, naive_rejection(25, five_percent_off(b), kK, kDraws),
                        "group of 6 vs naive with b 5% off"));
}

// ---- 4. the group total ---------------------------------------------------

std::map<std::int64_t, double> total_law(double b, std::uint64_t k) {
  const double a = std::exp(-1 / b);
  std::vector<double> logw;
  for (std::uint64_t n = 0; n < 20000; ++n)
    logw.push_back(2 * (std::lgamma(double(n + k)) - std::lgamma(double(n + 1))) + 2 * n * std::log(a));
  const double top = *std::max_element(logw.begin(), logw.end());
  std::map<std::int64_t, double> p;
  double total = 0;
  for (std::size_t n = 0; n < logw.size(); ++n) total += p[n] = std::exp(logw[n] - top);
  for (auto& [n, w] : p) w /= total;
  return p;
}

void check_total(Rational b, std::uint64_t k, unsigned squeeze_cells, std::size_t draws) {
  const CompositionTotalSampler sampler(b, k, squeeze_cells);
  auto rng = make_seeded_random_source(26 + squeeze_cells);
  std::map<std::int64_t, std::int64_t> counts;
  for (std::size_t i = 0; i < draws; ++i) ++counts[static_cast<std::int64_t>(sampler.sample(*rng, {}))];
  const std::string what = "N, k = " + std::to_string(k) + ", b = " + std::to_string(b.to_double()) +
                           (squeeze_cells ? ", squeeze" : ", MPFR only");
  const ChiSquare fit = goodness_of_fit(total_law(b.to_double(), k), counts, draws);
  report(what, fit);
  EXPECT_TRUE(fit.passes());
  const ChiSquare bad = goodness_of_fit(total_law(five_percent_off(b).to_double(), k), counts, draws);
  report(what + " against b 5% off", bad);
  EXPECT_FALSE(bad.passes());
}

TEST(StatConditionedLaplace, GroupTotalForFiftyCells) {
  check_total(kTwo, 50, 1024, 300000);
  check_total(kCensus, 50, 1024, 300000);
  check_total(kTwo, 50, 0, 10000);
}

// ---- 5. a large group -----------------------------------------------------

// Exact Var(z_1 | sum z = 0) for k i.i.d. discrete Laplace cells, from the
// definition: sum_x x^2 p(x) P(S_{k-1} = -x) / P(S_k = 0), where S_j is a
// sum of j cells. S_j = A - A' with A, A' independent negative binomial
// NB(j, a) (sums of j geometrics): P(A = s) = C(s+j-1, j-1) (1-a)^j a^s,
// so P(S_j = y) = sum_s P(A = s) P(A' = s - y). Computed in long double,
// truncated where the neglected mass is < 1e-30.
std::vector<long double> negative_binomial(long double a, std::uint64_t j, std::int64_t s_max) {
  std::vector<long double> p(s_max + 1);
  for (std::int64_t s = 0; s <= s_max; ++s)
    p[s] = std::exp(std::lgamma((long double)s + j) - std::lgamma((long double)j) - std::lgamma((long double)s + 1) +
                    j * std::log1p(-a) + s * std::log(a));
  return p;
}

// P(S_j = y) for y <= 0: sum_s P(A = s) P(A' = s - y).
long double sum_law(const std::vector<long double>& nb, std::int64_t y) {
  long double total = 0;
  for (std::size_t s = 0; s + static_cast<std::size_t>(-y) < nb.size(); ++s) total += nb[s] * nb[s - y];
  return total;
}

double exact_conditional_variance(double b, std::uint64_t k) {
  const long double a = std::exp(-1.0L / b);
  // NB(k, a) has mean k a / (1-a); 3 means + 2000 leaves < 1e-30.
  const std::int64_t s_max = static_cast<std::int64_t>(k * a / (1 - a) * 3 + 2000);
  const auto nb_k = negative_binomial(a, k, s_max), nb_k1 = negative_binomial(a, k - 1, s_max);
  long double num = 0;
  for (std::int64_t x = 1; x < 100 * b + 100; ++x) {  // p(x) < e^-100 beyond
    const long double px = (1 - a) / (1 + a) * std::pow(a, (long double)x);
    num += 2 * (long double)x * x * px * sum_law(nb_k1, -x);  // x and -x
  }
  return static_cast<double>(num / sum_law(nb_k, 0));
}

// The same from the composition representation: given N = n, G_1 is the
// first part of a uniform composition, Var(G_1 | n) = n (n + k)(k - 1) /
// (k^2 (k + 1)), and E[z_1^2 | n] = 2 Var(G_1 | n).
double composition_variance(double b, std::uint64_t k) {
  double v = 0;
  for (const auto& [n, p] : total_law(b, k))
    v += p * 2.0 * n * (n + double(k)) * (k - 1) / (double(k) * k * (k + 1));
  return v;
}

TEST(StatConditionedLaplace, LargeGroupIsUnbiasedWithTheExactVariance) {
  constexpr std::size_t kK = 1000, kReleases = 2000;
  const Rational b = kTwo;
  const double exact = exact_conditional_variance(b.to_double(), kK);
  const double wrong = exact_conditional_variance(five_percent_off(b).to_double(), kK);
  std::cout << "[stat] k = 1000, b = 2: exact Var(z_i | sum = 0) = " << exact << " (unconditioned "
            << discrete_laplace_variance(b) << ", b 5% off " << wrong << ")\n";
  EXPECT_NEAR(composition_variance(b.to_double(), kK), exact, 1e-9 * exact);
  const auto z = release_groups(27, b, kReleases, kK);
  // Per release: the mean of z_i^2 over its cells, z_1, and the sum of the
  // first half of the cells; releases are independent, so z-tests use their
  // empirical standard deviations.
  double m2 = 0, m2sq = 0, first = 0, firstsq = 0, half = 0, halfsq = 0;
  for (std::size_t r = 0; r < kReleases; ++r) {
    double sq = 0, h = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      const double v = double(z[r * kK + i]);
      sq += v * v;
      if (i < kK / 2) h += v;
    }
    sq /= kK;
    m2 += sq, m2sq += sq * sq;
    first += double(z[r * kK]), firstsq += double(z[r * kK]) * double(z[r * kK]);
    half += h, halfsq += h * h;
  }
  const double n = kReleases;
  auto zscore = [n](double sum, double sumsq, double target) {
    const double mean = sum / n, var = (sumsq - sum * sum / n) / (n - 1);
    return (mean - target) / std::sqrt(var / n);
  };
  const double z_var = zscore(m2, m2sq, exact), z_wrong = zscore(m2, m2sq, wrong);
  const double z_first = zscore(first, firstsq, 0), z_half = zscore(half, halfsq, 0);
  std::cout << "[stat] k = 1000: mean z_i^2 = " << m2 / n << ", z = " << z_var << " (vs b 5% off: " << z_wrong
            << "); mean z_1 z = " << z_first << ", mean of half-sum z = " << z_half << "\n";
  EXPECT_LT(std::fabs(z_var), kZCritical);
  EXPECT_GT(std::fabs(z_wrong), kZCritical);
  EXPECT_LT(std::fabs(z_first), kZCritical);
  EXPECT_LT(std::fabs(z_half), kZCritical);
}

}  // namespace
}  // namespace invariant_dp
