// Error bars of `cascade` and `integer_cascade` releases (one hierarchy):
// the variance of any weighted set of nodes, at any levels (a county and
// three of its tracts, the leaves of a region, ...), and per-node intervals.
//
// Variance. The leaves' noise is the root X plus independent split
// increments (hierarchy/cascade_covariance.hpp): a query sum_v w_v X_v puts
// weight W(leaf) = sum of w over the leaf's selected ancestors-or-self on
// each leaf, and
//   Var = f(root)^2 v_0 + sum_{free splits s} tau_s^2 (sum_c f(c)^2 - (sum_c f(c))^2 / m_s),
//   f(leaf) = W(leaf), f(u) = mean of f over u's children.
// Below a node with no selected descendant f is constant (W of the node),
// so only the splits of the query's strict ancestors contribute: with g(c) =
// f(c) - A(u) (A(u) the weight of u's selected ancestors-or-self; the term is
// unchanged by the shift), a child off those paths has g = its own weight,
// and a child on them g = w(c) + (sum of its g) / m_c. One pass up the
// ancestors: O(nodes in the query x depth) (each parent found by a binary
// search over the tree's arrays).
// `cascade`: exact (the Gaussian's covariance). `integer_cascade`:
// certified, [(1 - B) V, V] with the published variance_deficit_bound B
// (hierarchy/integer_cascade_accuracy.hpp).
//
// Per-node intervals. `cascade`: the normal quantile at the node's variance
// (exact). `integer_cascade`: the smaller of the sub-Gaussian bound at the
// node's closed-form variance V_u (certified) and the quantile of the
// discrete Gaussian at V_u tilted within R (exact where R decides one
// count less, else certified): summing the lattice law over every
// other node, down the tree and along the node's root path, leaves
// P(X_u = t) = rho_{V_u}(t) F(t) / Z with max F / min F <= R, R the product
// of (1 + 2 S) / (1 - 2 S) over the tree's Gram-Schmidt coordinates and the
// path's conditional variances Var(X_parent | X_child) (DERIVATIONS.md,
// section 4). The tree, the law and the published B are all a release
// publishes; nothing else is needed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "cascade_kernel.hpp"
#include "cell_intervals.hpp"
#include "cell_query.hpp"
#include "lattice_gaussian_quantiles.hpp"
#include "margin_of_error.hpp"

namespace invariant_dp::accuracy {

class HierarchyAccuracy {
 public:
  // The tree and the law must outlive the object. deficit_bound: B of an
  // integer_cascade release (>= 0), or a negative number for `cascade`.
  HierarchyAccuracy(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law, double deficit_bound);

  std::size_t n_nodes() const { return tree_.n_nodes(); }
  bool integer() const { return deficit_bound_ >= 0; }

  // A query over nodes (node order, QueryBuilder(n_nodes())).
  VarianceFigure variance(const CellQuery& nodes, const Interrupts& interrupts) const;
  VarianceFigure node_variance(std::uint32_t node) const;

  // One interval per node, in node order.
  CellIntervals node_intervals(double level, const Interrupts& interrupts) const;

  // integer_cascade: the margin of a query of two or more nodes with
  // integer weights from the law of their sum (the tilted discrete Gaussian
  // of lattice_gaussian_quantiles.hpp, DERIVATIONS.md section 13): exact
  // where the bound decides the quantile, else certified. Where the nodes
  // are, per independent subtree (below the deepest exact node above them:
  // a metropolitan area's counties in several states with the states
  // exact), one node or some but not all children of one node, all of one
  // weight, the Klein order of those queries; any other node set through the
  // short vectors of cascade_kernel.hpp. Nothing for `cascade` (its sums are
  // normal: margin_of_error.hpp), fractional weights, and where the lattice
  // is too coarse for the bound.
  std::optional<MarginOfError> lattice_margin(const CellQuery& nodes, double level,
                                              const Interrupts& interrupts) const;

  // R of the integer law (1 for `cascade`): the theta ratio over every
  // coordinate and every root path.
  double theta_ratio(const Interrupts& interrupts) const;

 private:
  VarianceFigure figure(double v) const;
  // lattice_margin's first way: the sum of the subtrees' node or sibling-set
  // queries (unit weight), with the tree's log excess; nothing for other
  // structures.
  std::optional<TiltedFunctional> subtree_parts(const CellQuery& nodes, const Interrupts& interrupts) const;
  const hierarchy::HierarchyTree& tree_;
  const hierarchy::CascadeLaw& law_;
  double deficit_bound_;
  // lattice_margin's: every node's variance and the tree's log excess,
  // computed at the first query.
  mutable std::vector<double> node_variances_;
  mutable double tree_log_excess_ = -1;
  mutable std::unique_ptr<CascadeKernel> kernel_;  // built at the first query that needs it
};

// A governed stream (hierarchy/streaming_cascade.hpp): its periods are the
// first leaves of a perfect binary cascade whose every node has the public
// variance v, whatever its horizon. The variance of any weighted set of
// periods (period numbers from 0, weights; a period listed twice counts
// twice), exact: the same pass over the implicit dyadic tree, O(periods x
// log2 of the last period).
double stream_variance(double node_variance, std::vector<std::uint64_t> periods, std::vector<double> weights,
                       const Interrupts& interrupts = {});

}  // namespace invariant_dp::accuracy
