// Unit tests of the projector forms (accuracy/projector_form.hpp): x^T Pi_N x
// of random sums and weighted queries (negative weights, repeated cells),
// and diag(Pi_N), against the dense projector I - A^+ A built from the
// tuples, for every structure InvariantModel picks (none, partition and
// nested margins, complete two-way tables in several blocks one of them
// pinned, a K-way cube, general margins, an incomplete two-way table); the
// query builder; refusals.
#include <gtest/gtest.h>

#include <random>

#include "accuracy/cell_query.hpp"
#include "accuracy/projector_form.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;

void expect_matches_dense(const Release& release, const char* structure, std::uint64_t seed) {
  const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
  const auto form = form_of_model(*release.model, Interrupts());
  EXPECT_STREQ(form->structure(), structure);
  ASSERT_EQ(form->n_cells(), release.n());
  for (std::uint32_t i = 0; i < release.n(); ++i) EXPECT_NEAR(form->diagonal(i), P(i, i), 1e-12) << "cell " << i;
  std::mt19937_64 gen(seed);
  for (int trial = 0; trial < 60; ++trial) {
    const bool weighted = trial % 2 == 1;
    const CellQuery q = random_query(release.n(), trial < 4 ? 1.0 : 0.3, weighted, gen);
    const Eigen::VectorXd x = dense_weights(q, release.n());
    const double expected = x.dot(P * x);
    std::vector<BlockForm> blocks;
    form->block_forms(q, blocks, Interrupts());
    double sum = 0;
    for (const BlockForm& b : blocks) {
      EXPECT_LT(b.block, form->n_blocks());
      EXPECT_GE(b.form, 0);
      sum += b.form;
    }
    EXPECT_NEAR(sum, expected, 1e-9 * (1 + x.squaredNorm())) << structure << " trial " << trial;
    EXPECT_NEAR(form->form(q, Interrupts()), expected, 1e-9 * (1 + x.squaredNorm()));
  }
}

TEST(AccuracyForms, NoMargin) {
  expect_matches_dense(Release(grid({3, 4}), 2, {}), "none", 1);
}

TEST(AccuracyForms, PartitionAndNestedMargins) {
  expect_matches_dense(Release(grid({5, 4}), 2, {{0}}), "partition", 2);
  expect_matches_dense(Release(grid({3, 2, 4}), 3, {{0}, {0, 1}}), "partition", 3);
  // Uneven groups, one of a single cell (pinned).
  std::vector<Tuple> uneven;
  for (int g = 0; g < 6; ++g)
    for (int k = 0; k <= g; ++k) uneven.push_back({g, k});
  expect_matches_dense(Release(uneven, 2, {{0}}), "partition", 4);
  expect_matches_dense(Release(grid({7}), 1, {{}}), "partition", 5);  // the grand total
}

TEST(AccuracyForms, TwoWayTablesInBlocks) {
  expect_matches_dense(Release(grid({4, 5}), 2, {{0}, {1}}), "tables", 6);
  // Blocks 3 x 4, 2 x 5 and a pinned 1 x 3, keyed (block, row, column).
  std::vector<Tuple> blocks;
  const int rows[] = {3, 2, 1}, cols[] = {4, 5, 3};
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < rows[b]; ++r)
      for (int c = 0; c < cols[b]; ++c) blocks.push_back({b, r, c});
  expect_matches_dense(Release(blocks, 3, {{0, 1}, {0, 2}}), "tables", 7);
  // {c0, c1} and {c1, c2}: a 3 x 4 table per level of c1.
  expect_matches_dense(Release(grid({3, 3, 4}), 3, {{0, 1}, {1, 2}}), "tables", 11);
}

// A form is kept for later statements: a query a cancel stopped midway (at
// its second poll, with the form's scratch arrays half written) leaves the
// next query's figure unchanged, for the structures that keep scratch.
TEST(AccuracyForms, AFormAfterACancelGivesTheSameFigures) {
  const Release releases[] = {Release(grid({6, 5, 4}), 3, {{0}, {1}, {2}}), Release(grid({5, 4}), 2, {{0}}),
                              Release(grid({6, 7}), 2, {{0}, {1}})};
  const char* structures[] = {"general", "partition", "tables"};
  for (int r = 0; r < 3; ++r) {
    const auto form = form_of_model(*releases[r].model, Interrupts());
    const auto fresh = form_of_model(*releases[r].model, Interrupts());
    ASSERT_STREQ(form->structure(), structures[r]);
    std::mt19937_64 gen(21 + r);
    for (int trial = 0; trial < 5; ++trial) {
      const CellQuery q = random_query(releases[r].n(), 0.3, true, gen);
      int polls_left = 1;
      EXPECT_THROW(form->form(q, Interrupts(test_interrupts::pending_after, &polls_left)), Interrupted)
          << structures[r];
      EXPECT_EQ(form->form(q, Interrupts()), fresh->form(q, Interrupts())) << structures[r] << " " << trial;
      EXPECT_EQ(form->diagonal(trial), fresh->diagonal(trial)) << structures[r] << " " << trial;
    }
  }
}

TEST(AccuracyForms, KWayCube) {
  expect_matches_dense(Release(grid({3, 4, 2}), 3, {{0, 1}, {0, 2}, {1, 2}}), "tables", 8);
  expect_matches_dense(Release(grid({2, 3, 2, 3}), 4, {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}}), "tables", 9);
}

TEST(AccuracyForms, GeneralMargins) {
  expect_matches_dense(Release(grid({3, 4, 2}), 3, {{0}, {1}, {2}}), "general", 10);
  std::vector<Tuple> incomplete = grid({4, 5});
  incomplete.erase(incomplete.begin() + 13);
  incomplete.erase(incomplete.begin() + 6);
  incomplete.erase(incomplete.begin() + 2);
  expect_matches_dense(Release(incomplete, 2, {{0}, {1}}), "general", 12);
}

TEST(AccuracyForms, GeneralFormOnAWiderRelease) {
  // 12 x 10 x 3 main effects: the solve touches only part of the factor for
  // a local query and all of it for the whole table.
  Release release(grid({12, 10, 3}), 3, {{0}, {1}, {2}});
  expect_matches_dense(release, "general", 13);
}

TEST(AccuracyForms, QueryBuilderAddsRepeatsAndDropsCancelledCells) {
  QueryBuilder builder(5);
  builder.add(3);
  builder.add(1, 2.5);
  builder.add(3);
  builder.add(4, 1);
  builder.add(4, -1);
  CellQuery q = builder.take();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q.cells[0], 3u);
  EXPECT_EQ(q.weights[0], 2);
  EXPECT_EQ(q.cells[1], 1u);
  EXPECT_EQ(q.weights[1], 2.5);
  EXPECT_EQ(builder.take().size(), 0u);  // empty again
  EXPECT_THROW(builder.add(5), InvalidArgument);
  EXPECT_THROW(builder.add(0, NAN), InvalidArgument);
  EXPECT_EQ(all_cells(4).size(), 4u);
}

TEST(AccuracyForms, RefusesTablesThatDoNotCoverTheCells) {
  LatticeTable t{{2, 2}, {0, 1, 2, 3}};
  EXPECT_THROW(table_form({t}, 5), InvalidArgument);       // cell 4 in no table
  EXPECT_THROW(table_form({t, t}, 4), InvalidArgument);    // cells in two tables
  LatticeTable short_table{{2, 3}, {0, 1, 2, 3}};
  EXPECT_THROW(table_form({short_table}, 4), InvalidArgument);
  EXPECT_THROW(partition_form({0, 1, 2}, 2), InvalidArgument);
}

TEST(AccuracyForms, RefusesTablesWhoseMarginalSumsWouldNotFit) {
  // 12 axes of 3 levels: 531,441 cells, 4^12 - 3^12 marginal sums (30 a cell).
  LatticeTable t{std::vector<std::size_t>(12, 3), {}};
  for (std::size_t i = 0; i < 531441; ++i) t.cells.push_back(i);
  EXPECT_THROW(table_form({t}, 531441), TooLarge);
  LatticeTable thirteen{std::vector<std::size_t>(13, 2), {}};
  EXPECT_THROW(table_form({thirteen}, 8192), TooLarge);
}

TEST(AccuracyForms, PollsInterruptsOnLongQueries) {
  const auto form = partition_form(std::vector<std::uint32_t>(100000, 0), 1);
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(form->form(all_cells(100000), stop), Interrupted);
}

}  // namespace
}  // namespace invariant_dp
