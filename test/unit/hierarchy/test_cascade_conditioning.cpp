// Unit tests of cascade noise conditioned on exact totals of tree nodes
// (cascade_law.hpp, cascade_margins.hpp): the conditioned covariance equals
// the explicit projection Sigma - Sigma A^T (A Sigma A^T)^+ A Sigma, the
// sampler's algorithm (subtrees cascaded from 0) has that covariance, the
// privacy under the conditioned law matches the pseudo-inverse, and margins
// that are not whole nodes are refused.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/cascade_margins.hpp"
#include "hierarchy/cascade_privacy.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "interrupt_callbacks.hpp"
#include "table_builder.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Leaf rows of the algorithm's linear map (as in test_cascade_covariance.cpp):
// pinned nodes are 0 and their free children split from 0.
Eigen::MatrixXd leaf_map(const HierarchyTree& tree, const CascadeLaw& law) {
  std::size_t draws = 1;
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) draws += tree.n_children(v) >= 2 ? tree.n_children(v) : 0;
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(tree.n_nodes(), draws);
  if (!law.pinned(0)) map(0, 0) = std::sqrt(law.level_variance(0));
  std::size_t next = 1;
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    const std::uint32_t m = tree.n_children(v), c0 = tree.first_child(v);
    if (m == 0 || law.pinned(c0)) continue;
    if (m == 1) {
      map.row(c0) = map.row(v);
      continue;
    }
    const unsigned d = tree.depth(v);
    const double tau = std::sqrt(law.split_tau2(v, d, m));
    for (std::uint32_t k = 0; k < m; ++k) {
      map.row(c0 + k) = map.row(v) / m;
      for (std::uint32_t j = 0; j < m; ++j) map(c0 + k, next + j) += tau * ((j == k ? 1.0 : 0.0) - 1.0 / m);
    }
    next += m;
  }
  Eigen::MatrixXd leaves(tree.n_leaves(), draws);
  for (std::uint32_t i = 0; i < tree.n_leaves(); ++i) leaves.row(i) = map.row(tree.leaf_node(i));
  return leaves;
}

Eigen::MatrixXd pinv_psd(const Eigen::MatrixXd& m) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  Eigen::VectorXd inv = eig.eigenvalues();
  for (Eigen::Index k = 0; k < inv.size(); ++k) inv(k) = inv(k) > 1e-9 * eig.eigenvalues().maxCoeff() ? 1 / inv(k) : 0;
  return eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
}

HierarchyTree random_tree_of_depth(std::mt19937_64& gen, unsigned depth) {
  std::vector<std::int64_t> parent{-1}, level{0};
  for (unsigned d = 0; d < depth; ++d) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level) {
      const unsigned m = 2 + gen() % 2;
      for (unsigned k = 0; k < m; ++k) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    }
    level = next;
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

void expect_conditioning_is_projection(const HierarchyTree& tree, const CascadeLaw& law,
                                       const std::vector<std::uint32_t>& fixed) {
  const Eigen::MatrixXd full = leaf_map(tree, law);
  const Eigen::MatrixXd sigma = full * full.transpose();
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(fixed.size(), tree.n_leaves());
  for (std::size_t r = 0; r < fixed.size(); ++r)
    for (std::uint32_t i = tree.leaf_begin(fixed[r]); i < tree.leaf_end(fixed[r]); ++i) a(r, i) = 1;
  const Eigen::MatrixXd projected =
      sigma - sigma * a.transpose() * pinv_psd(a * sigma * a.transpose()) * a * sigma;
  const CascadeLaw conditioned = law.conditioned_on(tree, fixed);
  const Eigen::MatrixXd sampled_map = leaf_map(tree, conditioned);
  const Eigen::MatrixXd sampled = sampled_map * sampled_map.transpose();
  EXPECT_LT((sampled - projected).cwiseAbs().maxCoeff(), 1e-10);
  const Eigen::Index n = sigma.rows();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) EXPECT_NEAR(leaf_covariance(tree, conditioned, i, j), projected(i, j), 1e-10);
  for (Eigen::Index lo = 0; lo < n; ++lo)
    for (Eigen::Index hi = lo; hi < n; ++hi)
      EXPECT_NEAR(range_variance(tree, conditioned, lo, hi), projected.block(lo, lo, hi - lo + 1, hi - lo + 1).sum(),
                  1e-9);
  // Every node's variance: the sum of its leaves' block, by walks to the root
  // and by the one pass down the tree.
  const std::vector<double> all = node_variances(tree, conditioned, Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    const Eigen::Index lo = tree.leaf_begin(v), size = tree.leaf_end(v) - tree.leaf_begin(v);
    const double block = projected.block(lo, lo, size, size).sum();
    EXPECT_NEAR(node_variance(tree, conditioned, v), block, 1e-9) << v;
    EXPECT_NEAR(all[v], block, 1e-9) << v;
  }
  // Privacy under the conditioned law: the moves that keep every fixed total.
  const Eigen::MatrixXd plus = pinv_psd(projected);
  double best = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      if (i == j) continue;
      Eigen::VectorXd dx = Eigen::VectorXd::Zero(n);
      dx(i) = 1;
      dx(j) = -1;
      if ((a * dx).cwiseAbs().maxCoeff() > 0) {
        EXPECT_THROW(replace_one_cost(tree, conditioned, i, j), InvalidArgument);
        continue;
      }
      const double dense = dx.dot(plus * dx);
      EXPECT_NEAR(replace_one_cost(tree, conditioned, i, j), dense, 1e-7 * dense);
      best = std::max(best, dense);
    }
  }
  EXPECT_NEAR(max_sensitivity_squared(tree, conditioned, Neighbours::ReplaceOne, Interrupts()), best,
              1e-7 * (1 + best));
  EXPECT_THROW(max_sensitivity_squared(tree, conditioned, Neighbours::AddRemove, Interrupts()), InvalidArgument);
}

TEST(CascadeConditioning, EqualsTheSigmaProjection) {
  std::mt19937_64 gen(3);
  for (int trial = 0; trial < 3; ++trial) {
    const auto tree = random_tree_of_depth(gen, 3);
    const CascadeLaw law(tree, {9.0, 4.0, 2.25, 1.44});
    std::vector<std::uint32_t> level1, mixed, with_root{0};
    for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) {
      level1.push_back(v);
      with_root.push_back(v);
    }
    // A cut at mixed depths: the first state itself, the others' children.
    mixed.push_back(tree.level_begin(1));
    for (std::uint32_t v = tree.level_begin(1) + 1; v < tree.level_end(1); ++v)
      for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) mixed.push_back(c);
    expect_conditioning_is_projection(tree, law, level1);
    expect_conditioning_is_projection(tree, law, with_root);
    expect_conditioning_is_projection(tree, law, mixed);
    expect_conditioning_is_projection(tree, law, {0});
  }
}

TEST(CascadeConditioning, RefusesFixedNodesThatDoNotCutTheTree) {
  const auto tree = HierarchyTree::perfect_binary(3, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 1.0);
  EXPECT_THROW(law.conditioned_on(tree, {1}), InvalidArgument);     // leaves under node 2 left free
  EXPECT_THROW(law.conditioned_on(tree, {0, 3}), InvalidArgument);  // 4 fixed by difference
  EXPECT_THROW(law.conditioned_on(tree, {99}), InvalidArgument);
  EXPECT_NO_THROW(law.conditioned_on(tree, {1, 5, 6}));
}

test_tables::TestTable states_counties() {
  return {{"state", "county", "tract"},
          {"s1", "c1", "t1", "s1", "c1", "t2", "s1", "c2", "t3", "s2", "c3", "t4", "s2", "c3", "t5", "s3", "c4", "t6"},
          {10, 20, 30, 40, 50, 60}};
}

// Asks to stop once *polls_left polls have passed.
using test_interrupts::pending_after;

// A law's checks and its conditioning are passes over every node: on a root
// over 100000 leaves, a cancel stops them inside the pass.
TEST(CascadeConditioning, LawsPollForCancellation) {
  std::vector<std::int64_t> parents(100001, 0);
  parents[0] = -1;
  const auto flat = HierarchyTree::from_parents(parents, Interrupts());
  int polls_left = 0;
  EXPECT_THROW(CascadeLaw::uniform(flat, 1.0, Interrupts(pending_after, &polls_left)), Interrupted);
  polls_left = 0;
  EXPECT_THROW(CascadeLaw(flat, {1.0, 2.0}, Interrupts(pending_after, &polls_left)), Interrupted);
  std::vector<std::uint32_t> leaves;
  for (std::uint32_t v = flat.level_begin(1); v < flat.level_end(1); ++v) leaves.push_back(v);
  // Some 25 polls per pass over the 100000 fixed nodes or leaves: the 31st
  // is in the second pass.
  polls_left = 30;
  EXPECT_THROW(CascadeLaw::uniform(flat, 1.0).conditioned_on(flat, leaves, Interrupts(pending_after, &polls_left)),
               Interrupted);
  EXPECT_EQ(CascadeLaw::uniform(flat, 1.0).conditioned_on(flat, leaves).n_fixed_nodes(), 100000u);
}

TEST(CascadeConditioning, MarginsThatAreLevelsBecomeNodes) {
  const auto table = states_counties();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  // Each group maps to the deepest node with exactly its cells; in a
  // one-child chain (s2 -> c3, s3 -> c4 -> t6) all carry the same noise.
  auto nodes = margin_nodes(tree, keys, {0}, Interrupts());
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::uint32_t>{1, 6, 13}));
  EXPECT_EQ(margin_nodes(tree, keys, {}, Interrupts()), (std::vector<std::uint32_t>{0}));
  nodes = margin_nodes(tree, keys, {1}, Interrupts());  // county names are unique here
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::uint32_t>{4, 6, 10, 13}));
  const auto law = CascadeLaw::uniform(tree, 1.0).conditioned_on(tree, margin_nodes(tree, keys, {0}, Interrupts()));
  EXPECT_EQ(law.n_fixed_nodes(), 3u);
  for (std::uint32_t v : {0u, 1u, 2u, 3u, 6u, 7u, 13u}) EXPECT_TRUE(law.pinned(v)) << v;
  for (std::uint32_t v : {4u, 5u, 8u, 10u, 11u}) EXPECT_FALSE(law.pinned(v)) << v;
}

TEST(CascadeConditioning, MarginsThatAreNotNodesAreRefused) {
  // County c1 exists in two states: its total spans two nodes.
  const test_tables::TestTable shared{{"state", "county"}, {"s1", "c1", "s1", "c2", "s2", "c1"}, {1, 2, 3}};
  const auto keys = shared.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1}, Interrupts());
  try {
    margin_nodes(tree, keys, {1}, Interrupts());
    FAIL() << "accepted a margin that is not a level";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("(county)"), std::string::npos);
    EXPECT_FALSE(e.detail().empty());
    EXPECT_FALSE(e.hint().empty());
  }
  // A crossed column (sex) under a state hierarchy.
  const auto grid = test_tables::grid({"state", "sex"}, {3, 2}, {1, 2, 3, 4, 5, 6});
  const auto grid_keys = grid.keys();
  const auto grid_tree = HierarchyTree::from_cell_keys(grid_keys, {0}, Interrupts());
  EXPECT_THROW(margin_nodes(grid_tree, grid_keys, {1}, Interrupts()), InvalidArgument);
  EXPECT_EQ(margin_nodes(grid_tree, grid_keys, {0}, Interrupts()).size(), 3u);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
