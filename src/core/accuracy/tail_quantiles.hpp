// Half-widths t of symmetric intervals [y - t, y + t] that cover a released
// value's truth with probability at least `level` (0 < level < 1) under a
// noise law, or under any law a tail bound holds for. Every one is rounded
// so that the coverage it states is never more than the law gives:
//
//   discrete Laplace of scale b   exact quantile: the smallest integer t with
//                                 P(|X| > t) = 2 a^(t+1) / (1 + a) <= 1 - level,
//                                 a = exp(-1/b), decided on MPFR enclosures;
//   discrete Gaussian D_{Z, s2}   exact quantile, tails times a factor
//                                 ratio >= 1 (lattice_bounds.hpp): direct sums
//                                 of exp(-x^2/(2 s2)) for s2 <= 1e6 (double,
//                                 a t is taken only when its tail clears
//                                 1 - level by a relative 1e-9, far above the
//                                 sums' rounding), else the continuous
//                                 bound P(|X| > t) <= erfc(t / sqrt(2 s2))
//                                 (Poisson summation: the normaliser is at
//                                 least sqrt(2 pi s2); a decreasing tail sum
//                                 is at most its integral), at most one count
//                                 above the exact quantile;
//   normal                        exact: z sqrt(V), z rounded up;
//   sub-Gaussian                  sqrt(2 V log(2 / (1 - level))): any law with
//                                 E exp(l X) <= exp(l^2 V / 2), e.g. a lattice
//                                 Gaussian centred at 0 with its continuous
//                                 variance V (Poisson summation);
//   Gauss                         symmetric unimodal laws of variance V
//                                 (Gauss 1823): (2/3) sqrt(V / (1 - level)) for
//                                 level >= 2/3, else sqrt(3 V) level;
//   Chebyshev                     any law of variance V: sqrt(V / (1 - level)).
// Integer releases round a real half-width up to an integer.
#pragma once

#include <cstdint>

#include "../samplers/rational.hpp"

namespace invariant_dp::accuracy {

// InvalidArgument unless 0 < level < 1.
void check_level(double level);

std::int64_t discrete_laplace_half_width(Rational b, double level);
std::int64_t discrete_gaussian_half_width(double s2, double level, double ratio = 1);

// P(|X| > t) for X discrete Laplace of scale b, in double (for tests and for
// reporting the exact coverage of an integer interval).
double discrete_laplace_tail(Rational b, std::int64_t t);
// P(|X| > t) for D_{Z, s2}, in double.
double discrete_gaussian_tail(double s2, std::int64_t t);

// The two-sided normal quantile z: P(|N(0, 1)| > z) <= 1 - level.
double normal_quantile(double level);
double normal_half_width(double variance, double level);
double sub_gaussian_half_width(double variance, double level);
double gauss_half_width(double variance, double level);
double chebyshev_half_width(double variance, double level);

// ceil(t) as an integer half-width; OutOfRange beyond 2^62.
std::int64_t integer_half_width(double t);

}  // namespace invariant_dp::accuracy
