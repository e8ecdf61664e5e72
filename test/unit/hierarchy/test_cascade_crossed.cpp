// Unit tests of crossed hierarchies (crossed_cascade.hpp): rectangle
// variances and the Kronecker privacy constants against Eigen (explicit
// Sigma_r (x) Sigma_c and its inverse), (1 + k1/3)(1 + k2/3) for two
// perfect binary trees (src/core/hierarchy/DERIVATIONS.md, section 6),
// and the crossed rollup.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_privacy.hpp"
#include "hierarchy/crossed_cascade.hpp"
#include "interrupt_callbacks.hpp"
#include "random_source.hpp"
#include "unit_moves.hpp"

namespace invariant_dp::hierarchy {
namespace {

Eigen::MatrixXd dense(const HierarchyTree& tree, const CascadeLaw& law) {
  const Eigen::Index n = tree.n_leaves();
  Eigen::MatrixXd s(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) s(i, j) = leaf_covariance(tree, law, i, j);
  return s;
}

Eigen::MatrixXd kron(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  Eigen::MatrixXd k(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) k.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
  return k;
}

void expect_privacy_matches_dense(const HierarchyTree& rows, const CascadeLaw& rl, const HierarchyTree& cols,
                                  const CascadeLaw& cl) {
  const Eigen::MatrixXd precision = kron(dense(rows, rl), dense(cols, cl)).inverse();
  double add = 0, replace = 0;
  for (Eigen::Index a = 0; a < precision.rows(); ++a) {
    add = std::max(add, precision(a, a));
    for (Eigen::Index b = 0; b < precision.rows(); ++b)
      replace = std::max(replace, precision(a, a) + precision(b, b) - 2 * precision(a, b));
  }
  EXPECT_NEAR(crossed_max_sensitivity_squared(rows, rl, cols, cl, Neighbours::AddRemove, Interrupts()), add,
              1e-8 * add);
  EXPECT_NEAR(crossed_max_sensitivity_squared(rows, rl, cols, cl, Neighbours::ReplaceOne, Interrupts()), replace,
              1e-8 * replace);
}

TEST(CascadeCrossed, PerfectBinaryPrivacyIsTheProductOfConstants) {
  const auto rows = HierarchyTree::perfect_binary(2, Interrupts()), cols = HierarchyTree::perfect_binary(3, Interrupts());
  const auto rl = CascadeLaw::uniform(rows, 1.0), cl = CascadeLaw::uniform(cols, 1.0);
  EXPECT_NEAR(crossed_max_sensitivity_squared(rows, rl, cols, cl, Neighbours::AddRemove, Interrupts()),
              (1 + 2 / 3.0) * (1 + 1.0), 1e-12);
  expect_privacy_matches_dense(rows, rl, cols, cl);
}

TEST(CascadeCrossed, GeneralTreesAndPerLevelTargets) {
  const auto rows = HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3}, Interrupts());
  const auto cols = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 1, 2, 2}, Interrupts());
  const CascadeLaw rl(rows, {4.0, 2.0, 1.0}), cl(cols, {3.0, 1.5, 1.0});
  expect_privacy_matches_dense(rows, rl, cols, cl);
  // Every (row node, column node) rectangle at v_r(s) v_c(t).
  for (std::uint32_t s = 0; s < rows.n_nodes(); ++s)
    for (std::uint32_t t = 0; t < cols.n_nodes(); ++t)
      EXPECT_NEAR(crossed_rectangle_variance(rows, rl, cols, cl, rows.leaf_begin(s), rows.leaf_end(s) - 1,
                                             cols.leaf_begin(t), cols.leaf_end(t) - 1),
                  rl.level_variance(rows.depth(s)) * cl.level_variance(cols.depth(t)), 1e-12);
  const Eigen::MatrixXd k = kron(dense(rows, rl), dense(cols, cl));
  const Eigen::Index nc = cols.n_leaves();
  // An arbitrary rectangle against the dense sum.
  double sum = 0;
  for (Eigen::Index i = 1; i <= 4; ++i)
    for (Eigen::Index j = 0; j <= 2; ++j)
      for (Eigen::Index i2 = 1; i2 <= 4; ++i2)
        for (Eigen::Index j2 = 0; j2 <= 2; ++j2) sum += k(i * nc + j, i2 * nc + j2);
  EXPECT_NEAR(crossed_rectangle_variance(rows, rl, cols, cl, 1, 4, 0, 2), sum, 1e-12);
}

TEST(CascadeCrossed, RollupAndRefusals) {
  const auto rows = HierarchyTree::perfect_binary(2, Interrupts()), cols = HierarchyTree::perfect_binary(1, Interrupts());
  const auto rl = CascadeLaw::uniform(rows, 1.0), cl = CascadeLaw::uniform(cols, 1.0);
  auto rng = make_seeded_random_source(3);
  const auto grid = crossed_cascade_noise(rows, rl, cols, cl, *rng, Interrupts());
  ASSERT_EQ(grid.size(), 8u);
  const auto nodes = crossed_rollup(rows, cols, grid, Interrupts());
  const std::size_t w = cols.n_nodes();
  for (std::uint32_t s = 0; s < rows.n_nodes(); ++s) {
    if (rows.is_leaf(s)) continue;
    for (std::size_t t = 0; t < w; ++t)
      EXPECT_EQ(nodes[s * w + t], nodes[rows.first_child(s) * w + t] + nodes[(rows.first_child(s) + 1) * w + t]);
    EXPECT_NEAR(nodes[s * w], nodes[s * w + 1] + nodes[s * w + 2], 1e-12);
  }
  const std::vector<std::int64_t> counts{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(crossed_rollup(rows, cols, counts, Interrupts())[0], 36);
  const auto fixed = rl.conditioned_on(rows, {0});
  EXPECT_THROW(crossed_cascade_noise(rows, fixed, cols, cl, *rng, Interrupts()), InvalidArgument);
}

}  // namespace
}  // namespace invariant_dp::hierarchy

namespace invariant_dp::hierarchy {
namespace {

// A privacy unit on a crossed grid (crossed_protected_sensitivity_squared):
// the Kronecker law's precision is P_rows (x) P_cols; every move of a unit
// with G = 2 cells and R = 1 row each, enumerated on a 2 x 3 grid, costs at
// most the bound, and some costs more than one record's maximum (power).
TEST(CrossedUnitSensitivity, BoundsEveryMoveOfAUnit) {
  const auto rows = HierarchyTree::from_parents({-1, 0, 0}, Interrupts());
  const auto cols = HierarchyTree::from_parents({-1, 0, 0, 0}, Interrupts());
  const auto row_law = CascadeLaw::uniform(rows, 1.0), col_law = CascadeLaw::uniform(cols, 1.0);
  const std::size_t nr = rows.n_leaves(), nc = cols.n_leaves(), n = nr * nc;
  std::vector<std::vector<double>> a(n, std::vector<double>(n));
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      a[i][j] = precision_entry(rows, row_law, i / nc, j / nc) * precision_entry(cols, col_law, i % nc, j % nc);
  // One record: the enumeration agrees with the closed forms.
  double single = 0, pair = 0;
  for (std::size_t i = 0; i < n; ++i) {
    single = std::max(single, a[i][i]);
    for (std::size_t j = 0; j < n; ++j) pair = std::max(pair, a[i][i] + a[j][j] - 2 * a[i][j]);
  }
  EXPECT_NEAR(single,
              crossed_max_sensitivity_squared(rows, row_law, cols, col_law, Neighbours::AddRemove, Interrupts()), 1e-9);
  EXPECT_NEAR(pair, crossed_max_sensitivity_squared(rows, row_law, cols, col_law, Neighbours::ReplaceOne, Interrupts()),
              1e-9);
  const auto [added, replaced] = test_tables::max_unit_move_costs(a);
  EXPECT_LE(added, crossed_protected_sensitivity_squared(rows, row_law, cols, col_law,
                                                         Protected(Neighbours::AddRemove, 2), Interrupts()) *
                       (1 + 1e-12));
  EXPECT_LE(replaced, crossed_protected_sensitivity_squared(rows, row_law, cols, col_law,
                                                            Protected(Neighbours::ReplaceOne, 2), Interrupts()) *
                          (1 + 1e-12));
  EXPECT_GT(added, single * (1 + 1e-9));
  EXPECT_GT(replaced, pair * (1 + 1e-9));
}

// Asks to stop once *polls_left polls have passed.
using test_interrupts::pending_after;

// Two 512-leaf trees: each tree's passes poll a few times, the 511 x 511
// pairs of splits some 64 times, so a stop at the 31st poll is reached only
// if the loop over pairs polls.
TEST(CrossedUnitSensitivity, InterruptStopsTheSensitivityPasses) {
  const auto rows = HierarchyTree::perfect_binary(9, Interrupts()), cols = HierarchyTree::perfect_binary(9, Interrupts());
  const auto rl = CascadeLaw::uniform(rows, 1.0), cl = CascadeLaw::uniform(cols, 1.0);
  int polls_left = 30;
  EXPECT_THROW(crossed_max_sensitivity_squared(rows, rl, cols, cl, Neighbours::ReplaceOne,
                                               Interrupts(pending_after, &polls_left)),
               Interrupted);
  for (Neighbours nb : {Neighbours::AddRemove, Neighbours::ReplaceOne}) {
    int none = 0;
    EXPECT_THROW(crossed_max_sensitivity_squared(rows, rl, cols, cl, nb, Interrupts(pending_after, &none)),
                 Interrupted);
    none = 0;
    EXPECT_THROW(crossed_protected_sensitivity_squared(rows, rl, cols, cl, Protected(nb, 2),
                                                       Interrupts(pending_after, &none)),
                 Interrupted);
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
