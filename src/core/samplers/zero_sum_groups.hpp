// The partition shared by the exact samplers of noise with zero sums over
// the groups of a partition of the cells (conditioned_laplace,
// conditioned_gaussian): group_of_cell[i] < n_groups is the group of cell i,
// and the noise is written to z[0 .. n_cells). Groups are independent under
// both laws, so both samplers visit the cells group by group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {

struct ZeroSumPartition {
  const std::uint32_t* group_of_cell = nullptr;
  std::size_t n_cells = 0;
  std::size_t n_groups = 0;
};

// Throws InvalidArgument for null buffers with cells, a group number out of
// range, or 2^32 cells or more (cells are numbered in 32 bits, as a
// release's are).
void check_zero_sum_groups(const ZeroSumPartition& groups, const std::int64_t* z, const Interrupts& interrupts);

// The cells ordered by group, each group in cell order: a counting sort when
// the group numbers are dense, else a stable sort (so a huge n_groups with
// few cells costs no memory).
std::vector<std::uint32_t> cells_by_group(const ZeroSumPartition& groups, const Interrupts& interrupts);

// Where each non-empty group starts in `cells` (cells_by_group's order),
// followed by cells.size(): group g is cells[starts[g] .. starts[g + 1]).
std::vector<std::size_t> group_starts(const std::vector<std::uint32_t>& cells, const ZeroSumPartition& groups,
                                      const Interrupts& interrupts);

}  // namespace invariant_dp
