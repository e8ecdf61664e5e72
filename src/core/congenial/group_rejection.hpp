// Exact congenial draws where the margins form one partition of the cells
// (or there is no margin): the target factorises over the groups, so each
// group is drawn on its own, by the rejection sampling that Gong, Meng 2020
// (arXiv:2008.10202) Section 2.3 mentions as the simplest exact method,
// made practical by the tilted proposal below (ours).
//
// Within a group of cells i with counts x_i and a fixed total, the noise z
// has the law of independent discrete Laplace(b) variables truncated to
// z_i >= -x_i, conditioned on sum z = 0. With no margin every cell is its own
// unconstrained group and is drawn directly from its truncated law.
//
// The sampler (tilted_laplace.hpp for the per-cell law and its exactness):
//   1. theta = balancing_tilt: the same exponential tilt for every cell of
//      the group, chosen so that the tilted truncated means sum to about 0
//      (zero cells push the sum up; without the tilt a group with many small
//      cells almost never sums to 0). Any theta gives the same conditional law.
//   2. closing cell k: the cell with the smallest P(Z_k = 0) (the widest).
//      Propose z_i, i != k, exactly from the tilted truncated laws; set
//      z_k = -sum_{i != k} z_i; accept with probability p_k(z_k) / p_k(0)
//      (p_k's mode is 0), an exact Bernoulli(exp(-rational)). The accepted
//      z has density proportional to prod_i p_i(z_i) on sum z = 0: the target.
// Acceptance is P_theta(S = 0) / p_k(0), estimated by a normal approximation
// of S = sum z; it depends on the data. Each group gets
// max(budget, 50 / estimated acceptance) proposals, so a correct estimate
// leaves a failure probability near e^-50, unless that many proposals would
// draw more than 2^24 cells: then the estimate says rejection is hopeless
// (many small cells with a small total: no tilt balances them) and only
// `budget` proposals are tried. A group with a zero total is set to 0 (its
// only table).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/composition_total.hpp"
#include "../samplers/rational.hpp"
#include "congenial_target.hpp"
#include "tilted_laplace.hpp"

namespace invariant_dp {

// Kept for callers that cache composition-total samplers across draws; the
// tilted group sampler does not use them.
using CompositionSamplers = std::map<std::uint64_t, std::unique_ptr<CompositionTotalSampler>>;

// One group's proposal plan: the tilt, the closing cell and the budget.
struct GroupPlan {
  std::vector<std::uint32_t> cells;  // the group's cells, closing cell last
  double estimated_acceptance = 1;
  std::uint64_t budget = 0;
};

// The plan of a constrained group of >= 2 cells with the given counts (in
// the order of `cells`), and its tilt.
GroupPlan plan_group(const std::vector<std::int64_t>& center, std::vector<std::uint32_t> cells, Rational scale,
                     std::uint64_t min_budget, TiltedRates& rates);

// One group of cells whose noise is bounded on both sides, z_i in
// [-lower_i, upper_i] (lower_i, upper_i >= 0; upper_i = kNoUpperBound for
// none), with sum z = 0: the same sampler with the bounded truncated laws
// (tilted_laplace.hpp) and the same plan (tilt, closing cell, budget). A
// group whose bounds leave only z = 0 (one cell, or every lower or every
// upper bound 0) gets it without randomness. Writes z (in the order of the
// bounds) and returns true, or false when the budget ran out (z then
// unspecified). proposals counts the proposals made.
bool sample_bounded_group(const std::vector<std::int64_t>& lower, const std::vector<std::int64_t>& upper,
                          Rational scale, std::uint64_t min_budget, RandomSource& rng, const Interrupts& interrupts,
                          std::vector<std::int64_t>& z, std::uint64_t& proposals);

// Writes accepted groups into y and returns the groups that exhausted their
// budget (their cells in y untouched). group_of_cell: each cell's group
// (n_groups of them); constrained = the groups' sums are kept (false: no
// margin, every group one free cell). `samplers` is unused (see above).
std::vector<std::uint32_t> sample_groups_by_rejection(const CongenialTarget& target, Rational scale,
                                                      const std::vector<std::uint32_t>& group_of_cell,
                                                      std::size_t n_groups, bool constrained, std::uint64_t budget,
                                                      CompositionSamplers& samplers, RandomSource& rng,
                                                      const Interrupts& interrupts, std::vector<std::int64_t>& y,
                                                      std::uint64_t& proposals);

}  // namespace invariant_dp
