// Internal: group cells by the tuple of their codes on some key columns.
// Both duplicate-cell detection (all columns) and margin compilation (the
// margin's columns) need "which cells share a value tuple", so it lives here.
// Tuples are packed into 64-bit mixed-radix keys and given dense ids in order
// of first appearance, through a direct table when the key range is small and
// an open-addressing hash table otherwise: linear time, no per-cell
// allocation, which matters at a million cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {
namespace detail {

// A partition of the cells: group_of_cell[i] in [0, n_groups), groups
// numbered in order of first appearance.
struct Grouping {
  std::vector<std::uint32_t> group_of_cell;
  std::uint32_t n_groups = 0;

  std::size_t n_cells() const { return group_of_cell.size(); }
};

// One key column seen as codes: codes[i] in [0, n_levels).
struct CodeColumn {
  const std::uint32_t* codes;
  std::uint32_t n_levels;
};

// Groups n_cells cells by their code tuple over the given columns; no column
// gives a single group (the grand total) when n_cells > 0.
Grouping group_by_codes(std::size_t n_cells, const std::vector<CodeColumn>& columns,
                        const Interrupts& interrupts);

// Dense ids, in order of first appearance, for keys[i] < key_bound.
Grouping densify_keys(const std::vector<std::uint64_t>& keys, std::uint64_t key_bound,
                      const Interrupts& interrupts);

// Number of cells in each group.
std::vector<std::uint32_t> group_sizes(const Grouping& grouping);

}  // namespace detail
}  // namespace invariant_dp
