// discrete_laplace: independent exact discrete Laplace noise per cell, no
// invariant; pure epsilon-DP.
#include "independent_release.hpp"
#include "mechanism_behaviour.hpp"

namespace invariant_dp {
namespace {

class DiscreteLaplaceMechanism final : public MechanismBehaviour {
 public:
  // Independent discrete Laplace: the l1 lattice law without margins.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::laplace_lattice; }

  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    return at_request_sensitivities(discrete_laplace_law(request, request.l1_sensitivity()), request);
  }

  double release(const ReleaseDraw& draw) const override {
    release_independent_integers(draw);
    return kErrorFromCellSds;
  }
};

}  // namespace

const MechanismBehaviour& discrete_laplace_behaviour() {
  static const DiscreteLaplaceMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
