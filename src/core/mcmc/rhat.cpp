// Split R-hat and the multi-chain run that feeds it; see rhat.hpp.
#include "rhat.hpp"

#include <cmath>

#include "../errors.hpp"

namespace invariant_dp::mcmc {
namespace {

void mean_and_variance(const double* x, std::size_t n, double& mean, double& var) {
  mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += x[i];
  mean /= double(n);
  var = 0;
  for (std::size_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= double(n - 1);
}

}  // namespace

double split_rhat(const std::vector<std::vector<double>>& chains) {
  if (chains.size() < 2) throw InvalidArgument("R-hat needs at least two chains");
  const std::size_t n = chains[0].size() / 2;
  if (n < 2) throw InvalidArgument("R-hat needs at least four draws per chain");
  std::vector<double> means, vars;
  for (const auto& c : chains) {
    if (c.size() != chains[0].size()) throw InvalidArgument("R-hat chains must have equal lengths");
    for (std::size_t half = 0; half < 2; ++half) {
      double m, v;
      mean_and_variance(c.data() + half * n + (c.size() % 2) * half, n, m, v);
      means.push_back(m);
      vars.push_back(v);
    }
  }
  double grand, between_over_n, within = 0;
  mean_and_variance(means.data(), means.size(), grand, between_over_n);
  for (double v : vars) within += v;
  within /= double(vars.size());
  if (within == 0) return between_over_n == 0 ? 1.0 : INFINITY;
  const double pooled = (double(n) - 1) / double(n) * within + between_over_n;
  return std::sqrt(pooled / within);
}

RhatReport run_rhat(const ChainModel& model, const RhatConfig& config, RandomSource& rng,
                    const Interrupts& interrupts) {
  if (config.chains < 2 || config.thin < 1) throw InvalidArgument("R-hat needs two chains and thin >= 1");
  std::vector<std::vector<double>> l1(config.chains), z1(config.chains);
  RhatReport report;
  for (int c = 0; c < config.chains; ++c) {
    LatticeChain chain(model);
    chain.reset_overdispersed(rng, interrupts, config.overdispersion_factor, config.overdispersion_iterations);
    chain.run(config.burn_in, rng, interrupts);
    for (std::uint64_t k = 0; k < config.draws; ++k) {
      chain.run(config.thin, rng, interrupts);
      l1[c].push_back(double(chain.l1()));
      z1[c].push_back(double(chain.z()[0]));
    }
    report.acceptance += chain.acceptance();
  }
  report.rhat_l1 = split_rhat(l1);
  report.rhat_z1 = split_rhat(z1);
  return report;
}

RhatReport run_rhat(const TableMoves& moves, const SwapChainConfig& chain_config, const RhatConfig& config,
                    RandomSource& rng, const Interrupts& interrupts) {
  if (config.chains < 2 || config.thin < 1) throw InvalidArgument("R-hat needs two chains and thin >= 1");
  SwapChainConfig wide = chain_config;
  wide.target = widened(chain_config.target, config.overdispersion_factor);
  const std::size_t first_cell = moves.tables().front().cells.front();
  std::vector<std::vector<double>> l1(config.chains), z1(config.chains);
  RhatReport report;
  for (int c = 0; c < config.chains; ++c) {
    TableSwapChain start(moves, wide);
    start.run(config.overdispersion_iterations, rng, interrupts);
    TableSwapChain chain(moves, chain_config);
    chain.reset_to(start.z());
    chain.run(config.burn_in, rng, interrupts);
    for (std::uint64_t k = 0; k < config.draws; ++k) {
      chain.run(config.thin, rng, interrupts);
      l1[c].push_back(double(chain.l1()));
      z1[c].push_back(double(chain.z()[first_cell]));
    }
    report.acceptance.move_proposed += chain.counts().proposed;
    report.acceptance.move_accepted += chain.counts().moved;
  }
  report.rhat_l1 = split_rhat(l1);
  report.rhat_z1 = split_rhat(z1);
  return report;
}

RhatReport run_rhat(const TableMoves& moves, double lambda, const RhatConfig& config, RandomSource& rng,
                    const Interrupts& interrupts) {
  if (config.chains < 2 || config.thin < 1) throw InvalidArgument("R-hat needs two chains and thin >= 1");
  const std::size_t first_cell = moves.tables().front().cells.front();
  std::vector<std::vector<double>> l2(config.chains), z1(config.chains);
  const double mean = (double(moves.rank()) + 1) / (lambda * lambda);
  for (int c = 0; c < config.chains; ++c) {
    ScaleMixtureChain chain(moves, lambda);
    const double exponent = double(2 * c + 1 - config.chains) / double(config.chains - 1);
    chain.start_at(mean * std::pow(8.0, exponent), rng, interrupts);
    chain.run(config.burn_in, rng, interrupts);
    for (std::uint64_t k = 0; k < config.draws; ++k) {
      chain.run(config.thin, rng, interrupts);
      l2[c].push_back(chain.l2());
      z1[c].push_back(double(chain.z()[first_cell]));
    }
  }
  RhatReport report;
  report.rhat_l1 = split_rhat(l2);
  report.rhat_z1 = split_rhat(z1);
  return report;
}

}  // namespace invariant_dp::mcmc
