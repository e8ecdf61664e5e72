// Double-geometric sampling and maximal coupling (double_geometric.hpp).
#include "double_geometric.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp::mcmc {

DoubleGeometric::DoubleGeometric(double a) : a_(a) {
  if (!(a > 0 && a < 1)) throw InvalidArgument("proposal parameter a must be in (0, 1)");
  log_a_ = std::log(a);
  p0_ = (1 - a) / (1 + a);
  log_p0_ = std::log(p0_);
}

// P(|e| = k) = (1 - p0) (1 - a) a^(k-1) = 2 p0 a^k for k >= 1, as required:
// floor(log U / log a) >= j iff U <= a^j.
std::int64_t DoubleGeometric::sample(RandomSource& rng) const {
  if (rng.uniform_open01() < p0_) return 0;
  const double g = std::floor(std::log(rng.uniform_open01()) / log_a_);
  // a near 1 makes g as large as any double: refused rather than converted.
  const std::int64_t magnitude = checked_add(1, checked_int64(g, kNoisyCountOutOfRange), kNoisyCountOutOfRange);
  return rng.fair_bit() ? magnitude : -magnitude;
}

// Algorithm 2, lines 4-12: X from p; keep Y = X when s p(X) <= q(X); else
// draw Y from q until s~ q(Y) > p(Y). Identical centers always couple.
std::pair<std::int64_t, std::int64_t> DoubleGeometric::maximal_coupling(std::int64_t x_center,
                                                                         std::int64_t y_center,
                                                                         RandomSource& rng,
                                                                         const Interrupts& interrupts) const {
  const std::int64_t x = checked_add(x_center, sample(rng), kNoisyCountOutOfRange);
  if (x_center == y_center) return {x, x};
  const double log_s = std::log(rng.uniform_open01());
  if (log_s + log_pmf(x - x_center) <= log_pmf(x - y_center)) return {x, x};
  for (std::uint64_t pass = 1;; ++pass) {
    interrupts.poll_every(pass);
    const std::int64_t y = checked_add(y_center, sample(rng), kNoisyCountOutOfRange);
    const double log_t = std::log(rng.uniform_open01());
    if (log_t + log_pmf(y - y_center) > log_pmf(y - x_center)) return {x, y};
  }
}

}  // namespace invariant_dp::mcmc
