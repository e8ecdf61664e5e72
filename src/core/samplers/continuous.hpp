// Real-valued noise for the subspace mechanisms (Gao, Gong, Yu 2022,
// arXiv:2108.11527, Corollaries 3.5 and 3.8), whose outputs are real by
// definition. Built on uniform_open01():
// Gaussian by the Box-Muller transform with 53-bit uniforms, Laplace by
// inversion. Floating-point noise is not bit-exact DP (Mironov 2012); the
// integer mechanisms are the exact ones. docs/mechanisms.md, "Privacy
// semantics", says so.
#pragma once

#include <cstddef>

#include "../interrupts.hpp"
#include "../random_source.hpp"

namespace invariant_dp {

// N(0, sigma^2).
double sample_gaussian(RandomSource& rng, double sigma);

// out[0 .. n) i.i.d. N(0, sigma^2), both values of each Box-Muller pair
// used (they are independent): half the uniforms and logarithms of n calls
// of sample_gaussian. Nothing is kept past the call, so two calls (two
// releases) never share a draw.
void sample_gaussians(RandomSource& rng, double sigma, double* out, std::size_t n, const Interrupts& interrupts);

// Laplace with density exp(-|x|/b) / (2b); variance 2 b^2.
double sample_laplace(RandomSource& rng, double b);

}  // namespace invariant_dp
