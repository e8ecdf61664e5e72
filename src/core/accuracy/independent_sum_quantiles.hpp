// Exact quantiles of weighted sums of independent integer noise cells: the
// noise of a sum of released cells under discrete_laplace and
// discrete_gaussian (and integer_laplace / integer_gaussian without
// margins), and of any node set over such cells rolled up into a
// hierarchy, whose leaves then carry small integer weights (the number of
// selected nodes above each). DERIVATIONS.md, section 10.
//
// X = sum over terms of weight * (sum of `cells` i.i.d. cells), weights >= 1
// (a negative weight is its absolute value: the cells are symmetric).
// Its transform is prod phi(w theta)^m_w, evaluated at the nodes
// 2 pi j / N and inverted by fourier_coverage.hpp; N is chosen so that the
// aliasing P(|X| >= N - t) is below 1e-20 (Chernoff), and nodes are listed
// until the rest can only add 1e-18 (phi^m_1 is a decreasing majorant
// when some weight is 1; otherwise every node is visited). The returned
// half-width q has certified coverage >= level, and `exact` says that
// q - 1 certainly has less: q is then the exact quantile of the law.
//
// Cost: the listed nodes, about 60 for a sum of many cells (the transform
// is a narrow peak), up to N/2 for a few cells of a wide Laplace law (N
// about 50 b), times a handful of evaluations. TooLarge beyond
// kMaxTransformNodes listed nodes (a few discrete Laplace cells beyond
// b ~ 10^5: their closed-form single-cell quantile remains).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "fourier_coverage.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {

// Enclosure of P(|X| <= t).
CoverageBounds independent_sum_coverage(IntegerNoise noise, std::vector<WeightedCells> terms, std::int64_t t,
                                        const Interrupts& interrupts);

// The smallest q with P(|X| <= q) >= level, certified (0 < level < 1).
Quantile independent_sum_quantile(IntegerNoise noise, std::vector<WeightedCells> terms, double level,
                                  const Interrupts& interrupts);

// P(|X| <= t) for t up to t_max, from one sampled transform (normalised
// terms: normalise_terms).
class SumCoverage {
 public:
  SumCoverage(const NoiseTransform& law, std::vector<WeightedCells> terms, std::int64_t t_max,
              const Interrupts& interrupts);
  CoverageBounds operator()(std::int64_t t) const;
  std::int64_t t_max() const { return t_max_; }

 private:
  const NoiseTransform& law_;
  std::vector<WeightedCells> terms_;
  std::int64_t t_max_;
  SampledTransform transform_;
  const Interrupts& interrupts_;
};

// The terms as the inversion uses them: zero counts dropped, equal weights
// merged, the weights divided by their greatest common divisor g (returned;
// 0 when the sum has no cell): X = g X'. InvalidArgument for a zero weight
// with cells, or more than 2^53 cells in all.
std::uint64_t normalise_terms(std::vector<WeightedCells>& terms);

// The transform of sum over terms at N-point nodes, listing nodes until the
// rest can only add `negligible` to a coverage of a half-width up to t_max.
SampledTransform sample_independent_sum(const NoiseTransform& law, const std::vector<WeightedCells>& terms,
                                        std::uint64_t N, std::int64_t t_max, double negligible,
                                        const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
