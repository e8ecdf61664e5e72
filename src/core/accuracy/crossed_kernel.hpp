// The tilted bound (lattice_gaussian_quantiles.hpp) for any weighted set of
// rectangles of a crossed integer cascade (hierarchy/crossed_integer_cascade.hpp):
// the lattice Gaussian on the integer grid Z^(row leaves x column leaves)
// with precision Sigma_rows^-1 (x) Sigma_cols^-1 (DERIVATIONS.md, section
// 13, "Rectangles of crossed integer cascades").
//
// Each tree's moves (cascade_kernel.hpp) are a basis of its integer leaf
// vectors, so their Kronecker products M (x) M' are a basis of the grid,
// of squared length Q(M) Q'(M') in the product metric, with polarisation
// B(M, P) B'(M', P'). A rectangle (s, t) changes the product M (x) M' by
// a(M) a'(M'), where a and a' are what the node s changes M by and t M'
// (nonzero at O(depth) moves each); a query of rectangles with integer
// weights adds those up. The kernel of the query keeps every product it
// does not change and replaces the others by (a_P M - a_M P) / gcd with P
// a changed product of smallest |a|: the theta excess of every product is
// taken once per release (an upper bound for the ones a query replaces), a
// query adds its replacements'. The grid's pairs of moves are counted by
// pooled length classes, O(classes^2), never one by one.
#pragma once

#include <cstdint>
#include <vector>

#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "cascade_kernel.hpp"
#include "lattice_gaussian_quantiles.hpp"

namespace invariant_dp::accuracy {

class CrossedKernel {
 public:
  // The trees and (unconditioned) laws must outlive the object. O(nodes).
  CrossedKernel(const hierarchy::HierarchyTree& rows, const hierarchy::CascadeLaw& row_law,
                const hierarchy::HierarchyTree& cols, const hierarchy::CascadeLaw& col_law,
                const Interrupts& interrupts);

  // log(1 + eps) over every product of a row move and a column move
  // (infinity when it says nothing).
  double moves_log_excess() const { return moves_excess_; }
  // The whole log excess of any one rectangle (weight +-1), one bound for
  // all: a node changes at most 2 depth + 1 moves of its tree (one per free
  // split above each end of its leaves, and the root's vector), each by
  // +-1, so a rectangle replaces at most (2 d_r + 1)(2 d_c + 1) - 1
  // products, each by M -+ P of squared length at most 4 Q_max,r Q_max,c
  // (Cauchy-Schwarz). Infinity when it says nothing.
  double rectangle_log_excess() const { return rectangle_excess_; }

  // Rectangles (row_nodes[k], col_nodes[k]) with integer weights (|w| <=
  // 2^40) whose continuous variance is `variance`: the step (0 when the sum
  // is constant on the lattice) and, in `unit`, Var(X / step) and the log
  // excess of the vectors replacing the products it changes (add
  // moves_log_excess()). InvalidArgument for another weight or a node out
  // of range.
  StepFunctional query(const std::vector<std::uint32_t>& row_nodes, const std::vector<std::uint32_t>& col_nodes,
                       const std::vector<double>& weights, double variance, const Interrupts& interrupts) const;

 private:
  CascadeKernel rows_, cols_;
  double moves_excess_ = 0;
  double rectangle_excess_ = 0;
};

}  // namespace invariant_dp::accuracy
