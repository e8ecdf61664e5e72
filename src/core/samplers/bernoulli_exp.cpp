// Exact Bernoulli(exp(-gamma)) for rational gamma = num/den >= 0.
//
// Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for Differential
// Privacy", Algorithm 1. For gamma in [0, 1]: draw A_k ~ Bernoulli(gamma/k)
// for k = 1, 2, ... until the first A_k = 0, and answer whether that k is
// odd. P(first zero at k) = gamma^(k-1)/(k-1)! - gamma^k/k!, so
// P(k odd) = sum_j (-gamma)^j / j! = exp(-gamma) exactly. For gamma > 1,
// exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))): a
// conjunction of independent unit-interval draws has exactly the product law.
//
// Output law: P(true) = exp(-num/den), exactly. Every coin is a comparison of
// an exactly uniform integer (RandomSource::uniform_below or the 128-bit
// rejection below) with an integer bound; nothing is rounded, so the only
// deviation from the law is that of the underlying random bits.
#include "bernoulli_exp.hpp"

#include <cstdint>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;
constexpr u128 kTwoPow64 = static_cast<u128>(1) << 64;

// Uniform on [0, n) for 128-bit n >= 1. Above 2^64, rejection from the
// smallest power of two covering n accepts with probability > 1/2.
u128 uniform_below_wide(RandomSource& rng, u128 n) {
  if (n < kTwoPow64) return rng.uniform_below(static_cast<std::uint64_t>(n));
  if (n == kTwoPow64) return rng.next_u64();
  const auto high_max = static_cast<std::uint64_t>((n - 1) >> 64);  // >= 1
  const int bits = 64 - __builtin_clzll(high_max);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  for (;;) {
    const u128 high = rng.next_u64() & mask;
    const u128 x = (high << 64) | rng.next_u64();
    if (x < n) return x;
  }
}

// Bernoulli(num/den), num <= den.
bool bernoulli_ratio(RandomSource& rng, u128 num, u128 den) {
  if (num == 0) return false;
  if (num >= den) return true;
  return uniform_below_wide(rng, den) < num;
}

// Algorithm 1 proper, gamma = num/den in [0, 1]. Bernoulli(gamma/k) is drawn
// as Bernoulli(gamma) AND Bernoulli(1/k), which has the same law and never
// forms the product den*k, so no denominator can overflow.
bool bernoulli_exp_neg_unit(RandomSource& rng, u128 num, u128 den) {
  if (num == 0) return true;
  for (std::uint64_t k = 1;; ++k) {
    const bool a = bernoulli_ratio(rng, num, den) && (k == 1 || rng.uniform_below(k) == 0);
    if (!a) return (k & 1) == 1;
  }
}

}  // namespace

bool sample_bernoulli_exp_neg_wide(RandomSource& rng, u128 num, u128 den) {
  if (den == 0) throw InvalidArgument("exponent of a bernoulli draw must have a positive denominator");
  // Each exp(-1) factor is false with probability 1 - 1/e, so the loop ends
  // after fewer than 1.6 factors on average however large floor(gamma) is.
  const u128 whole = num / den;
  for (u128 i = 0; i < whole; ++i) {
    if (!bernoulli_exp_neg_unit(rng, 1, 1)) return false;
  }
  return bernoulli_exp_neg_unit(rng, num % den, den);
}

bool sample_bernoulli_exp_neg(RandomSource& rng, Rational gamma) {
  return sample_bernoulli_exp_neg_wide(rng, gamma.num, gamma.den);
}

}  // namespace invariant_dp
