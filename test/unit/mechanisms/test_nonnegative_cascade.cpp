// Unit tests of the non-negative cascade (hierarchy/nonnegative_cascade*):
// the privacy cost against brute force over every move, the calibration,
// the exact privacy loss of small releases by enumeration (above the base
// epsilon, within twice it), the pinned structure, the per-node bias and
// variance against exact enumeration, the release's properties on random trees (every node >= 0,
// every parent the sum of its children, every exact total kept), the
// refusals, cancellation in every phase, and the sampler's bounds under
// windows small enough to force every fallback path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "errors.hpp"
#include "hierarchy/nonnegative_cascade.hpp"
#include "hierarchy/rollup.hpp"
#include "nonnegative_enumeration.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

using nonnegative_test::enumerate_law;

NonnegativeLaw make_law(const HierarchyTree& tree, std::vector<double> eps, const std::vector<std::uint32_t>& fixed) {
  return NonnegativeLaw(tree, std::move(eps), nonnegative_pinned(tree, fixed, Interrupts()), fixed.size());
}

// A random tree of the given height, every leaf at that depth: each
// internal node has 1 to max_fanout children (some one-child chains).
HierarchyTree random_leveled_tree(std::mt19937_64& gen, unsigned height, unsigned max_fanout) {
  std::vector<std::int64_t> parent{-1};
  std::vector<std::int64_t> level{0};
  for (unsigned d = 0; d < height; ++d) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level) {
      const unsigned children = 1 + static_cast<unsigned>(gen() % max_fanout);
      for (unsigned c = 0; c < children; ++c) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    }
    level = std::move(next);
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

std::vector<std::uint32_t> nodes_at(const HierarchyTree& tree, unsigned depth) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t v = tree.level_begin(depth); v < tree.level_end(depth); ++v) out.push_back(v);
  return out;
}

// max over every protected single-record move of sum_{free v} eps_v |dx_v|,
// by listing the moves.
double brute_force_cost(const HierarchyTree& tree, const NonnegativeLaw& law, Neighbours neighbours) {
  const std::size_t n = tree.n_nodes(), L = tree.n_leaves();
  auto delta_of = [&](std::int64_t plus_leaf, std::int64_t minus_leaf) {
    std::vector<std::int64_t> dx(n, 0);
    for (std::uint32_t v = 0; v < n; ++v) {
      if (plus_leaf >= 0 && tree.leaf_begin(v) <= plus_leaf && plus_leaf < tree.leaf_end(v)) ++dx[v];
      if (minus_leaf >= 0 && tree.leaf_begin(v) <= minus_leaf && minus_leaf < tree.leaf_end(v)) --dx[v];
    }
    return dx;
  };
  auto cost_of = [&](const std::vector<std::int64_t>& dx) {
    double c = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (law.pinned(v)) {
        if (dx[v] != 0) return -1.0;  // changes an exact total: not a protected move
        continue;
      }
      c += law.level_epsilon(tree.depth(v)) * std::fabs(double(dx[v]));
    }
    return c;
  };
  double best = 0;
  if (neighbours == Neighbours::AddRemove) {
    for (std::size_t i = 0; i < L; ++i) best = std::max(best, cost_of(delta_of(std::int64_t(i), -1)));
  } else {
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < L; ++j)
        if (i != j) best = std::max(best, cost_of(delta_of(std::int64_t(i), std::int64_t(j))));
  }
  return best;
}

TEST(NonnegativeCascadeCalibration, BaseEpsilonIsTheLargestMoveCost) {
  std::mt19937_64 gen(11);
  for (int trial = 0; trial < 60; ++trial) {
    const unsigned height = 1 + static_cast<unsigned>(gen() % 4);
    const auto tree = random_leveled_tree(gen, height, 3);
    std::vector<double> eps(height + 1);
    for (double& e : eps) e = double(1 + gen() % 40) / 16;
    std::vector<std::uint32_t> fixed;
    if (trial % 3 == 1) fixed.assign(1, 0);
    if (trial % 3 == 2 && height >= 2) fixed = nodes_at(tree, 1);
    const NonnegativeLaw law = make_law(tree, eps, fixed);
    for (Neighbours nb : {Neighbours::ReplaceOne, Neighbours::AddRemove}) {
      if (nb == Neighbours::AddRemove && !fixed.empty()) {
        EXPECT_THROW(nonnegative_base_epsilon(tree, law, {nb}, Interrupts()), InvalidArgument);
        continue;
      }
      const double exact = brute_force_cost(tree, law, nb);
      const double computed = nonnegative_base_epsilon(tree, law, {nb}, Interrupts());
      EXPECT_GE(computed, exact) << "trial " << trial;
      EXPECT_LE(computed, exact * (1 + 1e-12)) << "trial " << trial;
      // A unit of 3 records: three such moves.
      EXPECT_NEAR(nonnegative_base_epsilon(tree, law, {nb, 3.0}, Interrupts()),
                  3 * std::max(exact, nb == Neighbours::ReplaceOne && fixed.empty()
                                          ? brute_force_cost(tree, law, Neighbours::AddRemove)
                                          : exact),
                  1e-9);
    }
  }
}

TEST(NonnegativeCascadeCalibration, SpendsHalfTheBudgetOnTheBaseLaw) {
  std::mt19937_64 gen(12);
  for (int trial = 0; trial < 20; ++trial) {
    const unsigned height = 2 + static_cast<unsigned>(gen() % 3);
    const auto tree = random_leveled_tree(gen, height, 4);
    std::vector<double> targets(height + 1);
    for (double& v : targets) v = double(1 + gen() % 8);
    std::vector<std::uint32_t> fixed;
    if (trial % 2) fixed = nodes_at(tree, 1);
    const double epsilon = double(1 + gen() % 16) / 4;
    const auto c = calibrate_nonnegative_cascade(tree, targets, fixed, epsilon, {Neighbours::ReplaceOne},
                                                 Interrupts());
    EXPECT_EQ(c.calibration.epsilon, epsilon);
    const double base = nonnegative_base_epsilon(tree, c.law, {Neighbours::ReplaceOne}, Interrupts());
    EXPECT_EQ(base, c.calibration.base_epsilon);
    EXPECT_LE(base, epsilon / 2);
    EXPECT_GE(base, epsilon / 2 * (1 - 1e-6));
    // The free levels' variances keep the targets' ratios.
    unsigned first_free = 0;
    while (!c.law.level_free(first_free)) ++first_free;
    for (unsigned d = first_free; d <= height; ++d) {
      EXPECT_NEAR(c.calibration.level_variance[d] / c.calibration.level_variance[first_free],
                  targets[d] / targets[first_free], 1e-6 * targets[d] / targets[first_free]);
    }
    for (unsigned d = 0; d < first_free; ++d) EXPECT_EQ(c.calibration.level_variance[d], 0.0);
    // Absolute targets: the variances asked for, and what they cost.
    const auto a = nonnegative_cascade_cost_of_targets(tree, targets, fixed, {Neighbours::ReplaceOne}, Interrupts());
    for (unsigned d = first_free; d <= height; ++d)
      EXPECT_NEAR(a.calibration.level_variance[d], targets[d], 1e-9 * targets[d]);
    EXPECT_EQ(a.calibration.epsilon, 2 * a.calibration.base_epsilon);
    EXPECT_EQ(a.calibration.base_epsilon,
              nonnegative_base_epsilon(tree, a.law, {Neighbours::ReplaceOne}, Interrupts()));
  }
}

// Wide sibling groups at small epsilon: the calibration reaches the budget
// (it once went round without converging on 4 groups of 64 leaves at 1/16).
TEST(NonnegativeCascadeCalibration, ConvergesOnWideGroupsAtSmallEpsilon) {
  std::vector<std::int64_t> parents{-1, 0, 0, 0, 0};
  for (std::int64_t group = 1; group <= 4; ++group)
    for (int leaf = 0; leaf < 64; ++leaf) parents.push_back(group);
  const auto tree = HierarchyTree::from_parents(parents, Interrupts());
  for (const std::vector<std::uint32_t>& fixed : {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{0}})
    for (const double epsilon : {1.0, 0.25, 0.0625, 1.0 / 64, 1.0 / 256}) {
      const auto c =
          calibrate_nonnegative_cascade(tree, {1, 1, 1}, fixed, epsilon, {Neighbours::ReplaceOne}, Interrupts());
      EXPECT_LE(c.calibration.base_epsilon, epsilon / 2) << epsilon;
      EXPECT_GE(c.calibration.base_epsilon, epsilon / 2 * (1 - 1e-6)) << epsilon << " fixed " << fixed.size();
    }
}

TEST(NonnegativeCascadeCalibration, VarianceOfTheDiscreteLaplace) {
  for (double eps : {0.01, 0.3, 1.0, 4.0}) {
    const double a = std::exp(-eps);
    EXPECT_NEAR(discrete_laplace_variance_at(eps), 2 * a / ((1 - a) * (1 - a)), 1e-9 * discrete_laplace_variance_at(eps));
    EXPECT_NEAR(discrete_laplace_epsilon_for_variance(discrete_laplace_variance_at(eps)), eps, 1e-12);
  }
}

TEST(NonnegativeCascadeLaw, PinnedNodesAndRefusals) {
  // root -> a (one child c -> leaves), b (leaves): fixing a pins root, and a's only child.
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 2, 2, 3, 3}, Interrupts());
  const auto p = nonnegative_pinned(tree, {1, 2}, Interrupts());
  EXPECT_EQ(p, (std::vector<std::uint8_t>{1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(nonnegative_pinned(tree, std::vector<std::uint32_t>(), Interrupts()), std::vector<std::uint8_t>(8, 0));
  EXPECT_THROW(nonnegative_pinned(tree, {1}, Interrupts()), InvalidArgument);   // b's leaves uncovered
  EXPECT_THROW(nonnegative_pinned(tree, {4, 2}, Interrupts()), InvalidArgument);  // 4 alone under 2
  EXPECT_THROW(nonnegative_pinned(tree, {99}, Interrupts()), InvalidArgument);
  EXPECT_THROW(NonnegativeLaw(tree, {0.5, 0.5, 0.1, 0.3}, p, 2), InvalidArgument);  // 0.1 is no multiple of 2^-40
  EXPECT_NO_THROW(NonnegativeLaw(tree, {0.5, 0.5, 0.125, 0.25}, p, 2));
}

// tilt_nats: NonnegativeOptions::pinned_tilt_nats (0: a pinned split's
// children tilted wherever their summed mean lies above 0, which it checks).
void expect_moments_match_enumeration(const std::vector<std::int64_t>& parent, const std::vector<double>& eps,
                                      const std::vector<std::uint32_t>& fixed, const std::vector<std::int64_t>& counts,
                                      double tilt_nats = kPinnedTiltNats) {
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  const NonnegativeLaw law = make_law(tree, eps, fixed);
  const auto exact = enumerate_law(tree, law, counts, 32, true, 1.0, false);
  NonnegativeOptions options = nonnegative_moment_windows();
  options.pinned_tilt_nats = tilt_nats;
  if (tilt_nats == 0) {
    NonnegativeOptions bounded = options;
    bounded.dominating = false;
    const NonnegativeMessages messages(tree, law, counts.data(), bounded, Interrupts());
    EXPECT_LT(messages.pinned_tilt(fixed.at(0)), 0) << "tilted";
  }
  const auto moments = nonnegative_cascade_moments(tree, law, counts.data(), Interrupts(), options);
  // The same with wider windows: the error is the windows', not the method's.
  NonnegativeOptions wide = options;
  wide.window_tail = wide.leaf_split_window_tail = 34;
  const auto precise = nonnegative_cascade_moments(tree, law, counts.data(), Interrupts(), wide);
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    // The windows leave out about exp(-24) of each node's mass.
    EXPECT_NEAR(moments.bias[v], exact.mean[v], 1e-8) << "node " << v;
    EXPECT_NEAR(moments.variance[v], exact.variance[v], 1e-8) << "node " << v;
    EXPECT_NEAR(precise.bias[v], exact.mean[v], 1e-11) << "node " << v;
    EXPECT_NEAR(precise.variance[v], exact.variance[v], 1e-11) << "node " << v;
  }
}

TEST(NonnegativeCascadeMoments, MatchEnumerationOnSmallTrees) {
  const std::vector<std::uint32_t> none, root{0}, middle{1, 2};
  expect_moments_match_enumeration({-1, 0, 0, 0}, {0.75, 1.0}, none, {0, 1, 2});
  expect_moments_match_enumeration({-1, 0, 0, 0}, {0.75, 1.0}, root, {0, 1, 2});
  expect_moments_match_enumeration({-1, 0, 0, 1, 1, 2, 2}, {0.5, 1.0, 1.25}, none, {0, 2, 1, 0});
  expect_moments_match_enumeration({-1, 0, 0, 1, 1, 2, 2}, {0.5, 1.0, 1.25}, middle, {0, 2, 1, 0});
  expect_moments_match_enumeration({-1, 0, 0, 1, 1, 2, 2}, {0.5, 1.0, 1.25}, root, {2, 0, 0, 1});
  // A one-child chain: root -> a -> c -> (leaves); root -> b -> (leaves).
  expect_moments_match_enumeration({-1, 0, 0, 1, 2, 2, 3, 3}, {0.5, 1.0, 1.0, 1.25}, none, {1, 0, 2, 0});
  // A tree that is one chain.
  expect_moments_match_enumeration({-1, 0, 1}, {0.5, 0.25, 1.0}, none, {1});
}

// With the exact root's children tilted (leaves, then subtrees), every
// marginal is the same: the recursions run on the tilted messages and each
// subtree's split below gets its own factor back.
TEST(NonnegativeCascadeMoments, MatchEnumerationWithTiltedMessagesAtAnExactRoot) {
  const std::vector<std::uint32_t> root{0};
  expect_moments_match_enumeration({-1, 0, 0, 0}, {0.75, 1.0}, root, {0, 1, 2}, 0);
  expect_moments_match_enumeration({-1, 0, 0, 1, 1, 2, 2}, {0.5, 1.0, 1.25}, root, {2, 0, 0, 1}, 0);
}

// The exact privacy loss of small releases, by enumeration: the largest
// |log P_x(r) - log P_x'(r)| over the released tables r of two neighbours,
// one of which has a true count 0 where the other has 1. It lies above the
// base law's epsilon (conditioning costs something) and at most twice it
// (NONNEGATIVE.md, section 2).
double enumerated_loss(const HierarchyTree& tree, const NonnegativeLaw& law, const std::vector<std::int64_t>& x,
                       const std::vector<std::int64_t>& x_prime, std::int64_t box) {
  const auto a = enumerate_law(tree, law, x, box), b = enumerate_law(tree, law, x_prime, box);
  // Released leaves r = x + e; compare where both are well inside the box.
  std::map<std::vector<std::int64_t>, double> pa;
  for (const auto& [e, p] : a.prob) {
    std::vector<std::int64_t> r(e.size());
    bool inside = true;
    for (std::size_t l = 0; l < e.size(); ++l) r[l] = x[l] + e[l], inside = inside && std::abs(e[l]) <= box - 4;
    if (inside) pa[r] = p;
  }
  double loss = 0;
  for (const auto& [e, p] : b.prob) {
    std::vector<std::int64_t> r(e.size());
    bool inside = true;
    for (std::size_t l = 0; l < e.size(); ++l) r[l] = x_prime[l] + e[l], inside = inside && std::abs(e[l]) <= box - 4;
    const auto it = pa.find(r);
    if (!inside || it == pa.end()) continue;
    loss = std::max(loss, std::fabs(std::log(it->second) - std::log(p)));
  }
  return loss;
}

TEST(NonnegativeCascadePrivacy, PrivacyLossByEnumeration) {
  {  // add_remove: a person added to a leaf of count 0.
    const auto tree = HierarchyTree::from_parents({-1, 0, 0, 0}, Interrupts());
    const NonnegativeLaw law = make_law(tree, {0.75, 1.0}, std::vector<std::uint32_t>());
    const double base = nonnegative_base_epsilon(tree, law, {Neighbours::AddRemove}, Interrupts());
    EXPECT_NEAR(base, 1.75, 1e-12);
    const double loss = enumerated_loss(tree, law, {0, 1, 2}, {1, 1, 2}, 28);
    std::cout << "add_remove: base epsilon " << base << ", enumerated loss " << loss << "\n";
    EXPECT_GT(loss, base);
    EXPECT_LE(loss, 2 * base);
  }
  {  // replace_one under an exact root: a person moved from a leaf of 2 to one of 0.
    const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, Interrupts());
    const NonnegativeLaw law = make_law(tree, {0.5, 1.0, 1.25}, std::vector<std::uint32_t>(1, 0));
    const double base = nonnegative_base_epsilon(tree, law, {Neighbours::ReplaceOne}, Interrupts());
    EXPECT_NEAR(base, 2 * (1.0 + 1.25), 1e-12);
    const double loss = enumerated_loss(tree, law, {0, 2, 1, 0}, {1, 2, 0, 0}, 24);
    std::cout << "replace_one: base epsilon " << base << ", enumerated loss " << loss << "\n";
    EXPECT_GT(loss, base);
    EXPECT_LE(loss, 2 * base);
  }
}

// Every node >= 0, every parent the sum of its children, every pinned node
// its true total; the figures beside it well formed.
void expect_release_properties(const HierarchyTree& tree, const NonnegativeLaw& law,
                               const std::vector<std::int64_t>& counts, const NonnegativeCascadeRelease& r) {
  ASSERT_EQ(r.node_values.size(), tree.n_nodes());
  const auto truth = rollup(tree, counts, Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    EXPECT_GE(r.node_values[v], 0) << "node " << v;
    if (!tree.is_leaf(v)) {
      std::int64_t sum = 0;
      for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += r.node_values[c];
      EXPECT_EQ(sum, r.node_values[v]) << "node " << v;
    }
    if (law.pinned(v)) {
      EXPECT_EQ(r.node_values[v], truth[v]) << "node " << v;
    }
  }
  ASSERT_EQ(r.node_bias.size(), tree.n_nodes());
  ASSERT_EQ(r.node_variance.size(), tree.n_nodes());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    EXPECT_TRUE(std::isfinite(r.node_bias[v]));
    EXPECT_GE(r.node_variance[v], 0.0);
    if (law.pinned(v)) {
      EXPECT_EQ(r.node_bias[v], 0.0);
      EXPECT_EQ(r.node_variance[v], 0.0);
    }
  }
}

TEST(NonnegativeCascadeRelease, EveryNodeNonNegativeConsistentAndExactOnRandomTrees) {
  std::mt19937_64 gen(13);
  auto rng = make_seeded_random_source(13);
  for (int trial = 0; trial < 40; ++trial) {
    const unsigned height = 1 + static_cast<unsigned>(gen() % 4);
    const auto tree = random_leveled_tree(gen, height, 4);
    std::vector<std::int64_t> counts(tree.n_leaves());
    for (auto& x : counts) x = gen() % 3 == 0 ? 0 : static_cast<std::int64_t>(gen() % 6);
    std::vector<std::uint32_t> fixed;
    if (trial % 3 == 1) fixed.assign(1, 0);
    if (trial % 3 == 2 && height >= 2) fixed = nodes_at(tree, 1);
    const double epsilon = double(2 + gen() % 30) / 4;
    std::vector<double> targets(height + 1, 1.0);
    if (trial % 2) targets.back() = 4;
    try {
      const auto c = calibrate_nonnegative_cascade(tree, targets, fixed, epsilon, {Neighbours::ReplaceOne},
                                                   Interrupts());
      for (int draw = 0; draw < 5; ++draw) {
        const auto r = release_nonnegative_cascade(tree, c, counts.data(), *rng, Interrupts());
        expect_release_properties(tree, c.law, counts, r);
      }
    } catch (const InconsistentInvariants&) {
      // One cell per exact node: nothing left to protect (and nothing to draw).
      EXPECT_TRUE(!fixed.empty() || tree.n_leaves() == 1);
    }
  }
}

TEST(NonnegativeCascadeRelease, MetadataDependsOnTheLawOnly) {
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, Interrupts());
  const auto c = calibrate_nonnegative_cascade(tree, {1, 1, 1}, {1, 2}, 2.0, {Neighbours::ReplaceOne}, Interrupts());
  auto rng = make_seeded_random_source(14);
  const std::vector<std::int64_t> a{0, 0, 0, 0}, b{50, 3, 0, 900};
  const auto ra = release_nonnegative_cascade(tree, c, a.data(), *rng, Interrupts());
  const auto rb = release_nonnegative_cascade(tree, c, b.data(), *rng, Interrupts());
  EXPECT_EQ(ra.metadata_json, rb.metadata_json);
  EXPECT_NE(ra.metadata_json.find("\"mechanism\": \"nonnegative_cascade\""), std::string::npos);
  EXPECT_NE(ra.metadata_json.find("\"epsilon\": 2,"), std::string::npos);
  EXPECT_NE(ra.metadata_json.find("\"exact\": true"), std::string::npos);
  EXPECT_EQ(ra.metadata_json.find("attempts"), std::string::npos);  // data-dependent: never published
}

TEST(NonnegativeCascadeRelease, Refusals) {
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, Interrupts());
  auto rng = make_seeded_random_source(15);
  const auto c = calibrate_nonnegative_cascade(tree, {1, 1, 1}, {}, 2.0, {Neighbours::ReplaceOne}, Interrupts());
  const std::vector<std::int64_t> negative{1, -1, 0, 2};
  EXPECT_THROW(release_nonnegative_cascade(tree, c, negative.data(), *rng, Interrupts()), InvalidData);
  // Budgets and targets.
  EXPECT_THROW(calibrate_nonnegative_cascade(tree, {1, 1, 1}, {}, 0.0, {Neighbours::ReplaceOne}, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(calibrate_nonnegative_cascade(tree, {1, 1}, {}, 1.0, {Neighbours::ReplaceOne}, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(calibrate_nonnegative_cascade(tree, {1, -1, 1}, {}, 1.0, {Neighbours::ReplaceOne}, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(calibrate_nonnegative_cascade(tree, {1, 1, 1}, {0}, 1.0, {Neighbours::AddRemove}, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(nonnegative_cascade_cost_of_targets(tree, {1, 1, 1e-300}, {}, {Neighbours::ReplaceOne}, Interrupts()),
               OutOfRange);
  EXPECT_THROW(calibrate_nonnegative_cascade(tree, {1, 1, 1}, {}, 1e-13, {Neighbours::ReplaceOne}, Interrupts()),
               OutOfRange);
  // One cell per exact node: no move is left to protect.
  const auto flat = HierarchyTree::from_parents({-1, 0, 0}, Interrupts());
  EXPECT_THROW(calibrate_nonnegative_cascade(flat, {1, 1}, {1, 2}, 1.0, {Neighbours::ReplaceOne}, Interrupts()),
               InconsistentInvariants);
}

TEST(NonnegativeCascadeRelease, WindowsThatWouldNotFitAreRefusedBeforeAnyAllocation) {
  // A flat tree of 200,000 leaves at a tiny epsilon: the suffix windows of
  // its one split would need gigabytes. Refused from the tree and the law.
  std::vector<std::int64_t> parent(200001, 0);
  parent[0] = -1;
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  const NonnegativeLaw law = make_law(tree, {0.0078125, 0.0078125}, {0});
  const auto size = nonnegative_cascade_size(tree, law, {}, Interrupts());
  EXPECT_THROW(require_nonnegative_cascade_fits(size), TooLarge);
  const CalibratedNonnegativeLaw c{law, NonnegativeCalibration{}};
  std::vector<std::int64_t> counts(tree.n_leaves(), 1);
  auto rng = make_seeded_random_source(16);
  try {
    release_nonnegative_cascade(tree, c, counts.data(), *rng, Interrupts());
    FAIL() << "not refused";
  } catch (const TooLarge& e) {
    EXPECT_NE(std::string(e.hint()).find("epsilon"), std::string::npos);
  }
}

// Many empty leaves under a free root: each leaf's noise is one-sided, so
// the children's sums lie hundreds of values above the root's own value.
// Windows capped below that distance cannot hold the sums' largest values
// and are refused (TooLarge, with a hint), not left to fail inside the
// sampler; with the default cap the same tree is released.
TEST(NonnegativeCascadeSampler, ACappedWindowThatMissesItsLargestValueIsRefused) {
  std::vector<std::int64_t> parent(301, 0);
  parent[0] = -1;
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  const std::vector<std::int64_t> counts(tree.n_leaves(), 0);
  const NonnegativeLaw law = make_law(tree, {0.25, 0.25}, {});
  NonnegativeOptions narrow;
  narrow.max_window = 64;
  try {
    NonnegativeMessages(tree, law, counts.data(), narrow, Interrupts());
    FAIL() << "not refused";
  } catch (const TooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.hint()).find("integer_cascade"), std::string::npos) << e.hint();
  }
  EXPECT_NO_THROW(NonnegativeMessages(tree, law, counts.data(), NonnegativeOptions(), Interrupts()));
}

// 31 groups of 64 empty leaves under a free root at epsilon 0.5: every
// leaf's noise is one-sided, so the root's value lies hundreds of nats out,
// where exp(-rho |t|) and the messages' tails fall below every double. The
// proposals there follow the law (their weights computed with exponents
// apart), so a draw takes about one attempt: at most 20 (at acceptance 1/2
// or more, more has probability 2^-20). Computed in double, the weights
// were flat and a draw took about 280 attempts (2,816 for 10 draws), 20 or
// fewer with probability 0.07.
TEST(NonnegativeCascadeRelease, EmptyLeavesUnderAFreeRootTakeFewAttempts) {
  std::vector<std::int64_t> parent{-1};
  for (int group = 0; group < 31; ++group) parent.push_back(0);
  for (int group = 0; group < 31; ++group)
    for (int leaf = 0; leaf < 64; ++leaf) parent.push_back(1 + group);
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  const auto c = calibrate_nonnegative_cascade(tree, {1, 1, 1}, {}, 0.5, {Neighbours::ReplaceOne}, Interrupts());
  const std::vector<std::int64_t> counts(tree.n_leaves(), 0);
  NonnegativeReleaseOptions options;
  options.with_moments = false;
  auto rng = make_seeded_random_source(1);
  const auto release = release_nonnegative_cascade(tree, c, counts.data(), *rng, Interrupts(), options);
  for (std::int64_t v : release.node_values) ASSERT_GE(v, 0);
  EXPECT_LE(release.stats.attempts, 20u);
}

// An Interrupts that reports a pending cancel from its k-th poll on.
struct CountingCancel {
  std::uint64_t polls = 0, fire_at = ~std::uint64_t{0};
  static bool pending(void* self) {
    auto* c = static_cast<CountingCancel*>(self);
    return ++c->polls > c->fire_at;
  }
};

TEST(NonnegativeCascadeRelease, CancellationReachesEveryPhase) {
  std::mt19937_64 gen(17);
  const auto tree = random_leveled_tree(gen, 3, 5);
  std::vector<std::int64_t> counts(tree.n_leaves());
  for (auto& x : counts) x = static_cast<std::int64_t>(gen() % 4);
  const auto c = calibrate_nonnegative_cascade(tree, {1, 1, 1, 1}, {}, 3.0, {Neighbours::ReplaceOne}, Interrupts());
  CountingCancel count;
  // The same seed for every run: the same draw, so the same polls, on one
  // thread (two share the work as they are scheduled, so the calling
  // thread's polls vary; test_nonnegative_cascade_threads.cpp cancels them).
  NonnegativeReleaseOptions one_thread;
  one_thread.windows.threads = 1;
  release_nonnegative_cascade(tree, c, counts.data(), *make_seeded_random_source(17),
                              Interrupts(&CountingCancel::pending, &count), one_thread);
  const std::uint64_t total = count.polls;
  ASSERT_GT(total, 100u);
  // Polls spread over the size check, the messages, the draw, the sums and
  // the moments: a cancel at any of them stops the release.
  for (double at : {0.0, 0.02, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.97}) {
    CountingCancel cancel;
    cancel.fire_at = static_cast<std::uint64_t>(at * double(total));
    auto rng = make_seeded_random_source(17);
    EXPECT_THROW(
        release_nonnegative_cascade(tree, c, counts.data(), *rng, Interrupts(&CountingCancel::pending, &cancel),
                                    one_thread),
        Interrupted)
        << "cancel at poll " << cancel.fire_at << " of " << total;
  }
}

// The size check's caps assume the windows of splits of leaves are at most
// the others': wider ones are refused.
TEST(NonnegativeCascadeSampler, LeafSplitWindowsAtMostTheOthers) {
  std::mt19937_64 gen(5);
  const auto tree = random_leveled_tree(gen, 2, 3);
  const std::vector<std::int64_t> counts(tree.n_leaves(), 1);
  const NonnegativeLaw law = make_law(tree, {0.75, 0.75, 0.75}, {});
  NonnegativeOptions wider;
  wider.leaf_split_window_sd = wider.window_sd + 1;
  EXPECT_THROW(NonnegativeMessages(tree, law, counts.data(), wider, Interrupts()), InvalidArgument);
  wider = NonnegativeOptions();
  wider.leaf_split_window_tail = wider.window_tail + 1;
  EXPECT_THROW(NonnegativeMessages(tree, law, counts.data(), wider, Interrupts()), InvalidArgument);
  EXPECT_NO_THROW(NonnegativeMessages(tree, law, counts.data(), NonnegativeOptions(), Interrupts()));
}

TEST(NonnegativeCascadeSampler, TinyWindowsForceEveryFallbackAndKeepTheBounds) {
  std::mt19937_64 gen(18);
  auto rng = make_seeded_random_source(18);
  NonnegativeOptions tiny;
  tiny.window_sd = tiny.leaf_split_window_sd = 0.5;
  tiny.window_tail = tiny.leaf_split_window_tail = 0.5;
  tiny.written_tail = 0;
  NonnegativeDrawStats total;
  // Small trees: with windows this small most children are drawn alone and
  // most coins fail, so an attempt's acceptance falls with every split.
  for (int trial = 0; trial < 20; ++trial) {
    const unsigned height = 1 + static_cast<unsigned>(gen() % 2);
    const auto tree = random_leveled_tree(gen, height, 3);
    std::vector<std::int64_t> counts(tree.n_leaves());
    for (auto& x : counts) x = static_cast<std::int64_t>(gen() % 3);
    std::vector<std::uint32_t> fixed;
    if (trial % 2) fixed.push_back(0);
    const NonnegativeLaw law = make_law(tree, std::vector<double>(height + 1, 0.75), fixed);
    const NonnegativeMessages messages(tree, law, counts.data(), tiny, Interrupts());
    NonnegativeSampler sampler(messages);
    std::vector<std::int64_t> noise(tree.n_nodes());
    for (int draw = 0; draw < 200; ++draw) {
      const auto stats = sampler.sample(*rng, noise.data(), Interrupts());  // throws if a coin's p exceeded 1
      total.attempts += stats.attempts;
      total.tail_draws += stats.tail_draws;
      for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
        if (tree.is_leaf(v)) {
          EXPECT_GE(noise[v] + counts[tree.leaf_begin(v)], 0);
        }
        if (law.pinned(v)) {
          EXPECT_EQ(noise[v], 0);
        }
      }
    }
  }
  EXPECT_GT(total.tail_draws, 500u);
  EXPECT_GT(total.attempts, 4000u);  // coins fail: restarts happen
  // Every coin by enclosures: the exact path alone.
  NonnegativeOptions enclosed;
  enclosed.enclosed_coins_for_test = true;
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, Interrupts());
  const std::vector<std::int64_t> counts{0, 1, 2, 0};
  const NonnegativeLaw law = make_law(tree, {0.5, 1.0, 1.25}, {});
  const NonnegativeMessages messages(tree, law, counts.data(), enclosed, Interrupts());
  NonnegativeSampler sampler(messages);
  std::vector<std::int64_t> noise(tree.n_nodes());
  for (int draw = 0; draw < 200; ++draw) {
    const auto stats = sampler.sample(*rng, noise.data(), Interrupts());
    EXPECT_GE(stats.exact_coins, 3u);
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
