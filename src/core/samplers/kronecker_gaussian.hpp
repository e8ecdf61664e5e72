// Exact discrete Gaussian noise on the lattice of a complete K-way table
// (K >= 2) whose (K-1)-way margins are all fixed: for K = 2 the row and
// column totals of an r x c table, for K = 3 the three two-way margins of
// an n1 x n2 x n3 cube:
//
//   P(Z)  proportional to  exp(-||Z||^2 / (2 sigma2))  on
//   L = {Z in Z^{n_1 x ... x n_K} : every line sum is 0},
//   sigma2 = num/den > 0, every n_k >= 2.
//
// No anchor has an exact sampler here (the integer-subspace paper, the
// Census and the libraries use MCMC or optimisation). The derivation below
// goes beyond the papers; stat_kronecker_gaussian.cpp checks it against the
// enumerated law. Written for K = 2 with i, j; K = 3 replaces every pair by
// a triple and every product of two factors by three.
//
// 1. A basis, and coordinates. With d_i = e_i - e_{i+1} (i = 1..r-1) and
//    g_j = f_j - f_{j+1} (j = 1..c-1), the (r-1)(c-1) adjacent 2 x 2 swaps
//    b_ij = d_i (x) g_j lie in L. Every Z in L is an integer combination:
//    y_ij = sum_{p <= i, q <= j} Z_pq (prefix sums, integers) gives
//    Z_pq = y_pq - y_{p-1,q} - y_{p,q-1} + y_{p-1,q-1} with y = 0 off
//    1..r-1 x 1..c-1 (y_rq = 0 and y_pc = 0 because the column and row sums
//    of Z vanish), i.e. Z = sum y_ij b_ij. So the b_ij are a basis of L, not
//    of a sublattice, and ||Z||^2 = y^T (G_r (x) G_c) y with G_k =
//    tridiag(-1, 2, -1) of order k - 1, the Gram matrix of the d_i. (K-way:
//    K-fold prefix sums, Z_a = sum over T of (-1)^|T| y_{a - 1_T}.)
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
//    (K-way: 2^K entries per row, c_a = sum over nonempty S of
//    (-1)^(|S|+1) prod_{k in S} a_{i_k} y_{i + 1_S}, s^2 >= sigma2/2^K.)
// 3. Klein's sampler visits the coordinates in reverse lexicographic order,
//    so each centre depends on coordinates already drawn, and draws y from
//    D_{Z, s, c} exactly (sample_discrete_gaussian_centred, with the
//    rational centre c_num / prod (i_k + 1)). The output has probability
//    rho_sigma(Z) / prod rho_s(Z - c); accepting it with probability
//    prod rho_s(Z - c) / rho_s(Z) (independent coins, KleinCorrection,
//    each <= 1 by Poisson summation) and otherwise restarting the whole
//    table leaves P(Z, accepted) = rho_sigma(Z) / prod rho_s(Z), a constant
//    times the target: exact (Brakerski, Langlois, Peikert, Regev, Stehle
//    2013, Lemma 2.3).
// 4. Acceptance. Each coin fails with probability at most 4q/(1 - q),
//    q = exp(-2 pi^2 sigma2 / 2^K) (klein_correction.hpp), so a table of m
//    coordinates is accepted with probability >= 1 - m 4q/(1 - q). The
//    sampler is used only when that bound is >= 1/2 (at most two attempts
//    expected). K = 2: sigma2 >= 4 covers tables up to 4.6e7 cells, sigma2 =
//    2 about 2,400, sigma2 = 1 about 17; K = 3 needs twice the sigma2 for
//    the same sizes. Calibrations at epsilon <= 1 (delta = 1e-6, |v|_2^2 =
//    2^K) give sigma2 > 100; at epsilon = 10, delta = 1e-3 sigma2 is about
//    1 (K = 2), and larger tables fall back to the chain.
//    table_lattice_gaussian_applies() states the condition.
// Cost: 2^K terms per centre, one 1-D exact draw and at most one 64-bit
// word per cell; O(cells) memory (the coordinates y). Limits as
// conditioned_gaussian: sigma2 < 2^40, centre numerators within int64
// (OutOfRange otherwise; for tables below 2^24 cells that needs a prefix
// sum beyond 40 standard deviations).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "rational.hpp"

namespace invariant_dp {

constexpr std::size_t kMaxTableDimensions = 6;

// Whether the exact sampler's acceptance bound (step 4) is at least 1/2
// for this variance and shape (n_1, ..., n_K).
bool table_lattice_gaussian_applies(Rational sigma2, const std::vector<std::size_t>& shape);

// Writes z[0 .. prod n_k), row-major (last dimension fastest), with the law
// above. Throws InvalidArgument for fewer than two dimensions, a dimension
// below 2, a zero variance or a null z; OutOfRange when
// !table_lattice_gaussian_applies or past the limits; Interrupted on cancel.
void sample_table_lattice_gaussian(RandomSource& rng, Rational sigma2, const std::vector<std::size_t>& shape,
                                   std::int64_t* z, const Interrupts& interrupts);

// Exposed for the power test only: Klein's sequential draw without the
// correction coins (close to, but not exactly, the target).
void sample_table_klein_uncorrected(RandomSource& rng, Rational sigma2, const std::vector<std::size_t>& shape,
                                    std::int64_t* z, const Interrupts& interrupts);

}  // namespace invariant_dp
