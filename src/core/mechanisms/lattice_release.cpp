#include "lattice_release.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "../errors.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../lattice/lattice_basis_cache.hpp"
#include "../mcmc/chain_model.hpp"
#include "../mcmc/defaults.hpp"
#include "../mcmc/lattice_chain.hpp"
#include "../mcmc/scale_mixture_chain.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

struct ShortestMove {
  double l1 = 0;
  double l2_squared = 0;
};

// The shortest basis vector in each norm: an upper bound of the lattice
// minimum. Without margins the lattice is Z^d, but a person's record moves
// two cells (replace-one): 2 and 2.
ShortestMove shortest_move(const LatticeBasis& basis, bool has_margins) {
  if (!has_margins) return {2, 2};
  ShortestMove shortest{INFINITY, INFINITY};
  for (const LatticeVector& column : basis.columns) {
    double l1 = 0, l2 = 0;
    for (const std::int64_t x : column.value) {
      const double v = double(x);
      l1 += std::abs(v);
      l2 += v * v;
    }
    shortest.l1 = std::min(shortest.l1, l1);
    shortest.l2_squared = std::min(shortest.l2_squared, l2);
  }
  return shortest;
}

// Threads of the pair-block rounds: the backend's own and one helper where
// the machine has a second core (mcmc/worker_threads.hpp says what a helper
// may do in a backend); not more: a backend shares the machine with the
// other backends. The chain's states do not depend on the number.
unsigned table_chain_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 2u); }

mcmc::Target chain_target(mcmc::TargetKind target, const NoiseLaw& law) {
  switch (target) {
    case mcmc::TargetKind::laplace_l2: return mcmc::laplace_l2(1 / law.scale);
    case mcmc::TargetKind::lattice_gaussian: return mcmc::lattice_gaussian(law.exact_parameter.to_double());
    default: return mcmc::laplace_l1(1 / law.scale);
  }
}

// Every basis vector is also proposed alone, once per sweep: local moves mix
// where one joint jump over all vectors is almost always rejected.
mcmc::SamplerConfig chain_config(const ReleaseRequest& request, mcmc::TargetKind target, const NoiseLaw& law,
                                 const LatticeBasis& basis) {
  mcmc::SamplerConfig config;
  config.target = chain_target(target, law);
  config.proposal_a = request.proposal_a > 0 ? request.proposal_a : mcmc::scaled_proposal_a(config.target);
  config.basis_moves = true;
  config.moves_per_iteration = basis.rank();
  config.move_step_a = config.proposal_a;
  return config;
}

// A sweep touches each basis entry about 1.5 times (a joint jump moves the
// ~54% of coordinates with a nonzero step, then one single-vector move per
// basis vector) and draws one step per basis vector; a release runs its
// sweeps, then up to kSdIterations more for the sd estimate, each also
// reading every cell. Refused (54000) when that exceeds kMaxChainWork entry
// updates (about ten minutes here): first before the basis is built, with
// two entries per vector (every nonzero vector of a 0/1 system has at
// least two), then with the basis's own count.
void refuse_long_chain(double entries, std::size_t rank, std::size_t cells, std::uint64_t iterations) {
  const double per_sweep = 1.5 * entries + 2.0 * double(rank) + double(cells);
  const double sweeps = double(iterations) + double(std::min<std::uint64_t>(iterations, kSdIterations));
  if (per_sweep * sweeps > kMaxChainWork)
    throw TooLarge("the lattice chain for this release is too long",
                   "Its " + std::to_string(iterations) + " sweeps over " + std::to_string(rank) +
                       " basis vectors of " + std::to_string(cells) + " cells need about " +
                       std::to_string(std::llround(per_sweep * sweeps)) + " updates, more than the limit of " +
                       std::to_string(std::llround(kMaxChainWork)) + ".",
                   "Release fewer cells, ask for fewer iterations, or use integer_gaussian or a real-valued "
                   "subspace mechanism, which need no chain for these margins.");
}

std::uint64_t chain_iterations(const ReleaseRequest& request, mcmc::TargetKind kind) {
  return request.iterations > 0 ? request.iterations
                                : kDefaultIterationsFactor * mcmc::default_sampler(kind, true).burn_in;
}

// A chain (LatticeChain or TableSwapChain) in chunks of a tenth of its
// sweeps, reporting after each.
template <class Chain>
void run_with_progress(Chain& chain, std::uint64_t iterations, RandomSource& rng, const Interrupts& interrupts) {
  const std::uint64_t chunk = std::max<std::uint64_t>(1, iterations / 10);
  for (std::uint64_t done = 0; done < iterations;) {
    const std::uint64_t step = std::min(chunk, iterations - done);
    chain.run(step, rng, interrupts);
    done += step;
    interrupts.progress("mcmc sweeps", done, iterations);
  }
}

// noisy = counts + z; then `further` more advances of the chain (each one
// sweep or Gibbs iteration) for the sd of each table's noise, pooled over
// its cells (exchangeable under every target: permuting the levels of an
// axis keeps the lattice and the norm).
template <class Chain, class Advance>
void finish_table_release(const std::int64_t* counts, const mcmc::TableMoves& moves, Chain& chain,
                          std::uint64_t further, Advance advance, std::vector<std::int64_t>& noisy,
                          std::vector<double>& noise_sd, SamplerReport& report) {
  const std::size_t n = moves.n_cells();
  const std::vector<std::int64_t> z = chain.z();
  noisy.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    noisy[i] = checked_add(counts[i], z[i], kNoisyCountOutOfRange);
  const std::vector<LatticeTable>& free_tables = moves.tables();
  std::vector<double> squares(free_tables.size(), 0);
  for (std::uint64_t s = 0; s < further; ++s) {
    advance();
    for (std::size_t t = 0; t < free_tables.size(); ++t)
      for (const std::size_t cell : free_tables[t].cells) squares[t] += double(chain.z()[cell]) * double(chain.z()[cell]);
  }
  noise_sd.assign(n, 0.0);  // cells of pinned tables keep their counts
  for (std::size_t t = 0; t < free_tables.size(); ++t) {
    const double sd = std::sqrt(squares[t] / double(further * free_tables[t].cells.size()));
    for (const std::size_t cell : free_tables[t].cells) noise_sd[cell] = sd;
  }
  report.sd_estimated = true;
  report.stddev = "Monte Carlo estimate from the same chain, pooled over the cells of each table (their noise has "
                  "one law)";
}

void refuse_long_table_chain(double steps, std::uint64_t iterations, const char* unit, double per_iteration) {
  if (steps > kMaxTableSteps)
    throw TooLarge("the lattice chain for this release is too long",
                   "Its " + std::to_string(iterations) + " " + unit + " of about " +
                       std::to_string(std::llround(per_iteration)) + " updates need about " +
                       std::to_string(std::llround(steps)) + " steps, more than the limit of " +
                       std::to_string(std::llround(kMaxTableSteps)) + ".",
                   "Release fewer cells, ask for fewer iterations, or use integer_gaussian or a real-valued "
                   "subspace mechanism, which need no chain for these margins.");
}

// integer_laplace_l2: the Gibbs sampler on the scale mixture
// (mcmc/scale_mixture_chain.hpp) for `iterations` iterations, then
// kTableSdSweeps more for the sd. An iteration costs about one update per
// cell (an exact lattice Gaussian).
void release_l2_on_tables(const std::int64_t* counts, const ReleaseRequest& request, const mcmc::TableMoves& moves,
                          const mcmc::SwapChainConfig& config, RandomSource& rng, const Interrupts& interrupts,
                          std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, SamplerReport& report) {
  const std::uint64_t iterations = table_chain_sweeps(request, config);
  refuse_long_table_chain(double(iterations + kTableSdSweeps) * double(moves.n_cells()), iterations,
                          "Gibbs iterations", double(moves.n_cells()));
  report.sampler =
      "mcmc: Gibbs sampler on the Gaussian scale mixture of the l2 law, each iteration an exact lattice Gaussian "
      "draw of every table given a latent variance, started at the latent variance's stationary mean";
  report.iterations = iterations;
  mcmc::ScaleMixtureChain chain(moves, config.target.epsilon);
  chain.start(rng, interrupts);
  const std::uint64_t chunk = std::max<std::uint64_t>(1, iterations / 10);
  for (std::uint64_t done = 0; done < iterations;) {
    const std::uint64_t step = std::min(chunk, iterations - done);
    chain.run(step, rng, interrupts);
    done += step;
    interrupts.progress("mcmc iterations", done, iterations);
  }
  report.acceptance = 1;  // every iteration redraws z
  finish_table_release(counts, moves, chain, kTableSdSweeps, [&] { chain.iterate(rng, interrupts); }, noisy,
                       noise_sd, report);
}

// The table chain from z = 0 for `sweeps` sweeps, then kTableSdSweeps more
// for the pooled sd of each table; integer_laplace_l2 goes to the scale
// mixture.
void release_on_tables(const std::int64_t* counts, const ReleaseRequest& request, const LatticeNoise& noise,
                       const InvariantModel& model, const std::vector<LatticeTable>& tables, RandomSource& rng, const Interrupts& interrupts,
                       std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, NoiseLaw& law,
                       SamplerReport& report) {
  const std::size_t n = model.n_cells();
  const mcmc::TableMoves moves(tables, n);
  law = lattice_noise_law(request, noise.law, moves.shortest_norm(), moves.shortest_norm());
  const mcmc::SwapChainConfig config = table_chain_config(request, noise.target, law, moves);
  if (config.target.kind == mcmc::TargetKind::laplace_l2) {
    release_l2_on_tables(counts, request, moves, config, rng, interrupts, noisy, noise_sd, report);
    return publish_covariance_scale(tables, noise_sd, law, interrupts);
  }
  const std::uint64_t sweeps = table_chain_sweeps(request, config);
  refuse_long_table_chain(double(sweeps + kTableSdSweeps) * double(moves.rank()), sweeps, "sweeps",
                          double(moves.rank()));
  report.sampler = config.pair_blocks
                       ? "mcmc: exact redraws of random pairs of rows and of columns of each two-way table given the "
                         "rest (pair blocks), no basis, started at zero noise"
                       : std::string("mcmc: ") + (config.heat_bath ? "heat-bath" : "Metropolis") +
                             " updates along random basic moves of each complete table (the 2x2 swaps of any two rows "
                             "and columns for a two-way table), no basis, started at zero noise";
  report.iterations = sweeps;
  mcmc::TableSwapChain chain(moves, config);
  run_with_progress(chain, sweeps, rng, interrupts);
  report.acceptance = chain.counts().rate();
  finish_table_release(counts, moves, chain, kTableSdSweeps, [&] { chain.run(1, rng, interrupts); }, noisy,
                       noise_sd, report);
  publish_covariance_scale(tables, noise_sd, law, interrupts);
}

}  // namespace

void publish_covariance_scale(const std::vector<LatticeTable>& tables, const std::vector<double>& noise_sd,
                              NoiseLaw& law, const Interrupts& interrupts) {
  law.covariance_scale.clear();
  std::vector<std::size_t> count;
  for (const LatticeTable& table : tables) {
    if (table.cells.empty() || *std::min_element(table.shape.begin(), table.shape.end()) < 2) continue;
    // The table's cells share one variance under the law; a table chain
    // pooled its sd already, a basis chain's per-cell estimates pool here.
    double variance = 0;
    for (std::size_t k = 0; k < table.cells.size(); ++k) {
      interrupts.poll_every(k);
      variance += noise_sd[table.cells[k]] * noise_sd[table.cells[k]];
    }
    const double c = covariance_scale_of_table(table.shape, variance / double(table.cells.size()));
    std::size_t k = 0;
    // Ends: at most one pass per published shape.
    while (k < law.covariance_scale.size() && law.covariance_scale[k].first != table.shape) ++k;
    if (k == law.covariance_scale.size()) {
      law.covariance_scale.emplace_back(table.shape, 0.0);
      count.push_back(0);
    }
    law.covariance_scale[k].second += (c - law.covariance_scale[k].second) / double(++count[k]);
  }
}

void publish_basis_covariance_scale(const InvariantModel& model, const std::vector<double>& noise_sd, NoiseLaw& law,
                                    const Interrupts& interrupts) {
  const std::string structure = model.structure();
  if (structure == "partition") {
    // Each margin group is a one-axis table of its cells.
    const std::uint32_t* group = model.partition_groups();
    std::vector<LatticeTable> groups(model.rank());
    for (std::size_t i = 0; i < model.n_cells(); ++i) {
      interrupts.poll_every(i);
      groups[group[i]].cells.push_back(i);
    }
    for (LatticeTable& g : groups) g.shape = {g.cells.size()};
    return publish_covariance_scale(groups, noise_sd, law, interrupts);
  }
  if (structure != "general") return publish_covariance_scale(model.lattice_tables(), noise_sd, law, interrupts);
  law.covariance_scale.clear();
  if (model.null_dimension() == 0) return;
  double variance = 0;
  for (std::size_t i = 0; i < noise_sd.size(); ++i) {
    interrupts.poll_every(i);
    variance += noise_sd[i] * noise_sd[i];
  }
  law.covariance_scale.emplace_back(std::vector<std::size_t>{}, variance / double(model.null_dimension()));
}

std::vector<LatticeTable> chain_tables(const InvariantModel& model) {
  std::vector<LatticeTable> tables = model.lattice_tables();
  for (const LatticeTable& table : tables)
    if (table.shape.size() > mcmc::kMaxTableAxes) return {};
  return tables;
}

mcmc::SwapChainConfig table_chain_config(const ReleaseRequest& request, mcmc::TargetKind target,
                                         const NoiseLaw& law, const mcmc::TableMoves& moves) {
  mcmc::SwapChainConfig config;
  config.target = chain_target(target, law);
  config.heat_bath = config.target.kind == mcmc::TargetKind::laplace_l1;
  config.pair_blocks = config.heat_bath && moves.two_way();
  if (config.pair_blocks) config.threads = table_chain_threads();
  if (request.proposal_a > 0) config.step_a = request.proposal_a;
  return config;
}

std::uint64_t table_chain_sweeps(const ReleaseRequest& request, const mcmc::SwapChainConfig& config) {
  if (request.iterations > 0) return request.iterations;
  if (config.target.kind == mcmc::TargetKind::laplace_l2) return kTableScaleMixtureIterations;
  if (config.pair_blocks) return kTablePairBlockSweeps;
  return config.heat_bath ? kTableHeatBathSweeps : kTableMetropolisSweeps;
}

LatticeSetup prepare_lattice(const ReleaseRequest& request, const LatticeNoise& noise, const InvariantModel& model,
                             const Interrupts& interrupts) {
  LatticeSetup setup;
  setup.iterations = chain_iterations(request, noise.target);
  refuse_long_chain(2.0 * double(model.null_dimension()), model.null_dimension(), model.n_cells(), setup.iterations);
  setup.basis = *kept_invariant_lattice_basis(model.independent_rows(), interrupts);
  const ShortestMove move = shortest_move(setup.basis, !request.margins.empty());
  setup.law = lattice_noise_law(request, noise.law, move.l1, move.l2_squared);
  double entries = 0;
  for (const LatticeVector& column : setup.basis.columns) entries += double(column.index.size());
  refuse_long_chain(entries, setup.basis.rank(), setup.basis.dimension, setup.iterations);
  const mcmc::SamplerConfig config = chain_config(request, noise.target, setup.law, setup.basis);
  setup.chain_model = std::make_unique<mcmc::ChainModel>(setup.basis, config, interrupts);
  return setup;
}

void release_on_lattice(const std::int64_t* counts, const ReleaseRequest& request, const LatticeNoise& noise,
                        const InvariantModel& model,
                        RandomSource& rng, const Interrupts& interrupts, std::vector<std::int64_t>& noisy,
                        std::vector<double>& noise_sd, NoiseLaw& law, SamplerReport& report) {
  const std::vector<LatticeTable> tables = chain_tables(model);
  if (!tables.empty())
    return release_on_tables(counts, request, noise, model, tables, rng, interrupts, noisy, noise_sd, law, report);
  const LatticeSetup setup = prepare_lattice(request, noise, model, interrupts);
  law = setup.law;
  report.sampler = "mcmc: Gibbs-within-Metropolis on an LLL-reduced lattice basis with single-vector moves "
                   "(integer_subspace_dp Algorithm 1), started from the symmetric proposal law";
  report.iterations = setup.iterations;
  mcmc::LatticeChain chain(*setup.chain_model);
  chain.reset_from_proposal(rng);
  run_with_progress(chain, report.iterations, rng, interrupts);
  const std::vector<std::int64_t> z = chain.z();
  report.acceptance = chain.acceptance().move_rate();

  const std::size_t n = model.n_cells();
  noisy.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    noisy[i] = checked_add(counts[i], z[i], kNoisyCountOutOfRange);

  // The chain continues past the released state to estimate each cell's
  // noise variance (the law is symmetric, so E z = 0).
  std::vector<double> squares(n, 0);
  const std::uint64_t estimate_iterations = std::min<std::uint64_t>(report.iterations, kSdIterations);
  for (std::uint64_t t = 0; t < estimate_iterations; ++t) {
    setup.chain_model->poll_at(t, interrupts);
    chain.iterate(rng);
    for (std::size_t i = 0; i < n; ++i) squares[i] += double(chain.z()[i]) * double(chain.z()[i]);
  }
  noise_sd.resize(n);
  for (std::size_t i = 0; i < n; ++i) noise_sd[i] = std::sqrt(squares[i] / double(estimate_iterations));
  report.sd_estimated = true;
  if (noise.target != mcmc::TargetKind::lattice_gaussian) publish_basis_covariance_scale(model, noise_sd, law, interrupts);
}

}  // namespace invariant_dp
