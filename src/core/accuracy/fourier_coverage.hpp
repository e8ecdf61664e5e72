// The coverage P(|X| <= t) of a symmetric integer-valued noise from its
// transform u(theta) = E e^(i theta X) at the N-th roots of unity, with a
// certified error (DERIVATIONS.md, section 10).
//
// The trapezoid rule on the circle is exact for trigonometric polynomials,
// so for N >= 2t + 1
//   Q_N(t) = (1/N) sum_{j=0}^{N-1} u(2 pi j/N) D_t(2 pi j/N) = P(X mod N in [-t, t]),
//   D_t(theta) = sum_{|y| <= t} e^(i theta y) = sin((2t + 1) theta/2) / sin(theta/2):
// the only error of the rule is aliasing, P(|X| <= t) <= Q_N(t) <=
// P(|X| <= t) + P(|X| >= N - t), which the callers bound by a tail bound.
// Here Q_N(t) itself is enclosed from the nodes the caller computed: each
// listed node's value with its error, a bound on the unlisted nodes'
// moduli (|D_t| <= 2t + 1), and the rounding of the sum (the numerator's
// angle (2t + 1) j mod 2N reduced exactly; |rounding of D_t| <=
// 4u / sin(pi j/N) + 6u |D_t|; a sum of K terms within (K + 2) u of the sum
// of their moduli; u = 2^-53).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp::accuracy {

// The unit roundoff of double: every operation's relative error is at most
// this (the error bounds below count operations in it).
constexpr double kDoubleUnit = 0x1p-53;

// u at the nodes j = 1 .. N/2 (u(0) = 1 and u(2 pi (N - j)/N) = u(2 pi j/N)).
struct SampledTransform {
  std::uint64_t period = 0;         // N
  std::vector<std::uint64_t> node;  // listed nodes, 1 <= j <= N/2, increasing
  std::vector<double> value;        // the computed u at each
  std::vector<double> error;        // |computed - exact| at each
  // At least sum over the unlisted j in [1, N/2] of w_j |u(2 pi j/N)|,
  // w_j = 2 for j < N/2 and 1 for j = N/2 (the multiplicity of +-j).
  double omitted = 0;
};

// Nodes a transform may list (32 bytes each in memory).
constexpr std::size_t kMaxTransformNodes = std::size_t(1) << 22;

struct CoverageBounds {
  double lower = 0, upper = 1;
};

// Q_N(t), enclosed; InvalidArgument unless 0 <= t and 2t + 1 <= N.
CoverageBounds periodic_coverage(const SampledTransform& transform, std::int64_t t, const Interrupts& interrupts);

struct Quantile {
  std::int64_t half_width = 0;  // q: the law's coverage of [-q, q] is at least the level, certainly
  double coverage_lower = 0;    // a lower bound of P(|X| <= q), >= level
  double narrower_upper = 0;    // an upper bound of P(|X| <= q - 1) (0 for q = 0)
  bool exact = false;           // narrower_upper < level: q is the smallest such integer
};

// The smallest t in [0, ceiling] whose certified lower coverage reaches the
// level, searched from `guess` (coverage is non-decreasing in t); OutOfRange
// when even the ceiling is not certified.
Quantile smallest_covering(const std::function<CoverageBounds(std::int64_t)>& coverage, double level,
                           std::int64_t guess, std::int64_t ceiling, const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
