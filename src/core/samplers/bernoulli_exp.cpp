// Exact Bernoulli(exp(-gamma)) for rational gamma = num/den >= 0.
//
// Canonne, Kamath, Steinke 2020, "The Discrete Gaussian for Differential
// Privacy" (arXiv:2004.00010), Algorithm 1. For gamma in [0, 1]: draw
// A_k ~ Bernoulli(gamma/k) for k = 1, 2, ... until the first A_k = 0, and
// answer whether that k is odd. P(first zero at k) = gamma^(k-1)/(k-1)! -
// gamma^k/k!, so P(k odd) = sum_j (-gamma)^j / j! = exp(-gamma) exactly. For
// gamma > 1, exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))):
// a conjunction of independent unit-interval draws has exactly the product law.
//
// Output law: P(true) = exp(-num/den), exactly. Every coin is a comparison of
// an exactly uniform integer with an integer bound; nothing is rounded, so
// the only deviation from the law is that of the underlying random bits.
//
// The algorithm is written once, as a template over the integer type; a
// width supplies only exact integer operations and its uniform_below().
#include "bernoulli_exp.hpp"

#include <gmp.h>

#include <cstdint>

#include "../errors.hpp"
#include "big_int.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(mp_limb_t) == 8, "a GMP limb must hold 64 random bits");

constexpr Uint128 kTwoPow64 = static_cast<Uint128>(1) << 64;

// ---- per width: the integer operations and a uniform integer below n ------

bool is_zero(Uint128 x) { return x == 0; }
bool is_zero(const BigInt& x) { return x.sign() == 0; }

void divide(Uint128 num, Uint128 den, Uint128& whole, Uint128& frac) {
  whole = num / den;
  frac = num % den;
}
void divide(const BigInt& num, const BigInt& den, BigInt& whole, BigInt& frac) {
  mpz_fdiv_qr(whole.get(), frac.get(), num.get(), den.get());
}

void decrement(Uint128& x) { --x; }
void decrement(BigInt& x) { mpz_sub_ui(x.get(), x.get(), 1); }

// Uniform on [0, n), n >= 1. Above 2^64, rejection from the smallest power
// of two covering n (high word first) accepts with probability > 1/2.
Uint128 uniform_below(RandomSource& rng, Uint128 n) {
  if (n < kTwoPow64) return rng.uniform_below(static_cast<std::uint64_t>(n));
  if (n == kTwoPow64) return rng.next_u64();
  const auto high_max = static_cast<std::uint64_t>((n - 1) >> 64);  // >= 1
  const int bits = 64 - __builtin_clzll(high_max);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  // Ends: a pass is accepted with probability above 1/2.
  for (;;) {
    const Uint128 high = rng.next_u64() & mask;
    const Uint128 x = (high << 64) | rng.next_u64();
    if (x < n) return x;
  }
}

// Uniform on [0, n), n >= 1: rejection from the smallest covering power of
// two, limbs drawn least significant first (accepts with probability > 1/2).
BigInt uniform_below(RandomSource& rng, const BigInt& n) {
  const std::size_t bits = mpz_sizeinbase(n.get(), 2);
  const std::size_t limbs = (bits + 63) / 64;
  const std::size_t top_bits = bits - 64 * (limbs - 1);
  const mp_limb_t mask = top_bits == 64 ? ~mp_limb_t{0} : (mp_limb_t{1} << top_bits) - 1;
  BigInt out;
  // Ends: a pass is accepted with probability above 1/2.
  for (;;) {
    mp_limb_t* p = mpz_limbs_write(out.get(), static_cast<mp_size_t>(limbs));
    for (std::size_t i = 0; i < limbs; ++i) p[i] = rng.next_u64();
    p[limbs - 1] &= mask;
    mpz_limbs_finish(out.get(), static_cast<mp_size_t>(limbs));
    if (out < n) return out;
  }
}

// ---- Algorithm 1, once ----------------------------------------------------

// Bernoulli(num/den), num <= den.
template <class Int>
bool bernoulli_ratio(RandomSource& rng, const Int& num, const Int& den) {
  if (is_zero(num)) return false;
  if (!(num < den)) return true;
  return uniform_below(rng, den) < num;
}

// Algorithm 1 proper, gamma = num/den in [0, 1]. Bernoulli(gamma/k) is drawn
// as Bernoulli(gamma) AND Bernoulli(1/k), which has the same law and never
// forms the product den*k, so no denominator can overflow.
template <class Int>
bool bernoulli_exp_neg_unit(RandomSource& rng, const Int& num, const Int& den) {
  if (is_zero(num)) return true;
  // Ends: pass k continues with probability at most 1/k: under e passes on average.
  for (std::uint64_t k = 1;; ++k) {
    const bool a = bernoulli_ratio(rng, num, den) && (k == 1 || rng.uniform_below(k) == 0);
    if (!a) return (k & 1) == 1;
  }
}

template <class Int>
bool bernoulli_exp_neg(RandomSource& rng, const Int& num, const Int& den) {
  Int whole, frac;
  divide(num, den, whole, frac);
  // Each exp(-1) factor is false with probability 1 - 1/e, so the loop ends
  // after fewer than 1.6 factors on average however large floor(gamma) is.
  for (; !is_zero(whole); decrement(whole))
    if (!bernoulli_exp_neg_unit<Uint128>(rng, 1, 1)) return false;
  return bernoulli_exp_neg_unit(rng, frac, den);
}

}  // namespace

bool sample_bernoulli_exp_neg_wide(RandomSource& rng, Uint128 num, Uint128 den) {
  if (den == 0) throw InvalidArgument("exponent of a bernoulli draw must have a positive denominator");
  return bernoulli_exp_neg(rng, num, den);
}

bool sample_bernoulli_exp_neg_big(RandomSource& rng, const BigInt& num, const BigInt& den) {
  if (den.sign() <= 0 || num.sign() < 0)
    throw InvalidArgument("exponent of a bernoulli draw must be a non-negative rational");
  return bernoulli_exp_neg(rng, num, den);
}

bool sample_bernoulli_ratio(RandomSource& rng, Uint128 num, Uint128 den) {
  if (den == 0 || num > den) throw InvalidArgument("a bernoulli probability must be a ratio num/den <= 1");
  return bernoulli_ratio(rng, num, den);
}

bool sample_bernoulli_exp_neg(RandomSource& rng, Rational gamma) {
  return sample_bernoulli_exp_neg_wide(rng, gamma.num, gamma.den);
}

}  // namespace invariant_dp
