// Deterministic tests of the exact sampler of 2 x n and n x 2 tables with
// both margins (samplers/two_line_table.hpp): every draw keeps the margins
// in both orientations, pinned tables get zero noise, the sampler is the
// reduction it claims (its first line is the zero-sum group draw at half
// the parameter, word for word), counts are noised in place with the bigint
// check, bad arguments and sizes past the limits are refused before
// anything is written, and interrupts stop a draw. Its law is tested in
// test/stat/samplers/stat_two_line_table.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_gaussian.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/two_line_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

TEST(TwoLineTable, HalfIsExact) {
  EXPECT_EQ(half_of(Rational{4, 3}).num, 2u);
  EXPECT_EQ(half_of(Rational{4, 3}).den, 3u);
  EXPECT_EQ(half_of(Rational{5, 3}).num, 5u);
  EXPECT_EQ(half_of(Rational{5, 3}).den, 6u);
  EXPECT_THROW(half_of(Rational{5, std::uint64_t{1} << 63}), OutOfRange);
}

TEST(TwoLineTable, MarginsVanishInBothOrientationsOnManySeeds) {
  // 2 x n and n x 2 tables of several lengths among interleaved cells, a
  // pinned 1 x 4 and a 2 x 1 among them.
  std::vector<LatticeTable> tables{table(2, 23),    table(7, 2, 46), table(2, 2, 60),
                                   table(1, 4, 64), table(2, 1, 68), table(2, 500, 70)};
  std::swap(tables[0].cells[3], tables[5].cells[100]);  // cells need not be consecutive
  const std::size_t n = total_cells(tables);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    auto rng = make_seeded_random_source(seed);
    std::vector<std::int64_t> z(n, 99);
    sample_laplace_on_two_line_tables(*rng, Rational{seed, 3}, tables, n, z.data(), {});
    EXPECT_GT(expect_zero_margins(tables, z), 0);
    for (std::size_t k = 64; k < 70; ++k) EXPECT_EQ(z[k], 0) << "pinned cell " << k;
    std::vector<std::int64_t> g(n, 99);
    sample_gaussian_on_two_line_tables(*rng, Rational{seed, 2}, tables, n, g.data(), {});
    EXPECT_GT(expect_zero_margins(tables, g), 0);
    for (std::size_t k = 64; k < 70; ++k) EXPECT_EQ(g[k], 0) << "pinned cell " << k;
  }
}

// The reduction, word for word: the first line of a 2 x n table is the
// zero-sum group draw at b/2 (s2/2 for the Gaussian) from the same stream,
// and the second line its negative.
TEST(TwoLineTable, FirstLineIsTheZeroSumGroupAtHalfTheParameter) {
  const std::size_t n = 41;
  const std::vector<LatticeTable> rows{table(2, n)}, columns{table(n, 2)};
  std::vector<std::int64_t> by_rows(2 * n), by_columns(2 * n), group(n);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto a = make_seeded_random_source(seed), b = make_seeded_random_source(seed), c = make_seeded_random_source(seed);
    sample_laplace_on_two_line_tables(*a, Rational{7, 2}, rows, 2 * n, by_rows.data(), {});
    sample_laplace_on_two_line_tables(*b, Rational{7, 2}, columns, 2 * n, by_columns.data(), {});
    ZeroSumGroupSampler(Rational{7, 4}, n, 0).sample(*c, group.data(), {});
    for (std::size_t t = 0; t < n; ++t) {
      EXPECT_EQ(by_rows[t], group[t]);
      EXPECT_EQ(by_rows[n + t], -group[t]);
      EXPECT_EQ(by_columns[2 * t], group[t]);
      EXPECT_EQ(by_columns[2 * t + 1], -group[t]);
    }
  }
  std::vector<std::uint32_t> one_group(n, 0);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto a = make_seeded_random_source(seed), c = make_seeded_random_source(seed);
    sample_gaussian_on_two_line_tables(*a, Rational{9, 1}, rows, 2 * n, by_rows.data(), {});
    sample_gaussian_with_zero_group_sums(*c, Rational{9, 2}, {one_group.data(), n, 1}, group.data(), {});
    for (std::size_t t = 0; t < n; ++t) {
      EXPECT_EQ(by_rows[t], group[t]);
      EXPECT_EQ(by_rows[n + t], -group[t]);
    }
  }
}

TEST(TwoLineTable, NoisesCountsInPlaceWithTheBigintCheck) {
  const std::vector<LatticeTable> tables{table(2, 30)};
  std::vector<std::int64_t> counts(60, 1000), noisy(60);
  auto a = make_seeded_random_source(3), b = make_seeded_random_source(3);
  std::vector<std::int64_t> z(60);
  sample_laplace_on_two_line_tables(*a, Rational{4, 1}, tables, 60, z.data(), {});
  sample_laplace_on_two_line_tables(*b, Rational{4, 1}, tables, 60, NoiseOutput(counts.data(), counts.data()), {});
  for (std::size_t i = 0; i < 60; ++i) EXPECT_EQ(counts[i], 1000 + z[i]);
  std::vector<std::int64_t> full(60, INT64_MAX);
  EXPECT_THROW(
      sample_laplace_on_two_line_tables(*a, Rational{4, 1}, tables, 60, NoiseOutput(noisy.data(), full.data()), {}),
      OutOfRange);
}

TEST(TwoLineTable, BadArgumentsThrow) {
  auto rng = make_seeded_random_source(1);
  std::vector<std::int64_t> z(40);
  const std::vector<LatticeTable> ok{table(2, 5)};
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{0, 1}, ok, 10, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_gaussian_on_two_line_tables(*rng, Rational{1, 0}, ok, 10, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, {table(3, 3)}, 9, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, ok, 9, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, {table(2, 5), table(2, 5, 5)}, 20, z.data(), {}),
               InvalidArgument);  // cells 5..9 in two tables
  LatticeTable short_listed = table(2, 5);
  short_listed.cells.pop_back();
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, {short_listed}, 10, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, ok, 10, nullptr, {}), InvalidArgument);
  // n b/2 ~ 2^52: refused before any cell is written.
  std::vector<std::int64_t> untouched(10, 7);
  EXPECT_THROW(
      sample_laplace_on_two_line_tables(*rng, Rational{std::uint64_t{1} << 52, 1}, ok, 10, untouched.data(), {}),
      OutOfRange);
  for (auto v : untouched) EXPECT_EQ(v, 7);
}

TEST(TwoLineTable, InterruptsStopTheDraw) {
  auto rng = make_seeded_random_source(2);
  std::vector<LatticeTable> many;
  for (std::size_t t = 0; t < 50; ++t) many.push_back(table(2, 3, 6 * t));
  std::vector<std::int64_t> z(300);
  EXPECT_THROW(
      sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, many, 300, z.data(), Interrupts(always, nullptr)),
      Interrupted);
  int budget = 20;
  EXPECT_THROW(
      sample_laplace_on_two_line_tables(*rng, Rational{2, 1}, many, 300, z.data(), Interrupts(after_count, &budget)),
      Interrupted);
  const std::vector<LatticeTable> big{table(2, 300000)};
  std::vector<std::int64_t> zz(600000);
  int inner = 3;
  EXPECT_THROW(
      sample_laplace_on_two_line_tables(*rng, Rational{4, 1}, big, 600000, zz.data(), Interrupts(after_count, &inner)),
      Interrupted);
}

}  // namespace
}  // namespace invariant_dp
