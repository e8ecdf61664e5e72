#include "congenial_release.hpp"

#include <algorithm>
#include <cmath>

#include "../congenial/group_rejection.hpp"
#include "../congenial/independence_sampler.hpp"
#include "../congenial/lattice_walk.hpp"
#include "../congenial/chain_starts.hpp"
#include "../congenial/two_line_congenial.hpp"
#include "../errors.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../samplers/conditioned_laplace_variance.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "../samplers/two_line_table.hpp"

namespace invariant_dp {
namespace {

bool grouped(const std::string& structure) { return structure == "partition" || structure == "none"; }

// Each cell's group: a row of A_r for a partition, itself with no margin.
void fill_groups(const InvariantModel& model, CongenialSetup& setup) {
  const std::size_t d = model.n_cells();
  setup.group_of_cell.resize(d);
  if (setup.structure == "none") {
    for (std::uint32_t i = 0; i < d; ++i) setup.group_of_cell[i] = i;
    setup.n_groups = d;
    return;
  }
  const auto& rows = setup.target.invariants.rows;
  for (int r = 0; r < rows.outerSize(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(rows, r); it; ++it)
      setup.group_of_cell[it.col()] = static_cast<std::uint32_t>(r);
  setup.n_groups = static_cast<std::size_t>(rows.rows());
}

std::vector<mcmc::SparseVector> walk_moves(const CongenialSetup& setup, const InvariantModel* model,
                                           const Interrupts& interrupts) {
  if (setup.structure == "none") {
    std::vector<mcmc::SparseVector> unit(setup.target.n_cells());
    for (std::uint32_t i = 0; i < unit.size(); ++i) unit[i] = {{i}, {1}};
    return unit;
  }
  return lattice_walk_moves(invariant_lattice_basis(setup.target.invariants.rows, interrupts), interrupts);
}

double shortest_move_l1(const std::vector<mcmc::SparseVector>& moves) {
  double shortest = INFINITY;
  for (const auto& m : moves) {
    double l1 = 0;
    for (auto v : m.value) l1 += std::fabs(double(v));
    shortest = std::min(shortest, l1);
  }
  return shortest;
}

std::unique_ptr<UnimodularCompletion> try_completion(const LinearInvariants& invariants) {
  try {
    return std::make_unique<UnimodularCompletion>(invariants);
  } catch (const InvalidArgument&) {
    return nullptr;  // the walk runs without independence proposals
  } catch (const TooLarge&) {
    return nullptr;
  }
}

double acceptance(std::uint64_t accepted, std::uint64_t proposed) {
  return proposed ? double(accepted) / double(proposed) : 0;
}

std::vector<std::int64_t> run_walk(CongenialSetup& setup, std::vector<std::int64_t> start, RandomSource& rng,
                                   const Interrupts& interrupts, SamplerReport& report) {
  std::unique_ptr<IndependenceSampler> independence;
  if (setup.completion)
    independence = std::make_unique<IndependenceSampler>(setup.target, *setup.completion, setup.proposal_a, start);
  LatticeWalk walk(setup.target, setup.moves, independence.get(), std::move(start));
  for (std::uint64_t t = 0; t < setup.iterations; ++t) {
    interrupts.poll_scaled(t, setup.moves.size());
    walk.sweep(rng);
  }
  report.acceptance = acceptance(walk.accepted(), walk.proposed());
  return walk.state();
}

// Complete two-way tables with both margins (one or many blocks), for the
// table chain; empty otherwise.
std::vector<LatticeTable> two_way_tables(const InvariantModel& model) {
  std::vector<LatticeTable> tables = chain_tables(model);
  for (const LatticeTable& table : tables)
    if (table.shape.size() != 2) return {};
  return tables;
}

}  // namespace

NoiseLaw congenial_noise_law(const ReleaseRequest& r, double shortest_l1) {
  const double l1 = protected_l1(r, shortest_l1);
  ReleaseRequest base = r;
  base.epsilon = r.epsilon / 2;
  NoiseLaw law = discrete_laplace_law(base, l1);
  law.law = "discrete Laplace, P(y) proportional to exp(-|y - x|_1/b), conditioned on every declared margin and "
            "on y >= 0 in every cell";
  law.calibration = "b = l1_sensitivity / (epsilon / 2), rounded up to a rational: the base mechanism is "
                    "(epsilon/2)-DP and conditioning on data-dependent invariants costs at most a factor "
                    "1 + gamma <= 2 (Gong and Meng 2020, Thm 2.1)";
  law.l1_sensitivity = l1;
  law.l2_sensitivity = std::sqrt(l1);
  return law;
}

std::vector<std::int64_t> run_congenial_table_chain(const CongenialSetup& setup, double inverse_scale,
                                                    const std::vector<std::int64_t>& start, std::uint64_t sweeps,
                                                    RandomSource& rng, const Interrupts& interrupts,
                                                    double* moved_rate,
                                                    const std::function<void(const mcmc::TableSwapChain&)>& after_sweep) {
  const std::vector<std::int64_t>& x = setup.target.center;
  std::vector<std::int64_t> floors(x.size()), z(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    floors[i] = -x[i];
    z[i] = start[i] - x[i];
  }
  mcmc::TableSwapChain chain(*setup.table_moves, mcmc::SwapChainConfig{mcmc::laplace_l1(inverse_scale), true},
                             std::move(floors));
  chain.reset_to(z);
  for (std::uint64_t s = 0; s < sweeps; ++s) {
    chain.run(1, rng, interrupts);
    if (after_sweep) after_sweep(chain);
  }
  if (moved_rate != nullptr) *moved_rate = chain.counts().rate();
  std::vector<std::int64_t> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] + chain.z()[i];
  return y;
}

CongenialSetup prepare_congenial(const std::int64_t* counts, const ReleaseRequest& request,
                                 const InvariantModel& model, const Interrupts& interrupts) {
  CongenialSetup setup;
  setup.structure = model.structure();
  setup.target.invariants = linear_invariants(model, counts);
  setup.target.center.assign(counts, counts + model.n_cells());
  setup.sampler = request.sampler;
  const std::vector<LatticeTable> tables = two_way_tables(model);
  if (!tables.empty() && std::all_of(tables.begin(), tables.end(), is_two_line_table)) setup.two_line_tables = tables;
  if (setup.sampler == "rejection" && !grouped(setup.structure) && setup.two_line_tables.empty())
    throw InvalidArgument("the rejection sampler needs one margin, nested margins or two-line tables",
                          "The declared margins cross (structure \"" + setup.structure +
                              "\") on tables whose every line has more than two levels, so there is no exact "
                              "sampler to reject from.",
                          "Use options {\"sampler\": \"lattice\"} or omit the sampler option.");
  const bool walk = setup.sampler == "lattice" || (setup.sampler == "auto" && !grouped(setup.structure));
  if (!tables.empty() && setup.sampler != "mis")
    setup.table_moves = std::make_unique<mcmc::TableMoves>(tables, model.n_cells());
  else if (walk)
    setup.moves = walk_moves(setup, &model, interrupts);

  // The shortest protected move: two cells of a group (partition), one
  // person's change (no margin), else the shortest lattice move (a 2x2
  // swap on two-way tables).
  double l1 = request.neighbours == Neighbours::ReplaceOne ? 2 : 1;
  if (setup.table_moves)
    l1 = setup.table_moves->shortest_norm();
  else if (!grouped(setup.structure))
    l1 = shortest_move_l1(setup.moves.empty() ? walk_moves(setup, &model, interrupts) : setup.moves);
  setup.law = congenial_noise_law(request, l1);
  setup.target.inverse_scale = 1 / setup.law.exact_parameter.to_double();
  setup.proposal_a = request.proposal_a > 0 ? request.proposal_a
                                            : default_independence_proposal_a(setup.target.inverse_scale,
                                                                              setup.structure != "none");

  if (grouped(setup.structure)) fill_groups(model, setup);
  // MIS and the walk start at a noisy table, drawn with the release (draw_congenial).
  const bool noisy = setup.sampler == "mis" || (walk && !setup.table_moves);
  if (setup.table_moves)
    setup.start = proportional_table_start(tables, counts, model.n_cells(), interrupts);
  else if (!noisy)
    setup.start = public_start(setup.target.invariants, interrupts);
  if (setup.sampler == "mis") setup.completion = std::make_unique<UnimodularCompletion>(setup.target.invariants);
  else if (walk && !setup.table_moves) setup.completion = try_completion(setup.target.invariants);
  setup.iterations = request.iterations > 0              ? request.iterations
                     : setup.sampler == "mis"             ? kCongenialMisSteps
                     : setup.table_moves                  ? kCongenialTableSweeps
                                                          : kCongenialWalkSweeps;
  if (setup.table_moves && double(setup.iterations) * double(setup.table_moves->rank()) > kMaxTableSteps)
    throw TooLarge("the lattice chain for this release is too long",
                   "Its " + std::to_string(setup.iterations) + " sweeps of " +
                       std::to_string(setup.table_moves->rank()) + " moves exceed the limit of " +
                       std::to_string(std::llround(kMaxTableSteps)) + " steps.",
                   "Release fewer cells or ask for fewer iterations.");
  return setup;
}

std::vector<std::int64_t> draw_congenial(CongenialSetup& setup, RandomSource& rng, const Interrupts& interrupts,
                                         SamplerReport& report) {
  report.start = "a table computed from the public margin totals only (nearest non-negative table to zero, "
                 "rounded keeping the totals), never the confidential table";
  // MIS and the walk: a noisy start drawn with this release (prepare_congenial leaves it empty).
  const std::vector<std::int64_t> start =
      !setup.start.empty() ? setup.start
                           : noisy_start(setup.target.invariants, setup.target.center.data(),
                                         setup.law.exact_parameter, rng, interrupts);
  if (setup.start.empty()) {
    report.start = "the non-negative table with the declared totals nearest the data plus the base law's noise "
                   "(independent discrete Laplace of scale b on every cell, rounded keeping the totals): where the "
                   "law's mass is, and private on its own should the chain not move";
  }
  if (setup.sampler == "mis") {
    report.sampler = "mcmc: Metropolized independence sampler (Gong and Meng 2020, Algorithm 1), double-geometric "
                     "proposal on the free cells, pivot cells completed from the margins";
    report.iterations = setup.iterations;
    IndependenceSampler chain(setup.target, *setup.completion, setup.proposal_a, start);
    for (std::uint64_t t = 0; t < setup.iterations; ++t) {
      interrupts.poll_scaled(t, setup.target.n_cells());
      chain.step(rng);
    }
    report.acceptance = acceptance(chain.accepted(), chain.proposed());
    return chain.state();
  }
  if (setup.sampler == "rejection" && !setup.two_line_tables.empty()) {
    // Each 2 x n table's first line given its totals is one bounded group
    // (congenial/two_line_congenial.hpp): exact, or refused when a table
    // exhausts its budget (whether that happens depends on the data, so it
    // is an error, never a silent fallback).
    std::vector<std::int64_t> y = setup.target.center;
    std::uint64_t proposals = 0;
    const auto failed = sample_congenial_on_two_line_tables(
        setup.target.center.data(), setup.two_line_tables, setup.target.n_cells(), setup.law.exact_parameter,
        kCongenialRejectionBudget, rng, interrupts, y.data(), proposals);
    if (!failed.empty())
      throw OutOfRange("the rejection sampler exceeded its proposal budget",
                       "A table exhausted its budget of at least " + std::to_string(kCongenialRejectionBudget) +
                           " proposals (more when its estimated acceptance is lower).",
                       "Omit the sampler option (the default runs the table chain) or use \"lattice\".");
    report.start.clear();
    report.sampler = "exact: rejection per 2 x n table; its first line, given the row and column totals, is one "
                     "group of tilted truncated discrete Laplace proposals at b/2 with one cell closing the sum, "
                     "accepted with its exact probability ratio";
    report.iterations = 0;
    report.acceptance = acceptance(setup.two_line_tables.size(), proposals);
    return y;
  }
  if (setup.table_moves) {
    report.start = "a table computed from the public row and column totals only (each row split in proportion to "
                   "what the columns still lack, rounded keeping the totals), never the confidential table";
    report.sampler = "mcmc: heat-bath along random 2x2 swaps of each two-way table, each step drawn exactly from "
                     "the target's law on the swap's line within y >= 0";
    report.iterations = setup.iterations;
    return run_congenial_table_chain(setup, setup.target.inverse_scale, setup.start, setup.iterations, rng,
                                     interrupts, &report.acceptance);
  }
  const bool walk_only = setup.sampler == "lattice" || !grouped(setup.structure);
  if (walk_only) {
    report.sampler = "mcmc: Metropolis walk with margin-preserving lattice moves restricted to y >= 0, plus one "
                     "independence proposal per sweep where the margins admit it";
    report.iterations = setup.iterations;
    return run_walk(setup, start, rng, interrupts, report);
  }
  const bool strict = setup.sampler == "rejection";
  std::vector<std::int64_t> y = setup.start;
  std::uint64_t proposals = 0;
  const auto failed = sample_groups_by_rejection(setup.target, setup.law.exact_parameter, setup.group_of_cell,
                                                 setup.n_groups, setup.structure == "partition",
                                                 strict ? kCongenialRejectionBudget : kCongenialAutoBudget,
                                                 setup.total_samplers, rng, interrupts, y, proposals);
  if (strict) {
    if (!failed.empty())
      throw OutOfRange("the rejection sampler exceeded its proposal budget",
                       "A group exhausted its budget of at least " + std::to_string(kCongenialRejectionBudget) +
                           " proposals (more when its estimated acceptance is lower).",
                       "Omit the sampler option (the default falls back to MCMC) or use \"lattice\".");
    report.sampler = "exact: rejection per margin group; each cell's noise drawn exactly from an exponentially "
                     "tilted discrete Laplace truncated at the cell's non-negativity bound, one cell closing the group "
                     "sum and accepted with its exact probability ratio";
    report.iterations = 0;
    report.acceptance = acceptance(setup.target.n_cells() ? setup.n_groups : 0, proposals);
    return y;
  }
  report.sampler = "exact rejection per margin group (tilted truncated discrete Laplace proposals, one cell closing "
                   "the group sum; at least " + std::to_string(kCongenialAutoBudget) +
                   " proposals, more when the estimated acceptance is lower), groups that exhaust it finished by "
                   "the lattice walk; whether that happened is not published (its probability depends on the data)";
  report.iterations = setup.iterations;
  if (!failed.empty()) {
    if (setup.moves.empty()) setup.moves = walk_moves(setup, nullptr, interrupts);
    if (!setup.completion) setup.completion = try_completion(setup.target.invariants);
    SamplerReport walk_report;
    y = run_walk(setup, std::move(y), rng, interrupts, walk_report);
  }
  return y;
}

void release_congenial(const std::int64_t* counts, const ReleaseRequest& request, const InvariantModel& model,
                       RandomSource& rng, const Interrupts& interrupts, ReleaseResult& result, NoiseLaw& law,
                       SamplerReport& report) {
  CongenialSetup setup = prepare_congenial(counts, request, model, interrupts);
  result.integer_output = true;
  result.integer_values = draw_congenial(setup, rng, interrupts, report);
  law = setup.law;
  // The sd of the same noise without non-negativity: data-independent, so
  // publishable (the truncated law's sd depends on the data).
  const std::size_t d = model.n_cells();
  result.noise_sd.assign(d, std::sqrt(law.unit_variance));
  if (setup.structure == "partition") {
    std::vector<std::size_t> size(setup.n_groups, 0);
    for (auto g : setup.group_of_cell) ++size[g];
    for (std::size_t i = 0; i < d; ++i)
      result.noise_sd[i] = std::sqrt(conditioned_laplace_variance(law.exact_parameter, size[setup.group_of_cell[i]]));
    report.stddev = "exact sd of the noise without non-negativity";
  } else if (setup.structure != "none") {
    const auto diagonal = model.null_projector_diagonal();
    for (std::size_t i = 0; i < d; ++i) result.noise_sd[i] = std::sqrt(law.unit_variance * std::max(0.0, diagonal[i]));
    report.stddev = "approximate sd of the noise without non-negativity: unit_variance times the null projector's "
                    "diagonal (exact for Gaussian noise)";
  } else {
    report.stddev = "exact sd of the noise without non-negativity";
  }
}

}  // namespace invariant_dp
