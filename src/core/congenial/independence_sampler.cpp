#include "independence_sampler.hpp"

#include <cmath>
#include <cstdlib>

#include "../errors.hpp"
#include "../mcmc/lattice_chain.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

// Without margins, the noise law's own rate: the proposal is then the base
// law itself, the weights pi / q are constant on the non-negative tables,
// and the sampler is uniformly ergodic. With margins the pivot cells, which
// complete the free ones, spread the base law's noise further; a lighter
// tail (rate 1.2 / b) keeps more proposals non-negative near the data. Its
// weights grow with a table's distance from x, so a chain far out would
// stay there: the chains start at a noisy table near x (chain_starts.hpp).
double default_independence_proposal_a(double inverse_scale, bool with_margins) {
  return std::exp(-(with_margins ? 1.2 : 1.0) * inverse_scale);
}

IndependenceSampler::IndependenceSampler(const CongenialTarget& target, const UnimodularCompletion& completion,
                                         double proposal_a, std::vector<std::int64_t> start)
    : target_(&target),
      completion_(&completion),
      step_law_(proposal_a),
      proposal_epsilon_(-std::log(proposal_a)),
      y_(std::move(start)),
      candidate_(y_) {
  if (y_.size() != target.n_cells()) throw Error("the independence sampler's start does not fit its table");
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
