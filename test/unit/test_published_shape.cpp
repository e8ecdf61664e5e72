// Range variances on a published shape (published_shape.hpp), which holds
// nothing per leaf, against the tree built node by node (HierarchyTree,
// CascadeLaw, range_variance) on random shapes, laws, exact totals and
// ranges: the same variance, or the same error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/published_shape.hpp"

using namespace invariant_dp;
using namespace invariant_dp::hierarchy;

namespace {

// A random valid list of child counts in level order.
std::vector<std::uint32_t> random_children(std::mt19937_64& rng) {
  const std::uint32_t choices[] = {0, 1, 1, 2, 2, 3, 4, 7};
  const std::size_t listed = 1 + rng() % 12;
  std::vector<std::uint32_t> children;
  std::uint64_t created = 1;
  for (std::size_t v = 0; v < listed && v < created; ++v) {
    std::uint32_t c = choices[rng() % 8];
    if (v + 1 == created && c == 0) c = 1 + rng() % 3;  // keep the list going
    children.push_back(c);
    created += c;
  }
  return children;
}

std::vector<std::int64_t> parents_of(const std::vector<std::uint32_t>& children) {
  std::vector<std::int64_t> parent{-1};
  for (std::size_t v = 0; v < children.size(); ++v) parent.insert(parent.end(), children[v], std::int64_t(v));
  return parent;
}

// Every node at depth d, and every leaf above it: exact totals that cut the tree.
std::vector<std::uint32_t> cut_at(const HierarchyTree& tree, unsigned d) {
  std::vector<std::uint32_t> fixed;
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v)
    if (tree.depth(v) == d || (tree.depth(v) < d && tree.is_leaf(v))) fixed.push_back(v);
  return fixed;
}

// The variance through the node-by-node tree, or its error's message.
std::string by_tree(const HierarchyTree& tree, const std::vector<double>& levels,
                    const std::vector<std::uint32_t>& fixed, std::uint64_t lo, std::uint64_t hi, double& variance) {
  try {
    CascadeLaw law(tree, levels);
    if (!fixed.empty()) law = law.conditioned_on(tree, fixed);
    if (lo > hi || hi >= tree.n_leaves()) return "leaf range out of bounds";
    variance = range_variance(tree, law, std::uint32_t(lo), std::uint32_t(hi));
    return "";
  } catch (const Error& e) {
    return std::string(e.what()) + " / " + e.detail();
  }
}

std::string by_shape(const PublishedShape& shape, const std::vector<double>& levels,
                     const std::vector<std::uint32_t>& fixed, std::uint64_t lo, std::uint64_t hi, double& variance) {
  try {
    variance = shape.range_variance(levels, std::vector<std::uint64_t>(fixed.begin(), fixed.end()), lo, hi, {});
    return "";
  } catch (const Error& e) {
    if (std::string(e.what()) == "leaf range out of bounds") return e.what();
    return std::string(e.what()) + " / " + e.detail();
  }
}

TEST(PublishedShape, AgreesWithTheTreeBuiltNodeByNode) {
  std::mt19937_64 rng(20261127);
  int compared = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<std::uint32_t> children = random_children(rng);
    const auto tree = HierarchyTree::from_parents(parents_of(children), Interrupts());
    const PublishedShape shape(children.data(), children.size(), Interrupts());
    ASSERT_EQ(shape.n_nodes(), tree.n_nodes());
    ASSERT_EQ(shape.n_leaves(), tree.n_leaves());
    ASSERT_EQ(shape.height(), tree.height());
    // Targets shrinking by depth (feasible splits), or random ones (some
    // infeasible, some through one-child chains), or a wrong count.
    std::vector<double> levels(tree.height() + 1 + (trial % 37 == 0 ? 1 : 0));
    for (std::size_t d = 0; d < levels.size(); ++d)
      levels[d] = trial % 3 == 0 ? 0.25 + double(rng() % 100) / 10 : 16.0 * std::pow(0.55, double(d));
    std::vector<std::uint32_t> fixed;
    if (trial % 4 == 1) fixed = cut_at(tree, unsigned(rng() % (tree.height() + 1)));
    if (trial % 4 == 2 && tree.n_nodes() > 1) fixed = {std::uint32_t(1 + rng() % (tree.n_nodes() - 1))};
    const std::uint64_t a = rng() % (tree.n_leaves() + 1), b = rng() % tree.n_leaves();
    const std::uint64_t lo = std::min(a, b), hi = trial % 50 == 0 ? a : std::max(a, b);
    double expected = 0, got = 0;
    const std::string tree_error = by_tree(tree, levels, fixed, lo, hi, expected);
    const std::string shape_error = by_shape(shape, levels, fixed, lo, hi, got);
    ASSERT_EQ(shape_error, tree_error) << "trial " << trial;
    if (!tree_error.empty()) {
      ++refused;
      continue;
    }
    EXPECT_NEAR(got, expected, 1e-12 * std::max(1.0, std::fabs(expected))) << "trial " << trial;
    ++compared;
  }
  // Both outcomes were exercised many times.
  EXPECT_GT(compared, 1000);
  EXPECT_GT(refused, 300);
}

// A shape of 2^31 leaves under one root costs the memory of one node: the
// variance of a range is its closed form, m - 1 leaves of a split.
TEST(PublishedShape, BillionsOfLeavesNeedNoNodePerLeaf) {
  const std::uint32_t wide[] = {2147483647u};
  const PublishedShape shape(wide, 1, Interrupts());
  EXPECT_EQ(shape.n_leaves(), 2147483647u);
  const double m = 2147483647.0, v0 = 1, v1 = 2;
  const double tau2 = (v1 - v0 / (m * m)) * m / (m - 1);
  const double k = 1000;  // leaves 5 .. 1004
  const double expected = tau2 * (k - k * k / m) + (k / m) * (k / m) * v0;
  EXPECT_NEAR(shape.range_variance({v0, v1}, {}, 5, 1004, {}), expected, 1e-12 * expected);
  // Through the C boundary, a published list of 100,000 such nodes.
  std::vector<std::uint32_t> many(100000, 0);
  many[0] = 99999;
  many[1] = 4000000000u;
  idp_error error{};
  double lower = 0, upper = 0;
  const double levels[] = {1, 2, 3};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", many.data(), many.size(), levels, 3, nullptr, 0, 0,
                                       0, 3999999999ull, nullptr, &lower, &upper, &error),
            IDP_OK)
      << error.message;
  EXPECT_GT(upper, 0);
  EXPECT_EQ(lower, upper);
  // An exact total on one of the root's 99,999 children only: not a cut.
  const std::uint32_t fixed[] = {1};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", many.data(), many.size(), levels, 3, fixed, 1, 0, 0,
                                       1, nullptr, &lower, &upper, &error),
            IDP_INVALID_ARGUMENT);
}

TEST(PublishedShape, ListedNodesWithoutAParentAreRefused) {
  const std::uint32_t orphan[] = {1, 1, 1, 0, 2};  // node 4 is never created
  EXPECT_THROW(PublishedShape(orphan, 5, Interrupts()), InvalidArgument);
  const PublishedShape root(nullptr, 0, Interrupts());
  EXPECT_EQ(root.n_leaves(), 1u);
  EXPECT_DOUBLE_EQ(root.range_variance({3}, {}, 0, 0, {}), 3.0);
}

}  // namespace
