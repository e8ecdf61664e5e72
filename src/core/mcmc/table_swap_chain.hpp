// A Markov chain on the integer noise of complete K-way tables with all
// their (K-1)-way margins (two-way tables with both margins, K = 2), for the
// Laplace-family targets (integer_subspace_dp digest, section 3) when the
// margins cross. It never builds a basis: its moves are the basic moves of
// the table, drawn on the fly,
//   m = sum over subsets S of the axes of (-1)^|S| e[c_S],
// where each axis k has two distinct levels a_k != b_k drawn uniformly and
// c_S takes b_k on the axes in S and a_k elsewhere (for K = 2: the 2x2
// swap +1 at (i,j), (i',j'), -1 at (i,j'), (i',j), any pair of rows and
// any pair of columns). Every (K-1)-way margin of m is zero, and the
// adjacent basic moves already form a basis of the invariant lattice (the
// basis of table_release.hpp), so the moves reach every lattice point.
//
// One step draws a table (with probability proportional to its lattice
// rank prod (n_k - 1)), a move m, and resamples t in z + t m:
//  - heat-bath (l1 target only): t from its exact conditional law
//    P(t) ∝ exp(-eps sum_k |z_k + s_k t|) (laplace_line.hpp);
//  - Metropolis (any target): t from the symmetric double-geometric law
//    (double_geometric.hpp), accepted with prob. min(1, q(z + t m) / q(z)).
// The move law does not depend on z and both updates leave q invariant
// along the line, so each step is reversible w.r.t. q. A sweep is `rank`
// steps (each cell is touched 2^K rank / cells ~ 2^K times), O(cells) work.
//
// Coupling (Biswas, Jacob and Vanetti 2019; digest 4.4-4.6): both chains
// use the same move. Heat-bath: both steps are the quantile of the same
// uniform under each chain's conditional law; when the chains differ on the
// move's cells by a multiple of the move, the two laws are shifts of each
// other and the steps land on the same point, and otherwise they stay close
// (a maximal coupling of the two laws, tried first, met far less often:
// its failures throw the chains apart). Metropolis: the steps are maximally
// coupled after a shift by the value of s_k (y_k - x_k) most touched cells
// share, and one uniform serves both tests. Equal chains stay equal.
// Measured (test/bench/README.md): the pairs meet within tens of sweeps on
// 4 x 4 tables but not within 2e5 sweeps from 8 x 8 on: near meeting, the
// difference is a few +-1 cells that wander instead of vanishing. The
// coupling bound is therefore a check for small tables only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "coupling.hpp"
#include "double_geometric.hpp"
#include "laplace_line.hpp"
#include "targets.hpp"

namespace invariant_dp::mcmc {

// A move of a K-way table touches 2^K cells: K <= 6 (kMaxLinePoints).
constexpr std::size_t kMaxTableAxes = 6;

struct SwapMove {
  std::size_t size = 0;
  std::array<std::uint32_t, kMaxLinePoints> cell{};
  std::array<std::int8_t, kMaxLinePoints> sign{};
};

class TableMoves {
 public:
  // Tables whose lattice rank is 0 (an axis of one level) are pinned and
  // skipped. InvalidArgument when a table has more than kMaxTableAxes axes or refers to
  // a cell outside [0, n_cells), or when no table has a free cell.
  TableMoves(const std::vector<LatticeTable>& tables, std::size_t n_cells);

  std::size_t n_cells() const { return n_cells_; }
  // dim of the lattice: the sum of the tables' ranks, steps in one sweep.
  std::uint64_t rank() const { return total_rank_; }
  // ||m||_1 = ||m||_2^2 = 2^K of the shortest nonzero lattice vector (the
  // smallest K among the tables).
  double shortest_norm() const { return shortest_; }
  void draw(RandomSource& rng, SwapMove& move) const;
  // The tables with a free cell, in the given order.
  const std::vector<LatticeTable>& tables() const { return tables_; }

 private:
  std::vector<LatticeTable> tables_;
  std::vector<std::vector<std::size_t>> strides_;
  // Per table, the cell of position 0 when positions map to consecutive
  // cells (a table released alone), else -1: saves a random read per cell
  // of each move, which at a million cells is a cache miss.
  std::vector<std::int64_t> contiguous_from_;
  std::vector<std::uint64_t> cumulative_rank_;
  std::uint64_t total_rank_ = 0;
  std::size_t n_cells_;
  double shortest_ = 0;
};

struct SwapChainConfig {
  Target target;
  bool heat_bath = true;                       // l1 only; else Metropolis
  double step_a = 0.36787944117144233;         // Metropolis step law, e^-1
};

struct SwapCounts {
  std::uint64_t proposed = 0, moved = 0;  // steps, and steps that changed z
  double rate() const { return proposed ? double(moved) / double(proposed) : 0; }
};

class TableSwapChain {
 public:
  // The moves must outlive the chain. Starts at z = 0. `floors` (empty, or
  // one per cell, each <= 0) restricts the chain to z >= floors: congenial's
  // y = x + z >= 0 with floors -x. The basic moves of a two-way table are a
  // Markov basis of its non-negative tables with fixed margins (Diaconis
  // and Sturmfels 1998), so the restricted chain still reaches every state;
  // with more axes they are not, and floors are refused (InvalidArgument).
  TableSwapChain(const TableMoves& moves, SwapChainConfig config, std::vector<std::int64_t> floors = {});

  void reset_zero();
  // Starts at z, which the caller guarantees lies in the tables' lattice
  // (every (K-1)-way margin zero); InvalidArgument on a wrong length or
  // below the floors.
  void reset_to(const std::vector<std::int64_t>& z);
  void step(RandomSource& rng);
  void sweep(RandomSource& rng);
  // Polls at least every 4096 steps; draws moves a few steps ahead.
  void run(std::uint64_t sweeps, RandomSource& rng, const Interrupts& interrupts);

  const std::vector<std::int64_t>& z() const { return z_; }
  std::int64_t l1() const { return l1_; }
  // Kept for the l2 and Gaussian targets only (0 for l1, whose entries may
  // be far larger: noise_range.hpp).
  std::int64_t l2_squared() const { return l2_; }
  const SwapCounts& counts() const { return counts_; }
  const TableMoves& moves() const { return *moves_; }
  const SwapChainConfig& config() const { return config_; }

 private:
  friend class CoupledSwapKernel;
  void update(const SwapMove& move, RandomSource& rng);  // resample t along a drawn move
  LaplaceLine line(const SwapMove& move) const;
  double log_ratio(const SwapMove& move, std::int64_t t) const;  // log q(z + t m) - log q(z)
  void apply(const SwapMove& move, std::int64_t t);

  const TableMoves* moves_;
  SwapChainConfig config_;
  DoubleGeometric step_law_;
  LineRates rates_;  // heat-bath: the line laws' normalisers at epsilon
  std::vector<std::int64_t> z_;
  std::vector<std::int64_t> floors_;  // empty: unbounded
  bool keep_l2_;
  std::int64_t entry_limit_;
  std::int64_t l1_ = 0, l2_ = 0;
  SwapCounts counts_;
  SwapMove scratch_;
};

// One coupled step of two chains on the same moves (see above); keeps the
// number of cells where they differ, so meeting is an O(1) test.
class CoupledSwapKernel {
 public:
  CoupledSwapKernel(TableSwapChain& x, TableSwapChain& y);
  void step(RandomSource& rng);
  void sweep(RandomSource& rng);
  bool met() const { return differing_ == 0; }

 private:
  TableSwapChain *x_, *y_;
  std::size_t differing_ = 0;
  SwapMove move_;
};

// Algorithm 3 of the digest with one iteration = one sweep: both chains
// start at z = 0 (the release's start), the leading one runs `lag` sweeps
// alone, then coupled sweeps until they meet or `cap` sweeps have passed.
MeetingTime sample_table_meeting_time(const TableMoves& moves, const SwapChainConfig& config, std::int64_t lag,
                                      std::int64_t cap, RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp::mcmc
