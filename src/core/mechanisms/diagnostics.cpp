#include "diagnostics.hpp"

#include <algorithm>

#include "../errors.hpp"
#include "../invariants/invariant_model.hpp"
#include "../mcmc/coupling.hpp"
#include "../mcmc/rhat.hpp"
#include "congenial_diagnostics.hpp"
#include "lattice_release.hpp"

namespace invariant_dp {
namespace {

void check_lattice_mechanism(const ReleaseRequest& request) {
  const Mechanism m = request.mechanism->mechanism;
  if (m != Mechanism::IntegerLaplace && m != Mechanism::IntegerLaplaceL2 && m != Mechanism::IntegerGaussian)
    throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" has no MCMC sampler to diagnose",
                          "Its noise is drawn exactly.",
                          "Diagnose integer_laplace, integer_laplace_l2, integer_gaussian or congenial.");
}

}  // namespace

std::vector<DiagnosticRecord> run_diagnostics(const CellKeys& cells, const ReleaseRequest& request,
                                              const DiagnosticsSettings& settings, RandomSource& rng,
                                              const Interrupts& interrupts) {
  if (request.mechanism->mechanism == Mechanism::Congenial)
    return congenial_diagnostics(cells, request, settings.surrogate_count, rng, interrupts);
  check_lattice_mechanism(request);
  const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
  const LatticeSetup setup = prepare_lattice(request, model, interrupts);
  const std::int64_t sweeps = static_cast<std::int64_t>(setup.iterations);
  const std::int64_t lag = settings.lag > 0 ? settings.lag : std::max<std::int64_t>(1, sweeps / 10);
  const std::int64_t cap = 10 * sweeps + lag;

  std::vector<mcmc::MeetingTime> times;
  mcmc::AcceptanceCounts acceptance;
  for (std::int64_t pair = 0; pair < settings.coupled_pairs; ++pair) {
    times.push_back(mcmc::sample_meeting_time(*setup.chain_model, lag, cap, mcmc::StartKind::proposal, rng,
                                              interrupts, &acceptance));
    interrupts.progress("coupled chain pairs", pair + 1, settings.coupled_pairs);
  }

  std::vector<DiagnosticRecord> rows;
  for (const auto& point : mcmc::tv_upper_bound_curve(times, lag, settings.curve_points))
    rows.push_back({"tv_upper_bound", point.iteration, point.tv_upper_bound});
  rows.push_back({"iterations_to_tv_below_0.05", -1, double(mcmc::first_iteration_below(times, lag, 0.05))});
  rows.push_back({"release_iterations", -1, double(sweeps)});
  rows.push_back({"tv_upper_bound_at_release", sweeps, mcmc::tv_upper_bound(times, lag, sweeps)});
  rows.push_back({"acceptance_moves", -1, acceptance.move_rate()});
  rows.push_back({"acceptance_basis", -1, acceptance.basis_rate()});

  mcmc::RhatConfig rhat;
  rhat.burn_in = setup.iterations;
  rhat.draws = std::min<std::uint64_t>(setup.iterations, 2000);
  rhat.overdispersion_iterations = std::min<std::uint64_t>(setup.iterations, 1000);
  const mcmc::RhatReport report = mcmc::run_rhat(*setup.chain_model, rhat, rng, interrupts);
  rows.push_back({"rhat_l1", -1, report.rhat_l1});
  rows.push_back({"rhat_z1", -1, report.rhat_z1});
  return rows;
}

}  // namespace invariant_dp
