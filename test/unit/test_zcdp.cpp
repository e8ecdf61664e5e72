// zCDP to (epsilon, delta) and the lattice Gaussian calibration.
#include <gtest/gtest.h>

#include <cmath>

#include "calibration/discrete_gaussian_privacy.hpp"
#include "calibration/zcdp.hpp"
#include "errors.hpp"

using namespace invariant_dp;

namespace {

// The CKS Corollary 13 bound minimised over a fine grid of alpha: an
// independent check of the bisection.
double grid_delta(double eps, double rho) {
  double best = 1;
  for (double log_a1 = -20; log_a1 < 10; log_a1 += 1e-4) {
    const double a = 1 + std::exp(log_a1);
    const double log_bound = (a - 1) * (a * rho - eps) - std::log(a - 1) + a * std::log1p(-1 / a);
    best = std::min(best, std::exp(log_bound));
  }
  return best;
}

}  // namespace

TEST(Zcdp, DeltaMatchesAGridMinimisation) {
  for (double eps : {0.1, 0.5, 1.0, 3.0})
    for (double rho : {1e-4, 1e-3, 0.01, 0.1}) {
      const double delta = zcdp_delta(eps, rho), grid = grid_delta(eps, rho);
      EXPECT_LE(delta, grid * (1 + 1e-6)) << eps << " " << rho;
      EXPECT_GE(delta, grid * (1 - 1e-3)) << eps << " " << rho;
    }
}

TEST(Zcdp, LatticeGaussianCalibrationCertifiesAndIsTight) {
  for (double eps : {0.25, 0.5, 1.0, 2.0})
    for (double delta : {1e-5, 1e-9})
      for (double shift : {2.0, 4.0}) {
        const double s2 = lattice_gaussian_sigma2(eps, delta, shift).to_double();
        EXPECT_LE(zcdp_delta(eps, shift / (2 * s2)), delta);
        EXPECT_GT(zcdp_delta(eps, shift / (2 * s2 * 0.999)), delta);
      }
}

TEST(Zcdp, LatticeGaussianNeedsAtLeastTheDiscreteGaussianVariance) {
  // The discrete Gaussian on Z^d (moved_cells = 2, ||v||^2 = 2) can use its
  // exact privacy-loss sum, so it never needs more variance than the
  // zCDP-certified lattice Gaussian for the same shift.
  const double lattice = lattice_gaussian_sigma2(0.5, 1e-6, 2).to_double();
  const double discrete = discrete_gaussian_sigma2(0.5, 1e-6, 2).to_double();
  EXPECT_GE(lattice, discrete);
  EXPECT_LT(lattice, 1.5 * discrete);  // zCDP conversion is loose by a modest factor only
}

TEST(Zcdp, RejectsInvalidRequests) {
  EXPECT_THROW(lattice_gaussian_sigma2(0, 1e-6, 2), InvalidArgument);
  EXPECT_THROW(lattice_gaussian_sigma2(1, 0, 2), InvalidArgument);
  EXPECT_THROW(lattice_gaussian_sigma2(1, 1e-6, 0), InvalidArgument);
}
