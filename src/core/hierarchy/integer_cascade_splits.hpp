// The exact rational parameters of an integer cascade
// (integer_cascade_sampler.hpp): the root's variance and, for every free split, tau^2 =
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
  // The class of a free split (n_children >= 2, splits_freely): O(1) for a
  // parent at its level's variance and fan-outs below 2^16, else a map.
  std::uint32_t class_index(unsigned depth, std::uint32_t fanout, double parent_variance) const {
    if (parent_variance == level_variance_[depth] && fanout < dense_[depth].size() &&
        dense_[depth][fanout] != kNoClass)
      return dense_[depth][fanout];
    return mapped_class(depth, fanout, parent_variance);
  }

  // The root is a coordinate unless pinned; its variance v_0 exactly.
  bool root_free() const { return root_free_; }
  Uint128 root_num() const { return root_num_; }
  Uint128 root_den() const { return root_den_; }

  // Free coordinates: the root (if free) and m - 1 per free split.
  std::uint64_t n_coordinates() const { return n_coordinates_; }

 private:
  static constexpr std::uint32_t kNoClass = 0xffffffffu;
  static constexpr std::uint32_t kDenseFanouts = 1u << 16;
  std::uint32_t mapped_class(unsigned depth, std::uint32_t fanout, double parent_variance) const;

  std::vector<SplitClass> classes_;
  std::map<std::tuple<unsigned, std::uint32_t, double>, std::uint32_t> index_;
  std::vector<double> level_variance_;
  std::vector<std::vector<std::uint32_t>> dense_;  // [depth][fanout] for parents at their level's variance
  bool root_free_ = false;
  Uint128 root_num_ = 0, root_den_ = 1;
  std::uint64_t n_coordinates_ = 0;
};

// The free coordinates grouped by s^2, for bounds by functions h(s^2) that
// decrease: the root (if free: s^2 = v_0, count 1), then per split class
// one group per i < 64 (s^2 = tau^2 i/(i+1), count n_nodes), and the
// coordinates i >= 64 of wide splits pooled at the s^2 of i = 64, a lower
// bound of theirs (so sums of h over the groups bound the sums over the
// coordinates from above).
struct CoordinateGroup {
  Uint128 s2_num = 0, s2_den = 1;
  std::uint64_t count = 0;
  bool root = false;
  // The smallest s^2 of the split class (tau^2 / 2), or v_0: for the
  // correction coins' certified thresholds.
  Uint128 class_min_num = 0, class_min_den = 1;
  double s2() const { return static_cast<double>(s2_num) / static_cast<double>(s2_den); }
};
std::vector<CoordinateGroup> coordinate_groups(const IntegerSplits& splits);

// At most max_groups + 1 groups with the same property: the root kept, the
// others sorted by s^2 and pooled into runs that take their smallest s^2
// (for sums over products of groups, which grow as the product of sizes).
std::vector<CoordinateGroup> pooled_groups(std::vector<CoordinateGroup> groups, std::size_t max_groups);

}  // namespace invariant_dp::hierarchy
