// integer_cascade: the exact lattice Gaussian with the cascade's
// covariance, integers at every level of a hierarchy. Calibrated on the
// hierarchy's tree, not per cell (its catalogue row says
// calibrated_on_tree): rollups/integer_cascade_release.hpp and
// rollups/crossed_release.hpp release it, hierarchy/ draws it; no flat
// release.
#include "mechanism_behaviour.hpp"

namespace invariant_dp {

const MechanismBehaviour& integer_cascade_behaviour() {
  static const TreeCalibratedBehaviour behaviour(accuracy::ErrorLaw::lattice_gaussian_cascade);
  return behaviour;
}

}  // namespace invariant_dp
