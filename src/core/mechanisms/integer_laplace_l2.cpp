// integer_laplace_l2: q(z) ~ exp(-epsilon |z|_2 / |v|_2) on the invariant
// lattice (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Def. 9 in
// l2), v the shortest protected move. No exact sampler: always the chain
// (lattice_release.hpp), the scale-mixture Gibbs sampler on complete tables.
#include <cmath>

#include "diagnostics.hpp"
#include "lattice_release.hpp"
#include "mechanism_behaviour.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

NoiseLaw l2_laplace_law(const ReleaseRequest& r, double /* l1 */, double l2_squared) {
  NoiseLaw law;
  law.kind = NoiseKind::Laplace;
  law.scale = std::sqrt(l2_squared) / r.epsilon;
  law.law = "P(z) proportional to exp(-|z|_2/b) on the integer vectors that keep every declared margin";
  law.calibration = "b = l2 norm of the shortest protected move / epsilon";
  return law;
}

const LatticeNoise kL2Lattice{mcmc::TargetKind::laplace_l2, l2_laplace_law};

class IntegerLaplaceL2Mechanism final : public MechanismBehaviour {
 public:
  // exp(-|z|_2 / b) on the invariant lattice.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::l2_lattice; }

  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    const double l2 = request.l2_sensitivity();
    return lattice_noise_law(request, kL2Lattice.law, request.l1_sensitivity(), l2 * l2);
  }

  double release(const ReleaseDraw& draw) const override {
    release_on_lattice(draw.counts, draw.request, kL2Lattice, draw.model, draw.rng, draw.interrupts,
                       draw.result.integer_values, draw.result.noise_sd, draw.law, draw.report);
    return kErrorFromCellSds;
  }

  std::string covariance_with_margins(const ReleaseRequest&, const std::string& structure, bool) const override {
    if (structure == "partition") return kPartitionCovariance;
    return structure == "two_way" || structure == "k_way" ? kTableCovariance : kLatticeCovariance;
  }

  std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                         const DiagnosticsSettings& settings, RandomSource& rng,
                                         const Interrupts& interrupts) const override {
    const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
    return lattice_diagnostics(request, kL2Lattice, model, settings, rng, interrupts);
  }
};

}  // namespace

const MechanismBehaviour& integer_laplace_l2_behaviour() {
  static const IntegerLaplaceL2Mechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
