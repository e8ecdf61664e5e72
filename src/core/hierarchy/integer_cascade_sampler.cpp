// The exact integer cascade; the argument is in integer_cascade_sampler.hpp
// (steps 1-5 below refer to it).
#include "integer_cascade_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "../errors.hpp"
#include "../large_buffer.hpp"
#include "../math_constants.hpp"
#include "../samplers/conditioned_gaussian.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Tables: only for s^2 <= 2^20 (at most ~20,000 entries each), at most 2^22
// entries (64 MB) in all, and only when a class's draws are at least
// kDrawsPerTableEntry times the entries they need (an entry costs about
// ten exact 1-D draws to build: two MPFR exponentials).
constexpr double kMaxTableS2 = 1048576.0;
constexpr std::size_t kMaxTableEntries = std::size_t(1) << 22;
constexpr double kDrawsPerTableEntry = 16;

constexpr const char* kCascadeNoiseOutOfRange = "integer cascade noise is out of range";

// Step 2 in node order: the root, then every free split's P_{m-1} .. P_1.
// Draw: std::int64_t root(); void begin_split(node, depth, m);
// bool coordinate(i, c_num, Q, out) with centre c_num / Q, false to restart.
template <class Draw>
bool run_integer_cascade(const HierarchyTree& tree, const CascadeLaw& law, Draw& draw, std::int64_t* node,
                         const Interrupts& interrupts) {
  node[0] = law.pinned(0) ? 0 : draw.root();
  std::uint64_t steps = 0;
  for (unsigned d = 0; d < tree.height(); ++d) {
    for (std::uint32_t v = tree.level_begin(d); v < tree.level_end(d); ++v) {
      interrupts.poll_every(steps++);
      const std::uint32_t m = tree.n_children(v);
      if (m == 0) continue;
      const std::uint32_t c0 = tree.first_child(v);
      if (law.pinned(c0)) {
        std::fill(node + c0, node + c0 + m, std::int64_t{0});
        continue;
      }
      if (m == 1) {
        node[c0] = node[v];
        continue;
      }
      draw.begin_split(v, d, m);
      std::int64_t next = node[v];  // P_{i+1}; P_m = X_v
      for (std::uint32_t i = m - 1; i >= 1; --i) {
        interrupts.poll_every(steps++);
        std::int64_t p = 0;
        if (!draw.coordinate(i, checked_narrow(Int128(i) * next, kCascadeNoiseOutOfRange), std::uint64_t(i) + 1, p))
          return false;
        node[c0 + i] = checked_narrow(Int128(next) - p, kCascadeNoiseOutOfRange);  // X_{c_{i+1}} = P_{i+1} - P_i
        next = p;
      }
      node[c0] = next;  // P_1
    }
  }
  return true;
}

// floor(c_num / Q) and c_num - Q floor(c_num / Q) in [0, Q); Q = i + 1 <= 2^32.
void split_centre(std::int64_t c_num, std::uint64_t Q, std::int64_t& whole, std::uint64_t& F) {
  const auto q = static_cast<std::int64_t>(Q);
  std::int64_t r = c_num / q, f = c_num % q;
  if (f < 0) {
    --r;
    f += q;
  }
  whole = r;
  F = static_cast<std::uint64_t>(f);
}

}  // namespace

void require_integer_cascade_size(std::size_t n_nodes) {
  if (n_nodes > kMaxIntegerCascadeNodes)
    throw TooLarge("the hierarchy is too large for the integer cascade",
                   "It has " + std::to_string(n_nodes) + " nodes; at most " +
                       std::to_string(kMaxIntegerCascadeNodes) + " are allowed.",
                   "Release fewer cells, or use the cascade mechanism on a coarser hierarchy.");
}

double product_acceptance_bound(const std::vector<std::vector<CoordinateGroup>>& factors) {
  // Failure bound sum of 4 q/(1 - q), q = exp(-2 pi^2 s^2), over the product.
  double failure = 0;
  std::vector<std::size_t> at(factors.size(), 0);
  for (const auto& f : factors)
    if (f.empty()) return 1;
  // Ends: an odometer over the factors' coordinate groups: one pass per tuple, their product.
  for (;;) {
    double s2 = 1, count = 1;
    bool all_root = true;
    for (std::size_t k = 0; k < factors.size(); ++k) {
      const CoordinateGroup& g = factors[k][at[k]];
      s2 *= g.s2();
      count *= double(g.count);
      all_root = all_root && g.root;
    }
    if (!all_root) {
      const double q = std::exp(-kTwoPiSquared * s2);
      failure += q < 1 ? count * 4 * q / (1 - q) : INFINITY;
    }
    std::size_t k = 0;
    // Ends: at most one pass per factor.
    while (k < factors.size() && ++at[k] == factors[k].size()) at[k++] = 0;
    if (k == factors.size()) break;
  }
  return 1 - failure;
}

double integer_cascade_acceptance_bound(const IntegerSplits& splits) {
  return product_acceptance_bound({coordinate_groups(splits)});
}

bool integer_cascade_exact_applies(const IntegerSplits& splits) {
  return integer_cascade_acceptance_bound(splits) >= 0.5;
}

void require_integer_cascade_exact(const IntegerSplits& splits) {
  const double bound = integer_cascade_acceptance_bound(splits);
  if (bound >= 0.5) return;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", bound);
  throw OutOfRange("the noise is too small for the exact integer cascade on this hierarchy",
                   "An attempt of the exact sampler is accepted with probability at least " + std::string(text) +
                       " here (from the split variances and the number of nodes); it runs only when that bound "
                       "is at least 0.5.",
                   "Lower epsilon (or rho), or raise the variance targets; the smallest split variance matters "
                   "most.");
}

IntegerCascadeSampler::IntegerCascadeSampler(const HierarchyTree& tree, const CascadeLaw& law,
                                             const Interrupts& interrupts, IntegerCascadeOptions options)
    : tree_(tree),
      law_(law),
      splits_((require_integer_cascade_size(tree.n_nodes()), tree), law, interrupts),
      options_(options) {
  acceptance_bound_ = integer_cascade_acceptance_bound(splits_);
  require_integer_cascade_exact(splits_);
  std::size_t budget = kMaxTableEntries;
  for (const SplitClass& c : splits_.classes()) {
    interrupts.poll();
    // Every s^2 of the class is at least tau^2 / 2 (step 2).
    ClassDraws cd{KleinCorrection(c.tau2_num, c.tau2_den * 2), {}};
    if (options_.draws != IntegerCascadeOptions::Draws::rejection) {
      for (std::uint32_t i = 1; i < c.fanout; ++i) {
        const double s2 = c.tau2() * i / (i + 1.0);
        const std::size_t cost = (std::size_t(i) + 1) * DiscreteGaussianTable::entries_for(s2);
        const bool worth = options_.draws == IntegerCascadeOptions::Draws::tables ||
                           double(c.n_nodes) >= kDrawsPerTableEntry * double(cost);
        if (s2 > kMaxTableS2 || cost > budget || !worth) break;  // cost grows with i
        budget -= cost;
        cd.tables.resize(i + 1);
        for (std::uint64_t F = 0; F <= i; ++F) {
          cd.tables[i].emplace_back(c.tau2_num * i, c.tau2_den * (i + 1), F, std::uint64_t(i) + 1, interrupts);
          table_bytes_ += cd.tables[i].back().memory_bytes();
        }
        table_coordinates_ += c.n_nodes;
      }
    }
    draws_.push_back(std::move(cd));
  }
}

std::uint64_t IntegerCascadeSampler::sample(RandomSource& rng, std::int64_t* node_noise,
                                            const Interrupts& interrupts) const {
  // Step 3: exact 1-D draws and their correction coins.
  struct Draw {
    const IntegerCascadeSampler& s;
    RandomSource& rng;
    bool correct;
    const SplitClass* cls = nullptr;
    const ClassDraws* cd = nullptr;
    unsigned last_depth = ~0u;
    std::uint32_t last_fanout = 0;
    double last_variance = 0;

    std::int64_t root() {
      return sample_discrete_gaussian_centred(rng, s.splits_.root_num(), s.splits_.root_den(), 0, 1);
    }
    void begin_split(std::uint32_t v, unsigned d, std::uint32_t m) {
      const double vp = s.law_.node_variance(v, d);
      if (d == last_depth && m == last_fanout && vp == last_variance) return;
      const std::uint32_t k = s.splits_.class_index(d, m, vp);
      cls = &s.splits_.classes()[k];
      cd = &s.draws_[k];
      last_depth = d;
      last_fanout = m;
      last_variance = vp;
    }
    bool coordinate(std::uint32_t i, std::int64_t c_num, std::uint64_t Q, std::int64_t& out) {
      std::int64_t whole = 0;
      std::uint64_t F = 0;
      split_centre(c_num, Q, whole, F);
      // s^2 = tau^2 i/(i+1), formed only when a draw or a coin needs it.
      auto s2_num = [&] { return cls->tau2_num * i; };
      auto s2_den = [&] { return cls->tau2_den * (std::uint64_t(i) + 1); };
      if (i < cd->tables.size() && !cd->tables[i].empty())
        out = checked_narrow(Int128(whole) + cd->tables[i][F].sample(rng), kCascadeNoiseOutOfRange);
      else
        out = sample_discrete_gaussian_centred(rng, s2_num(), s2_den(), c_num, static_cast<std::int64_t>(Q));
      return !correct || F == 0 || cd->correction.coin(rng, s2_num(), s2_den(), F, Q);
    }
  };
  Draw draw{*this, rng, !options_.skip_correction_for_power_test};
  for (std::uint64_t attempt = 1;; ++attempt) {
    interrupts.poll();
    if (run_integer_cascade(tree_, law_, draw, node_noise, interrupts)) return attempt;
  }
}

std::vector<std::int64_t> integer_cascade_leaf_noise(const HierarchyTree& tree, const CascadeLaw& law,
                                                     RandomSource& rng, const Interrupts& interrupts) {
  const IntegerCascadeSampler sampler(tree, law, interrupts);
  auto node = zeroed_large_buffer<std::int64_t>(tree.n_nodes());
  sampler.sample(rng, node.data(), interrupts);
  auto leaves = zeroed_large_buffer<std::int64_t>(tree.n_leaves());
  for (std::uint32_t leaf = 0; leaf < leaves.size(); ++leaf) {
    interrupts.poll_every(leaf);
    leaves[leaf] = node[tree.leaf_node(leaf)];
  }
  return leaves;
}

IntegerCascadeRelease release_integer_cascade(const HierarchyTree& tree, const CascadeLaw& law,
                                              const std::int64_t* counts_by_cell, RandomSource& rng,
                                              const Interrupts& interrupts) {
  const IntegerCascadeSampler sampler(tree, law, interrupts);
  IntegerCascadeRelease release;
  release.node_values = zeroed_large_buffer<std::int64_t>(tree.n_nodes());
  release.attempts = sampler.sample(rng, release.node_values.data(), interrupts);
  auto& node = release.node_values;
  // Leaves: count + noise; internal nodes: sums of their children, bottom-up
  // (children have larger ids), replacing the internal noise.
  for (std::size_t v = node.size(); v-- > 0;) {
    interrupts.poll_every(v);
    const auto u = static_cast<std::uint32_t>(v);
    if (tree.is_leaf(u)) {
      node[v] = checked_add(node[v], counts_by_cell[tree.leaf_cell(tree.leaf_begin(u))], kNoisyCountOutOfRange);
      continue;
    }
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(u); c < tree.child_end(u); ++c)
      add_to(sum, node[c], "a hierarchy total overflows a 64-bit integer");
    node[v] = sum;
  }
  return release;
}

std::vector<CascadeCoordinate> integer_cascade_coordinates(const HierarchyTree& tree, const CascadeLaw& law) {
  const IntegerSplits splits(tree, law, Interrupts());
  struct Trace {
    const CascadeLaw& law;
    const IntegerSplits& splits;
    std::vector<CascadeCoordinate> out;
    std::uint32_t node = 0;
    double tau2 = 0;
    std::int64_t root() {
      out.push_back({0, 0, law.level_variance(0)});
      return 0;
    }
    void begin_split(std::uint32_t v, unsigned d, std::uint32_t m) {
      node = v;
      tau2 = splits.classes()[splits.class_index(d, m, law.node_variance(v, d))].tau2();
    }
    bool coordinate(std::uint32_t i, std::int64_t, std::uint64_t, std::int64_t& value) {
      out.push_back({node, i, tau2 * i / (i + 1.0)});
      value = 0;
      return true;
    }
  } trace{law, splits, {}};
  std::vector<std::int64_t> nodes(tree.n_nodes());
  run_integer_cascade(tree, law, trace, nodes.data(), Interrupts());
  return trace.out;
}

std::vector<std::int64_t> integer_cascade_from_coordinates(const HierarchyTree& tree, const CascadeLaw& law,
                                                           const std::vector<std::int64_t>& y,
                                                           std::vector<double>* centres) {
  struct Replay {
    const std::vector<std::int64_t>& y;
    std::vector<double>* centres;
    std::size_t next = 0;
    std::int64_t take(double centre) {
      if (next >= y.size()) throw InvalidArgument("too few coordinates for the hierarchy");
      if (centres != nullptr) centres->push_back(centre);
      return y[next++];
    }
    std::int64_t root() { return take(0); }
    void begin_split(std::uint32_t, unsigned, std::uint32_t) {}
    bool coordinate(std::uint32_t, std::int64_t c_num, std::uint64_t Q, std::int64_t& value) {
      value = take(double(c_num) / double(Q));
      return true;
    }
  } replay{y, centres};
  if (centres != nullptr) centres->clear();
  std::vector<std::int64_t> nodes(tree.n_nodes());
  run_integer_cascade(tree, law, replay, nodes.data(), Interrupts());
  if (replay.next != y.size()) throw InvalidArgument("too many coordinates for the hierarchy");
  return nodes;
}

}  // namespace invariant_dp::hierarchy
