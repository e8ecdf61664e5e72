// Statistical tests of the non-negative cascade (hierarchy/nonnegative_cascade*),
// fixed seeds, against the law enumerated by brute force
// (test/support/nonnegative_enumeration.hpp: every leaf-noise vector in a box,
// weighted by the definition, no window and no convolution).
//  1. The law. Trees of two and three levels (a root over three leaves; a
//     root over two nodes of two leaves; a one-child chain), true counts 0,
//     1 and 2 so that non-negativity binds, the root free or exact;
//     200,000 draws each (50,000 with every coin decided by enclosures;
//     100,000 with windows so small that most values come from the tables'
//     geometric tails), the vector of leaf noises against the enumerated law
//     on [max(-count, -24), 24] per leaf (every leaf's own factor has a rate
//     of at least 1 here, so the mass beyond is below e^-24 per leaf, far
//     below any bin), by chi-square with bins pooled to an expectation of 5, at a
//     false-failure rate of 1e-6 per test. Power, on the same trees and
//     the same numbers of draws: the draws against the law at 1.25 times
//     every epsilon (a wrong scale), and draws of the law without the
//     non-negativity conditioning (the sampler with every count unbounded)
//     against the target, must both FAIL.
//  2. The published bias and variance (nonnegative_cascade_moments) against
//     100,000 draws on a tree of 13 nodes (a root, 3 nodes, 9 leaves, counts
//     with four zeros), the root free and exact: every node's sample mean
//     and variance by z-scores (the variance's standard error from the
//     sample's fourth moment), Bonferroni over the 2 x 13 scores at a total
//     false-failure rate of 1e-6 (|z| < 5.73). Power: the same draws against
//     the moments of the law at 1.25 times every epsilon, and against those
//     of the law without the conditioning, must each have a score beyond the
//     bound.
//  3. Attempts (a failed coin redraws the tree): on big sibling groups of
//     mostly empty leaves at small epsilon (where the parents' values lie
//     far from their children's summed mean), and on requests the size
//     check admits at the smallest epsilons it admits, the whole-tree
//     acceptance stays at least 1/2: the attempts of 10 draws, a negative
//     binomial count at acceptance 1/2, exceed 53 with probability below
//     1e-6. Power: windows centred on the children's unconditioned means
//     (not following the pull of the parent's own factor) need far more
//     here; such code did not finish the first test's 10 draws in 3.5
//     minutes (test/bench/README.md, "Non-negative cascade").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "group_trees.hpp"
#include "hierarchy/nonnegative_cascade.hpp"
#include "nonnegative_enumeration.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

using namespace chi_square_test;
using nonnegative_test::enumerate_law;
using LeafNoise = std::vector<std::int64_t>;

constexpr std::int64_t kBox = 24;

struct Case {
  const char* name;
  std::vector<std::int64_t> parent;
  std::vector<double> eps;
  std::vector<std::uint32_t> fixed;
  std::vector<std::int64_t> counts;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  std::vector<std::uint32_t> none, root(1, 0);
  out.push_back({"root over 3 leaves (0, 1, 2)", {-1, 0, 0, 0}, {0.75, 1.0}, none, {0, 1, 2}});
  out.push_back({"root over 3 leaves, root exact", {-1, 0, 0, 0}, {0.75, 1.0}, root, {0, 1, 2}});
  out.push_back({"root over 2 x 2 leaves (0, 2, 1, 0)", {-1, 0, 0, 1, 1, 2, 2}, {0.75, 1.0, 1.25}, none, {0, 2, 1, 0}});
  out.push_back({"root over 2 x 2 leaves, root exact", {-1, 0, 0, 1, 1, 2, 2}, {0.75, 1.0, 1.25}, root, {0, 2, 1, 0}});
  out.push_back({"a one-child chain (1, 0, 2, 0)", {-1, 0, 0, 1, 2, 2, 3, 3}, {0.75, 1.0, 1.0, 1.25}, none, {1, 0, 2, 0}});
  return out;
}

NonnegativeLaw law_of(const HierarchyTree& tree, const Case& c) {
  return NonnegativeLaw(tree, c.eps, nonnegative_pinned(tree, c.fixed, Interrupts()), c.fixed.size());
}

std::map<LeafNoise, std::int64_t> draw_leaf_noise(const HierarchyTree& tree, const NonnegativeLaw& law,
                                                  const std::vector<std::int64_t>& counts, NonnegativeOptions options,
                                                  int n, std::uint64_t seed) {
  const NonnegativeMessages messages(tree, law, counts.data(), options, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> noise(tree.n_nodes());
  std::map<LeafNoise, std::int64_t> out;
  LeafNoise leaves(tree.n_leaves());
  for (int i = 0; i < n; ++i) {
    sampler.sample(*rng, noise.data(), Interrupts());
    for (std::uint32_t l = 0; l < tree.n_leaves(); ++l) leaves[l] = noise[tree.leaf_node(l)];
    ++out[leaves];
  }
  return out;
}

void check_law(const Case& c, NonnegativeOptions options, int n, std::uint64_t seed, const std::string& variant,
               bool with_power) {
  const auto tree = HierarchyTree::from_parents(c.parent, Interrupts());
  const NonnegativeLaw law = law_of(tree, c);
  const auto target = enumerate_law(tree, law, c.counts, kBox);
  const auto draws = draw_leaf_noise(tree, law, c.counts, options, n, seed);
  const ChiSquare fit = goodness_of_fit(target.prob, draws, n);
  report(std::string(c.name) + variant + ": the law", fit);
  EXPECT_TRUE(fit.passes()) << c.name << variant;
  if (!with_power) return;
  // Power: a wrong scale.
  const auto wrong = enumerate_law(tree, law, c.counts, kBox, true, 1.25);
  const ChiSquare scale = goodness_of_fit(wrong.prob, draws, n);
  report(std::string(c.name) + ": power, epsilon x 1.25", scale);
  EXPECT_FALSE(scale.passes()) << c.name;
  // Power: the law without the non-negativity conditioning.
  NonnegativeOptions free = options;
  free.ignore_nonnegativity_for_power_test = true;
  const auto unconditioned = draw_leaf_noise(tree, law, c.counts, free, n, seed + 1);
  const ChiSquare cond = goodness_of_fit(target.prob, unconditioned, n);
  report(std::string(c.name) + ": power, unconditioned draws", cond);
  EXPECT_FALSE(cond.passes()) << c.name;
}

TEST(StatNonnegativeCascade, TheLawAgainstEnumeration) {
  for (const Case& c : cases()) check_law(c, NonnegativeOptions{}, 200000, 101, "", true);
}

TEST(StatNonnegativeCascade, TheLawWithEveryCoinByEnclosures) {
  NonnegativeOptions enclosed;
  enclosed.enclosed_coins_for_test = true;
  const auto all = cases();
  check_law(all[2], enclosed, 50000, 202, " (every coin by enclosures)", false);
  check_law(all[4], enclosed, 50000, 203, " (every coin by enclosures)", false);
}

TEST(StatNonnegativeCascade, TheLawWithTinyWindowsAndGeometricTails) {
  NonnegativeOptions tiny;
  tiny.window_sd = tiny.leaf_split_window_sd = 0.5;
  tiny.window_tail = tiny.leaf_split_window_tail = 0.5;
  tiny.written_tail = 0;
  for (const Case& c : cases()) check_law(c, tiny, 100000, 303, " (tiny windows, tails drawn as series)", false);
}

// At an exact root the children's messages may be tilted (the sampler's
// proposal only; nonnegative_cascade_tilt.hpp): tilted wherever their summed
// mean lies above 0, the law is the same.
TEST(StatNonnegativeCascade, TheLawWithTiltedMessagesAtAnExactRoot) {
  NonnegativeOptions tilted;
  tilted.pinned_tilt_nats = 0;
  const auto all = cases();
  std::uint64_t seed = 404;
  for (const std::size_t k : {std::size_t(1), std::size_t(3)}) {
    const Case& c = all[k];
    const auto tree = HierarchyTree::from_parents(c.parent, Interrupts());
    const NonnegativeLaw law = law_of(tree, c);
    const NonnegativeMessages messages(tree, law, c.counts.data(), tilted, Interrupts());
    std::vector<ChildMessage> children;
    std::vector<WindowFn> F;
    PinnedTilt tilt;
    messages.suffixes(0, children, F, 1, Interrupts(), &tilt);
    ASSERT_LT(tilt.theta, 0) << c.name;  // the root's children are tilted
    check_law(c, tilted, 200000, seed++, " (tilted at the exact root)", k == 3);
  }
}

// ---- 2. the published bias and variance --------------------------------

struct Sample {
  std::vector<double> mean, var, fourth;
};

Sample simulate(const HierarchyTree& tree, const NonnegativeLaw& law, const std::vector<std::int64_t>& counts, int n,
                std::uint64_t seed) {
  const NonnegativeMessages messages(tree, law, counts.data(), NonnegativeOptions{}, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> noise(tree.n_nodes());
  std::vector<std::vector<double>> values(tree.n_nodes());
  for (int i = 0; i < n; ++i) {
    sampler.sample(*rng, noise.data(), Interrupts());
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) values[v].push_back(double(noise[v]));
  }
  Sample s;
  for (const auto& x : values) {
    double m = 0;
    for (double y : x) m += y / n;
    double m2 = 0, m4 = 0;
    for (double y : x) m2 += (y - m) * (y - m) / n, m4 += std::pow(y - m, 4) / n;
    s.mean.push_back(m);
    s.var.push_back(m2);
    s.fourth.push_back(m4);
  }
  return s;
}

// The largest |z| of every node's mean and variance against the figures.
double largest_score(const Sample& s, const NonnegativeMoments& m, int n, const NonnegativeLaw& law) {
  double worst = 0;
  for (std::size_t v = 0; v < s.mean.size(); ++v) {
    if (law.pinned(static_cast<std::uint32_t>(v))) continue;
    const double z_mean = (s.mean[v] - m.bias[v]) / std::sqrt(m.variance[v] / n);
    const double z_var = (s.var[v] - m.variance[v]) / std::sqrt((s.fourth[v] - s.var[v] * s.var[v]) / n);
    worst = std::max({worst, std::fabs(z_mean), std::fabs(z_var)});
  }
  return worst;
}

TEST(StatNonnegativeCascade, PublishedBiasAndVarianceAgainstSimulation) {
  // root -> a, b, c; each over 3 leaves.
  const std::vector<std::int64_t> parent{-1, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  const std::vector<std::int64_t> counts{0, 0, 1, 2, 0, 5, 1, 0, 3};
  const int n = 100000;
  // Bonferroni over 26 two-sided scores at 1e-6 in all: z = Phi^-1(1 - 1e-6 / 52).
  const double bound = 5.73;
  for (const bool root_exact : {false, true}) {
    std::vector<std::uint32_t> fixed;
    if (root_exact) fixed.push_back(0);
    const std::vector<double> eps{0.75, 0.875, 1.125};
    const NonnegativeLaw law(tree, eps, nonnegative_pinned(tree, fixed, Interrupts()), fixed.size());
    const auto moments = nonnegative_cascade_moments(tree, law, counts.data(), Interrupts());
    const Sample s = simulate(tree, law, counts, n, root_exact ? 404 : 405);
    const double worst = largest_score(s, moments, n, law);
    std::cout << "[stat] bias and variance, root " << (root_exact ? "exact" : "free") << ": largest |z| = " << worst
              << " (bound " << bound << ")\n";
    EXPECT_LT(worst, bound);
    // Power: the figures of a wrong scale, and of the unconditioned law.
    const NonnegativeLaw wrong(tree, {0.9375, 1.09375, 1.40625}, nonnegative_pinned(tree, fixed, Interrupts()),
                               fixed.size());
    const double worst_scale =
        largest_score(s, nonnegative_cascade_moments(tree, wrong, counts.data(), Interrupts()), n, law);
    NonnegativeOptions free = nonnegative_moment_windows();
    free.ignore_nonnegativity_for_power_test = true;
    const double worst_free =
        largest_score(s, nonnegative_cascade_moments(tree, law, counts.data(), Interrupts(), free), n, law);
    std::cout << "[stat] power: epsilon x 1.25 |z| = " << worst_scale << ", unconditioned |z| = " << worst_free << "\n";
    EXPECT_GT(worst_scale, bound);
    EXPECT_GT(worst_free, bound);
  }
}

// Attempts of 10 draws: at acceptance 1/2 or more, more than 53 has
// probability below 1e-6 (a negative binomial tail, computed exactly).
constexpr int kDraws = 10;
constexpr std::uint64_t kMostAttempts = 53;

std::uint64_t attempts_of_draws(const HierarchyTree& tree, const NonnegativeLaw& law,
                                const std::vector<std::int64_t>& counts, std::uint64_t seed) {
  const NonnegativeMessages messages(tree, law, counts.data(), NonnegativeOptions{}, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> noise(tree.n_nodes());
  std::uint64_t attempts = 0;
  for (int d = 0; d < kDraws; ++d) attempts += sampler.sample(*rng, noise.data(), Interrupts()).attempts;
  return attempts;
}

TEST(StatNonnegativeCascade, FewAttemptsOnBigGroupsOfEmptyLeavesAtSmallEpsilon) {
  // 3 groups of 180 leaves, half of them 0 and the rest log-normal up to a
  // few thousand, the root exact, level epsilon 3/64: each group's value is
  // pulled towards 0 by its own factor, about 900 below its leaves' summed
  // mean (4 standard deviations), where the windows used to miss.
  const auto tree = groups_tree(3, 180);
  std::mt19937_64 gen(55);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  std::vector<std::int64_t> counts(tree.n_leaves());
  for (auto& x : counts) x = u(gen) < 0.5 ? 0 : std::llround(60 * std::exp(1.3 * z(gen) - 0.85));
  const std::vector<std::uint32_t> root{0};
  const NonnegativeLaw law(tree, {0.046875, 0.046875, 0.046875}, nonnegative_pinned(tree, root, Interrupts()), 1);
  const std::uint64_t attempts = attempts_of_draws(tree, law, counts, 56);
  std::cout << "[stat] big groups of empty leaves, level epsilon 3/64: " << attempts << " attempts for " << kDraws
            << " draws (at most " << kMostAttempts << ")\n";
  EXPECT_LE(attempts, kMostAttempts);
}

TEST(StatNonnegativeCascade, RequestsTheSizeCheckAdmitsFinishInFewAttempts) {
  // A flat tree of tiny counts (every leaf nearly one-sided, so a group's
  // message is far wider than one discrete Laplace and far from 0), nothing
  // exact: 4 groups of 64 leaves, counts 0..2, every level at the same
  // epsilon, which the size check admits, down to 1/64.
  const auto tree = groups_tree(4, 64);
  std::vector<std::int64_t> counts(tree.n_leaves());
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<std::int64_t>(i % 3);
  std::uint64_t seed = 60;
  for (const double level_epsilon : {1.0, 0.25, 0.0625, 0.015625}) {
    const NonnegativeLaw law(tree, std::vector<double>(3, level_epsilon), nonnegative_pinned(tree, {}, Interrupts()), 0);
    require_nonnegative_cascade_fits(nonnegative_cascade_size(tree, law, NonnegativeOptions{}, Interrupts()));
    const std::uint64_t attempts = attempts_of_draws(tree, law, counts, seed++);
    std::cout << "[stat] 4 x 64 leaves of counts 0..2, level epsilon " << level_epsilon << ": " << attempts
              << " attempts for " << kDraws << " draws (at most " << kMostAttempts << ")\n";
    EXPECT_LE(attempts, kMostAttempts);
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
