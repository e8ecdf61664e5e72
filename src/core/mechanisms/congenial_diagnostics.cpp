#include "congenial_diagnostics.hpp"

#include <cstdlib>
#include <memory>

#include "../congenial/chain_starts.hpp"
#include "../congenial/independence_sampler.hpp"
#include "../congenial/lattice_walk.hpp"
#include "../invariants/invariant_model.hpp"
#include "../mcmc/rhat.hpp"
#include "congenial_release.hpp"

namespace invariant_dp {
namespace {

constexpr int kChains = 4;
constexpr std::uint64_t kDraws = 1000;

struct Trace {
  std::vector<double> l1, y1;
};

void record(const CongenialTarget& target, const std::vector<std::int64_t>& y, Trace& trace) {
  double l1 = 0;
  for (std::size_t i = 0; i < y.size(); ++i) l1 += double(std::llabs(y[i] - target.center[i]));
  trace.l1.push_back(l1);
  trace.y1.push_back(double(y[0]));
}

// One chain of the release's kind (MIS or walk), from `start`.
Trace run_chain(CongenialSetup& setup, std::vector<std::int64_t> start, RandomSource& rng,
                const Interrupts& interrupts, double& acceptance) {
  Trace trace;
  if (setup.sampler == "mis") {
    IndependenceSampler chain(setup.target, *setup.completion, setup.proposal_a, std::move(start));
    for (std::uint64_t t = 0; t < setup.iterations + kDraws; ++t) {
      interrupts.poll_scaled(t, setup.target.n_cells());
      chain.step(rng);
      if (t >= setup.iterations) record(setup.target, chain.state(), trace);
    }
    acceptance = chain.proposed() ? double(chain.accepted()) / double(chain.proposed()) : 0;
    return trace;
  }
  if (setup.table_moves) {
    std::uint64_t sweep = 0;
    run_congenial_table_chain(setup, setup.target.inverse_scale, start, setup.iterations + kDraws, rng, interrupts,
                              &acceptance, [&](const mcmc::TableSwapChain& chain) {
                                if (sweep++ < setup.iterations) return;
                                trace.l1.push_back(double(chain.l1()));  // ||y - x||_1
                                trace.y1.push_back(double(setup.target.center[0] + chain.z()[0]));
                              });
    return trace;
  }
  std::unique_ptr<IndependenceSampler> independence;
  if (setup.completion)
    independence = std::make_unique<IndependenceSampler>(setup.target, *setup.completion, setup.proposal_a, start);
  LatticeWalk walk(setup.target, setup.moves, independence.get(), std::move(start));
  for (std::uint64_t t = 0; t < setup.iterations + kDraws; ++t) {
    interrupts.poll_scaled(t, setup.moves.size());
    walk.sweep(rng);
    if (t >= setup.iterations) record(setup.target, walk.state(), trace);
  }
  acceptance = walk.proposed() ? double(walk.accepted()) / double(walk.proposed()) : 0;
  return trace;
}

// Chain c's start. The table chain: the release's start, then that start
// moved by a flatter chain (spread-out tables). MIS and the walk: the
// release's kind of start, a noisy table, drawn anew for each chain, so that
// the chains start apart, as far as the noise spreads them.
std::vector<std::int64_t> start_of_chain(const CongenialSetup& setup, int c, RandomSource& rng,
                                         const Interrupts& interrupts) {
  if (setup.sampler == "mis" || !setup.table_moves)
    return noisy_start(setup.target.invariants, setup.target.center.data(), setup.law.exact_parameter, rng,
                       interrupts);
  if (c == 0) return setup.start;
  return run_congenial_table_chain(setup, setup.target.inverse_scale / 4, setup.start, 200, rng, interrupts, nullptr);
}

}  // namespace

std::vector<DiagnosticRecord> congenial_diagnostics(const CellKeys& cells, const ReleaseRequest& request,
                                                    std::int64_t surrogate_count, RandomSource& rng,
                                                    const Interrupts& interrupts) {
  const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
  const std::vector<std::int64_t> surrogate(model.n_cells(), surrogate_count);
  ReleaseRequest chain_request = request;
  CongenialSetup setup = prepare_congenial(surrogate.data(), chain_request, model, interrupts);
  std::vector<DiagnosticRecord> rows;
  const bool grouped = setup.structure == "partition" || setup.structure == "none";
  if (grouped && setup.sampler != "mis" && setup.sampler != "lattice") {
    // Exact rejection: its acceptance is the whole story; R-hat is moot.
    std::vector<std::int64_t> y = setup.start;
    std::uint64_t proposals = 0;
    const auto failed = sample_groups_by_rejection(setup.target, setup.law.exact_parameter, setup.group_of_cell,
                                                   setup.n_groups, setup.structure == "partition",
                                                   kCongenialAutoBudget, setup.total_samplers, rng, interrupts, y,
                                                   proposals);
    const double accepted = double(setup.n_groups - failed.size());
    rows.push_back({"rejection_acceptance", -1, proposals ? accepted / double(proposals) : 0});
    rows.push_back({"rejection_groups_over_budget", -1, double(failed.size())});
    return rows;
  }
  if (setup.moves.empty() && !setup.table_moves) {
    // The walk's moves (or the table chain) also drive the over-dispersed
    // starts of MIS chains.
    ReleaseRequest walk_request = request;
    walk_request.sampler = "lattice";
    CongenialSetup walk_setup = prepare_congenial(surrogate.data(), walk_request, model, interrupts);
    setup.moves = std::move(walk_setup.moves);
    setup.table_moves = std::move(walk_setup.table_moves);
  }
  std::vector<std::vector<double>> l1_chains, y1_chains;
  double acceptance = 0;
  int never_moved = 0;
  for (int c = 0; c < kChains; ++c) {
    const Trace trace = run_chain(setup, start_of_chain(setup, c, rng, interrupts), rng, interrupts, acceptance);
    never_moved += acceptance == 0;
    l1_chains.push_back(trace.l1);
    y1_chains.push_back(trace.y1);
    interrupts.progress("congenial chains", c + 1, kChains);
  }
  rows.push_back({"release_iterations", -1, double(setup.iterations)});
  // A chain that never left its start releases its start: R-hat over
  // identical constant traces says nothing of it.
  rows.push_back({"chains_never_moved", -1, double(never_moved)});
  if (setup.sampler == "mis") {
    rows.push_back({"acceptance_independence", -1, acceptance});
  } else {
    rows.push_back({"acceptance_moves", -1, acceptance});
    rows.push_back({"independence_proposals", -1, setup.completion ? 1.0 : 0.0});
  }
  rows.push_back({"rhat_l1", -1, mcmc::split_rhat(l1_chains)});
  rows.push_back({"rhat_y1", -1, mcmc::split_rhat(y1_chains)});
  return rows;
}

}  // namespace invariant_dp
