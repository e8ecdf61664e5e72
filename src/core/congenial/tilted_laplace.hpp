// The per-cell proposal of the exact group rejection (group_rejection.hpp):
// an exponentially tilted discrete Laplace truncated below,
//
//   p(z)  proportional to  exp(-|z| / b) exp(theta z)  on  z >= -x,
//
// i.e. a two-sided geometric with rate alpha_+ = 1/b - theta on z >= 0 and
// alpha_- = 1/b + theta on z < 0 (|theta| < 1/b). Within a margin group the
// congenial target is the product of the theta = 0 laws conditioned on a
// zero group sum; for any theta shared by the group the product of the tilted
// laws differs from it by exp(theta * sum z), which is 1 on the zero-sum set,
// so the conditional given sum z = 0 is the same for every theta. The tilt is
// chosen (balancing_tilt) only to make the zero sum likely.
//
// A cell may also be bounded above, z <= u (a two-line table's cell pair:
// two_line_congenial.hpp); the same argument holds on [-x, u], which
// always contains the mode 0.
//
// Exactness. theta is a dyadic multiple of 1/b, so both rates are rationals.
// Z = G_+ - G_- with independent G_+ ~ Geometric(rate alpha_+) and
// G_- ~ Geometric(rate alpha_-) (P(G = g) proportional to exp(-alpha g)) has
// P(Z = z) proportional to exp(-alpha_+ z) for z >= 0 and exp(-alpha_- |z|)
// for z <= 0 (sum the joint law over G_- = g - z); redrawing while Z < -x
// gives the truncated law (for x = 0 that law is Geometric(alpha_+) itself,
// drawn directly). With an upper bound u and few values ((x + u + 1) alpha
// <= 2 for the rate of each side that [-x, u] reaches) the proposal is
// instead a uniform value of [-x, u] kept with probability p(z)/p(0) (an
// exact Bernoulli(exp(-rational))), accepted with probability at least
// e^-2; otherwise the difference of geometrics (Geometric(alpha_+) alone for
// x = 0) is redrawn while outside [-x, u]. Each geometric is drawn as in
// Canonne, Kamath, Steinke (2020), Algorithm 2 (samplers/discrete_laplace.cpp): only exact
// Bernoulli(exp(-rational)) coins (samplers/bernoulli_exp.hpp) and exactly
// uniform integers. The doubles below choose theta and estimate acceptance;
// they never enter a draw.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "../random_source.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp {

// No upper bound on a cell's noise (the margin groups' cells: z >= -x only).
constexpr std::int64_t kNoUpperBound = std::numeric_limits<std::int64_t>::max();

struct TiltedRates {
  Rational up;    // alpha_+ = 1/b - theta, > 0
  Rational down;  // alpha_- = 1/b + theta, > 0
  double theta_times_b = 0;
};

// theta = steps / 2^bits / b, |steps| < 2^bits. Throws OutOfRange when a rate
// does not fit in 64-bit parts.
TiltedRates tilted_rates(Rational scale, std::int64_t steps, unsigned bits);

// The untilted law (theta = 0): the plain discrete Laplace of scale b.
TiltedRates untilted_rates(Rational scale);

// Mean, variance and P(Z = 0) of the truncated law of a cell of count x >= 0
// and upper bound u >= 0 (closed forms, double precision).
struct CellMoments {
  double mean = 0, variance = 0, mass_at_zero = 0;
};
CellMoments truncated_moments(const TiltedRates& rates, std::int64_t count, std::int64_t upper = kNoUpperBound);

// The tilt, |theta| <= 0.9 / b, whose summed truncated means over the cells
// of `counts` (with the upper bounds `uppers`, or none when empty) is
// closest to 0 (bisection on the dyadic grid; the sum is increasing in
// theta).
TiltedRates balancing_tilt(Rational scale, const std::vector<std::int64_t>& counts,
                           const std::vector<std::int64_t>& uppers = {});

// One exact draw of Z from the truncated tilted law, count = x >= 0, upper
// bound u >= 0.
std::int64_t sample_truncated_tilted(RandomSource& rng, const TiltedRates& rates, std::int64_t count,
                                     std::int64_t upper = kNoUpperBound);

// Bernoulli(p(z) / p(0)) for the truncated tilted law of a cell of count x
// and upper bound u: 0 outside [-x, u], else exp(-alpha |z|) with the rate of
// z's side; exact.
bool accept_against_mode(RandomSource& rng, const TiltedRates& rates, std::int64_t z, std::int64_t count,
                         std::int64_t upper = kNoUpperBound);

}  // namespace invariant_dp
