// A Markov chain on the integer noise of complete K-way tables with all
// their (K-1)-way margins (two-way tables with both margins, K = 2), for the
// Laplace-family targets (Dharangutte, Gao, Gong and Yu, AAAI 2023,
// section 3) when the margins cross. It never builds a basis. Two kinds of
// update, both exact conditional draws or Metropolis steps along a
// state-independent choice, so each leaves the target invariant:
//
// Basic moves (any K, any target), drawn on the fly,
//   m = sum over subsets S of the axes of (-1)^|S| e[c_S],
// where each axis k has two distinct levels a_k != b_k drawn uniformly and
// c_S takes b_k on the axes in S and a_k elsewhere (for K = 2: the 2x2
// swap +1 at (i,j), (i',j'), -1 at (i,j'), (i',j), any pair of rows and
// any pair of columns). Every (K-1)-way margin of m is zero, and the
// adjacent basic moves already form a basis of the invariant lattice (the
// basis of table_release.hpp), so the moves reach every lattice point.
// One step draws a table (with probability proportional to its lattice
// rank prod (n_k - 1)), a move m, and resamples t in z + t m:
//  - heat-bath (l1 target only): t from its exact conditional law
//    P(t) ∝ exp(-eps sum_k |z_k + s_k t|) (laplace_line.hpp);
//  - Metropolis (any target): t from the symmetric double-geometric law
//    (double_geometric.hpp), accepted with prob. min(1, q(z + t m) / q(z)).
// A sweep is `rank` steps (each cell is touched 2^K rank / cells ~ 2^K
// times), O(cells) work.
//
// Pair blocks (two-way tables, l1 target, no floors): a sweep runs, for
// each table in turn, four rounds: its rows, its columns, its rows, its
// columns. A round draws a uniformly random matching of the lines (a
// uniform permutation paired consecutively; with an odd count the last line
// sits out) and redraws each pair's two lines from their exact law given
// the rest of the table (pair_block.hpp). That law reads the pair's own
// lines only (the rest enters through the margins, which are fixed), and a
// round's pairs share no line, so its redraws commute: the round is one
// exact update of the matched lines whatever their order, and its pairs may
// be redrawn on several threads (worker_threads.hpp). Each redraw leaves the
// target invariant, the matchings do not depend on the state, and every
// 2x2 move lies in a pair of rows that a round matches with positive
// probability, so the rounds reach every lattice point. A sweep redraws
// each line twice: about 4 cells' updates per cell as for the moves, O(cells).
// (Before the rounds a step redrew one uniformly random pair: the same
// updates in a random order, which could not be shared between threads.)
// Measured (test/bench/README.md): from 100 x 100 to 1000 x 1000 a block
// sweep costs a fraction of a sweep of 2x2 heat-bath moves (rows are runs
// of memory, and no line law is built per cell) and mixes 2 to 3 times
// faster per sweep, so it is the l1 kernel for two-way tables.
//
// A round's randomness: the matching from the chain's stream, then the
// pairs cut into jobs of about kPositionsPerJob positions (a cut that
// depends on the table alone), each job redrawing its pairs in order from
// its own stream derived from the chain's (derived_random_source.hpp): under a
// seed the chain's states are the same whatever the number of threads.
//
// Coupling (Biswas, Jacob and Vanetti 2019, arXiv:1905.09971, section 2):
// both chains make the same choice of move or block. Heat-bath
// moves: both steps are the quantile of the same uniform under each chain's
// conditional law (a maximal coupling of the two laws, tried first, met far
// less often: its failures throw the chains apart). Metropolis: the steps
// are maximally coupled after a shift by the value of s_k (y_k - x_k) most
// touched cells share, and one uniform serves both tests. Blocks: both
// chains draw with the same random stream, so they make the same block
// whenever their pair sums agree (in particular whenever they differ only
// on the pair): each pair of a round is redrawn in both chains from one
// replayed stream. Equal chains stay equal.
// Measured: pairs meet within tens of sweeps on 4 x 4 and within hundreds
// (blocks) to ~1e4 (moves) on 6 x 6, and not within thousands of sweeps
// from 8 x 8 on, under either kernel: near meeting the difference is a
// field of +-1 cells over most of the table. A difference is removed only by
// an update that contains it whole (probability ~ 1 / C(r, 2) for a block),
// while each update overlapping it only partly redraws from laws a total
// variation ~ lambda apart and spreads it with that probability; with
// r + c partial overlaps per removal the spreading wins from about 8 x 8
// on at epsilon = 1 (and no better at epsilon = 0.1). The coupling bound is
// therefore a check for small tables only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "chunked_uniforms.hpp"
#include "coupling.hpp"
#include "double_geometric.hpp"
#include "laplace_line.hpp"
#include "pair_block.hpp"
#include "targets.hpp"

namespace invariant_dp::mcmc {

// A move of a K-way table touches 2^K cells: K <= 6 (kMaxLinePoints).
constexpr std::size_t kMaxTableAxes = 6;

struct SwapMove {
  std::size_t size = 0;
  std::array<std::uint32_t, kMaxLinePoints> cell{};
  std::array<std::int8_t, kMaxLinePoints> sign{};
};

// Which lines a round of pair blocks redraws: the rows (rows = true) or
// the columns of one two-way table.
struct BlockRound {
  std::size_t table = 0;
  bool rows = true;
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

  // Pair blocks: whether every table is two-way, the rounds of one sweep
  // (four per table) and the k-th of them, and the cell of (row, column)
  // of a table.
  bool two_way() const { return two_way_; }
  std::uint64_t rounds_per_sweep() const { return 4 * tables_.size(); }
  BlockRound round(std::uint64_t k) const {
    const std::uint64_t within = k % rounds_per_sweep();
    return BlockRound{std::size_t(within / 4), within % 2 == 0};
  }
  bool contiguous(std::size_t table) const { return contiguous_from_[table] >= 0; }
  std::size_t cell(std::size_t table, std::size_t row, std::size_t column) const {
    const std::size_t offset = row * tables_[table].shape[1] + column;
    const std::int64_t from = contiguous_from_[table];
    return from >= 0 ? std::size_t(from) + offset : tables_[table].cells[offset];
  }

 private:
  std::vector<LatticeTable> tables_;
  std::vector<std::vector<std::size_t>> strides_;
  // Per table, the cell of position 0 when positions map to consecutive
  // cells (a table released alone), else -1: saves a random read per cell
  // of each move, which at a million cells is a cache miss.
  std::vector<std::int64_t> contiguous_from_;
  std::vector<std::uint64_t> cumulative_rank_;
  std::uint64_t total_rank_ = 0;
  bool two_way_ = true;
  std::size_t n_cells_;
  double shortest_ = 0;
};

// Positions a job of a pair-block round redraws (at least one pair
// whatever its length): jobs small enough to share a round between
// threads, large enough that deriving their streams costs little.
constexpr std::size_t kPositionsPerJob = std::size_t(1) << 15;

struct SwapChainConfig {
  Target target;
  bool heat_bath = true;                       // l1 only; else Metropolis
  double step_a = 0.36787944117144233;         // Metropolis step law, e^-1
  bool pair_blocks = false;                    // l1 heat-bath on two-way tables, no floors
  // Pair blocks: threads that share a round's jobs, the caller's included
  // (the states do not depend on it), and the jobs' size (the states do).
  unsigned threads = 1;
  std::size_t positions_per_job = kPositionsPerJob;
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
  // Pair blocks need heat-bath, two-way tables and no floors
  // (InvalidArgument otherwise).
  TableSwapChain(const TableMoves& moves, SwapChainConfig config, std::vector<std::int64_t> floors = {});

  void reset_zero();
  // Starts at z, which the caller guarantees lies in the tables' lattice
  // (every (K-1)-way margin zero); InvalidArgument on a wrong length or
  // below the floors.
  void reset_to(const std::vector<std::int64_t>& z);
  // One move, or one round of pair blocks (the sweep's next).
  void step(RandomSource& rng, const Interrupts& interrupts = Interrupts{});
  void sweep(RandomSource& rng);
  // Polls at least every 4096 cell updates; draws moves a few steps ahead.
  void run(std::uint64_t sweeps, RandomSource& rng, const Interrupts& interrupts);
  // Steps in one sweep: rank() moves or rounds_per_sweep() rounds.
  std::uint64_t steps_per_sweep() const;


  const std::vector<std::int64_t>& z() const { return z_; }
  std::int64_t l1() const { return l1_; }
  // Kept for the l2 and Gaussian targets only (0 for l1, whose entries may
  // be far larger: noise_range.hpp).
  std::int64_t l2_squared() const { return l2_; }
  // Steps that changed z: moves, or redrawn pairs.
  const SwapCounts& counts() const { return counts_; }
  const TableMoves& moves() const { return *moves_; }
  const SwapChainConfig& config() const { return config_; }

 private:
  friend class CoupledSwapKernel;
  void update(const SwapMove& move, RandomSource& rng);  // resample t along a drawn move
  LaplaceLine line(const SwapMove& move) const;
  double log_ratio(const SwapMove& move, std::int64_t t) const;  // log q(z + t m) - log q(z)
  void apply(const SwapMove& move, std::int64_t t);

  // Pair blocks (table_pair_blocks.cpp). What a job's redraws add up to.
  struct BlockTally {
    std::int64_t l1_change = 0;
    std::uint64_t proposed = 0, moved = 0;
  };
  // The round's lines in a uniform random order (pairs: consecutive).
  void draw_matching(const BlockRound& round, RandomSource& rng);
  // Redraws lines a and b of the round's table, with scratch of
  // kPairScratchPerPosition values per position of the longest line, and one.
  static constexpr std::size_t kPairScratchPerPosition = 2 + PairBlockLaw::kScratchPerPosition;
  void update_pair(const BlockRound& round, std::size_t a, std::size_t b, ChunkedUniforms& uniforms,
                   std::int64_t* scratch, BlockTally& tally);
  void run_round(RandomSource& rng, const Interrupts& interrupts);
  void add(const BlockTally& tally);

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
  // Pair blocks: per table, the laws of a pair of rows (n = columns) and of
  // a pair of columns (n = rows); the rounds run so far (the next one's
  // place in the sweep); the current matching; the longest line.
  std::vector<PairBlockLaw> row_laws_, column_laws_;
  std::uint64_t rounds_ = 0;
  std::vector<std::uint32_t> matching_;
  std::size_t longest_ = 0;
};

// One coupled step of two chains on the same moves (see above); keeps the
// number of cells where they differ, so meeting is an O(1) test.
class CoupledSwapKernel {
 public:
  CoupledSwapKernel(TableSwapChain& x, TableSwapChain& y);
  void step(RandomSource& rng, const Interrupts& interrupts);
  void sweep(RandomSource& rng, const Interrupts& interrupts);
  bool met() const { return differing_ == 0; }

 private:
  void block_round(RandomSource& rng, const Interrupts& interrupts);

  TableSwapChain *x_, *y_;
  std::size_t differing_ = 0;
  SwapMove move_;
};

// Algorithm 3 (Biswas, Jacob and Vanetti 2019, section 2) with one iteration = one sweep: both chains
// start at z = 0 (the release's start), the leading one runs `lag` sweeps
// alone, then coupled sweeps until they meet or `cap` sweeps have passed.
MeetingTime sample_table_meeting_time(const TableMoves& moves, const SwapChainConfig& config, std::int64_t lag,
                                      std::int64_t cap, RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp::mcmc
