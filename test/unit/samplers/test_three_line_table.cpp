// Deterministic tests of the exact sampler of 3 x n and n x 3 tables with
// both margins (samplers/three_line_table.hpp): every draw keeps the
// margins in both orientations, pinned tables get zero noise, draws are
// reproducible and exact at large scales, bad arguments and sizes past the
// limits are refused before anything is written, and interrupts stop a
// draw. Its law is tested in test/stat/samplers/stat_three_line_table.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/three_line_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

TEST(ThreeLineTable, MarginsVanishInBothOrientationsOnManySeeds) {
  std::vector<LatticeTable> tables{table(3, 23),     table(9, 3, 69),  table(3, 2, 96),
                                   table(3, 3, 102), table(3, 1, 111), table(3, 400, 114)};
  std::swap(tables[0].cells[5], tables[5].cells[333]);
  const std::size_t n = total_cells(tables);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    auto rng = make_seeded_random_source(seed);
    std::vector<std::int64_t> z(n, 99);
    sample_laplace_on_three_line_tables(*rng, Rational{seed + 1, 4}, tables, n, z.data(), {});
    EXPECT_GT(expect_zero_margins(tables, z), 0);
    for (std::size_t k = 111; k < 114; ++k) EXPECT_EQ(z[k], 0) << "pinned cell " << k;
  }
}

TEST(ThreeLineTable, ReproducibleAndLargeScalesStayExact) {
  const std::vector<LatticeTable> tables{table(3, 50)};
  std::vector<std::int64_t> a(150), b(150);
  auto r1 = make_seeded_random_source(9), r2 = make_seeded_random_source(9);
  sample_laplace_on_three_line_tables(*r1, Rational{1000000, 7}, tables, 150, a.data(), {});
  sample_laplace_on_three_line_tables(*r2, Rational{1000000, 7}, tables, 150, b.data(), {});
  EXPECT_EQ(a, b);
  EXPECT_GT(expect_zero_margins(tables, a), 10000);
}

TEST(ThreeLineTable, BadArgumentsThrow) {
  auto rng = make_seeded_random_source(1);
  std::vector<std::int64_t> z(40, 7);
  EXPECT_THROW(sample_laplace_on_three_line_tables(*rng, Rational{0, 1}, {table(3, 4)}, 12, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_on_three_line_tables(*rng, Rational{2, 1}, {table(4, 4)}, 16, z.data(), {}),
               InvalidArgument);
  EXPECT_THROW(sample_laplace_on_three_line_tables(*rng, Rational{2, 1}, {table(3, 4)}, 11, z.data(), {}),
               InvalidArgument);
  // n h ~ 2^52: refused before any cell is written.
  EXPECT_THROW(
      sample_laplace_on_three_line_tables(*rng, Rational{std::uint64_t{1} << 52, 1}, {table(3, 4)}, 12, z.data(), {}),
      OutOfRange);
  for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(z[k], 7);
}

TEST(ThreeLineTable, InterruptsStopTheDraw) {
  auto rng = make_seeded_random_source(2);
  std::vector<std::int64_t> z(300000);
  EXPECT_THROW(sample_laplace_on_three_line_tables(*rng, Rational{2, 1}, {table(3, 5)}, 15, z.data(),
                                                   Interrupts(always, nullptr)),
               Interrupted);
  int inner = 3;
  EXPECT_THROW(sample_laplace_on_three_line_tables(*rng, Rational{4, 1}, {table(3, 100000)}, 300000, z.data(),
                                                   Interrupts(after_count, &inner)),
               Interrupted);
}

}  // namespace
}  // namespace invariant_dp
