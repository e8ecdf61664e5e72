// Unit tests of the hierarchy and stream error bars
// (accuracy/hierarchy_accuracy.hpp): the variance of random weighted sets of
// nodes at any levels against w^T Sigma w with the explicit leaf covariance
// (hierarchy::leaf_covariance, every pair), on an irregular tree with
// per-level variances, one-child nodes and exact depth-1 totals; ranges
// against range_variance; streams against prefix_range_variance and the
// explicit covariance of the perfect binary cascade; the integer cascade's
// certified figures and node intervals.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>

#include "accuracy/crossed_accuracy.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/crossed_cascade.hpp"
#include "hierarchy/streaming_cascade.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace hierarchy;

// Leaves all at depth 3; node 2 has one child, node 20's parent four.
HierarchyTree irregular_tree() {
  return HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 8, 8, 9, 9, 9, 9},
                                     Interrupts());
}

Eigen::MatrixXd leaf_matrix(const HierarchyTree& tree, const CascadeLaw& law) {
  const auto n = static_cast<Eigen::Index>(tree.n_leaves());
  Eigen::MatrixXd S(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      S(i, j) = leaf_covariance(tree, law, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
  return S;
}

void expect_node_sets(const HierarchyTree& tree, const CascadeLaw& law, std::uint64_t seed) {
  const Eigen::MatrixXd S = leaf_matrix(tree, law);
  const HierarchyAccuracy acc(tree, law, -1);
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution in(0.25);
  std::uniform_int_distribution<int> weight(-2, 3);
  for (int trial = 0; trial < 200; ++trial) {
    QueryBuilder builder(tree.n_nodes());
    Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(tree.n_leaves()));
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
      if (!in(gen)) continue;
      const double x = trial % 2 ? weight(gen) : 1;
      builder.add(v, x);
      for (std::uint32_t leaf = tree.leaf_begin(v); leaf < tree.leaf_end(v); ++leaf) w[leaf] += x;
    }
    const CellQuery q = builder.take();
    const VarianceFigure v = acc.variance(q, Interrupts());
    EXPECT_EQ(v.kind, Exactness::exact);
    EXPECT_NEAR(v.upper, w.dot(S * w), 1e-9 * (1 + w.squaredNorm())) << "trial " << trial;
  }
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v)
    EXPECT_NEAR(acc.node_variance(v).upper, node_variance(tree, law, v), 1e-12);
}

TEST(AccuracyHierarchy, NodeSetsMatchTheExplicitCovariance) {
  const HierarchyTree tree = irregular_tree();
  const CascadeLaw law(tree, {4, 3, 2, 1.5});
  expect_node_sets(tree, law, 1);
  std::vector<std::uint32_t> depth_one;
  for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) depth_one.push_back(v);
  expect_node_sets(tree, law.conditioned_on(tree, depth_one), 2);
  const HierarchyTree binary = HierarchyTree::perfect_binary(5, Interrupts());
  expect_node_sets(binary, CascadeLaw::uniform(binary, 2.0), 3);
}

TEST(AccuracyHierarchy, RangesMatchRangeVariance) {
  const HierarchyTree tree = irregular_tree();
  const CascadeLaw law(tree, {4, 3, 2, 1.5});
  const HierarchyAccuracy acc(tree, law, -1);
  for (std::uint32_t lo = 0; lo < tree.n_leaves(); ++lo)
    for (std::uint32_t hi = lo; hi < tree.n_leaves(); ++hi) {
      QueryBuilder builder(tree.n_nodes());
      for (std::uint32_t leaf = lo; leaf <= hi; ++leaf) builder.add(tree.leaf_node(leaf));
      EXPECT_NEAR(acc.variance(builder.take(), Interrupts()).upper, range_variance(tree, law, lo, hi), 1e-10);
    }
}

TEST(AccuracyHierarchy, IntegerCascadeIsCertified) {
  const HierarchyTree tree = irregular_tree();
  const CascadeLaw law = CascadeLaw(tree, {4, 3, 2, 1.5}).scaled(40);
  const HierarchyAccuracy acc(tree, law, 0.01);
  QueryBuilder builder(tree.n_nodes());
  builder.add(4);
  builder.add(20);
  const VarianceFigure v = acc.variance(builder.take(), Interrupts());
  EXPECT_EQ(v.kind, Exactness::certified);
  EXPECT_NEAR(v.lower, 0.99 * v.upper, 1e-9 * v.upper);
  // Calibrated-scale noise: R is 1 to double precision, and a node's interval
  // is the discrete Gaussian quantile at its variance, exact (R decides it)
  // though the variance is only certified.
  const double R = acc.theta_ratio(Interrupts());
  EXPECT_GE(R, 1.0);
  EXPECT_LT(R, 1 + 1e-12);
  const CellIntervals iv = acc.node_intervals(0.9, Interrupts());
  EXPECT_EQ(iv.kind(), Exactness::exact);
  EXPECT_TRUE(iv.integer());
  for (std::uint32_t u = 0; u < tree.n_nodes(); ++u)
    EXPECT_EQ(iv.half_width(u), double(discrete_gaussian_half_width(node_variance(tree, law, u), 0.9, R)));
  // Below one count of noise R says nothing; the sub-Gaussian bound still holds.
  const CascadeLaw tiny = CascadeLaw(tree, {4, 3, 2, 1.5}).scaled(0.02);
  const HierarchyAccuracy small(tree, tiny, 0.5);
  EXPECT_FALSE(std::isfinite(small.theta_ratio(Interrupts())) && small.theta_ratio(Interrupts()) < 2);
  const CellIntervals wide = small.node_intervals(0.9, Interrupts());
  EXPECT_EQ(wide.kind(), Exactness::certified);
  EXPECT_EQ(wide.half_width(0), double(integer_half_width(sub_gaussian_half_width(tiny.level_variance(0), 0.9))));
}

// Crossed trees: any set of rectangles against w^T (Sigma_rows (x) Sigma_cols) w.
TEST(AccuracyHierarchy, CrossedRectanglesMatchTheKroneckerCovariance) {
  const HierarchyTree rows = irregular_tree();
  const CascadeLaw row_law(rows, {4, 3, 2, 1.5});
  const HierarchyTree cols = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2, 2}, Interrupts());
  const CascadeLaw col_law(cols, {2, 1.5, 1});
  const Eigen::MatrixXd R = leaf_matrix(rows, row_law), C = leaf_matrix(cols, col_law);
  Eigen::MatrixXd S(R.rows() * C.rows(), R.cols() * C.cols());
  for (Eigen::Index i = 0; i < R.rows(); ++i)
    for (Eigen::Index j = 0; j < R.cols(); ++j) S.block(i * C.rows(), j * C.cols(), C.rows(), C.cols()) = R(i, j) * C;
  const CrossedAccuracy acc(rows, row_law, cols, col_law, -1);
  std::mt19937_64 gen(5);
  std::uniform_int_distribution<std::uint32_t> row_node(0, static_cast<std::uint32_t>(rows.n_nodes() - 1)),
      col_node(0, static_cast<std::uint32_t>(cols.n_nodes() - 1));
  std::uniform_int_distribution<int> weight(-2, 3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::uint32_t> rs, cs;
    std::vector<double> ws;
    Eigen::VectorXd w = Eigen::VectorXd::Zero(S.rows());
    for (int k = 0; k <= trial % 9; ++k) {
      rs.push_back(row_node(gen));
      cs.push_back(col_node(gen));
      ws.push_back(trial % 2 ? weight(gen) : 1);
      for (std::uint32_t a = rows.leaf_begin(rs.back()); a < rows.leaf_end(rs.back()); ++a)
        for (std::uint32_t b = cols.leaf_begin(cs.back()); b < cols.leaf_end(cs.back()); ++b)
          w[a * C.rows() + b] += ws.back();
    }
    const VarianceFigure v = acc.variance(rs, cs, ws, Interrupts());
    EXPECT_NEAR(v.upper, w.dot(S * w), 1e-9 * (1 + w.squaredNorm())) << "trial " << trial;
  }
  // One rectangle of leaf ranges, as crossed_rectangle_variance has it.
  const std::uint32_t s = 5, t = 2;
  EXPECT_NEAR(acc.variance({s}, {t}, {1.0}, Interrupts()).upper,
              crossed_rectangle_variance(rows, row_law, cols, col_law, rows.leaf_begin(s), rows.leaf_end(s) - 1,
                                         cols.leaf_begin(t), cols.leaf_end(t) - 1),
              1e-10);
  const CrossedAccuracy integer(rows, row_law, cols, col_law, 0.25);
  const VarianceFigure f = integer.variance({s}, {t}, {1.0}, Interrupts());
  EXPECT_EQ(f.kind, Exactness::certified);
  EXPECT_NEAR(f.lower, 0.75 * f.upper, 1e-9);
}

TEST(AccuracyHierarchy, StreamsMatchThePerfectCascade) {
  const double v = 3.0;
  for (std::uint64_t lo = 0; lo < 40; lo += 3)
    for (std::uint64_t hi = lo; hi < 40; hi += 5) {
      std::vector<std::uint64_t> periods;
      for (std::uint64_t p = lo; p <= hi; ++p) periods.push_back(p);
      EXPECT_NEAR(stream_variance(v, periods, std::vector<double>(periods.size(), 1.0)),
                  StreamingCascade::prefix_range_variance(v, lo, hi), 1e-9);
    }
  const HierarchyTree tree = HierarchyTree::perfect_binary(6, Interrupts());
  const CascadeLaw law = CascadeLaw::uniform(tree, v);
  const Eigen::MatrixXd S = leaf_matrix(tree, law);
  std::mt19937_64 gen(4);
  std::uniform_int_distribution<std::uint64_t> period(0, 63);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<std::uint64_t> periods;
    std::vector<double> weights;
    Eigen::VectorXd w = Eigen::VectorXd::Zero(64);
    const int count = 1 + trial % 12;
    for (int k = 0; k < count; ++k) {
      periods.push_back(trial < 50 ? period(gen) % 20 : period(gen));  // also prefixes of a smaller tree
      weights.push_back(1 + k % 3);
      w[static_cast<Eigen::Index>(periods.back())] += weights.back();
    }
    EXPECT_NEAR(stream_variance(v, periods, weights), w.dot(S * w), 1e-9 * (1 + w.squaredNorm()));
  }
  EXPECT_THROW(stream_variance(0, {1}, {1}), InvalidArgument);
}

}  // namespace
}  // namespace invariant_dp
