// The exact partition samplers and the lattice MCMC draw the same law
// (integer issue: "the exact and MCMC samplers agree on partition
// invariants"): one group of 5 cells with its sum fixed, the l1 target
// (discrete Laplace, b = 2) and the lattice Gaussian (sigma^2 = 8). The MCMC
// sample is one draw from each of many independent chains, each run ten
// times longer than the longest L-lag meeting time observed over 200
// coupled pairs, so its bias is far below what the test can see. Two-sample
// chi-square on |z_1| and on z_1 + z_2 at p = 1e-6 each (4 assertions: a
// correct pair fails this file with probability about 4e-6); the exact
// sampler at a 25% wider law must fail against the same MCMC sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "chi_square.hpp"
#include "lattice/lattice_basis.hpp"
#include "mcmc/chain_model.hpp"
#include "mcmc/coupling.hpp"
#include "mcmc/lattice_chain.hpp"
#include "samplers/conditioned_gaussian.hpp"
#include "samplers/conditioned_laplace.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
constexpr std::size_t kOneSumCells = 5;
constexpr std::size_t kChainDraws = 5000;

struct Histograms {
  std::map<std::int64_t, std::int64_t> abs_first, first_two;
  void add(const std::int64_t* z) {
    ++abs_first[std::abs(z[0])];
    ++first_two[z[0] + z[1]];
  }
};

LatticeBasis sum_zero_basis() {
  LatticeBasis basis;
  basis.dimension = kOneSumCells;
  for (std::size_t j = 0; j + 1 < kOneSumCells; ++j) {
    basis.columns.push_back(LatticeVector{{std::uint32_t(j), std::uint32_t(j + 1)}, {1, -1}});
  }
  return basis;
}

mcmc::SamplerConfig config_for(const mcmc::Target& target, const LatticeBasis& basis) {
  mcmc::SamplerConfig config;
  config.target = target;
  config.proposal_a = std::exp(-1.0);
  for (std::size_t j = 0; j < basis.rank(); ++j)
    config.moves.push_back({{std::uint32_t(j), std::uint32_t(j + 1)}, {1, -1}});
  config.moves_per_iteration = basis.rank();
  config.move_step_a = config.proposal_a;
  return config;
}

Histograms mcmc_sample(const mcmc::Target& target, std::uint64_t seed) {
  const LatticeBasis basis = sum_zero_basis();
  const mcmc::ChainModel model(basis, config_for(target, basis));
  auto rng = make_seeded_random_source(seed);
  std::int64_t longest = 0;
  for (int pair = 0; pair < 200; ++pair) {
    const auto time = mcmc::sample_meeting_time(model, 20, 1000000, mcmc::StartKind::proposal, *rng, Interrupts());
    EXPECT_TRUE(time.met);
    longest = std::max(longest, time.tau);
  }
  const std::uint64_t burn_in = 10 * std::uint64_t(longest);
  Histograms h;
  for (std::size_t d = 0; d < kChainDraws; ++d) {
    mcmc::LatticeChain chain(model);
    chain.reset_from_proposal(*rng);
    chain.run(burn_in, *rng, Interrupts());
    h.add(chain.z().data());
  }
  return h;
}

template <typename Sampler>
Histograms exact_sample(Sampler sample, std::uint64_t seed) {
  std::vector<std::uint32_t> groups(kOneSumCells * kChainDraws);
  for (std::size_t i = 0; i < groups.size(); ++i) groups[i] = std::uint32_t(i / kOneSumCells);
  std::vector<std::int64_t> z(groups.size());
  auto rng = make_seeded_random_source(seed);
  sample(*rng, groups.data(), groups.size(), kChainDraws, z.data());
  Histograms h;
  for (std::size_t d = 0; d < kChainDraws; ++d) h.add(z.data() + d * kOneSumCells);
  return h;
}

void expect_same_law(const Histograms& a, const Histograms& b, const char* what) {
  for (const ChiSquare& r : {two_sample(a.abs_first, kChainDraws, b.abs_first, kChainDraws),
                             two_sample(a.first_two, kChainDraws, b.first_two, kChainDraws)}) {
    report(what, r);
    EXPECT_TRUE(r.passes()) << what;
  }
}

void expect_different_law(const Histograms& a, const Histograms& b, const char* what) {
  const ChiSquare r = two_sample(a.abs_first, kChainDraws, b.abs_first, kChainDraws);
  report(what, r);
  EXPECT_FALSE(r.passes()) << what << ": the test cannot tell a 25% wider law apart";
}

}  // namespace

TEST(StatExactVersusMcmc, LaplaceOnOneSum) {
  const Histograms chains = mcmc_sample(mcmc::laplace_l1(0.5), 11);  // q ~ exp(-|z|_1 / 2)
  auto laplace = [](Rational b) {
    return [b](RandomSource& rng, const std::uint32_t* g, std::size_t n, std::size_t groups, std::int64_t* z) {
      sample_laplace_with_zero_group_sums(rng, b, {g, n, groups}, z, Interrupts());
    };
  };
  expect_same_law(exact_sample(laplace({2, 1}), 12), chains, "l1 exact vs mcmc");
  expect_different_law(exact_sample(laplace({5, 2}), 13), chains, "l1 exact (b 25% wider) vs mcmc");
}

TEST(StatExactVersusMcmc, GaussianOnOneSum) {
  const Histograms chains = mcmc_sample(mcmc::lattice_gaussian(8), 21);
  auto gaussian = [](Rational s2) {
    return [s2](RandomSource& rng, const std::uint32_t* g, std::size_t n, std::size_t groups, std::int64_t* z) {
      sample_gaussian_with_zero_group_sums(rng, s2, {g, n, groups}, z, Interrupts());
    };
  };
  expect_same_law(exact_sample(gaussian({8, 1}), 22), chains, "gaussian exact vs mcmc");
  expect_different_law(exact_sample(gaussian({25, 2}), 23), chains, "gaussian exact (sigma 25% wider) vs mcmc");
}

}  // namespace invariant_dp
