// Unit tests of the count of cells a query's noise is worth
// (accuracy/effective_cells.hpp, LinearAccuracy::effective_cells), against
// the dense projector Pi_N built from the tuples: the largest cell's term is
// max_i c_b(i) (Pi_N w)_i^2 on every structure the forms read; the count is
// the same for a query and the query plus whole margins; m equal cells
// without margins count m; large two-way tables are read without a pass
// over the table; three-way tables past the dense limit are counted as
// asked; every phase polls.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "accuracy/effective_cells.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/projector_form.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;

// Distinct scalars per block (1, 2, 3, ...), so that a wrong block's scalar shows.
std::vector<double> counting_scalars(const ProjectorForm& form) {
  std::vector<double> out(form.n_blocks());
  for (std::size_t b = 0; b < out.size(); ++b) out[b] = 1.0 + double(b % 5);
  return out;
}

double dense_largest_term(const ProjectorForm& form, const std::vector<double>& scalar, const Eigen::MatrixXd& P,
                          const CellQuery& q) {
  const Eigen::VectorXd v = P * dense_weights(q, form.n_cells());
  double out = 0;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    out = std::max(out, scalar[form.block_of(std::uint32_t(i))] * v[i] * v[i]);
  return out;
}

// Random queries (sums and weighted, sparse and dense), single cells, whole
// groups, and all cells but one: the largest term is the dense projector's.
TEST(EffectiveCells, TheLargestTermIsTheProjectionsLargest) {
  std::mt19937_64 gen(20261202);
  for (const ProjectorFormCase& c : projector_form_cases()) {
    const Eigen::MatrixXd P = dense_projector(c.release.tuples, c.release.margin_columns);
    const auto form = form_of_model(*c.release.model, Interrupts());
    const std::vector<double> scalar = counting_scalars(*form);
    std::vector<CellQuery> queries;
    for (const double p : {0.1, 0.3, 0.6, 0.95})
      for (const bool weighted : {false, true})
        for (int trial = 0; trial < 6; ++trial) queries.push_back(random_query(c.release.n(), p, weighted, gen));
    for (const auto& group : margin_groups(c.release)) {
      QueryBuilder b(c.release.n());
      for (const std::uint32_t i : group) b.add(i);
      queries.push_back(b.take());
    }
    QueryBuilder all_but_one(c.release.n());
    for (std::uint32_t i = 1; i < c.release.n(); ++i) all_but_one.add(i);
    queries.push_back(all_but_one.take());
    for (const CellQuery& q : queries) {
      const std::optional<double> largest = largest_cell_term(*form, scalar, q, Interrupts());
      ASSERT_TRUE(largest.has_value()) << c.name;
      const double expected = dense_largest_term(*form, scalar, P, q);
      EXPECT_NEAR(*largest, expected, 1e-9 * std::max(1.0, expected)) << c.name << ", " << q.size() << " cells";
    }
  }
}

// A query and the query plus random multiples of the margins' groups are one
// random variable: one count, within rounding.
TEST(EffectiveCells, OneCountWhateverMarginsAreAdded) {
  std::mt19937_64 gen(77);
  std::uniform_int_distribution<int> coefficient(-2, 2);
  for (const ProjectorFormCase& c : projector_form_cases()) {
    const std::shared_ptr<const ProjectorForm> form = form_of_model(*c.release.model, Interrupts());
    const LinearAccuracy accuracy(form,
                                  BlockScalars{counting_scalars(*form), counting_scalars(*form),
                                               std::vector<Exactness>(form->n_blocks(), Exactness::exact)},
                                  "test");
    const auto groups = margin_groups(c.release);
    for (int trial = 0; trial < 20; ++trial) {
      const CellQuery q = random_query(c.release.n(), 0.2, trial % 2 == 1, gen);
      if (!(accuracy.variance(q, Interrupts()).upper > 1e-9)) continue;
      QueryBuilder b(c.release.n());
      for (std::size_t k = 0; k < q.size(); ++k) b.add(q.cells[k], q.weights[k]);
      for (const auto& g : groups)
        if (const int k = coefficient(gen); k != 0)
          for (const std::uint32_t i : g) b.add(i, k);
      const CellQuery with_margins = b.take();
      const double alone = accuracy.effective_cells(q, Interrupts());
      EXPECT_NEAR(accuracy.effective_cells(with_margins, Interrupts()), alone, 1e-9 * alone)
          << c.name << ", trial " << trial << ": " << q.size() << " cells asked as " << with_margins.size();
    }
  }
}

// Without margins, m cells of one weight count m, whatever m; a cell ten
// times the others' weight counts for little.
TEST(EffectiveCells, EqualCellsWithoutMarginsCountThemselves) {
  const LinearAccuracy accuracy = projected_accuracy(identity_form(100), 2.5);
  for (const std::size_t m : {1, 5, 29, 30, 31, 100}) {
    CellQuery q;
    for (std::uint32_t i = 0; i < m; ++i) {
      q.cells.push_back(i * 7 % 100);
      q.weights.push_back(m % 2 ? -3 : 1);
    }
    EXPECT_DOUBLE_EQ(accuracy.effective_cells(q, Interrupts()), double(m)) << m;
  }
  CellQuery heavy{{0}, {10}};
  for (std::uint32_t i = 1; i < 30; ++i) {
    heavy.cells.push_back(i);
    heavy.weights.push_back(1);
  }
  EXPECT_DOUBLE_EQ(accuracy.effective_cells(heavy, Interrupts()), 129.0 / 100.0);
  EXPECT_EQ(recommended_tail(LawShape::other, accuracy.effective_cells(heavy, Interrupts())), SumTail::chebyshev);
}

LatticeTable square_table(std::size_t n) {
  LatticeTable t;
  t.shape = {n, n};
  for (std::size_t i = 0; i < n * n; ++i) t.cells.push_back(i);
  return t;
}

// A 1000 x 1000 table: a pair of cells and the pair with a whole row and a
// whole column added count the same, against the projection written out
// (rc v_ij = rc w_ij - r R_i - c C_j + T); the reading takes polls of the
// query's size, not of the table's; half of a row is worth the whole row.
TEST(EffectiveCells, LargeTwoWayTablesWithoutAPass) {
  const std::size_t n = 1000;
  const auto form = std::shared_ptr<const ProjectorForm>(table_form({square_table(n)}, n * n));
  const LinearAccuracy accuracy = projected_accuracy(form, 1);
  const CellQuery pair{{3 * n + 7, 500 * n + 900}, {1, 1}};
  QueryBuilder b(n * n);
  b.add(3 * n + 7);
  b.add(500 * n + 900);
  for (std::uint32_t j = 0; j < n; ++j) b.add(3 * n + j, 2);
  for (std::uint32_t i = 0; i < n; ++i) b.add(i * n + 11, -1);
  const CellQuery with_lines = b.take();
  // Off the pair every cell is -R_i/c - C_j/r + T/(rc): the largest term is a
  // cell of the pair, (1 - 1/n - 1/n + 2/n^2)^2.
  const double cell = 1 - 2.0 / n + 2.0 / (double(n) * n);
  const double expected = accuracy.variance(pair, Interrupts()).upper / (cell * cell);
  EXPECT_NEAR(accuracy.effective_cells(pair, Interrupts()), expected, 1e-12 * expected);
  EXPECT_NEAR(accuracy.effective_cells(with_lines, Interrupts()), expected, 1e-9 * expected);
  int polls_left = 1 << 30;
  accuracy.effective_cells(pair, Interrupts(test_interrupts::pending_after, &polls_left));
  EXPECT_LT((1 << 30) - polls_left, 50) << "a pair of a million-cell table is read without a pass over it";
  EXPECT_THROW(accuracy.effective_cells(with_lines, Interrupts(test_interrupts::always_pending, nullptr)), Interrupted);
  // Half of row 0 (500 cells) against the other half: v = +-1/2 (1 - 1/n)
  // on the row and +-1/(2n) beside it, worth the row's 1000 cells (within
  // the columns' share).
  CellQuery half;
  for (std::uint32_t j = 0; j < n / 2; ++j) {
    half.cells.push_back(j);
    half.weights.push_back(1);
  }
  const double v_half = 0.5 * (1 - 1.0 / n);
  EXPECT_NEAR(accuracy.effective_cells(half, Interrupts()),
              accuracy.variance(half, Interrupts()).upper / (v_half * v_half), 1e-9 * n);
  // All of the table but one cell is minus that cell, and a cell is worth
  // a little more than one: its variance (1 - 1/n)^2 spreads over its row
  // and column, its own term is (1 - 1/n)^4.
  CellQuery all_but_one;
  for (std::uint32_t i = 1; i < n * n; ++i) {
    all_but_one.cells.push_back(i);
    all_but_one.weights.push_back(1);
  }
  const double one_cell = 1 / ((1 - 1.0 / n) * (1 - 1.0 / n));
  EXPECT_NEAR(accuracy.effective_cells(all_but_one, Interrupts()), one_cell, 1e-9);
  EXPECT_NEAR(accuracy.effective_cells(CellQuery{{0}, {1}}, Interrupts()), one_cell, 1e-9);
}

// Three-way tables: read by one pass over the block, which polls; past
// kMaxDenseCountBlock cells the query is counted as asked.
TEST(EffectiveCells, ThreeWayTablesByOnePassWithinTheLimit) {
  LatticeTable cube;
  cube.shape = {100, 100, 100};
  for (std::size_t i = 0; i < 1000000; ++i) cube.cells.push_back(i);
  const auto form = std::shared_ptr<const ProjectorForm>(table_form({cube}, 1000000));
  const LinearAccuracy accuracy = projected_accuracy(form, 1);
  const CellQuery pair{{0, 999999}, {1, 1}};
  // At each cell of the pair (1 - 1/n)^3 from itself and (-1/n)^3 from the
  // other, which differs on every axis.
  const double d = std::pow(1 - 0.01, 3) - 1e-6;
  EXPECT_NEAR(accuracy.effective_cells(pair, Interrupts()), accuracy.variance(pair, Interrupts()).upper / (d * d),
              1e-9);
  int polls_left = 1 << 30;
  accuracy.effective_cells(pair, Interrupts(test_interrupts::pending_after, &polls_left));
  EXPECT_GT((1 << 30) - polls_left, 50) << "the pass over a million cells polls";
  EXPECT_THROW(accuracy.effective_cells(pair, Interrupts(test_interrupts::always_pending, nullptr)), Interrupted);
  cube.shape = {2, 2, kMaxDenseCountBlock / 4 + 1};
  cube.cells.clear();
  for (std::size_t i = 0; i < 4 * (kMaxDenseCountBlock / 4 + 1); ++i) cube.cells.push_back(i);
  auto past = table_form({cube}, cube.cells.size());
  EXPECT_FALSE(largest_cell_term(*past, {1.0}, pair, Interrupts()).has_value());
  const LinearAccuracy past_accuracy = projected_accuracy(std::shared_ptr<const ProjectorForm>(std::move(past)), 1);
  EXPECT_EQ(past_accuracy.effective_cells(pair, Interrupts()), 2.0);
}

}  // namespace
}  // namespace invariant_dp
