// The paper's sampler (Gong, Meng 2020, arXiv:2008.10202, Section 2.3,
// Algorithm 1: Metropolized Independence Sampling; the proposal of its
// Section 3): propose y~_I with i.i.d. double-geometric
// deviations of parameter a~ = exp(-eps~) from x_I, complete y~_{I^c} from
// the totals (unimodular_completion.hpp), and accept with
//   min{1, pi(y~) q(y_I) / (pi(y) q(y~_I))} * 1(y~ >= 0),
// in log space:  -(|y~ - x|_1 - |y - x|_1)/b + eps~ (|y~_I - x_I|_1 - |y_I - x_I|_1).
// The proposal is centred at x as in the paper; that is part of the
// mechanism's randomness and does not change the stationary law. The start
// is the public table, never x (congenial_target.hpp). Mixing is slow when
// the acceptance is small (about 1.7% at the best proposal on the paper's
// 2x23 table, its Appendix C); it is kept as the baseline.
// Convergence bound: with W = max pi/q (finite: q is positive wherever pi
// is), one step from any state y satisfies K(y, .) >= pi(.)/W, because
// the proposal s is accepted with probability min(1, w(s)/w(y)) >= w(s)/W
// (w = pi/q), so K(y, {s}) >= q(s) w(s)/W = pi(s)/W. A kernel with this
// minorization is within (1 - 1/W)^t of pi in total variation after t
// steps from any start (Roberts, Rosenthal 2004, "General state space Markov
// chains and MCMC algorithms", Probability Surveys 1, Theorem 8; for the
// independence sampler already Mengersen, Tweedie 1996, Ann. Statist. 24);
// the same holds for any pi-invariant kernel followed by one such step (a
// lattice sweep ends with one), whose kernel is then also >= pi/W.
// test/stat/stat_congenial.cpp computes W and runs the chains past that bound.
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

// eps~ = 1.2 / b by default with margins: the paper's best eps~ = 0.6 for
// eps = 0.5 per cell (its Section 3 and Appendix C); 1 / b, the base law
// itself, without (the .cpp says why).
double default_independence_proposal_a(double inverse_scale, bool with_margins);

}  // namespace invariant_dp
