// Exact Bernoulli(exp(-gamma)) for rational gamma >= 0.
// Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for Differential
// Privacy", Algorithm 1 (gamma in [0,1]) extended to gamma > 1 by
// exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))).
// Uses only integer arithmetic and uniform_below(); no floating point.
#pragma once

#include "../random_source.hpp"
#include "rational.hpp"

namespace invariant_dp {

// GCC/Clang 128-bit integer; __extension__ keeps -Wpedantic builds quiet.
__extension__ typedef unsigned __int128 Uint128;

bool sample_bernoulli_exp_neg(RandomSource& rng, Rational gamma);

// The same law for gamma = num/den with 128-bit parts (den > 0), for callers
// whose exact gamma does not fit in 64 bits (the discrete Gaussian's
// acceptance test). Cannot overflow.
bool sample_bernoulli_exp_neg_wide(RandomSource& rng, Uint128 num, Uint128 den);

}  // namespace invariant_dp
