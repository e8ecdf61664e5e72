// The mechanism catalogue of dp.privatize (docs/reference.md, "Mechanisms",
// documents it for users): names, what each outputs, and which parameters it
// takes. One table, so the SQL error for an unknown name can list every
// known one. Papers: GGY22 = Gao, Gong, Yu 2022, "Subspace Differential
// Privacy" (arXiv:2108.11527); DGGY23 = Dharangutte, Gao, Gong, Yu 2023,
// "Integer Subspace Differential Privacy" (arXiv:2212.00936); GM20 = Gong,
// Meng 2020, "Congenial Differential Privacy under Mandated Disclosure"
// (arXiv:2008.10202); LSZF23 = Liu, Sun, Zhou, Feng 2023, "Two Views of
// Constrained Differential Privacy: Belief Revision and Update"
// (arXiv:2303.00228); DGGW24 = Dharangutte, Gao, Gong, Wang 2024,
// "Differentially Private Range Queries with Correlated Input
// Perturbation" (arXiv:2402.07066).
#pragma once

#include <string>

namespace invariant_dp {

enum class Mechanism {
  DiscreteLaplace,   // independent exact discrete Laplace per cell; no invariants
  DiscreteGaussian,  // independent exact discrete Gaussian per cell; no invariants
  SubspaceGaussian,  // x + Pi_N e, e ~ N(0, sigma^2 I) (GGY22 Cor. 3.5)
  SubspaceLaplace,   // x + Pi_N e, e ~ Lap(b)^d (GGY22 Cor. 3.8)
  IntegerLaplace,    // discrete Laplace conditioned on the invariants (DGGY23 Def. 9, l1)
  IntegerLaplaceL2,  // q(z) ~ exp(-eps |z|_2) on the invariant lattice (DGGY23 Def. 9, l2)
  IntegerGaussian,   // lattice Gaussian on the invariant lattice (DGGY23 Eq. 8, Def. 13)
  Congenial,         // discrete Laplace conditioned on the invariants and y >= 0 (GM20 eq. 2.3)
  ProjectL2,         // discrete Laplace, then least squares onto the invariants (LSZF23 Eq. 5)
  ProjectNnL2,       // the same with y >= 0: a QP (GM20 Sec. 3 "NNL2")
  ProjectNnInteger,  // NNL2 then controlled rounding to integers (TopDown-style)
  Cascade,           // Gaussian cascade noise on a hierarchy (DGGW24), rollups exact sums
  IntegerCascade,    // exact lattice Gaussian with the cascade's covariance: integers at every level
  NonnegativeCascade,  // discrete Laplace at every node, consistent and conditioned on leaves >= 0 (GM20 eq. 2.3)
};

// Which of the two views of constrained DP (LSZF23, Section 3 and Table 1) a
// mechanism takes, published as metadata "family":
//   conditioning: the output law is the unconstrained noise law conditioned
//     on the invariants (belief revision). integer_* and congenial condition
//     discrete noise; subspace_gaussian projects Gaussian noise, and for
//     spherical Gaussian noise the projection Pi_N e has exactly the law of
//     e given A e = 0 (GGY22 Theorem 4.2), so it is conditioning too;
//   projection: unconstrained noise, then the nearest point of the invariant
//     set (belief update / imaging). subspace_laplace is here: Pi_N e for
//     Laplace e is the L2 image, not the conditional (variance 4/3 b^2 vs
//     5/6 b^2 per cell for one sum of 3 cells: LSZF23 Section 4,
//     Proposition 4.1 and the n = 3 example of Appendix B);
//   none: no invariant to enforce (discrete_laplace, discrete_gaussian).
enum class Family { Conditioning, Projection, None };
const char* family_name(Family family);

// How a mechanism calibrates, draws, states its law and is diagnosed
// (mechanism_behaviour.hpp); each mechanism's own file implements it.
class MechanismBehaviour;

// A row of the catalogue: what the SQL functions check before anything is
// drawn, and the mechanism's behaviour.
struct MechanismTraits {
  Mechanism mechanism;
  const char* name;
  bool integer_output;      // released counts are integers
  bool allows_invariants;   // margins may be declared; without: independent integer noise per cell
  bool needs_delta;         // (eps, delta)-DP; otherwise pure eps-DP
  Family family;
  bool non_negative;        // every released cell >= 0 (metadata "non_negative")
  // Calibrated on a hierarchy's tree (from epsilon and delta, rho, or
  // per-level targets), not per cell: released by rollups/hierarchy_release.hpp.
  bool calibrated_on_tree;
  // A function, not a pointer to the object, so that the table is constant
  // and the behaviours need no order of initialisation.
  const MechanismBehaviour& (*behaviour)();
  // The options only some mechanisms take (request/options.cpp's rows
  // marked per_mechanism) that this one does, separated by spaces; any
  // other such option is refused with the names of the mechanisms taking it.
  const char* options;
};

// The catalogue's rows, in order (for (const MechanismTraits& m : mechanism_catalogue())).
struct MechanismRows {
  const MechanismTraits* first;
  const MechanismTraits* last;
  const MechanismTraits* begin() const { return first; }
  const MechanismTraits* end() const { return last; }
};
MechanismRows mechanism_catalogue();

// Throws InvalidArgument listing the known names.
const MechanismTraits& mechanism_by_name(const std::string& name);
const MechanismTraits& traits_of(Mechanism mechanism);

// "discrete_laplace, discrete_gaussian, ..." for messages and docs.
std::string known_mechanism_names();

}  // namespace invariant_dp
