// The grid of two crossed hierarchies (crossed_release.hpp): the source's
// cells seen as (row leaf, column leaf) pairs. The row tree nests the
// distinct tuples of the row hierarchy's level columns, the column tree those
// of the column hierarchy's; a release needs every pair to be a cell, since
// the Kronecker noise and the two-way rollup live on the full grid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"

namespace invariant_dp {

struct CrossedGrid {
  hierarchy::HierarchyTree rows, cols;
  std::vector<std::size_t> row_columns, col_columns;  // key column indices, coarsest first
  // Row-major over (row leaf, column leaf), leaf orders: the cell there.
  std::vector<std::uint32_t> grid_cell;
  std::uint32_t cell_at(std::uint32_t row_leaf, std::uint32_t col_leaf) const {
    return grid_cell[std::size_t(row_leaf) * cols.n_leaves() + col_leaf];
  }
};

// InvalidData (22000), naming the keys, when a (row leaf, column leaf) pair
// has no cell; InvalidArgument when the key columns
// are not exactly the two hierarchies' level columns.
CrossedGrid build_crossed_grid(const CellKeys& cells,
                               const std::vector<std::string>& row_levels, const std::vector<std::string>& col_levels,
                               const Interrupts& interrupts);

// The same column check, on names only (before the source's rows are read).
void check_crossed_columns(const std::vector<std::string>& row_levels, const std::vector<std::string>& col_levels,
                           const std::vector<std::string>& key_columns);

}  // namespace invariant_dp
