// Unit tests of queries read as one cell given the margins
// (accuracy/one_cell_query.hpp), against the dense projector Pi_N built
// from the tuples: a query is one cell times a weight exactly when Pi_N of
// it is that weight times Pi_N of the cell, on partitions (nested margins,
// uneven groups), two-way tables in blocks (one pinned), a table per level
// of a shared column, three- and four-way cubes with axes of two levels,
// and general margins (main effects of a cube, an incomplete table); large
// tables; polls.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "accuracy/one_cell_query.hpp"
#include "accuracy/projector_form.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;

// The cell and weight a query's projection is a multiple of, if any (the
// reference: Pi x = a Pi e_c, a != 0, checked over every cell).
std::optional<std::pair<std::uint32_t, double>> projector_cell(const Eigen::MatrixXd& P, const Eigen::VectorXd& x) {
  const Eigen::VectorXd px = P * x;
  if (px.lpNorm<Eigen::Infinity>() < 1e-9) return std::nullopt;
  for (Eigen::Index c = 0; c < P.cols(); ++c) {
    const Eigen::VectorXd pc = P.col(c);
    if (pc.squaredNorm() < 1e-12) continue;
    const double a = pc.dot(px) / pc.squaredNorm();
    if ((px - a * pc).lpNorm<Eigen::Infinity>() < 1e-9) return std::pair{std::uint32_t(c), a};
  }
  return std::nullopt;
}

// Every cell, plus random multiples of the margins' groups, times a random
// weight: read as a cell whose projection is the query's (the cell itself
// but where an axis has two levels and its neighbour is minus it).
TEST(OneCellQuery, EveryCellUpToTheMarginsIsThatCell) {
  std::mt19937_64 gen(20261201);
  std::uniform_int_distribution<int> coefficient(-2, 2), weight(1, 3);
  for (const ProjectorFormCase& c : projector_form_cases()) {
    const Eigen::MatrixXd P = dense_projector(c.release.tuples, c.release.margin_columns);
    const auto form = form_of_model(*c.release.model, Interrupts());
    const auto groups = margin_groups(c.release);
    for (std::uint32_t cell = 0; cell < c.release.n(); ++cell) {
      if (P(cell, cell) < 1e-12) continue;  // a pinned cell is a constant
      for (int trial = 0; trial < 4; ++trial) {
        QueryBuilder builder(c.release.n());
        const double a = (trial % 2 ? -1 : 1) * weight(gen);
        builder.add(cell, a);
        // The first trial adds the cell's first group whole (the rest of it, minus).
        if (trial == 0) {
          for (const auto& g : groups)
            if (std::find(g.begin(), g.end(), cell) != g.end()) {
              for (const std::uint32_t i : g) builder.add(i, -a);
              break;
            }
        } else {
          for (const auto& g : groups)
            if (const int k = coefficient(gen); k != 0)
              for (const std::uint32_t i : g) builder.add(i, k);
        }
        const CellQuery q = builder.take();
        if (q.size() < 2) continue;
        const std::optional<CellQuery> one = as_one_cell(*form, q, Interrupts());
        ASSERT_TRUE(one.has_value()) << c.name << " cell " << cell << " trial " << trial;
        ASSERT_EQ(one->size(), 1u);
        const Eigen::VectorXd x = dense_weights(q, c.release.n());
        const Eigen::VectorXd read = dense_weights(*one, c.release.n());
        EXPECT_LT((P * (x - read)).lpNorm<Eigen::Infinity>(), 1e-9) << c.name << " cell " << cell;
        EXPECT_EQ(std::fabs(one->weights[0]), std::fabs(a)) << c.name << " cell " << cell;
      }
    }
  }
}

// Random queries, and near misses (a cell with part of a group, two cells
// with groups): read as a cell exactly when the projector says the query is
// one, and never otherwise.
TEST(OneCellQuery, ACellExactlyWhenTheProjectorSaysSo) {
  std::mt19937_64 gen(4242);
  std::uniform_int_distribution<int> coefficient(-2, 2);
  for (const ProjectorFormCase& c : projector_form_cases()) {
    const Eigen::MatrixXd P = dense_projector(c.release.tuples, c.release.margin_columns);
    const auto form = form_of_model(*c.release.model, Interrupts());
    const auto groups = margin_groups(c.release);
    std::uniform_int_distribution<std::uint32_t> any_cell(0, std::uint32_t(c.release.n() - 1));
    int cells = 0, others = 0;
    for (int trial = 0; trial < 300; ++trial) {
      CellQuery q;
      if (trial % 3 == 0) {
        q = random_query(c.release.n(), trial % 2 ? 0.3 : 0.8, true, gen);
      } else {
        QueryBuilder builder(c.release.n());
        builder.add(any_cell(gen), 1 + trial % 2);
        if (trial % 3 == 1) builder.add(any_cell(gen), -1);  // a second cell, maybe the first again
        for (const auto& g : groups)
          if (const int k = coefficient(gen); k != 0) {
            // Sometimes a group less its last cell.
            const std::size_t end = trial % 5 == 0 ? g.size() - 1 : g.size();
            for (std::size_t i = 0; i < end; ++i) builder.add(g[i], k);
          }
        q = builder.take();
      }
      const Eigen::VectorXd x = dense_weights(q, c.release.n());
      const auto expected = q.size() >= 2 ? projector_cell(P, x) : std::nullopt;
      const std::optional<CellQuery> one = as_one_cell(*form, q, Interrupts());
      ASSERT_EQ(one.has_value(), expected.has_value()) << c.name << " trial " << trial;
      if (!one) {
        ++others;
        continue;
      }
      ++cells;
      EXPECT_LT((P * (x - dense_weights(*one, c.release.n()))).lpNorm<Eigen::Infinity>(), 1e-9) << c.name;
      EXPECT_NEAR(std::fabs(one->weights[0]), std::fabs(expected->second), 1e-9) << c.name;
    }
    EXPECT_GT(cells, 20) << c.name;
    EXPECT_GT(others, 20) << c.name;
  }
}

// Without invariants nothing is read; neither is a query of one cell.
TEST(OneCellQuery, OtherFormsAndSingleCellsAreLeftAsTheyAre) {
  const Release none(grid({3, 4}), 2, {});
  CellQuery row;
  for (std::uint32_t j = 1; j < 4; ++j) {
    row.cells.push_back(j);
    row.weights.push_back(1);
  }
  EXPECT_FALSE(as_one_cell(*form_of_model(*none.model, Interrupts()), row, Interrupts()).has_value());
  const Release table(grid({3, 4}), 2, {{0}, {1}});
  CellQuery one;
  one.cells = {5};
  one.weights = {2};
  EXPECT_FALSE(as_one_cell(*form_of_model(*table.model, Interrupts()), one, Interrupts()).has_value());
  EXPECT_TRUE(as_one_cell(*form_of_model(*table.model, Interrupts()), row, Interrupts()).has_value());
}

LatticeTable square(std::size_t n) {
  LatticeTable t{{n, n}, {}};
  for (std::size_t i = 0; i < n * n; ++i) t.cells.push_back(i);
  return t;
}

// A 1000 x 1000 table: the rest of a column is its cell, found by one pass
// over the table that polls (and stops when asked); a sum of a few cells is
// no cell without the pass; a table past the limit is not read.
TEST(OneCellQuery, LargeTables) {
  const auto form = table_form({square(1000)}, 1000000);
  CellQuery rest;  // column 7 without row 3
  for (std::uint32_t i = 0; i < 1000; ++i)
    if (i != 3) {
      rest.cells.push_back(i * 1000 + 7);
      rest.weights.push_back(1);
    }
  const std::optional<CellQuery> one = as_one_cell(*form, rest, Interrupts());
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->cells[0], 3007u);
  EXPECT_EQ(one->weights[0], -1);
  int polls_left = 1 << 30;
  as_one_cell(*form, rest, Interrupts(test_interrupts::pending_after, &polls_left));
  // About a poll per 4096 of the passes' 4e6 steps (some 1,000), not once per axis.
  EXPECT_GT((1 << 30) - polls_left, 500);
  EXPECT_THROW(as_one_cell(*form, rest, Interrupts(test_interrupts::always_pending, nullptr)), Interrupted);
  // Ten cells: fewer than a line less one; nothing is read, nothing polled past the entries.
  CellQuery few;
  for (std::uint32_t k = 0; k < 10; ++k) {
    few.cells.push_back(k * 99991 % 1000000);
    few.weights.push_back(1);
  }
  polls_left = 1 << 30;
  EXPECT_FALSE(as_one_cell(*form, few, Interrupts(test_interrupts::pending_after, &polls_left)).has_value());
  EXPECT_LT((1 << 30) - polls_left, 10);
  // The column without two of its cells is a line's cells less two: no cell,
  // and no pass either.
  CellQuery less_two = rest;
  less_two.cells.erase(less_two.cells.begin() + 3);
  less_two.weights.pop_back();
  polls_left = 1 << 30;
  EXPECT_FALSE(as_one_cell(*form, less_two, Interrupts(test_interrupts::pending_after, &polls_left)).has_value());
  EXPECT_LT((1 << 30) - polls_left, 10);
  // 2049 x 2049 cells pass 2^22: the rest of a row keeps its own figure.
  const auto past = table_form({square(2049)}, 2049 * 2049);
  CellQuery row;
  for (std::uint32_t j = 1; j < 2049; ++j) {
    row.cells.push_back(j);
    row.weights.push_back(1);
  }
  EXPECT_FALSE(as_one_cell(*past, row, Interrupts()).has_value());
}

// The partition form's places: a group's cells in cell order, and back.
TEST(OneCellQuery, PartitionPlacesAndTheirCells) {
  const auto form = partition_form({2, 0, 2, 1, 0, 2}, 3);
  EXPECT_EQ(form->position_in_block(0), 0u);
  EXPECT_EQ(form->position_in_block(2), 1u);
  EXPECT_EQ(form->position_in_block(5), 2u);
  EXPECT_EQ(form->position_in_block(4), 1u);
  for (std::uint32_t cell = 0; cell < 6; ++cell)
    EXPECT_EQ(form->cell_at(form->block_of(cell), form->position_in_block(cell), Interrupts()), cell);
  EXPECT_THROW(form->cell_at(1, 1, Interrupts()), InvalidArgument);
  EXPECT_THROW(form->cell_at(3, 0, Interrupts()), InvalidArgument);
  EXPECT_THROW(identity_form(4)->cell_at(0, 0, Interrupts()), InvalidArgument);
}

}  // namespace
}  // namespace invariant_dp
