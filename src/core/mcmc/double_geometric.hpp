// The double-geometric step law eta(e) = ((1-a)/(1+a)) a^|e| of the proposal
// of Dharangutte, Gao, Gong, Yu 2023 (arXiv:2212.00936), Section 4, Eq. 11,
// and the rejection-based maximal coupling of two shifted copies used by
// their Algorithm 2 (Appendix D.2).
// Sampling draws |e| = 0 with probability (1-a)/(1+a), else 1 + Geometric
// by inversion, then a fair sign bit: the sign makes the law exactly
// symmetric whatever the floating-point rounding of the magnitude, so the
// Metropolis chain built on it keeps its target exactly.
#pragma once

#include <cstdint>
#include <utility>

#include "../interrupts.hpp"
#include "../random_source.hpp"

namespace invariant_dp::mcmc {

class DoubleGeometric {
 public:
  explicit DoubleGeometric(double a);  // 0 < a < 1, else InvalidArgument

  double a() const { return a_; }
  std::int64_t sample(RandomSource& rng) const;
  double log_pmf(std::int64_t e) const { return log_p0_ + static_cast<double>(e < 0 ? -e : e) * log_a_; }

  // Maximal coupling (Biswas et al. 2019, rejection form) of
  // X ~ eta(. - x_center) and Y ~ eta(. - y_center): returns (X, Y) with
  // P(X = Y) = sum_k min(eta(k - x_center), eta(k - y_center)). Its
  // second stage is reached with probability TV and then takes 1 / TV
  // passes on average (10^9 for nearby centres at a tiny rate): it polls.
  std::pair<std::int64_t, std::int64_t> maximal_coupling(std::int64_t x_center, std::int64_t y_center,
                                                          RandomSource& rng, const Interrupts& interrupts) const;

 private:
  double a_, log_a_, p0_, log_p0_;
};

}  // namespace invariant_dp::mcmc
