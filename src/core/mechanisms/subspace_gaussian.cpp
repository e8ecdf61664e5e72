// subspace_gaussian: y = x + Pi_N e, e ~ N(0, sigma^2 I) (Gao, Gong, Yu 2022,
// arXiv:2108.11527, Cor. 3.5); real-valued, every margin exact up to float8
// round-off (subspace_release.hpp).
#include "../calibration/analytic_gaussian.hpp"
#include "mechanism_behaviour.hpp"
#include "subspace_release.hpp"

namespace invariant_dp {
namespace {

class SubspaceGaussianMechanism final : public MechanismBehaviour {
 public:
  // Pi_N e with Gaussian e: Gaussian.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::projected_gaussian; }

  NoiseLaw calibrate(const ReleaseRequest& r) const override {
    NoiseLaw law;
    law.kind = NoiseKind::Gaussian;
    law.scale = analytic_gaussian_sigma(r.epsilon, r.delta, r.l2_sensitivity());
    law.unit_variance = law.scale * law.scale;
    law.law = "N(0, sigma^2) i.i.d. per cell, projected onto the null space of the invariants";
    law.calibration =
        "analytic Gaussian mechanism (Balle and Wang 2018): smallest sigma with exact delta(epsilon) <= delta";
    return at_request_sensitivities(law, r);
  }

  double release(const ReleaseDraw& draw) const override { return release_subspace(draw); }
};

}  // namespace

const MechanismBehaviour& subspace_gaussian_behaviour() {
  static const SubspaceGaussianMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
