// Exact quantiles of sums of cells of a zero-sum group: k i.i.d. discrete
// Laplace (or discrete Gaussian) cells conditioned on a zero total, the law
// of integer_laplace (integer_gaussian) on one margin group
// (samplers/conditioned_laplace.hpp, conditioned_gaussian.hpp), and of the
// first line of a 2 x n table with both margins, whose table is (y, -y)
// with y such a group at half the parameter (samplers/two_line_table.hpp).
// DERIVATIONS.md, section 11.
//
// The sum asked is X = sum_i w_i z_i with w_i in {+1, -1, 0}: `plus` cells
// of weight +1, `minus` of weight -1, `zero` others (weights that differ by
// a constant on a group give one X: the group sums to 0). A set of cells of
// a group has minus = 0; a set of cells of a 2 x n table has, on its first
// line y, +1 for a column whose first cell only is in the set, -1 for a
// column whose second cell only is, 0 for the others (two_line_counts).
// With Psi_N the trapezoid sum over the constraint's Fourier variable,
//   Psi_N(theta) = (1/N) sum_l phi(eta_l + theta)^plus phi(eta_l - theta)^minus phi(eta_l)^zero,
// the ratio Psi_N(theta_j) / Psi_N(0) is exactly the transform of X given
// that the total is 0 modulo N; it is non-negative (every factor is), and
// its modulus is at most the pair majorant to the power
// min(plus + minus, zero) (integer_noise_transforms.hpp). Several
// independent groups (GroupTerm) multiply their transforms. The inversion
// (fourier_coverage.hpp) gives P(|X| <= t) for the groups conditioned
// modulo N; each such law is within P(|S_g| >= N) / P(S_g = 0) of the true
// one in total variation, and the aliasing P(|X| >= N - t) is bounded by
// Chernoff on the conditioned groups: all of it below 1e-20 by the choice
// of N.
//
// Cost: (nodes in theta) x (window in eta) per distinct group pattern:
// small when the groups and the sum are large (narrow peaks), up to N^2
// for small groups at large scales; TooLarge beyond kMaxGroupWork terms. For
// a set of cells (minus = 0) past that limit, independent_sum_quantile over
// the `plus` cells alone is a certified conservative bound (DERIVATIONS.md,
// section 5: the conditioned sum is dominated by the unconditioned one).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "fourier_coverage.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {

struct SignedCounts {
  std::uint64_t plus = 0, minus = 0, zero = 0;  // cells of weight +1, -1, 0
};

// A sum over several independent groups (the groups of a partition, the
// first lines of several 2 x n tables): `groups` groups with these counts.
struct GroupTerm {
  SignedCounts counts;
  std::uint64_t groups = 1;
};

// Terms (node x window) the inversion may sum.
constexpr double kMaxGroupWork = 4e8;

// The first line's weights of a set of cells of a 2 x n table: `first`
// columns with only their first-line cell in the set, `second` with only the
// second-line one (columns with both or neither add 0). Pair with
// halved(noise).
SignedCounts two_line_counts(std::uint64_t n, std::uint64_t first, std::uint64_t second);

// Enclosure of P(|X| <= t | the group sums to 0).
CoverageBounds zero_sum_coverage(IntegerNoise noise, SignedCounts group, std::int64_t t,
                                 const Interrupts& interrupts);

// The smallest q with P(|X| <= q | sum 0) >= level, certified.
Quantile zero_sum_quantile(IntegerNoise noise, SignedCounts group, double level, const Interrupts& interrupts);

// The same for X summed over independent groups, each given its own zero
// total: the product of the groups' transforms, inverted once.
CoverageBounds zero_sum_coverage(IntegerNoise noise, const std::vector<GroupTerm>& terms, std::int64_t t,
                                 const Interrupts& interrupts);
Quantile zero_sum_quantile(IntegerNoise noise, const std::vector<GroupTerm>& terms, double level,
                           const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
