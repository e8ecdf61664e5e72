// Exact discrete Gaussian: P(X = x) proportional to exp(-x^2 / (2 sigma2)),
// x in Z. Canonne, Kamath, Steinke (2020), Algorithm 3 (rejection from a
// discrete Laplace with scale t = floor(sigma) + 1). sigma2 = num/den > 0.
#pragma once

#include <cstdint>

#include "../random_source.hpp"
#include "rational.hpp"

namespace invariant_dp {

std::int64_t sample_discrete_gaussian(RandomSource& rng, Rational sigma2);

// Exact variance of the law above (a convergent series; slightly below
// sigma2 for small sigma2), for metadata and tests.
double discrete_gaussian_variance(Rational sigma2);

}  // namespace invariant_dp
