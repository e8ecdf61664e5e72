// The grid of two crossed hierarchies (crossed_grid.hpp).
#include "crossed_grid.hpp"

#include <map>
#include <memory>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

using hierarchy::HierarchyTree;

constexpr std::uint32_t kNoCell = 0xffffffffu;

// One hierarchy of the two: its tree over the distinct key tuples of its
// columns, and each cell's leaf in it.
struct Axis {
  HierarchyTree tree;
  std::vector<std::uint32_t> cell_leaf;
};

// The distinct tuples are listed in order of first appearance, so their
// codes (hence the leaf order) are the source's codes, as in a 1-D release.
Axis axis_of(const CellKeys& cells, const std::vector<std::size_t>& columns, const Interrupts& interrupts) {
  std::map<std::vector<std::uint32_t>, std::uint32_t> tuple_index;
  std::vector<std::uint32_t> cell_tuple(cells.n_cells());
  std::vector<std::vector<std::uint32_t>> tuple_codes(columns.size());
  std::vector<std::uint32_t> n_levels(columns.size());
  std::vector<std::string> names;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    names.push_back(cells.column_names()[columns[k]]);
    n_levels[k] = cells.n_levels(columns[k]);
  }
  std::vector<std::uint32_t> tuple(columns.size());
  for (std::size_t c = 0; c < cells.n_cells(); ++c) {
    interrupts.poll_every(c);
    for (std::size_t k = 0; k < columns.size(); ++k) tuple[k] = cells.code(columns[k], c);
    const auto [it, fresh] = tuple_index.emplace(tuple, static_cast<std::uint32_t>(tuple_index.size()));
    if (fresh)
      for (std::size_t k = 0; k < columns.size(); ++k) tuple_codes[k].push_back(tuple[k]);
    cell_tuple[c] = it->second;
  }
  const CellKeys tuples = CellKeys::from_codes(names, std::move(tuple_codes), std::move(n_levels), interrupts);
  std::vector<std::size_t> all(columns.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  Axis axis{HierarchyTree::from_cell_keys(tuples, all, interrupts), {}};
  std::vector<std::uint32_t> tuple_leaf(tuple_index.size());
  for (std::uint32_t leaf = 0; leaf < axis.tree.n_leaves(); ++leaf) {
    interrupts.poll_every(leaf);
    tuple_leaf[axis.tree.leaf_cell(leaf)] = leaf;
  }
  axis.cell_leaf.resize(cells.n_cells());
  for (std::size_t c = 0; c < cells.n_cells(); ++c) {
    interrupts.poll_every(c);
    axis.cell_leaf[c] = tuple_leaf[cell_tuple[c]];
  }
  return axis;
}

// The key columns of a cell to name in a message (KeyRef::columns).
std::uint64_t column_mask(const std::vector<std::size_t>& columns) {
  std::uint64_t mask = 0;
  for (std::size_t column : columns) mask |= column < 64 ? std::uint64_t{1} << column : 0;
  return mask;
}

std::vector<std::size_t> indices_of(const CellKeys& cells, const std::vector<std::string>& names) {
  std::vector<std::size_t> out;
  for (const std::string& name : names) out.push_back(cells.column_index(name));
  return out;
}

}  // namespace

void check_crossed_columns(const std::vector<std::string>& row_levels, const std::vector<std::string>& col_levels,
                           const std::vector<std::string>& key_columns) {
  std::string levels;
  for (const auto* side : {&row_levels, &col_levels})
    for (const std::string& name : *side) levels += (levels.empty() ? "" : ", ") + name;
  for (const std::string& column : col_levels) {
    bool found = false;
    for (const std::string& key : key_columns) found = found || key == column;
    if (!found)
      throw InvalidArgument("option \"crossed\" names column \"" + column + "\", which the source does not return",
                            "The crossed hierarchies' columns are: " + levels + ".");
  }
  // Every key column must be a level of one hierarchy: another key would
  // split the grid's cells with no tree to roll it up in.
  for (const std::string& key : key_columns) {
    bool found = false;
    for (const auto* side : {&row_levels, &col_levels})
      for (const std::string& name : *side) found = found || key == name;
    if (!found)
      throw InvalidArgument("key column \"" + key + "\" is in neither crossed hierarchy",
                            "With \"crossed\" the key columns must be exactly the two hierarchies' levels: " +
                                levels + ".",
                            "Add it to hierarchy or to \"crossed\", or drop it from the source.");
  }
}

CrossedGrid build_crossed_grid(const CellKeys& cells,
                               const std::vector<std::string>& row_levels, const std::vector<std::string>& col_levels,
                               const Interrupts& interrupts) {
  const auto row_columns = indices_of(cells, row_levels), col_columns = indices_of(cells, col_levels);
  Axis rows = axis_of(cells, row_columns, interrupts);
  Axis cols = axis_of(cells, col_columns, interrupts);
  const std::size_t nr = rows.tree.n_leaves(), nc = cols.tree.n_leaves();
  // Keys are unique (CellKeys), so n_cells == nr * nc means a full grid;
  // compare before allocating nr * nc.
  const bool full = cells.n_cells() == nr * nc;
  std::vector<std::uint32_t> grid(full ? nr * nc : 0, kNoCell);
  for (std::uint32_t c = 0; full && c < cells.n_cells(); ++c) {
    interrupts.poll_every(c);
    grid[std::size_t(rows.cell_leaf[c]) * nc + cols.cell_leaf[c]] = c;
  }
  if (!full) {
    // Name one missing pair: the first row leaf short of a column leaf
    // (memory O(rows + columns): the grid itself may be huge).
    std::vector<std::size_t> per_row(nr, 0);
    std::vector<std::uint32_t> row_cell(nr), col_cell(nc);
    for (std::uint32_t c = cells.n_cells(); c-- > 0;) {
      interrupts.poll_every(c);
      ++per_row[rows.cell_leaf[c]];
      row_cell[rows.cell_leaf[c]] = col_cell[cols.cell_leaf[c]] = c;
    }
    std::size_t i = 0, j = 0;
    // Ends: a partial grid has a row leaf with fewer than nc cells.
    while (per_row[i] == nc) ++i;
    std::vector<bool> present(nc, false);
    for (std::uint32_t c = 0; c < cells.n_cells(); ++c) {
      interrupts.poll_every(c);
      if (rows.cell_leaf[c] == i) present[cols.cell_leaf[c]] = true;
    }
    // Ends: row i lacks a column leaf.
    while (present[j]) ++j;
    InvalidData partial("the cells do not cover the full grid of the crossed hierarchies",
                        "No cell for {key0} with {key1}; " + std::to_string(cells.n_cells()) + " of " +
                            std::to_string(nr) + " x " + std::to_string(nc) + " cells are present.",
                        "Pass a domain listing every cell (every row leaf with every column leaf); cells the source "
                        "lacks are released with count 0.");
    partial.name_key(0, KeyRef{cells.table(), row_cell[i], column_mask(row_columns)});
    partial.name_key(1, KeyRef{cells.table(), col_cell[j], column_mask(col_columns)});
    throw partial;
  }
  return CrossedGrid{std::move(rows.tree), std::move(cols.tree), row_columns, col_columns, std::move(grid)};
}

}  // namespace invariant_dp
