#include "lattice_walk.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "../errors.hpp"
#include "../mcmc/lattice_chain.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

std::int64_t l1_norm(const mcmc::SparseVector& v) {
  std::int64_t s = 0;
  for (auto x : v.value) s += std::llabs(x);
  return s;
}

mcmc::SparseVector combine(const mcmc::SparseVector& a, const mcmc::SparseVector& b, std::int64_t sign) {
  std::map<std::uint32_t, std::int64_t> sum;
  for (std::size_t k = 0; k < a.index.size(); ++k) sum[a.index[k]] += a.value[k];
  for (std::size_t k = 0; k < b.index.size(); ++k) sum[b.index[k]] += sign * b.value[k];
  mcmc::SparseVector out;
  for (const auto& [i, v] : sum)
    if (v != 0) {
      out.index.push_back(i);
      out.value.push_back(v);
    }
  return out;
}

// |s| = 1 + Geometric(1/2) from fair bits, sign from one more fair bit.
std::int64_t step_size(RandomSource& rng) {
  std::int64_t magnitude = 1;
  // Ends: at most 63 passes.
  while (magnitude < 64 && rng.fair_bit()) ++magnitude;
  return rng.fair_bit() ? magnitude : -magnitude;
}

}  // namespace

std::vector<mcmc::SparseVector> lattice_walk_moves(const LatticeBasis& basis, const Interrupts& interrupts) {
  std::vector<mcmc::SparseVector> moves;
  std::int64_t longest = 0;
  for (const LatticeVector& column : basis.columns) {
    moves.push_back(column);
    longest = std::max(longest, l1_norm(moves.back()));
  }
  std::size_t examined = 0;
  for (std::size_t i = 0; i < basis.rank() && examined < kMaxPairMoves; ++i)
    for (std::size_t j = i + 1; j < basis.rank() && examined < kMaxPairMoves; ++j, ++examined) {
      interrupts.poll_every(examined);
      for (std::int64_t sign : {1, -1}) {
        mcmc::SparseVector c = combine(moves[i], moves[j], sign);
        if (!c.index.empty() && l1_norm(c) <= longest) moves.push_back(std::move(c));
      }
    }
  return moves;
}

LatticeWalk::LatticeWalk(const CongenialTarget& target, const std::vector<mcmc::SparseVector>& moves,
                         IndependenceSampler* independence, std::vector<std::int64_t> start)
    : target_(&target), moves_(&moves), independence_(independence), y_(std::move(start)) {
  if (y_.size() != target.n_cells()) throw Error("the lattice walk's start does not fit its table");
}

const std::vector<std::int64_t>& LatticeWalk::state() const { return y_; }

bool LatticeWalk::try_move(const mcmc::SparseVector& move, std::int64_t s, RandomSource& rng) {
  ++proposed_;
  double delta = 0;
  for (std::size_t k = 0; k < move.index.size(); ++k) {
    const std::uint32_t i = move.index[k];
    // A cell near 2^63 (no margin bounds it) can be moved out of bigint.
    const std::int64_t next = checked_add(y_[i], checked_mul(s, move.value[k]), kNoisyCountOutOfRange);
    if (next < 0) return false;
    delta += double(std::llabs(next - target_->center[i]) - std::llabs(y_[i] - target_->center[i]));
  }
  if (!mcmc::metropolis_accepts(-target_->inverse_scale * delta, rng.uniform_open01())) return false;
  for (std::size_t k = 0; k < move.index.size(); ++k) y_[move.index[k]] += s * move.value[k];  // checked above
  ++accepted_;
  return true;
}

void LatticeWalk::sweep(RandomSource& rng) {
  for (const auto& move : *moves_) try_move(move, step_size(rng), rng);
  if (independence_ != nullptr) {
    // The independence sampler keeps its own state: hand it ours, let it
    // propose once, take its state back.
    independence_->reset(y_);
    independence_->step(rng);
    y_ = independence_->state();
  }
}

}  // namespace invariant_dp
