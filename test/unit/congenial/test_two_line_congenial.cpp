// Deterministic tests of the exact congenial draws on 2 x n and n x 2
// tables (congenial/two_line_congenial.hpp) and of the bounded pieces they
// rest on (congenial/group_rejection.hpp's sample_bounded_group, the upper
// bound of congenial/tilted_laplace.hpp): every draw keeps both margins and
// y >= 0, tables with a zero line total or a line of one level are left at
// x without randomness, a table that exhausts its budget is returned with
// its cells untouched, bad arguments are refused, and interrupts stop a
// draw. The law is tested in test/stat/congenial/stat_two_line_congenial.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "congenial/group_rejection.hpp"
#include "congenial/tilted_laplace.hpp"
#include "congenial/two_line_congenial.hpp"
#include "errors.hpp"
#include "random_source.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

// The congenial paper's 2 x 23 sex-by-age counts (Gong and Meng 2020,
// Table 1).
const std::vector<std::int64_t> kSexByAge = {8, 6, 3, 6, 4, 4, 4, 8, 5, 7, 7,  6, 1, 5, 4, 4,  9, 6, 2, 8, 8, 8, 7,
                                             3, 4, 5, 8, 6, 4, 5, 5, 5, 6, 10, 7, 3, 2, 5, 11, 6, 4, 7, 4, 5, 3, 8};

void expect_margins_and_non_negative(const std::vector<LatticeTable>& tables, const std::vector<std::int64_t>& x,
                                     const std::vector<std::int64_t>& y) {
  std::vector<std::int64_t> z(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    z[i] = y[i] - x[i];
    EXPECT_GE(y[i], 0) << i;
  }
  expect_zero_margins(tables, z);
}

TEST(TwoLineCongenial, KeepsMarginsAndNonNegativityOnManySeeds) {
  // The paper's table as 2 x 23, its transpose as 23 x 2, and a table with
  // zero cells; a 1 x 3 among them is pinned.
  std::vector<std::int64_t> x = kSexByAge;
  for (std::size_t j = 0; j < 23; ++j) x.insert(x.end(), {kSexByAge[j], kSexByAge[23 + j]});
  x.insert(x.end(), {0, 0, 3, 1, 0, 2, 0, 5, 0, 0, 7, 0});  // 2 x 6
  x.insert(x.end(), {4, 0, 9});                             // 1 x 3
  const std::vector<LatticeTable> tables{table(2, 23), table(23, 2, 46), table(2, 6, 92), table(1, 3, 104)};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto rng = make_seeded_random_source(seed);
    std::vector<std::int64_t> y(x.size(), -1);
    std::uint64_t proposals = 0;
    const auto failed = sample_congenial_on_two_line_tables(x.data(), tables, x.size(), Rational{8 + seed, 1}, 4096,
                                                            *rng, {}, y.data(), proposals);
    EXPECT_TRUE(failed.empty());
    expect_margins_and_non_negative(tables, x, y);
    for (std::size_t k = 104; k < 107; ++k) EXPECT_EQ(y[k], x[k]);
    EXPECT_NE(y, x);
    EXPECT_GE(proposals, 3u);
  }
}

// Every lower or every upper bound zero leaves z = 0 as the only point.
class NoWords final : public RandomSource {
 public:
  std::uint64_t next_u64() override {
    ADD_FAILURE() << "drew a word";
    return 0;
  }
};

TEST(TwoLineCongenial, ZeroLineTotalsNeedNoRandomness) {
  const std::vector<std::int64_t> x{0, 0, 0, 3, 1, 4, 2, 0, 5, 0, 1, 0};
  const std::vector<LatticeTable> tables{table(2, 3), table(3, 2, 6)};  // first line 0; second column 0
  std::vector<std::int64_t> y(x.size(), -1);
  std::uint64_t proposals = 0;
  NoWords none;
  EXPECT_TRUE(
      sample_congenial_on_two_line_tables(x.data(), tables, x.size(), Rational{4, 1}, 10, none, {}, y.data(), proposals)
          .empty());
  EXPECT_EQ(y, x);
}

TEST(TwoLineCongenial, AnExhaustedBudgetReturnsTheTableUntouched) {
  // 200,000 columns: the estimated acceptance makes 50 / acceptance
  // proposals exceed 2^24 cell draws, so the budget is the minimum, 1.
  const std::size_t n = 200000;
  std::vector<std::int64_t> x(2 * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::int64_t(i % 7);
  std::vector<std::int64_t> y(x.size(), -1);
  std::uint64_t proposals = 0;
  auto rng = make_seeded_random_source(3);
  const auto failed = sample_congenial_on_two_line_tables(x.data(), {table(2, n)}, x.size(), Rational{8, 1}, 1, *rng,
                                                          {}, y.data(), proposals);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(proposals, 1u);
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](std::int64_t v) { return v == -1; }));
}

TEST(TwoLineCongenial, BadArgumentsThrow) {
  auto rng = make_seeded_random_source(1);
  const std::vector<std::int64_t> x{1, 2, 3, 4, 5, 6};
  std::vector<std::int64_t> y(6);
  std::uint64_t p = 0;
  EXPECT_THROW(
      sample_congenial_on_two_line_tables(x.data(), {table(2, 3)}, 6, Rational{0, 1}, 10, *rng, {}, y.data(), p),
      InvalidArgument);
  EXPECT_THROW(
      sample_congenial_on_two_line_tables(x.data(), {table(3, 3)}, 9, Rational{2, 1}, 10, *rng, {}, y.data(), p),
      InvalidArgument);
  EXPECT_THROW(
      sample_congenial_on_two_line_tables(nullptr, {table(2, 3)}, 6, Rational{2, 1}, 10, *rng, {}, y.data(), p),
      InvalidArgument);
  EXPECT_THROW(
      sample_congenial_on_two_line_tables(x.data(), {table(2, 3)}, 6, Rational{2, 1}, 10, *rng, {}, nullptr, p),
      InvalidArgument);
  const std::vector<std::int64_t> negative{1, -2, 3, 4, 5, 6};
  EXPECT_THROW(
      sample_congenial_on_two_line_tables(negative.data(), {table(2, 3)}, 6, Rational{2, 1}, 10, *rng, {}, y.data(), p),
      InvalidData);
}

TEST(TwoLineCongenial, InterruptsStopTheDraw) {
  auto rng = make_seeded_random_source(2);
  std::vector<std::int64_t> y(kSexByAge.size());
  std::uint64_t p = 0;
  EXPECT_THROW(sample_congenial_on_two_line_tables(kSexByAge.data(), {table(2, 23)}, 46, Rational{8, 1}, 10, *rng,
                                                   Interrupts(always, nullptr), y.data(), p),
               Interrupted);
}

TEST(BoundedGroup, DrawsStayWithinTheirBoundsAndSumToZero) {
  auto rng = make_seeded_random_source(4);
  const std::vector<std::int64_t> lower{0, 3, 1, 0, 7, 2}, upper{2, 0, 5, 1, 0, 9};
  std::vector<std::int64_t> z;
  std::uint64_t proposals = 0;
  for (int d = 0; d < 200; ++d) {
    ASSERT_TRUE(sample_bounded_group(lower, upper, Rational{3, 1}, 1000, *rng, {}, z, proposals));
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      EXPECT_GE(z[i], -lower[i]);
      EXPECT_LE(z[i], upper[i]);
      sum += z[i];
    }
    EXPECT_EQ(sum, 0);
  }
  EXPECT_THROW(sample_bounded_group({1, 2}, {1}, Rational{3, 1}, 10, *rng, {}, z, proposals), InvalidArgument);
  EXPECT_THROW(sample_bounded_group({1, -2}, {1, 1}, Rational{3, 1}, 10, *rng, {}, z, proposals), InvalidArgument);
}

TEST(BoundedGroup, UpperBoundedMomentsMatchDirectSums) {
  const TiltedRates r = tilted_rates(Rational{5, 2}, -12000, 16);
  for (std::int64_t x : {0, 1, 3, 50})
    for (std::int64_t u : {0, 1, 4, 30, 3000}) {
      double w = 0, m1 = 0, m2 = 0;
      for (std::int64_t z = -x; z <= u; ++z) {
        const double p = std::exp(z >= 0 ? -r.up.to_double() * z : r.down.to_double() * z);
        w += p;
        m1 += z * p;
        m2 += double(z) * z * p;
      }
      const CellMoments m = truncated_moments(r, x, u);
      EXPECT_NEAR(m.mean, m1 / w, 1e-9) << x << " " << u;
      EXPECT_NEAR(m.variance, m2 / w - (m1 / w) * (m1 / w), 1e-7) << x << " " << u;
      EXPECT_NEAR(m.mass_at_zero, 1 / w, 1e-12) << x << " " << u;
      auto rng = make_seeded_random_source(std::uint64_t(x * 100 + u));
      for (int d = 0; d < 200; ++d) {
        const std::int64_t z = sample_truncated_tilted(*rng, r, x, u);
        EXPECT_GE(z, -x);
        EXPECT_LE(z, u);
      }
    }
}

}  // namespace
}  // namespace invariant_dp
