// The non-negative cascade's tilted messages at a pinned split
// (src/core/hierarchy/nonnegative_cascade_tilt.hpp): each dominates exp(theta s)
// times the child's own message, on its window and beyond it, and by no
// more than its margin; the tilt brings the children's summed mean near 0;
// and groups of small counts under an exact total, which the plain
// messages left drawing until stopped, draw in a few attempts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
#include "group_trees.hpp"
#include "hierarchy/nonnegative_cascade_messages.hpp"
#include "hierarchy/nonnegative_cascade_sampler.hpp"
#include "interrupt_callbacks.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

NonnegativeLaw exact_root(const HierarchyTree& tree, double level_epsilon) {
  const std::vector<std::uint32_t> root{0};
  return NonnegativeLaw(tree, {0, level_epsilon, level_epsilon}, nonnegative_pinned(tree, root, Interrupts()), 1);
}

// g(s) times 2^exp2, in long double.
long double value(const ChildMessage& g, std::int64_t s) { return std::ldexp((long double)g.g(s), g.exp2); }

TEST(NonnegativeCascadeTilt, TiltedMessagesDominateTheTiltedTargetByTheirMargin) {
  // Groups of leaves (counts 0..2) and, beside them, two leaves (counts 0
  // and 3) as children of the exact root.
  std::vector<std::int64_t> parent{-1};
  for (int g = 0; g < 6; ++g) parent.push_back(0);
  parent.push_back(0), parent.push_back(0);
  for (int g = 0; g < 6; ++g)
    for (int l = 0; l < 12; ++l) parent.push_back(1 + g);
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  std::vector<std::int64_t> counts(tree.n_leaves());
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<std::int64_t>(i % 3);
  counts[tree.leaf_begin(7)] = 0, counts[tree.leaf_begin(8)] = 3;  // the root's two leaf children
  const NonnegativeLaw law = exact_root(tree, 0.25);
  NonnegativeOptions options;
  options.pinned_tilt_nats = 0;  // tilt wherever the summed mean lies above 0
  const NonnegativeMessages messages(tree, law, counts.data(), options, Interrupts());
  std::vector<ChildMessage> children;
  std::vector<WindowFn> F;
  PinnedTilt tilt;
  messages.suffixes(0, children, F, 1, Interrupts(), &tilt);
  ASSERT_LT(tilt.theta, 0);
  ASSERT_EQ(tilt.plain.size(), children.size());
  double plain_mean = 0, mean = 0, var = 0;
  for (std::size_t j = 0; j < children.size(); ++j) {
    plain_mean += tilt.plain[j].mean;
    mean += children[j].mean, var += children[j].var;
  }
  EXPECT_GT(plain_mean, 3 * std::sqrt(var));
  EXPECT_LT(std::fabs(mean), std::sqrt(var));
  std::size_t checked = 0, leaves = 0;
  for (std::size_t j = 0; j < children.size(); ++j) {
    const ChildMessage &g = tilt.plain[j], &t = children[j];
    leaves += g.leaf;
    EXPECT_EQ(t.support, g.support);
    EXPECT_DOUBLE_EQ(t.rho(), g.rho() - tilt.theta);
    const std::int64_t last = (g.leaf ? 0 : g.hi()) + 400;  // well into the right tail
    for (std::int64_t s = g.support - 3; s <= last; ++s) {
      const long double target = std::exp((long double)tilt.theta * s) * value(g, s);
      const long double tilted = value(t, s);
      if (target == 0) {
        EXPECT_EQ(tilted, 0) << "child " << j << " at " << s;
        continue;
      }
      if (target < 1e-250L) continue;  // far along a tail: the doubles round
      ++checked;
      EXPECT_GE(tilted, target * (1 - 0x1p-45L)) << "child " << j << " at " << s;
      EXPECT_LE(tilted, target * (1 + 0x1p-30L)) << "child " << j << " at " << s;
    }
  }
  EXPECT_EQ(leaves, 2u);
  EXPECT_GT(checked, 1000u);
}

TEST(NonnegativeCascadeTilt, NoTiltWhereTheSummedMeanIsNear0OrAChildsSupportIsFar) {
  const auto tree = groups_tree(4, 8);
  const NonnegativeLaw law = exact_root(tree, 1.0);
  std::vector<ChildMessage> children;
  std::vector<WindowFn> F;
  PinnedTilt tilt;
  // Counts of 40: every leaf's noise two-sided, the summed mean near 0.
  const std::vector<std::int64_t> big(tree.n_leaves(), 40);
  const NonnegativeMessages near(tree, law, big.data(), NonnegativeOptions{}, Interrupts());
  near.suffixes(0, children, F, 1, Interrupts(), &tilt);
  EXPECT_EQ(tilt.theta, 0);
  EXPECT_TRUE(tilt.plain.empty());
  // Counts of 0 but one leaf of 10^6: that group's window would run from
  // its support, a million values below, so nothing is tilted.
  std::vector<std::int64_t> far(tree.n_leaves(), 0);
  far[0] = 1000000;
  NonnegativeOptions always;
  always.pinned_tilt_nats = 0;
  const NonnegativeMessages messages(tree, law, far.data(), always, Interrupts());
  messages.suffixes(0, children, F, 1, Interrupts(), &tilt);
  EXPECT_EQ(tilt.theta, 0);
}

// Where the plain messages serve an exact total and their windows cannot
// reach its split's values, the refusal's hint asks for a larger epsilon or
// integer_cascade, not for the exact total the request already has.
TEST(NonnegativeCascadeTilt, AnExactTotalsRefusalDoesNotAskForExactTotals) {
  const auto tree = groups_tree(16, 32);
  const std::vector<std::int64_t> counts(tree.n_leaves(), 0);
  const NonnegativeLaw law = exact_root(tree, 0.125);
  NonnegativeOptions narrow;
  narrow.max_window = 256;          // enough for the groups' windows, not for the total's
  narrow.pinned_tilt_nats = 1e300;  // the plain messages
  const NonnegativeMessages messages(tree, law, counts.data(), narrow, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(72);
  std::vector<std::int64_t> noise(tree.n_nodes());
  try {
    sampler.sample(*rng, noise.data(), Interrupts());
    FAIL() << "not refused";
  } catch (const TooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.hint()).find("integer_cascade"), std::string::npos) << e.hint();
    EXPECT_EQ(std::string(e.hint()).find("exact"), std::string::npos) << e.hint();
  }
}

// Counts the polls of a computation (never asks it to stop).
bool count_poll(void* polls) {
  ++*static_cast<std::uint64_t*>(polls);
  return false;
}

TEST(NonnegativeCascadeTilt, ExactTotalsOverGroupsOfSmallCountsDrawInFewAttempts) {
  // 16 groups of 32 empty leaves under an exact total, level epsilon 1/8:
  // each group's noise has its summed mean far above 0, and 16 of them must
  // sum to 0 (the plain messages' draw runs on; so did 31 groups of 64
  // leaves of count 2 at level epsilon 1/16, which this draws in 0.6 s).
  const auto tree = groups_tree(16, 32);
  const std::vector<std::int64_t> counts(tree.n_leaves(), 0);
  const NonnegativeLaw law = exact_root(tree, 0.125);
  const NonnegativeMessages messages(tree, law, counts.data(), NonnegativeOptions{}, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(71);
  std::vector<std::int64_t> noise(tree.n_nodes());
  std::uint64_t attempts = 0, polls = 0;
  for (int draw = 0; draw < 2; ++draw) {
    attempts += sampler.sample(*rng, noise.data(), Interrupts(&count_poll, &polls)).attempts;
    EXPECT_EQ(noise[0], 0);
    std::int64_t total = 0;
    for (std::uint32_t g = 1; g <= 16; ++g) {
      std::int64_t sum = 0;
      for (std::uint32_t c = tree.first_child(g); c < tree.first_child(g) + tree.n_children(g); ++c) {
        EXPECT_GE(noise[c], 0);
        sum += noise[c];
      }
      EXPECT_EQ(sum, noise[g]);
      total += noise[g];
    }
    EXPECT_EQ(total, 0);
  }
  // At an acceptance of 1/2 or more, more than 25 attempts for two draws
  // (fewer than two successes in 25) has probability 26 / 2^25, below 1e-6;
  // one each was measured.
  EXPECT_LE(attempts, 25u);
  // Power: with the plain messages one draw has not ended within four
  // times the polls both tilted draws took (it runs on for minutes).
  NonnegativeOptions plain;
  plain.pinned_tilt_nats = 1e300;
  const NonnegativeMessages untilted(tree, law, counts.data(), plain, Interrupts());
  NonnegativeSampler stuck(untilted);
  int budget = static_cast<int>(4 * polls);
  EXPECT_THROW(stuck.sample(*rng, noise.data(), Interrupts(&test_interrupts::pending_after, &budget)), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
