// integer_gaussian: the lattice Gaussian on the invariant lattice
// (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Eq. 8, Def. 13).
// Drawn exactly without margins, on one partition, and on complete tables
// with all their (K-1)-way margins (table_release.hpp) when sigma^2 allows;
// otherwise by the lattice chain.
#include <cmath>

#include "../calibration/zcdp.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "conditioned_release.hpp"
#include "diagnostics.hpp"
#include "mechanism_behaviour.hpp"
#include "release_metadata.hpp"
#include "table_release.hpp"

namespace invariant_dp {
namespace {

NoiseLaw lattice_gaussian_law(const ReleaseRequest& r, double /* l1 */, double l2_squared) {
  NoiseLaw law;
  law.kind = NoiseKind::DiscreteGaussian;
  law.exact_parameter = lattice_gaussian_sigma2(r.epsilon, r.delta, l2_squared);
  law.scale = std::sqrt(law.exact_parameter.to_double());
  law.unit_variance = discrete_gaussian_variance(law.exact_parameter);
  law.law = "lattice Gaussian, P(z) proportional to exp(-|z|_2^2/(2 sigma^2)) on the integer vectors that "
            "keep every declared margin";
  law.calibration = "smallest sigma^2 whose (|v|_2^2 / (2 sigma^2))-zCDP converts to (epsilon, delta) "
                    "(Canonne, Kamath, Steinke 2020, Cor. 13); |v| the shortest protected move";
  return law;
}

const LatticeNoise kGaussianLattice{mcmc::TargetKind::lattice_gaussian, lattice_gaussian_law};

// The complete tables the exact sampler draws at its own law, or none.
std::vector<LatticeTable> gaussian_exact_tables(const ReleaseRequest& request, const InvariantModel& model,
                                                NoiseLaw* law) {
  std::vector<LatticeTable> tables = model.lattice_tables();
  if (tables.empty()) return tables;
  const NoiseLaw table_law = table_gaussian_law(request, kGaussianLattice.law, tables);
  if (!table_gaussian_applies(table_law, tables)) return {};
  if (law != nullptr) *law = table_law;
  return tables;
}

class IntegerGaussianMechanism final : public MechanismBehaviour {
 public:
  // Discrete Gaussian conditioned on the margins.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::gaussian_lattice; }

  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    const double l2 = request.l2_sensitivity();
    return lattice_noise_law(request, kGaussianLattice.law, request.l1_sensitivity(), l2 * l2);
  }

  // Exact on complete tables unless sigma^2 is too small for the rejection
  // step at this size (then the chain).
  double release(const ReleaseDraw& draw) const override {
    if (!draw.request.margins.empty()) {
      const std::vector<LatticeTable> tables = gaussian_exact_tables(draw.request, draw.model, &draw.law);
      if (!tables.empty()) {
        release_table_gaussian(draw.counts, draw.law, tables, draw.model.n_cells(), draw.rng, draw.interrupts,
                               draw.result.integer_values, draw.result.noise_sd, draw.report);
        return kErrorFromCellSds;
      }
    }
    return release_on_margins(draw, kGaussianLattice);
  }

  std::string covariance_with_margins(const ReleaseRequest&, const std::string& structure,
                                      bool sampler_exact) const override {
    if (structure == "partition") return kPartitionCovariance;
    if (sampler_exact)
      return "cells of different tables independent; within an n_1 x ... x n_K table Cov(z_a, z_b) = sigma^2 "
             "prod_k (delta(a_k, b_k) - 1/n_k), the continuous Gaussian's, which the lattice's discreteness "
             "changes negligibly for sigma^2 >= 1";
    return kLatticeGaussianCovariance;
  }

  std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                         const DiagnosticsSettings& settings, RandomSource& rng,
                                         const Interrupts& interrupts) const override {
    const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
    if (request.margins.empty() || model.structure() == "partition" ||
        !gaussian_exact_tables(request, model, nullptr).empty())
      refuse_exact_diagnosis(request);
    return lattice_diagnostics(request, kGaussianLattice, model, settings, rng, interrupts);
  }
};

}  // namespace

const MechanismBehaviour& integer_gaussian_behaviour() {
  static const IntegerGaussianMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
