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
#include <utility>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {
namespace detail {

// A partition of the cells: group_of_cell[i] in [0, n_groups), groups
// numbered in order of first appearance. The ids are its own, or, when a
// column's codes already are those ids (one column numbered by first
// appearance, as a release's cells number theirs), the column's codes:
// then they must outlive it, as a release's cells outlive its invariants.
// Moved, never copied (group_of_cell may point into its own ids).
class Grouping {
 public:
  Grouping() = default;
  Grouping(std::vector<std::uint32_t> ids, std::uint32_t n_groups)
      : n_groups(n_groups), n_cells_(ids.size()), owned_ids_(std::move(ids)) {
    group_of_cell = owned_ids_.data();
  }
  static Grouping borrowing(const std::uint32_t* ids, std::size_t n_cells, std::uint32_t n_groups) {
    Grouping out;
    out.group_of_cell = ids;
    out.n_cells_ = n_cells;
    out.n_groups = n_groups;
    return out;
  }
  Grouping(Grouping&&) = default;  // a vector's move keeps its buffer, so the pointer stays valid
  Grouping& operator=(Grouping&&) = default;
  Grouping(const Grouping&) = delete;
  Grouping& operator=(const Grouping&) = delete;

  const std::uint32_t* group_of_cell = nullptr;
  std::uint32_t n_groups = 0;

  std::size_t n_cells() const { return n_cells_; }
  // The ids as a vector of their own (a copy when they are borrowed).
  std::vector<std::uint32_t> take_ids() && {
    if (owned_ids_.data() == group_of_cell) return std::move(owned_ids_);
    return std::vector<std::uint32_t>(group_of_cell, group_of_cell + n_cells_);
  }

 private:
  std::size_t n_cells_ = 0;
  std::vector<std::uint32_t> owned_ids_;
};

// One key column seen as codes: codes[i] in [0, n_levels).
struct CodeColumn {
  const std::uint32_t* codes;
  std::uint32_t n_levels;
};

// Groups n_cells cells by their code tuple over the given columns; no column
// gives a single group (the grand total) when n_cells > 0. (Codes that
// already are the ids, one column numbered by first appearance, can be the
// grouping itself: Grouping::borrowing.)
Grouping group_by_codes(std::size_t n_cells, const std::vector<CodeColumn>& columns,
                        const Interrupts& interrupts);

// Whether codes[0 .. n) are numbered by first appearance (0, 1, ... as the
// cells first show them) and show all n_levels of them. Only reads.
bool numbered_by_first_appearance(const std::uint32_t* codes, std::size_t n, std::size_t n_levels,
                                  const Interrupts& interrupts);

// Dense ids, in order of first appearance, for keys[i] < key_bound.
Grouping densify_keys(const std::vector<std::uint64_t>& keys, std::uint64_t key_bound,
                      const Interrupts& interrupts);

// Number of cells in each group.
std::vector<std::uint32_t> group_sizes(const Grouping& grouping);

}  // namespace detail
}  // namespace invariant_dp
