// Exact Bernoulli(exp(-gamma)) for rational gamma = num/den >= 0: the one
// home of Canonne, Kamath, Steinke 2020 (arXiv:2004.00010), Algorithm 1,
// for every integer width (64-bit Rational, 128-bit, and GMP integers when
// an exact exponent outgrows 128 bits). Only integer arithmetic and exactly
// uniform integers; no floating point.
#pragma once

#include "../random_source.hpp"
#include "rational.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

class BigInt;

bool sample_bernoulli_exp_neg(RandomSource& rng, Rational gamma);

// The same law for gamma = num/den with 128-bit parts (den > 0), for callers
// whose exact gamma does not fit in 64 bits (the discrete Gaussian's
// acceptance test). Cannot overflow.
bool sample_bernoulli_exp_neg_wide(RandomSource& rng, Uint128 num, Uint128 den);

// The same law for GMP integers num >= 0, den > 0.
bool sample_bernoulli_exp_neg_big(RandomSource& rng, const BigInt& num, const BigInt& den);

// Bernoulli(num / den) for 0 <= num <= den, den > 0: one uniform integer
// below den.
bool sample_bernoulli_ratio(RandomSource& rng, Uint128 num, Uint128 den);

}  // namespace invariant_dp
