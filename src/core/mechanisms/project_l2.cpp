// project_l2: discrete Laplace noise, then the least-squares projection onto
// the invariants, x + Pi_N e (Liu, Sun, Zhou, Feng 2023, arXiv:2303.00228,
// Eq. 5); real-valued, unbiased (projection_release.hpp).
#include "projection_release.hpp"

namespace invariant_dp {

const MechanismBehaviour& project_l2_behaviour() {
  static const ProjectionMechanism behaviour(ProjectionOnto::Invariants, accuracy::ErrorLaw::projected_variance);
  return behaviour;
}

}  // namespace invariant_dp
