// The core's entry for dp.range_variance and dp.range_variance_bounds: the
// noise variance of a range of a cascade or integer cascade release's
// leaves, from the pieces of its published law (the shape's internal nodes
// and their children, the level variances, the fixed nodes, the integer
// cascade's variance deficit bound). Anyone may call it with any pieces: the
// listed nodes are bounded (TooLarge beyond a cascade's), nothing is held
// per leaf, and a bound that is not finite and non-negative is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {

struct RangeVarianceBounds {
  double lower = 0, upper = 0;
};

RangeVarianceBounds cascade_range_variance(const std::uint32_t* children, std::size_t n_internal,
                                           const std::vector<double>& level_variance,
                                           const std::vector<std::uint64_t>& fixed_nodes, double deficit_bound,
                                           std::uint64_t first, std::uint64_t last, const Interrupts& interrupts);

}  // namespace invariant_dp
