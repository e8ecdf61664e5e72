// Calibration of the (continuous) Gaussian mechanism by its exact privacy
// curve: Balle & Wang (2018), "Improving the Gaussian Mechanism for
// Differential Privacy", Theorem 8. The subspace paper's constant
// c = (1 + sqrt(1 + ln(1/delta)))/eps is not valid outside a narrow range
// (papers/subspace_dp.digest.md, section 4.3), so it is never used.
#pragma once

namespace invariant_dp {

// delta(eps) = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D) for noise
// sd s and l2 sensitivity D: the smallest delta for which N(0, s^2) noise is
// (eps, delta)-DP.
double gaussian_mechanism_delta(double epsilon, double sigma, double l2_sensitivity);

// The smallest sigma (to relative precision 1e-12, rounded up) with
// gaussian_mechanism_delta(epsilon, sigma, D) <= delta. epsilon > 0,
// 0 < delta < 1, D > 0 (all finite), else InvalidArgument; OutOfRange if
// sigma would overflow a double.
double analytic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity);

}  // namespace invariant_dp
