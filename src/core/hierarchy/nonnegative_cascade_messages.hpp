// The backward pass of the non-negative cascade (NONNEGATIVE.md, section 3):
// for every free node u with two or more children, from the leaves up, the
// message h_u(t) that its parent's split uses for "the subtree of u, given
// that u's noise is t", and for every split the suffix functions
//
//   F_k(r) = sum over s_k + ... + s_m = r of prod_{j >= k} g_j(s_j),
//
// each on a window chosen from the children's means and variances, with
// geometric tails beyond it. Two uses, one code:
//   - the sampler (dominating): every stored function is an exactly
//     log-concave upper bound of what it stands for (a margin over the
//     computed sums, raised to log-concavity, tails continuing the edge
//     ratios), which is all its acceptance step needs to be exact, whatever
//     the windows (section 4);
//   - the moments (bounded): the law restricted to the windows (0 outside),
//     whose difference from the law is the mass the windows leave out.
//
// Chains: a free node with one child has its child's value; a split child
// stands for the chain down to the first node with two or more children (or
// a leaf), with the sum of the chain's epsilons as its rate.
//
// Threads: the splits of one depth read only the messages of deeper ones,
// so the backward pass builds each depth's on up to nonnegative_threads
// threads (mcmc/worker_threads.hpp: only the calling thread polls the
// caller's Interrupts), and stores them as one thread would. After the
// constructor every method is const and reads only (the rates' tables are
// all made there), so suffixes() may run on several threads at once, each
// with its own vectors; its scratch is thread_local (one set per thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "hierarchy_tree.hpp"
#include "nonnegative_cascade_kernels.hpp"
#include "nonnegative_cascade_law.hpp"
#include "nonnegative_cascade_tilt.hpp"

namespace invariant_dp::hierarchy {

// The suffix sums exceed the computed convolutions by this factor
// (NONNEGATIVE.md, section 4: it covers their rounding, the parts of the
// sums beyond what they read (at most 2^-40) and the integer tables'
// rounding up).
constexpr double kMessageMargin = 1 + 0x1p-32;

struct NonnegativeOptions {
  // Windows: around the suffix sums' means and their regression on the
  // split's likeliest value, +- window_sd standard deviations +
  // window_tail / rate (NONNEGATIVE.md, section 3).
  // Beyond them the messages continue as log-concave geometric bounds, so a
  // narrow window costs acceptance only where a draw lands beyond it, by how
  // much the bound exceeds the sum there (test/bench/README.md: no restart
  // at these values on 8 million leaves).
  double window_sd = 5;
  double window_tail = 14;
  // The same for a split whose children are all leaves (at most the values
  // above, which the size check's caps assume). Such splits hold nearly all
  // the work of a census-shaped tree (8 million blocks under 240,000 block
  // groups), and narrower windows there cost no measurable acceptance
  // (NONNEGATIVE.md, section 3, "Windows").
  double leaf_split_window_sd = 3;
  double leaf_split_window_tail = 7;
  std::size_t max_window = std::size_t(1) << 16;
  bool dominating = true;    // the sampler's bounds; false: the moments' restriction
  // Threads for the backward pass and the draw's recomputation of the
  // suffix functions: 0 for nonnegative_threads' choice (two on a machine
  // with two cores, one for a small tree), else 1 or 2. The released values
  // do not depend on it.
  unsigned threads = 0;
  // A pinned split's children are tilted (nonnegative_cascade_tilt.hpp)
  // where their summed mean lies at least this many nats above 0 (tests
  // set 0 to tilt wherever it lies above 0).
  double pinned_tilt_nats = kPinnedTiltNats;
  // Power tests only: every leaf treated as if its count were unbounded
  // (the law without the non-negativity conditioning).
  bool ignore_nonnegativity_for_power_test = false;
  // Tests only: every acceptance coin decided by enclosures (the path a
  // draw takes about once in 2^40 otherwise).
  bool enclosed_coins_for_test = false;
  // Proposal tails at most this long (or keeping most of their series) are
  // written out; tests set 0 to draw every tail as a geometric series.
  std::int64_t written_tail = 64;
};

struct StoredMessage {
  std::int64_t lo = 0, support = 0;
  const double* values = nullptr;  // the window's n values (in the messages' pool)
  std::uint32_t n = 0;
  int exp2 = 0;
  double left = 0, right = 0, hmax = 0, mean = 0, var = 0;
  // Bounds of the split's children's summed variances and means
  // (variance_cap and mean_cap of each).
  double children_var_cap = 0, children_mean_cap = 0;
};

class NonnegativeMessages {
 public:
  // leaf_counts: one count >= 0 per leaf, in leaf order. InvalidData for a
  // negative count; OutOfRange if a subtree's count overflows int64.
  NonnegativeMessages(const HierarchyTree& tree, const NonnegativeLaw& law, const std::int64_t* leaf_counts,
                      NonnegativeOptions options, const Interrupts& interrupts);

  const HierarchyTree& tree() const { return tree_; }
  const NonnegativeLaw& law() const { return law_; }
  const NonnegativeOptions& options() const { return options_; }

  // The chain below `top` (a free node): its last node and its rate; the
  // top of the chain that ends at a free node u.
  std::uint32_t chain_end(std::uint32_t top) const;
  std::uint32_t chain_top(std::uint32_t u) const;
  double chain_rate(std::uint32_t top) const;
  // The message of the chain starting at `top`.
  ChildMessage message(std::uint32_t top) const;
  // A leaf's count.
  std::int64_t count(std::uint32_t leaf) const { return counts_[tree_.leaf_begin(leaf)]; }

  // Split u (m >= 2 free children): the children's messages and the suffix
  // functions F[k] of children k..m-1 (0-based) for k >= first (1: what a
  // draw needs; 0: also the split's own sum on a window around its mean, its
  // likeliest value t* and 0, left as computed: no bound, no tails).
  // F[m-1] holds the last child's window values (its message itself is the
  // suffix function: suffix(k) says which to read). The windows depend on
  // the children's messages and the law only, so every call gives the same.
  // With `tilted` (the sampler's), a pinned split's children are tilted
  // by its pinned_tilt, if any (children and F then the tilted ones,
  // tilted->plain the children's own messages; tilted->theta 0 otherwise).
  void suffixes(std::uint32_t u, std::vector<ChildMessage>& children, std::vector<WindowFn>& F, unsigned first,
                const Interrupts& interrupts, PinnedTilt* tilted = nullptr) const;
  Suffix suffix(const std::vector<ChildMessage>& children, const std::vector<WindowFn>& F, std::size_t k) const {
    if (options_.dominating && k + 1 == children.size()) return Suffix{nullptr, &children[k]};
    return Suffix{&F[k], nullptr};
  }

  // h_u of a free node u with m >= 2 children (nullptr otherwise).
  const StoredMessage* stored(std::uint32_t u) const {
    return index_[u] == kNone ? nullptr : &messages_[index_[u]];
  }
  // A bound on the variance of the message of the chain starting at `top`,
  // from the law alone: the sum of the discrete Laplace variances of every
  // chain in its subtree (the variances the noises would have unconditioned
  // and summed; the conditioned message's is below it).
  double variance_cap(std::uint32_t top) const;
  // A bound on the mean of that message: the sum over the leaves below of
  // the mean of a one-sided geometric of their chain's rate (a leaf's mean
  // lies between 0 and it; a chain's own factor pulls its sum towards 0).
  double mean_cap(std::uint32_t top) const;
  // The table of a chain's rate (every free chain's is made by the
  // constructor; Error for another rate).
  const RatePowers& powers(double rate) const;
  // The tilt of pinned split u's children (nonnegative_cascade_tilt.hpp; 0:
  // not tilted), chosen once from their messages by the constructor.
  double pinned_tilt(std::uint32_t u) const;
  // Whether split u's suffix functions may exceed kNonnegativeLargeSplitBytes
  // (from the tree and the law: nonnegative_cascade_size): such a split is
  // worked on alone, on the calling thread (always false on one thread).
  bool large_split(std::uint32_t u) const;

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  void make_powers(const Interrupts& interrupts);
  void build(const Interrupts& interrupts);
  void choose_pinned_tilts(const Interrupts& interrupts);
  // Each child's pinned_tilt_window_cap, from the tree and the law.
  std::vector<std::size_t> tilt_caps(std::uint32_t u, const Interrupts& interrupts) const;
  // Split u's stored message h_u: its window in h, the rest in the result
  // (values left for the caller to place).
  StoredMessage store_split(std::uint32_t u, std::vector<ChildMessage>& children, std::vector<WindowFn>& F,
                            WindowFn& h, const Interrupts& interrupts) const;

  const HierarchyTree& tree_;
  const NonnegativeLaw& law_;
  const std::int64_t* counts_;
  NonnegativeOptions options_;
  std::vector<std::uint32_t> index_;
  std::vector<StoredMessage> messages_;
  // The stored windows, in blocks (one per job of the backward pass) that
  // never move once stored.
  std::vector<std::vector<double>> pool_;
  std::map<double, std::unique_ptr<RatePowers>> powers_;
  std::vector<std::uint32_t> large_splits_;  // in node order
  std::vector<std::pair<std::uint32_t, double>> pinned_tilts_;  // (split, theta < 0), in node order
};

// The threads a tree of `nodes` nodes gets: options.threads (1 or 2) if
// set, else the machine's, at most 2, and 1 below 1024 nodes.
unsigned nonnegative_threads(const NonnegativeOptions& options, std::size_t nodes);
// How many splits' suffix functions the draw holds at once (the one in use
// and those prepared ahead on the other thread).
constexpr std::size_t kNonnegativeDrawSlots = 4;
// A split whose suffix functions may take more (at their caps) is worked on
// alone, on the calling thread, in the backward pass and in the draw.
constexpr double kNonnegativeLargeSplitBytes = 64.0 * (1 << 20);

// The sizes a draw may reach, from the tree and the law alone (never from
// the counts): the windows' caps, the messages' pool, the scratch (the
// largest split's suffix functions, or kNonnegativeDrawSlots times the
// largest of a split below kNonnegativeLargeSplitBytes, which the draw may
// hold at once, and each of two threads' convolution buffers), and a count
// of the arithmetic. TooLarge, with a hint, when they exceed what a release
// may use. With large_splits, also the splits above
// kNonnegativeLargeSplitBytes, in node order.
struct NonnegativeSize {
  double pool_bytes = 0, scratch_bytes = 0, node_bytes = 0, operations = 0;
  std::size_t largest_window = 0;
};
NonnegativeSize nonnegative_cascade_size(const HierarchyTree& tree, const NonnegativeLaw& law,
                                         const NonnegativeOptions& options, const Interrupts& interrupts,
                                         std::vector<std::uint32_t>* large_splits = nullptr);
void require_nonnegative_cascade_fits(const NonnegativeSize& size);

// The cap on a window from the variances it spans (the sum of their
// variance_caps), its smallest rate and how far its centre may move from
// the suffix's mean (split_shift_cap): the data-driven windows are clipped
// to it.
std::size_t nonnegative_window_cap(double variance_sum, double min_rate, double shift,
                                   const NonnegativeOptions& options);
// The largest pull |tilt| a split's windows follow (NONNEGATIVE.md, section
// 3): its own rate (that of the chain it ends), at most the largest of its
// children's rates; at a pinned node, that largest rate.
double split_tilt_limit(bool pinned, double own_rate, double largest_child_rate);
// How far a suffix window's centre may move from the suffix's mean:
// |var_j tilt| <= min(limit var_j, |mean_0|), var_j at most its cap and the
// split's summed mean at most mean_cap plus a standard deviation.
double split_shift_cap(double limit, double suffix_var_cap, double mean_cap, double var_cap);
// A leaf's mean_cap: the mean of a one-sided geometric of rate `rate`.
double leaf_mean_cap(double rate);
// The longest tilted window a child of a pinned split may take (from its
// support to past 0 and its own window; a child whose support lies farther
// below is not tilted), from its variance_cap and mean_cap and its rate:
// four times the window cap of a sum of that variance moved by that mean.
std::size_t pinned_tilt_window_cap(double var_cap, double mean_cap, double rate, const NonnegativeOptions& options);

}  // namespace invariant_dp::hierarchy
