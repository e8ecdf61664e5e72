// The law of cascade noise on a hierarchy: a target variance per depth and,
// optionally, the nodes whose totals stay exact. The binary equal-variance
// split is Dharangutte, Gao, Gong, Wang 2024 (arXiv:2402.07066), eq. (2);
// fan-out above 2 and per-level targets are ours (DERIVATIONS.md, section 1).
//
// The law (checked in test_cascade_covariance.cpp against an explicitly
// built covariance). The root gets N(0, v_0). A node s of
// depth d with noise X and m children of depth d+1:
//   m = 1: the child copies X, so it has its parent's variance, not its
//          level's target (a one-county state's county has the state's
//          variance; node_variance() says which);
//   m = 2: X/2 +- h Y, Y ~ N(0,1), h^2 = v_{d+1} - v_d/4 (paper eq. 2);
//   m > 2: X/m + tau (G_c - mean G), G_c iid N(0,1),
//          tau^2 = (v_{d+1} - v_d/m^2) m/(m-1).
// with v_d replaced by the parent's node_variance(). Every node is then
// N(0, node_variance), children sum to their parent, and siblings have
// covariance v_p/m^2 - tau^2/m (-v/m when all levels are at v).
// Feasibility (DERIVATIONS.md, section 1): v_p < m^2 v_{d+1} for every split; otherwise the
// constructor refuses, naming the level and the numbers.
//
// Conditioning (the paper leaves exact margins out, its Section 2.1;
// DERIVATIONS.md, section 5): with
// the totals of a set of nodes fixed, the Gaussian noise conditioned on
// their noise being 0 is its projection (Sigma-orthogonal) onto that
// subspace. When the fixed nodes cut the tree (every leaf lies under exactly
// one deepest fixed node; every fixed node is a union of those), the nodes
// at or above the cut are 0 and, by the Markov structure of the cascade
// (a subtree's increments are independent of everything outside it), each
// cut node's subtree is an independent cascade started from 0 with the
// same splits. test_cascade_conditioning.cpp checks this against the
// explicit projection Sigma - Sigma A^T (A Sigma A^T)^-1 A Sigma.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// tau^2 of the split of a node of variance vp into m >= 2 children of
// target variance vc.
inline double split_tau2_of(double vp, double vc, std::uint32_t m) {
  const double mm = double(m);
  return (vc - vp / (mm * mm)) * mm / (mm - 1);
}

class CascadeLaw {
 public:
  // level_variance[d]: the target variance of the noise of a depth-d node,
  // d = 0 .. tree.height(). InvalidArgument if a value is not finite and
  // positive, the count differs from the depths, or a split is infeasible.
  // The checks pass over every node, polling `interrupts` (the default never
  // stops: a release passes its own).
  CascadeLaw(const HierarchyTree& tree, std::vector<double> level_variance, const Interrupts& interrupts = {});

  // Every node at the same variance (the paper's setting).
  static CascadeLaw uniform(const HierarchyTree& tree, double variance, const Interrupts& interrupts = {});

  // The same law with every variance multiplied by factor (> 0).
  CascadeLaw scaled(double factor) const;

  // The law conditioned on the noise of fixed_nodes being 0 (their totals
  // exact). InvalidArgument naming a node if the fixed nodes do not cut the
  // tree into whole subtrees. Replaces any earlier conditioning: pass the
  // nodes of every margin in one call. Polls `interrupts` (see the
  // constructor for the default).
  CascadeLaw conditioned_on(const HierarchyTree& tree, const std::vector<std::uint32_t>& fixed_nodes,
                            const Interrupts& interrupts = {}) const;

  double level_variance(unsigned depth) const { return level_variance_[depth]; }
  // The unconditioned variance of a node of that depth: its level's target,
  // or, below a one-child node, the variance of the top of that chain.
  double node_variance(std::uint32_t node, unsigned depth) const {
    return inherited_.empty() ? level_variance_[depth] : inherited_[node];
  }
  const std::vector<double>& level_variances() const { return level_variance_; }

  bool conditioned() const { return !pinned_.empty(); }
  // The node's noise is 0 (a fixed node or an ancestor of one).
  bool pinned(std::uint32_t node) const { return !pinned_.empty() && pinned_[node] != 0; }
  // Its children draw fresh increments (not pinned themselves).
  bool splits_freely(const HierarchyTree& tree, std::uint32_t node) const {
    return !tree.is_leaf(node) && !pinned(tree.first_child(node));
  }
  std::size_t n_fixed_nodes() const { return n_fixed_; }

  // tau^2 of the split of `node` (at `depth`) into m >= 2 children: each
  // child's deviation from X/m has variance tau^2 (m-1)/m, pairs -tau^2/m.
  double split_tau2(std::uint32_t node, unsigned depth, std::uint32_t m) const {
    return split_tau2_of(node_variance(node, depth), level_variance_[depth + 1], m);
  }

 private:
  std::vector<double> level_variance_;
  std::vector<double> inherited_;     // per node; empty when every node is at its level's target
  std::vector<std::uint8_t> pinned_;  // empty when unconditioned
  std::size_t n_fixed_ = 0;
};

// The checks behind CascadeLaw, one node at a time, shared with the
// published shapes of range variances (published_shape.hpp), which hold no
// node per leaf. level_label names a depth ("level 2 (county)"). Each
// throws InvalidArgument with the message CascadeLaw gives.
namespace law_checks {
std::string level_label(unsigned depth, const std::string& level_name);
std::string level_label(const HierarchyTree& tree, unsigned depth);
// A number in a message, to six significant digits.
std::string six_digits(double x);
void check_target_count(std::size_t given, unsigned height);
void check_target(double variance, const std::string& level_label);
// A node of depth `depth` and variance vp (its level's target level_vp, or
// inherited) split into fanout children of target vc; the levels' names
// make a message only when it fails (this runs once per node).
void check_split(double vp, double level_vp, double vc, std::uint32_t fanout, unsigned depth,
                 const std::string& parent_name, const std::string& child_name);
[[noreturn]] void refuse_fixed_node(std::uint64_t node);
[[noreturn]] void refuse_partial_cut(const std::string& level_label, std::uint64_t pinned_children,
                                     std::uint64_t children);
[[noreturn]] void refuse_uncovered_leaf(std::uint64_t leaf);
}  // namespace law_checks

}  // namespace invariant_dp::hierarchy
