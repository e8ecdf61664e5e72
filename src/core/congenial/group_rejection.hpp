// Exact congenial draws where the margins form one partition of the cells
// (or there is no margin): the target factorises over the groups, so each
// group is drawn on its own by rejection (congenial digest 3.1, 7.5): propose
// the group's noise z from the exact discrete Laplace conditioned on a zero
// group sum (samplers/conditioned_laplace.hpp; with no margin, the plain
// discrete Laplace of each cell) and accept iff x_g + z >= 0. The proposal
// is the target without the indicator, so accepted draws follow the target
// exactly. A group's acceptance is P(x_g + Z >= 0), which depends on the
// data; each group gets at most `budget` proposals.
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

namespace invariant_dp {

// group_of_cell: each cell's group (n_groups of them); constrained = the
// groups' sums are kept (false: no margin, every group one free cell).
// samplers: the composition-total samplers by group size, kept across calls
// (building one costs MPFR work; conditioned_laplace.hpp step 3).
using CompositionSamplers = std::map<std::uint64_t, std::unique_ptr<CompositionTotalSampler>>;

// Writes accepted groups into y and returns the groups that exhausted the
// budget (their cells in y untouched).
std::vector<std::uint32_t> sample_groups_by_rejection(const CongenialTarget& target, Rational scale,
                                                      const std::vector<std::uint32_t>& group_of_cell,
                                                      std::size_t n_groups, bool constrained, std::uint64_t budget,
                                                      CompositionSamplers& samplers, RandomSource& rng,
                                                      const Interrupts& interrupts, std::vector<std::int64_t>& y,
                                                      std::uint64_t& proposals);

}  // namespace invariant_dp
