#include "clp_problem.hpp"

#include <ClpEventHandler.hpp>
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

// Clp's callback: asks Clp to stop (return 0) when the caller wants to
// stop; the exception itself is raised after Clp has returned, never
// through its frames.
class InterruptHandler : public ClpEventHandler {
 public:
  explicit InterruptHandler(const Interrupts* interrupts) : interrupts_(interrupts) {}
  int event(Event) override {
    if (interrupts_ == nullptr) return -1;
    try {
      interrupts_->poll();
      return -1;
    } catch (const Interrupted&) {
      return 0;
    }
  }
  ClpEventHandler* clone() const override { return new InterruptHandler(*this); }

 private:
  const Interrupts* interrupts_;
};

}  // namespace

void refuse_large_clp_problem(std::size_t cells, std::size_t rows) {
  if (cells > kMaxClpCells || rows > kMaxClpRows)
    throw TooLarge("the table is too large for the non-negative projection",
                   "It has " + std::to_string(cells) + " cells and " + std::to_string(rows) +
                       " independent margin rows; the solver is limited to " + std::to_string(kMaxClpCells) +
                       " cells and " + std::to_string(kMaxClpRows) + " rows.",
                   "Release a smaller table, or use an integer mechanism (integer_laplace, integer_gaussian) or "
                   "subspace_gaussian, which keep the margins without the solver.");
}

ClpSolution solve_with_clp(const ClpProblem& p) {
  const LinearInvariants& inv = *p.invariants;
  refuse_large_clp_problem(inv.n_cells(), inv.n_rows());
  const int d = static_cast<int>(inv.n_cells());
  const int m = static_cast<int>(inv.n_rows());
  const ColumnMajor a = column_major(inv);
  const std::vector<double> lower = clp_bounds(p.lower), upper = clp_bounds(p.upper);

  ClpSimplex model;
  model.setLogLevel(0);
  InterruptHandler handler(p.interrupts);
  model.passInEventHandler(&handler);
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
    // Special option 2 nonzero: initialSolve installs no SIGINT handler of
    // its own. PostgreSQL's cancel and statement_timeout arrive as SIGINT;
    // Clp's handler would swallow them (the solve stopping with status 3
    // and the cancel lost). The backend's handler sets the flag that
    // InterruptHandler polls instead.
    options.setSpecialOption(2, 1);
    model.initialSolve(options);
  } else {
    model.primal();
  }
  if (p.interrupts != nullptr) p.interrupts->poll();
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
