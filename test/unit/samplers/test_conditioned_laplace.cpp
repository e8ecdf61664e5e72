// Deterministic tests of the zero-group-sum discrete Laplace sampler
// (samplers/conditioned_laplace.hpp), of its group-total sampler and of the
// lazy Bernoulli comparison. Its law is tested in
// test/stat/samplers/stat_conditioned_laplace.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <numeric>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/composition_total.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/interval.hpp"
#include "samplers/lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

const Rational kCensus{125, 12};  // 2 / 0.192
const Rational kTwo{2, 1};
const Rational kQuarter{1, 4};

// Plays back the given words, then fails the test if more are drawn.
class Scripted final : public RandomSource {
 public:
  explicit Scripted(std::deque<std::uint64_t> words) : words_(std::move(words)) {}
  std::uint64_t next_u64() override {
    if (words_.empty()) {
      ADD_FAILURE() << "drew more words than scripted";
      return 0;
    }
    const std::uint64_t w = words_.front();
    words_.pop_front();
    return w;
  }
  std::size_t left() const { return words_.size(); }

 private:
  std::deque<std::uint64_t> words_;
};

// p = num/den as a correctly rounded enclosure.
ProbabilityBounds ratio(unsigned long num, unsigned long den) {
  return [num, den](mpfr_prec_t prec) { return div(exact(prec, std::uint64_t{num}), den); };
}

std::vector<std::uint32_t> partition(const std::vector<std::uint32_t>& sizes) {
  std::vector<std::uint32_t> groups;
  for (std::uint32_t g = 0; g < sizes.size(); ++g) groups.insert(groups.end(), sizes[g], g);
  return groups;
}

std::vector<std::int64_t> release(RandomSource& rng, Rational b, const std::vector<std::uint32_t>& groups,
                                  std::size_t n_groups, const Interrupts& interrupts = {}) {
  std::vector<std::int64_t> z(groups.size(), 12345);
  sample_laplace_with_zero_group_sums(rng, b, {groups.data(), groups.size(), n_groups}, z.data(), interrupts);
  return z;
}

TEST(LazyBernoulli, DyadicAndTrivialProbabilitiesUseOneWord) {
  for (std::uint64_t w : {std::uint64_t{0}, std::uint64_t{1} << 63, ~std::uint64_t{0}, (std::uint64_t{1} << 63) - 1}) {
    Scripted s({w, w, w});
    EXPECT_FALSE(sample_bernoulli_lazy(s, ratio(0, 1)));
    EXPECT_TRUE(sample_bernoulli_lazy(s, ratio(1, 1)));
    EXPECT_EQ(sample_bernoulli_lazy(s, ratio(1, 2)), w < (std::uint64_t{1} << 63));
    EXPECT_EQ(s.left(), 0u);
  }
}

TEST(LazyBernoulli, ThirdIsDecidedByLaterDigits) {
  // 1/3 = 0.010101...b: U agrees with it on the first 128 digits, and the
  // third word decides.
  const std::uint64_t third = 0x5555555555555555ull;
  Scripted below({third, third, third - 1});
  EXPECT_TRUE(sample_bernoulli_lazy(below, ratio(1, 3)));
  Scripted above({third, third, third + 1});
  EXPECT_FALSE(sample_bernoulli_lazy(above, ratio(1, 3)));
  Scripted first({third + 1});
  EXPECT_FALSE(sample_bernoulli_lazy(first, ratio(1, 3)));
  EXPECT_EQ(below.left() + above.left() + first.left(), 0u);
}

TEST(LazyBernoulli, LooseEnclosuresAreRefined) {
  // An enclosure of 1/3 of width 2^(20 - prec): the first one cannot decide.
  int calls = 0;
  const ProbabilityBounds loose = [&calls](mpfr_prec_t prec) {
    ++calls;
    const Interval eps = scale_2exp(exact(64, std::uint64_t{1}), 20 - prec);
    return add(ratio(1, 3)(prec), hull(neg(eps), eps));
  };
  const std::uint64_t third = 0x5555555555555555ull;
  Scripted s({third, 0});
  EXPECT_TRUE(sample_bernoulli_lazy(s, loose, 64));
  EXPECT_GE(calls, 2);
}

TEST(LazyBernoulli, RationalFrequencies) {
  // 200000 draws: 6 standard deviations of the frequency are < 0.0067.
  auto rng = make_seeded_random_source(7);
  for (auto [num, den] : {std::pair<unsigned long, unsigned long>{1, 3}, {2, 7}, {999, 1000}}) {
    int hits = 0;
    for (int i = 0; i < 200000; ++i) hits += sample_bernoulli_lazy(*rng, ratio(num, den));
    EXPECT_NEAR(hits / 200000.0, double(num) / den, 0.0067) << num << "/" << den;
  }
}

TEST(ConditionedLaplace, SumsAreZeroInEveryGroupOnManySeeds) {
  const std::vector<std::uint32_t> sizes = {1, 2, 3, 5, 8, 13, 2, 1, 40, 100, 7, 2, 2};
  // Cells interleaved across groups, so group members are not contiguous.
  std::vector<std::uint32_t> groups = partition(sizes);
  std::reverse(groups.begin(), groups.end());
  std::rotate(groups.begin(), groups.begin() + 17, groups.end());
  for (Rational b : {kCensus, kTwo, kQuarter, Rational{1000, 1}}) {
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      auto rng = make_seeded_random_source(seed);
      const auto z = release(*rng, b, groups, sizes.size());
      std::vector<std::int64_t> sums(sizes.size(), 0);
      for (std::size_t i = 0; i < z.size(); ++i) sums[groups[i]] += z[i];
      for (std::size_t g = 0; g < sizes.size(); ++g) ASSERT_EQ(sums[g], 0) << g << " seed " << seed;
      for (std::size_t i = 0; i < z.size(); ++i)
        if (sizes[groups[i]] == 1) {
          ASSERT_EQ(z[i], 0);
        }
    }
  }
}

TEST(ConditionedLaplace, PairsAreOppositeAndNotAlwaysZero) {
  auto rng = make_seeded_random_source(3);
  const auto groups = partition(std::vector<std::uint32_t>(500, 2));
  const auto z = release(*rng, kTwo, groups, 500);
  int nonzero = 0;
  for (std::size_t i = 0; i < z.size(); i += 2) {
    EXPECT_EQ(z[i], -z[i + 1]);
    nonzero += z[i] != 0;
  }
  // P(m = 0) = tanh(1/2) ~ 0.462 at b = 2 (m has parameter exp(-2/b) = e^-1):
  // 269 nonzero expected, standard deviation 11.
  EXPECT_GT(nonzero, 200);
}

TEST(ConditionedLaplace, EmptyAndSingletonGroupsNeedNoRandomness) {
  Scripted none({});
  const std::vector<std::uint32_t> groups = {0, 2, 3};
  std::vector<std::int64_t> z(3, 7);
  sample_laplace_with_zero_group_sums(none, kTwo, {groups.data(), 3, 5}, z.data(), {});
  EXPECT_EQ(z, (std::vector<std::int64_t>{0, 0, 0}));
  sample_laplace_with_zero_group_sums(none, kTwo, {nullptr, 0, 0}, nullptr, {});
}

TEST(ConditionedLaplace, SparseGroupNumbersNeedNoTableOfGroups) {
  // 2^31 groups, 5 cells: sorted instead of counted.
  auto rng = make_seeded_random_source(8);
  const std::vector<std::uint32_t> groups = {2000000000u, 7, 2000000000u, 7, 2000000000u};
  const auto z = release(*rng, kTwo, groups, std::size_t{1} << 31);
  EXPECT_EQ(z[0] + z[2] + z[4], 0);
  EXPECT_EQ(z[1], -z[3]);
}

TEST(ConditionedLaplace, ReproducibleWithASeed) {
  const auto groups = partition({3, 1000, 1, 20, 20, 20, 20, 20, 20, 20, 20, 20});
  auto a = make_seeded_random_source(99), b = make_seeded_random_source(99), c = make_seeded_random_source(100);
  const auto za = release(*a, kCensus, groups, 12);
  EXPECT_EQ(za, release(*b, kCensus, groups, 12));
  EXPECT_NE(za, release(*c, kCensus, groups, 12));
}

TEST(ConditionedLaplace, CellsInGroupOrderDrawAsAnyOrderDoes) {
  // Groups that never decrease along the cells are walked in place (no
  // permutation); the same groups with their cells spread out are sorted
  // first. Each group's cells keep their relative order in both, so one
  // seed gives each cell the same noise.
  const auto in_order = partition({3, 1, 4, 1, 5, 9, 2, 6});
  std::vector<std::size_t> position(in_order.size());
  std::iota(position.begin(), position.end(), std::size_t{0});
  std::rotate(position.begin(), position.begin() + 6, position.end());  // position[i]: where cell i goes
  std::vector<std::uint32_t> spread(in_order.size());
  for (std::size_t i = 0; i < in_order.size(); ++i) spread[position[i]] = in_order[i];
  ASSERT_FALSE(std::is_sorted(spread.begin(), spread.end()));
  auto a = make_seeded_random_source(41), b = make_seeded_random_source(41);
  const auto z_in_order = release(*a, kCensus, in_order, 8);
  const auto z_spread = release(*b, kCensus, spread, 8);
  // The rotation only keeps relative order within a group if the group does
  // not wrap around: check, so the comparison below is the one intended.
  for (std::size_t i = 1; i < in_order.size(); ++i) {
    if (in_order[i] == in_order[i - 1]) {
      ASSERT_LT(position[i - 1], position[i]);
    }
  }
  for (std::size_t i = 0; i < in_order.size(); ++i) EXPECT_EQ(z_in_order[i], z_spread[position[i]]) << i;
}

TEST(ConditionedLaplace, BadArgumentsThrow) {
  auto rng = make_seeded_random_source(1);
  const std::vector<std::uint32_t> groups = {0, 0, 1};
  std::vector<std::int64_t> z(3);
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, Rational{0, 1}, {groups.data(), 3, 2}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, Rational{1, 0}, {groups.data(), 3, 2}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, kTwo, {groups.data(), 3, 1}, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, kTwo, {nullptr, 3, 2}, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, kTwo, {groups.data(), 3, 2}, nullptr, {}),
               InvalidArgument);
  // k * b ~ 2^53: the group total would not be representable safely.
  EXPECT_THROW(sample_laplace_with_zero_group_sums(*rng, Rational{std::uint64_t{1} << 52, 1}, {groups.data(), 3, 2},
                                                   z.data(), {}),
               OutOfRange);
}

TEST(ConditionedLaplace, HugeScalesStayExactlyZeroSum) {
  // k * b ~ 2^40: bars go through the hash set instead of the bitmap.
  auto rng = make_seeded_random_source(5);
  const auto groups = partition({50, 2});
  const auto z = release(*rng, Rational{std::uint64_t{1} << 34, 1}, groups, 2);
  EXPECT_EQ(std::accumulate(z.begin(), z.begin() + 50, std::int64_t{0}), 0);
  EXPECT_EQ(z[50], -z[51]);
  std::int64_t largest = 0;
  for (auto v : z) largest = std::max(largest, std::abs(v));
  EXPECT_GT(largest, std::int64_t{1} << 28);
}

bool always(void*) { return true; }
bool after_count(void* context) { return --*static_cast<int*>(context) < 0; }

TEST(ConditionedLaplace, InterruptsStopTheRelease) {
  auto rng = make_seeded_random_source(2);
  const auto many = partition(std::vector<std::uint32_t>(100, 3));
  EXPECT_THROW(release(*rng, kTwo, many, 100, Interrupts(always, nullptr)), Interrupted);
  int budget = 50;  // polled once per group at least: stops mid-release
  EXPECT_THROW(release(*rng, kTwo, many, 100, Interrupts(after_count, &budget)), Interrupted);
  // One large group: polled inside the composition loops.
  const auto big = partition({200000});
  int inner = 3;
  EXPECT_THROW(release(*rng, kCensus, big, 1, Interrupts(after_count, &inner)), Interrupted);
}

TEST(UniformComposition, PartsSumToTheTotal) {
  auto rng = make_seeded_random_source(4);
  for (std::uint64_t total : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{17}, std::uint64_t{100000},
                              std::uint64_t{1} << 50}) {
    for (std::size_t k : {1, 2, 3, 64, 1000}) {
      std::vector<std::uint64_t> parts(k, 99);
      sample_uniform_composition(*rng, total, parts, {});
      std::uint64_t sum = 0;
      for (auto p : parts) sum += p;
      EXPECT_EQ(sum, total) << total << " " << k;
    }
  }
  std::vector<std::uint64_t> none;
  EXPECT_THROW(sample_uniform_composition(*rng, 3, none, {}), InvalidArgument);
}

TEST(CompositionTotal, ModeIsTheArgmaxOfTheWeights) {
  for (Rational b : {kCensus, kTwo, kQuarter, Rational{1000, 3}}) {
    for (std::uint64_t k : {2, 3, 50, 1000, 100000}) {
      const CompositionTotalSampler s(b, k, 0);
      // w(n+1)/w(n) = ((n+k)/(n+1))^2 a^2 crosses 1 between m-1 and m.
      const double a = std::exp(-1.0 / b.to_double());
      const double m = double(s.mode());
      if (m > 0) {
        EXPECT_GT((m - 1 + k) * a, m * (1 - 1e-12)) << k;
      }
      EXPECT_LT((m + k) * a, (m + 1) * (1 + 1e-12)) << k;
    }
  }
  EXPECT_THROW(CompositionTotalSampler(kTwo, 1, 0), InvalidArgument);
}

TEST(CompositionTotal, SqueezeDoesNotChangeTheDraws) {
  // The squeeze only reads decisions 1[U < p] off U's first word, so with
  // and without it the same seed gives the same totals (unless U falls within
  // 2^-52 of some p, which has probability < 1e-10 here).
  for (Rational b : {kCensus, kTwo, kQuarter}) {
    for (std::uint64_t k : {2, 7, 300}) {
      const CompositionTotalSampler plain(b, k, 0), squeezed(b, k, 256);
      auto r1 = make_seeded_random_source(k), r2 = make_seeded_random_source(k);
      for (int i = 0; i < 100; ++i) ASSERT_EQ(plain.sample(*r1, {}), squeezed.sample(*r2, {})) << k << " " << i;
    }
  }
}

}  // namespace
}  // namespace invariant_dp
