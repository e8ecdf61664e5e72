// nonnegative_cascade: integer counts at every level of a hierarchy, every
// node >= 0 and the sum of its children, the declared totals exact, drawn
// exactly from discrete Laplace noise on every node conditioned on
// consistency and non-negative leaves (hierarchy/NONNEGATIVE.md). Calibrated
// on the hierarchy's tree, not per cell (its catalogue row says
// calibrated_on_tree and non_negative): rollups/nonnegative_cascade_release.hpp
// releases it, hierarchy/ draws it; no flat release. Its error law is
// data_dependent: conditioned on y >= 0, its noise depends on the counts, so
// no error bar of a sum follows from its published law; each node's sd and
// interval at the released counts come with the release.
#include "mechanism_behaviour.hpp"

namespace invariant_dp {

const MechanismBehaviour& nonnegative_cascade_behaviour() {
  static const TreeCalibratedBehaviour behaviour(accuracy::ErrorLaw::data_dependent);
  return behaviour;
}

}  // namespace invariant_dp
