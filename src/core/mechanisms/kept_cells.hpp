// The kept cells of each privacy unit after contribution bounding
// (privacy_unit.hpp), for selectors that weigh a unit by how many cells it
// holds (dp_sips.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace invariant_dp {

// Unit u's cells are cells[start[u] .. start[u + 1]).
struct KeptCells {
  std::vector<std::uint64_t> start;
  std::vector<std::uint32_t> cells;
  std::size_t n_units() const { return start.empty() ? 0 : start.size() - 1; }
};

}  // namespace invariant_dp
