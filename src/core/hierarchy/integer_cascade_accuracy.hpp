// Accuracy of the integer cascade: how far the variances of the discrete
// law (integer_cascade_sampler.hpp) are from the continuous cascade's
// closed forms (cascade_covariance.hpp), certified.
//
// Derivation (Poisson summation; beyond the papers). In the coordinates y
// of the sampler's step 2 the target is P(y) proportional to
// exp(-y^T G y / 2) on Z^r, with G = (I - M)^T D^-1 (I - M), M strictly
// lower triangular (the centres), D = diag(s_j^2); let C = G^-1 (the
// continuous covariance of y). For f(y) = exp(-y^T G y / 2) the Fourier
// transform is proportional to w(k) = exp(-2 pi^2 k^T C k), and that of
// (alpha^T y)^2 f(y) to w(k) (alpha^T C alpha - 4 pi^2 (alpha^T C k)^2).
// Summing both over Z^r (Poisson) gives, for every linear query a^T z
// (a node, a range, any weights; alpha its coordinates),
//   Var_disc = Var_cont - 4 pi^2 E_w[(alpha^T C k)^2],  k ~ w on Z^r,
// and for two queries Cov_disc = Cov_cont - 4 pi^2 E_w[(alpha^T C k)(beta^T C k)].
// The mean is 0 by symmetry. Cauchy-Schwarz, (alpha^T C k)^2 <=
// (alpha^T C alpha)(k^T C k), and sum_k w(k) >= 1 give
//   (1 - B) Var_cont <= Var_disc <= Var_cont,
//   |Cov_disc - Cov_cont| <= B sqrt(Var_cont,a Var_cont,b),
//   B = 4 pi^2 sum_{k != 0} (k^T C k) w(k).
// To bound B: t e^{-2 pi^2 t} <= e^{-2 pi^2 (1 - eta) t} / (2 pi^2 eta e) for
// t >= 0, 0 < eta < 1. With mu = (I - M)^-T k, k^T C k = sum_j s_j^2 mu_j^2
// and mu_j = k_j + (a shift fixed by the k_l of later coordinates), so
// summing over k_1 first, then k_2, ..., each sum over one integer k_j
// (the later k fixed) is a shifted 1-D theta sum, at most its unshifted value
// Theta_j = sum_t exp(-2 pi^2 (1 - eta) s_j^2 t^2) <= 1 + 2 q_j/(1 - q_j),
// q_j = exp(-2 pi^2 (1 - eta) s_j^2) (positive Fourier coefficients). So
//   B <= (2 / (eta e)) (prod_j Theta_j - 1) <= (2 / (eta e)) expm1(sum_j 2 q_j/(1 - q_j)),
// for any eta; eta is chosen in double, the bound evaluated with MPFR and
// rounded up (the sum over coordinates per split class, exact for i < 64
// and bounded by the 64th term beyond, integer_cascade_splits.hpp). At the
// calibrated variances (s^2 of several units and more) B is far below 2^-53:
// the closed forms are the exact variances to double precision.
#pragma once

#include <cstdint>
#include <vector>

#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"
#include "integer_cascade_splits.hpp"
#include "theta_sums.hpp"

namespace invariant_dp::hierarchy {

// B above, rounded up (0 <= B; B >= 1 says nothing).
double integer_cascade_variance_deficit_bound(const IntegerSplits& splits);

// The deficit bound as the metadata publishes it: at least 2^-53. Rounding
// a bound up keeps it a bound, and below 2^-53 the factor 1 - B is the same
// double anyway; a 1e-300 bound would otherwise reach jsonb (numeric) as a
// number of 300 digits.
inline double published_deficit_bound(double bound) { return bound < 0x1p-53 ? 0x1p-53 : bound; }
// The same for the coordinates of a product of lattices (crossed trees):
// each coordinate's s^2 the product of its factors' (the argument above only
// uses the triangular form, which the Kronecker product keeps). `kept`
// shares coordinates' terms across the calls of one computation.
double product_variance_deficit_bound(const std::vector<std::vector<CoordinateGroup>>& factors,
                                      CoordinateTerms* kept = nullptr);

struct VarianceBounds {
  double lower = 0;  // (1 - B) times the closed form, rounded down (0 when B >= 1)
  double upper = 0;  // the closed form
};

// The bounds of a variance whose closed form is closed_form, under deficit bound B.
VarianceBounds integer_variance_bounds(double closed_form, double deficit_bound);

// The exact variance of a node's noise, of the sum of released leaves lo..hi
// (leaf order, inclusive), and the covariance of two leaves, under the
// integer cascade with deficit bound B.
VarianceBounds integer_node_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                     std::uint32_t node);
VarianceBounds integer_range_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                      std::uint32_t lo, std::uint32_t hi);
VarianceBounds integer_leaf_covariance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                       std::uint32_t i, std::uint32_t j);

}  // namespace invariant_dp::hierarchy
