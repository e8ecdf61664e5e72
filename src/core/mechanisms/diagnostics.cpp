// dp.diagnose: the coupled chains and R-hat of the lattice sampler; which
// mechanism diagnoses what is its own (MechanismBehaviour::diagnose).
#include "diagnostics.hpp"

#include <algorithm>

#include "../errors.hpp"
#include "../invariants/invariant_model.hpp"
#include "../mcmc/coupling.hpp"
#include "../mcmc/rhat.hpp"
#include "../mcmc/scale_mixture_chain.hpp"
#include "../mcmc/table_swap_chain.hpp"
#include "lattice_release.hpp"
#include "mechanism_behaviour.hpp"

namespace invariant_dp {
namespace {

// The TV bound curve and its summary from the meeting times.
// When a coupled pair does not meet within the cap, its meeting time is
// only known to exceed the cap, and the curve past it counts that pair as 1
// (Biswas, Jacob and Vanetti 2019, arXiv:1905.09971, Section 2.3: the bound
// needs every meeting time). Such a curve bounds nothing: its rows are then
// named tv_censored_bound and tv_censored_bound_at_release, never
// tv_upper_bound, and censored_pairs says how many pairs did not meet (the
// shim warns in words, src/pg/diagnose.c). The release's guarantee is then
// not certified by this diagnosis.
std::vector<DiagnosticRecord> coupling_rows(const std::vector<mcmc::MeetingTime>& times, std::int64_t lag,
                                            std::int64_t sweeps, const DiagnosticsSettings& settings) {
  std::size_t censored = 0;
  for (const mcmc::MeetingTime& t : times) censored += t.met ? 0 : 1;
  const char* curve = censored ? "tv_censored_bound" : "tv_upper_bound";
  std::vector<DiagnosticRecord> rows;
  for (const auto& point : mcmc::tv_upper_bound_curve(times, lag, settings.curve_points))
    rows.push_back({curve, point.iteration, point.tv_upper_bound});
  rows.push_back({"iterations_to_tv_below_0.05", -1, double(mcmc::first_iteration_below(times, lag, 0.05))});
  rows.push_back({"release_iterations", -1, double(sweeps)});
  rows.push_back({censored ? "tv_censored_bound_at_release" : "tv_upper_bound_at_release", sweeps,
                  mcmc::tv_upper_bound(times, lag, sweeps)});
  rows.push_back({"censored_pairs", -1, double(censored)});
  return rows;
}

// The longest coupled run (leading chain's iterations) the budget allows
// for `pairs` pairs of two chains at `cost` steps per iteration each: at
// most ten times the release's iterations past the lag, and refused
// (54000) when it cannot reach one iteration past the release's, where the
// bound at the release is read.
std::int64_t coupling_cap(std::int64_t pairs, std::int64_t lag, std::int64_t iterations, double cost) {
  const double affordable = kMaxTableSteps / (double(std::max<std::int64_t>(pairs, 1)) * 2.0 * cost);
  const std::int64_t wanted = 10 * iterations + lag;
  const std::int64_t cap = affordable >= double(wanted) ? wanted : std::int64_t(affordable);
  if (cap <= lag + iterations)
    throw TooLarge("the coupled chains of this diagnosis are too long",
                   "Its " + std::to_string(pairs) + " pairs need at least " + std::to_string(lag + iterations + 1) +
                       " iterations of about " + std::to_string(std::llround(cost)) +
                       " updates each, more than the limit of " + std::to_string(std::llround(kMaxTableSteps)) +
                       " steps.",
                   "Ask for fewer coupled_pairs or iterations.");
  return cap;
}

// integer_laplace_l2 on complete tables: the scale-mixture Gibbs sampler
// (mcmc/scale_mixture_chain.hpp), whose pairs meet within a few iterations
// at every size; R-hat over chains started at latent variances 1/8 to 8
// times the stationary mean.
std::vector<DiagnosticRecord> scale_mixture_diagnostics(const ReleaseRequest& request, const mcmc::TableMoves& moves,
                                                        const mcmc::SwapChainConfig& config,
                                                        const DiagnosticsSettings& settings, RandomSource& rng,
                                                        const Interrupts& interrupts) {
  const std::int64_t iterations = static_cast<std::int64_t>(table_chain_sweeps(request, config));
  const std::int64_t lag = settings.lag > 0 ? settings.lag : std::max<std::int64_t>(1, iterations / 2);
  const std::int64_t cap = coupling_cap(settings.coupled_pairs, lag, iterations, double(moves.n_cells()));
  std::vector<mcmc::MeetingTime> times;
  for (std::int64_t pair = 0; pair < settings.coupled_pairs; ++pair) {
    times.push_back(
        mcmc::sample_scale_mixture_meeting_time(moves, config.target.epsilon, lag, cap, rng, interrupts));
    interrupts.progress("coupled chain pairs", pair + 1, settings.coupled_pairs);
  }
  std::vector<DiagnosticRecord> rows = coupling_rows(times, lag, iterations, settings);
  mcmc::RhatConfig rhat;
  rhat.burn_in = std::uint64_t(iterations);
  // 100 draws: with 20, split R-hat of ||z||_2 strays to 1.15 from
  // converged chains (measured at 100 x 100; 1.05 at most with 100).
  rhat.draws = std::uint64_t(std::max<std::int64_t>(iterations, 100));
  const mcmc::RhatReport report = mcmc::run_rhat(moves, config.target.epsilon, rhat, rng, interrupts);
  rows.push_back({"rhat_l1", -1, report.rhat_l1});
  rows.push_back({"rhat_z1", -1, report.rhat_z1});
  return rows;
}

// The table chain's meeting times (mcmc/table_swap_chain.hpp: informative
// on small tables only; censored pairs make the bound 1, which is
// reported). A sweep costs at most rank(Lambda) steps.
std::vector<DiagnosticRecord> table_diagnostics(const ReleaseRequest& request, const LatticeNoise& noise,
                                                const InvariantModel& model, const std::vector<LatticeTable>& tables,
                                                const DiagnosticsSettings& settings, RandomSource& rng,
                                                const Interrupts& interrupts) {
  const mcmc::TableMoves moves(tables, model.n_cells());
  const NoiseLaw law = lattice_noise_law(request, noise.law, moves.shortest_norm(), moves.shortest_norm());
  const mcmc::SwapChainConfig config = table_chain_config(request, noise.target, law, moves);
  if (config.target.kind == mcmc::TargetKind::laplace_l2)
    return scale_mixture_diagnostics(request, moves, config, settings, rng, interrupts);
  const std::int64_t sweeps = static_cast<std::int64_t>(table_chain_sweeps(request, config));
  const std::int64_t lag = settings.lag > 0 ? settings.lag : std::max<std::int64_t>(1, sweeps / 10);
  const std::int64_t cap = coupling_cap(settings.coupled_pairs, lag, sweeps, double(moves.rank()));
  std::vector<mcmc::MeetingTime> times;
  for (std::int64_t pair = 0; pair < settings.coupled_pairs; ++pair) {
    times.push_back(mcmc::sample_table_meeting_time(moves, config, lag, cap, rng, interrupts));
    interrupts.progress("coupled chain pairs", pair + 1, settings.coupled_pairs);
  }
  std::vector<DiagnosticRecord> rows = coupling_rows(times, lag, sweeps, settings);
  mcmc::RhatConfig rhat;
  rhat.burn_in = std::uint64_t(sweeps);
  // At least 200 draws: with the 60 of the pair blocks' default, split R-hat
  // of ||z||_1 strayed to 1.05 (100 x 100) from chains long converged.
  rhat.draws = std::clamp<std::uint64_t>(std::uint64_t(sweeps), 200, 2000);
  rhat.overdispersion_iterations = std::min<std::uint64_t>(std::uint64_t(sweeps), 100);
  const mcmc::RhatReport report = mcmc::run_rhat(moves, config, rhat, rng, interrupts);
  rows.push_back({"acceptance_moves", -1, report.acceptance.move_rate()});
  rows.push_back({"rhat_l1", -1, report.rhat_l1});
  rows.push_back({"rhat_z1", -1, report.rhat_z1});
  return rows;
}

}  // namespace

std::vector<DiagnosticRecord> run_diagnostics(const CellKeys& cells, const ReleaseRequest& request,
                                              const DiagnosticsSettings& settings, RandomSource& rng,
                                              const Interrupts& interrupts) {
  return request.mechanism->behaviour().diagnose(cells, request, settings, rng, interrupts);
}

void refuse_exact_diagnosis(const ReleaseRequest& request) {
  throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name +
                            "\" draws this release exactly: there is no chain to diagnose",
                        "With no margin, one margin or nested margins (and integer_gaussian on a complete table "
                        "with all its margins, integer_laplace on one with a line of two or three levels or small "
                        "enough for exact rejection) the noise is sampled exactly; the metadata says \"exact\": true.",
                        "Diagnose crossing margins, integer_laplace_l2 or congenial, or name integer_laplace's chain: "
                        "options {\"sampler\": \"chain\"}.");
}

std::vector<DiagnosticRecord> lattice_diagnostics(const ReleaseRequest& request, const LatticeNoise& noise,
                                                  const InvariantModel& model, const DiagnosticsSettings& settings,
                                                  RandomSource& rng, const Interrupts& interrupts) {
  const std::vector<LatticeTable> tables = chain_tables(model);
  if (!tables.empty()) return table_diagnostics(request, noise, model, tables, settings, rng, interrupts);
  const LatticeSetup setup = prepare_lattice(request, noise, model, interrupts);
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

  std::vector<DiagnosticRecord> rows = coupling_rows(times, lag, sweeps, settings);
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
