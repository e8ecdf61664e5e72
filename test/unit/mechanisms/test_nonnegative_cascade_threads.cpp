// The non-negative cascade on two threads (hierarchy/nonnegative_cascade_*:
// the backward pass a depth at a time in jobs, the draw's suffix functions
// prepared ahead of the draw on the second thread): the release is the same,
// bit for bit, on one thread or two under one seed, and the same as the code
// before the threads (fingerprints it printed); a cancel while the helper
// runs stops the backward pass and the draw, and no thread is left running.
#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "errors.hpp"
#include "hierarchy/nonnegative_cascade.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

// A tree with between 1 and fanout[d] children per node of depth d (so
// some one-child chains), every leaf at the same depth.
HierarchyTree random_tree_by_fanouts(std::mt19937_64& gen, const std::vector<unsigned>& fanout) {
  std::vector<std::int64_t> parent{-1};
  std::vector<std::int64_t> level{0};
  for (unsigned max : fanout) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level) {
      const unsigned children = 1 + static_cast<unsigned>(gen() % max);
      for (unsigned c = 0; c < children; ++c) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    }
    level = std::move(next);
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

std::vector<std::int64_t> random_counts(std::mt19937_64& gen, std::size_t n) {
  std::vector<std::int64_t> counts(n);
  for (auto& x : counts) x = gen() % 3 == 0 ? 0 : static_cast<std::int64_t>(gen() % 40);
  return counts;
}

std::vector<std::uint32_t> level_one(const HierarchyTree& tree) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) out.push_back(v);
  return out;
}

// A few releases in a row from one seed: every released value and the bits
// of every bias and variance, hashed (FNV-1a), with the draws' statistics.
struct Outcome {
  std::uint64_t hash = 14695981039346656037ull;
  std::vector<std::int64_t> values;
  std::uint64_t attempts = 0, tail_draws = 0;
  void add(std::uint64_t x) {
    for (int b = 0; b < 8; ++b) hash = (hash ^ ((x >> (8 * b)) & 0xff)) * 1099511628211ull;
  }
  void add(double x) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    add(bits);
  }
};

Outcome releases(const HierarchyTree& tree, const CalibratedNonnegativeLaw& c, const std::vector<std::int64_t>& counts,
                 std::uint64_t seed, unsigned threads) {
  NonnegativeReleaseOptions options;
  options.windows.threads = threads;
  // The windows the fingerprints below were recorded with (splits of leaves
  // took the others' then).
  options.windows.leaf_split_window_sd = options.windows.window_sd;
  options.windows.leaf_split_window_tail = options.windows.window_tail;
  auto rng = make_seeded_random_source(seed);
  Outcome out;
  for (int draw = 0; draw < 3; ++draw) {
    const auto r = release_nonnegative_cascade(tree, c, counts.data(), *rng, Interrupts(), options);
    for (std::size_t v = 0; v < r.node_values.size(); ++v) {
      out.values.push_back(r.node_values[v]);
      out.add(static_cast<std::uint64_t>(r.node_values[v]));
      out.add(r.node_bias[v]);
      out.add(r.node_variance[v]);
    }
    out.attempts += r.stats.attempts;
    out.tail_draws += r.stats.tail_draws;
  }
  return out;
}

struct Case {
  std::vector<unsigned> fanout;
  std::uint64_t seed;
  double epsilon;
  bool states_exact;
};

// From small random trees to a few thousand leaves (many jobs per depth and
// many splits for the draw to prepare ahead), some with level 1 exact.
const Case kCases[] = {
    {{3, 4}, 1, 2.0, false},          {{4, 3, 4}, 2, 1.0, true},   {{2, 1, 5, 3}, 3, 4.0, false},
    {{6, 8, 10}, 4, 1.0, true},       {{5, 12, 30}, 5, 3.0, false}, {{10, 20, 40}, 6, 0.75, true},
    {{1, 30, 2, 25}, 7, 2.0, false},
};

Outcome outcome_of(const Case& k, unsigned threads) {
  std::mt19937_64 gen(k.seed);
  const auto tree = random_tree_by_fanouts(gen, k.fanout);
  const auto counts = random_counts(gen, tree.n_leaves());
  const auto c =
      calibrate_nonnegative_cascade(tree, std::vector<double>(k.fanout.size() + 1, 1.0),
                                    k.states_exact ? level_one(tree) : std::vector<std::uint32_t>{}, k.epsilon,
                                    {Neighbours::ReplaceOne}, Interrupts());
  return releases(tree, c, counts, 100 + k.seed, threads);
}

// Twenty draws of the sampler with windows so small that most coins fail.
Outcome tiny_window_draws(unsigned threads) {
  std::mt19937_64 gen(21);
  const auto tree = random_tree_by_fanouts(gen, {4, 6, 8});
  const auto counts = random_counts(gen, tree.n_leaves());
  const NonnegativeLaw law(tree, {0.75, 0.75, 0.75, 0.75},
                           nonnegative_pinned(tree, std::vector<std::uint32_t>{}, Interrupts()), 0);
  NonnegativeOptions tiny;
  tiny.window_sd = tiny.leaf_split_window_sd = 0.5;
  tiny.window_tail = tiny.leaf_split_window_tail = 0.5;
  tiny.written_tail = 0;
  tiny.threads = threads;
  const NonnegativeMessages messages(tree, law, counts.data(), tiny, Interrupts());
  NonnegativeSampler sampler(messages);
  auto rng = make_seeded_random_source(22);
  Outcome out;
  for (int draw = 0; draw < 20; ++draw) {
    std::vector<std::int64_t> e(tree.n_nodes());
    const auto stats = sampler.sample(*rng, e.data(), Interrupts());
    out.attempts += stats.attempts;
    out.tail_draws += stats.tail_draws;
    for (const std::int64_t x : e) {
      out.values.push_back(x);
      out.add(static_cast<std::uint64_t>(x));
    }
  }
  return out;
}

TEST(NonnegativeCascadeThreads, TheSameReleaseOnOneThreadOrTwo) {
  for (const Case& k : kCases) {
    const Outcome one = outcome_of(k, 1), two = outcome_of(k, 2);
    EXPECT_EQ(one.values, two.values) << "case " << k.seed;
    EXPECT_EQ(one.hash, two.hash) << "case " << k.seed;  // the bias and variance too
    EXPECT_EQ(one.attempts, two.attempts) << "case " << k.seed;
    EXPECT_EQ(one.tail_draws, two.tail_draws) << "case " << k.seed;
  }
}

// The hashes these cases and tiny_window_draws gave on the code before the
// threads (one thread, the backward pass in node order, each split's
// suffix functions recomputed just before its draw).
const std::uint64_t kBefore[] = {0x4e0c43f56a5eb177ull, 0x06d157cd4aa3e5f8ull, 0x099f3268ba5659d7ull,
                                 0x11f76ff466ea7527ull, 0x2acf647b666adb30ull, 0x85772cc5ac06cdcaull,
                                 0x5a5b5a66960d543dull};
const std::uint64_t kTinyWindowsBefore = 0x38b8e9edb2864d93ull;

TEST(NonnegativeCascadeThreads, TheSameReleaseAsBeforeTheThreads) {
  std::size_t i = 0;
  for (const Case& k : kCases) {
    EXPECT_EQ(outcome_of(k, 2).hash, kBefore[i]) << "case " << k.seed;
    EXPECT_EQ(outcome_of(k, 1).hash, kBefore[i]) << "case " << k.seed;
    ++i;
  }
}

// Windows so small that most coins fail: attempts restart while the helper
// is preparing splits ahead; every restart and every value the same.
TEST(NonnegativeCascadeThreads, RestartsAreTheSameOnOneThreadOrTwo) {
  const Outcome one = tiny_window_draws(1), two = tiny_window_draws(2);
  EXPECT_GT(one.attempts, 25u);  // restarts happened (20 draws)
  EXPECT_EQ(one.attempts, two.attempts);
  EXPECT_EQ(one.values, two.values);
  EXPECT_EQ(two.hash, kTinyWindowsBefore);
}

// A split whose suffix functions may exceed kNonnegativeLargeSplitBytes is
// worked on alone (the size check counts one at a time): a group of 3,000
// leaves at epsilon 0.5 beside ten groups of 100, the same draws on one
// thread or two.
TEST(NonnegativeCascadeThreads, ALargeSplitAloneAndTheSameDraws) {
  std::vector<std::int64_t> parent{-1};
  for (int g = 0; g < 11; ++g) parent.push_back(0);
  for (int g = 0; g < 11; ++g)
    for (int l = 0; l < (g == 0 ? 3000 : 100); ++l) parent.push_back(1 + g);
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  std::mt19937_64 gen(41);
  const auto counts = random_counts(gen, tree.n_leaves());
  const NonnegativeLaw law(tree, {0.5, 0.5, 0.5}, nonnegative_pinned(tree, std::vector<std::uint32_t>{}, Interrupts()),
                           0);
  std::vector<std::uint32_t> large;
  nonnegative_cascade_size(tree, law, {}, Interrupts(), &large);
  ASSERT_EQ(large, std::vector<std::uint32_t>{1});  // the group of 3,000
  std::vector<std::int64_t> noise[2];
  for (unsigned threads : {1u, 2u}) {
    NonnegativeOptions options;
    options.threads = threads;
    const NonnegativeMessages messages(tree, law, counts.data(), options, Interrupts());
    EXPECT_EQ(messages.large_split(1), threads == 2);
    EXPECT_FALSE(messages.large_split(2));
    NonnegativeSampler sampler(messages);
    auto rng = make_seeded_random_source(42);
    for (int draw = 0; draw < 3; ++draw) {
      std::vector<std::int64_t> e(tree.n_nodes());
      sampler.sample(*rng, e.data(), Interrupts());
      noise[threads - 1].insert(noise[threads - 1].end(), e.begin(), e.end());
    }
  }
  EXPECT_EQ(noise[0], noise[1]);
}

// The threads of this process (Linux: /proc/self/task).
int threads_running() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
  closedir(dir);
  return n;
}

// The threads of this process once a joined thread's entry is gone: the
// kernel may still list a thread for a moment after pthread_join returned
// (it is torn down after it wakes the joiner), so wait up to 2 s for the
// count to fall to `expected`.
int threads_settled(int expected) {
  int n = threads_running();
  for (int i = 0; i < 200 && n > expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = threads_running();
  }
  return n;
}

// Reports a cancel from the first poll at which a helper thread is running
// (more threads than when it was made), and counts the polls after it.
struct CancelWhileHelping {
  int alone = threads_running();
  bool fired = false;
  int polls_after = 0;
  static bool pending(void* self) {
    auto* c = static_cast<CancelWhileHelping*>(self);
    if (c->fired) {
      ++c->polls_after;
      return true;
    }
    c->fired = threads_running() > c->alone;
    return c->fired;
  }
};

// A tree with hundreds of splits per depth: the helper has jobs to take.
struct Wide {
  std::mt19937_64 gen{31};
  HierarchyTree tree = random_tree_by_fanouts(gen, {10, 40, 40});
  std::vector<std::int64_t> counts = random_counts(gen, tree.n_leaves());
  NonnegativeLaw law{tree, {0.5, 0.5, 0.5, 0.5}, nonnegative_pinned(tree, std::vector<std::uint32_t>{}, Interrupts()),
                     0};
};

TEST(NonnegativeCascadeThreads, ACancelDuringTheBackwardPassStopsBothThreads) {
  const int alone = threads_running();
  ASSERT_GE(alone, 1);
  const Wide w;
  NonnegativeOptions two;
  two.threads = 2;
  // The helper starts with each depth's jobs; under a heavy load it may not
  // be seen running before the calling thread is done: then again.
  bool cancelled = false;
  for (int run = 0; run < 10 && !cancelled; ++run) {
    CancelWhileHelping cancel;
    try {
      const NonnegativeMessages messages(w.tree, w.law, w.counts.data(), two,
                                         Interrupts(&CancelWhileHelping::pending, &cancel));
      EXPECT_FALSE(cancel.fired);
    } catch (const Interrupted&) {
      EXPECT_TRUE(cancel.fired);
      EXPECT_EQ(cancel.polls_after, 0);  // the calling thread stopped at the cancel
      cancelled = true;
    }
    EXPECT_EQ(threads_settled(alone), alone);  // the helper was joined before the cancel came out
  }
  EXPECT_TRUE(cancelled);
}

TEST(NonnegativeCascadeThreads, ACancelDuringTheDrawStopsBothThreads) {
  const int alone = threads_running();
  ASSERT_GE(alone, 1);
  const Wide w;
  NonnegativeOptions two;
  two.threads = 2;
  const NonnegativeMessages messages(w.tree, w.law, w.counts.data(), two, Interrupts());
  NonnegativeSampler sampler(messages);
  std::vector<std::int64_t> noise(w.tree.n_nodes());
  auto rng = make_seeded_random_source(32);
  bool cancelled = false;
  for (int run = 0; run < 10 && !cancelled; ++run) {
    CancelWhileHelping cancel;
    try {
      sampler.sample(*rng, noise.data(), Interrupts(&CancelWhileHelping::pending, &cancel));
      EXPECT_FALSE(cancel.fired);
    } catch (const Interrupted&) {
      EXPECT_TRUE(cancel.fired);
      EXPECT_EQ(cancel.polls_after, 0);
      cancelled = true;
    }
    EXPECT_EQ(threads_settled(alone), alone);
  }
  EXPECT_TRUE(cancelled);
  // The sampler draws again after a cancel.
  EXPECT_GE(sampler.sample(*rng, noise.data(), Interrupts()).attempts, 1u);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
