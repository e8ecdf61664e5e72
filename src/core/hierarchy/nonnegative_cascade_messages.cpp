// The backward pass of the non-negative cascade
// (nonnegative_cascade_messages.hpp; NONNEGATIVE.md, section 3).
#include "nonnegative_cascade_messages.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>

#include "../errors.hpp"
#include "../mcmc/worker_threads.hpp"
#include "../samplers/wide_int.hpp"
#include "nonnegative_cascade_table.hpp"

namespace invariant_dp::hierarchy {
namespace {

// The power tests' stand-in for an unbounded count (no leaf's noise reaches
// it: exp(-rate 2^30) is below every double).
constexpr std::int64_t kUnboundedCount = std::int64_t{1} << 30;
// How far a convolution first reads into its child's tails, in nats; it
// reads twice as far until what it leaves out is negligible.
constexpr double kReach = 44;
constexpr int kMaxReachDoublings = 5;
constexpr double kMaxPoolBytes = 2.0 * (1u << 30);
constexpr double kMaxOperations = 0x1p42;
// Splits per job of the backward pass: enough to make a job's bookkeeping
// negligible, few enough that a depth's last jobs end together.
constexpr std::size_t kSplitsPerJob = 32;
// The threads the size check assumes (the most nonnegative_threads gives).
constexpr double kMaxThreads = 2;
// Below this many nodes a draw takes a few milliseconds at most (about 10
// microseconds a node), and starting and joining a helper for each attempt
// and each depth would cost a good part of it (a statistical test draws
// small trees 100,000 times): one thread.
constexpr std::size_t kNodesForTwoThreads = 1024;

struct Window {
  std::int64_t lo, hi;
};

// [lo_center - half, hi_center + half], clipped below at support, at most
// cap wide (then centred on the middle of the centres), at least 3 wide.
Window choose_window(double lo_center, double hi_center, double half, std::int64_t support, std::size_t cap) {
  std::int64_t lo = static_cast<std::int64_t>(std::floor(lo_center - half));
  std::int64_t hi = static_cast<std::int64_t>(std::ceil(hi_center + half));
  lo = std::max(lo, support);
  hi = std::max(hi, lo + 2);
  if (static_cast<std::size_t>(hi - lo + 1) > cap) {
    const double middle = (lo_center + hi_center) / 2;
    lo = std::max(support, static_cast<std::int64_t>(std::llround(middle)) - static_cast<std::int64_t>(cap / 2));
    hi = lo + static_cast<std::int64_t>(cap) - 1;
  }
  return {lo, hi};
}

// The last child's message written out on its window (a leaf: mean +-
// window_sd standard deviations + window_tail / rate; a subtree: its own
// window), no tails.
WindowFn last_window(const ChildMessage& g, double window_sd, double window_tail, const NonnegativeOptions& options) {
  Window w{};
  if (g.leaf) {
    const double half = window_sd * std::sqrt(g.var) + window_tail / g.rho() + 1;
    w = choose_window(g.mean, g.mean, half, g.support,
                      nonnegative_window_cap(discrete_laplace_variance_at(g.rho()), g.rho(), 0, options));
  } else {
    w = {std::max(g.lo, g.support), std::max(g.hi(), g.support)};
  }
  WindowFn F;
  F.lo = w.lo;
  F.support = g.support;
  F.exp2 = g.exp2;
  F.v.resize(static_cast<std::size_t>(w.hi - w.lo + 1));
  for (std::size_t i = 0; i < F.v.size(); ++i) F.v[i] = g.g(w.lo + static_cast<std::int64_t>(i));
  return F;
}

// The tilt of a majorant over sums of about `terms` terms: four times their
// relative rounding (3 terms units of 2^-53 for the geometric recursions),
// generously.
double tilt_for(std::size_t terms) { return 1 + double(terms + 64) * 0x1p-49; }

std::size_t reach_of(double rate) { return static_cast<std::size_t>(std::ceil(kReach / rate)); }

// The tilt of the majorant of a window of `window` values summing child g
// against the rest: its terms are the window's, g's reach on either side
// (a leaf's recursions) or g's own window.
double majorant_tilt(std::size_t window, const ChildMessage& g) {
  return tilt_for(window + 64 * reach_of(g.rho()) + (g.leaf ? 0 : g.n));
}

// The message of a stored subtree, read at the chain's rate: its window
// values in the pool, tails and scale (and its moments once described).
ChildMessage subtree_message(const StoredMessage& sm, const RatePowers& pow) {
  ChildMessage g;
  g.pow = &pow;
  g.leaf = false;
  g.support = sm.support;
  g.lo = sm.lo;
  g.values = sm.values;
  g.n = sm.n;
  g.left = sm.left;
  g.right = sm.right;
  g.exp2 = sm.exp2;
  g.hmax = sm.hmax;
  g.mean = sm.mean;
  g.var = sm.var;
  return g;
}

}  // namespace

unsigned nonnegative_threads(const NonnegativeOptions& options, std::size_t nodes) {
  if (options.threads != 0) return std::clamp(options.threads, 1u, 2u);
  if (nodes < kNodesForTwoThreads) return 1;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
}

double split_tilt_limit(bool pinned, double own_rate, double largest_child_rate) {
  return pinned ? largest_child_rate : std::min(own_rate, largest_child_rate);
}

double split_shift_cap(double limit, double suffix_var_cap, double mean_cap, double var_cap) {
  return std::min(limit * suffix_var_cap, mean_cap + std::sqrt(var_cap));
}

double leaf_mean_cap(double rate) { return 1 / std::expm1(rate); }

std::size_t pinned_tilt_window_cap(double var_cap, double mean_cap, double rate, const NonnegativeOptions& options) {
  return std::min(4 * nonnegative_window_cap(var_cap, rate, mean_cap, options), options.max_window);
}

std::size_t nonnegative_window_cap(double variance_sum, double min_rate, double shift,
                                   const NonnegativeOptions& options) {
  const double half = options.window_sd * std::sqrt(variance_sum) + options.window_tail / min_rate + 1;
  const double width = 2 * std::ceil(half) + 1 + std::ceil(shift);
  return width >= double(options.max_window) ? options.max_window : static_cast<std::size_t>(width);
}

NonnegativeMessages::NonnegativeMessages(const HierarchyTree& tree, const NonnegativeLaw& law,
                                         const std::int64_t* leaf_counts, NonnegativeOptions options,
                                         const Interrupts& interrupts)
    : tree_(tree), law_(law), counts_(leaf_counts), options_(options) {
  if (!(options_.leaf_split_window_sd <= options_.window_sd && options_.leaf_split_window_tail <= options_.window_tail))
    throw InvalidArgument("the windows of splits of leaves must be at most the others (the size check assumes so)");
  for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf) {
    interrupts.poll_every(leaf);
    if (counts_[leaf] < 0)
      throw InvalidData("the non-negative cascade needs non-negative counts",
                        "Cell " + std::to_string(tree.leaf_cell(leaf)) + " has count " +
                            std::to_string(counts_[leaf]) + ".",
                        "Release counts of people or records, which are never negative.");
  }
  index_.assign(tree.n_nodes(), kNone);
  if (nonnegative_threads(options_, tree.n_nodes()) > 1)
    nonnegative_cascade_size(tree, law, options_, interrupts, &large_splits_);
  make_powers(interrupts);
  build(interrupts);
  choose_pinned_tilts(interrupts);
}

std::vector<std::size_t> NonnegativeMessages::tilt_caps(std::uint32_t u, const Interrupts& interrupts) const {
  std::vector<std::size_t> caps(tree_.n_children(u));
  for (std::uint32_t j = 0; j < caps.size(); ++j) {
    interrupts.poll_every(j);
    const std::uint32_t top = tree_.first_child(u) + j;
    caps[j] = pinned_tilt_window_cap(variance_cap(top), mean_cap(top), chain_rate(top), options_);
  }
  return caps;
}

// Every pinned split's tilt, from its children's messages (so after the
// backward pass), and the tables of its tilted rates: made once, here, so
// that each draw only reads them.
void NonnegativeMessages::choose_pinned_tilts(const Interrupts& interrupts) {
  std::vector<ChildMessage> children;
  for (std::uint32_t u = 0; u < tree_.n_nodes(); ++u) {
    interrupts.poll_every(u);
    if (!law_.pinned(u) || tree_.n_children(u) < 2 || law_.pinned(tree_.first_child(u))) continue;
    children.resize(tree_.n_children(u));
    for (std::uint32_t j = 0; j < children.size(); ++j) children[j] = message(tree_.first_child(u) + j);
    const double theta = pinned_split_tilt(children, tilt_caps(u, interrupts), options_.pinned_tilt_nats, interrupts);
    if (!(theta < 0)) continue;
    pinned_tilts_.emplace_back(u, theta);
    for (const ChildMessage& g : children) {
      const double rate = g.rho() - theta;  // exact: both multiples of 2^-40, far below 2^13
      if (powers_.find(rate) == powers_.end())
        powers_.emplace(rate, std::make_unique<RatePowers>(rate, rate_table_length(rate)));
    }
  }
}

double NonnegativeMessages::pinned_tilt(std::uint32_t u) const {
  const auto it = std::lower_bound(pinned_tilts_.begin(), pinned_tilts_.end(),
                                   std::make_pair(u, -std::numeric_limits<double>::infinity()));
  return it != pinned_tilts_.end() && it->first == u ? it->second : 0.0;
}

bool NonnegativeMessages::large_split(std::uint32_t u) const {
  return std::binary_search(large_splits_.begin(), large_splits_.end(), u);
}

// The rate of every free chain top (the root, or a child of a split or of
// a pinned node): the tables every later call reads, made before any
// thread shares them.
void NonnegativeMessages::make_powers(const Interrupts& interrupts) {
  double last = -1;
  for (std::uint32_t v = 0; v < tree_.n_nodes(); ++v) {
    interrupts.poll_every(v);
    if (law_.pinned(v)) continue;
    if (v != 0 && !law_.pinned(tree_.parent(v)) && tree_.n_children(tree_.parent(v)) == 1) continue;
    const double rate = chain_rate(v);
    if (rate == last) continue;
    last = rate;
    if (powers_.find(rate) == powers_.end())
      powers_.emplace(rate, std::make_unique<RatePowers>(rate, rate_table_length(rate)));
  }
}

std::uint32_t NonnegativeMessages::chain_end(std::uint32_t top) const {
  std::uint32_t e = top;
  // Ends: a chain of one-child nodes is at most the tree's height long.
  while (tree_.n_children(e) == 1) e = tree_.first_child(e);
  return e;
}

std::uint32_t NonnegativeMessages::chain_top(std::uint32_t u) const {
  std::uint32_t top = u;
  // Ends: up a chain of one-child nodes, at most the tree's height.
  while (top != 0) {
    const std::uint32_t p = tree_.parent(top);
    if (law_.pinned(p) || tree_.n_children(p) != 1) break;
    top = p;
  }
  return top;
}

double NonnegativeMessages::chain_rate(std::uint32_t top) const {
  unsigned d = tree_.depth(top);
  double rate = law_.level_epsilon(d);
  for (std::uint32_t e = top; tree_.n_children(e) == 1; e = tree_.first_child(e)) rate += law_.level_epsilon(++d);
  const double quanta = std::ldexp(rate, 40);
  if (!(quanta < 0x1p53) || quanta != std::floor(quanta))
    throw OutOfRange("a chain of one-child nodes is too long for the non-negative cascade",
                     "The epsilons along it add up to " + format_double(rate) + ".",
                     "Lower epsilon, or remove the one-child levels.");
  return rate;
}

const RatePowers& NonnegativeMessages::powers(double rate) const {
  const auto it = powers_.find(rate);
  if (it == powers_.end()) throw Error("the non-negative cascade asked for the table of a rate no chain has");
  return *it->second;
}

double NonnegativeMessages::variance_cap(std::uint32_t top) const {
  const std::uint32_t e = chain_end(top);
  const double own = discrete_laplace_variance_at(chain_rate(top));
  return tree_.is_leaf(e) ? own : own + messages_[index_[e]].children_var_cap;
}

double NonnegativeMessages::mean_cap(std::uint32_t top) const {
  const std::uint32_t e = chain_end(top);
  return tree_.is_leaf(e) ? leaf_mean_cap(chain_rate(top)) : messages_[index_[e]].children_mean_cap;
}

ChildMessage NonnegativeMessages::message(std::uint32_t top) const {
  const std::uint32_t e = chain_end(top);
  const RatePowers& pow = powers(chain_rate(top));
  if (tree_.is_leaf(e))
    return leaf_message(pow, options_.ignore_nonnegativity_for_power_test ? kUnboundedCount : count(e));
  return subtree_message(messages_[index_[e]], pow);
}

void NonnegativeMessages::suffixes(std::uint32_t u, std::vector<ChildMessage>& children, std::vector<WindowFn>& F,
                                   unsigned first, const Interrupts& interrupts, PinnedTilt* tilted) const {
  const std::uint32_t m = tree_.n_children(u);
  children.resize(m);
  for (std::uint32_t j = 0; j < m; ++j) {
    interrupts.poll_every(j);
    children[j] = message(tree_.first_child(u) + j);
  }
  if (tilted != nullptr) {
    tilted->theta = 0;
    tilted->plain.clear();
    if (const double theta = pinned_tilt(u); theta < 0) {
      std::vector<const RatePowers*> tables(m);
      for (std::uint32_t j = 0; j < m; ++j) tables[j] = &powers(children[j].rho() - theta);
      tilt_children(children, theta, tilt_caps(u, interrupts), tables, *tilted, interrupts);
    }
  }
  // Suffix statistics of the children j..m-1, in one thread_local set
  // taken once (each thread_local access of a shared library is a call).
  struct SuffixStatistics {
    std::vector<double> mean, var, vcap, rmin;
    std::vector<std::int64_t> support;
  };
  thread_local SuffixStatistics statistics;
  auto& [mean, var, vcap, rmin, support] = statistics;
  mean.resize(m), var.resize(m), vcap.resize(m), rmin.resize(m), support.resize(m);
  double rmax = 0, mcap = 0;
  for (std::uint32_t j = m; j-- > 0;) {
    const ChildMessage& g = children[j];
    const bool last = j + 1 == m;
    mean[j] = g.mean + (last ? 0 : mean[j + 1]);
    var[j] = g.var + (last ? 0 : var[j + 1]);
    vcap[j] = variance_cap(tree_.first_child(u) + j) + (last ? 0 : vcap[j + 1]);
    rmin[j] = last ? g.rho() : std::min(g.rho(), rmin[j + 1]);
    rmax = std::max(rmax, g.rho());
    mcap += mean_cap(tree_.first_child(u) + j);
    support[j] = last ? g.support : checked_add(g.support, support[j + 1], "a subtree's count overflows bigint");
  }
  // Where the split's value t lies, and the children's pull given it
  // (NONNEGATIVE.md, section 3, "Windows"): t* maximises exp(-rate_u |t|)
  // times a normal of the children's summed mean and variance (0 at a
  // pinned node), and the suffix sums are centred on their regression on
  // t = t*, mean_j + var_j tilt, tilt = (t* - mean) / var, at most
  // split_tilt_limit in size.
  const bool pinned = law_.pinned(u);
  const double own_rate = pinned ? 0.0 : chain_rate(chain_top(u));
  const bool under_pinned = !pinned && chain_top(u) != 0 && law_.pinned(tree_.parent(chain_top(u)));
  const double limit = split_tilt_limit(pinned, own_rate, rmax);
  const double tilt = var[0] > 0 ? -std::clamp(mean[0] / var[0], -limit, limit) : 0.0;
  const double t_star = mean[0] + var[0] * tilt;
  // A split of leaves takes the narrower windows (NonnegativeOptions).
  const bool leaf_split = std::all_of(children.begin(), children.end(), [](const ChildMessage& g) { return g.leaf; });
  const double window_sd = leaf_split ? options_.leaf_split_window_sd : options_.window_sd;
  const double window_tail = leaf_split ? options_.leaf_split_window_tail : options_.window_tail;
  F.resize(m);
  F[m - 1] = last_window(children[m - 1], window_sd, window_tail, options_);
  const bool dominating = options_.dominating;
  for (std::uint32_t j = m - 1; j-- > first;) {
    interrupts.poll();
    const ChildMessage& g = children[j];
    const bool own = j == 0;  // the split's own sum: its own rate counts, and t* and 0 are kept
    const double rate = own ? std::min(rmin[j], own_rate) : rmin[j];
    const double cap_var = vcap[j] + (own ? discrete_laplace_variance_at(own_rate) : 0);
    const std::size_t cap =
        nonnegative_window_cap(cap_var, rate, split_shift_cap(limit, vcap[j], mcap, vcap[0]), options_);
    double half = window_sd * std::sqrt(var[j]) + window_tail / rate + 1;
    // The centres: the suffix's own mean (its largest value is near it) and
    // its regression on t*.
    const double shifted = own ? t_star : mean[j] + var[j] * tilt;
    const double lo_center = std::min(mean[j], shifted), hi_center = std::max(mean[j], shifted);
    const Suffix next = suffix(children, F, j + 1);
    // The window must hold the largest value with room on both sides (the
    // tails continue its edge ratios): widen it until it does.
    // Ends: after at most 5 attempts (attempt >= 4 breaks), each convolution polling.
    bool room = false, capped = false;
    for (int attempt = 0;; ++attempt) {
      Window w = choose_window(lo_center, hi_center, half, support[j], cap);
      if (own) {
        w.lo = std::max(std::min<std::int64_t>(w.lo, 0), support[j]);
        w.hi = std::max<std::int64_t>(w.hi, 0);
        // Under a pinned split, down to the support where the cap allows:
        // a tilted draw there may take the least values (store_split).
        // (w.hi + 1 - cap <= support: a support of -2^62 does not overflow.)
        if (under_pinned && w.hi + 1 - static_cast<std::int64_t>(cap) <= support[j]) w.lo = support[j];
      }
      // Ends: at kMaxReachDoublings at the latest (refused there).
      for (int doubling = 0;; ++doubling) {
        bool tight = true;
        convolve(g, next, w.lo, w.hi, dominating ? kMessageMargin : 1.0, std::ldexp(kReach, doubling),
                 dominating ? &tight : nullptr, F[j], interrupts);
        if (tight) break;
        if (doubling == kMaxReachDoublings)
          throw Error("a sum of the non-negative cascade's messages would not converge",
                      "Its window reaches values below what its tails can bound.");
      }
      F[j].support = support[j];
      if (dominating) {
        // The tilt of this window's majorant (or, for the split's own sum, a
        // bound of that of the part store_split keeps).
        room = majorant_tails_fall(F[j], majorant_tilt(F[j].v.size(), g));
      } else {
        // The moments' windows (no majorant): the largest value inside.
        std::size_t m0 = 0;
        for (std::size_t i = 1; i < F[j].v.size(); ++i)
          if (F[j].v[i] > F[j].v[m0]) m0 = i;
        room = m0 + 1 < F[j].v.size() && (m0 > 0 || F[j].lo == support[j]);
      }
      capped = static_cast<std::size_t>(w.hi - w.lo + 1) >= cap;
      if (room || attempt >= 4 || capped) break;
      half *= 2;
    }
    if (dominating && !own) {
      // A window at its cap that still misses the function's largest value
      // has no tail that bounds what lies beyond it. It happens where many
      // small counts under one free node pull their sums (each leaf's noise
      // is one-sided at a count of 0) farther from the node's own value
      // than the cap reaches: at small epsilon, hundreds of nats apart.
      if (!room && capped)
        throw TooLarge("the non-negative cascade's windows cannot reach this split's values",
                       "A sum of the children of a node at depth " + std::to_string(tree_.depth(u)) +
                           " (0: the grand total) needs a window wider than " + std::to_string(options_.max_window) +
                           " values.",
                       pinned ? "Raise epsilon, or release with integer_cascade (unbiased, its counts may be "
                                "negative)."
                              : "Raise epsilon, make the totals above these counts exact (margins), or release "
                                "with integer_cascade (unbiased, its counts may be negative).");
      make_log_concave_majorant(F[j], majorant_tilt(F[j].v.size(), g));
    }
  }
}

// One depth at a time from the deepest, its splits in jobs on up to
// nonnegative_threads threads (a split reads only deeper splits' messages,
// stored before the depth starts); each job's windows go to a block of the
// pool, and the calling thread stores the blocks in the order one thread
// would have made them.
void NonnegativeMessages::build(const Interrupts& interrupts) {
  const unsigned threads = nonnegative_threads(options_, tree_.n_nodes());
  struct Block {
    std::vector<double> values;
    std::vector<std::uint32_t> nodes;
    std::vector<StoredMessage> messages;  // values set when the block is stored
    std::vector<std::size_t> offsets;     // each message's values in the block
  };
  std::size_t all_splits = 0;
  for (std::uint32_t v = 0; v < tree_.n_nodes(); ++v) {
    interrupts.poll_every(v);
    all_splits += !law_.pinned(v) && tree_.n_children(v) >= 2;
  }
  messages_.reserve(all_splits);
  std::vector<std::uint32_t> splits, large;
  for (unsigned d = tree_.height() + 1; d-- > 0;) {
    splits.clear();
    large.clear();
    for (std::uint32_t v = tree_.level_end(d); v-- > tree_.level_begin(d);) {
      interrupts.poll_every(v);
      if (law_.pinned(v) || tree_.n_children(v) < 2) continue;
      (large_split(v) ? large : splits).push_back(v);
    }
    const std::size_t jobs = (splits.size() + kSplitsPerJob - 1) / kSplitsPerJob;
    std::vector<Block> blocks(jobs);
    mcmc::run_jobs(jobs, threads, interrupts, [&](std::size_t k, const mcmc::JobPoll& poll) {
      const Interrupts job_interrupts = poll.interrupts();
      std::vector<ChildMessage> children;
      std::vector<WindowFn> F;
      WindowFn h;
      Block& block = blocks[k];
      const std::size_t end = std::min(splits.size(), (k + 1) * kSplitsPerJob);
      for (std::size_t i = k * kSplitsPerJob; i < end; ++i) {
        block.nodes.push_back(splits[i]);
        block.messages.push_back(store_split(splits[i], children, F, h, job_interrupts));
        block.offsets.push_back(block.values.size());
        block.values.insert(block.values.end(), h.v.begin(), h.v.end());
      }
      block.values.shrink_to_fit();  // the pool holds exactly the windows
    });
    // The large splits alone, on this thread (the size check counts one
    // large split's suffix functions at a time).
    for (const std::uint32_t u : large) {
      std::vector<ChildMessage> children;
      std::vector<WindowFn> F;
      WindowFn h;
      Block& block = blocks.emplace_back();
      block.nodes.push_back(u);
      block.messages.push_back(store_split(u, children, F, h, interrupts));
      block.offsets.push_back(0);
      block.values = std::move(h.v);
      block.values.shrink_to_fit();
    }
    for (Block& block : blocks) {
      interrupts.poll();
      for (std::size_t i = 0; i < block.nodes.size(); ++i) {
        block.messages[i].values = block.values.data() + block.offsets[i];
        index_[block.nodes[i]] = static_cast<std::uint32_t>(messages_.size());
        messages_.push_back(block.messages[i]);
      }
      pool_.push_back(std::move(block.values));  // moves the buffer: the pointers stay valid
    }
  }
}

StoredMessage NonnegativeMessages::store_split(std::uint32_t u, std::vector<ChildMessage>& children,
                                               std::vector<WindowFn>& F, WindowFn& h,
                                               const Interrupts& interrupts) const {
  const double rate = chain_rate(chain_top(u));
  suffixes(u, children, F, 0, interrupts);
  double children_var_cap = 0, children_mean_cap = 0;
  for (std::uint32_t j = 0; j < tree_.n_children(u); ++j) {
    children_var_cap += variance_cap(tree_.first_child(u) + j);
    children_mean_cap += mean_cap(tree_.first_child(u) + j);
  }
  // Keep where exp(-rate |t|) F_0(t) is within exp(-window_tail) of its
  // largest value, with F_0's own largest value and on either side the
  // points to the first step that falls by more than the majorant's tilt
  // (the tails continue from the ends; F_0's own window ends in such steps,
  // suffixes saw to it), and 0 if the cap allows.
  WindowFn& F0 = F[0];
  const RatePowers& pow = powers(rate);
  const std::size_t n = F0.v.size();
  std::vector<double> w(n);
  std::size_t best = 0, mode = 0, last_mode = 0;  // F_0's largest value: first and last
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t t = F0.lo + static_cast<std::int64_t>(k);
    w[k] = pow.at(t < 0 ? -t : t) * F0.v[k];
    if (w[k] > w[best]) best = k;
    if (F0.v[k] > F0.v[mode]) mode = last_mode = k;
    if (F0.v[k] == F0.v[mode]) last_mode = k;
  }
  const double threshold = w[best] * std::exp(-options_.window_tail);
  std::size_t a = best, b = best;
  // Ends: each scan stays within the window's n values.
  while (a > 0 && w[a - 1] >= threshold) --a;
  while (b + 1 < n && w[b + 1] >= threshold) ++b;
  a = std::min(a, mode > 0 ? mode - 1 : 0);
  b = std::max(b, std::min(last_mode + 1, n - 1));
  const std::size_t cap = nonnegative_window_cap(discrete_laplace_variance_at(rate), rate, 0, options_);
  if (F0.lo <= 0 && F0.hi() >= 0) {
    const auto zero = static_cast<std::size_t>(-F0.lo);
    const std::size_t a0 = std::min(a, zero), b0 = std::max(b, zero);
    if (b0 - a0 + 1 <= cap) a = a0, b = b0;
  }
  // A child of a pinned split may be drawn tilted (nonnegative_cascade_tilt.hpp),
  // near the least values its counts allow: where what is kept starts at 0
  // or above, a window that reaches the support (suffixes takes it there
  // when its cap allows) keeps what lies below (within the size check's
  // pool, which counts the whole window).
  const std::uint32_t top = chain_top(u);
  if (top != 0 && law_.pinned(tree_.parent(top)) && F0.lo == F0.support && F0.lo + static_cast<std::int64_t>(a) >= 0)
    a = 0;
  const double tilt = majorant_tilt(n, children[0]);
  // Ends: each scan stays within the window's n values.
  while (a > 0 && !(F0.v[a] * tilt < F0.v[a + 1])) --a;
  while (b + 1 < n && !(F0.v[b] * tilt < F0.v[b - 1])) ++b;
  h.lo = F0.lo + static_cast<std::int64_t>(a);
  h.v.assign(F0.v.begin() + static_cast<std::ptrdiff_t>(a), F0.v.begin() + static_cast<std::ptrdiff_t>(b) + 1);
  h.support = F0.support;
  h.exp2 = F0.exp2;
  if (options_.dominating) make_log_concave_majorant(h, tilt);
  StoredMessage sm;
  sm.lo = h.lo;
  sm.support = h.support;
  sm.values = h.v.data();
  sm.n = static_cast<std::uint32_t>(h.v.size());
  sm.exp2 = h.exp2;
  sm.children_var_cap = children_var_cap;
  sm.children_mean_cap = children_mean_cap;
  sm.left = h.left;
  sm.right = h.right;
  ChildMessage view = subtree_message(sm, pow);
  describe_subtree_message(view);
  sm.hmax = view.hmax;
  sm.mean = view.mean;
  sm.var = view.var;
  return sm;
}

NonnegativeSize nonnegative_cascade_size(const HierarchyTree& tree, const NonnegativeLaw& law,
                                         const NonnegativeOptions& options, const Interrupts& interrupts,
                                         std::vector<std::uint32_t>* large_splits) {
  NonnegativeSize size;
  size.node_bytes = 40.0 * double(tree.n_nodes());  // the release's arrays, this check's own, the draw's splits
  auto rate_of = [&](std::uint32_t top) {
    unsigned d = tree.depth(top);
    double rate = law.level_epsilon(d);
    for (std::uint32_t e = top; tree.n_children(e) == 1; e = tree.first_child(e)) rate += law.level_epsilon(++d);
    return rate;
  };
  auto chain_end = [&](std::uint32_t top) {
    std::uint32_t e = top;
    // Ends: a chain of one-child nodes is at most the tree's height long.
    while (tree.n_children(e) == 1) e = tree.first_child(e);
    return e;
  };
  // own_width[u]: the widest own window of split u (its stored h_u is a
  // part of it), filled from the leaves up (children have larger ids).
  std::vector<std::uint32_t> own_width(tree.n_nodes(), 0);
  // var_cap[e]: the sum of the discrete Laplace variances of every chain
  // below e (NonnegativeMessages::variance_cap without the chain's own).
  std::vector<double> var_cap(tree.n_nodes(), 0.0), mean_cap(tree.n_nodes(), 0.0);
  std::vector<double> rates;
  // The largest split's suffix functions, and the largest of a split at
  // most kNonnegativeLargeSplitBytes.
  double largest = 0, largest_small = 0;
  if (large_splits != nullptr) large_splits->clear();
  std::uint64_t steps = 0;
  for (std::size_t i = tree.n_nodes(); i-- > 0;) {
    interrupts.poll_every(steps++);
    const auto u = static_cast<std::uint32_t>(i);
    const std::uint32_t m = tree.n_children(u);
    if (m < 2 || law.pinned(tree.first_child(u))) continue;
    rates.resize(m);
    double rmax = 0;
    for (std::uint32_t j = 0; j < m; ++j) {
      interrupts.poll_every(steps++);
      rates[j] = rate_of(tree.first_child(u) + j);
      rmax = std::max(rmax, rates[j]);
    }
    const bool pinned = law.pinned(u);
    double own_rate = 0;
    if (!pinned) {
      std::uint32_t top = u;
      // Ends: up a chain of one-child nodes, at most the tree's height.
      while (top != 0 && tree.n_children(tree.parent(top)) == 1 && !law.pinned(tree.parent(top))) top = tree.parent(top);
      own_rate = rate_of(top);
    }
    const double limit = split_tilt_limit(pinned, own_rate, rmax);
    double total_var = 0, total_mean = 0;
    for (std::uint32_t j = 0; j < m; ++j) {
      interrupts.poll_every(steps++);
      const std::uint32_t e = chain_end(tree.first_child(u) + j);
      total_var += discrete_laplace_variance_at(rates[j]) + var_cap[e];
      total_mean += tree.is_leaf(e) ? leaf_mean_cap(rates[j]) : mean_cap[e];
    }
    double suffix_var = 0, suffix_min = INFINITY, scratch = 0, ops = 0;
    if (pinned) {
      // The children's tilted windows; the tables of their tilted rates
      // (one for each rate among them, no longer than that rate's).
      std::vector<double> distinct;
      for (std::uint32_t j = 0; j < m; ++j) {
        interrupts.poll_every(steps++);
        const std::uint32_t e = chain_end(tree.first_child(u) + j);
        const double v = discrete_laplace_variance_at(rates[j]) + var_cap[e];
        const double mean = tree.is_leaf(e) ? leaf_mean_cap(rates[j]) : mean_cap[e];
        scratch += 8.0 * double(pinned_tilt_window_cap(v, mean, rates[j], options));
        if (std::find(distinct.begin(), distinct.end(), rates[j]) == distinct.end()) {
          distinct.push_back(rates[j]);
          size.pool_bytes += 16.0 * double(rate_table_length(rates[j])) + 128.0;
        }
      }
    }
    for (std::uint32_t j = m; j-- > 0;) {
      interrupts.poll_every(steps++);
      const std::uint32_t e = chain_end(tree.first_child(u) + j);
      const double v = discrete_laplace_variance_at(rates[j]) + var_cap[e];
      suffix_var += v;
      suffix_min = std::min(suffix_min, rates[j]);
      const double shift = split_shift_cap(limit, suffix_var, total_mean, total_var);
      std::size_t cap = nonnegative_window_cap(suffix_var, suffix_min, shift, options);
      if (j == 0 && !pinned) {
        cap = nonnegative_window_cap(suffix_var + discrete_laplace_variance_at(own_rate),
                                     std::min(suffix_min, own_rate), shift, options);
        own_width[u] = static_cast<std::uint32_t>(std::min<std::size_t>(cap, 0xffffffffu));
      }
      const double read = double(cap) + 2.0 * double(reach_of(rates[j]));  // the window and its reach
      size.largest_window = std::max(size.largest_window, cap);
      scratch += 8.0 * double(cap) + double(sizeof(WindowFn) + sizeof(ChildMessage));
      // The backward pass and the draw's recomputation convolve (a leaf in
      // O(window), about 8 passes); the draw's table is one more pass.
      const double child_width = tree.is_leaf(e) ? 8.0 : double(own_width[e]) + 2.0 * double(reach_of(rates[j]));
      ops += 2 * read * child_width + 12 * read;
    }
    var_cap[u] = suffix_var;
    mean_cap[u] = total_mean;
    largest = std::max(largest, scratch);
    if (scratch <= kNonnegativeLargeSplitBytes) {
      largest_small = std::max(largest_small, scratch);
    } else if (large_splits != nullptr) {
      large_splits->push_back(u);
    }
    size.operations += ops;
    if (!pinned) size.pool_bytes += 8.0 * double(own_width[u]) + 96.0;  // its window and its StoredMessage
  }
  // A large split's suffix functions are the only ones held while it is
  // worked on (alone, on the calling thread); otherwise two threads' or the
  // draw's slots' small ones. And each thread's convolution buffers
  // (thread_local, a few windows each).
  size.scratch_bytes = std::max(largest, double(kNonnegativeDrawSlots) * largest_small) +
                       kMaxThreads * 64.0 * double(size.largest_window);
  if (large_splits != nullptr) std::reverse(large_splits->begin(), large_splits->end());  // node order
  return size;
}

void require_nonnegative_cascade_fits(const NonnegativeSize& size) {
  const double bytes = size.pool_bytes + size.scratch_bytes + size.node_bytes;
  auto mb = [](double b) { return std::to_string(static_cast<long long>(b / (1 << 20))) + " MB"; };
  if (bytes > kMaxPoolBytes)
    throw TooLarge("the non-negative cascade's windows would not fit in memory",
                   "Its messages need up to " + mb(size.pool_bytes) + ", the splits' windows it holds at once " +
                       mb(size.scratch_bytes) +
                       " and its nodes " + mb(size.node_bytes) + "; at most " + mb(kMaxPoolBytes) + " are allowed.",
                   "Raise epsilon or the variance targets' budget (less noise needs shorter windows), or release "
                   "a coarser hierarchy.");
  if (size.operations > kMaxOperations)
    throw TooLarge("the non-negative cascade's windows would take too long to compute",
                   "A draw would need about " + format_double(size.operations) + " operations.",
                   "Raise epsilon (less noise needs shorter windows), or release a coarser hierarchy.");
}

}  // namespace invariant_dp::hierarchy
