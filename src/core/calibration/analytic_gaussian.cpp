// The analytic Gaussian mechanism: Balle & Wang (2018), "Improving the
// Gaussian Mechanism for Differential Privacy" (arXiv:1805.06530), Theorem 8. Adding N(0, s^2)
// noise to a query of l2 sensitivity D is (eps, delta)-DP if and only if
//   delta >= Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D).
// gaussian_mechanism_delta evaluates the right-hand side (the exact privacy
// curve); analytic_gaussian_sigma returns the smallest s meeting a target
// delta, to relative precision 1e-12 and rounded up (the returned s itself
// satisfies the inequality as evaluated). The subspace paper's constant is
// not used (analytic_gaussian.hpp says why).
//
// Numerics: both terms are evaluated in log space with a log-erfc that
// switches to the asymptotic series in the far tail, and their difference as
// A * (-expm1(log B - log A)), so delta down to 1e-300 and eps up to several
// hundred are evaluated without overflow. The cancellation left is inherent
// (1 - B/A ~ 2e-5 at eps = 1e-3, delta = 1e-15) and costs < 1e-9 relative.
#include "analytic_gaussian.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLogSqrtPi = 0.57236494292470008707;  // log(sqrt(pi))

void require_positive_finite(double value, const char* message, const char* name) {
  if (!(value > 0) || !std::isfinite(value))
    throw InvalidArgument(message, std::string(name) + " is " + format_double(value) + ".");
}

// log(erfc(x)) for x >= 0. erfc(26) ~ 6e-296 is still a normal double; past
// that the asymptotic series erfc(x) = e^{-x^2}/(x sqrt(pi)) *
// sum_k (-1)^k (2k-1)!! / (2x^2)^k is used, truncated after 10 terms (the
// first omitted term is below 1e-25 relative for x >= 26).
double log_erfc(double x) {
  if (x < 26.0) return std::log(std::erfc(x));
  const double inv_2x2 = 1.0 / (2.0 * x * x);
  double term = 1.0, series = 1.0;
  for (int k = 1; k <= 10; ++k) {
    term *= -(2.0 * k - 1.0) * inv_2x2;
    series += term;
  }
  return -x * x - std::log(x) - kLogSqrtPi + std::log(series);
}

// log Phi(z) for the standard normal cdf Phi.
double log_normal_cdf(double z) {
  if (z >= 0) return std::log1p(-0.5 * std::erfc(z / kSqrt2));
  return log_erfc(-z / kSqrt2) - kLn2;
}

}  // namespace

double gaussian_mechanism_delta(double epsilon, double sigma, double l2_sensitivity) {
  require_positive_finite(epsilon, "epsilon must be positive and finite", "Epsilon");
  require_positive_finite(sigma, "sigma must be positive and finite", "Sigma");
  require_positive_finite(l2_sensitivity, "sensitivity must be positive and finite",
                          "Sensitivity");
  const double half_mu = l2_sensitivity / (2.0 * sigma);  // D / (2s)
  const double b = epsilon * sigma / l2_sensitivity;       // eps s / D
  const double log_a = log_normal_cdf(half_mu - b);            // first term
  const double log_b = epsilon + log_normal_cdf(-half_mu - b);  // second term
  if (log_b >= log_a) return 0.0;  // only by rounding: delta(eps) > 0 exactly
  return std::exp(log_a) * -std::expm1(log_b - log_a);
}

double analytic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity) {
  require_positive_finite(epsilon, "epsilon must be positive and finite", "Epsilon");
  if (!(delta > 0 && delta < 1))
    throw InvalidArgument("delta must be between 0 and 1 exclusive",
                          "Delta is " + format_double(delta) + ".");
  require_positive_finite(l2_sensitivity, "sensitivity must be positive and finite",
                          "Sensitivity");
  // delta(s) decreases from 1 (s -> 0) to 0 (s -> inf): bracket, then bisect
  // in log s keeping delta(lo) > target >= delta(hi).
  const auto meets = [&](double s) {
    return gaussian_mechanism_delta(epsilon, s, l2_sensitivity) <= delta;
  };
  double lo = l2_sensitivity, hi = l2_sensitivity;
  if (meets(hi)) {
    // Ends: halves lo until it fails the target: the delta of sigma -> 0 tends to 1 > delta, and lo < 1e-300
    // returns.
    do {
      hi = lo;
      lo = hi / 2;
      if (lo < 1e-300) return hi;  // cannot happen for delta < 1; be safe
    } while (meets(lo));
  } else {
    // Ends: hi doubles until it meets the target (delta -> 0 as sigma grows) or leaves the doubles, which
    // refuses: at most 1100 passes.
    do {
      lo = hi;
      hi = lo * 2;
      if (!std::isfinite(hi))
        throw OutOfRange("epsilon and delta require a gaussian noise scale that is too large",
                         "Epsilon is " + format_double(epsilon) + ", delta is " +
                             format_double(delta) + ".");
    } while (!meets(hi));
  }
  // Ends: geometric bisection to a relative 1e-12 from at most a 2^1024 ratio: under 60 passes, and a mid that
  // no longer moves breaks.
  while (hi - lo > 1e-12 * hi) {
    const double mid = std::sqrt(lo) * std::sqrt(hi);
    if (mid <= lo || mid >= hi) break;
    if (meets(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

}  // namespace invariant_dp
