// The exact per-cell variance of discrete Laplace noise conditioned on a zero
// group sum (the law of conditioned_laplace.hpp), for the per-cell standard
// deviation published with an integer_laplace release.
//
// With z = G - G' and, given the common total N = n, G and G' independent
// uniform compositions of n into k parts (Dirichlet-multinomial with all
// alphas 1): Var(G_i | n) = n (n + k) (k - 1) / (k^2 (k + 1)), E[G_i | n] =
// n / k, so E[z_i^2 | n] = 2 Var(G_i | n) and
//   Var(z_i) = 2 (k - 1) E[N (N + k)] / (k^2 (k + 1)),
// with P(N = n) proportional to C(n+k-1, k-1)^2 a^(2n), a = exp(-1/b). The
// expectation is summed numerically at a step that grows with N's spread,
// with Euler-Maclaurin endpoint corrections, so that its cost is bounded
// (a few thousand terms) whatever the scale; the .cpp derives the accuracy. Cells of one group are exchangeable
// with zero sum, so Cov(z_i, z_j) = -Var(z_i) / (k - 1).
#pragma once

#include <cstddef>

#include "rational.hpp"

namespace invariant_dp {

// Var(z_i) for a group of k >= 1 cells (0 for k = 1).
double conditioned_laplace_variance(Rational scale, std::size_t k);

}  // namespace invariant_dp
