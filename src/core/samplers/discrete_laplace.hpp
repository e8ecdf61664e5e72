// Exact discrete Laplace: P(X = x) proportional to exp(-|x| / scale), x in Z.
// Canonne, Kamath, Steinke (2020), Algorithm 2. scale = num/den > 0.
// Var = 2a/(1-a)^2 with a = exp(-1/scale).
// Privacy: adding it to an integer query of l1 sensitivity D gives
// (D/scale)-DP (pure).
#pragma once

#include <cstdint>

#include "../random_source.hpp"
#include "rational.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

std::int64_t sample_discrete_laplace(RandomSource& rng, Rational scale);

// The one-sided law under it, CKS Algorithm 2's geometric part:
// P(Y = y) proportional to exp(-y / scale), y = 0, 1, ..., for scale =
// num/den > 0 (no range limit: callers check that Y fits where it goes).
Uint128 sample_discrete_geometric(RandomSource& rng, Rational scale);

// Variance of the law above, for metadata and tests.
double discrete_laplace_variance(Rational scale);

}  // namespace invariant_dp
