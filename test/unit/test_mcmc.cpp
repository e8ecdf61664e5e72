// Deterministic unit tests of the lattice MCMC (src/core/mcmc; Dharangutte,
// Gao, Gong, Yu 2023, arXiv:2212.00936, Section 4 and Appendix D): every
// state stays in Lambda_A on the paper's 4x4 table (A z = 0
// exactly, z = B v, exact norms), seeded runs reproduce, interrupts stop
// the loops, coupled chains that met stay equal, the TV-bound arithmetic
// and split R-hat on hand-made inputs, and argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "dense_basis.hpp"
#include "lattice_tables.hpp"
#include "mcmc/coupling.hpp"
#include "mcmc/diagnostics.hpp"
#include "mcmc/lattice_chain.hpp"
#include "mcmc/rhat.hpp"
#include "random_source.hpp"

namespace invariant_dp::mcmc {
namespace {

using test_tables::table_basis;

SamplerConfig config_4x4(Target target, bool swaps) {
  SamplerConfig cfg;
  cfg.target = target;
  cfg.proposal_a = std::exp(-1.0);
  if (swaps) {
    cfg.moves = two_way_swap_moves(4, 4);
    cfg.moves_per_iteration = 9;
  }
  return cfg;
}

void expect_in_lattice(const LatticeChain& chain, const LatticeBasis& basis) {
  const auto& z = chain.z();
  for (std::size_t r = 0; r < 4; ++r) {
    std::int64_t row = 0, col = 0;
    for (std::size_t c = 0; c < 4; ++c) {
      row += z[r * 4 + c];
      col += z[c * 4 + r];
    }
    ASSERT_EQ(row, 0);
    ASSERT_EQ(col, 0);
  }
  const test_tables::DenseBasis dense_basis = test_tables::dense(basis);
  std::int64_t l1 = 0, l2 = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    std::int64_t bv = 0;
    for (std::size_t j = 0; j < basis.rank(); ++j) bv += dense_basis.column(j)[i] * chain.v()[j];
    ASSERT_EQ(bv, z[i]);
    l1 += std::llabs(z[i]);
    l2 += z[i] * z[i];
  }
  ASSERT_EQ(l1, chain.l1());
  ASSERT_EQ(l2, chain.l2_squared());
}

TEST(McmcTargets, LogDensities) {
  const std::int64_t z[3] = {3, -4, 1};
  EXPECT_DOUBLE_EQ(log_density(laplace_l1(0.5), z, 3), -4.0);
  EXPECT_DOUBLE_EQ(log_density(laplace_l2(0.5), z, 3), -0.5 * std::sqrt(26.0));
  EXPECT_DOUBLE_EQ(log_density(lattice_gaussian(2.0), z, 3), -26.0 / 4.0);
  EXPECT_THROW(validate(laplace_l1(0)), InvalidArgument);
  EXPECT_THROW(validate(lattice_gaussian(NAN)), InvalidArgument);
  EXPECT_DOUBLE_EQ(widened(laplace_l2(0.25), 0.4).epsilon, 0.1);
  EXPECT_DOUBLE_EQ(widened(lattice_gaussian(1.0), 0.5).sigma2, 4.0);
}

TEST(McmcChain, StaysInLatticeOn4x4) {
  const LatticeBasis basis = table_basis(4, 4);
  for (Target target : {laplace_l1(0.25), laplace_l2(0.25), lattice_gaussian(50.0)})
    for (bool swaps : {false, true}) {
      ChainModel model(basis, config_4x4(target, swaps));
      LatticeChain chain(model);
      auto rng = make_seeded_random_source(7);
      chain.reset_from_proposal(*rng);
      for (int it = 0; it < 5000; ++it) {
        chain.iterate(*rng);
        expect_in_lattice(chain, basis);
      }
      EXPECT_GT(chain.acceptance().basis_accepted, 0u);
      EXPECT_LT(chain.acceptance().basis_accepted, chain.acceptance().basis_proposed);
      if (swaps) {
        EXPECT_EQ(chain.acceptance().move_proposed, 5000u * 9u);
      }
    }
}

TEST(McmcChain, EntryRangeIsCheckedAndLeavesTheChainUsable) {
  const LatticeBasis basis = table_basis(4, 4);
  ChainModel model(basis, config_4x4(laplace_l1(0.25), false));
  LatticeChain chain(model);
  std::vector<std::int64_t> huge(9, 0);
  huge[0] = (std::int64_t(1) << 20) + 1;
  EXPECT_THROW(chain.reset_to(huge), OutOfRange);
  auto rng = make_seeded_random_source(2);
  chain.reset_zero();
  for (int it = 0; it < 100; ++it) {
    chain.iterate(*rng);
    expect_in_lattice(chain, basis);
  }
}

TEST(McmcChain, SeedReproducesTheRun) {
  const LatticeBasis basis = table_basis(4, 4);
  ChainModel model(basis, config_4x4(laplace_l1(0.25), true));
  auto run = [&](std::uint64_t seed) {
    auto rng = make_seeded_random_source(seed);
    return draw_lattice_noise(model, 3000, *rng, Interrupts());
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

bool stop_after_counter(void* context) { return --*static_cast<int*>(context) < 0; }

TEST(McmcChain, InterruptsStopLongLoops) {
  const LatticeBasis basis = table_basis(4, 4);
  ChainModel model(basis, config_4x4(laplace_l1(0.25), false));
  LatticeChain chain(model);
  auto rng = make_seeded_random_source(1);
  // A sweep of the 4x4 chain costs 9 proposals: a poll every 4096 / 10 =
  // 409 sweeps, so the fourth poll (sweep 3 * 409) asks to stop.
  int polls = 3;
  const Interrupts interrupts(stop_after_counter, &polls);
  EXPECT_THROW(chain.run(1000000, *rng, interrupts), Interrupted);
  EXPECT_EQ(chain.acceptance().basis_proposed, 3u * 409u);
  // A 100 x 100 table's sweep (9801 vectors, as many single-vector moves)
  // is long: a poll before every sweep.
  const LatticeBasis large = table_basis(100, 100);
  SamplerConfig config = config_4x4(laplace_l1(0.25), false);
  config.basis_moves = true;
  config.moves_per_iteration = large.rank();
  const ChainModel large_model(large, config);
  LatticeChain large_chain(large_model);
  int large_polls = 3;
  EXPECT_THROW(large_chain.run(1000000, *rng, Interrupts(stop_after_counter, &large_polls)), Interrupted);
  EXPECT_EQ(large_chain.acceptance().basis_proposed, 3u);
  int none = 0;
  EXPECT_THROW(sample_meeting_time(model, 10, 1000000, StartKind::proposal, *rng, Interrupts(stop_after_counter, &none)),
               Interrupted);
}

TEST(McmcCoupling, MetChainsStayEqual) {
  const LatticeBasis basis = table_basis(4, 4);
  for (bool swaps : {false, true}) {
    ChainModel model(basis, config_4x4(laplace_l1(0.25), swaps));
    auto rng = make_seeded_random_source(3);
    LatticeChain x(model), y(model);
    x.reset_from_proposal(*rng);
    y.reset_from_proposal(*rng);
    CoupledKernel kernel(model);
    int it = 0;
    while (!x.same_state(y) && it < 1000000) {
      kernel.iterate(x, y, *rng, Interrupts{});
      ++it;
    }
    ASSERT_TRUE(x.same_state(y));
    for (int k = 0; k < 2000; ++k) {
      kernel.iterate(x, y, *rng, Interrupts{});
      ASSERT_EQ(x.z(), y.z());
      expect_in_lattice(x, basis);
    }
  }
}

TEST(McmcCoupling, MaximalCouplingOfEqualCentersIsEqual) {
  DoubleGeometric eta(std::exp(-1.0));
  auto rng = make_seeded_random_source(5);
  int coupled = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto [a, b] = eta.maximal_coupling(4, 4, *rng, Interrupts{});
    EXPECT_EQ(a, b);
    const auto [c, d] = eta.maximal_coupling(0, 1, *rng, Interrupts{});
    coupled += c == d;
  }
  // P(meet) = 2a/(1+a) = 0.538 for a shift of 1; 1000 trials: 538 +- 16.
  EXPECT_GT(coupled, 538 - 5 * 16);
  EXPECT_LT(coupled, 538 + 5 * 16);
}

TEST(McmcCoupling, TvBoundArithmetic) {
  const std::vector<MeetingTime> times = {{10, true}, {20, true}};
  EXPECT_DOUBLE_EQ(tv_upper_bound(times, 5, 0), 1.0);   // (1 + 3) / 2 clamped
  EXPECT_DOUBLE_EQ(tv_upper_bound(times, 5, 6), 1.0);   // (0 + ceil(9/5)=2) / 2
  EXPECT_DOUBLE_EQ(tv_upper_bound(times, 5, 10), 0.5);  // (0 + 1) / 2
  EXPECT_DOUBLE_EQ(tv_upper_bound(times, 5, 14), 0.5);
  EXPECT_DOUBLE_EQ(tv_upper_bound(times, 5, 15), 0.0);
  EXPECT_EQ(first_iteration_below(times, 5, 0.05), 15);
  EXPECT_EQ(first_iteration_below(times, 5, 0.6), 10);
  const auto curve = tv_upper_bound_curve(times, 5, 4);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve.back().iteration, 15);
  const std::vector<MeetingTime> censored = {{10, true}, {100, false}};
  EXPECT_DOUBLE_EQ(tv_upper_bound(censored, 5, 1000), 1.0);
  EXPECT_EQ(first_iteration_below(censored, 5, 0.05), -1);
}

TEST(McmcRhat, SplitRhat) {
  auto rng = make_seeded_random_source(9);
  std::vector<std::vector<double>> same(4), shifted(4);
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 2000; ++i) {
      const double u = rng->uniform_open01();
      same[c].push_back(u);
      shifted[c].push_back(u + (c == 0 ? 1.0 : 0.0));
    }
  EXPECT_LT(split_rhat(same), 1.01);
  EXPECT_GT(split_rhat(shifted), 1.2);
  std::vector<std::vector<double>> trend(2);
  for (int i = 0; i < 100; ++i) trend[0].push_back(i), trend[1].push_back(i);  // split R-hat sees a trend
  EXPECT_GT(split_rhat(trend), 1.5);
  EXPECT_THROW(split_rhat({{1, 2, 3, 4}}), InvalidArgument);
}

TEST(McmcModel, RejectsBadInput) {
  const LatticeBasis basis = table_basis(4, 4);
  SamplerConfig cfg = config_4x4(laplace_l1(0.25), false);
  cfg.moves = {SparseVector{{0}, {1}}};  // e_0 is not in the lattice
  cfg.moves_per_iteration = 1;
  EXPECT_THROW(ChainModel(basis, cfg), InvalidArgument);
  cfg.moves = {SparseVector{{0, 0, 1, 1}, {1, -1, 1, -1}}};  // a cell listed twice
  EXPECT_THROW(ChainModel(basis, cfg), InvalidArgument);
  cfg = config_4x4(laplace_l1(0.25), false);
  cfg.proposal_a = 1.0;
  EXPECT_THROW(ChainModel(basis, cfg), InvalidArgument);
  EXPECT_THROW(ChainModel(LatticeBasis{}, config_4x4(laplace_l1(0.25), false)), InvalidArgument);
  ChainModel swaps(basis, config_4x4(laplace_l1(0.25), true));
  EXPECT_EQ(swaps.move_count(), 36u);
  for (std::size_t k = 0; k < swaps.move_count(); ++k) EXPECT_LE(swaps.move_coordinates(k).index.size(), 4u);
}

TEST(McmcDiagnostics, ReportOnSmallRun) {
  const LatticeBasis basis = table_basis(4, 4);
  ChainModel model(basis, config_4x4(laplace_l1(0.25), true));
  auto rng = make_seeded_random_source(21);
  DiagnosticsConfig cfg;
  cfg.lag = 200;
  cfg.pairs = 20;
  cfg.rhat.burn_in = 1000;
  cfg.rhat.draws = 200;
  cfg.rhat.overdispersion_iterations = 500;
  const DiagnosticsReport r = diagnose(model, cfg, *rng, Interrupts());
  EXPECT_EQ(r.censored, 0);
  ASSERT_GE(r.tv_curve.size(), 2u);
  EXPECT_EQ(r.tv_curve.front().iteration, 0);
  for (std::size_t i = 1; i < r.tv_curve.size(); ++i)
    EXPECT_LE(r.tv_curve[i].tv_upper_bound, r.tv_curve[i - 1].tv_upper_bound);
  EXPECT_GE(r.iterations_below, 0);
  EXPECT_GT(r.basis_acceptance, 0);
  EXPECT_GT(r.move_acceptance, 0);
  EXPECT_GT(r.rhat_l1, 0.9);
}

}  // namespace
}  // namespace invariant_dp::mcmc
