// project_nn_l2: discrete Laplace noise, then the least-squares projection
// onto the invariants with every cell non-negative, a QP (Gong, Meng 2020,
// arXiv:2008.10202, Sec. 3 "NNL2"); real-valued, biased near zero
// (projection_release.hpp).
#include "projection_release.hpp"

namespace invariant_dp {

const MechanismBehaviour& project_nn_l2_behaviour() {
  static const ProjectionMechanism behaviour(ProjectionOnto::NonNegative, accuracy::ErrorLaw::data_dependent);
  return behaviour;
}

}  // namespace invariant_dp
