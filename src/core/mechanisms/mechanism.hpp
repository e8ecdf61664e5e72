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
};

struct MechanismTraits {
  Mechanism mechanism;
  const char* name;
  bool integer_output;    // released counts are integers
  bool allows_invariants; // margins may be declared
  bool needs_delta;       // (eps, delta)-DP; otherwise pure eps-DP
};

// Throws InvalidArgument listing the known names.
const MechanismTraits& mechanism_by_name(const std::string& name);
const MechanismTraits& traits_of(Mechanism mechanism);

// "discrete_laplace, discrete_gaussian, ..." for messages and docs.
std::string known_mechanism_names();

}  // namespace invariant_dp
