// The pair-block rounds of the table chain, alone and coupled; see
// table_swap_chain.hpp.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>

#include "../derived_random_source.hpp"
#include "noise_range.hpp"
#include "table_swap_chain.hpp"
#include "worker_threads.hpp"

namespace invariant_dp::mcmc {

void TableSwapChain::draw_matching(const BlockRound& round, RandomSource& rng) {
  const std::size_t lines = moves_->tables()[round.table].shape[round.rows ? 0 : 1];
  matching_.resize(lines);
  std::iota(matching_.begin(), matching_.end(), std::uint32_t(0));
  for (std::size_t i = lines; i-- > 1;) std::swap(matching_[i], matching_[std::size_t(rng.uniform_below(i + 1))]);
}

namespace {

// Redraws the pair of lines whose k-th cells are first_line(k) and
// second_line(k) (references into z): their sums and the first line's
// total, the exact draw, and the second line as sums minus first. Adds
// the change of ||z||_1 and the redraw to the tally; OutOfRange past the
// entry limit.
template <class FirstLine, class SecondLine, class Tally>
void redraw(FirstLine first_line, SecondLine second_line, std::size_t n, const PairBlockLaw& law, ChunkedUniforms& uniforms,
            std::int64_t* sums, std::int64_t* first, std::int64_t* scratch, std::int64_t entry_limit, Tally& tally) {
  std::int64_t total = 0, l1_change = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t x = first_line(k), y = second_line(k);
    sums[k] = x + y;
    total += x;
    l1_change -= std::llabs(x) + std::llabs(y);
  }
  law.sample(sums, total, first, scratch, uniforms);
  std::int64_t largest = 0;
  bool moved = false;
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t x = first[k], y = sums[k] - first[k];
    std::int64_t& zx = first_line(k);
    moved = moved || zx != x;
    zx = x;
    second_line(k) = y;
    const std::int64_t size = std::llabs(x) + std::llabs(y);
    l1_change += size;
    largest = std::max(largest, size);
  }
  if (largest > entry_limit) {  // |x| or |y| may be the culprit: name the one that is
    for (std::size_t k = 0; k < n; ++k) {
      check_entry(first_line(k), entry_limit);
      check_entry(second_line(k), entry_limit);
    }
  }
  tally.l1_change += l1_change;
  ++tally.proposed;
  tally.moved += moved;
}

}  // namespace

// Cells of a table released alone are consecutive, so its lines are
// strided runs of z (no index lookup).
void TableSwapChain::update_pair(const BlockRound& round, std::size_t a, std::size_t b, ChunkedUniforms& uniforms,
                                 std::int64_t* scratch, BlockTally& tally) {
  std::int64_t* const sums = scratch;
  std::int64_t* const first = scratch + longest_;
  scratch += 2 * longest_;
  const TableMoves& moves = *moves_;
  const std::size_t table = round.table;
  const std::vector<std::size_t>& shape = moves.tables()[table].shape;
  const std::size_t n = shape[round.rows ? 1 : 0];
  const PairBlockLaw& law = (round.rows ? row_laws_ : column_laws_)[table];
  if (moves.contiguous(table)) {
    const std::size_t stride = round.rows ? 1 : shape[1];
    std::int64_t* const x = &z_[round.rows ? moves.cell(table, a, 0) : moves.cell(table, 0, a)];
    std::int64_t* const y = &z_[round.rows ? moves.cell(table, b, 0) : moves.cell(table, 0, b)];
    if (stride == 1)
      return redraw([x](std::size_t k) -> std::int64_t& { return x[k]; },
                    [y](std::size_t k) -> std::int64_t& { return y[k]; }, n, law, uniforms, sums, first, scratch, entry_limit_,
                    tally);
    return redraw([x, stride](std::size_t k) -> std::int64_t& { return x[k * stride]; },
                  [y, stride](std::size_t k) -> std::int64_t& { return y[k * stride]; }, n, law, uniforms, sums,
                  first, scratch, entry_limit_, tally);
  }
  auto line = [&](std::size_t l) {
    return [this, &moves, table, l, rows = round.rows](std::size_t k) -> std::int64_t& {
      return z_[rows ? moves.cell(table, l, k) : moves.cell(table, k, l)];
    };
  };
  redraw(line(a), line(b), n, law, uniforms, sums, first, scratch, entry_limit_, tally);
}

void TableSwapChain::add(const BlockTally& tally) {
  l1_ += tally.l1_change;
  counts_.proposed += tally.proposed;
  counts_.moved += tally.moved;
}

// The sweep's next round: the matching from rng, then the pairs in jobs,
// each from its own derived stream (one job: rng itself), on up to
// config_.threads threads. Only this job's pairs' lines are written by a
// job, and tallies are added after every job has ended.
void TableSwapChain::run_round(RandomSource& rng, const Interrupts& interrupts) {
  const BlockRound round = moves_->round(rounds_++);
  draw_matching(round, rng);
  const std::size_t length = moves_->tables()[round.table].shape[round.rows ? 1 : 0];
  const std::size_t pairs = matching_.size() / 2;
  const std::size_t per_job = std::max<std::size_t>(1, config_.positions_per_job / length);
  const std::size_t jobs = (pairs + per_job - 1) / per_job;
  std::vector<std::unique_ptr<RandomSource>> streams;
  if (jobs > 1)
    for (std::size_t k = 0; k < jobs; ++k) streams.push_back(derive_random_source(rng));
  std::vector<BlockTally> tallies(jobs);
  auto job = [&](std::size_t k, const JobPoll& poll) {
    RandomSource& stream = jobs > 1 ? *streams[k] : rng;
    ChunkedUniforms uniforms(stream, stream);
    std::vector<std::int64_t> scratch(kPairScratchPerPosition * longest_ + 1);
    const std::size_t end = std::min(pairs, (k + 1) * per_job);
    for (std::size_t p = k * per_job; p < end; ++p) {
      poll.poll_scaled(p, 4 * length);
      update_pair(round, matching_[2 * p], matching_[2 * p + 1], uniforms, scratch.data(), tallies[k]);
    }
  };
  try {
    run_jobs(jobs, config_.threads, interrupts, job);
  } catch (...) {
    for (const BlockTally& tally : tallies) add(tally);  // z holds what the jobs wrote
    throw;
  }
  for (const BlockTally& tally : tallies) add(tally);
}

// Both chains take the same matching, and redraw each pair from one
// replayed stream of chunks and one of completions (chunked_uniforms.hpp):
// equal pair sums give equal blocks.
void CoupledSwapKernel::block_round(RandomSource& rng, const Interrupts& interrupts) {
  TableSwapChain& x = *x_;
  TableSwapChain& y = *y_;
  const TableMoves& moves = *x.moves_;
  const BlockRound round = moves.round(x.rounds_);
  ++x.rounds_;
  ++y.rounds_;
  x.draw_matching(round, rng);
  const std::size_t n = moves.tables()[round.table].shape[round.rows ? 1 : 0];
  auto cell = [&](std::size_t line, std::size_t k) {
    return round.rows ? moves.cell(round.table, line, k) : moves.cell(round.table, k, line);
  };
  auto differing_on = [&](std::size_t a, std::size_t b) {
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k)
      count += (x.z_[cell(a, k)] != y.z_[cell(a, k)]) + (x.z_[cell(b, k)] != y.z_[cell(b, k)]);
    return count;
  };
  std::vector<std::int64_t> scratch(TableSwapChain::kPairScratchPerPosition * x.longest_ + 1);
  TableSwapChain::BlockTally x_tally, y_tally;
  const std::size_t pairs = x.matching_.size() / 2;
  for (std::size_t p = 0; p < pairs; ++p) {
    interrupts.poll_scaled(p, 4 * n);
    const std::size_t a = x.matching_[2 * p], b = x.matching_[2 * p + 1];
    const std::size_t before = differing_on(a, b);
    const std::uint64_t chunk_seed = rng.next_u64(), completion_seed = rng.next_u64();
    SeededRandomSource x_chunks(chunk_seed), y_chunks(chunk_seed), x_completions(completion_seed),
        y_completions(completion_seed);
    ChunkedUniforms x_uniforms(x_chunks, x_completions), y_uniforms(y_chunks, y_completions);
    x.update_pair(round, a, b, x_uniforms, scratch.data(), x_tally);
    y.update_pair(round, a, b, y_uniforms, scratch.data(), y_tally);
    differing_ = differing_ - before + differing_on(a, b);
  }
  x.add(x_tally);
  y.add(y_tally);
}

}  // namespace invariant_dp::mcmc
