// Exact discrete Gaussian: P(X = x) = exp(-x^2 / (2 sigma2)) / Z, x in Z,
// Z = sum_y exp(-y^2 / (2 sigma2)), for sigma2 = num/den > 0.
//
// Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for Differential
// Privacy", Algorithm 3: draw Y from the discrete Laplace with scale
// t = floor(sigma) + 1 and accept it with probability
//   exp(-(|Y| - sigma2/t)^2 / (2 sigma2)).
// Proposal times acceptance is proportional to
//   exp(-|y|/t - (|y| - sigma2/t)^2 / (2 sigma2)) = exp(-y^2/(2 sigma2)) * const,
// so an accepted Y has exactly the law above, whatever t is; t only sets the
// acceptance rate (CKS show it is bounded away from 0 with this choice).
// Exact because the acceptance coin is Algorithm 1 on the exact rational
//   gamma = (|Y| t den - num)^2 / (2 num t^2 den),
// formed with checked 128-bit integers, never a floating-point value.
#include "discrete_gaussian.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "../errors.hpp"
#include "bernoulli_exp.hpp"
#include "discrete_laplace.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;
constexpr double kPi = 3.14159265358979323846;

// t^2 den <= 2^58 keeps the acceptance exponent's denominator below 2^123 and
// makes an overflowing numerator (|Y| t den >= 2^64, i.e. |Y| >= 64 t) an
// event of probability below exp(-64). It allows sigma2 up to about 2^58/den.
constexpr u128 kMaxTSquaredDen = static_cast<u128>(1) << 58;

std::uint64_t floor_sqrt(std::uint64_t q) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(q)));
  // The double root can be off by one either way; fix it in exact integers.
  while (static_cast<u128>(r) * r > q) --r;
  while (static_cast<u128>(r + 1) * (r + 1) <= q) ++r;
  return r;
}

struct Params {
  std::uint64_t t;  // floor(sigma) + 1
  u128 td;          // t * den
  u128 gamma_den;   // 2 * num * t^2 * den
};

Params make_params(Rational sigma2) {
  if (sigma2.num == 0 || sigma2.den == 0)
    throw InvalidArgument("discrete gaussian variance must be positive");
  // floor(sqrt(x)) == floor(sqrt(floor(x))) for x >= 0.
  const std::uint64_t t = floor_sqrt(sigma2.num / sigma2.den) + 1;
  const u128 t2 = static_cast<u128>(t) * t;  // < 2^65
  if (t2 > kMaxTSquaredDen || t2 * sigma2.den > kMaxTSquaredDen)
    throw OutOfRange("discrete gaussian variance is too large",
                     "The variance is " + std::to_string(sigma2.num) + "/" +
                         std::to_string(sigma2.den) +
                         "; (floor(sigma) + 1)^2 times the denominator must not exceed 2^58.");
  return Params{t, static_cast<u128>(t) * sigma2.den, 2 * sigma2.num * (t2 * sigma2.den)};
}

}  // namespace

std::int64_t sample_discrete_gaussian(RandomSource& rng, Rational sigma2) {
  const Params p = make_params(sigma2);
  for (;;) {
    const std::int64_t y = sample_discrete_laplace(rng, Rational{p.t, 1});
    const u128 abs_y = y < 0 ? -static_cast<u128>(y) : static_cast<u128>(y);
    // |y| t den < 2^64 keeps the squared numerator below 2^128.
    if (abs_y > static_cast<u128>(UINT64_MAX) / p.td)
      throw OutOfRange("discrete gaussian proposal is out of range");
    const u128 scaled = abs_y * p.td;
    const u128 diff = scaled >= sigma2.num ? scaled - sigma2.num : sigma2.num - scaled;
    if (sample_bernoulli_exp_neg_wide(rng, diff * diff, p.gamma_den)) return y;
  }
}

namespace {

// sum_x x^2 w(x) / sum_x w(x) with w(x) = exp(-x^2/(2 s)), summed directly;
// converges within ~40 terms for s <= 1.
double variance_direct(double s) {
  double weighted = 0.0, total = 1.0;  // x = 0 contributes 0 and 1
  for (double x = 1.0; x * x / (2.0 * s) < 750.0; x += 1.0) {
    const double w = std::exp(-x * x / (2.0 * s));
    weighted += 2.0 * x * x * w;
    total += 2.0 * w;
  }
  return weighted / total;
}

// The same quantity through Poisson summation: with q = exp(-2 pi^2 s),
//   Var = s - 4 pi^2 s^2 * sum_k k^2 q^(k^2) / sum_k q^(k^2),
// which converges within a few terms for s >= 1 (q <= 2.7e-9) and needs no
// O(sigma) loop for large variances.
double variance_dual(double s) {
  const double c = 2.0 * kPi * kPi * s;
  double weighted = 0.0, total = 1.0;
  for (double k = 1.0; c * k * k < 750.0; k += 1.0) {
    const double w = std::exp(-c * k * k);
    weighted += 2.0 * k * k * w;
    total += 2.0 * w;
  }
  return s - 4.0 * kPi * kPi * s * s * weighted / total;
}

}  // namespace

double discrete_gaussian_variance(Rational sigma2) {
  if (sigma2.num == 0 || sigma2.den == 0)
    throw InvalidArgument("discrete gaussian variance must be positive");
  const double s = sigma2.to_double();
  return s <= 1.0 ? variance_direct(s) : variance_dual(s);
}

}  // namespace invariant_dp
