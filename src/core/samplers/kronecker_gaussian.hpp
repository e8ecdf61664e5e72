// Exact discrete Gaussian noise on the lattice of an r x c table with both
// margins fixed:
//
//   P(Z)  proportional to  exp(-||Z||^2 / (2 sigma2))  on
//   L = {Z in Z^{r x c} : every row sum and every column sum is 0},
//   sigma2 = num/den > 0, r, c >= 2.
//
// No anchor has an exact sampler here (the integer-subspace paper, the
// Census and the libraries use MCMC or optimisation). The derivation below
// goes beyond the papers; test_kronecker_gaussian.cpp checks it against the
// enumerated law.
//
// 1. A basis, and coordinates. With d_i = e_i - e_{i+1} (i = 1..r-1) and
//    g_j = f_j - f_{j+1} (j = 1..c-1), the (r-1)(c-1) adjacent 2 x 2 swaps
//    b_ij = d_i (x) g_j lie in L. Every Z in L is an integer combination:
//    y_ij = sum_{p <= i, q <= j} Z_pq (2-D prefix sums, integers) gives
//    Z_pq = y_pq - y_{p-1,q} - y_{p,q-1} + y_{p-1,q-1} with y = 0 off
//    1..r-1 x 1..c-1 (y_rq = 0 and y_pc = 0 because the column and row sums
//    of Z vanish), i.e. Z = sum y_ij b_ij. So the b_ij are a basis of L, not
//    of a sublattice, and ||Z||^2 = y^T (G_r (x) G_c) y with G_k =
//    tridiag(-1, 2, -1) of order k - 1, the Gram matrix of the d_i.
// 2. Gram-Schmidt data. G_k = R_k^T R_k with R_k upper bidiagonal:
//    R_k[i,i]^2 = (i+1)/i, R_k[i,i+1] = -sqrt(i/(i+1)) (induction:
//    R[1,1]^2 = 2, R[i,i] R[i,i+1] = -1, R[i+1,i+1]^2 = 2 - R[i,i+1]^2 =
//    (i+2)/(i+1)); these are the Gram-Schmidt norms of conditioned_gaussian
//    step 1. The Cholesky factor of a Kronecker product is the Kronecker
//    product of the factors, so in lexicographic order of (i, j)
//      ||Z||^2 = || (R_r (x) R_c) y ||^2 = sum_ij D_ij^2 (y_ij - c_ij)^2,
//      D_ij^2 = ((i+1)/i) ((j+1)/j)  in (1, 4],
//      c_ij = a_i y_{i+1,j} + b_j y_{i,j+1} - a_i b_j y_{i+1,j+1},
//      a_i = i/(i+1), b_j = j/(j+1),
//    because row (i,j) of R_r (x) R_c has four entries, D_ij at (i,j) and
//    D_ij times -a_i, -b_j, a_i b_j at (i+1,j), (i,j+1), (i+1,j+1) (the
//    ratios R[i,i+1]/R[i,i] = -a_i). Hence rho_sigma(Z) = prod_ij
//    rho_{s_ij}(y_ij - c_ij) with s_ij^2 = sigma2 a_i b_j >= sigma2/4.
// 3. Klein's sampler visits (i, j) in reverse lexicographic order, so each
//    centre c_ij depends on coordinates already drawn, and draws y_ij from
//    D_{Z, s_ij, c_ij} exactly (sample_discrete_gaussian_centred, with the
//    rational centre c_num / ((i+1)(j+1))). The output has probability
//    rho_sigma(Z) / prod_ij rho_{s_ij}(Z - c_ij); accepting it with
//    probability prod_ij rho_{s_ij}(Z - c_ij) / rho_{s_ij}(Z) (independent
//    coins, KleinCorrection, each <= 1 by Poisson summation) and otherwise
//    restarting the whole table leaves P(Z, accepted) = rho_sigma(Z) /
//    prod_ij rho_{s_ij}(Z), a constant times the target: exact (Brakerski,
//    Langlois, Peikert, Regev, Stehle 2013, Lemma 2.3).
// 4. Acceptance. Each coin fails with probability at most 4q/(1 - q),
//    q = exp(-2 pi^2 sigma2/4) (klein_correction.hpp), so a table is
//    accepted with probability >= 1 - (r-1)(c-1) 4q/(1 - q). The sampler is
//    used only when that bound is >= 1/2 (at most two attempts expected):
//    sigma2 >= 4 covers tables up to 4.6e7 cells, sigma2 = 2 about 2,400,
//    sigma2 = 1 about 17. Calibrations at epsilon <= 1 (delta = 1e-6, a
//    2 x 2 swap of l2 norm 2) give sigma2 > 100; at epsilon = 10, delta =
//    1e-3 sigma2 is about 1, and larger tables fall back to the chain.
//    kronecker_gaussian_applies() states the condition; callers fall back.
// Cost: one 1-D exact draw and at most one 64-bit word per cell, O(cells)
// memory (the coordinates y). Limits as conditioned_gaussian: sigma2 < 2^40,
// centre numerators within int64 (OutOfRange otherwise; for tables below
// 2^24 cells that needs a prefix sum beyond 40 standard deviations).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "rational.hpp"

namespace invariant_dp {

// Whether the exact sampler's acceptance bound (step 4) is at least 1/2
// for this variance and shape.
bool kronecker_gaussian_applies(Rational sigma2, std::size_t rows, std::size_t cols);

// Writes z[0 .. rows*cols), row-major, with the law above. Throws
// InvalidArgument for rows or cols < 2, a zero variance or a null z;
// OutOfRange when !kronecker_gaussian_applies or past the limits;
// Interrupted on cancel (polled along the way).
void sample_two_way_lattice_gaussian(RandomSource& rng, Rational sigma2, std::size_t rows, std::size_t cols,
                                     std::int64_t* z, const Interrupts& interrupts);

// Exposed for the power test only: Klein's sequential draw without the
// correction coins (close to, but not exactly, the target).
void sample_two_way_klein_uncorrected(RandomSource& rng, Rational sigma2, std::size_t rows, std::size_t cols,
                                      std::int64_t* z, const Interrupts& interrupts);

}  // namespace invariant_dp
