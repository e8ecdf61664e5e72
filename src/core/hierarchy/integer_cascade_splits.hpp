// The exact rational parameters of an integer cascade (integer_cascade_
// sampler.hpp): the root's variance and, for every free split, tau^2 =
// (v_c m^2 - v_p) / (m (m - 1)) with v_p the parent's variance and v_c its
// children's level variance (cascade_law.hpp), as fractions of integers.
//
// Exact because every level variance is a double, i.e. N_d / 2^K for one
// common K (the law sampled is the law of the doubles, the one the privacy
// accounting sees); tau^2 is formed with GMP and kept in lowest terms, and
// must leave room for the per-coordinate s^2 = tau^2 i/(i+1) within 128-bit
// integers (true unless the targets span some 60 binary orders or a node
// has tens of millions of children).
// Splits sharing (depth, fan-out, parent variance) share tau^2: a class.
// The sampler, the acceptance bound and the certified accuracy all loop over
// classes, not nodes.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/bernoulli_exp.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

struct SplitClass {
  unsigned depth = 0;              // of the parent
  std::uint32_t fanout = 0;        // m >= 2
  double parent_variance = 0;      // v_p (its level's, or a chain's top)
  Uint128 tau2_num = 0, tau2_den = 1;  // tau^2, lowest terms
  std::uint64_t n_nodes = 0;       // free splits of this class
  double tau2() const { return static_cast<double>(tau2_num) / static_cast<double>(tau2_den); }
};

class IntegerSplits {
 public:
  // One pass over the nodes. OutOfRange when a variance or tau^2 does not fit
  // the exact sampler's integers (variances spanning more than ~60 binary
  // orders, or fan-outs beyond 2^24 at fine grids).
  IntegerSplits(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts);

  const std::vector<SplitClass>& classes() const { return classes_; }
  // The class of a free split (n_children >= 2, splits_freely).
  std::uint32_t class_index(unsigned depth, std::uint32_t fanout, double parent_variance) const;

  // The root is a coordinate unless pinned; its variance v_0 exactly.
  bool root_free() const { return root_free_; }
  Uint128 root_num() const { return root_num_; }
  Uint128 root_den() const { return root_den_; }

  // Free coordinates: the root (if free) and m - 1 per free split.
  std::uint64_t n_coordinates() const { return n_coordinates_; }

 private:
  std::vector<SplitClass> classes_;
  std::map<std::tuple<unsigned, std::uint32_t, double>, std::uint32_t> index_;
  bool root_free_ = false;
  Uint128 root_num_ = 0, root_den_ = 1;
  std::uint64_t n_coordinates_ = 0;
};

// Sum over the free split coordinates j of h(s_j^2), s^2 = tau^2 i/(i+1)
// for i = 1 .. m-1 of every split (and v_0 for the root if with_root), for h
// decreasing and >= 0: exact terms for i < 64, and (m - 64) h(tau^2 64/65)
// for the rest of a split (an upper bound). Doubles; for choosing a method,
// never for deciding a draw.
template <class H>
double coordinate_sum_bound(const IntegerSplits& splits, H h, bool with_root) {
  double total = with_root && splits.root_free()
                     ? h(static_cast<double>(splits.root_num()) / static_cast<double>(splits.root_den()))
                     : 0.0;
  for (const SplitClass& c : splits.classes()) {
    double per_split = 0;
    const std::uint32_t exact_end = c.fanout < 64 ? c.fanout : 64;
    for (std::uint32_t i = 1; i < exact_end; ++i) per_split += h(c.tau2() * i / (i + 1.0));
    if (c.fanout > 64) per_split += double(c.fanout - 64) * h(c.tau2() * 64 / 65.0);
    total += per_split * double(c.n_nodes);
  }
  return total;
}

}  // namespace invariant_dp::hierarchy
