// Calibration of the (continuous) Gaussian mechanism by its exact privacy
// curve: Balle & Wang (2018), "Improving the Gaussian Mechanism for
// Differential Privacy" (arXiv:1805.06530), Theorem 8. The constant of
// Gao, Gong, Yu 2022 (arXiv:2108.11527), Lemma 3.4,
// c = (1 + sqrt(1 + ln(1/delta)))/eps, is not (eps, delta)-DP outside a
// narrow range (at eps = 10, delta = 1e-5 its true delta is 1.08e-4:
// test_calibration.cpp, PaperConstantIsNotDifferentiallyPrivate), so it is
// never used.
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
