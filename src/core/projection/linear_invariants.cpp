#include "linear_invariants.hpp"

#include <algorithm>
#include <cmath>

namespace invariant_dp {

LinearInvariants linear_invariants(const InvariantModel& model, const std::int64_t* counts) {
  LinearInvariants out;
  out.rows = model.independent_rows();
  out.totals.assign(out.n_rows(), 0.0);
  for (int r = 0; r < out.rows.outerSize(); ++r) {
    std::int64_t total = 0;  // exact: counts are below 2^53 in every caller
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(out.rows, r); it; ++it)
      total += counts[it.col()];
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
