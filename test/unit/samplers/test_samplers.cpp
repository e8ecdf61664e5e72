// Deterministic tests of the samplers: argument checks, range limits,
// degenerate parameters, reproducibility under a seed, and the variance
// functions against independent sums. Their laws are tested statistically
// in test/stat/samplers/stat_samplers.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "errors.hpp"
#include "random_source.hpp"
#include "samplers/bernoulli_exp.hpp"
#include "samplers/continuous.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// A source that fails the test if any sampler draws from it.
class NoRandomness final : public RandomSource {
 public:
  std::uint64_t next_u64() override {
    ADD_FAILURE() << "a degenerate draw consumed randomness";
    return 0;
  }
};

TEST(SamplersBernoulliExp, GammaZeroIsAlwaysTrueWithoutRandomness) {
  NoRandomness none;
  EXPECT_TRUE(sample_bernoulli_exp_neg(none, Rational{0, 1}));
  EXPECT_TRUE(sample_bernoulli_exp_neg(none, Rational{0, kMax}));
  auto rng = make_seeded_random_source(11);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(sample_bernoulli_exp_neg(*rng, Rational{0, 7}));
}

TEST(SamplersBernoulliExp, LargeGammaIsFalse) {
  // P(true) = exp(-64) ~ 1.6e-28 per draw.
  auto rng = make_seeded_random_source(12);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(sample_bernoulli_exp_neg(*rng, Rational{64, 1}));
    EXPECT_FALSE(sample_bernoulli_exp_neg(*rng, Rational{kMax, 1}));
    EXPECT_FALSE(sample_bernoulli_exp_neg(*rng, Rational{kMax, kMax / 100}));
  }
}

TEST(SamplersBernoulliExp, TinyGammaIsAlmostAlwaysTrue) {
  // P(false) = 1 - exp(-2^-40) ~ 9e-13 per draw.
  auto rng = make_seeded_random_source(13);
  for (int i = 0; i < 1000; ++i)
    EXPECT_TRUE(sample_bernoulli_exp_neg(*rng, Rational{1, std::uint64_t{1} << 40}));
}

TEST(SamplersBernoulliExp, ZeroDenominatorIsRejected) {
  auto rng = make_seeded_random_source(14);
  EXPECT_THROW(sample_bernoulli_exp_neg(*rng, Rational{1, 0}), InvalidArgument);
  EXPECT_THROW(sample_bernoulli_exp_neg_wide(*rng, 1, 0), InvalidArgument);
}

TEST(SamplersBernoulliExp, WideMatchesNarrowForTheSameGamma) {
  // Same seed, same gamma in 64-bit form: identical coin sequence.
  auto a = make_seeded_random_source(15);
  auto b = make_seeded_random_source(15);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(sample_bernoulli_exp_neg(*a, Rational{5, 3}), sample_bernoulli_exp_neg_wide(*b, 5, 3));
}

TEST(SamplersBernoulliExp, WideHandlesDenominatorsAbove64Bits) {
  auto rng = make_seeded_random_source(16);
  const Uint128 big = static_cast<Uint128>(1) << 100;
  NoRandomness none;
  EXPECT_TRUE(sample_bernoulli_exp_neg_wide(none, 0, big));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(sample_bernoulli_exp_neg_wide(*rng, big * 100, big));
    EXPECT_TRUE(sample_bernoulli_exp_neg_wide(*rng, 1, big));  // P(false) ~ 8e-31
  }
}

TEST(SamplersDiscreteLaplace, RejectsNonPositiveAndHugeScales) {
  auto rng = make_seeded_random_source(21);
  EXPECT_THROW(sample_discrete_laplace(*rng, Rational{0, 1}), InvalidArgument);
  EXPECT_THROW(sample_discrete_laplace(*rng, Rational{1, 0}), InvalidArgument);
  EXPECT_THROW(sample_discrete_laplace(*rng, Rational{kMax, 1}), OutOfRange);
  EXPECT_THROW(sample_discrete_laplace(*rng, Rational{(std::uint64_t{1} << 57) + 1, 1}), OutOfRange);
  EXPECT_NO_THROW(sample_discrete_laplace(*rng, Rational{std::uint64_t{1} << 57, 1}));
  EXPECT_NO_THROW(sample_discrete_laplace(*rng, Rational{kMax, 1ull << 8}));
  EXPECT_THROW(discrete_laplace_variance(Rational{0, 1}), InvalidArgument);
}

TEST(SamplersDiscreteLaplace, TinyScaleIsZero) {
  // scale 1/64: P(X != 0) = 2a/(1+a), a = exp(-64): never in 1000 draws.
  auto rng = make_seeded_random_source(22);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sample_discrete_laplace(*rng, Rational{1, 64}), 0);
}

TEST(SamplersDiscreteLaplace, ReproducibleUnderASeedAndSymmetric) {
  auto a = make_seeded_random_source(23);
  auto b = make_seeded_random_source(23);
  int positive = 0, negative = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t x = sample_discrete_laplace(*a, Rational{20, 3});
    EXPECT_EQ(x, sample_discrete_laplace(*b, Rational{20, 3}));
    positive += x > 0;
    negative += x < 0;
  }
  // Each side has probability a/(1+a) = 0.4626; 2000 draws: sd 22, so both
  // sides fall in [800, 1050] except with probability ~1e-9.
  EXPECT_GT(positive, 800);
  EXPECT_GT(negative, 800);
  EXPECT_LT(positive, 1050);
  EXPECT_LT(negative, 1050);
}

TEST(SamplersDiscreteLaplace, VarianceClosedForm) {
  const double a = std::exp(-1.0);
  EXPECT_NEAR(discrete_laplace_variance(Rational{1, 1}), 2 * a / ((1 - a) * (1 - a)), 1e-14);
  // Large scale b: 2a/(1-a)^2 = 2b^2 - 1/6 + O(1/b^2).
  EXPECT_NEAR(discrete_laplace_variance(Rational{1000000, 1}), 2e12 - 1.0 / 6, 1e-2);
  // Equivalent fractions give the same variance.
  EXPECT_DOUBLE_EQ(discrete_laplace_variance(Rational{20, 3}), discrete_laplace_variance(Rational{40, 6}));
}

TEST(SamplersDiscreteGaussian, RejectsNonPositiveAndHugeVariances) {
  auto rng = make_seeded_random_source(31);
  EXPECT_THROW(sample_discrete_gaussian(*rng, Rational{0, 1}), InvalidArgument);
  EXPECT_THROW(sample_discrete_gaussian(*rng, Rational{1, 0}), InvalidArgument);
  EXPECT_THROW(sample_discrete_gaussian(*rng, Rational{kMax, 1}), OutOfRange);
  // (floor(sigma)+1)^2 * den <= 2^58 is the documented limit.
  EXPECT_THROW(sample_discrete_gaussian(*rng, Rational{std::uint64_t{1} << 60, 1 << 20}), OutOfRange);
  EXPECT_NO_THROW(sample_discrete_gaussian(*rng, Rational{std::uint64_t{1} << 56, 1 << 20}));
  // sigma2 = 2^58 - 2^30: t = 2^29 - 1, t^2 = 2^58 - 2^30 + 1 (allowed);
  // sigma2 = 2^58: t = 2^29 + 1 (refused).
  EXPECT_NO_THROW(sample_discrete_gaussian(*rng, Rational{(std::uint64_t{1} << 58) - (1ull << 30), 1}));
  EXPECT_THROW(sample_discrete_gaussian(*rng, Rational{std::uint64_t{1} << 58, 1}), OutOfRange);
  EXPECT_THROW(discrete_gaussian_variance(Rational{0, 1}), InvalidArgument);
}

TEST(SamplersDiscreteGaussian, TinyVarianceIsZero) {
  // sigma2 = 1/200: P(X != 0) ~ 2 exp(-100).
  auto rng = make_seeded_random_source(32);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sample_discrete_gaussian(*rng, Rational{1, 200}), 0);
}

TEST(SamplersDiscreteGaussian, ReproducibleUnderASeed) {
  auto a = make_seeded_random_source(33);
  auto b = make_seeded_random_source(33);
  for (int i = 0; i < 2000; ++i)
    EXPECT_EQ(sample_discrete_gaussian(*a, Rational{1000, 7}), sample_discrete_gaussian(*b, Rational{1000, 7}));
}

TEST(SamplersDiscreteGaussian, LargeVarianceStaysInRange) {
  // sigma ~ 3.7e5: the acceptance exponent uses 128-bit intermediates.
  auto rng = make_seeded_random_source(34);
  double sum_sq = 0;
  for (int i = 0; i < 2000; ++i) {
    const double x = static_cast<double>(sample_discrete_gaussian(*rng, Rational{std::uint64_t{1} << 37, 1}));
    sum_sq += x * x;
  }
  // Mean of x^2/sigma2 over 2000 draws: 1 +- 0.032 (sd); 0.8..1.2 is > 6 sd.
  EXPECT_NEAR(sum_sq / 2000 / std::ldexp(1.0, 37), 1.0, 0.2);
}

// Brute-force sum of the law, independent of the library's formulas.
double brute_force_dg_variance(double s) {
  double weighted = 0, total = 0;
  for (int x = -2000; x <= 2000; ++x) {
    const double w = std::exp(-double(x) * x / (2 * s));
    weighted += double(x) * x * w;
    total += w;
  }
  return weighted / total;
}

TEST(SamplersDiscreteGaussian, VarianceMatchesTheSeriesOnBothSidesOfTheCrossover) {
  for (double s : {0.01, 0.1, 0.5, 0.99, 1.0, 1.01, 2.0, 10.0, 1000.0 / 7, 5000.0}) {
    const Rational r{static_cast<std::uint64_t>(std::llround(s * 1000)), 1000};
    const double expected = brute_force_dg_variance(r.to_double());
    EXPECT_NEAR(discrete_gaussian_variance(r), expected, 1e-12 * std::max(1.0, expected)) << s;
  }
  // Below the continuous variance for small sigma2, equal to it for large.
  EXPECT_LT(discrete_gaussian_variance(Rational{1, 2}), 0.5 - 1e-3);
  EXPECT_DOUBLE_EQ(discrete_gaussian_variance(Rational{1000000, 1}), 1e6);
}

TEST(SamplersContinuous, RejectsBadScalesAndHandlesZero) {
  auto rng = make_seeded_random_source(41);
  EXPECT_THROW(sample_gaussian(*rng, -1.0), InvalidArgument);
  EXPECT_THROW(sample_gaussian(*rng, std::nan("")), InvalidArgument);
  EXPECT_THROW(sample_gaussian(*rng, HUGE_VAL), InvalidArgument);
  EXPECT_THROW(sample_laplace(*rng, -1.0), InvalidArgument);
  EXPECT_THROW(sample_laplace(*rng, std::nan("")), InvalidArgument);
  EXPECT_EQ(sample_gaussian(*rng, 0.0), 0.0);
  EXPECT_EQ(sample_laplace(*rng, 0.0), 0.0);
}

TEST(SamplersContinuous, ReproducibleAndFinite) {
  auto a = make_seeded_random_source(42);
  auto b = make_seeded_random_source(42);
  for (int i = 0; i < 10000; ++i) {
    const double g = sample_gaussian(*a, 3.0), l = sample_laplace(*a, 2.0);
    EXPECT_EQ(g, sample_gaussian(*b, 3.0));
    EXPECT_EQ(l, sample_laplace(*b, 2.0));
    // Tails are cut by the 2^-53 grid: |g| <= 3 * 8.58, |l| <= 2 * 36.05.
    EXPECT_LE(std::fabs(g), 3 * 8.58);
    EXPECT_LE(std::fabs(l), 2 * 36.05);
  }
}

}  // namespace
}  // namespace invariant_dp
