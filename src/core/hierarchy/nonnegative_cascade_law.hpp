// The law of the non-negative cascade (NONNEGATIVE.md beside this file has
// the argument): integer counts at every node of a hierarchy, each node the
// sum of its children, the declared totals exact, every leaf >= 0, drawn as
//
//   P(r | x)  proportional to  prod_{v free} exp(-eps_v |r_v - x_v|)
//   on  { r integer : every parent the sum of its children, r_f = x_f for
//         every pinned node f, r_leaf >= 0 },
//
// i.e. independent discrete Laplace noise on every free node's count (scale
// 1/eps_v, eps_v = the epsilon of v's depth), restricted to consistent tables
// that keep the exact totals, and conditioned on non-negative leaves (the
// conditioning route of Gong and Meng 2020, "Congenial differential privacy
// under mandated disclosure", arXiv:2008.10202, eq. 2.3).
//
// Pinned nodes (noise 0): the fixed nodes (exact margins, whole nodes that
// cut the tree as for the cascades, cascade_law.hpp), every ancestor of one,
// and the only child of a pinned node (consistency forces its total too).
// Every other node is free.
//
// Privacy (NONNEGATIVE.md, section 2): the unconditioned release of every
// free node's noisy count is base-epsilon-DP with base epsilon = max over
// the protected moves of sum_v eps_v |dx_v|; conditioning on a set fixed in
// output space costs at most a factor 2 (Gong and Meng 2020, Theorem 2.1 with
// gamma = 1). The calibration therefore spends epsilon/2 on the base law and
// the release states epsilon.
//
// Accuracy per level: each depth's discrete Laplace has the variance
// 1/(2 sinh^2(eps_d / 2)) (the base law's noise, before conditioning);
// level_variance targets set those variances, relative (scaled to the budget)
// or absolute (the release then reports what they cost). The released nodes'
// own bias and variance are those of the conditioned law
// (nonnegative_cascade_moments.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../privacy/neighbours.hpp"
#include "cascade_privacy.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// Every eps_d is a multiple of this (rounded down, which only adds noise):
// sums of them along a path are exact doubles, and 1/eps is a 64-bit
// rational for the exact geometric sampler (discrete_laplace.hpp).
constexpr double kEpsilonQuantum = 0x1p-40;
// Larger per-level epsilons are refused: the noise would be 0 with
// probability above 1 - 2^-1000, and sums of them along a path stay exact.
constexpr double kMaxLevelEpsilon = 512.0;

class NonnegativeLaw {
 public:
  // level_epsilon[d] for every depth (ignored, and set to 0, for depths
  // without a free node); pinned: one flag per node (nonnegative_pinned).
  NonnegativeLaw(const HierarchyTree& tree, std::vector<double> level_epsilon, std::vector<std::uint8_t> pinned,
                 std::size_t n_fixed_nodes);

  double level_epsilon(unsigned depth) const { return level_epsilon_[depth]; }
  const std::vector<double>& level_epsilons() const { return level_epsilon_; }
  bool pinned(std::uint32_t node) const { return pinned_[node] != 0; }
  bool root_free() const { return pinned_.empty() || pinned_[0] == 0; }
  // Depths with at least one free node.
  bool level_free(unsigned depth) const { return level_free_[depth] != 0; }
  std::size_t n_fixed_nodes() const { return n_fixed_; }

 private:
  std::vector<double> level_epsilon_;
  std::vector<std::uint8_t> pinned_;
  std::vector<std::uint8_t> level_free_;
  std::size_t n_fixed_ = 0;
};

// The pinned flags for fixed_nodes (node ids; may be empty): the nodes, their
// ancestors and the only children of pinned nodes. InvalidArgument, as
// CascadeLaw::conditioned_on words it, when the fixed nodes do not cut the
// tree into whole subtrees.
std::vector<std::uint8_t> nonnegative_pinned(const HierarchyTree& tree, const std::vector<std::uint32_t>& fixed_nodes,
                                             const Interrupts& interrupts);

// The variance of the discrete Laplace P(z) proportional to exp(-eps |z|):
// 1 / (2 sinh^2(eps/2)); and the eps of a given variance (its inverse,
// 2 asinh(1 / sqrt(2 v))).
double discrete_laplace_variance_at(double eps);
double discrete_laplace_epsilon_for_variance(double variance);

// max over the protected moves of sum_v eps_v |dx_v| (the base law's pure
// epsilon), times protect.unit_mass: replace_one moves a record between two
// leaves below one pinned node (or anywhere when nothing is pinned), so the
// nodes below their lowest common ancestor on both paths change by 1;
// add_remove (only when nothing is pinned) changes every node on one
// root-to-leaf path. Exact in the arithmetic of the doubles eps_d (sums are
// stepped up after each addition). InvalidArgument for add_remove under
// exact totals.
double nonnegative_base_epsilon(const HierarchyTree& tree, const NonnegativeLaw& law, const Protected& protect,
                                const Interrupts& interrupts);

struct NonnegativeCalibration {
  std::string derived_from;            // "epsilon" or "variance_targets"
  Neighbours neighbours = Neighbours::ReplaceOne;
  double unit_mass = 1;
  double epsilon = 0;                  // the release's guarantee: 2 * base_epsilon (or the budget it meets)
  double base_epsilon = 0;             // of the unconditioned law, certified
  std::vector<double> level_variance;  // per depth: the base law's noise variance (0 where pinned)
  std::vector<std::string> level_names;
  std::size_t n_fixed_nodes = 0;
};

struct CalibratedNonnegativeLaw {
  NonnegativeLaw law;
  NonnegativeCalibration calibration;
};

// Relative per-depth variances (level_variance: one positive finite value
// per depth, the grand total first; uniform for the default split) scaled so
// that the release is epsilon-DP: the largest common factor whose base
// epsilon is at most epsilon / 2. InvalidArgument for a bad epsilon, target
// or neighbour relation; InconsistentInvariants when no move is left to
// protect; OutOfRange when a level's epsilon leaves (2^-40, 512].
CalibratedNonnegativeLaw calibrate_nonnegative_cascade(const HierarchyTree& tree,
                                                       const std::vector<double>& level_variance,
                                                       const std::vector<std::uint32_t>& fixed_nodes, double epsilon,
                                                       const Protected& protect, const Interrupts& interrupts);

// Absolute per-depth variances: the law they set and the epsilon it costs.
CalibratedNonnegativeLaw nonnegative_cascade_cost_of_targets(const HierarchyTree& tree,
                                                             const std::vector<double>& level_variance,
                                                             const std::vector<std::uint32_t>& fixed_nodes,
                                                             const Protected& protect, const Interrupts& interrupts);

// The privacy statement printed with the release (depends only on the
// public parameters).
std::string nonnegative_privacy_statement(const NonnegativeCalibration& calibration);

}  // namespace invariant_dp::hierarchy
