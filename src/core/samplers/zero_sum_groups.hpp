// Argument checks shared by the exact samplers of noise with zero sums over
// the groups of a partition (conditioned_laplace, conditioned_gaussian).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../errors.hpp"

namespace invariant_dp {

// Throws InvalidArgument for null buffers with cells, or a group number out of range.
inline void check_zero_sum_groups(const std::uint32_t* group_of_cell, std::size_t n_cells, std::size_t n_groups,
                                  const std::int64_t* z) {
  if (n_cells > 0 && (group_of_cell == nullptr || z == nullptr))
    throw InvalidArgument("cells of a zero-sum release must not be null");
  for (std::size_t i = 0; i < n_cells; ++i)
    if (group_of_cell[i] >= n_groups)
      throw InvalidArgument("group number " + std::to_string(group_of_cell[i]) + " is out of range",
                            "There are " + std::to_string(n_groups) + " groups.");
}

}  // namespace invariant_dp
