// Deterministic tests of the row-rejection sampler of small tables
// (samplers/row_rejection_table.hpp): every draw keeps the margins, pinned
// tables get zero noise, tables above the cost limit are refused before
// drawing, and interrupts stop a draw. Its law is tested in
// test/stat/samplers/stat_row_rejection_table.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/row_rejection_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

TEST(RowRejectionTable, MarginsVanishAndPinnedTablesAreZero) {
  auto rng = make_seeded_random_source(5);
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{2, 2}, {2, 5}, {5, 2}, {3, 4}, {4, 3}, {4, 4}, {5, 5}}) {
    RowRejectionSampler sampler(Rational{1, 1}, r, c);
    std::vector<std::int64_t> z(r * c);
    std::int64_t largest = 0;
    for (int d = 0; d < 20; ++d) {
      sampler.sample(*rng, z.data(), {});
      largest = std::max(largest, expect_zero_margins({table(r, c)}, z));
    }
    EXPECT_GT(largest, 0) << r << " x " << c;
  }
  std::vector<std::int64_t> z(6, 3);
  sample_table_laplace_by_row_rejection(*rng, Rational{2, 1}, 1, 6, z.data(), {});
  for (auto v : z) EXPECT_EQ(v, 0);
}

TEST(RowRejectionTable, RefusesTablesAboveItsCostBeforeDrawing) {
  EXPECT_GT(row_rejection_expected_cells(Rational{4, 1}, 10, 10), kMaxRowRejectionCells);
  EXPECT_THROW(RowRejectionSampler(Rational{4, 1}, 10, 10), OutOfRange);
  EXPECT_LT(row_rejection_expected_cells(Rational{1, 1}, 5, 5), 1e4);
  EXPECT_THROW(RowRejectionSampler(Rational{0, 1}, 3, 3), InvalidArgument);
  RowRejectionSampler ok(Rational{1, 1}, 3, 3);
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(ok.sample(*rng, nullptr, {}), InvalidArgument);
}

TEST(RowRejectionTable, InterruptsStopTheDraw) {
  auto rng = make_seeded_random_source(2);
  RowRejectionSampler sampler(Rational{2, 1}, 5, 5);
  std::vector<std::int64_t> z(25);
  EXPECT_THROW(sampler.sample(*rng, z.data(), Interrupts(always, nullptr)), Interrupted);
}

}  // namespace
}  // namespace invariant_dp
