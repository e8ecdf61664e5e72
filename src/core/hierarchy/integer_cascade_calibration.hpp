// Calibration of the integer cascade (integer_cascade_sampler.hpp) and its
// metadata: privacy, exactness and certified per-level accuracy.
//
// Privacy. The release x + z, z ~ P(z) proportional to exp(-z^T Sigma^+ z / 2)
// on the lattice L (Z^n, or the margin lattice), moved by a protected
// neighbour dx in L: both laws are lattice Gaussians on the same coset
// x + L with centres x and x + dx. Completing the square, the Renyi
// divergence of order alpha is alpha dx^T Sigma^+ dx / 2 plus
// log(rho(L + c) / rho(L)) for a shifted centre c, which is <= 0 by Poisson
// summation (the argument of zcdp.hpp for the lattice Gaussian; Canonne,
// Kamath, Steinke 2020, arXiv 2004.00010, prove the case of Z^d the same
// way). So the release is rho-zCDP (Bun, Steinke 2016) with
// rho = max_dx dx^T Sigma^+ dx / 2: the same Mahalanobis sensitivity as the
// real-valued cascade (cascade_privacy.hpp), computed on the law sampled.
// (epsilon, delta) from rho by CKS 2020, Corollary 13 (zcdp.hpp), the
// conversion of the project's other lattice Gaussians; not the analytic
// Gaussian the real-valued cascade uses (its privacy-loss law is exactly
// Gaussian only for real noise).
// Accuracy: integer_cascade_accuracy.hpp (the discrete variances are within
// a certified factor (1 - B) of the closed forms).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "cascade_calibration.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

struct IntegerCascadeCalibration {
  // derived_from, neighbours, epsilon, delta, rho, sensitivity_squared, the
  // per-level variances (the closed forms: upper bounds of the exact ones),
  // level names, fixed nodes: as for the real-valued cascade.
  CascadeCalibration privacy;
  // Step 4 of the sampler: an attempt is accepted with probability >= this.
  double acceptance_bound = 0;
  // B (integer_cascade_accuracy.hpp), rounded up.
  double variance_deficit_bound = 0;
  // Per depth, certified lower bounds of the exact variance of a node of
  // that level ((1 - B) times its closed form, rounded down).
  std::vector<double> level_variance_lower;
  // One JSON object for the release metadata.
  std::string to_json() const;
};

struct CalibratedIntegerLaw {
  CascadeLaw law;
  IntegerCascadeCalibration calibration;
};

// shape: relative per-level variances (and fixed nodes), as for
// calibrate_epsilon_delta / calibrate_rho of the real-valued cascade.
// InvalidArgument for a bad budget, InconsistentInvariants when no move is
// left to protect, OutOfRange when the calibrated noise is too small for the
// exact sampler on this tree (integer_cascade_exact_applies).
CalibratedIntegerLaw calibrate_integer_cascade_epsilon_delta(const HierarchyTree& tree, const CascadeLaw& shape,
                                                             double epsilon, double delta, const Protected& protect,
                                                             const Interrupts& interrupts);
CalibratedIntegerLaw calibrate_integer_cascade_rho(const HierarchyTree& tree, const CascadeLaw& shape, double rho,
                                                   const Protected& protect, const Interrupts& interrupts);

// The factor s2 by which a law of largest dx^T Sigma^+ dx = m is scaled to
// meet (epsilon, delta) through rho-zCDP (CKS Cor. 13), or rho: rounded up,
// with room for the rounding of the scaled law's own sensitivity. The
// crossed release scales its Kronecker law by the same factors.
double integer_cascade_scale_epsilon_delta(double m, double epsilon, double delta);
double integer_cascade_scale_rho(double m, double rho);

// Absolute per-level targets: what they cost (rho, and the smallest epsilon
// at delta), with the same checks.
CalibratedIntegerLaw integer_cascade_cost_of_targets(const HierarchyTree& tree, const CascadeLaw& law, double delta,
                                                     const Protected& protect, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
