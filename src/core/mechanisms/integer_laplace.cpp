// integer_laplace: the l1 generalized Laplace q(z) ~ exp(-|z|_1 / b) on the
// invariant lattice (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936,
// Def. 9 with its epsilon = 1/b): i.i.d. discrete Laplace conditioned on
// A z = 0. Drawn exactly without margins or on one partition, by the
// lattice chain for crossing margins (conditioned_release.hpp).
#include "conditioned_release.hpp"
#include "diagnostics.hpp"
#include "mechanism_behaviour.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

// A person's change within one margin group moves two cells by one: l1
// distance 2, loss 2/b = epsilon.
NoiseLaw integer_laplace_law(const ReleaseRequest& r, double l1, double /* l2_squared */) {
  NoiseLaw law = discrete_laplace_law(r, l1);
  law.law = "discrete Laplace, P(z) proportional to exp(-|z|_1/b), conditioned on every declared margin "
            "(z sums to 0 over each margin group)";
  return law;
}

const LatticeNoise kLattice{mcmc::TargetKind::laplace_l1, integer_laplace_law};

class IntegerLaplaceMechanism final : public MechanismBehaviour {
 public:
  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    return at_request_sensitivities(integer_laplace_law(request, request.l1_sensitivity(), 0), request);
  }

  double release(const ReleaseDraw& draw) const override { return release_on_margins(draw, kLattice); }

  std::string covariance_with_margins(const ReleaseRequest&, const std::string& structure,
                                      bool) const override {
    return structure == "partition" ? kPartitionCovariance : kLatticeCovariance;
  }

  std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                         const DiagnosticsSettings& settings, RandomSource& rng,
                                         const Interrupts& interrupts) const override {
    const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
    if (request.margins.empty() || model.structure() == "partition") refuse_exact_diagnosis(request);
    return lattice_diagnostics(request, kLattice, model, settings, rng, interrupts);
  }
};

}  // namespace

const MechanismBehaviour& integer_laplace_behaviour() {
  static const IntegerLaplaceMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
