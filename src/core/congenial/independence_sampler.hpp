// The paper's sampler (congenial digest 3.3-3.4, Algorithm 1: Metropolized
// Independence Sampling): propose y~_I with i.i.d. double-geometric
// deviations of parameter a~ = exp(-eps~) from x_I, complete y~_{I^c} from
// the totals (unimodular_completion.hpp), and accept with
//   min{1, pi(y~) q(y_I) / (pi(y) q(y~_I))} * 1(y~ >= 0),
// in log space:  -(|y~ - x|_1 - |y - x|_1)/b + eps~ (|y~_I - x_I|_1 - |y_I - x_I|_1).
// The proposal is centred at x as in the paper; that is part of the
// mechanism's randomness and does not change the stationary law. The start
// is the public table, never x (digest §7.5). Mixing is slow when the
// acceptance is small (digest 3.6: ~1.5% on the 2x23 table); it is kept as
// the baseline, and its TV to the target after t steps is at most
// (1 - 1/W)^t with W = max pi/q (digest 7.5), which the tests compute.
#pragma once

#include <cstdint>
#include <vector>

#include "../mcmc/double_geometric.hpp"
#include "../random_source.hpp"
#include "congenial_target.hpp"
#include "unimodular_completion.hpp"

namespace invariant_dp {

class IndependenceSampler {
 public:
  // proposal_a: a~ in (0, 1). start must lie in S*.
  IndependenceSampler(const CongenialTarget& target, const UnimodularCompletion& completion, double proposal_a,
                      std::vector<std::int64_t> start);
  // Moves the chain to y (in S*), e.g. when another kernel moved it.
  void reset(const std::vector<std::int64_t>& y);
  // One proposal and its accept/reject; true if accepted.
  bool step(RandomSource& rng);
  const std::vector<std::int64_t>& state() const { return y_; }
  std::uint64_t proposed() const { return proposed_; }
  std::uint64_t accepted() const { return accepted_; }
  std::uint64_t rejected_by_sign() const { return negative_; }

 private:
  double proposal_log_weight(const std::vector<std::int64_t>& y) const;  // eps~ |y_I - x_I|_1

  const CongenialTarget* target_;
  const UnimodularCompletion* completion_;
  mcmc::DoubleGeometric step_law_;
  double proposal_epsilon_;
  std::vector<std::int64_t> y_, candidate_;
  double log_pi_, log_weight_;  // of the current state
  std::uint64_t proposed_ = 0, accepted_ = 0, negative_ = 0;
};

// eps~ = 1.2 / b by default: the paper's best eps~ = 0.6 for eps = 0.5 per
// cell (digest 3.6).
double default_independence_proposal_a(double inverse_scale);

}  // namespace invariant_dp
