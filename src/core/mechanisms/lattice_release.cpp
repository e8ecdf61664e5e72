#include "lattice_release.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../errors.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../mcmc/chain_model.hpp"
#include "../mcmc/defaults.hpp"
#include "../mcmc/lattice_chain.hpp"

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
  for (std::size_t j = 0; j < basis.rank; ++j) {
    double l1 = 0, l2 = 0;
    for (std::size_t i = 0; i < basis.dimension; ++i) {
      const double v = double(basis.column(j)[i]);
      l1 += std::abs(v);
      l2 += v * v;
    }
    shortest.l1 = std::min(shortest.l1, l1);
    shortest.l2_squared = std::min(shortest.l2_squared, l2);
  }
  return shortest;
}

mcmc::Target chain_target(const ReleaseRequest& request, const NoiseLaw& law) {
  switch (request.mechanism->mechanism) {
    case Mechanism::IntegerLaplaceL2: return mcmc::laplace_l2(1 / law.scale);
    case Mechanism::IntegerGaussian: return mcmc::lattice_gaussian(law.exact_parameter.to_double());
    default: return mcmc::laplace_l1(1 / law.scale);
  }
}

// Every basis vector is also proposed alone, once per sweep: local moves mix
// where one joint jump over all vectors is almost always rejected.
mcmc::SamplerConfig chain_config(const ReleaseRequest& request, const NoiseLaw& law, const LatticeBasis& basis) {
  mcmc::SamplerConfig config;
  config.target = chain_target(request, law);
  config.proposal_a =
      request.proposal_a > 0 ? request.proposal_a : mcmc::default_sampler(config.target.kind, true).proposal_a;
  for (std::size_t j = 0; j < basis.rank; ++j) {
    mcmc::SparseVector move;
    for (std::size_t i = 0; i < basis.dimension; ++i)
      if (basis.column(j)[i] != 0) {
        move.index.push_back(static_cast<std::uint32_t>(i));
        move.value.push_back(basis.column(j)[i]);
      }
    config.moves.push_back(std::move(move));
  }
  config.moves_per_iteration = basis.rank;
  config.move_step_a = config.proposal_a;
  return config;
}

// The chain in chunks of a tenth of its sweeps, reporting after each.
void run_with_progress(mcmc::LatticeChain& chain, std::uint64_t iterations, RandomSource& rng,
                       const Interrupts& interrupts) {
  const std::uint64_t chunk = std::max<std::uint64_t>(1, iterations / 10);
  for (std::uint64_t done = 0; done < iterations;) {
    const std::uint64_t step = std::min(chunk, iterations - done);
    chain.run(step, rng, interrupts);
    done += step;
    interrupts.progress("mcmc sweeps", done, iterations);
  }
}

}  // namespace

LatticeSetup prepare_lattice(const ReleaseRequest& request, const InvariantModel& model,
                             const Interrupts& interrupts) {
  LatticeSetup setup;
  setup.basis = invariant_lattice_basis(model.independent_rows(), interrupts);
  const ShortestMove move = shortest_move(setup.basis, !request.margins.empty());
  setup.law = lattice_noise_law(request, move.l1, move.l2_squared);
  setup.chain_model = std::make_unique<mcmc::ChainModel>(setup.basis, chain_config(request, setup.law, setup.basis));
  setup.iterations = request.iterations > 0 ? request.iterations
                                            : kDefaultIterationsFactor *
                                                  mcmc::default_sampler(setup.chain_model->config().target.kind, true).burn_in;
  return setup;
}

void release_on_lattice(const std::int64_t* counts, const ReleaseRequest& request, const InvariantModel& model,
                        RandomSource& rng, const Interrupts& interrupts, std::vector<std::int64_t>& noisy,
                        std::vector<double>& noise_sd, NoiseLaw& law, SamplerReport& report) {
  const LatticeSetup setup = prepare_lattice(request, model, interrupts);
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
    if (__builtin_add_overflow(counts[i], z[i], &noisy[i])) throw OutOfRange("noisy count out of range for bigint");

  // The chain continues past the released state to estimate each cell's
  // noise variance (the law is symmetric, so E z = 0).
  std::vector<double> squares(n, 0);
  const std::uint64_t estimate_iterations = std::min<std::uint64_t>(report.iterations, 20000);
  for (std::uint64_t t = 0; t < estimate_iterations; ++t) {
    interrupts.poll_every(t);
    chain.iterate(rng);
    for (std::size_t i = 0; i < n; ++i) squares[i] += double(chain.z()[i]) * double(chain.z()[i]);
  }
  noise_sd.resize(n);
  for (std::size_t i = 0; i < n; ++i) noise_sd[i] = std::sqrt(squares[i] / double(estimate_iterations));
  report.sd_estimated = true;
}

}  // namespace invariant_dp
