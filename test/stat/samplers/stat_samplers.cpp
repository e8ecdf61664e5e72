// Statistical tests of the samplers against their exact laws, with fixed
// seeds (so each run is deterministic) and thresholds taken from the math:
//  * chi-square goodness of fit: reject when the statistic exceeds the
//    critical value at p = 1e-6 for the actual degrees of freedom (bins - 1,
//    no fitted parameters). Bins are single integers around the mode for as
//    long as the bin and the remaining tail both expect >= 5 draws; each tail
//    beyond is pooled into one bin (so every bin expects >= 5).
//  * moment z-tests: |z| < 4.89, the two-sided normal quantile at p = 1e-6,
//    with the exact standard error from the law's 4th moment.
//  * Kolmogorov-Smirnov for the continuous samplers: sqrt(N) D < 2.694, from
//    the Dvoretzky-Kiefer-Wolfowitz-Massart bound P(sqrt(N) D > x) <= 2e^-2x^2,
//    which is 1e-6 at that x for every N.
// So a correct sampler fails a given assertion for a fresh seed with
// probability about 1e-6 (chi-square and z by their large-N approximations,
// at most 1e-6 for KS). Draw counts (10^6 per law) make the tests sensitive:
// a 2-3% error in a scale or variance gives a chi-square noncentrality of
// 400-2500 against critical values of 30-200, and each law's test is also
// run against slightly wrong laws (WrongLaw checks) to show it does fail.
// Checked by mutation when written: flipping Algorithm 1's parity, dropping
// an exp(-1) factor, Bernoulli(gamma/(k+1)), U on {0..t}, keeping the
// (minus, 0) outcome, ceil for floor in Y, a missing 2 in the Gaussian's
// acceptance exponent, modulo bias, and a 1-2% scale error in Box-Muller or
// Laplace inversion each fail at least one test here. (Changing t in
// Algorithm 3 is invisible, as it should be: the law does not depend on t.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <vector>

#include "chi_square.hpp"
#include "random_source.hpp"
#include "samplers/bernoulli_exp.hpp"
#include "samplers/continuous.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

using chi_square_test::ChiSquare;
using chi_square_test::chi2_critical;
using chi_square_test::gamma_q;
using chi_square_test::kAlpha;
constexpr double kZSampler = 4.8916;   // two-sided normal quantile at 1e-6
constexpr double kKsCritical = 2.6941; // sqrt(ln(2/1e-6) / 2)
constexpr int kDraws = 1000000;

// ---- chi-square distribution -------------------------------------------

// Regularized upper incomplete gamma Q(a, x): series below a + 1, Lentz's
// continued fraction above (Numerical Recipes 6.2).
double chi2_sf(double x, int df) { return gamma_q(df / 2.0, x / 2.0); }


ChiSquare chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  double statistic = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double diff = observed[i] - expected[i];
    statistic += diff * diff / expected[i];
  }
  const int df = static_cast<int>(observed.size()) - 1;
  return {statistic, df, chi2_critical(df, kAlpha)};
}

// report_with_p() with the p-value too.
void report_with_p(const std::string& what, const ChiSquare& r) {
  std::cout << "[stat] " << what << ": chi2 = " << r.statistic << ", df = " << r.df
            << ", critical(p=1e-6) = " << r.critical << ", p = " << chi2_sf(r.statistic, r.df) << "\n";
}

// For even df, Q(df/2, x/2) = e^(-x/2) sum_{j < df/2} (x/2)^j / j! exactly.
double chi2_sf_even_df(double x, int df) {
  double term = 1, sum = 0;
  for (int j = 0; j < df / 2; ++j) {
    sum += term;
    term *= (x / 2) / (j + 1);
  }
  return std::exp(-x / 2) * sum;
}

TEST(StatHarness, ChiSquareTailMatchesClosedForms) {
  for (double x : {0.5, 3.0, 10.0, 27.631, 60.0, 150.0, 200.0}) {
    const double df1 = std::erfc(std::sqrt(x / 2));
    EXPECT_NEAR(chi2_sf(x, 1), df1, 1e-9 * df1 + 1e-300) << x;
    for (int df : {2, 4, 30, 100}) {
      const double exact = chi2_sf_even_df(x, df);
      EXPECT_NEAR(chi2_sf(x, df), exact, 1e-9 * exact + 1e-300) << x << " " << df;
    }
  }
  EXPECT_NEAR(chi2_critical(2, 1e-6), 2 * std::log(1e6), 1e-9);
  EXPECT_NEAR(chi2_critical(1, 1e-6), 23.928127, 1e-5);    // erfc(sqrt(x/2)) = 1e-6
  EXPECT_NEAR(chi2_critical(100, 1e-6), 182.126777, 1e-5);  // from the even-df sum
}

// ---- integer laws ---------------------------------------------------------

using Pmf = std::function<double(std::int64_t)>;
using Counts = std::map<std::int64_t, std::int64_t>;

// Chi-square of counts on Z against pmf; the law's mass beyond +-far must be
// negligible (< 1e-15) and its mode must be 0.
ChiSquare chi_square_integer(const Counts& counts, const Pmf& pmf, std::int64_t far, double n) {
  std::map<std::int64_t, double> p;
  for (std::int64_t x = -far; x <= far; ++x) p[x] = pmf(x);
  auto tail_above = [&](std::int64_t x) {
    double s = 0;
    for (auto it = p.upper_bound(x); it != p.end(); ++it) s += it->second;
    return s;
  };
  auto tail_below = [&](std::int64_t x) {
    double s = 0;
    for (auto it = p.begin(); it != p.end() && it->first < x; ++it) s += it->second;
    return s;
  };
  std::int64_t hi = 0, lo = 0;
  while (hi < far && n * p[hi + 1] >= 5 && n * tail_above(hi + 1) >= 5) ++hi;
  while (lo > -far && n * p[lo - 1] >= 5 && n * tail_below(lo - 1) >= 5) --lo;
  std::vector<double> observed(hi - lo + 3, 0.0), expected(hi - lo + 3, 0.0);
  expected.front() = n * tail_below(lo);
  expected.back() = n * tail_above(hi);
  for (std::int64_t x = lo; x <= hi; ++x) expected[x - lo + 1] = n * p[x];
  for (const auto& [x, c] : counts) observed[x < lo ? 0 : x > hi ? observed.size() - 1 : x - lo + 1] += c;
  return chi_square(observed, expected);
}

struct Moments {
  double m2, m4;
};

Moments law_moments(const Pmf& pmf, std::int64_t far) {
  Moments m{0, 0};
  for (std::int64_t x = -far; x <= far; ++x) {
    const double x2 = double(x) * double(x);
    m.m2 += x2 * pmf(x);
    m.m4 += x2 * x2 * pmf(x);
  }
  return m;
}

// z-tests of the sample mean (law mean 0) and of the sample second moment.
void expect_moments(const std::string& what, const Counts& counts, const Moments& law, double n) {
  double sum = 0, sum_sq = 0;
  for (const auto& [x, c] : counts) {
    sum += double(x) * c;
    sum_sq += double(x) * double(x) * c;
  }
  const double z_mean = (sum / n) / std::sqrt(law.m2 / n);
  const double z_var = (sum_sq / n - law.m2) / std::sqrt((law.m4 - law.m2 * law.m2) / n);
  std::cout << "[stat] " << what << ": variance " << sum_sq / n << " vs " << law.m2 << ", z_mean = " << z_mean
            << ", z_var = " << z_var << " (|z| < " << kZSampler << ")\n";
  EXPECT_LT(std::fabs(z_mean), kZSampler) << what;
  EXPECT_LT(std::fabs(z_var), kZSampler) << what;
}

Pmf discrete_laplace_pmf(double scale) {
  const double a = std::exp(-1.0 / scale);
  return [a](std::int64_t x) { return (1 - a) / (1 + a) * std::pow(a, double(std::llabs(x))); };
}

Pmf discrete_gaussian_pmf(double sigma2, std::int64_t far) {
  double z = 0;
  for (std::int64_t x = -far; x <= far; ++x) z += std::exp(-double(x) * x / (2 * sigma2));
  return [sigma2, z](std::int64_t x) { return std::exp(-double(x) * x / (2 * sigma2)) / z; };
}

template <class Draw>
Counts histogram(Draw draw, int n) {
  Counts counts;
  for (int i = 0; i < n; ++i) ++counts[draw()];
  return counts;
}

struct LaplaceCase {
  Rational scale;
  std::uint64_t seed;
};

std::ostream& operator<<(std::ostream& os, const LaplaceCase& c) {
  return os << "scale " << c.scale.num << "/" << c.scale.den << ", seed " << c.seed;
}

class StatDiscreteLaplace : public ::testing::TestWithParam<LaplaceCase> {};

TEST_P(StatDiscreteLaplace, FitsExactLawAndVariance) {
  const auto [scale, seed] = GetParam();
  const double b = scale.to_double();
  const std::int64_t far = static_cast<std::int64_t>(40 * b) + 40;  // mass beyond < e^-40
  auto rng = make_seeded_random_source(seed);
  const Counts counts = histogram([&] { return sample_discrete_laplace(*rng, scale); }, kDraws);
  const std::string name = "discrete laplace scale " + std::to_string(scale.num) + "/" + std::to_string(scale.den);

  const ChiSquare fit = chi_square_integer(counts, discrete_laplace_pmf(b), far, kDraws);
  report_with_p(name, fit);
  EXPECT_LT(fit.statistic, fit.critical);

  const Moments law = law_moments(discrete_laplace_pmf(b), far);
  EXPECT_NEAR(discrete_laplace_variance(scale), law.m2, 1e-9 * law.m2);
  expect_moments(name, counts, law, kDraws);

  // WrongLaw: the same draws must be rejected against a scale 3% off.
  for (double wrong : {b * 0.97, b * 1.03}) {
    const ChiSquare bad = chi_square_integer(counts, discrete_laplace_pmf(wrong), far, kDraws);
    report_with_p(name + " vs wrong scale " + std::to_string(wrong), bad);
    EXPECT_GT(bad.statistic, bad.critical);
  }
}

INSTANTIATE_TEST_SUITE_P(Scales, StatDiscreteLaplace,
                         ::testing::Values(LaplaceCase{{1, 2}, 101}, LaplaceCase{{1, 1}, 102},
                                           LaplaceCase{{4, 1}, 103}, LaplaceCase{{20, 3}, 104}),
                         [](const auto& info) {
                           return "scale_" + std::to_string(info.param.scale.num) + "_" +
                                  std::to_string(info.param.scale.den);
                         });

struct GaussianCase {
  Rational sigma2;
  std::uint64_t seed;
};

std::ostream& operator<<(std::ostream& os, const GaussianCase& c) {
  return os << "sigma2 " << c.sigma2.num << "/" << c.sigma2.den << ", seed " << c.seed;
}

class StatDiscreteGaussian : public ::testing::TestWithParam<GaussianCase> {};

TEST_P(StatDiscreteGaussian, FitsExactLawAndVariance) {
  const auto [sigma2, seed] = GetParam();
  const double s = sigma2.to_double();
  const std::int64_t far = static_cast<std::int64_t>(12 * std::sqrt(s)) + 12;  // mass beyond < e^-72
  auto rng = make_seeded_random_source(seed);
  const Counts counts = histogram([&] { return sample_discrete_gaussian(*rng, sigma2); }, kDraws);
  const std::string name = "discrete gaussian sigma2 " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den);

  const ChiSquare fit = chi_square_integer(counts, discrete_gaussian_pmf(s, far), far, kDraws);
  report_with_p(name, fit);
  EXPECT_LT(fit.statistic, fit.critical);

  const Moments law = law_moments(discrete_gaussian_pmf(s, far), far);
  EXPECT_NEAR(discrete_gaussian_variance(sigma2), law.m2, 1e-9 * law.m2);
  expect_moments(name, counts, law, kDraws);

  // WrongLaw: rejected against a variance 4% off (the continuous sigma2
  // itself differs from the discrete variance by 4% at sigma2 = 1/2).
  for (double wrong : {s * 0.96, s * 1.04}) {
    const ChiSquare bad = chi_square_integer(counts, discrete_gaussian_pmf(wrong, far), far, kDraws);
    report_with_p(name + " vs wrong variance " + std::to_string(wrong), bad);
    EXPECT_GT(bad.statistic, bad.critical);
  }
}

INSTANTIATE_TEST_SUITE_P(Variances, StatDiscreteGaussian,
                         ::testing::Values(GaussianCase{{1, 2}, 201}, GaussianCase{{1, 1}, 202},
                                           GaussianCase{{10, 1}, 203}, GaussianCase{{1000, 7}, 204}),
                         [](const auto& info) {
                           return "sigma2_" + std::to_string(info.param.sigma2.num) + "_" +
                                  std::to_string(info.param.sigma2.den);
                         });

// ---- Bernoulli(exp(-gamma)) ----------------------------------------------

ChiSquare bernoulli_fit(std::int64_t trues, double n, double p) {
  return chi_square({double(trues), n - double(trues)}, {n * p, n * (1 - p)});
}

struct BernoulliCase {
  std::uint64_t num, den;
  std::uint64_t seed;
};

std::ostream& operator<<(std::ostream& os, const BernoulliCase& c) {
  return os << "gamma " << c.num << "/" << c.den << ", seed " << c.seed;
}

class StatBernoulliExp : public ::testing::TestWithParam<BernoulliCase> {};

TEST_P(StatBernoulliExp, FitsExpMinusGamma) {
  const auto [num, den, seed] = GetParam();
  const double gamma = double(num) / double(den);
  auto rng = make_seeded_random_source(seed);
  std::int64_t trues = 0;
  for (int i = 0; i < kDraws; ++i) trues += sample_bernoulli_exp_neg(*rng, Rational{num, den});
  const std::string name = "bernoulli exp(-" + std::to_string(num) + "/" + std::to_string(den) + ")";
  const ChiSquare fit = bernoulli_fit(trues, kDraws, std::exp(-gamma));
  report_with_p(name, fit);
  EXPECT_LT(fit.statistic, fit.critical);
  // WrongLaw: a gamma off by 0.1 (a wrong integer/fraction split is off by
  // far more) must be rejected.
  for (double wrong : {gamma - 0.1, gamma + 0.1}) {
    const ChiSquare bad = bernoulli_fit(trues, kDraws, std::exp(-wrong));
    EXPECT_GT(bad.statistic, bad.critical) << name << " vs " << wrong;
  }
}

INSTANTIATE_TEST_SUITE_P(Gammas, StatBernoulliExp,
                         ::testing::Values(BernoulliCase{1, 3, 301}, BernoulliCase{1, 1, 302},
                                           BernoulliCase{3, 2, 303}, BernoulliCase{7, 2, 304},
                                           BernoulliCase{5, 1, 305},
                                           BernoulliCase{123456789, 1000000007, 306},
                                           BernoulliCase{(1ull << 63) + 12345, 1ull << 62, 307}),
                         [](const auto& info) {
                           return "gamma_" + std::to_string(info.param.num) + "_" + std::to_string(info.param.den);
                         });

TEST(StatBernoulliExpWide, FitsWithDenominatorAbove64Bits) {
  // gamma = 5e20 / 3e20 = 5/3, left unreduced so both parts exceed 2^64.
  const Uint128 e20 = static_cast<Uint128>(10000000000ull) * 10000000000ull;
  const Uint128 num = 5 * e20, den = 3 * e20;
  auto rng = make_seeded_random_source(308);
  std::int64_t trues = 0;
  for (int i = 0; i < kDraws; ++i) trues += sample_bernoulli_exp_neg_wide(*rng, num, den);
  const ChiSquare fit = bernoulli_fit(trues, kDraws, std::exp(-5.0 / 3.0));
  report_with_p("bernoulli exp(-5e20/3e20)", fit);
  EXPECT_LT(fit.statistic, fit.critical);
}

// ---- uniform_below --------------------------------------------------------

// Draws uniform_below(n) and buckets x * buckets / n; every bucket has the
// same number of values (n divisible by buckets), so each expects n/buckets.
ChiSquare uniform_fit(std::uint64_t n, unsigned buckets, std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  std::vector<double> observed(buckets, 0.0), expected(buckets, double(kDraws) / buckets);
  const std::uint64_t width = n / buckets;
  for (int i = 0; i < kDraws; ++i) observed[rng->uniform_below(n) / width] += 1;
  return chi_square(observed, expected);
}

TEST(StatUniformBelow, SmallBound) {
  const ChiSquare fit = uniform_fit(10, 10, 401);
  report_with_p("uniform_below(10)", fit);
  EXPECT_LT(fit.statistic, fit.critical);
}

TEST(StatUniformBelow, NoModuloBiasForLargeBound) {
  // n = 3 * 2^62: x mod n would put half the mass in the first third.
  const ChiSquare fit = uniform_fit(3ull << 62, 3, 402);
  report_with_p("uniform_below(3*2^62) in thirds", fit);
  EXPECT_LT(fit.statistic, fit.critical);
}

TEST(StatUniformBelow, LargestBound) {
  // n = 2^64 - 1 = 15 * 1229782938247303441: 15 equal buckets.
  const ChiSquare fit = uniform_fit(~0ull, 15, 403);
  report_with_p("uniform_below(2^64-1) in 15ths", fit);
  EXPECT_LT(fit.statistic, fit.critical);
}

// ---- continuous samplers ------------------------------------------------

template <class Draw, class Cdf>
void expect_continuous_law(const std::string& what, Draw draw, Cdf cdf, double var, double m4) {
  std::vector<double> xs(kDraws);
  double sum = 0, sum_sq = 0;
  for (double& x : xs) {
    x = draw();
    sum += x;
    sum_sq += x * x;
  }
  const double n = kDraws;
  const double z_mean = (sum / n) / std::sqrt(var / n);
  const double z_var = (sum_sq / n - var) / std::sqrt((m4 - var * var) / n);
  std::sort(xs.begin(), xs.end());
  double d = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double f = cdf(xs[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  std::cout << "[stat] " << what << ": z_mean = " << z_mean << ", z_var = " << z_var
            << ", sqrt(N) D = " << std::sqrt(n) * d << " (< " << kKsCritical << ")\n";
  EXPECT_LT(std::fabs(z_mean), kZSampler) << what;
  EXPECT_LT(std::fabs(z_var), kZSampler) << what;
  EXPECT_LT(std::sqrt(n) * d, kKsCritical) << what;
}

TEST(StatContinuous, GaussianMomentsAndKs) {
  constexpr double kSigma = 3.0;
  auto rng = make_seeded_random_source(501);
  expect_continuous_law(
      "gaussian sigma 3", [&] { return sample_gaussian(*rng, kSigma); },
      [](double x) { return 0.5 * std::erfc(-x / (kSigma * std::sqrt(2.0))); }, kSigma * kSigma,
      3 * std::pow(kSigma, 4));
}

// Both values of each Box-Muller pair: the law of every draw (the
// sequence, odd and even positions mixed), and the independence of a
// pair's two values: x y has mean 0 and variance sigma^4, x^2 y^2 has mean
// sigma^4 and variance 9 sigma^8 - sigma^8 when they are independent
// normals. Power: the same statistics on pairs that share their radius and
// a nearby angle (dependent, each still normal) are far past the bound.
double pair_z(const std::vector<double>& xs, double sigma, bool squares) {
  double sum = 0;
  const std::size_t pairs = xs.size() / 2;
  const double s4 = std::pow(sigma, 4);
  for (std::size_t p = 0; p < pairs; ++p) {
    const double product = xs[2 * p] * xs[2 * p + 1];
    sum += squares ? product * product - s4 : product;
  }
  const double sd = squares ? std::sqrt(8.0) * s4 : s4;
  return (sum / double(pairs)) / (sd / std::sqrt(double(pairs)));
}

TEST(StatContinuous, GaussianPairsMomentsKsAndIndependence) {
  constexpr double kSigma = 2.5;
  auto rng = make_seeded_random_source(503);
  std::vector<double> xs(kDraws);
  sample_gaussians(*rng, kSigma, xs.data(), xs.size(), Interrupts());
  std::size_t next = 0;
  expect_continuous_law(
      "gaussian pairs sigma 2.5", [&] { return xs[next++]; },
      [](double x) { return 0.5 * std::erfc(-x / (kSigma * std::sqrt(2.0))); }, kSigma * kSigma,
      3 * std::pow(kSigma, 4));
  const double z_product = pair_z(xs, kSigma, false), z_squares = pair_z(xs, kSigma, true);
  std::cout << "[stat] gaussian pairs: z(x y) = " << z_product << ", z(x^2 y^2) = " << z_squares << "\n";
  EXPECT_LT(std::fabs(z_product), kZSampler);
  EXPECT_LT(std::fabs(z_squares), kZSampler);
  std::vector<double> dependent(kDraws);
  for (std::size_t i = 0; i < dependent.size(); i += 2) {
    const double radius = kSigma * std::sqrt(-2.0 * std::log(rng->uniform_open01()));
    const double angle = 6.283185307179586 * rng->uniform_open01();
    dependent[i] = radius * std::cos(angle);
    dependent[i + 1] = radius * std::cos(angle + 0.3);
  }
  EXPECT_GT(std::fabs(pair_z(dependent, kSigma, false)), 10 * kZSampler);
  // A shared radius alone (independent angles) shows in the squares.
  for (std::size_t i = 0; i < dependent.size(); i += 2) {
    const double radius = kSigma * std::sqrt(-2.0 * std::log(rng->uniform_open01()));
    dependent[i] = radius * std::cos(6.283185307179586 * rng->uniform_open01());
    dependent[i + 1] = radius * std::cos(6.283185307179586 * rng->uniform_open01());
  }
  EXPECT_GT(std::fabs(pair_z(dependent, kSigma, true)), 10 * kZSampler);
}

TEST(StatContinuous, LaplaceMomentsAndKs) {
  constexpr double kB = 2.0;
  auto rng = make_seeded_random_source(502);
  expect_continuous_law(
      "laplace b 2", [&] { return sample_laplace(*rng, kB); },
      [](double x) { return x < 0 ? 0.5 * std::exp(x / kB) : 1 - 0.5 * std::exp(-x / kB); }, 2 * kB * kB,
      24 * std::pow(kB, 4));
}

}  // namespace
}  // namespace invariant_dp
