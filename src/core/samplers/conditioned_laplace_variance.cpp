#include "conditioned_laplace_variance.hpp"

#include <cmath>

namespace invariant_dp {
namespace {

// log of C(n+k-1, k-1)^2 a^(2n), up to a constant.
double log_weight(double n, double k, double log_a) {
  return 2 * (std::lgamma(n + k) - std::lgamma(n + 1)) + 2 * n * log_a;
}

// Adds w(n) n (n + k) and w(n) for n = start, start + step, ... while the
// terms matter, relative to the mode's weight.
void sum_side(double start, double step, double k, double log_a, double log_mode, double& total,
              double& moment) {
  for (double n = start; n >= 0; n += step) {
    const double w = std::exp(log_weight(n, k, log_a) - log_mode);
    total += w;
    moment += w * n * (n + k);
    if (w < 1e-17 * total && std::abs(n - start) > 10) break;
  }
}

}  // namespace

double conditioned_laplace_variance(Rational scale, std::size_t cells) {
  if (cells < 2) return 0;
  const double k = double(cells);
  const double log_a = -double(scale.den) / double(scale.num);
  const double a = std::exp(log_a);
  // w(n+1)/w(n) = ((n+k)/(n+1))^2 a^2 >= 1 up to the mode (n+k) a = n+1.
  const double mode = std::max(0.0, std::floor((k * a - 1) / (1 - a)));
  const double log_mode = log_weight(mode, k, log_a);
  double total = 0, moment = 0;
  sum_side(mode, 1, k, log_a, log_mode, total, moment);
  sum_side(mode - 1, -1, k, log_a, log_mode, total, moment);
  return 2 * (k - 1) * (moment / total) / (k * k * (k + 1));
}

}  // namespace invariant_dp
