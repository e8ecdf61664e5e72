// Exact Bernoulli(exp(-gamma)) for rational gamma >= 0.
// Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for Differential
// Privacy", Algorithm 1 (gamma in [0,1]) extended to gamma > 1 by
// exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))).
// Uses only integer arithmetic and uniform_below(); no floating point.
#pragma once

#include "../random_source.hpp"
#include "rational.hpp"

namespace invariant_dp {

bool sample_bernoulli_exp_neg(RandomSource& rng, Rational gamma);

}  // namespace invariant_dp
