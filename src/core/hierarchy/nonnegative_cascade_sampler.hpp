// The exact sampler of the non-negative cascade (NONNEGATIVE.md, section 4):
// a rejection sampler whose proposal follows the backward pass's messages
// from the root down and whose acceptance probability is the ratio of the
// target to the proposal, so that accepted draws have exactly the law of
// nonnegative_cascade_law.hpp, whatever the windows and roundings were.
//
// An attempt, top-down over the splits (a node with two or more free
// children, its own value t already drawn, or 0 when it is pinned):
//   1. the children's values s_1..s_m with s_1 + ... + s_m = t, drawn in
//      order, s_k from the integer table of g_k(s) F_{k+1}(rem - s)
//      (nonnegative_cascade_table.hpp), rem what is left, the last child
//      taking what is left;
//   2. a coin with probability
//        p = prod_j g_j(s_j) / prod_k (W_k(s_k) / T_k) / c_u(t),
//      c_u(t) the value the parent's proposal used for u (its stored
//      message h_u), T_1 / sigma_1 at a pinned node. The messages and
//      tables are built so that p <= 1 always (section 4 proves it); a
//      failed coin restarts the whole tree.
// The root, when free, is drawn from the table of its own message and kept
// with probability g(t) sigma / W(t).
// Then P(draw = r, accepted) = prod over splits and root of (proposal x
// coin) = C prod_v exp(-eps_v |r_v - x_v|) on the support: the target up to
// a constant. Each coin is decided exactly: a double estimate with a
// certified relative error decides it from one 64-bit word unless the word
// falls within that error, then enclosures at growing precision
// (lazy_bernoulli.hpp).
// Cost: each split recomputes its suffix functions (as the backward pass
// did) and draws from one table per child; the coins cost a few
// multiplications each. The recomputation needs no randomness and depends
// on the split alone, so it runs ahead of the draw on a second thread
// (mcmc::run_in_order), up to kNonnegativeDrawSlots splits ahead, while the
// calling thread draws the splits in order from the one random stream: the
// draw is the same, bit for bit, on one thread or two. Memory: the
// messages, the suffixes of up to kNonnegativeDrawSlots splits, the list of
// splits and one int64 per node.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "nonnegative_cascade_messages.hpp"
#include "nonnegative_cascade_table.hpp"

namespace invariant_dp::hierarchy {

// What a draw did; depends on the counts, so for tests and benchmarks only,
// never for publication.
struct NonnegativeDrawStats {
  std::uint64_t attempts = 0;       // whole-tree attempts (1 unless a coin failed)
  std::uint64_t tail_draws = 0;     // values drawn from a proposal's tail (beyond the windows)
  std::uint64_t exact_coins = 0;    // coins the double estimate did not decide
  std::uint64_t failed_coins = 0;
};

class NonnegativeSampler {
 public:
  // messages must be built with options.dominating and outlive the sampler.
  explicit NonnegativeSampler(const NonnegativeMessages& messages);

  // Fills node_noise[0 .. n_nodes) (node order: r_v - x_v) with one exact
  // draw, on nonnegative_threads(options, nodes) threads (only the calling thread
  // polls `interrupts` and uses rng). Interrupted on cancel.
  NonnegativeDrawStats sample(RandomSource& rng, std::int64_t* node_noise, const Interrupts& interrupts);

 private:
  // One split's children's messages and suffix functions.
  struct Slot {
    std::vector<ChildMessage> children;
    std::vector<WindowFn> suffixes;
    PinnedTilt tilt;  // a pinned split's tilted children (children then the tilted ones)
  };
  void list_splits(const Interrupts& interrupts);
  bool attempt(RandomSource& rng, std::int64_t* node_noise, const Interrupts& interrupts, NonnegativeDrawStats& stats);
  bool split(std::uint32_t u, std::int64_t t, const Slot& slot, RandomSource& rng, std::int64_t* node_noise,
             const Interrupts& interrupts, NonnegativeDrawStats& stats);
  void assign_chain(std::uint32_t top, std::int64_t value, std::int64_t* node_noise) const;

  const NonnegativeMessages& messages_;
  ProposalTable table_;
  bool listed_ = false;
  std::vector<std::uint32_t> splits_;  // every split with free children, in node order (the draw's)
  std::vector<Slot> slots_;
  std::vector<ChildMessage> root_;
  std::vector<ProposalDraw> draws_;
  std::vector<std::int64_t> values_;
};

}  // namespace invariant_dp::hierarchy
