// Sums taking at most one cell from each line of a complete two-way
// integer_laplace table, by one pass over the lines' angles
// (accuracy/laplace_table_sparse_sum.hpp; DERIVATIONS.md beside it,
// section 15): against the enumerated laws of 3 x 3 tables, against the
// inversion where both are cheap, through the sums' entry point on short
// four-line tables the inversion refuses, and its refusals and polls.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "accuracy/laplace_table_sparse_sum.hpp"
#include "accuracy/laplace_table_sum.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "table_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

// P(|X| <= t) of an enumerated law.
double enumerated_coverage(const std::map<std::int64_t, double>& law, std::int64_t t) {
  double inside = 0;
  for (const auto& [x, p] : law)
    if (x >= -t && x <= t) inside += p;
  return inside;
}

struct SparseCase {
  const char* name;
  std::vector<std::int64_t> weights;  // row-major 3 x 3; the lines are the columns
  SparseTableSum sum;                 // the same sum, one cell per line
  std::int64_t step = 1;
};

// The five weightings the inversion's test enumerates, each one cell per
// column up to a constant (a column's (1, 1, 0) is its last cell's -1).
std::vector<SparseCase> three_by_three_cases() {
  return {
      {"two cells of a row", {1, 1, 0, 0, 0, 0, 0, 0, 0}, {3, 3, {{0, 1}, {0, 1}}}},
      {"a diagonal pair", {1, 0, 0, 0, 1, 0, 0, 0, 0}, {3, 3, {{0, 1}, {1, 1}}}},
      {"a 2 x 2 block", {1, 1, 0, 1, 1, 0, 0, 0, 0}, {3, 3, {{2, -1}, {2, -1}}}},
      {"mixed weights", {2, 0, 0, 0, 0, 1, 0, -1, 0}, {3, 3, {{0, 2}, {2, -1}, {1, 1}}}},
      {"the anti-diagonal, step 3", {0, 0, 3, 0, 3, 0, 3, 0, 0}, {3, 3, {{2, 1}, {1, 1}, {0, 1}}}, 3},
  };
}

// The quantile is the enumerated law's at every level, exact, and its
// certified coverage encloses the enumerated one (the first pass's errors
// are about 1e-4 of the mass, the second's 1e-12).
TEST(LaplaceTableSparseSum, MatchesEnumerationOnThreeByThree) {
  const Rational b{6, 5};
  for (const SparseCase& c : three_by_three_cases()) {
    const std::map<std::int64_t, double> law = table_laws::l1_sum_law_3x3(b.to_double(), c.weights, 34);
    for (const double level : {0.5, 0.9, 0.99}) {
      double work = 0;
      const Quantile q = sparse_sum_quantile(b, c.sum, level, Interrupts(), 1e9, work);
      const std::int64_t t = q.half_width * c.step;
      EXPECT_TRUE(q.exact) << c.name << " " << level;
      EXPECT_GE(enumerated_coverage(law, t), level) << c.name << " " << level;
      EXPECT_LT(enumerated_coverage(law, t - c.step), level) << c.name << " " << level;
      EXPECT_LE(q.coverage_lower, enumerated_coverage(law, t) + 1e-12) << c.name << " " << level;
      EXPECT_GE(q.narrower_upper, enumerated_coverage(law, t - c.step) - 1e-12) << c.name << " " << level;
      EXPECT_GT(work, 0);
    }
  }
}

// Power: the sum read at other positions is another law, which the
// enumeration tells apart (a pair of cells of one row and a diagonal pair
// share no quantile at 0.99 on this table).
TEST(LaplaceTableSparseSum, AnotherPositionIsAnotherLaw) {
  const Rational b{6, 5};
  const std::map<std::int64_t, double> row = table_laws::l1_sum_law_3x3(b.to_double(), {1, 1, 0, 0, 0, 0, 0, 0, 0}, 34);
  double work = 0;
  const Quantile diagonal = sparse_sum_quantile(b, {3, 3, {{0, 1}, {1, 1}}}, 0.99, Interrupts(), 1e9, work);
  const Quantile same_row = sparse_sum_quantile(b, {3, 3, {{0, 1}, {0, 1}}}, 0.99, Interrupts(), 1e9, work);
  EXPECT_GE(enumerated_coverage(row, same_row.half_width), 0.99);
  EXPECT_NE(diagonal.half_width, same_row.half_width);
}

// Where the inversion is cheap, both give one quantile: a diagonal pair and
// mixed weights on a 4 x 5 table, three cells in three rows and a stretch
// of a row on a 3 x 10 table.
TEST(LaplaceTableSparseSum, AgreesWithTheInversion) {
  struct Sum {
    std::size_t rows, cols;
    Rational b;
    std::vector<std::pair<std::size_t, std::int64_t>> cells;  // row-major index, weight
    SparseTableSum sparse;
  };
  const std::vector<Sum> sums = {
      {4, 5, {1, 1}, {{0, 1}, {5 + 1, 1}}, {4, 5, {{0, 1}, {1, 1}}}},
      {4, 5, {1, 1}, {{0, 2}, {15 + 3, -1}}, {4, 5, {{0, 2}, {3, -1}}}},
      {3, 10, {2, 1}, {{0, 1}, {10 + 4, 1}, {20 + 7, 1}}, {3, 10, {{0, 1}, {1, 1}, {2, 1}}}},
      {3, 10, {2, 1}, {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, {3, 10, {{0, 1}, {0, 1}, {0, 1}, {0, 1}}}},
  };
  for (const Sum& s : sums) {
    std::vector<std::int64_t> w(s.rows * s.cols, 0);
    for (const auto& [at, weight] : s.cells) w[at] = weight;
    for (const double level : {0.9, 0.99}) {
      if (s.rows == 4 && level == 0.99) continue;  // the inversion takes half a second a level there
      forget_kept_table_sums();
      const TableSumQuantile inverted =
          laplace_table_sum_quantile(s.b, {LaplaceTablePart{s.rows, s.cols, w}}, level, Interrupts(), 1e8);
      double work = 0;
      const Quantile direct = sparse_sum_quantile(s.b, s.sparse, level, Interrupts(), 1e9, work);
      EXPECT_EQ(inverted.step, 1);
      EXPECT_EQ(direct.half_width, inverted.quantile.half_width) << s.rows << " x " << s.cols << " " << level;
      EXPECT_TRUE(direct.exact && inverted.quantile.exact);
      EXPECT_NEAR(direct.coverage_lower, inverted.quantile.coverage_lower, 1e-3);
    }
  }
}

// Through the sums' entry point: pairs of cells of a short four-line table
// at a calibrated scale (4 x 4 at b = 3, epsilon 4/3), whose wide grid the
// inversion refuses, are exact within a margin's work. A pair of cells of one
// column is read along the rows (the table is square); a 2 x 2 block takes
// two cells of each line either way and is still refused.
TEST(LaplaceTableSparseSum, ShortFourLineTablesThroughTheSumsEntryPoint) {
  const auto pair = [](std::size_t x, std::size_t y) {
    std::vector<std::int64_t> w(16, 0);
    w[x] = w[y] = 1;
    return w;
  };
  std::int64_t diagonal = 0;
  for (const auto& w : {pair(0, 5), pair(0, 1), pair(0, 4)}) {
    forget_kept_table_sums();
    const TableSumQuantile q = laplace_table_sum_quantile({3, 1}, {LaplaceTablePart{4, 4, w}}, 0.9, Interrupts());
    EXPECT_TRUE(q.quantile.exact);
    EXPECT_EQ(q.step, 1);
    EXPECT_LE(q.work, kTableSumWork);
    if (w[5] == 1) diagonal = q.quantile.half_width;
  }
  // The same diagonal pair by the direct pass alone.
  double work = 0;
  EXPECT_EQ(sparse_sum_quantile({3, 1}, {4, 4, {{0, 1}, {1, 1}}}, 0.9, Interrupts(), 1e9, work).half_width, diagonal);
  std::vector<std::int64_t> block = pair(0, 1);
  block[4] = block[5] = 1;
  forget_kept_table_sums();
  EXPECT_THROW(laplace_table_sum_quantile({3, 1}, {LaplaceTablePart{4, 4, block}}, 0.9, Interrupts()), TooLarge);
}

TEST(LaplaceTableSparseSum, ReadsOneCellPerLineOrNothing) {
  const auto read = [](int r, std::vector<std::pair<LinePattern, double>> patterns) {
    return sparse_table_sum(r, 10, patterns);
  };
  // One nonzero entry; all entries equal (the last cell, negated).
  const std::optional<SparseTableSum> s = read(4, {{{0, 3, 0, 0}, 2}, {{-2, -2, -2, 0}, 1}});
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->lines.size(), 3u);
  EXPECT_EQ(s->lines[0].position, 1);
  EXPECT_EQ(s->lines[0].weight, 3);
  EXPECT_EQ(s->lines[1].position, 1);
  EXPECT_EQ(s->lines[2].position, 3);
  EXPECT_EQ(s->lines[2].weight, 2);
  EXPECT_FALSE(read(4, {{{1, 1, 0, 0}, 1}}).has_value());   // two cells of a line
  EXPECT_FALSE(read(4, {{{1, 0, 0, 0}, 9}}).has_value());   // more than 8 lines
  EXPECT_FALSE(read(3, {{{65, 0, 0, 0}, 1}}).has_value());  // weights past 64
  EXPECT_FALSE(read(3, {{{40, 0, 0, 0}, 1}, {{0, 30, 0, 0}, 1}}).has_value());
  EXPECT_TRUE(read(3, {{{1, 1, 0, 0}, 2}}).has_value());  // three levels: the last cell
}

// Past its work: refused before a pass whose least work is past the limit,
// or once its work passes it; and a stop asked at any poll ends it.
TEST(LaplaceTableSparseSum, RefusalsAndPolls) {
  const SparseTableSum pair{4, 4, {{0, 1}, {1, 1}}};
  double work = 0;
  EXPECT_THROW(sparse_sum_quantile({3, 1}, pair, 0.9, Interrupts(), 10, work), TooLarge);
  EXPECT_GT(work, 10);
  EXPECT_THROW(sparse_sum_quantile({3, 1}, pair, 0.9, Interrupts(), 5e5, work), TooLarge);
  EXPECT_GT(work, 5e5);
  SparseTableSum no_lines;
  no_lines.r = 4;
  no_lines.n = 4;
  EXPECT_THROW(sparse_sum_quantile({3, 1}, no_lines, 0.9, Interrupts(), 1e9, work), InvalidArgument);
  const SparseTableSum small{3, 8, {{0, 1}, {2, -1}}};
  int left = std::numeric_limits<int>::max();
  sparse_sum_quantile({2, 1}, small, 0.9, Interrupts(test_interrupts::pending_after, &left), 1e9, work);
  const int polls = std::numeric_limits<int>::max() - left;
  EXPECT_GT(polls, 20);
  for (const int passing : {0, polls / 2, polls - 1}) {
    int stop = passing;
    EXPECT_THROW(sparse_sum_quantile({2, 1}, small, 0.9, Interrupts(test_interrupts::pending_after, &stop), 1e9, work),
                 Interrupted)
        << passing;
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
