// subspace_laplace: y = x + Pi_N e, e ~ Lap(b)^d (Gao, Gong, Yu 2022,
// arXiv:2108.11527, Cor. 3.8); real-valued, every margin exact up to float8
// round-off (subspace_release.hpp). Of the projection family: for Laplace
// e, Pi_N e is the L2 image, not the conditional law (mechanism.hpp, Family).
#include "mechanism_behaviour.hpp"
#include "subspace_release.hpp"

namespace invariant_dp {
namespace {

class SubspaceLaplaceMechanism final : public MechanismBehaviour {
 public:
  // Pi_N e with continuous Laplace e: symmetric log-concave marginals.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::projected_log_concave; }

  NoiseLaw calibrate(const ReleaseRequest& r) const override {
    NoiseLaw law;
    law.kind = NoiseKind::Laplace;
    law.scale = r.l1_sensitivity() / r.epsilon;
    law.unit_variance = 2 * law.scale * law.scale;
    law.law = "Laplace(b) i.i.d. per cell, projected onto the null space of the invariants";
    law.calibration = "b = l1_sensitivity / epsilon (subspace_dp Cor 3.8)";
    return at_request_sensitivities(law, r);
  }

  double release(const ReleaseDraw& draw) const override { return release_subspace(draw); }
};

}  // namespace

const MechanismBehaviour& subspace_laplace_behaviour() {
  static const SubspaceLaplaceMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
