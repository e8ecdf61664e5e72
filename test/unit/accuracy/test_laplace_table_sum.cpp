// Sums of cells of complete two-way integer_laplace tables
// (accuracy/laplace_table_sum.hpp; DERIVATIONS.md beside it, section 15):
// quantiles against the enumerated laws of weighted sums on 3 x 3 tables,
// over two independent tables, one cell against the cell's own law, and the
// refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "accuracy/laplace_table_cell.hpp"
#include "accuracy/laplace_table_sum.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "table_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

using SumLaw = std::map<std::int64_t, double>;

SumLaw convolved_laws(const SumLaw& a, const SumLaw& b) {
  SumLaw out;
  for (const auto& [x, p] : a)
    for (const auto& [y, q] : b) out[x + y] += p * q;
  return out;
}

// The smallest t with P(|X| <= t) >= level, and that coverage.
std::int64_t enumerated_quantile(const SumLaw& law, double level) {
  for (std::int64_t t = 0;; ++t) {
    double inside = 0;
    for (const auto& [x, p] : law)
      if (std::llabs(x) <= t) inside += p;
    if (inside >= level) return t;
  }
}

TEST(LaplaceTableSum, WeightedSumsOnThreeByThreeMatchEnumeration) {
  const Rational b{6, 5};
  const std::vector<std::vector<std::int64_t>> weights = {
      {1, 1, 0, 0, 0, 0, 0, 0, 0},    // two cells of a row
      {1, 0, 0, 0, 1, 0, 0, 0, 0},    // a diagonal pair
      {1, 1, 0, 1, 1, 0, 0, 0, 0},    // a 2 x 2 block
      {2, 0, 0, 0, 0, 1, 0, -1, 0},   // mixed weights
      {0, 0, 3, 0, 3, 0, 3, 0, 0},    // step 3: the anti-diagonal
  };
  for (const auto& w : weights) {
    const SumLaw law = table_laws::l1_sum_law_3x3(b.to_double(), w, 34);
    for (const double level : {0.5, 0.9, 0.99}) {
      const TableSumQuantile q = laplace_table_sum_quantile(b, {LaplaceTablePart{3, 3, w}}, level, Interrupts());
      EXPECT_EQ(q.quantile.half_width * q.step, enumerated_quantile(law, level)) << w[0] << w[1] << w[4] << " " << level;
      EXPECT_TRUE(q.quantile.exact);
    }
  }
}

TEST(LaplaceTableSum, TwoIndependentTablesConvolve) {
  const Rational b{1, 1};
  const std::vector<std::int64_t> w1 = {1, 1, 0, 0, 0, 0, 0, 0, 0}, w2 = {1, 0, 0, 0, 0, 0, 0, 0, 1};
  const SumLaw law = convolved_laws(table_laws::l1_sum_law_3x3(1.0, w1, 32), table_laws::l1_sum_law_3x3(1.0, w2, 32));
  for (const double level : {0.5, 0.9, 0.99}) {
    const TableSumQuantile q =
        laplace_table_sum_quantile(b, {LaplaceTablePart{3, 3, w1}, LaplaceTablePart{3, 3, w2}}, level, Interrupts());
    EXPECT_EQ(q.quantile.half_width * q.step, enumerated_quantile(law, level)) << level;
  }
  // Power: the first table alone is another law.
  EXPECT_NE(laplace_table_sum_quantile(b, {LaplaceTablePart{3, 3, w1}}, 0.99, Interrupts()).quantile.half_width,
            enumerated_quantile(law, 0.99));
}

// Sums of a few cells of long four-line tables at calibrated scales stay
// within a margin's work: a pair of cells and a 2 x 2 block of a 4 x 1000
// table at b = 10.4 (epsilon about 0.38), exact.
TEST(LaplaceTableSum, FewCellsOfLongFourLineTablesWithinTheWorkLimit) {
  std::vector<std::int64_t> pair(4 * 1000, 0), block(4 * 1000, 0);
  pair[0] = pair[1000 + 1] = 1;
  block[0] = block[1] = block[1000] = block[1000 + 1] = 1;
  for (const auto& w : {pair, block}) {
    const TableSumQuantile q = laplace_table_sum_quantile({52, 5}, {LaplaceTablePart{4, 1000, w}}, 0.9, Interrupts());
    EXPECT_TRUE(q.quantile.exact);
    EXPECT_EQ(q.step, 1);
  }
}

// A short four-line table at a calibrated scale (4 x 4, b = 4: a box of
// 5.5e6 nodes, some 7e8 transforms in all) is refused before its pass at
// theta = 0, which would poll over a thousand times: a 2 x 2 block, which
// takes two cells of every line it touches (a sum taking one cell per line
// has its law in one pass instead: laplace_table_sparse_sum.hpp).
TEST(LaplaceTableSum, AHopelessBoxIsRefusedBeforeItsPass) {
  std::vector<std::int64_t> w(16, 0);
  w[0] = w[1] = w[4] = w[4 + 1] = 1;
  forget_kept_table_sums();
  int left = std::numeric_limits<int>::max();
  EXPECT_THROW(laplace_table_sum_quantile({4, 1}, {LaplaceTablePart{4, 4, w}}, 0.9,
                                          Interrupts(test_interrupts::pending_after, &left)),
               TooLarge);
  EXPECT_LT(std::numeric_limits<int>::max() - left, 100);
}

// A kept sum is read without computing (no poll), and within the caller's
// limit as computed: refused below the work it took; a refusal is kept
// too, and a higher limit computes it again. Weights 1 and 2 on two cells
// of each of two lines: no one cell of a line up to its zero sum, so no
// one-pass law takes it past the limit.
TEST(LaplaceTableSum, AKeptSumKeepsItsWork) {
  std::vector<std::int64_t> w(3 * 100, 0);
  w[0] = w[1] = 1;
  w[100] = w[100 + 1] = 2;
  const std::vector<LaplaceTablePart> parts = {LaplaceTablePart{3, 100, w}};
  const Interrupts stop(test_interrupts::always_pending, nullptr);
  forget_kept_table_sums();
  const TableSumQuantile first = laplace_table_sum_quantile({2, 1}, parts, 0.9, Interrupts());
  ASSERT_GT(first.work, 0);
  const TableSumQuantile again = laplace_table_sum_quantile({2, 1}, parts, 0.9, stop, first.work);
  EXPECT_EQ(again.quantile.half_width, first.quantile.half_width);
  EXPECT_EQ(again.work, first.work);
  EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.9, stop, first.work / 2), TooLarge);
  EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.95, stop), Interrupted);  // another level
  forget_kept_table_sums();
  EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.9, Interrupts(), first.work / 2), TooLarge);
  EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.9, stop, first.work / 2), TooLarge);
  EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.9, stop), Interrupted);
  EXPECT_EQ(laplace_table_sum_quantile({2, 1}, parts, 0.9, Interrupts()).quantile.half_width,
            first.quantile.half_width);
}

// A stop asked at any of a sum's polls ends it (Interrupted).
TEST(LaplaceTableSum, PollsForCancellation) {
  std::vector<std::int64_t> w(3 * 40, 0);
  for (std::size_t j = 0; j < 20; ++j) w[j] = w[40 + j] = 1;
  const std::vector<LaplaceTablePart> parts = {LaplaceTablePart{3, 40, w}};
  int left = std::numeric_limits<int>::max();
  forget_kept_table_sums();  // else the calls below read what the first computes
  laplace_table_sum_quantile({2, 1}, parts, 0.9, Interrupts(test_interrupts::pending_after, &left));
  const int polls = std::numeric_limits<int>::max() - left;
  EXPECT_GT(polls, 100);
  for (const int passing : {0, polls / 2, polls - 1}) {
    forget_kept_table_sums();
    int stop = passing;
    EXPECT_THROW(laplace_table_sum_quantile({2, 1}, parts, 0.9, Interrupts(test_interrupts::pending_after, &stop)),
                 Interrupted)
        << passing;
  }
}

TEST(LaplaceTableSum, WholeLinesAreConstantAndRefusals) {
  // The second row of a 3 x 4 table, and the same plus the first column
  // (their shared cell twice): sums of whole lines, constant given the margins.
  std::vector<std::int64_t> row(12, 0);
  for (std::size_t j = 0; j < 4; ++j) row[4 + j] = 1;
  EXPECT_EQ(laplace_table_sum_quantile({1, 1}, {LaplaceTablePart{3, 4, row}}, 0.9, Interrupts()).step, 0);
  row[0] = row[8] = 1;
  row[4] = 2;
  EXPECT_EQ(laplace_table_sum_quantile({1, 1}, {LaplaceTablePart{3, 4, row}}, 0.9, Interrupts()).step, 0);
  EXPECT_THROW(laplace_table_sum_quantile({1, 1}, {LaplaceTablePart{2, 4, std::vector<std::int64_t>(8, 1)}}, 0.9,
                                          Interrupts()),
               InvalidArgument);
  std::vector<std::int64_t> half(4 * 20, 0);
  for (std::size_t k = 0; k < half.size(); ++k) half[k] = (k / 20 + k % 20) % 2;  // a checkerboard
  EXPECT_THROW(laplace_table_sum_quantile({52, 5}, {LaplaceTablePart{4, 20, half}}, 0.9, Interrupts(), 1e5), TooLarge);
  // A scale of 2^54 (a forged law): a grid of 2^59 points a side, refused
  // before its shells are scanned.
  std::vector<std::int64_t> diagonal(15, 0);
  diagonal[0] = diagonal[5 + 1] = 1;
  EXPECT_THROW(laplace_table_sum_quantile({std::uint64_t(1) << 54, 1}, {LaplaceTablePart{3, 5, diagonal}}, 0.9,
                                          Interrupts()),
               TooLarge);
  // Weights past 2^39: too large for the inversion (the caller keeps its tail bound).
  std::vector<std::int64_t> heavy(12, 0);
  heavy[0] = (std::int64_t(1) << 39) + 1;
  EXPECT_THROW(laplace_table_sum_quantile({1, 1}, {LaplaceTablePart{3, 4, heavy}}, 0.9, Interrupts()), TooLarge);
}

}  // namespace
}  // namespace invariant_dp::accuracy
