// Optimality certificate of the non-negative least-squares projection
//   y* = argmin |y - t|_2^2  subject to  A_r y = a,  y >= 0.
// The problem is convex with linear constraints, so y is optimal iff the
// KKT conditions hold for some multipliers (lambda, mu):
//   primal:        A_r y = a,  y >= 0
//   stationarity:  y - t = A_r^T lambda + mu
//   dual:          mu >= 0,  mu_i y_i = 0.
// Given (y, lambda), mu = y - t - A_r^T lambda and every condition is
// measured: stationarity on the free cells (y_i > tol), mu >= 0 and
// mu_i y_i = 0 on the cells at zero.
// Tolerance: tol = 1e-8 (1 + |t|_inf + |a|_inf), about 1e7 double ulps of
// the problem's largest number: far above the round-off of the dense solves
// here, far below a count.
#pragma once

#include <vector>

#include "linear_invariants.hpp"

namespace invariant_dp {

struct KktReport {
  double tolerance = 0;
  double primal_residual = 0;  // max |A_r y - a|
  double negativity = 0;       // max(0, -min y)
  double stationarity = 0;     // max over free cells of |y - t - A_r^T lambda|
  double dual_negativity = 0;  // max(0, -min mu) over the cells at zero
  double complementarity = 0;  // max |mu_i y_i| over the cells at zero
  bool holds() const {
    return primal_residual <= tolerance && negativity <= tolerance && stationarity <= tolerance &&
           dual_negativity <= tolerance && complementarity <= tolerance;
  }
};

double kkt_tolerance(const LinearInvariants& invariants, const std::vector<double>& target);

// Cells with y_i <= tolerance count as at the bound; lambda has one entry
// per invariant row.
KktReport check_kkt(const LinearInvariants& invariants, const std::vector<double>& target,
                    const std::vector<double>& y, const std::vector<double>& lambda);

}  // namespace invariant_dp
