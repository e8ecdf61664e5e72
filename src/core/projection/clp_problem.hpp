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

#include "../interrupts.hpp"
#include "linear_invariants.hpp"

namespace invariant_dp {

struct ClpProblem {
  const LinearInvariants* invariants = nullptr;
  const Interrupts* interrupts = nullptr;  // polled at every Clp event
  std::vector<double> lower, upper;  // per cell; upper may be +infinity
  std::vector<double> linear;        // c in c^T y
  bool quadratic = false;            // adds (1/2) |y|^2 to the objective
};

struct ClpSolution {
  std::vector<double> y;       // primal, per cell
  std::vector<double> lambda;  // row duals: y - t = A^T lambda + mu for the QP
};

// Throws InconsistentInvariants when Clp proves the constraints infeasible
// (e.g. a negative total with y >= 0), Error when it stops otherwise,
// Interrupted when the caller asked to stop during the solve, and TooLarge
// (before loading anything) beyond kMaxClpCells cells or kMaxClpRows rows.
// Clp's own loops call the interrupt handler at each iteration, but one
// barrier factorisation of a large problem runs for minutes without an
// event: hence the limits, measured in test/bench/README.md.
ClpSolution solve_with_clp(const ClpProblem& problem);

constexpr std::size_t kMaxClpCells = 40000;
constexpr std::size_t kMaxClpRows = 600;
// The size check alone, for callers that can refuse before drawing noise.
void refuse_large_clp_problem(std::size_t cells, std::size_t rows);

}  // namespace invariant_dp
