#include "nonneg_projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "../errors.hpp"
#include "clp_problem.hpp"

namespace invariant_dp {
namespace {

using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// The primal point of multipliers lambda: y(lambda) = max(0, t + A^T lambda)
// minimises the Lagrangian over y >= 0, and with mu = y - t - A^T lambda =
// max(0, -(t + A^T lambda)) it satisfies every KKT condition except,
// possibly, A y = a. So lambda with A y(lambda) = a certifies y(lambda).
Eigen::VectorXd primal_of(const LinearInvariants& inv, const Eigen::VectorXd& t, const Eigen::VectorXd& lambda) {
  return (t + inv.rows.transpose() * lambda).cwiseMax(0.0);
}

Eigen::VectorXd residual_of(const LinearInvariants& inv, const Eigen::VectorXd& y) {
  return inv.rows * y - Eigen::Map<const Eigen::VectorXd>(inv.totals.data(), inv.totals.size());
}

// Semi-smooth Newton on the dual equation A max(0, t + A^T lambda) = a
// from Clp's duals: the Jacobian is A D A^T with D the indicator of the
// free cells (minimum-norm solve: it is singular when a group has no free
// cell), halving the step until the residual shrinks. It runs to round-off
// (not just to the KKT tolerance): once the active set is right Newton is
// exact, so the released margins are as exact as float8 allows.
Eigen::VectorXd newton_polish(const LinearInvariants& inv, const Eigen::VectorXd& t, Eigen::VectorXd lambda,
                              const Interrupts& interrupts) {
  constexpr int kMaxSteps = 50;
  const double scale = 1 + Eigen::Map<const Eigen::VectorXd>(inv.totals.data(), inv.totals.size()).lpNorm<Eigen::Infinity>();
  const double round_off = 16 * std::numeric_limits<double>::epsilon() * scale;
  Eigen::VectorXd r = residual_of(inv, primal_of(inv, t, lambda));
  for (int step = 0; step < kMaxSteps && r.lpNorm<Eigen::Infinity>() > round_off; ++step) {
    interrupts.poll();
    const Eigen::VectorXd shifted = t + inv.rows.transpose() * lambda;
    std::vector<Eigen::Triplet<double>> entries;
    for (int row = 0; row < inv.rows.outerSize(); ++row)
      for (RowMajor::InnerIterator it(inv.rows, row); it; ++it)
        if (shifted[it.col()] > 0) entries.emplace_back(row, it.col(), it.value());
    RowMajor free_rows(inv.rows.rows(), inv.rows.cols());
    free_rows.setFromTriplets(entries.begin(), entries.end());
    const Eigen::MatrixXd jacobian = Eigen::MatrixXd(free_rows * free_rows.transpose());
    const Eigen::VectorXd direction = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(jacobian).solve(r);
    double length = 1;
    bool improved = false;
    for (int halving = 0; halving < 30 && !improved; ++halving, length /= 2) {
      const Eigen::VectorXd candidate = lambda - length * direction;
      const Eigen::VectorXd candidate_r = residual_of(inv, primal_of(inv, t, candidate));
      if (candidate_r.squaredNorm() < r.squaredNorm()) {
        lambda = candidate;
        r = candidate_r;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return lambda;
}

}  // namespace

NonnegProjection project_nonnegative(const LinearInvariants& invariants, const std::vector<double>& target,
                                     const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  for (double a : invariants.totals)
    if (a < 0)
      throw InconsistentInvariants("the invariants admit no non-negative table",
                                   "A margin total is negative.",
                                   "Margin totals of counts are never negative; check the declared invariants.");
  ClpProblem problem;
  problem.invariants = &invariants;
  problem.interrupts = &interrupts;
  problem.lower.assign(d, 0.0);
  problem.upper.assign(d, std::numeric_limits<double>::infinity());
  problem.linear.resize(d);
  for (std::size_t i = 0; i < d; ++i) problem.linear[i] = -target[i];
  problem.quadratic = true;
  const ClpSolution clp = solve_with_clp(problem);
  interrupts.poll();

  // Polish: the interior point stops near, not on, the optimum; Newton on
  // the dual lands on it (margins exact to round-off, zeros exactly zero).
  const Eigen::VectorXd t = Eigen::Map<const Eigen::VectorXd>(target.data(), d);
  const Eigen::VectorXd lambda = newton_polish(
      invariants, t, Eigen::Map<const Eigen::VectorXd>(clp.lambda.data(), clp.lambda.size()), interrupts);
  const Eigen::VectorXd y = primal_of(invariants, t, lambda);
  NonnegProjection out;
  out.y.assign(y.data(), y.data() + d);
  const std::vector<double> multipliers(lambda.data(), lambda.data() + lambda.size());
  out.kkt = check_kkt(invariants, target, out.y, multipliers);
  out.polished = true;
  if (!out.kkt.holds()) {
    // Clp's own answer, certified the same way, before giving up.
    NonnegProjection raw{clp.y, check_kkt(invariants, target, clp.y, clp.lambda), false};
    if (raw.kkt.holds()) return raw;
    throw Error("the non-negative projection failed its optimality check",
                "KKT residuals: primal " + std::to_string(out.kkt.primal_residual) + ", stationarity " +
                    std::to_string(out.kkt.stationarity) + ", dual " + std::to_string(out.kkt.dual_negativity) +
                    " against tolerance " + std::to_string(out.kkt.tolerance) + ".",
                "Report this with the table's size; project_l2 (no non-negativity) avoids the solver.");
  }
  return out;
}

}  // namespace invariant_dp
