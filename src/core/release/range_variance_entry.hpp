// The core's entry for dp.range_variance and dp.range_variance_bounds: the
// noise variance of a range of a cascade release's leaves, from the pieces
// of its published law (its error_law, which decides whether it has range
// variances and whether they are exact or certified; the shape's internal nodes
// and their children, the level variances, the fixed nodes, the integer
// cascade's variance deficit bound). Anyone may call it with any pieces: the
// listed nodes are bounded (TooLarge beyond a cascade's), nothing is held
// per leaf, and a bound that is not finite and non-negative is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {

struct RangeVarianceBounds {
  double lower = 0, upper = 0;
};

// error_law: the law's published "error_law" (accuracy/error_law.hpp);
// InvalidArgument unless it is a cascade's. A Gaussian cascade's closed
// form is exact (deficit_bound is not read); a lattice Gaussian cascade's
// lies within its certified deficit.
RangeVarianceBounds cascade_range_variance(const std::string& error_law, const std::uint32_t* children,
                                           std::size_t n_internal, const std::vector<double>& level_variance,
                                           const std::vector<std::uint64_t>& fixed_nodes, double deficit_bound,
                                           std::uint64_t first, std::uint64_t last, const Interrupts& interrupts);

}  // namespace invariant_dp
