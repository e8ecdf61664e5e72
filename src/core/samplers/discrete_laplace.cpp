// Exact discrete Laplace: P(X = x) = (1-a)/(1+a) * a^|x|, a = exp(-den/num),
// for scale = num/den > 0.
//
// Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for Differential
// Privacy" (arXiv:2004.00010), Algorithm 2. With t = num, s = den:
//   U uniform on {0..t-1}, kept with probability exp(-U/t), and V ~
//   Geometric(1 - exp(-1)) make X = U + t*V exactly Geometric(1 - exp(-1/t))
//   (U and V are the remainder and quotient of X by t);
//   Y = floor(X/s) is then exactly Geometric(1 - exp(-s/t));
//   a fair sign B, rejecting (B = minus, Y = 0) so that 0 is not counted
//   twice, gives (1-2B)*Y with the two-sided law above.
// Exact because every coin is an exact Bernoulli(exp(-rational)) from
// Algorithm 1 (bernoulli_exp.cpp) or an exactly uniform integer; the only
// arithmetic is integer and checked.
#include "discrete_laplace.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "../errors.hpp"
#include "bernoulli_exp.hpp"

namespace invariant_dp {
namespace {

// scale <= 2^57 makes |X| > INT64_MAX (the only overflow left) need
// X/scale > 64, an event of probability below exp(-64).
constexpr Uint128 kMaxScale = static_cast<Uint128>(1) << 57;

void check_laplace_scale(Rational scale) {
  if (scale.num == 0 || scale.den == 0)
    throw InvalidArgument("discrete laplace scale must be positive");
  if (scale.num > kMaxScale * scale.den)
    throw OutOfRange("discrete laplace scale is too large",
                     "The scale is " + std::to_string(scale.num) + "/" +
                         std::to_string(scale.den) + "; at most 2^57 is supported.");
}

}  // namespace

Uint128 sample_discrete_geometric(RandomSource& rng, Rational scale) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("geometric scale must be positive");
  const std::uint64_t t = scale.num;
  // Ends: a pass keeps U with probability exp(-U/t) >= 1/e.
  for (;;) {
    // X = U + t V ~ Geometric(1 - exp(-1/t)), U kept with probability exp(-U/t).
    const std::uint64_t u = rng.uniform_below(t);
    if (!sample_bernoulli_exp_neg(rng, Rational{u, t})) continue;
    std::uint64_t v = 0;
    // Ends: a geometric number of passes, 1/(e - 1) on average.
    while (sample_bernoulli_exp_neg_wide(rng, 1, 1)) ++v;
    const Uint128 x = static_cast<Uint128>(t) * v + u;  // < 2^128: t, v < 2^64
    return x / scale.den;
  }
}

std::int64_t sample_discrete_laplace(RandomSource& rng, Rational scale) {
  check_laplace_scale(scale);
  // Ends: a pass is rejected (y = 0, negative) with probability at most 1/2.
  for (;;) {
    const Uint128 y = sample_discrete_geometric(rng, scale);
    if (y > static_cast<Uint128>(std::numeric_limits<std::int64_t>::max()))
      throw OutOfRange("discrete laplace draw does not fit in a bigint");
    const bool negative = rng.fair_bit();
    if (negative && y == 0) continue;
    const auto magnitude = static_cast<std::int64_t>(y);
    return negative ? -magnitude : magnitude;
  }
}

double discrete_laplace_variance(Rational scale) {
  check_laplace_scale(scale);
  const double r = static_cast<double>(scale.den) / static_cast<double>(scale.num);
  const double a = std::exp(-r);
  const double one_minus_a = -std::expm1(-r);  // no cancellation for large scales
  return 2.0 * a / (one_minus_a * one_minus_a);
}

}  // namespace invariant_dp
