#include "clp_problem.hpp"

#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>

#include <limits>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

// Clp wants column-major (CSC) arrays.
struct ColumnMajor {
  std::vector<CoinBigIndex> start;
  std::vector<int> index;
  std::vector<double> value;
};

ColumnMajor column_major(const LinearInvariants& invariants) {
  Eigen::SparseMatrix<double, Eigen::ColMajor> columns = invariants.rows;
  columns.makeCompressed();
  ColumnMajor out;
  const int d = static_cast<int>(columns.cols());
  out.start.assign(columns.outerIndexPtr(), columns.outerIndexPtr() + d + 1);
  out.index.assign(columns.innerIndexPtr(), columns.innerIndexPtr() + columns.nonZeros());
  out.value.assign(columns.valuePtr(), columns.valuePtr() + columns.nonZeros());
  return out;
}

std::vector<double> clp_bounds(const std::vector<double>& bounds) {
  std::vector<double> out(bounds);
  for (double& b : out)
    if (b == std::numeric_limits<double>::infinity()) b = COIN_DBL_MAX;
  return out;
}

}  // namespace

ClpSolution solve_with_clp(const ClpProblem& p) {
  const LinearInvariants& inv = *p.invariants;
  const int d = static_cast<int>(inv.n_cells());
  const int m = static_cast<int>(inv.n_rows());
  const ColumnMajor a = column_major(inv);
  const std::vector<double> lower = clp_bounds(p.lower), upper = clp_bounds(p.upper);

  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(d, m, a.start.data(), a.index.data(), a.value.data(), lower.data(), upper.data(),
                    p.linear.data(), inv.totals.data(), inv.totals.data());
  if (p.quadratic) {
    std::vector<CoinBigIndex> start(d + 1);
    std::vector<int> column(d);
    const std::vector<double> diagonal(d, 1.0);
    for (int i = 0; i <= d; ++i) start[i] = i;
    for (int i = 0; i < d; ++i) column[i] = i;
    model.loadQuadraticObjective(d, start.data(), column.data(), diagonal.data());
    ClpSolve options;
    options.setSolveType(ClpSolve::useBarrier);
    model.initialSolve(options);
  } else {
    model.primal();
  }
  if (model.isProvenPrimalInfeasible())
    throw InconsistentInvariants("the invariants admit no non-negative table",
                                 "No table with non-negative cells has the declared margin totals.",
                                 "Check that every margin total is non-negative and that the margins agree.");
  if (!model.isProvenOptimal())
    throw Error("the projection solver did not reach an optimum",
                "Clp stopped with status " + std::to_string(model.status()) + ".");
  ClpSolution out;
  out.y.assign(model.primalColumnSolution(), model.primalColumnSolution() + d);
  out.lambda.assign(model.dualRowSolution(), model.dualRowSolution() + m);
  return out;
}

}  // namespace invariant_dp
