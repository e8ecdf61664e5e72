// project_nn_integer: project_nn_l2, then controlled rounding to the
// l1-nearest integer table that keeps the invariants and y >= 0, as the
// Census TopDown algorithm does (projection_release.hpp).
#include "projection_release.hpp"

namespace invariant_dp {

const MechanismBehaviour& project_nn_integer_behaviour() {
  static const ProjectionMechanism behaviour(ProjectionOnto::NonNegativeIntegers, accuracy::ErrorLaw::data_dependent);
  return behaviour;
}

}  // namespace invariant_dp
