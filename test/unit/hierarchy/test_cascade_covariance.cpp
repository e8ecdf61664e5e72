// Unit tests of the cascade law's closed forms (cascade_covariance.hpp,
// cascade_privacy.hpp) against an explicit construction with Eigen: the
// linear map from the draws of the algorithm (the split rules of
// src/core/hierarchy/DERIVATIONS.md, section 1) to every node's noise, its
// covariance L L^T, and Sigma^-1 by inversion. Also the recursion for
// Sigma_k of Dharangutte, Gao, Gong, Wang 2024 (arXiv:2402.07066,
// Definition 3.1, eq. 1), its inverse diagonal 1 + k/3 (Corollary B.3), the
// range-variance oracles and the precision formulas of DERIVATIONS.md,
// sections 2-3.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/cascade_privacy.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Rows: nodes (node order); columns: the standard normals of the algorithm.
// Built from the split rules directly, not from the closed forms.
Eigen::MatrixXd node_map(const HierarchyTree& tree, const CascadeLaw& law) {
  std::size_t draws = 1;
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v)
    if (tree.n_children(v) >= 2) draws += tree.n_children(v) == 2 ? 1 : tree.n_children(v);
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(tree.n_nodes(), draws);
  if (!law.pinned(0)) map(0, 0) = std::sqrt(law.level_variance(0));
  std::size_t next = 1;
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    const std::uint32_t m = tree.n_children(v), c0 = tree.first_child(v);
    if (m == 0) continue;
    const unsigned d = tree.depth(v);
    const double vp = law.node_variance(v, d), vc = law.level_variance(d + 1);
    const bool pinned = law.pinned(c0);
    if (m == 1) {
      if (!pinned) map.row(c0) = map.row(v);
    } else if (m == 2) {
      const double h = std::sqrt(vc - vp / 4);
      if (!pinned) {
        map.row(c0) = map.row(v) / 2;
        map.row(c0 + 1) = map.row(v) / 2;
        map(c0, next) += h;
        map(c0 + 1, next) -= h;
      }
      next += 1;
    } else {
      const double tau = std::sqrt((vc - vp / (m * m)) * m / (m - 1.0));
      for (std::uint32_t k = 0; k < m && !pinned; ++k) {
        map.row(c0 + k) = map.row(v) / m;
        for (std::uint32_t j = 0; j < m; ++j) map(c0 + k, next + j) += tau * ((j == k ? 1.0 : 0.0) - 1.0 / m);
      }
      next += m;
    }
  }
  return map;
}

Eigen::MatrixXd leaf_cov(const HierarchyTree& tree, const CascadeLaw& law) {
  const Eigen::MatrixXd map = node_map(tree, law);
  Eigen::MatrixXd leaves(tree.n_leaves(), map.cols());
  for (std::uint32_t i = 0; i < tree.n_leaves(); ++i) leaves.row(i) = map.row(tree.leaf_node(i));
  return leaves * leaves.transpose();
}

// The paper's recursion (1): Sigma_k from Sigma_{k-1} and -2^-(2k-1) blocks.
Eigen::MatrixXd recursive_sigma(unsigned k) {
  Eigen::MatrixXd s = Eigen::MatrixXd::Ones(1, 1);
  for (unsigned j = 1; j <= k; ++j) {
    const Eigen::Index h = s.rows();
    Eigen::MatrixXd next = Eigen::MatrixXd::Constant(2 * h, 2 * h, -std::ldexp(1.0, -(2 * int(j) - 1)));
    next.topLeftCorner(h, h) = s;
    next.bottomRightCorner(h, h) = s;
    s = next;
  }
  return s;
}

// A random tree with fan-outs in [min_fanout, max_fanout] down to a depth.
HierarchyTree random_tree(std::mt19937_64& gen, unsigned depth, unsigned min_fanout, unsigned max_fanout) {
  std::vector<std::int64_t> parent{-1};
  std::vector<std::int64_t> level{0};
  for (unsigned d = 0; d < depth; ++d) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level) {
      const unsigned m = min_fanout + gen() % (max_fanout - min_fanout + 1);
      for (unsigned k = 0; k < m; ++k) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    }
    level = next;
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

void expect_law_matches_dense(const HierarchyTree& tree, const CascadeLaw& law) {
  const Eigen::MatrixXd map = node_map(tree, law);
  const Eigen::MatrixXd sigma = leaf_cov(tree, law);
  const Eigen::Index n = sigma.rows();
  const std::vector<double> all = node_variances(tree, law, Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    // Every node at its level's variance (its chain top's below a one-child node).
    const double target = law.node_variance(v, tree.depth(v));
    EXPECT_NEAR(map.row(v).squaredNorm(), target, 1e-12) << v;
    EXPECT_NEAR(node_variance(tree, law, v), target, 1e-12) << v;
    EXPECT_NEAR(all[v], target, 1e-12) << v;
  }
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      EXPECT_NEAR(leaf_covariance(tree, law, i, j), sigma(i, j), 1e-12) << i << "," << j;
  const Eigen::MatrixXd precision = sigma.inverse();
  double max_add = 0, max_replace = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    max_add = std::max(max_add, precision(i, i));
    for (Eigen::Index j = 0; j < n; ++j) {
      EXPECT_NEAR(precision_entry(tree, law, i, j), precision(i, j), 1e-8 * (1 + std::fabs(precision(i, j))));
      const double pair = precision(i, i) + precision(j, j) - 2 * precision(i, j);
      EXPECT_NEAR(replace_one_cost(tree, law, i, j), pair, 1e-8 * (1 + pair));
      max_replace = std::max(max_replace, pair);
    }
  }
  EXPECT_NEAR(max_sensitivity_squared(tree, law, Neighbours::AddRemove, Interrupts()), max_add, 1e-8 * max_add);
  EXPECT_NEAR(max_sensitivity_squared(tree, law, Neighbours::ReplaceOne, Interrupts()), max_replace,
              1e-8 * (1 + max_replace));
  for (Eigen::Index lo = 0; lo < n; ++lo) {
    for (Eigen::Index hi = lo; hi < n; ++hi) {
      const double dense = sigma.block(lo, lo, hi - lo + 1, hi - lo + 1).sum();
      EXPECT_NEAR(range_variance(tree, law, lo, hi), dense, 1e-10 * (1 + dense)) << lo << ".." << hi;
    }
  }
}

TEST(CascadeCovariance, PerfectBinaryMatchesThePaperRecursion) {
  for (unsigned k = 0; k <= 6; ++k) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    const auto law = CascadeLaw::uniform(tree, 1.0);
    const Eigen::MatrixXd sigma = leaf_cov(tree, law);
    EXPECT_LT((sigma - recursive_sigma(k)).cwiseAbs().maxCoeff(), 1e-13) << k;
    // Proposition B.1: rows sum to 2^-k; Corollary B.3: diag Sigma^-1 = 1 + k/3.
    EXPECT_LT((sigma.rowwise().sum().array() - std::ldexp(1.0, -int(k))).abs().maxCoeff(), 1e-13);
    const Eigen::MatrixXd precision = sigma.inverse();
    EXPECT_LT((precision.diagonal().array() - (1 + k / 3.0)).abs().maxCoeff(), 1e-9) << k;
    EXPECT_NEAR(max_sensitivity_squared(tree, law, Neighbours::AddRemove, Interrupts()), 1 + k / 3.0, 1e-12);
    // Replace-one: (2(k - d_w) + 2)/3, largest across the root: (2k + 2)/3.
    if (k > 0) {
      EXPECT_NEAR(max_sensitivity_squared(tree, law, Neighbours::ReplaceOne, Interrupts()), (2 * k + 2) / 3.0, 1e-12);
      EXPECT_NEAR(replace_one_cost(tree, law, 0, 1), 4 / 3.0, 1e-12);  // siblings: d_w = k - 1
    }
  }
}

TEST(CascadeCovariance, PerfectBinaryAgainstDenseInEveryEntry) {
  for (unsigned k : {1u, 3u, 5u}) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    expect_law_matches_dense(tree, CascadeLaw::uniform(tree, 2.5));
  }
}

TEST(CascadeCovariance, NodePairsFollowTheClosedForms) {
  // Siblings -v/m; ancestor at distance d: v 2^-d (binary); leaves across the
  // root -2^-(2k-1).
  const unsigned k = 4;
  const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 1.0);
  const Eigen::MatrixXd map = node_map(tree, law);
  const Eigen::MatrixXd cov = map * map.transpose();
  EXPECT_NEAR(cov(1, 2), -0.5, 1e-14);
  EXPECT_NEAR(cov(0, 15), std::ldexp(1.0, -4), 1e-14);  // root vs first leaf
  EXPECT_NEAR(cov(1, 7), 0.25, 1e-14);                  // depth 1 vs depth 3 below it
  EXPECT_NEAR(leaf_covariance(tree, law, 0, 15), -std::ldexp(1.0, -(2 * int(k) - 1)), 1e-15);
  // m-ary: siblings -1/m.
  const auto wide = HierarchyTree::from_parents({-1, 0, 0, 0, 0, 0}, Interrupts());
  const auto wide_law = CascadeLaw::uniform(wide, 1.0);
  EXPECT_NEAR(leaf_covariance(wide, wide_law, 1, 3), -1.0 / 5, 1e-14);
  EXPECT_NEAR(max_sensitivity_squared(wide, wide_law, Neighbours::AddRemove, Interrupts()), 1 + 4.0 / 6, 1e-12);
}

TEST(CascadeCovariance, GeneralTreesAndChainsAgainstDense) {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 6; ++trial) {
    const auto tree = random_tree(gen, 3, 1, 4);  // one-child nodes included
    if (tree.n_leaves() > 70) continue;
    const auto law = CascadeLaw::uniform(tree, 1.7);
    expect_law_matches_dense(tree, law);
    // DERIVATIONS.md section 3: Sigma^-1_ii = 1/v + sum over ancestors (m-1)/((m+1) v).
    for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf) {
      double expected = 1;
      for (std::uint32_t v = tree.parent(tree.leaf_node(leaf)); v != kNoNode; v = tree.parent(v)) {
        const double m = tree.n_children(v);
        expected += (m - 1) / (m + 1);
      }
      EXPECT_NEAR(precision_entry(tree, law, leaf, leaf), expected / 1.7, 1e-12);
    }
  }
}

TEST(CascadeCovariance, PerLevelTargetsAgainstDense) {
  std::mt19937_64 gen(11);
  const std::vector<double> sd{3, 2, 1.5, 1.2};
  std::vector<double> v;
  for (double s : sd) v.push_back(s * s);
  for (int trial = 0; trial < 4; ++trial) {
    const auto tree = random_tree(gen, 3, 2, 4);
    if (tree.n_leaves() > 70) continue;
    const CascadeLaw law(tree, v);
    expect_law_matches_dense(tree, law);
    // DERIVATIONS.md section 3: Sigma^-1_ii = 1/v_root + sum (m-1)^2 / (m^2 v_child - v_s).
    for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf) {
      double expected = 1 / v[0];
      for (std::uint32_t u = tree.parent(tree.leaf_node(leaf)); u != kNoNode; u = tree.parent(u)) {
        const double m = tree.n_children(u);
        const unsigned d = tree.depth(u);
        expected += (m - 1) * (m - 1) / (m * m * v[d + 1] - v[d]);
      }
      EXPECT_NEAR(precision_entry(tree, law, leaf, leaf), expected, 1e-10);
    }
  }
}

TEST(CascadeCovariance, PerLevelTargetsWithOneChildChainsAgainstDense) {
  std::mt19937_64 gen(13);
  for (int trial = 0; trial < 5; ++trial) {
    const auto tree = random_tree(gen, 3, 1, 3);
    const CascadeLaw law(tree, {4.0, 3.0, 2.0, 1.5});
    expect_law_matches_dense(tree, law);
    expect_law_matches_dense(tree, law.scaled(2.5));
  }
}

TEST(CascadeCovariance, RangeVarianceOracles) {
  // The largest range variance (6k + 4 - 4^(1-k))/9 and the sum over all
  // n(n+1)/2 ranges n(n+1)(2k-1)/8 + n + 1/4 (sigma = 1): closed forms fitted
  // to exhaustive computation, not proven (DERIVATIONS.md, section 2).
  for (unsigned k = 1; k <= 8; ++k) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    const auto law = CascadeLaw::uniform(tree, 1.0);
    const double n = std::ldexp(1.0, k);
    double worst = 0, total = 0;
    for (std::uint32_t lo = 0; lo < n; ++lo) {
      for (std::uint32_t hi = lo; hi < n; ++hi) {
        const double var = range_variance(tree, law, lo, hi);
        worst = std::max(worst, var);
        total += var;
      }
    }
    EXPECT_NEAR(worst, (6 * k + 4 - std::pow(4.0, 1.0 - k)) / 9, 1e-10) << k;
    EXPECT_NEAR(total, n * (n + 1) * (2 * k - 1) / 8 + n + 0.25, 1e-7 * total) << k;
  }
}

TEST(CascadeCovariance, InfeasibleTargetsAreRefused) {
  const auto tree = HierarchyTree::perfect_binary(2, Interrupts());
  try {
    CascadeLaw(tree, {1.0, 0.2, 1.0});  // a parent sd above 2x its children's
    FAIL() << "accepted infeasible targets";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("level 0"), std::string::npos);
    EXPECT_NE(e.detail().find("0.25"), std::string::npos);  // 1/4, the floor
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_THROW(CascadeLaw(tree, {1.0, 0.25, 1.0}), InvalidArgument);  // equality: degenerate
  EXPECT_NO_THROW(CascadeLaw(tree, {1.0, 0.2501, 0.07}));
  EXPECT_THROW(CascadeLaw(tree, {1.0, 1.0}), InvalidArgument);
  EXPECT_THROW(CascadeLaw(tree, {1.0, -1.0, 1.0}), InvalidArgument);
  // A one-child node passes its noise down: its child has the parent's
  // variance, and a split below a chain starts from it.
  const auto chain = HierarchyTree::from_parents({-1, 0, 1}, Interrupts());
  const CascadeLaw chain_law(chain, {1.0, 2.0, 2.0});
  EXPECT_EQ(chain_law.node_variance(2, 2), 1.0);
  const auto chain_split = HierarchyTree::from_parents({-1, 0, 1, 1}, Interrupts());
  try {
    CascadeLaw(chain_split, {9.0, 1.0, 2.0});  // the chain carries 9 down; 9/4 > 2
    FAIL() << "accepted an infeasible split below a chain";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.detail().find("inherited"), std::string::npos) << e.detail();
  }
  EXPECT_NO_THROW(CascadeLaw(chain_split, {7.9, 1.0, 2.0}));
}

TEST(CascadeCovariance, DegenerateTrees) {
  const auto single = HierarchyTree::perfect_binary(0, Interrupts());
  const auto law = CascadeLaw::uniform(single, 4.0);
  EXPECT_DOUBLE_EQ(leaf_covariance(single, law, 0, 0), 4.0);
  EXPECT_DOUBLE_EQ(range_variance(single, law, 0, 0), 4.0);
  EXPECT_DOUBLE_EQ(max_sensitivity_squared(single, law, Neighbours::AddRemove, Interrupts()), 0.25);
  EXPECT_DOUBLE_EQ(max_sensitivity_squared(single, law, Neighbours::ReplaceOne, Interrupts()), 0.0);
  // A one-child chain costs nothing: the same as a single cell.
  const auto chain = HierarchyTree::from_parents({-1, 0, 1, 2}, Interrupts());
  const auto chain_law = CascadeLaw::uniform(chain, 4.0);
  EXPECT_DOUBLE_EQ(leaf_covariance(chain, chain_law, 0, 0), 4.0);
  EXPECT_DOUBLE_EQ(max_sensitivity_squared(chain, chain_law, Neighbours::AddRemove, Interrupts()), 0.25);
}

// Asks to stop once *polls_left polls have passed.
using test_interrupts::pending_after;

// The sensitivity pass polls per node and per child. A root over 100000
// leaves is 100001 nodes and 100000 children: 49 polls at one every 4096
// steps, 25 if only nodes counted, so a stop at the 31st poll shows the
// children's loop polls too.
TEST(CascadePrivacy, InterruptStopsTheSensitivityPass) {
  std::vector<std::int64_t> parents(100001, 0);
  parents[0] = -1;
  const auto flat = HierarchyTree::from_parents(parents, Interrupts());
  const auto law = CascadeLaw::uniform(flat, 1.0);
  for (Neighbours nb : {Neighbours::AddRemove, Neighbours::ReplaceOne}) {
    int polls_left = 30;
    EXPECT_THROW(max_sensitivity_squared(flat, law, nb, Interrupts(pending_after, &polls_left)), Interrupted);
    int none = 0;
    EXPECT_THROW(protected_sensitivity_squared(flat, law, Protected(nb, 2), Interrupts(pending_after, &none)),
                 Interrupted);
  }
  int plenty = 1000;
  EXPECT_NO_THROW(max_sensitivity_squared(flat, law, Neighbours::ReplaceOne, Interrupts(pending_after, &plenty)));
  EXPECT_EQ(plenty, 1000 - 49);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
