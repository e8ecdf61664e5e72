// Any integer functional of the lattice Gaussian on complete tables
// (accuracy/table_functional.hpp; DERIVATIONS.md, section 13, "Any
// functional of a complete table"), against enumerated laws: sets of cells
// that are no box and unequal weights on two-way and three-way tables and
// on a zero-sum group, and sums over independent tables whose parts have
// different steps. X / step must stay within the claimed tilt of the
// discrete Gaussian at the claimed variance wherever the bound says
// something, and its half-widths must cover while one count less does not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "accuracy/table_functional.hpp"
#include "errors.hpp"
#include "tilted_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

using tilted_laws::expect_claim_holds;
using tilted_laws::enumerated_sums;
using tilted_laws::Law;

std::string shape_name(const std::vector<std::size_t>& shape) {
  std::string out;
  for (const std::size_t n : shape) out += (out.empty() ? "" : "x") + std::to_string(n);
  return out;
}

// The enumerated laws of X / step for each weight vector, beside the claims.
std::vector<Law> enumerated_functionals(const std::vector<std::size_t>& shape, Rational sigma2, std::int64_t R,
                                        const std::vector<std::vector<std::int64_t>>& functionals,
                                        const std::vector<TableFunctional>& claimed) {
  const std::vector<Law> sums = enumerated_sums(shape, R, sigma2.to_double(), functionals);
  std::vector<Law> laws(functionals.size());
  for (std::size_t b = 0; b < functionals.size(); ++b) {
    const auto step = static_cast<std::int64_t>(claimed[b].functional.step);
    EXPECT_GT(step, 0) << "functional " << b;
    if (step <= 0) continue;
    for (const auto& [x, w] : sums[b].mass) {
      EXPECT_EQ(x % step, 0) << "functional " << b << " at " << x;
      laws[b].add(x / step, w);
    }
  }
  return laws;
}

// Each functional's claim against its enumerated law where the bound says
// something (counted in `decided`), refused where not.
void check_table_functionals(const std::vector<std::size_t>& shape, Rational sigma2, std::int64_t R,
                             const std::vector<std::vector<std::int64_t>>& functionals, std::size_t& decided) {
  std::vector<TableFunctional> claimed;
  for (const auto& w : functionals) claimed.push_back(table_functional(sigma2, shape, w, Interrupts()));
  const std::vector<Law> laws = enumerated_functionals(shape, sigma2, R, functionals, claimed);
  for (std::size_t b = 0; b < functionals.size(); ++b) {
    const StepFunctional& f = claimed[b].functional;
    const std::string name = shape_name(shape) + " functional " + std::to_string(b) + " at " +
                             std::to_string(sigma2.to_double()) + " (step " + std::to_string(f.step) + ")";
    EXPECT_LE(laws[b].variance(), f.unit.variance * (1 + 1e-9)) << name;
    if (f.unit.log_excess < 1e-3) {
      EXPECT_GT(laws[b].variance(), f.unit.variance * 0.99) << name;  // the variance itself
    }
    if (f.unit.log_excess < 0.69) {
      expect_claim_holds(laws[b], f.unit.variance, f.unit.log_excess, name);
      ++decided;
    } else {
      // Too coarse for the bound: refused, and the caller takes the tail bound.
      EXPECT_THROW(tilted_gaussian_quantile(f.unit.variance, 1, f.unit.log_excess, 0.9, Interrupts()), OutOfRange)
          << name;
    }
  }
}

std::int64_t enumeration_reach(Rational sigma2) {
  return static_cast<std::int64_t>(9 * std::sqrt(sigma2.to_double())) + 3;
}

// The diagonal of two cells, an L of three, a cell with weight 2 beside
// one of weight 1, a difference of two cells, a whole row but one cell,
// weights whose every move's value is even (step 2) and a dense pattern
// with no empty row or column.
TEST(TableFunctional, AnyFunctionalOfATwoWayTable) {
  const std::vector<std::vector<std::int64_t>> three_by_three{
      {1, 0, 0, 0, 1, 0, 0, 0, 0}, {1, 1, 0, 1, 0, 0, 0, 0, 0}, {2, 1, 0, 0, 0, 0, 0, 0, 0},
      {1, 0, 0, 0, -1, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 2, 0, 0, 0, 0},
      {1, 2, 3, 0, 1, 5, 2, 0, 1}};
  std::size_t decided = 0;
  for (const Rational s2 : {Rational{1, 2}, Rational{4, 5}})
    check_table_functionals({3, 3}, s2, enumeration_reach(s2), three_by_three, decided);
  EXPECT_GE(decided, three_by_three.size());  // at these small variances it decides half or more
  decided = 0;
  for (const Rational s2 : {Rational{3, 2}, Rational{3, 1}})
    check_table_functionals({3, 3}, s2, enumeration_reach(s2), three_by_three, decided);
  EXPECT_EQ(decided, 2 * three_by_three.size());  // and from 3/2 every one
  decided = 0;
  const std::vector<std::vector<std::int64_t>> three_by_four{
      {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}, {3, -1, 0, 2, 0, 1, 0, 0, 1, 1, 0, 4}};
  check_table_functionals({3, 4}, {4, 5}, 6, three_by_four, decided);
  EXPECT_EQ(decided, 2u);
  // Constant on the lattice: whole rows and columns.
  EXPECT_EQ(table_functional({2, 1}, {3, 3}, {1, 1, 1, 0, 0, 0, 2, 2, 2}, Interrupts()).functional.step, 0u);
  EXPECT_EQ(table_functional({2, 1}, {3, 3}, {1, 0, 0, 1, 0, 0, 1, 0, 0}, Interrupts()).functional.step, 0u);
  EXPECT_THROW(table_functional({2, 1}, {1, 3}, {1, 0, 0}, Interrupts()), InvalidArgument);
  EXPECT_THROW(table_functional({2, 1}, {3, 3}, {1, 0, 0}, Interrupts()), InvalidArgument);
  // A box through this path gives the box's own figures: the same variance,
  // and a log excess that still decides the quantile at calibrated scales.
  std::vector<std::int64_t> box(100 * 100, 0);
  for (std::size_t i = 0; i < 30; ++i)
    for (std::size_t j = 0; j < 40; ++j) box[i * 100 + j] = 1;
  const StepFunctional as_functional = table_functional({82, 1}, {100, 100}, box, Interrupts()).functional;
  EXPECT_EQ(as_functional.step, 1u);
  EXPECT_NEAR(as_functional.unit.variance, box_variance({82, 1}, {100, 100}, {30, 40}),
              1e-9 * as_functional.unit.variance);
  EXPECT_LT(as_functional.unit.log_excess, 1e-12);
  EXPECT_TRUE(
      tilted_gaussian_quantile(as_functional.unit.variance, 1, as_functional.unit.log_excess, 0.9, Interrupts()).exact);
}

// Three-way tables with all three two-way margins: cells (i, j, k) at
// i * 9 + j * 3 + k on 2 x 3 x 3 (i * 6 + j * 3 + k on 2 x 2 x 3). The
// diagonal of two cells, a cell with weight 2 beside one of weight 1 in
// another slice, a difference, an L across slices, a union of two boxes
// (no box), and unequal weights everywhere.
TEST(TableFunctional, AnyFunctionalOfAThreeWayTable) {
  std::vector<std::vector<std::int64_t>> two_three_three(6, std::vector<std::int64_t>(18, 0));
  two_three_three[0][0] = two_three_three[0][13] = 1;
  two_three_three[1][0] = 2, two_three_three[1][10] = 1;
  two_three_three[2][0] = 1, two_three_three[2][4] = -1;
  two_three_three[3][0] = two_three_three[3][1] = two_three_three[3][9] = 1;
  for (const std::size_t c : {0, 1, 3, 4, 13}) two_three_three[4][c] = 1;  // the box {0} x {0,1} x {0,1}, and (1, 1, 1)
  for (std::size_t c = 0; c < 18; ++c) two_three_three[5][c] = std::int64_t((c * 7) % 5) - 2;
  std::size_t decided = 0;
  for (const Rational s2 : {Rational{3, 2}, Rational{3, 1}})
    check_table_functionals({2, 3, 3}, s2, enumeration_reach(s2), two_three_three, decided);
  // Moves are of squared length 8 here (4 on two-way tables): the weight 2
  // beside 1 is too coarse for the bound at both variances, and is refused.
  EXPECT_EQ(decided, 2 * two_three_three.size() - 2);
  decided = 0;
  const std::vector<std::vector<std::int64_t>> two_two_three{
      {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, {1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0}};
  for (const Rational s2 : {Rational{4, 5}, Rational{3, 1}})
    check_table_functionals({2, 2, 3}, s2, enumeration_reach(s2), two_two_three, decided);
  EXPECT_GE(decided, two_two_three.size() + 1);
  // A box of the three-way table through this path: the box's variance.
  std::vector<std::int64_t> box(4 * 5 * 6, 0);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 2; ++k) box[i * 30 + j * 6 + k] = 1;
  const StepFunctional as_functional = table_functional({40, 1}, {4, 5, 6}, box, Interrupts()).functional;
  EXPECT_EQ(as_functional.step, 1u);
  EXPECT_NEAR(as_functional.unit.variance, box_variance({40, 1}, {4, 5, 6}, {2, 3, 2}),
              1e-9 * as_functional.unit.variance);
  // Whole lines along any axis are constant.
  std::vector<std::int64_t> line(18, 0);
  line[0] = line[9] = 1;  // (0, 0, 0) and (1, 0, 0): the line along the first axis
  EXPECT_EQ(table_functional({2, 1}, {2, 3, 3}, line, Interrupts()).functional.step, 0u);
}

// Tables whose corner cannot be tried at every level (sides of more than 32
// levels, past 2^18 cells x corners): a functional and the same functional
// with random whole lines added along every axis have one step, pivot,
// variance and excess, for pairs, sparse sets with unequal weights, a row
// less a cell, and on a three-way table.
TEST(TableFunctional, LongSidesReadTheirCornerFromTheFunctional) {
  std::mt19937_64 gen(2718);
  std::size_t compared = 0;
  for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{40, 36}, std::vector<std::size_t>{34, 3, 5}}) {
    std::size_t cells = 1;
    for (const std::size_t n : shape) cells *= n;
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<std::int64_t> w(cells, 0);
      if (trial < 3) {
        w[gen() % cells] += 1;
        w[gen() % cells] += 1;
      } else if (trial == 3) {
        for (std::size_t j = 1; j < cells / shape[0]; ++j) w[j] = 1;  // the first slice less its first cell
      } else {
        for (std::int64_t& x : w) x = gen() % 9 == 0 ? std::int64_t(gen() % 5) - 2 : 0;
      }
      // Lines along axis k: a function of the other coordinates, here one
      // random coefficient per line.
      std::vector<std::int64_t> with_lines = w;
      for (std::size_t k = 0; k < shape.size(); ++k) {
        std::size_t inner = 1;
        for (std::size_t m = k + 1; m < shape.size(); ++m) inner *= shape[m];
        std::vector<std::int64_t> coefficient(cells / shape[k]);
        for (std::int64_t& c : coefficient) c = gen() % 6 == 0 ? std::int64_t(gen() % 5) - 2 : 0;
        for (std::size_t i = 0; i < cells; ++i) {
          const std::size_t line = (i / (inner * shape[k])) * inner + i % inner;
          with_lines[i] += coefficient[line];
        }
      }
      const TableFunctional alone = table_functional({30, 1}, shape, w, Interrupts());
      const TableFunctional added = table_functional({30, 1}, shape, with_lines, Interrupts());
      const std::string what = shape_name(shape) + " trial " + std::to_string(trial);
      EXPECT_EQ(added.functional.step, alone.functional.step) << what;
      EXPECT_EQ(added.pivot, alone.pivot) << what;
      EXPECT_EQ(added.functional.unit.variance, alone.functional.unit.variance) << what;
      EXPECT_EQ(added.functional.unit.log_excess, alone.functional.unit.log_excess) << what;
      compared += alone.functional.step != 0;
    }
  }
  EXPECT_EQ(compared, 16u);
}

// A zero-sum group is a table of one axis: four weight values, and
// unequal steps, which the group's own inversion (three values in
// arithmetic progression) does not take.
TEST(TableFunctional, AnyFunctionalOfAZeroSumGroup) {
  const std::vector<std::vector<std::int64_t>> group{{3, 2, 1, 0, 0}, {5, 1, 0, 0, 0}, {2, 2, 0, 0, 0}};
  std::size_t decided = 0;
  for (const Rational s2 : {Rational{1, 1}, Rational{3, 1}})
    check_table_functionals({5}, s2, enumeration_reach(s2), group, decided);
  EXPECT_EQ(decided, 2 * group.size() - 1);  // all but 5 beside 1 at variance 1
}

// X = X_1 + X_2 over two independent tables whose parts have steps 1 and
// 3 (a 2 x 3 table's cell (0, 0), and 3 times a 3 x 3 table's diagonal
// pair), and 2 and 3 (gcd 1): the laws enumerated per table, convolved.
TEST(TableFunctional, SumsOverTablesOfDifferentSteps) {
  struct Case {
    std::vector<std::int64_t> first, second;  // on 2 x 3, on 3 x 3
    std::uint64_t step;
  };
  const std::vector<Case> cases{{{1, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 3, 0, 0, 0, 0}, 1},
                                {{2, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 3, 0, 0, 0, 0}, 1},
                                {{2, 2, 0, 0, 0, 0}, {4, 0, 0, 0, 0, 0, 0, 0, 0}, 2}};
  // Each table's laws of its parts, from one enumeration per table; the
  // free cells reach 7 standard deviations of the widest (whatever lies
  // beyond weighs below e^-24 of the whole).
  const auto laws_of = [&](const std::vector<std::size_t>& shape, Rational s2, bool first) {
    std::vector<std::vector<std::int64_t>> weights;
    for (const Case& c : cases) weights.push_back(first ? c.first : c.second);
    const auto R = static_cast<std::int64_t>(7 * std::sqrt(s2.to_double())) + 2;
    return enumerated_sums(shape, R, s2.to_double(), weights);
  };
  for (const Rational s2 : {Rational{5, 1}, Rational{10, 1}}) {
    const std::vector<Law> first = laws_of({2, 3}, s2, true), second = laws_of({3, 3}, s2, false);
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const std::vector<TableFunctional> parts{table_functional(s2, {2, 3}, cases[c].first, Interrupts()),
                                               table_functional(s2, {3, 3}, cases[c].second, Interrupts())};
      ASSERT_NE(parts[0].functional.step, parts[1].functional.step);
      const StepFunctional sum = independent_tables(parts, Interrupts());
      ASSERT_EQ(sum.step, cases[c].step);
      const Law& a = first[c];
      const Law& b = second[c];
      Law x;
      for (const auto& [u, wu] : a.mass)
        for (const auto& [v, wv] : b.mass) {
          ASSERT_EQ((u + v) % std::int64_t(sum.step), 0);
          x.add((u + v) / std::int64_t(sum.step), wu / a.total * wv / b.total);
        }
      const std::string name = "case " + std::to_string(c) + " at " + std::to_string(s2.to_double());
      EXPECT_LE(x.variance(), sum.unit.variance * (1 + 1e-9)) << name;
      ASSERT_LT(sum.unit.log_excess, 0.69) << name;
      expect_claim_holds(x, sum.unit.variance, sum.unit.log_excess, name);
      // Power: the parts' variances added as if their steps were one step
      // put the law far outside the claimed tilt.
      const double same_step_variance =
          parts[0].functional.unit.variance + parts[1].functional.unit.variance;
      EXPECT_GT(x.spread(same_step_variance), 2 * std::exp(2 * sum.unit.log_excess)) << name;
    }
  }
  // Parts of step 0 are left out; all of step 0 is step 0.
  const TableFunctional constant = table_functional({5, 1}, {2, 3}, {1, 1, 1, 0, 0, 0}, Interrupts());
  EXPECT_EQ(independent_tables({constant, constant}, Interrupts()).step, 0u);
}

}  // namespace
}  // namespace invariant_dp::accuracy
