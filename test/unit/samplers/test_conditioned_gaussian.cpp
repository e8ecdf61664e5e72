// Unit tests of the discrete Gaussian conditioned on zero group sums
// (samplers/conditioned_gaussian.hpp): exact zero sums, groups of one and
// two cells, reproducibility, interrupts, argument errors, the GMP overflow
// path of the centred 1-D sampler and the MPFR enclosure of the correction
// ratio rho_s(Z + f) / rho_s(Z) against a direct sum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_gaussian.hpp"
#include "samplers/klein_correction.hpp"

namespace invariant_dp {
namespace {

std::vector<std::int64_t> group_sums(const std::vector<std::int64_t>& z, const std::vector<std::uint32_t>& g,
                                     std::size_t n_groups) {
  std::vector<std::int64_t> s(n_groups, 0);
  for (std::size_t i = 0; i < z.size(); ++i) s[g[i]] += z[i];
  return s;
}

TEST(ConditionedGaussian, SumsAreZeroInEveryGroupOnManySeeds) {
  // Interleaved groups of sizes 1..40 plus an empty group number.
  std::vector<std::uint32_t> g;
  for (std::uint32_t size = 1; size <= 40; ++size)
    for (std::uint32_t j = 0; j < size; ++j) g.push_back(size);
  std::vector<std::uint32_t> shuffled(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) shuffled[(i * 7919) % g.size()] = g[i];
  for (Rational s2 : {Rational{60, 1}, Rational{400, 1}, Rational{3, 2}, Rational{1, 3}}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      auto rng = make_seeded_random_source(seed);
      std::vector<std::int64_t> z(shuffled.size(), 12345);
      sample_gaussian_with_zero_group_sums(*rng, s2, {shuffled.data(), z.size(), 41}, z.data(), {});
      for (auto s : group_sums(z, shuffled, 41)) EXPECT_EQ(s, 0);
      for (std::size_t i = 0; i < z.size(); ++i)
        if (shuffled[i] == 1) {
          EXPECT_EQ(z[i], 0);
        }
      double sq = 0;
      for (auto v : z) sq += double(v) * double(v);
      EXPECT_GT(sq, 0.0);
    }
  }
}

TEST(ConditionedGaussian, PairsAreOppositeAndSpread) {
  auto rng = make_seeded_random_source(3);
  std::vector<std::uint32_t> g{0, 0};
  double sq = 0;
  const int n = 4000;
  for (int r = 0; r < n; ++r) {
    std::vector<std::int64_t> z(2);
    sample_gaussian_with_zero_group_sums(*rng, Rational{60, 1}, {g.data(), 2, 1}, z.data(), {});
    EXPECT_EQ(z[0], -z[1]);
    sq += double(z[0]) * z[0];
  }
  // m has variance ~ sigma2 / 2 = 30.
  EXPECT_NEAR(sq / n, 30.0, 3.0);
}

TEST(ConditionedGaussian, EmptyAndSingletonGroups) {
  auto rng = make_seeded_random_source(4);
  sample_gaussian_with_zero_group_sums(*rng, Rational{2, 1}, {nullptr, 0, 0}, nullptr, {});
  std::vector<std::uint32_t> g{0, 1, 2};
  std::vector<std::int64_t> z(3, 7);
  sample_gaussian_with_zero_group_sums(*rng, Rational{2, 1}, {g.data(), 3, 5}, z.data(), {});
  EXPECT_EQ(z, (std::vector<std::int64_t>{0, 0, 0}));
}

TEST(ConditionedGaussian, SparseGroupNumbers) {
  auto rng = make_seeded_random_source(8);
  std::vector<std::uint32_t> g{4000000000u, 7, 4000000000u, 7, 7};
  std::vector<std::int64_t> z(5);
  sample_gaussian_with_zero_group_sums(*rng, Rational{10, 1}, {g.data(), 5, 4000000001u}, z.data(), {});
  EXPECT_EQ(z[0] + z[2], 0);
  EXPECT_EQ(z[1] + z[3] + z[4], 0);
}

TEST(ConditionedGaussian, ReproducibleWithASeed) {
  std::vector<std::uint32_t> g(2000);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint32_t>(i % 7);
  auto a = make_seeded_random_source(99), b = make_seeded_random_source(99), c = make_seeded_random_source(100);
  std::vector<std::int64_t> za(g.size()), zb(g.size()), zc(g.size());
  sample_gaussian_with_zero_group_sums(*a, Rational{60, 1}, {g.data(), g.size(), 7}, za.data(), {});
  sample_gaussian_with_zero_group_sums(*b, Rational{60, 1}, {g.data(), g.size(), 7}, zb.data(), {});
  sample_gaussian_with_zero_group_sums(*c, Rational{60, 1}, {g.data(), g.size(), 7}, zc.data(), {});
  EXPECT_EQ(za, zb);
  EXPECT_NE(za, zc);
}

TEST(ConditionedGaussian, BadArgumentsThrow) {
  auto rng = make_seeded_random_source(1);
  std::vector<std::uint32_t> g{0, 1};
  std::vector<std::int64_t> z(2);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{0, 1}, {g.data(), 2, 2}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{1, 0}, {g.data(), 2, 2}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{1, 1}, {g.data(), 2, 1}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{1, 1}, {nullptr, 2, 2}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{1ull << 41, 1}, {g.data(), 2, 2}, z.data(), {}),
               OutOfRange);
  // A tiny variance over a huge group: neither method is feasible (checked
  // before any draw).
  std::vector<std::uint32_t> big(1000000, 0);
  std::vector<std::int64_t> zb(big.size());
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{1, 10}, {big.data(), big.size(), 1}, zb.data(), {}),
               OutOfRange);
}

TEST(ConditionedGaussian, InterruptsStopTheRelease) {
  auto rng = make_seeded_random_source(2);
  std::vector<std::uint32_t> g(100000, 0);
  std::vector<std::int64_t> z(g.size());
  int calls = 0;
  Interrupts stop([](void* c) { return ++*static_cast<int*>(c) > 3; }, &calls);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{60, 1}, {g.data(), g.size(), 1}, z.data(), stop),
               Interrupted);
  Interrupts now([](void*) { return true; }, nullptr);
  EXPECT_THROW(sample_gaussian_with_zero_group_sums(*rng, Rational{60, 1}, {g.data(), g.size(), 1}, z.data(), now),
               Interrupted);
}

TEST(ConditionedGaussian, LargeGroupHasTheRightSpread) {
  // Var z_i = sigma2 (1 - 1/k) for the continuous analogue; the discrete law
  // is within 1e-100 of it at sigma2 = 60.
  auto rng = make_seeded_random_source(11);
  const std::size_t k = 100000;
  std::vector<std::uint32_t> g(k, 0);
  std::vector<std::int64_t> z(k);
  sample_gaussian_with_zero_group_sums(*rng, Rational{60, 1}, {g.data(), k, 1}, z.data(), {});
  double s = 0, sq = 0;
  for (auto v : z) {
    s += double(v);
    sq += double(v) * v;
  }
  EXPECT_EQ(s, 0.0);
  // sd of the mean of z^2 ~ sqrt(2) 60 / sqrt(k) = 0.27: 5 sd.
  EXPECT_NEAR(sq / k, 60.0 * (1 - 1.0 / k), 1.4);
}

TEST(ConditionedGaussian, CentredSamplerMeanOnBothPaths) {
  // c = 7/3: fast 128-bit path (s2 = 5) and GMP path (s2 = 5 with 2^62-scaled
  // fraction parts, which overflows 128 bits in the exponent).
  for (bool wide : {false, true}) {
    auto rng = make_seeded_random_source(wide ? 21 : 20);
    const Uint128 scale = wide ? (static_cast<Uint128>(1) << 62) + 1 : 1;
    double s = 0, sq = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const double x = double(sample_discrete_gaussian_centred(*rng, 5 * scale, scale, 7, 3));
      s += x;
      sq += x * x;
    }
    const double mean = s / n, var = sq / n - mean * mean;
    // sd of the mean sqrt(5/n) = 0.016: 5 sd; variance within 5 sd (~0.25).
    EXPECT_NEAR(mean, 7.0 / 3.0, 0.08) << wide;
    EXPECT_NEAR(var, 5.0, 0.26) << wide;
  }
}

double ratio_direct(double s2, double f) {
  double num = 0, den = 0;
  for (int n = -200; n <= 200; ++n) {
    num += std::exp(-(n + f) * (n + f) / (2 * s2));
    den += std::exp(-double(n) * n / (2 * s2));
  }
  return num / den;
}

TEST(ConditionedGaussian, ShiftRatioEnclosureMatchesDirectSum) {
  struct Case {
    std::uint64_t sn, sd, F, Q;
  };
  for (Case c : {Case{1, 10, 1, 2}, Case{3, 10, 1, 3}, Case{3, 10, 2, 3}, Case{1, 2, 3, 7}, Case{2, 1, 1, 2},
                 Case{7, 5, 4, 9}, Case{1, 20, 1, 4}}) {
    const Interval r = gaussian_shift_ratio_bounds(200, c.sn, c.sd, c.F, c.Q);
    const double expect = ratio_direct(double(c.sn) / c.sd, double(c.F) / c.Q);
    EXPECT_LE(to_double(r, End::lower), expect * (1 + 1e-12)) << c.sn << "/" << c.sd << " " << c.F << "/" << c.Q;
    EXPECT_GE(to_double(r, End::upper), expect * (1 - 1e-12));
    EXPECT_LT(to_double(sub(r, Interval(200, r.lower(), r.lower())), End::upper), 1e-50);
  }
}

}  // namespace
}  // namespace invariant_dp
