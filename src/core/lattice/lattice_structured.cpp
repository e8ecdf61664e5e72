// Connected components of the invariant rows and the explicit lattice bases
// of the structured ones (the settings of Examples 3-5 of Dharangutte, Gao,
// Gong, Yu 2023, arXiv:2212.00936; the explicit bases are ours):
//   - a cell in no row: e_c;
//   - one group S = {c_0, ..., c_{s-1}} (a partition margin, Examples 3-4):
//     the star basis e_{c_0} - e_{c_j}, j >= 1. Saturated: an integer z with
//     sum_S z = 0 is sum_{j>=1} (-z_{c_j}) (e_{c_0} - e_{c_j});
//   - a complete R x C two-way table with row and column totals (Example 5,
//     one block per component), given with one total dropped as redundant or
//     not: the star swaps s_ij = e_00 - e_0j - e_i0 + e_ij, 1 <= i < R,
//     1 <= j < C. Saturated: z with zero row and column sums is
//     sum_{i,j>=1} z_ij s_ij (check each cell class: (i,j), (0,j), (i,0),
//     (0,0) using the zero sums).
// Both are LLL-reduced (delta 0.99, eta 0.51) as they stand: for the star
// basis mu_{j,i} = 1/(i+1) and |b_k*|^2 = (k+1)/k; the swaps are the tensor
// product of two star bases, whose Gram-Schmidt data are products. They are
// also of minimal norm (sqrt 2, resp. 2). The table is detected from the 0/1
// rows alone: every cell in at most two rows, the rows 2-colourable into
// "row totals" P and "column totals" Q, each (P_a, Q_b) meeting in exactly
// one cell, and the cells of a dropped total (in one row only) forming the
// missing line of the table.
#include <algorithm>
#include <numeric>

#include "lattice_detail.hpp"

namespace invariant_dp {
namespace lattice_detail {
namespace {

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t x) {
  // Ends: union-find with path halving: each pass moves x one link closer to its root.
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

std::size_t local_index(const std::vector<std::size_t>& cells, std::size_t cell) {
  return static_cast<std::size_t>(std::lower_bound(cells.begin(), cells.end(), cell) - cells.begin());
}

bool all_ones(const Component& component, const std::vector<SparseVector>& rows) {
  for (std::size_t r : component.rows)
    for (const auto& entry : rows[r])
      if (entry.second != 1) return false;
  return true;
}

// |b_k*|^2 of the k-th star vector e_0 - e_k (k >= 1): (k + 1) / k.
double star_gs_norm2(std::size_t k) { return static_cast<double>(k + 1) / static_cast<double>(k); }

SparseVector sorted_vector(SparseVector v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

std::vector<Component> connected_components(const std::vector<SparseVector>& rows, std::size_t n_cells,
                                            const Interrupts& interrupts) {
  std::vector<std::size_t> parent(n_cells);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t r = 0; r < rows.size(); ++r) {
    interrupts.poll_every(r);
    if (rows[r].empty()) continue;
    const std::size_t first = find_root(parent, rows[r].front().first);
    for (const auto& entry : rows[r]) {
      const std::size_t root = find_root(parent, entry.first);
      if (root != first) parent[root] = first;
    }
  }
  std::vector<std::size_t> component_of_root(n_cells, n_cells);
  std::vector<Component> components;
  for (std::size_t c = 0; c < n_cells; ++c) {
    interrupts.poll_every(c);
    const std::size_t root = find_root(parent, c);
    if (component_of_root[root] == n_cells) {
      component_of_root[root] = components.size();
      components.emplace_back();
    }
    components[component_of_root[root]].cells.push_back(c);
  }
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (!rows[r].empty()) components[component_of_root[find_root(parent, rows[r].front().first)]].rows.push_back(r);
  return components;
}

namespace {

// The star basis of one group (all of the component's cells).
void group_basis(const Component& component, ComponentBasis& out) {
  const std::vector<std::size_t>& cells = component.cells;
  for (std::size_t j = 1; j < cells.size(); ++j) {
    out.vectors.push_back({{cells[0], 1}, {cells[j], -1}});
    out.gs_norm2.push_back(star_gs_norm2(j));
  }
  out.rank_of_rows = 1;
  out.method = "group";
}

// The rows touching each local cell (at most two, else false).
bool cell_memberships(const Component& component, const std::vector<SparseVector>& rows,
                      std::vector<std::vector<std::size_t>>& member) {
  member.assign(component.cells.size(), {});
  for (std::size_t lr = 0; lr < component.rows.size(); ++lr)
    for (const auto& entry : rows[component.rows[lr]]) {
      auto& list = member[local_index(component.cells, entry.first)];
      if (list.size() == 2) return false;
      list.push_back(lr);
    }
  return true;
}

// 2-colours the local rows through the cells they share (colour 0 or 1).
bool colour_rows(std::size_t n_rows, const std::vector<std::vector<std::size_t>>& member,
                 std::vector<int>& colour) {
  std::vector<std::vector<std::size_t>> adjacent(n_rows);
  for (const auto& list : member)
    if (list.size() == 2) {
      adjacent[list[0]].push_back(list[1]);
      adjacent[list[1]].push_back(list[0]);
    }
  colour.assign(n_rows, -1);
  colour[0] = 0;
  std::vector<std::size_t> stack{0};
  // Ends: each row is pushed once, when it is first coloured.
  while (!stack.empty()) {
    const std::size_t r = stack.back();
    stack.pop_back();
    for (std::size_t s : adjacent[r]) {
      if (colour[s] == colour[r]) return false;
      if (colour[s] < 0) {
        colour[s] = 1 - colour[r];
        stack.push_back(s);
      }
    }
  }
  return std::find(colour.begin(), colour.end(), -1) == colour.end();
}

}  // namespace

namespace {

// A complete two-way table: table[i][j] is a global cell, R x C.
using Table = std::vector<std::vector<std::size_t>>;

// Lays the component out as a table (see the header comment), or false.
bool two_way_table(const Component& component, const std::vector<std::vector<std::size_t>>& member,
                   const std::vector<int>& colour, Table& table, bool& dropped_total) {
  const std::size_t n_rows = component.rows.size();
  std::vector<std::size_t> position(n_rows);
  std::size_t count[2] = {0, 0};
  for (std::size_t lr = 0; lr < n_rows; ++lr) position[lr] = count[colour[lr]]++;
  const std::size_t p = count[0], q = count[1];
  std::vector<std::size_t> grid(p * q, SIZE_MAX);
  std::vector<std::vector<std::size_t>> single[2] = {std::vector<std::vector<std::size_t>>(p),
                                                     std::vector<std::vector<std::size_t>>(q)};
  std::size_t n_single[2] = {0, 0};
  for (std::size_t lc = 0; lc < member.size(); ++lc) {
    const std::vector<std::size_t>& list = member[lc];
    const std::size_t cell = component.cells[lc];
    if (list.size() == 1) {
      single[colour[list[0]]][position[list[0]]].push_back(cell);
      ++n_single[colour[list[0]]];
      continue;
    }
    const std::size_t a = position[colour[list[0]] == 0 ? list[0] : list[1]];
    const std::size_t b = position[colour[list[0]] == 0 ? list[1] : list[0]];
    if (grid[a * q + b] != SIZE_MAX) return false;
    grid[a * q + b] = cell;
  }
  if (std::find(grid.begin(), grid.end(), SIZE_MAX) != grid.end()) return false;
  // side 0: P lines are table rows; side 1: Q lines are table rows.
  int side = 0;
  dropped_total = n_single[0] + n_single[1] > 0;
  if (n_single[0] > 0 && n_single[1] > 0) return false;
  if (n_single[0] > 0) side = 1;  // the dropped line is a Q line: it becomes row 0
  const std::size_t lines = side == 0 ? p : q, others = side == 0 ? q : p;
  if (dropped_total)
    for (const auto& cells : single[1 - side])
      if (cells.size() != 1) return false;
  const std::size_t offset = dropped_total ? 1 : 0;
  table.assign(lines + offset, std::vector<std::size_t>(others));
  for (std::size_t b = 0; b < others && dropped_total; ++b) table[0][b] = single[1 - side][b][0];
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < q; ++b) {
      if (side == 0) table[a + offset][b] = grid[a * q + b];
      else table[b + offset][a] = grid[a * q + b];
    }
  return true;
}

// The star swaps of a table.
void swap_basis(const Table& t, ComponentBasis& out) {
  for (std::size_t i = 1; i < t.size(); ++i)
    for (std::size_t j = 1; j < t[i].size(); ++j) {
      out.vectors.push_back(sorted_vector({{t[0][0], 1}, {t[0][j], -1}, {t[i][0], -1}, {t[i][j], 1}}));
      out.gs_norm2.push_back(star_gs_norm2(i) * star_gs_norm2(j));
    }
  out.method = "two_way";
}

}  // namespace

bool structured_basis(const Component& component, const std::vector<SparseVector>& rows, ComponentBasis& out) {
  out = ComponentBasis{};
  if (component.rows.empty()) {  // a connected cell in no row: free
    out.vectors.push_back({{component.cells.front(), 1}});
    out.gs_norm2.push_back(1.0);
    out.method = "free";
    return true;
  }
  if (!all_ones(component, rows)) return false;
  if (component.rows.size() == 1) {
    group_basis(component, out);
    return true;
  }
  std::vector<std::vector<std::size_t>> member;
  std::vector<int> colour;
  Table table;
  bool dropped_total = false;
  if (!cell_memberships(component, rows, member) || !colour_rows(component.rows.size(), member, colour) ||
      !two_way_table(component, member, colour, table, dropped_total))
    return false;
  swap_basis(table, out);
  out.rank_of_rows = component.rows.size();
  if (!dropped_total) {  // all R + C totals given: the first colour-1 row is implied by the others
    const std::size_t lr = static_cast<std::size_t>(std::find(colour.begin(), colour.end(), 1) - colour.begin());
    out.redundant_rows.push_back(component.rows[lr]);
    out.rank_of_rows -= 1;
  }
  return true;
}

}  // namespace lattice_detail
}  // namespace invariant_dp
