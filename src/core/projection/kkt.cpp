#include "kkt.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Core>

namespace invariant_dp {

double kkt_tolerance(const LinearInvariants& invariants, const std::vector<double>& target) {
  double t_max = 0, a_max = 0;
  for (double t : target) t_max = std::max(t_max, std::fabs(t));
  for (double a : invariants.totals) a_max = std::max(a_max, std::fabs(a));
  return 1e-8 * (1 + t_max + a_max);
}

KktReport check_kkt(const LinearInvariants& invariants, const std::vector<double>& target,
                    const std::vector<double>& y, const std::vector<double>& lambda) {
  const std::size_t d = invariants.n_cells();
  KktReport report;
  report.tolerance = kkt_tolerance(invariants, target);
  report.primal_residual = invariant_residual(invariants, y.data());
  const Eigen::VectorXd l = Eigen::Map<const Eigen::VectorXd>(lambda.data(), lambda.size());
  const Eigen::VectorXd at_lambda = invariants.rows.transpose() * l;
  for (std::size_t i = 0; i < d; ++i) {
    report.negativity = std::max(report.negativity, -y[i]);
    const double mu = y[i] - target[i] - at_lambda[i];
    if (y[i] > report.tolerance) {
      report.stationarity = std::max(report.stationarity, std::fabs(mu));
    } else {
      report.dual_negativity = std::max(report.dual_negativity, -mu);
      report.complementarity = std::max(report.complementarity, std::fabs(mu * y[i]));
    }
  }
  return report;
}

}  // namespace invariant_dp
