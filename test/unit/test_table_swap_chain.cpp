// The l1 step law along a move (mcmc/laplace_line) against its formula, and
// the table chain (mcmc/table_swap_chain): its moves keep every (K-1)-way
// margin, its norms track z, coupled copies stay together once equal and
// meet on small tables; the pair blocks keep the margins and their draws
// depend on the pair's sums and the stream only. The laws themselves are tested in
// test/stat/stat_table_swap_chain.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "errors.hpp"
#include "mcmc/coupling.hpp"
#include "mcmc/laplace_line.hpp"
#include "congenial/chain_starts.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "random_source.hpp"

namespace invariant_dp::mcmc {
namespace {

double brute_exponent(const std::vector<std::int64_t>& p, double lambda, std::int64_t t) {
  double s = 0;
  for (auto x : p) s += std::fabs(double(t - x));
  return -lambda * s;
}

// log_pmf(t) equals the formula normalised by brute-force summation.
void expect_matches_formula(const std::vector<std::int64_t>& p, double lambda, std::int64_t lo, std::int64_t hi,
                            std::int64_t from, std::int64_t to) {
  const LaplaceLine line(p.data(), p.size(), lambda, lo, hi);
  double z = 0;
  for (std::int64_t t = from; t <= to; ++t)
    if (t >= lo && t <= hi) z += std::exp(brute_exponent(p, lambda, t));
  double total = 0;
  for (std::int64_t t = from; t <= to; ++t) {
    const double expected = t >= lo && t <= hi ? std::exp(brute_exponent(p, lambda, t)) / z : 0.0;
    const double got = std::exp(line.log_pmf(t));
    EXPECT_NEAR(got, expected, 1e-12 + 1e-10 * expected) << "t = " << t;
    total += got;
  }
  EXPECT_NEAR(total, 1.0, 1e-10);
}

TEST(LaplaceLine, PmfMatchesFormulaUnbounded) {
  expect_matches_formula({3, -1, -1, 4}, 0.7, -kUnboundedStep, kUnboundedStep, -80, 80);
  expect_matches_formula({0, 0, 0, 0}, 0.3, -kUnboundedStep, kUnboundedStep, -200, 200);
  expect_matches_formula({5}, 1.1, -kUnboundedStep, kUnboundedStep, -60, 70);
  expect_matches_formula({-4, 9, 2, 2, 7, -1, 0, 3}, 0.25, -kUnboundedStep, kUnboundedStep, -150, 150);
}

TEST(LaplaceLine, PmfMatchesFormulaBounded) {
  expect_matches_formula({0, 0, 2, 9}, 0.5, -2, 5, -10, 15);
  expect_matches_formula({0, 0, 2, 9}, 0.5, 3, 3, -10, 15);                 // one point
  expect_matches_formula({10, 12, 14, 16}, 0.4, -kUnboundedStep, 4, -100, 20);  // all points above hi
  expect_matches_formula({-10, -12, 1, 3}, 0.4, 0, kUnboundedStep, -20, 120);
}

TEST(LaplaceLine, SamplesStayInRangeAndModeIsTheMedian) {
  const std::vector<std::int64_t> p{0, 0, 2, 9};
  const LaplaceLine line(p.data(), p.size(), 0.5, -2, 5);
  EXPECT_GE(line.mode(), 0);
  EXPECT_LE(line.mode(), 2);
  auto rng = make_seeded_random_source(3);
  for (int i = 0; i < 20000; ++i) {
    const auto t = line.sample(*rng);
    ASSERT_GE(t, -2);
    ASSERT_LE(t, 5);
  }
}

TEST(LaplaceLine, RefusesBadInput) {
  const std::vector<std::int64_t> p{1, 2};
  EXPECT_THROW(LaplaceLine(p.data(), 0, 1.0), InvalidArgument);
  EXPECT_THROW(LaplaceLine(p.data(), 2, 0.0), InvalidArgument);
  EXPECT_THROW(LaplaceLine(p.data(), 2, NAN), InvalidArgument);
  EXPECT_THROW(LaplaceLine(p.data(), 2, 1.0, 3, 2), InvalidArgument);
}

TEST(LaplaceLine, QuantilesOfShiftedLawsAreShifted) {
  // The coupling of the heat-bath chains rests on this: the law of points
  // p + 2 is the law of points p moved by 2, quantile by quantile.
  const std::vector<std::int64_t> p{3, -1, -1, 4}, shifted{5, 1, 1, 6};
  const LaplaceLine a(p.data(), 4, 0.6), b(shifted.data(), 4, 0.6);
  std::int64_t previous = a.quantile(1e-9);
  for (int i = 1; i < 2000; ++i) {
    const double u = i / 2000.0;
    ASSERT_EQ(a.quantile(u) + 2, b.quantile(u)) << "u = " << u;
    ASSERT_GE(a.quantile(u), previous);
    previous = a.quantile(u);
  }
}

// Every (K-1)-way margin of z is zero: sums over each axis with the others
// fixed.
void expect_margins_zero(const std::vector<std::int64_t>& z, const std::vector<std::size_t>& shape) {
  const std::size_t cells = z.size();
  std::vector<std::size_t> strides(shape.size());
  std::size_t s = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= shape[k];
  }
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    for (std::size_t c = 0; c < cells; ++c) {
      if ((c / strides[axis]) % shape[axis] != 0) continue;  // first level along axis
      std::int64_t sum = 0;
      for (std::size_t l = 0; l < shape[axis]; ++l) sum += z[c + l * strides[axis]];
      ASSERT_EQ(sum, 0) << "axis " << axis << " line from cell " << c;
    }
}

LatticeTable full_table(std::vector<std::size_t> shape) {
  LatticeTable t{shape, {}};
  std::size_t n = 1;
  for (auto x : shape) n *= x;
  t.cells.resize(n);
  std::iota(t.cells.begin(), t.cells.end(), std::size_t(0));
  return t;
}

void expect_chain_keeps_margins(std::vector<std::size_t> shape, SwapChainConfig config) {
  const LatticeTable table = full_table(shape);
  const TableMoves moves({table}, table.cells.size());
  TableSwapChain chain(moves, config);
  auto rng = make_seeded_random_source(11);
  chain.run(30, *rng, Interrupts{});
  expect_margins_zero(chain.z(), shape);
  std::int64_t l1 = 0, l2 = 0;
  for (auto x : chain.z()) {
    l1 += std::llabs(x);
    l2 += x * x;
  }
  EXPECT_GT(l1, 0);
  EXPECT_EQ(chain.l1(), l1);
  EXPECT_EQ(chain.l2_squared(), config.target.kind == TargetKind::laplace_l1 ? 0 : l2);
  EXPECT_GT(chain.counts().rate(), 0.05);
}

TEST(TableSwapChain, HeatBathKeepsBothMarginsOfATwoWayTable) {
  expect_chain_keeps_margins({5, 7}, SwapChainConfig{laplace_l1(0.3), true});
}

TEST(TableSwapChain, MetropolisKeepsAllTwoWayMarginsOfACube) {
  expect_chain_keeps_margins({3, 4, 5}, SwapChainConfig{laplace_l2(0.3), false});
  expect_chain_keeps_margins({3, 4, 5}, SwapChainConfig{lattice_gaussian(20), false});
  expect_chain_keeps_margins({3, 4, 5}, SwapChainConfig{laplace_l1(0.3), true});
}

TEST(TableMoves, RankSkipsPinnedTablesAndBlocksUseTheirOwnCells) {
  // Two blocks: a 3x4 table on cells 0..11 and a 1x5 (pinned) on 12..16,
  // and a 2x2 on cells 17..20.
  LatticeTable a = full_table({3, 4});
  LatticeTable pinned{{1, 5}, {12, 13, 14, 15, 16}};
  LatticeTable b{{2, 2}, {17, 18, 19, 20}};
  const TableMoves moves({a, pinned, b}, 21);
  EXPECT_EQ(moves.rank(), 2u * 3u + 1u);
  EXPECT_EQ(moves.tables().size(), 2u);
  EXPECT_EQ(moves.shortest_norm(), 4.0);
  auto rng = make_seeded_random_source(5);
  SwapMove m;
  int in_b = 0;
  for (int i = 0; i < 7000; ++i) {
    moves.draw(*rng, m);
    ASSERT_EQ(m.size, 4u);
    const bool first_in_b = m.cell[0] >= 17;
    in_b += first_in_b;
    for (std::size_t k = 0; k < 4; ++k) {
      ASSERT_EQ(m.cell[k] >= 17, first_in_b);
      ASSERT_TRUE(m.cell[k] < 12 || m.cell[k] >= 17);
    }
  }
  // The 2x2 block has rank 1 of 7: about 1000 of 7000 moves (sd ~ 29).
  EXPECT_NEAR(in_b, 1000, 150);
}

TEST(TableMoves, RefusesTablesItCannotMove) {
  EXPECT_THROW(TableMoves({full_table({4})}, 4), InvalidArgument);
  EXPECT_THROW(TableMoves({full_table({2, 2, 2, 2, 2, 2, 2})}, 128), InvalidArgument);
  EXPECT_THROW(TableMoves({LatticeTable{{1, 3}, {0, 1, 2}}}, 3), InvalidArgument);
  EXPECT_THROW(TableMoves({full_table({2, 3})}, 5), InvalidArgument);
  const TableMoves moves({full_table({2, 3})}, 6);
  EXPECT_THROW(TableSwapChain(moves, SwapChainConfig{laplace_l2(0.3), true}), InvalidArgument);
}

TEST(TableSwapChain, CoupledChainsMeetAndStayTogether) {
  const LatticeTable table = full_table({4, 4});
  const TableMoves moves({table}, 16);
  for (const bool heat_bath : {true, false}) {
    auto rng = make_seeded_random_source(21);
    const SwapChainConfig config{laplace_l1(0.4), heat_bath};
    const MeetingTime met = sample_table_meeting_time(moves, config, 1, 100000, *rng, Interrupts{});
    EXPECT_TRUE(met.met) << "heat_bath = " << heat_bath;
    TableSwapChain x(moves, config), y(moves, config);
    CoupledSwapKernel kernel(x, y);
    for (int s = 0; s < 50; ++s) {
      kernel.sweep(*rng, Interrupts{});
      ASSERT_TRUE(kernel.met());
    }
    EXPECT_EQ(x.z(), y.z());
    EXPECT_GT(x.counts().moved, 0u);
  }
}

TEST(PairBlockLaw, KeepsTheTotalAndRefusesBadInput) {
  const PairBlockLaw law(6, 0.3);
  auto rng = make_seeded_random_source(4);
  const std::vector<std::int64_t> sums{4, -3, 0, 7, -1, 2};
  std::vector<std::int64_t> first(6);
  for (int i = 0; i < 2000; ++i) {
    law.sample(sums.data(), -5, first.data(), *rng);
    ASSERT_EQ(std::accumulate(first.begin(), first.end(), std::int64_t(0)), -5);
  }
  EXPECT_THROW(PairBlockLaw(0, 0.3), InvalidArgument);
  EXPECT_THROW(PairBlockLaw(3, 0.0), InvalidArgument);
  EXPECT_THROW(PairBlockLaw(3, NAN), InvalidArgument);
  EXPECT_THROW(PairBlockLaw(100000, 1e-9), TooLarge);
}

TEST(PairBlockLaw, TheSameStreamAndSumsGiveTheSameBlock) {
  // The coupling of the block updates rests on this: the draw depends on
  // the sums, the total and the stream only.
  const PairBlockLaw law(40, 0.25);
  auto rng = make_seeded_random_source(6);
  std::vector<std::int64_t> sums(40), a(40), b(40);
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& s : sums) s = std::int64_t(rng->uniform_below(21)) - 10;
    const std::uint64_t seed = rng->next_u64();
    SeededRandomSource one(seed), two(seed);
    law.sample(sums.data(), 3, a.data(), one);
    law.sample(sums.data(), 3, b.data(), two);
    ASSERT_EQ(a, b);
  }
}

TEST(TableSwapChain, PairBlocksKeepBothMarginsOfEveryTable) {
  // A 5x7 table on cells 0..34 and a 3x4 interleaved with a pinned 1x3.
  LatticeTable a = full_table({5, 7});
  LatticeTable b{{3, 4}, {}}, pinned{{1, 3}, {}};
  for (std::size_t i = 0; i < 15; ++i) (i % 5 < 4 ? b.cells : pinned.cells).push_back(35 + i);
  const TableMoves moves({a, pinned, b}, 50);
  EXPECT_TRUE(moves.two_way());
  EXPECT_EQ(moves.rounds_per_sweep(), 8u);  // rows, columns, rows, columns of each table
  EXPECT_TRUE(moves.round(0).rows);
  EXPECT_FALSE(moves.round(1).rows);
  EXPECT_EQ(moves.round(3).table, 0u);
  EXPECT_EQ(moves.round(4).table, 1u);
  EXPECT_EQ(moves.round(8).table, 0u);
  SwapChainConfig config{laplace_l1(0.3), true};
  config.pair_blocks = true;
  TableSwapChain chain(moves, config);
  EXPECT_EQ(chain.steps_per_sweep(), 8u);
  auto rng = make_seeded_random_source(12);
  chain.run(30, *rng, Interrupts{});
  std::vector<std::int64_t> za(chain.z().begin(), chain.z().begin() + 35), zb;
  for (const std::size_t c : b.cells) zb.push_back(chain.z()[c]);
  expect_margins_zero(za, {5, 7});
  expect_margins_zero(zb, {3, 4});
  for (const std::size_t c : pinned.cells) EXPECT_EQ(chain.z()[c], 0);
  std::int64_t l1 = 0;
  for (auto x : chain.z()) l1 += std::llabs(x);
  EXPECT_GT(l1, 0);
  EXPECT_EQ(chain.l1(), l1);
  EXPECT_GT(chain.counts().rate(), 0.5);
}

TEST(TableSwapChain, PairBlocksNeedHeatBathOnTwoWayTablesWithoutFloors) {
  const TableMoves square({full_table({3, 3})}, 9), cube({full_table({2, 2, 2})}, 8);
  SwapChainConfig config{laplace_l1(0.3), true};
  config.pair_blocks = true;
  EXPECT_NO_THROW(TableSwapChain(square, config));
  EXPECT_THROW(TableSwapChain(cube, config), InvalidArgument);
  EXPECT_THROW(TableSwapChain(square, config, std::vector<std::int64_t>(9, 0)), InvalidArgument);
  SwapChainConfig l2{laplace_l2(0.3), false};
  l2.pair_blocks = true;
  EXPECT_THROW(TableSwapChain(square, l2), InvalidArgument);
}

TEST(TableSwapChain, CoupledPairBlocksMeetAndStayTogether) {
  const TableMoves moves({full_table({5, 4})}, 20);
  SwapChainConfig config{laplace_l1(0.4), true};
  config.pair_blocks = true;
  auto rng = make_seeded_random_source(23);
  for (int pair = 0; pair < 5; ++pair) {
    const MeetingTime met = sample_table_meeting_time(moves, config, 3, 100000, *rng, Interrupts{});
    EXPECT_TRUE(met.met);
  }
  TableSwapChain x(moves, config), y(moves, config);
  CoupledSwapKernel kernel(x, y);
  for (int s = 0; s < 50; ++s) {
    kernel.sweep(*rng, Interrupts{});
    ASSERT_TRUE(kernel.met());
  }
  EXPECT_EQ(x.z(), y.z());
  EXPECT_GT(x.counts().moved, 0u);
  // Chains that differ only on one pair of rows meet at that pair's block.
  std::vector<std::int64_t> z(20, 0);
  z[1] = z[6] = 2, z[2] = z[5] = -2;  // rows 0 and 1, columns 1 and 2
  TableSwapChain u(moves, config), v(moves, config);
  v.reset_to(z);
  CoupledSwapKernel pair(u, v);
  for (int s = 0; s < 10000 && !pair.met(); ++s) pair.step(*rng, Interrupts{});
  EXPECT_TRUE(pair.met());
}

// A round's pairs are cut into jobs by the table alone, each job with its
// own stream: the states are the same on 1, 2 or 4 threads.
TEST(TableSwapChain, PairBlockStatesDoNotDependOnTheThreads) {
  const TableMoves moves({full_table({400, 200})}, 80000);
  SwapChainConfig config{laplace_l1(0.25), true};
  config.pair_blocks = true;
  std::vector<std::int64_t> first;
  for (const unsigned threads : {1u, 2u, 4u}) {
    config.threads = threads;
    TableSwapChain chain(moves, config);
    auto rng = make_seeded_random_source(31);
    chain.run(2, *rng, Interrupts{});
    if (first.empty()) {
      first = chain.z();
      expect_margins_zero(first, {400, 200});
    }
    ASSERT_EQ(chain.z(), first) << threads << " threads";
    std::int64_t l1 = 0;
    for (auto x : chain.z()) l1 += std::llabs(x);
    EXPECT_EQ(chain.l1(), l1);
  }
}

TEST(TableSwapChain, StopsWhenInterrupted) {
  const LatticeTable table = full_table({30, 30});
  const TableMoves moves({table}, 900);
  TableSwapChain chain(moves, SwapChainConfig{laplace_l1(0.3), true});
  auto rng = make_seeded_random_source(1);
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(chain.run(1000000, *rng, stop), Interrupted);
  EXPECT_THROW(sample_table_meeting_time(moves, chain.config(), 1, 1000000, *rng, stop), Interrupted);
  SwapChainConfig blocks = chain.config();
  blocks.pair_blocks = true;
  TableSwapChain block_chain(moves, blocks);
  EXPECT_THROW(block_chain.run(1000000, *rng, stop), Interrupted);
  EXPECT_THROW(sample_table_meeting_time(moves, blocks, 1, 1000000, *rng, stop), Interrupted);
  // Inside a round shared between threads (a job a pair).
  blocks.threads = 2;
  blocks.positions_per_job = 1;
  TableSwapChain shared(moves, blocks);
  int polls = 0;
  const Interrupts later([](void* p) { return ++*static_cast<int*>(p) > 3; }, &polls);
  EXPECT_THROW(shared.run(1000000, *rng, later), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::mcmc

namespace invariant_dp {
namespace {

// The proportional start keeps every row and column total of each table,
// never goes negative, and reads the totals only.
TEST(ProportionalTableStart, KeepsTheTotalsOfEveryTable) {
  auto rng = make_seeded_random_source(8);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t r1 = 1 + rng->uniform_below(7), c1 = 1 + rng->uniform_below(9);
    const std::size_t r2 = 2 + rng->uniform_below(4), c2 = 2 + rng->uniform_below(4);
    LatticeTable a{{r1, c1}, {}}, b{{r2, c2}, {}};
    const std::size_t n = r1 * c1 + r2 * c2;
    // Interleave the two tables' cells.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng->uniform_below(i)]);
    a.cells.assign(order.begin(), order.begin() + std::ptrdiff_t(r1 * c1));
    b.cells.assign(order.begin() + std::ptrdiff_t(r1 * c1), order.end());
    std::vector<std::int64_t> counts(n);
    for (auto& x : counts) x = rng->uniform_below(3) == 0 ? 0 : std::int64_t(rng->uniform_below(1000));
    const std::vector<std::int64_t> y = proportional_table_start({a, b}, counts.data(), n, Interrupts{});
    for (auto v : y) ASSERT_GE(v, 0);
    for (const LatticeTable* t : {&a, &b}) {
      const std::size_t rows = t->shape[0], cols = t->shape[1];
      for (std::size_t i = 0; i < rows; ++i) {
        std::int64_t want = 0, got = 0;
        for (std::size_t j = 0; j < cols; ++j) want += counts[t->cells[i * cols + j]], got += y[t->cells[i * cols + j]];
        ASSERT_EQ(got, want);
      }
      for (std::size_t j = 0; j < cols; ++j) {
        std::int64_t want = 0, got = 0;
        for (std::size_t i = 0; i < rows; ++i) want += counts[t->cells[i * cols + j]], got += y[t->cells[i * cols + j]];
        ASSERT_EQ(got, want);
      }
    }
    // Only the totals matter: a table with the same totals gives the same start.
    if (r1 >= 2 && c1 >= 2) {
      std::vector<std::int64_t> moved = counts;
      const std::int64_t s = std::min(counts[a.cells[1]], counts[a.cells[c1]]);
      moved[a.cells[0]] += s, moved[a.cells[c1 + 1]] += s, moved[a.cells[1]] -= s, moved[a.cells[c1]] -= s;
      EXPECT_EQ(proportional_table_start({a, b}, moved.data(), n, Interrupts{}), y);
    }
  }
}

TEST(TableSwapChain, FloorsKeepTheStateAboveThemAndNeedTwoWayTables) {
  LatticeTable t{{6, 7}, std::vector<std::size_t>(42)};
  std::iota(t.cells.begin(), t.cells.end(), std::size_t(0));
  const mcmc::TableMoves moves({t}, 42);
  std::vector<std::int64_t> floors(42);
  for (std::size_t i = 0; i < 42; ++i) floors[i] = -std::int64_t(i % 3);  // counts 0, 1, 2
  auto rng = make_seeded_random_source(2);
  for (const bool heat_bath : {true, false}) {
    mcmc::TableSwapChain chain(moves, mcmc::SwapChainConfig{mcmc::laplace_l1(0.2), heat_bath}, floors);
    for (int s = 0; s < 200; ++s) {
      chain.sweep(*rng);
      for (std::size_t i = 0; i < 42; ++i) ASSERT_GE(chain.z()[i], floors[i]);
    }
    EXPECT_GT(chain.counts().moved, 0u);
  }
  EXPECT_THROW(mcmc::TableSwapChain(moves, mcmc::SwapChainConfig{mcmc::laplace_l1(0.2), true}, {1, 2}),
               InvalidArgument);
  LatticeTable cube{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}};
  const mcmc::TableMoves cube_moves({cube}, 8);
  EXPECT_THROW(mcmc::TableSwapChain(cube_moves, mcmc::SwapChainConfig{mcmc::laplace_l1(0.2), true},
                                    std::vector<std::int64_t>(8, 0)),
               InvalidArgument);
}

}  // namespace
}  // namespace invariant_dp
