// Exact discrete Gaussians; the argument for exactness is in
// discrete_gaussian.hpp.
#include "discrete_gaussian.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "../errors.hpp"
#include "../math_constants.hpp"
#include "bernoulli_exp.hpp"
#include "big_int.hpp"
#include "discrete_laplace.hpp"

namespace invariant_dp {
namespace {

// (floor(sigma) + 1)^2 den <= 2^58 for the uncentred mechanism (see the header).
constexpr Uint128 kMaxTSquaredDen = static_cast<Uint128>(1) << 58;

std::uint64_t floor_sqrt(std::uint64_t q) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(q)));
  // The double root can be off by one either way; fix it in exact integers.
  // Ends: the double square root is within one of the integer one.
  while (static_cast<Uint128>(r) * r > q) --r;
  while (static_cast<Uint128>(r + 1) * (r + 1) <= q) ++r;
  return r;
}

// A signed 128-bit integer whose arithmetic records overflow instead of
// wrapping: the fast width of the acceptance exponent.
struct Checked {
  Int128 v = 0;
  bool ok = true;
  explicit Checked(Int128 x) : v(x) {}
  explicit Checked(Uint128 x) : v(static_cast<Int128>(x)), ok(x <= static_cast<Uint128>(~Uint128{0} >> 1)) {}
};

Checked operator-(Checked a, Checked b) {
  Checked r(Int128{0});
  r.ok = a.ok && b.ok && !__builtin_sub_overflow(a.v, b.v, &r.v);
  return r;
}
Checked operator*(Checked a, Checked b) {
  Checked r(Int128{0});
  r.ok = a.ok && b.ok && !__builtin_mul_overflow(a.v, b.v, &r.v);
  return r;
}

// The acceptance exponent for proposal offset x >= 0 and centre fraction
// f = F/Q (applied with (-x, -F) for x < 0). With s^2 = Sn/Sd and
// g = gcd(Sd, Q), qg = Q/g, sg = Sd/g,
//   A     = x Sd qg t - F sg t - Sn qg,
//   gamma = [A^2 + (|F| - F) 2 Sn sg qg t] / [2 Sn Sd qg^2 t^2],
// which is (x - f - s^2/t)^2/(2 s^2) + (|f| - f)/t over a common
// denominator. Written once for both widths; (|F| - F) 2 = -4F for F < 0.
template <class Int>
void acceptance_exponent(const Int& x, const Int& F, bool F_negative, const Int& qg, const Int& sg, const Int& Sn,
                         const Int& Sd, const Int& t, Int& num, Int& den) {
  const Int A = x * Sd * qg * t - F * sg * t - Sn * qg;
  num = A * A;
  if (F_negative) num = num - Int(Int128{4}) * F * Sn * sg * qg * t;
  den = Int(Int128{2}) * Sn * Sd * qg * qg * t * t;
}

// The accept coin of one proposal: checked 128-bit integers, GMP when the
// exponent's parts leave them.
bool accept(RandomSource& rng, Uint128 x, Int128 F, Uint128 qg, Uint128 sg, Uint128 Sn, Uint128 Sd, Uint128 t) {
  Checked num(Int128{0}), den(Int128{0});
  acceptance_exponent(Checked(x), Checked(F), F < 0, Checked(qg), Checked(sg), Checked(Sn), Checked(Sd), Checked(t),
                      num, den);
  if (num.ok && den.ok)
    return sample_bernoulli_exp_neg_wide(rng, static_cast<Uint128>(num.v), static_cast<Uint128>(den.v));
  BigInt big_num, big_den;
  acceptance_exponent(BigInt(x), BigInt(F), F < 0, BigInt(qg), BigInt(sg), BigInt(Sn), BigInt(Sd), BigInt(t), big_num,
                      big_den);
  return sample_bernoulli_exp_neg_big(rng, big_num, big_den);
}

}  // namespace

std::int64_t sample_discrete_gaussian_centred(RandomSource& rng, Uint128 s2_num, Uint128 s2_den, std::int64_t c_num,
                                              std::int64_t c_den) {
  if (s2_num == 0 || s2_den == 0) throw InvalidArgument("discrete gaussian variance must be positive");
  if (c_den <= 0) throw InvalidArgument("centre of a discrete gaussian must have a positive denominator");
  const Uint128 s2_floor = s2_num / s2_den;
  if (s2_floor > UINT64_MAX) throw OutOfRange("discrete gaussian variance is too large");
  // c = r + F/Q with F/Q in [-1/2, 1/2): r = floor((2 c_num + Q) / (2 Q)).
  const Int128 Q = c_den;
  const Int128 twice = 2 * static_cast<Int128>(c_num) + Q;
  Int128 r = twice / (2 * Q);
  if (twice % (2 * Q) != 0 && twice < 0) --r;  // floor division
  const Int128 F = static_cast<Int128>(c_num) - r * Q;
  // floor(sqrt(x)) == floor(sqrt(floor(x))) for x >= 0.
  const Uint128 t = floor_sqrt(static_cast<std::uint64_t>(s2_floor)) + 1;
  const Uint128 g = gcd(s2_den, static_cast<Uint128>(Q));
  const Uint128 qg = static_cast<Uint128>(Q) / g, sg = s2_den / g;
  // Ends: a pass is accepted with probability at least about 0.3 for every sigma (Canonne, Kamath, Steinke
  // 2020, section 5.1).
  for (;;) {
    const std::int64_t y = sample_discrete_laplace(rng, Rational{static_cast<std::uint64_t>(t), 1});
    const bool negative = y < 0;
    const Uint128 ax = negative ? -static_cast<Uint128>(static_cast<Int128>(y)) : static_cast<Uint128>(y);
    if (accept(rng, ax, negative ? -F : F, qg, sg, s2_num, s2_den, t)) {
      const Int128 out = r + y;
      if (out > INT64_MAX || out < INT64_MIN) throw OutOfRange("discrete gaussian draw is out of range");
      return static_cast<std::int64_t>(out);
    }
  }
}

std::int64_t sample_discrete_gaussian(RandomSource& rng, Rational sigma2) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("discrete gaussian variance must be positive");
  const Uint128 t = floor_sqrt(sigma2.num / sigma2.den) + 1;
  const Uint128 t2 = t * t;  // < 2^65
  if (t2 > kMaxTSquaredDen || t2 * sigma2.den > kMaxTSquaredDen)
    throw OutOfRange("discrete gaussian variance is too large",
                     "The variance is " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) +
                         "; (floor(sigma) + 1)^2 times the denominator must not exceed 2^58.");
  return sample_discrete_gaussian_centred(rng, sigma2.num, sigma2.den, 0, 1);
}

namespace {

// sum_x x^2 w(x) / sum_x w(x) with w(x) = exp(-x^2/(2 s)), summed directly;
// converges within ~40 terms for s <= 1.
double variance_direct(double s) {
  double weighted = 0.0, total = 1.0;  // x = 0 contributes 0 and 1
  // Ends: called for s <= 1: at most 39 terms.
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
  // Ends: called for s > 1: c > 19, at most 7 terms.
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
