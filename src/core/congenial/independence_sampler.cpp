#include "independence_sampler.hpp"

#include <cmath>
#include <cstdlib>

#include "../mcmc/lattice_chain.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

// The noise law's own rate: the proposal on the free cells is then the base
// law, so the weights pi / q are at most the pivot cells' factors (<= 1)
// and the sampler is uniformly ergodic; a lighter tail (a smaller a) would
// weigh a far table so heavily that a chain there never leaves.
double default_independence_proposal_a(double inverse_scale) { return std::exp(-inverse_scale); }

IndependenceSampler::IndependenceSampler(const CongenialTarget& target, const UnimodularCompletion& completion,
                                         double proposal_a, std::vector<std::int64_t> start)
    : target_(&target),
      completion_(&completion),
      step_law_(proposal_a),
      proposal_epsilon_(-std::log(proposal_a)),
      y_(std::move(start)),
      candidate_(y_) {
  log_pi_ = target.log_density(y_);
  log_weight_ = proposal_log_weight(y_);
}

void IndependenceSampler::reset(const std::vector<std::int64_t>& y) {
  y_ = y;
  log_pi_ = target_->log_density(y_);
  log_weight_ = proposal_log_weight(y_);
}

double IndependenceSampler::proposal_log_weight(const std::vector<std::int64_t>& y) const {
  double l1 = 0;
  for (auto i : completion_->free_cells()) l1 += static_cast<double>(std::llabs(y[i] - target_->center[i]));
  return proposal_epsilon_ * l1;
}

bool IndependenceSampler::step(RandomSource& rng) {
  ++proposed_;
  for (auto i : completion_->free_cells())
    candidate_[i] = checked_add(target_->center[i], step_law_.sample(rng), kNoisyCountOutOfRange);
  completion_->complete(candidate_);
  const double log_pi = target_->log_density(candidate_);
  if (std::isinf(log_pi)) {
    ++negative_;
    return false;
  }
  const double log_weight = proposal_log_weight(candidate_);
  // log [pi(y~) q(y_I)] - log [pi(y) q(y~_I)], with log q(y_I) = -eps~ |y_I - x_I|_1 + const.
  const double log_ratio = (log_pi - log_pi_) + (log_weight - log_weight_);
  if (!mcmc::metropolis_accepts(log_ratio, rng.uniform_open01())) return false;
  y_.swap(candidate_);
  candidate_ = y_;
  log_pi_ = log_pi;
  log_weight_ = log_weight;
  ++accepted_;
  return true;
}

}  // namespace invariant_dp
