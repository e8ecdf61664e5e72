#include "linear_invariants.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

LinearInvariants linear_invariants(const InvariantModel& model, const std::int64_t* counts) {
  LinearInvariants out;
  out.rows = model.independent_rows();
  out.totals.assign(out.n_rows(), 0.0);
  for (int r = 0; r < out.rows.outerSize(); ++r) {
    std::int64_t total = 0;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(out.rows, r); it; ++it)
      add_to(total, counts[it.col()]);
    // The solvers and samplers read the totals as doubles: beyond 2^53 they
    // would keep a neighbouring total, not the declared one.
    if (total > kMaxExactTotal || total < -kMaxExactTotal)
      throw OutOfRange("margin total too large for an exact release",
                       "A margin total is " + std::to_string(total) + "; totals above 2^53 are not exact in float8, "
                       "which this mechanism's solver uses.",
                       "Release smaller counts, or use integer_laplace or integer_gaussian, which keep larger totals.");
    out.totals[r] = static_cast<double>(total);
  }
  return out;
}

double invariant_residual(const LinearInvariants& invariants, const double* y) {
  double worst = 0;
  for (int r = 0; r < invariants.rows.outerSize(); ++r) {
    double sum = 0;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(invariants.rows, r); it; ++it)
      sum += it.value() * y[it.col()];
    worst = std::max(worst, std::fabs(sum - invariants.totals[r]));
  }
  return worst;
}

}  // namespace invariant_dp
