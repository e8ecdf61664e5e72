// discrete_gaussian: independent exact discrete Gaussian noise per cell, no
// invariant; (epsilon, delta)-DP.
#include <cmath>

#include "../calibration/discrete_gaussian_privacy.hpp"
#include "../calibration/zcdp.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "independent_release.hpp"
#include "mechanism_behaviour.hpp"

namespace invariant_dp {
namespace {

int moved_cells(Neighbours neighbours) { return neighbours == Neighbours::ReplaceOne ? 2 : 1; }

class DiscreteGaussianMechanism final : public MechanismBehaviour {
 public:
  // Independent discrete Gaussian: the lattice Gaussian without margins.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::gaussian_lattice; }

  NoiseLaw calibrate(const ReleaseRequest& r) const override {
    NoiseLaw law;
    law.kind = NoiseKind::DiscreteGaussian;
    law.law = "discrete Gaussian, P(z) proportional to exp(-z^2/(2 sigma^2)), independent per cell";
    if (r.bounds.active()) {
      // One unit moves up to 2G cells by up to R each: the zCDP route, which
      // holds for any shift of that squared norm.
      const double l2 = r.l2_sensitivity();
      law.exact_parameter = lattice_gaussian_sigma2(r.epsilon, r.delta, l2 * l2);
      law.calibration = "smallest sigma^2 whose (l2_sensitivity^2 / (2 sigma^2))-zCDP converts to (epsilon, delta) "
                        "(Canonne, Kamath, Steinke 2020, Cor. 13)";
    } else {
      law.exact_parameter = discrete_gaussian_sigma2(r.epsilon, r.delta, moved_cells(r.neighbours));
      law.calibration = "smallest sigma^2 whose certified delta(epsilon) is at most delta "
                        "(Canonne, Kamath, Steinke 2020: exact privacy-loss sum or zCDP conversion)";
    }
    law.scale = std::sqrt(law.exact_parameter.to_double());
    law.unit_variance = discrete_gaussian_variance(law.exact_parameter);
    return at_request_sensitivities(law, r);
  }

  double release(const ReleaseDraw& draw) const override {
    release_independent_integers(draw);
    return kErrorFromCellSds;
  }
};

}  // namespace

const MechanismBehaviour& discrete_gaussian_behaviour() {
  static const DiscreteGaussianMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
