// The better congenial sampler (ours; Gong, Meng 2020 use only the
// independence sampler): a Metropolis random walk on S* with
// margin-preserving moves y -> y + s m (Markov-basis moves in the sense of
// Diaconis, Sturmfels 1998, Ann. Statist. 26(1)), m from the LLL-reduced
// basis of the invariant lattice
// {z in Z^d : A_r z = 0} (src/core/lattice) and the short sums and
// differences of pairs of basis vectors (these include the 2x2 swaps of a
// two-way table, a Markov basis of its fibres), s = +-(1 + Geometric(1/2))
// with a fair sign, so every proposal is symmetric and the acceptance is
//   min{1, exp(-(|y' - x|_1 - |y - x|_1)/b)} * 1(y' >= 0),
// computed on the move's support only. One sweep proposes every move once,
// in order, then (when the margins admit a unimodular completion) one
// independence proposal of Algorithm 1, which reaches every table of S* in
// one step and so makes the chain irreducible even where local moves alone
// would not connect a fibre. Starts at a noisy table (chain_starts.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../mcmc/chain_model.hpp"
#include "../random_source.hpp"
#include "congenial_target.hpp"
#include "independence_sampler.hpp"

namespace invariant_dp {

// Basis vectors plus every b_i +- b_j whose l1 norm is at most the largest
// basis vector's (capped at kMaxPairMoves pairs examined).
std::vector<mcmc::SparseVector> lattice_walk_moves(const LatticeBasis& basis, const Interrupts& interrupts);

class LatticeWalk {
 public:
  // independence may be null (no unimodular completion). The target, moves
  // and sampler must outlive the walk.
  LatticeWalk(const CongenialTarget& target, const std::vector<mcmc::SparseVector>& moves,
              IndependenceSampler* independence, std::vector<std::int64_t> start);
  void sweep(RandomSource& rng);
  const std::vector<std::int64_t>& state() const;
  std::uint64_t proposed() const { return proposed_; }
  std::uint64_t accepted() const { return accepted_; }

 private:
  bool try_move(const mcmc::SparseVector& move, std::int64_t s, RandomSource& rng);

  const CongenialTarget* target_;
  const std::vector<mcmc::SparseVector>* moves_;
  IndependenceSampler* independence_;
  std::vector<std::int64_t> y_;
  std::uint64_t proposed_ = 0, accepted_ = 0;
};

constexpr std::size_t kMaxPairMoves = 200000;

}  // namespace invariant_dp
