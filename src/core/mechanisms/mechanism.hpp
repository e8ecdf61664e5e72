// The mechanism catalogue of dp.privatize (DESIGN.md, "Mechanisms"): names,
// what each outputs, and which parameters it takes. One table, so the SQL
// error for an unknown name can list every known one.
#pragma once

#include <string>

namespace invariant_dp {

enum class Mechanism {
  DiscreteLaplace,   // independent exact discrete Laplace per cell; no invariants
  DiscreteGaussian,  // independent exact discrete Gaussian per cell; no invariants
  SubspaceGaussian,  // x + Pi_N e, e ~ N(0, sigma^2 I) (subspace_dp Cor 3.5)
  SubspaceLaplace,   // x + Pi_N e, e ~ Lap(b)^d (subspace_dp Cor 3.8)
  IntegerLaplace,    // discrete Laplace conditioned on the invariants (integer_subspace_dp, l1)
  IntegerLaplaceL2,  // q(z) ~ exp(-eps |z|_2) on the invariant lattice (integer_subspace_dp, l2)
  IntegerGaussian,   // lattice Gaussian on the invariant lattice (integer_subspace_dp Eq. 8)
  Congenial,         // discrete Laplace conditioned on the invariants and y >= 0 (congenial_dp)
  ProjectL2,         // discrete Laplace, then least squares onto the invariants (two_views 4.3)
  ProjectNnL2,       // the same with y >= 0: a QP (congenial_dp 4.1 "NNL2")
  ProjectNnInteger,  // NNL2 then controlled rounding to integers (TopDown-style)
  Cascade,           // Gaussian cascade noise on a hierarchy (cascade_sampling), rollups exact sums
  IntegerCascade,    // exact lattice Gaussian with the cascade's covariance: integers at every level
};

// Which of the two views of constrained DP (two_views digest §0, §7) a
// mechanism takes, published as metadata "family":
//   conditioning: the output law is the unconstrained noise law conditioned
//     on the invariants (belief revision). integer_* and congenial condition
//     discrete noise; subspace_gaussian projects Gaussian noise, and for
//     spherical Gaussian noise the projection Pi_N e has exactly the law of
//     e given A e = 0 (two_views digest 3.2, 4.3), so it is conditioning too;
//   projection: unconstrained noise, then the nearest point of the invariant
//     set (belief update / imaging). subspace_laplace is here: Pi_N e for
//     Laplace e is the L2 image, not the conditional (variance 4/3 b^2 vs
//     5/6 b^2 per cell for one sum of 3 cells, two_views digest 6.1);
//   none: no invariant to enforce (discrete_laplace, discrete_gaussian).
enum class Family { Conditioning, Projection, None };
const char* family_name(Family family);

struct MechanismTraits {
  Mechanism mechanism;
  const char* name;
  bool integer_output;    // released counts are integers
  bool allows_invariants; // margins may be declared
  bool needs_delta;       // (eps, delta)-DP; otherwise pure eps-DP
  Family family;
};

// cascade and integer_cascade: calibrated on their hierarchy's tree (from
// epsilon and delta, rho, or per-level targets), not per cell.
inline bool calibrated_on_tree(Mechanism mechanism) {
  return mechanism == Mechanism::Cascade || mechanism == Mechanism::IntegerCascade;
}

// Throws InvalidArgument listing the known names.
const MechanismTraits& mechanism_by_name(const std::string& name);
const MechanismTraits& traits_of(Mechanism mechanism);

// "discrete_laplace, discrete_gaussian, ..." for messages and docs.
std::string known_mechanism_names();

}  // namespace invariant_dp
