// Exact discrete Gaussians, the one home of Canonne, Kamath, Steinke 2020,
// "The Discrete Gaussian for Differential Privacy" (arXiv:2004.00010),
// Algorithm 3 (rejection from a discrete Laplace of integer scale
// t = floor(s) + 1), for a rational variance and a rational centre:
//
//   D_{Z, s, c}:  P(x) proportional to exp(-(x - c)^2 / (2 s^2)),  x in Z.
//
// Why exact. Write c = r + f with r the nearest integer and f = F/Q in
// [-1/2, 1/2). Propose x from the discrete Laplace of scale t (CKS
// Algorithm 2, discrete_laplace.hpp), P(x) ~ exp(-|x|/t), and accept with
// probability exp(-gamma(x)),
//   gamma(x) = (x - f)^2/(2 s^2) - |x|/t + C,  C = |f|/t + s^2/(2 t^2),
// which is >= 0 because the real maximum of -(x - f)^2/(2 s^2) +/- x/t is
// s^2/(2t^2) +/- f/t <= C; in closed form, for x >= 0,
//   gamma = (x - f - s^2/t)^2 / (2 s^2) + (|f| - f)/t,
// and symmetrically (x -> -x, f -> -f) for x < 0. Proposal times acceptance
// is exp(-C) exp(-(x - f)^2/(2 s^2)) / norm, so an accepted r + x has
// exactly the law D_{Z, s, c}, whatever t is; t only sets the acceptance
// rate (CKS show it is bounded away from 0 with this t). For c = 0 this is
// CKS Algorithm 3 as printed: gamma = (|x| - s^2/t)^2 / (2 s^2).
// gamma is an exact rational, formed in checked 128-bit integers and in GMP
// integers when those would overflow, and the coin is CKS Algorithm 1
// (bernoulli_exp.hpp): no floating point enters the law.
#pragma once

#include <cstdint>

#include "../random_source.hpp"
#include "rational.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

// D_{Z, s, 0} for s^2 = sigma2 = num/den > 0. Refuses (OutOfRange) a
// variance with (floor(sigma) + 1)^2 den > 2^58, the mechanism's documented
// range: within it the 128-bit path serves every draw but those of
// probability below e^-43 (beyond it draws would still be exact, on GMP).
std::int64_t sample_discrete_gaussian(RandomSource& rng, Rational sigma2);

// D_{Z, s, c} for s^2 = s2_num / s2_den > 0 with floor(s^2) < 2^64 and
// c = c_num / c_den, c_den > 0. OutOfRange if a draw leaves int64.
std::int64_t sample_discrete_gaussian_centred(RandomSource& rng, Uint128 s2_num, Uint128 s2_den,
                                              std::int64_t c_num, std::int64_t c_den);

// Exact variance of D_{Z, s, 0} (a convergent series; slightly below
// sigma2 for small sigma2), for metadata and tests.
double discrete_gaussian_variance(Rational sigma2);

}  // namespace invariant_dp
