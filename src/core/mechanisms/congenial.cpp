// congenial: discrete Laplace conditioned on the invariants and on y >= 0
// (Gong, Meng 2020, arXiv:2008.10202, eq. 2.3); its samplers and their
// accounting are in congenial_release.hpp, its diagnosis on a public
// stand-in table in congenial_diagnostics.hpp.
#include <sstream>

#include "../json_text.hpp"
#include "congenial_diagnostics.hpp"
#include "congenial_release.hpp"
#include "mechanism_behaviour.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

class CongenialMechanism final : public MechanismBehaviour {
 public:
  // Conditioned on y >= 0 too: the noise depends on the counts.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::data_dependent; }

  // Its option "sampler" chooses among its samplers.
  void check_options(const ReleaseRequest& request) const override {
    if (request.sampler == "chain")
      throw InvalidArgument("congenial names its chain", "Got option \"sampler\" \"chain\".",
                            "Use {\"sampler\": \"lattice\"} or {\"sampler\": \"mis\"}.");
  }

  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    return congenial_noise_law(request, request.l1_sensitivity());
  }

  double release(const ReleaseDraw& draw) const override {
    release_congenial(draw.counts, draw.request, draw.model, draw.rng, draw.interrupts, draw.result, draw.law,
                      draw.report);
    return kErrorFromCellSds;
  }

  std::string privacy_statement(const ReleaseRequest& request) const override {
    std::ostringstream out;
    out << (request.total_delta() > 0 ? "(epsilon, delta)" : "epsilon") << "-differential privacy for "
        << neighbours_text(request)
        << (request.margins.empty() ? "" : " (or, with crossing margins, by one shortest margin-preserving move) "
                                           "and agree on every declared margin; the margins are released exactly "
                                           "and are not protected")
        << ": the base discrete Laplace is (epsilon/2)-DP and conditioning it on the margins and on "
           "non-negativity, a set that depends on the data, costs at most the factor 1 + gamma <= 2 (Gong and "
           "Meng 2020, Theorem 2.1, gamma = 1)";
    return out.str();
  }

  // The guarantee is not the base noise's alone: epsilon = (1 + gamma) * base_epsilon.
  std::string accounting_json(const ReleaseRequest& request) const override {
    std::ostringstream out;
    out << "{\"epsilon\": " << json_number(request.epsilon)
        << ", \"base_epsilon\": " << json_number(request.epsilon / 2) << ", \"gamma\": 1"
        << ", \"rule\": " << json_quoted("epsilon = (1 + gamma) * base_epsilon, Gong and Meng 2020 Theorem 2.1")
        << "}";
    return out.str();
  }

  std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                         const DiagnosticsSettings& settings, RandomSource& rng,
                                         const Interrupts& interrupts) const override {
    return congenial_diagnostics(cells, request, settings.surrogate_count, rng, interrupts);
  }
};

}  // namespace

const MechanismBehaviour& congenial_behaviour() {
  static const CongenialMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp
