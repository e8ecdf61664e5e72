// Rounding a positive double *up* to a rational with bounded denominator, for
// the exact samplers (Canonne, Kamath, Steinke 2020, section 5: scales enter
// the samplers as num/den so that no floating-point rounding enters the noise
// law). Certified: the result r satisfies r >= x exactly (every comparison is
// done in integer arithmetic on the double's mantissa and exponent), r has
// denominator <= max_den, and r is the smallest such rational, so in
// particular r < x + 1/max_den (ceil(x * max_den) / max_den is a candidate).
//
// Method: a Stern-Brocot descent that keeps L < x <= R with L, R adjacent
// fractions; every fraction strictly between adjacent L and R has a
// denominator >= den(L) + den(R), so once that sum exceeds max_den, R is the
// answer. Runs of equal steps are taken at once by binary search, so the
// number of rounds is that of the continued fraction of x (< 100).
#include "rational.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "../errors.hpp"
#include "wide_int.hpp"

namespace invariant_dp {
namespace {

// A positive finite double below 2^64 as m * 2^e with m an integer < 2^53.
struct Dyadic {
  std::uint64_t mantissa;
  int exponent;
};

Dyadic decompose(double x) {
  int e = 0;
  const double frac = std::frexp(x, &e);  // x = frac * 2^e, frac in [0.5, 1)
  const auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));  // exact
  return Dyadic{m, e - 53};
}

// ceil(x * q) exactly. Requires x < 2^64 and q < 2^64, so the result < 2^128.
Uint128 ceil_times(const Dyadic& x, std::uint64_t q) {
  const Uint128 product = static_cast<Uint128>(x.mantissa) * q;  // < 2^117
  if (x.exponent >= 0) return product << x.exponent;
  const int shift = -x.exponent;
  if (shift >= 128) return product == 0 ? 0 : 1;
  const Uint128 quotient = product >> shift;
  const Uint128 remainder = product & ((static_cast<Uint128>(1) << shift) - 1);
  return quotient + (remainder != 0 ? 1 : 0);
}

// p / q >= x, exactly (p integer, so p >= x q  <=>  p >= ceil(x q)).
bool at_least(Uint128 p, std::uint64_t q, const Dyadic& x) { return p >= ceil_times(x, q); }

struct Frac {
  Uint128 num;
  std::uint64_t den;
};

// Largest k in [0, k_max] with pred(k) true, given pred(0) true and pred
// monotone (true then false).
template <typename Pred>
std::uint64_t last_true(std::uint64_t k_max, Pred pred) {
  std::uint64_t lo = 0, hi = k_max;
  // Ends: bisection below k_max < 2^64: at most 64 passes.
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (pred(mid)) lo = mid; else hi = mid - 1;
  }
  return lo;
}

}  // namespace

Rational rational_at_least(double x, std::uint64_t max_den) {
  if (!(x > 0) || !std::isfinite(x))
    throw OutOfRange("value to round must be positive and finite",
                     "The value is " + format_double(x) + ".");
  if (max_den == 0) throw OutOfRange("maximum denominator must be positive");
  if (x >= 0x1p64)
    throw OutOfRange("value is too large for an exact rational",
                     "The value is " + format_double(x) + ".");
  const Dyadic dx = decompose(x);
  const Uint128 ceil_x = ceil_times(dx, 1);  // >= 1
  Frac left{ceil_x - 1, 1};               // < x
  Frac right{ceil_x, 1};                  // >= x
  // Fractions seen below are <= ceil(x) with denominators <= max_den, so
  // their numerators stay below 2^128.
  // Ends: each pass takes a whole run of the continued fraction, so the denominators at least double every two
  // passes: about 2 log2(max_den).
  while (static_cast<Uint128>(left.den) + right.den <= max_den) {
    const Frac mid{left.num + right.num, left.den + right.den};
    if (at_least(mid.num, mid.den, dx)) {
      // Move right towards left: right + k * left, largest k still >= x.
      const std::uint64_t k = last_true((max_den - right.den) / left.den, [&](std::uint64_t j) {
        return at_least(right.num + j * left.num, right.den + j * left.den, dx);
      });
      right = Frac{right.num + k * left.num, right.den + k * left.den};
    } else {
      // Move left towards right: left + k * right, largest k still < x.
      const std::uint64_t k = last_true((max_den - left.den) / right.den, [&](std::uint64_t j) {
        return !at_least(left.num + j * right.num, left.den + j * right.den, dx);
      });
      left = Frac{left.num + k * right.num, left.den + k * right.den};
    }
  }
  if (right.num > UINT64_MAX)
    throw OutOfRange("value is too large for an exact rational",
                     "The value is " + format_double(x) + ".");
  return Rational{static_cast<std::uint64_t>(right.num), right.den};
}

}  // namespace invariant_dp
