// The congenial mechanism (congenial_dp, Gong and Meng 2020; DESIGN.md):
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
// Samplers (options {"sampler": ...}), every chain started at a table
// computed from the public totals only (congenial/public_start.hpp):
//   "rejection": exact, per group (congenial/group_rejection.hpp: tilted
//       truncated discrete Laplace proposals, one cell closing the group
//       sum); one margin (a partition) or none; per group max(10^6, 50 /
//       estimated acceptance) proposals (the second term dropped above 2^24
//       cell draws), then an error;
//   "mis": the paper's Algorithm 1 (congenial/independence_sampler.hpp),
//       `iterations` proposals (default 200000);
//   "lattice": margin-preserving lattice moves restricted to y >= 0 plus one
//       independence proposal per sweep (congenial/lattice_walk.hpp),
//       `iterations` sweeps (default 2000);
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
#include <memory>
#include <string>
#include <vector>

#include "../congenial/congenial_target.hpp"
#include "../congenial/group_rejection.hpp"
#include "../congenial/unimodular_completion.hpp"
#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../mcmc/chain_model.hpp"
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
  std::vector<std::int64_t> start;          // from the public totals only
  std::unique_ptr<UnimodularCompletion> completion;  // null if the margins have none
  std::vector<mcmc::SparseVector> moves;    // lattice walk moves (filled when needed)
  std::vector<std::uint32_t> group_of_cell;  // partitions and no margin
  std::size_t n_groups = 0;
  CompositionSamplers total_samplers;        // rejection proposals, built on first use
  std::uint64_t iterations = 0;             // MIS steps or walk sweeps
  double proposal_a = 0;                    // the independence proposal's a~
};

constexpr std::uint64_t kCongenialWalkSweeps = 2000;
constexpr std::uint64_t kCongenialMisSteps = 200000;
constexpr std::uint64_t kCongenialAutoBudget = 4096;
constexpr std::uint64_t kCongenialRejectionBudget = 1000000;

// Everything a draw needs; counts has model.n_cells() entries.
CongenialSetup prepare_congenial(const std::int64_t* counts, const ReleaseRequest& request,
                                 const InvariantModel& model, const Interrupts& interrupts);

// One release's table; fills the sampler report (method, exact, iterations,
// acceptance).
std::vector<std::int64_t> draw_congenial(CongenialSetup& setup, RandomSource& rng, const Interrupts& interrupts,
                                         SamplerReport& report);

void release_congenial(const std::int64_t* counts, const ReleaseRequest& request, const InvariantModel& model,
                       RandomSource& rng, const Interrupts& interrupts, ReleaseResult& result, NoiseLaw& law,
                       SamplerReport& report);

}  // namespace invariant_dp
