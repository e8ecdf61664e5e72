// The defaults of MechanismBehaviour: what most mechanisms share.
#include "mechanism_behaviour.hpp"

#include "../errors.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {

std::int64_t* ReleaseDraw::integer_destination() const {
  if (writable_counts != nullptr) return result.integer_values_in_place = writable_counts;
  result.integer_values.resize(model.n_cells());
  return result.integer_values.data();
}

double* ReleaseDraw::real_destination() const {
  if (writable_counts != nullptr) return result.values_in_place = reinterpret_cast<double*>(writable_counts);
  result.values.resize(model.n_cells());
  return result.values.data();
}

void MechanismBehaviour::check_options(const ReleaseRequest&) const {}

std::string MechanismBehaviour::privacy_statement(const ReleaseRequest& request) const {
  return invariant_privacy_statement(request);
}

std::string MechanismBehaviour::accounting_json(const ReleaseRequest&) const { return ""; }

std::string MechanismBehaviour::covariance_with_margins(const ReleaseRequest&, const std::string&, bool) const {
  return kSubspaceCovariance;
}

std::vector<DiagnosticRecord> MechanismBehaviour::diagnose(const CellKeys&, const ReleaseRequest& request,
                                                           const DiagnosticsSettings&, RandomSource&,
                                                           const Interrupts&) const {
  throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" has no MCMC sampler to diagnose",
                        "Its noise is drawn exactly.",
                        "Diagnose integer_laplace, integer_laplace_l2, integer_gaussian or congenial.");
}

namespace {

[[noreturn]] void refuse_without_hierarchy(const ReleaseRequest& request) {
  throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" needs a hierarchy");
}

}  // namespace

NoiseLaw TreeCalibratedBehaviour::calibrate(const ReleaseRequest& request) const {
  refuse_without_hierarchy(request);
}

double TreeCalibratedBehaviour::release(const ReleaseDraw& draw) const { refuse_without_hierarchy(draw.request); }

}  // namespace invariant_dp
