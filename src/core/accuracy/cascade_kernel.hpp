// The tilted bound (lattice_gaussian_quantiles.hpp) for any set of nodes of
// an integer cascade with integer weights: nodes of several parents in one
// subtree (two tracts of two counties of one state), unequal weights, any
// levels (DERIVATIONS.md, section 13, "Any node set of an integer cascade").
//
// The lattice of consistent integer trees keeping the exact totals has a
// basis of moves: at every free split s, one unit moved from the first leaf
// of child c to the first leaf of the next child c + 1 (and, when the root
// is free, one unit on the first leaf). A move's squared length in the
// law's metric (its quadratic form) is 2 / tau_s^2 + D(c) + D(c + 1), D(u)
// the sum of (1 - 1/m) / tau^2 over the splits down u's first-child path.
// A query X = sum_v w_v X_v changes a move by a = W(first leaf of c) -
// W(first leaf of c + 1) (W(leaf): the weights of the query's nodes above
// it), nonzero only at the moves whose span holds a boundary of a query
// node: O(query x depth) of them. The kernel of X keeps every move with
// a = 0 and replaces the others by (a_P M - a_M P) / gcd with P a pivot of
// smallest |a|; their lengths follow from the two moves' first-leaf
// paths, which share nodes only along first-child chains. The
// theta excess over every move is computed once per release; a query adds
// only its replaced vectors.
#pragma once

#include <cstdint>
#include <vector>

#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "cell_query.hpp"
#include "kernel_lengths.hpp"
#include "lattice_gaussian_quantiles.hpp"

namespace invariant_dp::accuracy {

class CascadeKernel {
 public:
  // O(nodes). The tree and the law must outlive the object.
  CascadeKernel(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law, const Interrupts& interrupts);

  // log(1 + eps) over every move (infinity when it says nothing).
  double moves_log_excess() const { return moves_excess_; }
  // Every move's squared length, pooled (empty when the law's parameters
  // say nothing: moves_log_excess() infinite).
  const KernelLengths& moves() const { return moves_; }
  // The largest squared length of a move.
  double max_move_length2() const { return max_length2_; }

  // A move the query changes: its value a, its squared length in the law's
  // metric, and which move it is (the left child of its pair of children;
  // kNoNode: the root's unit vector).
  struct Move {
    std::int64_t a = 0;
    double length2 = 0;
    std::uint32_t left_child = 0;
  };
  // The moves with a != 0 for nodes with integer weights (|w| <= 2^40):
  // O(query x depth) of them. InvalidArgument for another weight.
  std::vector<Move> changed_moves(const CellQuery& nodes, const Interrupts& interrupts) const;
  // The law's bilinear form of two moves (given by their left children).
  double move_bilinear(std::uint32_t x, std::uint32_t y) const { return bilinear(path_of(x), path_of(y)); }

  // A query over nodes with integer weights (|w| <= 2^40) whose continuous
  // variance is `variance`: its step (0 when X is constant on the lattice)
  // and, in `unit`, Var(X / step) and the log excess of the vectors that
  // replace the moves it changes (add moves_log_excess()). InvalidArgument
  // for a weight that is no such integer.
  StepFunctional query(const CellQuery& nodes, double variance, const Interrupts& interrupts) const;

 private:
  double move_length2(std::uint32_t left_child) const;  // the move from left_child to the next child
  // A move's (or, for kNoNode, the root's unit vector's) nonzero node
  // values: +1 down the first-child path of left_child, -1 down that of the
  // next child; sorted by node. O(depth).
  struct PathValue {
    std::uint32_t node;
    int value;
  };
  std::vector<PathValue> path_of(std::uint32_t left_child) const;
  // The law's bilinear form (its quadratic form's polarisation) of two such.
  double bilinear(const std::vector<PathValue>& x, const std::vector<PathValue>& y) const;

  const hierarchy::HierarchyTree& tree_;
  const hierarchy::CascadeLaw& law_;
  std::vector<double> down_;      // D(u) per node
  std::vector<double> inv_tau2_;  // 1 / tau^2 of each free split with two children or more, else 0
  double root_length2_ = 0;       // the root's unit vector, when the root is free (else 0)
  KernelLengths moves_;
  double max_length2_ = 0;
  double moves_excess_ = 0;
};

}  // namespace invariant_dp::accuracy
