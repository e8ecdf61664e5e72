// Exact i.i.d. discrete Gaussian noise conditioned on zero sums within the
// groups of a partition of the cells:
//
//   P(z)  proportional to  exp(-||z||^2 / (2 sigma2))  on
//   {z in Z^d : sum_{i in g} z_i = 0 for every group g},  sigma2 = num/den > 0.
//
// The density and the constraints factorise over groups, so groups are
// independent; a group of one cell gets 0. A group of k >= 2 cells is the
// lattice A_{k-1} = {v in Z^k : sum v = 0} with basis b_i = e_i - e_{i+1}
// (i = 1..k-1), and the target is the discrete Gaussian rho_sigma(v) =
// exp(-||v||^2 / (2 sigma2)) restricted to it. Method: the sequential
// sampler of Klein 2000 (SODA, "Finding the closest lattice vector when it's
// unusually close"; shown to sample the discrete Gaussian by Gentry, Peikert,
// Vaikuntanathan 2008, STOC, Section 4), made exact with the rejection step
// of Brakerski, Langlois, Peikert, Regev, Stehle 2013 (arXiv:1306.0281),
// Lemma 2.3:
//
// 1. Gram-Schmidt. b~_i = (1/i)(e_1 + ... + e_i) - e_{i+1}, so
//    ||b~_i||^2 = (i+1)/i in [1, 2]. Write v = sum_i z_i b_i; then z_i is the
//    partial sum v_1 + ... + v_i (v_1 = z_1, v_j = z_j - z_{j-1},
//    v_k = -z_{k-1}), and with z_k = 0 the orthogonal decomposition gives
//      ||v||^2 = sum_{i=1}^{k-1} ||b~_i||^2 (z_i - c_i)^2,
//      c_i = <sum_{j>i} z_j b_j, -b~_i> / ||b~_i||^2 = i z_{i+1} / (i+1),
//    hence rho_sigma(v) = prod_i rho_{s_i}(z_i - c_i) with
//    s_i^2 = sigma2 i / (i+1) >= sigma2 / 2.
// 2. Klein's sampler draws z_{k-1}, ..., z_1 in turn, z_i from the 1-D
//    discrete Gaussian D_{Z, s_i, c_i} (centre c_i fixed by the previous
//    draw), so v is output with probability
//      prod_i rho_{s_i}(z_i - c_i) / rho_{s_i}(Z - c_i)
//      = rho_sigma(v) / prod_i rho_{s_i}(Z - c_i).
//    The denominator depends on v through the centres, so the output is
//    only close to the target. Accepting v with probability
//      prod_i R_i,   R_i = rho_{s_i}(Z - c_i) / rho_{s_i}(Z)
//    (each R_i <= 1, see 4) and otherwise restarting the whole group gives
//    P(v, accepted) = rho_sigma(v) / prod_i rho_{s_i}(Z), a constant times
//    the target: the accepted v has exactly the target law. The product is
//    drawn as independent Bernoulli(R_i) coins, all of which must succeed
//    (a conjunction of independent coins has the product law).
// 3. D_{Z, s, c} exactly: Canonne, Kamath, Steinke 2020 (arXiv:2004.00010),
//    Algorithm 3 with a rational centre (discrete_gaussian.hpp); a rejection
//    there redraws that step only (allowed: the step's own law is
//    normalised by construction). No floating point.
// 4. The coins Bernoulli(R_i) are KleinCorrection's (klein_correction.hpp):
//    by Poisson summation R = theta(f)/theta(0) <= 1, R = 1 when f = 0 (no
//    coin), R >= 1 - 4 q/(1 - q), q = exp(-2 pi^2 s^2); one certified lower
//    bound at s^2 = sigma2/2 decides almost every coin from one 64-bit word,
//    the rest are decided exactly against outward-rounded enclosures of
//    theta(f)/theta(0). For sigma2 >= 6, q < 2^-85: about one coin in 2^64
//    reaches MPFR.
// 5. When (k - 1) 4q/(1 - q) > 1/2 (small sigma2, where the Klein step
//    could reject often) the group is drawn by naive rejection instead:
//    i.i.d. exact discrete Gaussians (discrete_gaussian.hpp) kept iff their
//    sum is 0 -- exactly the conditional law -- if the expected number of
//    draws, about k sqrt(2 pi (k sigma2 + 1)), is at most 2^27; otherwise
//    OutOfRange. The choice depends only on (sigma2, k), never on draws.
// Cost: O(k) expected per group: one 1-D draw (a few discrete Laplace
// proposals and CKS coins on 128-bit rationals) and one 64-bit word per
// cell; the whole-group acceptance is >= 1 - 4 (k - 1) q/(1 - q), i.e. 1 up
// to < 1e-18 for sigma2 >= 6 and k <= 10^6. Measured (test/bench): about
// 1 us per cell at sigma2 = 60 and 400 (1M cells in 50 groups: ~1 s).
//
// Limits: sigma2 < 2^40 (check_klein_variance, OutOfRange beyond). A centre numerator i z_{i+1}
// that would leave int64 throws OutOfRange; for k <= 2^24 that needs a
// partial sum beyond 40 standard deviations, probability nil.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "discrete_gaussian.hpp"
#include "rational.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

// The law above on the partition of zero_sum_groups.hpp, written to z (or
// added to its base). InvalidArgument for a zero variance or a bad
// partition; OutOfRange if the variance is too large or too small for a
// group's size (see 5 and Limits) or a sum leaves bigint; Interrupted on
// cancel.
void sample_gaussian_with_zero_group_sums(RandomSource& rng, Rational sigma2, const ZeroSumPartition& groups,
                                          NoiseOutput z, const Interrupts& interrupts);

// Exposed for tests: one group of k >= 2 cells by steps 1-4 whatever
// sigma2 (a small sigma2 sends most correction coins to MPFR).
void sample_gaussian_zero_sum_klein(RandomSource& rng, Rational sigma2, std::size_t k, std::int64_t* z,
                                    const Interrupts& interrupts);

}  // namespace invariant_dp
