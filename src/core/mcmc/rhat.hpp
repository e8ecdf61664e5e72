// Split R-hat (Gelman et al., Bayesian Data Analysis 3rd ed., 11.4) over
// several chains on scalar summaries of z (||z||_1 and z_1), as the paper
// checks convergence on the Census example with 4 over-dispersed chains and
// R-hat < 1.01 (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936,
// Section 5 and Appendix E.4).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "lattice_chain.hpp"
#include "scale_mixture_chain.hpp"
#include "table_swap_chain.hpp"

namespace invariant_dp::mcmc {

// Each chain is split in halves; with the 2M halves of length n, W = mean
// within-half variance, B/n = variance of the half means, and
// R = sqrt(((n-1)/n W + B/n) / W). Needs >= 2 chains of >= 4 draws, equal
// lengths (InvalidArgument otherwise). Returns 1 when every draw is equal.
double split_rhat(const std::vector<std::vector<double>>& chains);

struct RhatReport {
  double rhat_l1 = 0;  // on ||z||_1
  double rhat_z1 = 0;  // on the first cell
  AcceptanceCounts acceptance;
};

// `chains` chains from over-dispersed starts (overdispersion_iterations at
// widened(target, overdispersion_factor)), `burn_in` iterations each, then
// `draws` recorded iterations, one every `thin` iterations.
struct RhatConfig {
  int chains = 4;
  std::uint64_t burn_in = 0;
  std::uint64_t draws = 1000;
  std::uint64_t thin = 1;
  double overdispersion_factor = 0.4;
  std::uint64_t overdispersion_iterations = 0;
};

RhatReport run_rhat(const ChainModel& model, const RhatConfig& config, RandomSource& rng,
                    const Interrupts& interrupts);

// The same for the table chain; its over-dispersed start is the state after
// overdispersion_iterations sweeps at the widened target from z = 0, and
// z_1 is the first cell of the first free table. Iterations are sweeps.
RhatReport run_rhat(const TableMoves& moves, const SwapChainConfig& chain_config, const RhatConfig& config,
                    RandomSource& rng, const Interrupts& interrupts);

// The same for the l2 scale-mixture chain at rate lambda: chain c starts at
// the latent variance 8^((2c + 1 - chains) / (chains - 1)) times its
// stationary mean (1/8 to 8), the over-dispersed start; iterations are
// Gibbs iterations; ||z||_2 takes the place of ||z||_1.
RhatReport run_rhat(const TableMoves& moves, double lambda, const RhatConfig& config, RandomSource& rng,
                    const Interrupts& interrupts);

}  // namespace invariant_dp::mcmc
