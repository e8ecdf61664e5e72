// See zcdp.hpp.
#include "zcdp.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

// log of the CKS Corollary 13 bound at order a = 1 + e^u, written in u so
// that a - 1 is exact even for a close to 1.
double log_zcdp_bound(double u, double rho, double eps) {
  const double a_minus_1 = std::exp(u), a = 1 + a_minus_1;
  const double log_1_minus_inv_a = -std::log1p(1 / a_minus_1);  // log(1 - 1/a)
  return a_minus_1 * (a * rho - eps) + a * log_1_minus_inv_a - u;
}

}  // namespace

// inf over a > 1 of the CKS bound; the log of the bound is convex in a with
// derivative (2a - 1) rho - eps + log(1 - 1/a), increasing from -inf, so
// bisect on its sign over u = log(a - 1) (the minimiser has a - 1 below
// (eps + 1) / (2 rho) + 1, where the derivative is positive).
double zcdp_delta(double eps, double rho) {
  double u_lo = -60, u_hi = std::log((eps + 1) / (2 * rho) + 1);
  for (int i = 0; i < 200 && u_hi - u_lo > 1e-13; ++i) {
    const double u = (u_lo + u_hi) / 2, a_minus_1 = std::exp(u);
    const double slope = (1 + 2 * a_minus_1) * rho - eps - std::log1p(1 / a_minus_1);
    if (slope < 0) u_lo = u; else u_hi = u;
  }
  return std::min(1.0, std::exp(log_zcdp_bound(u_hi, rho, eps)));
}

Rational lattice_gaussian_sigma2(double epsilon, double delta, double squared_shift) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || !(squared_shift > 0))
    throw InvalidArgument("invalid lattice Gaussian calibration request");
  // zcdp_delta grows with rho = squared_shift / (2 sigma2): bisect on rho.
  // Near delta = 1 the bound is flat, and its rounding (about 1e-14) is not
  // monotone in rho there: aim at most at 1 - 1e-9, so that every smaller
  // rho (the callers round sigma2 up) still certifies delta.
  delta = std::min(delta, 1 - 1e-9);
  double rho_ok = 1e-12, rho_bad = 1e6;
  if (zcdp_delta(epsilon, rho_ok) > delta)
    throw OutOfRange("epsilon and delta too small for the lattice Gaussian", {},
                     "Raise epsilon or delta.");
  for (int i = 0; i < 200 && rho_bad / rho_ok > 1 + 1e-12; ++i) {
    const double rho = std::sqrt(rho_ok * rho_bad);
    (zcdp_delta(epsilon, rho) <= delta ? rho_ok : rho_bad) = rho;
  }
  // Rounding sigma2 up only lowers rho, so the certificate still holds.
  return rational_at_least(squared_shift / (2 * rho_ok));
}

}  // namespace invariant_dp
