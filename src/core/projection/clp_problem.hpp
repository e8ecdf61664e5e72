// The one place that talks to COIN-OR Clp (Debian coinor-libclp-dev): loads
// "A_r y = a, lower <= y <= upper" with a linear objective, optionally a
// diagonal quadratic one, solves it and hands back the primal solution or a
// clear error. Clp is the solver because it is packaged and maintained in
// Debian, solves both the QP (barrier, ClpSolve::useBarrier) and the LP
// (simplex, returns a vertex) the projections need, and its barrier scales
// to thousands of cells (5000 cells of a 50x100 table: 0.5 s; its primal
// simplex QP took 9 s there). Its answers are never trusted blindly: the
// callers verify KKT conditions or integrality themselves.
#pragma once

#include <vector>

#include "linear_invariants.hpp"

namespace invariant_dp {

struct ClpProblem {
  const LinearInvariants* invariants = nullptr;
  std::vector<double> lower, upper;  // per cell; upper may be +infinity
  std::vector<double> linear;        // c in c^T y
  bool quadratic = false;            // adds (1/2) |y|^2 to the objective
};

struct ClpSolution {
  std::vector<double> y;       // primal, per cell
  std::vector<double> lambda;  // row duals: y - t = A^T lambda + mu for the QP
};

// Throws InconsistentInvariants when Clp proves the constraints infeasible
// (e.g. a negative total with y >= 0), Error when it stops otherwise.
ClpSolution solve_with_clp(const ClpProblem& problem);

}  // namespace invariant_dp
