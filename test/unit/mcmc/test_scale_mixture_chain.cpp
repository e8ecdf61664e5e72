// The l2 scale-mixture Gibbs sampler (mcmc/scale_mixture_chain): its draws
// keep every margin of every table, it settles at ||z||_2 ~ rank / lambda,
// coupled pairs meet within a few iterations and stay together, and it
// stops when interrupted. Its law is tested in
// test/stat/mcmc/stat_table_swap_chain.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "errors.hpp"
#include "mcmc/coupling.hpp"
#include "mcmc/scale_mixture_chain.hpp"
#include "random_source.hpp"

namespace invariant_dp::mcmc {
namespace {

LatticeTable table_on(std::vector<std::size_t> shape, std::size_t first_cell) {
  LatticeTable t{shape, {}};
  std::size_t n = 1;
  for (auto x : shape) n *= x;
  t.cells.resize(n);
  std::iota(t.cells.begin(), t.cells.end(), first_cell);
  return t;
}

TEST(ScaleMixtureChain, KeepsTheMarginsAndSettlesAtItsNorm) {
  // A 20 x 30 table and a 4 x 5 x 6 cube with its three two-way margins.
  const LatticeTable a = table_on({20, 30}, 0), b = table_on({4, 5, 6}, 600);
  const TableMoves moves({a, b}, 720);
  const double lambda = 0.5;
  ScaleMixtureChain chain(moves, lambda);
  auto rng = make_seeded_random_source(3);
  chain.start(*rng, Interrupts{});
  double mean = 0;
  for (int i = 0; i < 40; ++i) {
    chain.iterate(*rng, Interrupts{});
    mean += chain.l2() / 40;
  }
  EXPECT_EQ(chain.fallbacks(), 0u);
  for (std::size_t i = 0; i < 20; ++i) {
    std::int64_t row = 0;
    for (std::size_t j = 0; j < 30; ++j) row += chain.z()[i * 30 + j];
    ASSERT_EQ(row, 0);
  }
  for (std::size_t j = 0; j < 30; ++j) {
    std::int64_t column = 0;
    for (std::size_t i = 0; i < 20; ++i) column += chain.z()[i * 30 + j];
    ASSERT_EQ(column, 0);
  }
  for (std::size_t j = 0; j < 5; ++j)
    for (std::size_t k = 0; k < 6; ++k) {
      std::int64_t line = 0;
      for (std::size_t i = 0; i < 4; ++i) line += chain.z()[600 + (i * 5 + j) * 6 + k];
      ASSERT_EQ(line, 0);
    }
  // Under the l2 law ||z||_2 ~ Gamma(m, lambda) in the continuum: mean m /
  // lambda, sd sqrt(m) / lambda; m = 19 * 29 + 3 * 4 * 5 = 611. The mean of
  // 40 correlated iterations is within 3 % (about 3 sd of one draw).
  EXPECT_NEAR(mean, 611 / lambda, 0.03 * 611 / lambda);
}

TEST(ScaleMixtureChain, CoupledChainsMeetFastAndStayTogether) {
  const TableMoves moves({table_on({40, 40}, 0)}, 1600);
  auto rng = make_seeded_random_source(7);
  for (int pair = 0; pair < 10; ++pair) {
    const MeetingTime met = sample_scale_mixture_meeting_time(moves, 0.5, 5, 60, *rng, Interrupts{});
    EXPECT_TRUE(met.met);
  }
  ScaleMixtureChain x(moves, 0.5), y(moves, 0.5);
  x.start(*rng, Interrupts{});
  y.reset_to(x.z());
  for (int i = 0; i < 10; ++i) {
    coupled_iterate(x, y, *rng, Interrupts{});
    ASSERT_EQ(x.z(), y.z());
  }
}

TEST(ScaleMixtureChain, RefusesBadInputAndStopsWhenInterrupted) {
  const TableMoves moves({table_on({30, 30}, 0)}, 900);
  EXPECT_THROW(ScaleMixtureChain(moves, 0.0), InvalidArgument);
  ScaleMixtureChain chain(moves, 0.5);
  EXPECT_THROW(chain.reset_to(std::vector<std::int64_t>(5, 0)), InvalidArgument);
  auto rng = make_seeded_random_source(1);
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(chain.run(1000000, *rng, stop), Interrupted);
  EXPECT_THROW(sample_scale_mixture_meeting_time(moves, 0.5, 1, 1000000, *rng, stop), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::mcmc
