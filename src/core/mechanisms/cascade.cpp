// cascade: Gaussian cascade noise on a hierarchy (Dharangutte, Gao, Gong,
// Wang 2024, arXiv:2402.07066), every rollup an exact sum of its children.
// Calibrated on the hierarchy's tree, not per cell (its catalogue row says
// calibrated_on_tree): rollups/hierarchy_release.hpp and
// rollups/crossed_release.hpp release it, hierarchy/ draws it; no flat
// release.
#include "mechanism_behaviour.hpp"

namespace invariant_dp {

const MechanismBehaviour& cascade_behaviour() {
  static const TreeCalibratedBehaviour behaviour(accuracy::ErrorLaw::gaussian_cascade);
  return behaviour;
}

}  // namespace invariant_dp
