// The exact sampler of the non-negative cascade
// (nonnegative_cascade_sampler.hpp; NONNEGATIVE.md, section 4).
#include "nonnegative_cascade_sampler.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../mcmc/worker_threads.hpp"
#include "../samplers/interval.hpp"
#include "../samplers/lazy_bernoulli.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr const char* kNonnegativeNoiseOutOfRange = "non-negative cascade noise is out of range";

// c_u(t): a stored value of h_u (a window value, or an edge value times a
// tail ratio to the power j) times 2^exp2, or T / sigma of the first table.
struct Normaliser {
  bool table_total = false;
  double mantissa = 1, ratio = 0;
  std::int64_t power = 0;
  int exp2 = 0;
  Uint128 total = 0;
  int scale_exp2 = 0;
};

// h(s) of a child's message exactly: 1 for a leaf, a window value, or an
// edge value times its tail ratio to a power.
Interval exact_h(const ChildMessage& g, std::int64_t s, mpfr_prec_t prec) {
  if (s < g.support) return Interval(prec);
  if (g.leaf) return exact(prec, std::uint64_t{1});
  if (s > g.hi()) {
    return mul(exact_double(prec, g.values[g.n - 1]),
               pow(exact_double(prec, g.right), static_cast<unsigned long>(s - g.hi())));
  }
  if (s < g.lo)
    return mul(exact_double(prec, g.values[0]), pow(exact_double(prec, g.left), static_cast<unsigned long>(g.lo - s)));
  return exact_double(prec, g.values[s - g.lo]);
}

// The acceptance coin of one split (or of the root): probability
// p = prod_j g_j(s_j) / prod_k P_k(s_k) / c, p <= 1 by construction.
bool accept(RandomSource& rng, const std::vector<ChildMessage>& g, const std::vector<std::int64_t>& s,
            const std::vector<ProposalDraw>& d, const Normaliser& c, bool enclosed_only, NonnegativeDrawStats& stats) {
  double mantissa = 1;
  long exponent = 0;
  // The double estimate's error model (a few roundings per factor) holds
  // only while every factor is a normal double: a power exp(-rho |s|) or a
  // tail's r^j that underflowed (a split whose value lies hundreds of nats
  // out) would make the estimate 0 while p is not, and the coin would be
  // refused for certain. Then only the enclosures decide.
  bool representable = true;
  auto times = [&](double x, long e) {
    if (!std::isnormal(x)) representable = false;
    int f = 0;
    mantissa = std::frexp(mantissa * x, &f);
    exponent += f + e;
  };
  for (std::size_t j = 0; j < g.size(); ++j) {
    const double h = g[j].h(s[j]);
    // 0 in double far along a tail (positive there): the enclosures decide.
    if (h == 0 && g[j].zero_at(s[j])) return false;  // outside the support: the target is 0
    times(g[j].pow->at(s[j] < 0 ? -s[j] : s[j]) * h, g[j].exp2);
  }
  for (const ProposalDraw& draw : d) times(1 / draw.probability, 0);
  if (c.table_total)
    times(1 / static_cast<double>(c.total), c.scale_exp2);
  else
    times(1 / (c.mantissa * ratio_power(c.ratio, c.power)), -c.exp2);
  LazyUniform u(rng);
  if (representable && mantissa > 0) {
    // Each factor above is within a few roundings of its exact value (libm's
    // exp and pow within 2^8 ulp); 2^-40 per factor covers them.
    const double factors = double(g.size() + d.size() + 2);
    // Below 2^-1000 the estimate says only that p is below 2^-64.
    const bool tiny = exponent < -1000;
    const double estimate = tiny ? 0.0 : std::ldexp(mantissa, static_cast<int>(std::min<long>(exponent, 2000)));
    const double certain = estimate * (1 - factors * 0x1p-40);
    const double impossible = tiny ? 0x1p-64 : estimate * (1 + factors * 0x1p-40);  // p is below this
    // p <= 1 is what makes the sampler exact (NONNEGATIVE.md, section 4); an
    // estimate clearly above 1 is a broken bound, never a coin to flip.
    if (!(estimate <= 1 + 0x1p-20)) throw Error("an acceptance probability of the non-negative cascade exceeds 1");
    if (!enclosed_only) {
      if (certain >= 1) return true;
      if (certain > 0 && u.first_word() < static_cast<std::uint64_t>(std::ldexp(certain, 64))) return true;
      // U >= first_word / 2^64 >= impossible > p.
      if (impossible < 1 && static_cast<double>(u.first_word()) >= std::ldexp(impossible, 64)) return false;
    }
  }
  ++stats.exact_coins;
  return u.less_than([&](mpfr_prec_t prec) {
    Interval p = exact(prec, std::uint64_t{1});
    for (std::size_t j = 0; j < g.size(); ++j) {
      const std::uint64_t a = static_cast<std::uint64_t>(s[j] < 0 ? -s[j] : s[j]);
      const Interval power = exp(neg(mul(exact_double(prec, g[j].rho()), exact(prec, a))));
      p = mul(p, scale_2exp(mul(power, exact_h(g[j], s[j], prec)), g[j].exp2));
    }
    for (const ProposalDraw& draw : d) p = div(p, proposal_probability(draw, prec));
    Interval norm = c.table_total ? scale_2exp(exact(prec, c.total), -c.scale_exp2)
                                  : scale_2exp(exact_double(prec, c.mantissa), c.exp2);
    if (!c.table_total && c.power > 0)
      norm = mul(norm, pow(exact_double(prec, c.ratio), static_cast<unsigned long>(c.power)));
    return div(p, norm);
  });
}

}  // namespace

NonnegativeSampler::NonnegativeSampler(const NonnegativeMessages& messages)
    : messages_(messages), table_(messages.options().written_tail), slots_(kNonnegativeDrawSlots) {
  if (!messages.options().dominating)
    throw InvalidArgument("the non-negative cascade's sampler needs dominating messages");
}

void NonnegativeSampler::assign_chain(std::uint32_t top, std::int64_t value, std::int64_t* node_noise) const {
  const HierarchyTree& tree = messages_.tree();
  // Ends: down a chain of one-child nodes, at most the tree's height.
  for (std::uint32_t w = top;; w = tree.first_child(w)) {
    node_noise[w] = value;
    if (tree.n_children(w) != 1) break;
  }
}

void NonnegativeSampler::list_splits(const Interrupts& interrupts) {
  const HierarchyTree& tree = messages_.tree();
  const NonnegativeLaw& law = messages_.law();
  splits_.clear();
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    interrupts.poll_every(v);
    if (tree.n_children(v) >= 2 && !law.pinned(tree.first_child(v))) splits_.push_back(v);
  }
  splits_.shrink_to_fit();
  listed_ = true;
}

NonnegativeDrawStats NonnegativeSampler::sample(RandomSource& rng, std::int64_t* node_noise,
                                                const Interrupts& interrupts) {
  if (!listed_) list_splits(interrupts);
  NonnegativeDrawStats stats;
  for (;;) {
    ++stats.attempts;
    interrupts.poll();
    if (attempt(rng, node_noise, interrupts, stats)) return stats;
    ++stats.failed_coins;
  }
}

bool NonnegativeSampler::attempt(RandomSource& rng, std::int64_t* node_noise, const Interrupts& interrupts,
                                 NonnegativeDrawStats& stats) {
  const HierarchyTree& tree = messages_.tree();
  const NonnegativeLaw& law = messages_.law();
  std::fill(node_noise, node_noise + tree.n_nodes(), std::int64_t{0});
  if (law.root_free()) {
    root_.assign(1, messages_.message(0));
    draws_.assign(1, table_.draw(root_[0], nullptr, 0, rng, interrupts));
    values_.assign(1, draws_[0].s);
    Normaliser c;
    c.table_total = true;
    c.total = draws_[0].total;
    c.scale_exp2 = draws_[0].scale_exp2;
    if (!accept(rng, root_, values_, draws_, c, messages_.options().enclosed_coins_for_test, stats)) return false;
    assign_chain(0, draws_[0].s, node_noise);
  }
  // The splits top-down (a parent's before its children's: node order),
  // each drawn on this thread given the value its parent's split gave it.
  // Runs of splits below kNonnegativeLargeSplitBytes have their suffix
  // functions prepared ahead on either thread; a large split's are
  // prepared here, alone (the size check counts one at a time).
  const unsigned threads = nonnegative_threads(messages_.options(), tree.n_nodes());
  std::size_t begin = 0;
  auto prepare = [&](std::size_t item, std::size_t slot, const mcmc::JobPoll& poll) {
    const std::uint32_t u = splits_[begin + item];
    messages_.suffixes(u, slots_[slot].children, slots_[slot].suffixes, 1, poll.interrupts(), &slots_[slot].tilt);
  };
  auto use = [&](std::size_t item, std::size_t slot) {
    interrupts.poll_every(item);
    const std::uint32_t u = splits_[begin + item];
    return split(u, node_noise[u], slots_[slot], rng, node_noise, interrupts, stats);
  };
  // Ends: each pass draws at least one split.
  while (begin < splits_.size()) {
    interrupts.poll();
    std::size_t end = begin;
    // Ends: at the end of the list.
    while (end < splits_.size() && !messages_.large_split(splits_[end])) ++end;
    if (end > begin) {
      if (!mcmc::run_in_order(end - begin, slots_.size(), threads, interrupts, prepare, use)) return false;
      begin = end;
      continue;
    }
    const std::uint32_t u = splits_[begin++];
    for (Slot& slot : slots_) slot = Slot{};  // nothing else held meanwhile
    Slot large;
    messages_.suffixes(u, large.children, large.suffixes, 1, interrupts, &large.tilt);
    if (!split(u, node_noise[u], large, rng, node_noise, interrupts, stats)) return false;
  }
  return true;
}

bool NonnegativeSampler::split(std::uint32_t u, std::int64_t t, const Slot& slot, RandomSource& rng,
                               std::int64_t* node_noise, const Interrupts& interrupts, NonnegativeDrawStats& stats) {
  const HierarchyTree& tree = messages_.tree();
  const std::vector<ChildMessage>& children = slot.children;
  const std::uint32_t m = tree.n_children(u);
  // The normaliser c_u(t): h_u(t) as the parent's proposal used it.
  Normaliser c;
  if (messages_.law().pinned(u)) {
    c.table_total = true;
  } else {
    const StoredMessage& sm = *messages_.stored(u);
    const double* v = sm.values;
    const std::int64_t hi = sm.lo + static_cast<std::int64_t>(sm.n) - 1;
    c.exp2 = sm.exp2;
    if (t > hi) {
      c.mantissa = v[sm.n - 1], c.ratio = sm.right, c.power = t - hi;
    } else if (t < sm.lo) {
      c.mantissa = v[0], c.ratio = sm.left, c.power = sm.lo - t;
    } else {
      c.mantissa = v[t - sm.lo];
    }
  }
  draws_.resize(m - 1);
  values_.resize(m);
  std::int64_t rem = t;
  for (std::uint32_t k = 0; k + 1 < m; ++k) {
    interrupts.poll_every(k);
    const Suffix next = messages_.suffix(children, slot.suffixes, k + 1);
    draws_[k] = table_.draw(children[k], &next, rem, rng, interrupts);
    stats.tail_draws += draws_[k].tail;
    values_[k] = draws_[k].s;
    rem = checked_sub(rem, values_[k], kNonnegativeNoiseOutOfRange);
  }
  values_[m - 1] = rem;
  if (c.table_total) {
    c.total = draws_[0].total;
    c.scale_exp2 = draws_[0].scale_exp2;
  }
  // The coin's numerator is the target's: the children's own messages. Where
  // they were tilted, the proposal's are exp(theta s_j) times larger or more,
  // and the s_j sum to 0 (t = 0 at a pinned node), so p <= 1 still holds.
  const std::vector<ChildMessage>& target = slot.tilt.theta < 0 ? slot.tilt.plain : children;
  if (!accept(rng, target, values_, draws_, c, messages_.options().enclosed_coins_for_test, stats)) return false;
  for (std::uint32_t j = 0; j < m; ++j) assign_chain(tree.first_child(u) + j, values_[j], node_noise);
  return true;
}

}  // namespace invariant_dp::hierarchy
