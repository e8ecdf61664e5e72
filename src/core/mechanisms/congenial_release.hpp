// The congenial mechanism (Gong, Meng 2020, "Congenial Differential Privacy
// under Mandated Disclosure", arXiv:2008.10202; README.md, the `congenial`
// row of the mechanism table):
//   y ~ pi(y)  proportional to  exp(-|y - x|_1 / b)  on
//       S* = {y in Z^d : every declared margin of y equals that of x, y >= 0}.
// Integer, non-negative, every margin exact.
//
// Neighbouring relation and accounting. Protected pairs are databases that
// agree on every declared margin and whose tables differ by one shortest
// protected move v (replace-one: a record moving between two cells of a
// group, |v|_1 = 2; crossing margins: a 2x2 swap, |v|_1 = 4; the shortest
// lattice basis vector is used, an upper bound on the lattice minimum). The
// unconstrained discrete Laplace with b = |v|_1 / (epsilon / 2) is
// (epsilon/2)-DP for them; conditioning on S*, which depends on the data
// through the margins AND through the orthant's position relative to x,
// costs at most a factor 1 + gamma <= 2 (Theorem 2.1 with gamma = 1), so the
// release is epsilon-DP for those pairs. The margins are disclosed exactly.
//
// Samplers (options {"sampler": ...}); the chains start where the target's
// mass is (congenial/chain_starts.hpp): MIS and the lattice walk at the
// non-negative table with the declared totals nearest a noisy copy of the
// data (the base mechanism, private on its own), the table chain at a table
// near the independence table of the public totals:
//   "rejection": exact, per group (congenial/group_rejection.hpp: tilted
//       truncated discrete Laplace proposals, one cell closing the group
//       sum); one margin (a partition) or none; per group max(10^6, 50 /
//       estimated acceptance) proposals (the second term dropped above 2^24
//       cell draws), then an error;
//   "mis": the paper's Algorithm 1 (congenial/independence_sampler.hpp),
//       `iterations` proposals (default 200000);
//   "lattice": margin-preserving lattice moves restricted to y >= 0 plus one
//       independence proposal per sweep (congenial/lattice_walk.hpp),
//       `iterations` sweeps (default 2000); on complete two-way tables
//       instead the table chain (mcmc/table_swap_chain.hpp): heat-bath along
//       random 2x2 swaps, each step drawn exactly from the target's law on
//       the swap's line within y >= 0 (the swaps are a Markov basis of the
//       non-negative tables with these margins), started at a table near
//       the independence table of the public totals, kCongenialTableSweeps
//       sweeps;
//   "auto" (default): partitions and no margin use per-group rejection with
//       max(4096, 50 / estimated acceptance) proposals per group (the
//       second term dropped above 2^24 cell draws), and any group that
//       exhausts them is
//       finished by the lattice walk; other margins use the lattice walk.
//       Whether a fallback happened is NOT published: its probability depends
//       on the data (a group's acceptance P(x_g + Z >= 0)), so the metadata
//       names the policy and says exact = false.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../congenial/congenial_target.hpp"
#include "../congenial/group_rejection.hpp"
#include "../congenial/unimodular_completion.hpp"
#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../mcmc/chain_model.hpp"
#include "../mcmc/table_swap_chain.hpp"
#include "../random_source.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "release.hpp"

namespace invariant_dp {

struct CongenialSetup {
  CongenialTarget target;
  NoiseLaw law;
  std::string structure;                    // the model's: none, partition, two_way, general
  std::string sampler;                      // resolved: rejection, mis, lattice, auto
  std::vector<std::int64_t> start;          // the table chain's, and the rejection's fill: public totals only
  std::unique_ptr<UnimodularCompletion> completion;  // null if the margins have none
  std::vector<mcmc::SparseVector> moves;    // lattice walk moves (filled when needed)
  std::unique_ptr<mcmc::TableMoves> table_moves;  // complete two-way tables: the table chain instead
  // Every table two-line (2 x n or n x 2): the exact rejection sampler of
  // congenial/two_line_congenial.hpp applies (sampler "rejection").
  std::vector<LatticeTable> two_line_tables;
  std::vector<std::uint32_t> group_of_cell;  // partitions and no margin
  std::size_t n_groups = 0;
  CompositionSamplers total_samplers;        // rejection proposals, built on first use
  std::uint64_t iterations = 0;             // MIS steps or walk sweeps
  double proposal_a = 0;                    // the independence proposal's a~
};

constexpr std::uint64_t kCongenialWalkSweeps = 2000;
// From the proportional start, ||y - x||_1 reaches its stationary level
// within 10 sweeps on smooth 300 x 300 tables and within about 40 on sparse
// ones (two thirds of the cells 0), at epsilon = 1 (test/bench/README.md,
// "Table chain"): ten times the slower.
constexpr std::uint64_t kCongenialTableSweeps = 400;
constexpr std::uint64_t kCongenialMisSteps = 200000;
constexpr std::uint64_t kCongenialAutoBudget = 4096;
constexpr std::uint64_t kCongenialRejectionBudget = 1000000;

// Discrete Laplace at epsilon/2 for moves of l1 norm `shortest_l1` (the
// shortest protected move; a unit's change when longer), so that the
// conditioned release is epsilon-DP.
NoiseLaw congenial_noise_law(const ReleaseRequest& request, double shortest_l1);

// Everything a draw needs; counts has model.n_cells() entries.
CongenialSetup prepare_congenial(const std::int64_t* counts, const ReleaseRequest& request,
                                 const InvariantModel& model, const Interrupts& interrupts);

// The table chain of congenial on complete two-way tables: z = y - x >= -x
// at the given rate (setup.target.inverse_scale, or a flatter one for
// over-dispersed starts), from the table `start`, for `sweeps` sweeps;
// `after_sweep` (may be empty) sees the chain after each. Returns y.
std::vector<std::int64_t> run_congenial_table_chain(
    const CongenialSetup& setup, double inverse_scale, const std::vector<std::int64_t>& start, std::uint64_t sweeps,
    RandomSource& rng, const Interrupts& interrupts, double* moved_rate,
    const std::function<void(const mcmc::TableSwapChain&)>& after_sweep = {});

// One release's table; fills the sampler report (method, exact, iterations,
// acceptance).
std::vector<std::int64_t> draw_congenial(CongenialSetup& setup, RandomSource& rng, const Interrupts& interrupts,
                                         SamplerReport& report);

void release_congenial(const std::int64_t* counts, const ReleaseRequest& request, const InvariantModel& model,
                       RandomSource& rng, const Interrupts& interrupts, ReleaseResult& result, NoiseLaw& law,
                       SamplerReport& report);

}  // namespace invariant_dp
