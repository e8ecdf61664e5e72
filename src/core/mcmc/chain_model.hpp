// The fixed, shared part of a lattice MCMC sampler (Dharangutte, Gao, Gong,
// Yu 2023, arXiv:2212.00936, Section 4 and Appendix D.1): the target, the
// basis of Lambda_A as sparse columns (the paper's C_A, the last d-k columns
// of V, Proposition 8), the double-geometric parameter a of Eq. 11, and
// optional extra "moves": sparse integer vectors of Lambda_A
// (e.g. the +-1 2x2 swaps of a two-way table) proposed as symmetric random
// walk steps z -> z + s m with s symmetric, so Metropolis acceptance keeps
// the target exact. Each move also carries its coordinates in the basis, so
// chains can keep lattice coordinates v (z = B v) that Algorithm 2 couples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../lattice/lattice_basis.hpp"
#include "double_geometric.hpp"
#include "targets.hpp"

namespace invariant_dp::mcmc {

using SparseVector = LatticeVector;

struct SamplerConfig {
  Target target;
  double proposal_a = 0.36787944117144233;  // e^-1, the paper's l1 choice
  std::vector<SparseVector> moves;           // extra moves, each in Lambda_A
  // Also propose every basis vector alone as an extra move (after `moves`):
  // its coordinates are a unit vector, so no Gram matrix is needed.
  bool basis_moves = false;
  std::size_t moves_per_iteration = 0;       // extra-move proposals after each sweep
  double move_step_a = 0;                    // |s| = 1 + Geometric(move_step_a); 0: |s| = 1
};

class ChainModel {
 public:
  // Throws InvalidArgument on an empty basis, bad parameters, or a move that
  // is not an integer combination of the basis (i.e. not in Lambda_A);
  // TooLarge when explicit moves would need a Gram matrix of more than
  // kMaxGramRank^2 entries. Polls between columns and moves.
  ChainModel(const LatticeBasis& basis, SamplerConfig config, const Interrupts& interrupts = {});

  std::size_t dimension() const { return dimension_; }
  std::size_t rank() const { return columns_.size(); }
  const SamplerConfig& config() const { return config_; }
  const DoubleGeometric& step_law() const { return step_law_; }
  const SparseVector& column(std::size_t j) const { return columns_[j]; }
  std::size_t move_count() const { return moves_.size(); }
  const SparseVector& move(std::size_t k) const {
    return k < config_.moves.size() ? config_.moves[k] : columns_[k - config_.moves.size()];
  }
  const SparseVector& move_coordinates(std::size_t k) const { return moves_[k]; }
  // Polls when sweep number `sweep` is due: a sweep costs about rank +
  // moves_per_iteration proposals, so a poll comes every few thousand
  // proposals whatever the table's size.
  void poll_at(std::uint64_t sweep, const Interrupts& interrupts) const {
    interrupts.poll_scaled(sweep, rank() + config_.moves_per_iteration);
  }
  // |s| of an extra move: 1, or 1 + Geometric(move_step_a).
  std::int64_t move_magnitude(RandomSource& rng) const;

 private:
  std::size_t dimension_;
  SamplerConfig config_;
  DoubleGeometric step_law_;
  std::vector<SparseVector> columns_;
  std::vector<SparseVector> moves_;  // basis coordinates of every extra move
};

// All 2x2 swaps +1 at (i,j),(i',j'), -1 at (i,j'),(i',j) of a rows x cols
// table stored row-major: the minimal moves that keep both margins (the
// Markov basis of the two-way independence model).
std::vector<SparseVector> two_way_swap_moves(std::size_t rows, std::size_t cols);

// Explicit moves are located in the basis through the dense m x m Gram
// matrix; beyond this rank only basis_moves are accepted.
constexpr std::size_t kMaxGramRank = 4000;

}  // namespace invariant_dp::mcmc
