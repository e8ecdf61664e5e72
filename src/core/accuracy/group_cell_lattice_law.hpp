// The law of one cell's noise under project_l2 in a zero-sum group (one
// margin's group of g cells), for every group size of a release in one pass
// (DERIVATIONS.md, section 18, "Groups of every size at once").
//
// The cell's row of the projector is e_0 - (1/g) 1, so with independent
// discrete Laplace cells e_j of scale b,
//   g X = (g - 1) e_0 - T_(g-1),   T_m = e_1 + ... + e_m,
// T_m independent of e_0, and P(|g X| <= q) = sum_k p(k) P(|(g - 1) k - T| <= q).
// T_m's law for m = 1, 2, ... is one convolution with p after another; p's
// kernel a^|y| makes each convolution two exponential filters (one in each
// direction), O(window) work, where the Fourier inversion of
// independent_sum_quantiles.hpp costs each size its own transform and tail
// bounds (some 0.8 ms a size, 0.24 s for a margin of 300 group sizes).
// Every quantity is a sum of products of positive numbers, so its rounding
// is bounded relatively (in double), and the window's dropped mass is
// read off the computed total: each coverage is enclosed, and a size's
// quantile is exact where the enclosures decide it, as smallest_covering
// decides it for the inversion (the same q wherever both are exact).
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "fourier_coverage.hpp"

namespace invariant_dp::accuracy {

// The work one pass may take (filter steps and window reads, about 6 ns
// each: 0.6 s at most, where each size's own inversion would take as
// long or longer): past it, TooLarge before any memory is taken.
constexpr double kMaxGroupLawWork = 1e8;

// For each size g >= 2 in `sizes`: the quantile of g X at `level`, i.e.
// the smallest integer q with P(|g X| <= q) >= level, certainly, with its
// enclosures (Quantile). TooLarge past kMaxGroupLawWork (large b with many
// or large groups); InvalidArgument for a size below 2.
std::map<std::size_t, Quantile> group_cell_lattice_quantiles(Rational b, const std::vector<std::size_t>& sizes,
                                                             double level, const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
