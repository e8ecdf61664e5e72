// invariant_lattice_basis (lattice_basis.hpp): an LLL-reduced integer basis
// of the invariant lattice Lambda_A = {z in Z^d : A z = 0} (Dharangutte,
// Gao, Gong, Yu 2023, arXiv:2212.00936, Section 3.1, Proposition 8, with the
// proof's "bottom d-k rows of V" read as the last d-k columns, as the
// dimensions d x (d-k) require, and its full-rank assumption dropped:
// redundant rows do not change the lattice).
// Lambda_A is the direct sum of the lattices of A's connected components
// (cells linked by a shared row), so each component is solved alone: free
// cells, single groups and complete two-way tables by explicit bases
// (lattice_structured.cpp), everything else by exact FLINT linear algebra
// plus LLL (lattice_general.cpp). Then, whatever the path:
//   - A b = 0 is checked exactly for every basis vector (128-bit sums);
//   - structured bases carry a rank certificate: the vectors are independent
//     (each has a cell no other vector of the peeling touches) and so are
//     rank_of_rows of the rows, so dim ker A_c = d_c - rank(A_c) = #vectors;
//     the general path has exact ranks from RREF / HNF and full rank mod p.
// The result is sparse and limited to kMaxBasisEntries nonzero entries.
#include "lattice_basis.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "../errors.hpp"
#include "lattice_detail.hpp"

namespace invariant_dp {
namespace {

using lattice_detail::ComponentBasis;
using lattice_detail::SparseVector;

// Entries of A: integers of magnitude at most 2^31 (0/1 by contract).
std::vector<SparseVector> read_rows(const Eigen::SparseMatrix<double, Eigen::RowMajor>& a) {
  std::vector<SparseVector> rows(static_cast<std::size_t>(a.rows()));
  for (Eigen::Index r = 0; r < a.outerSize(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(a, r); it; ++it) {
      const double v = it.value();
      if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 2147483648.0)
        throw InvalidArgument("an invariant row has an entry that is not a small integer",
                              "Row " + std::to_string(r) + " holds " + std::to_string(v) + ".");
      if (v != 0) rows[static_cast<std::size_t>(r)].emplace_back(static_cast<std::size_t>(it.col()),
                                                                  static_cast<std::int64_t>(v));
    }
  for (SparseVector& row : rows) std::sort(row.begin(), row.end());
  return rows;
}

// Size of the largest subset of `vectors` shown independent by peeling:
// repeatedly drop a vector that is alone on some cell among those left
// (its coefficient in any dependency among them must then be 0).
std::size_t peel_independent(const std::vector<const SparseVector*>& vectors) {
  std::unordered_map<std::size_t, std::vector<std::size_t>> on_cell;
  for (std::size_t v = 0; v < vectors.size(); ++v)
    for (const auto& entry : *vectors[v]) on_cell[entry.first].push_back(v);
  std::unordered_map<std::size_t, std::size_t> left;
  std::vector<std::size_t> ready;
  for (const auto& cell : on_cell) {
    left[cell.first] = cell.second.size();
    if (cell.second.size() == 1) ready.push_back(cell.first);
  }
  std::vector<bool> removed(vectors.size(), false);
  std::size_t n_removed = 0;
  // Ends: each cell enters ready at most once per vector removed, a finite count.
  while (!ready.empty()) {
    const std::size_t cell = ready.back();
    ready.pop_back();
    if (left[cell] != 1) continue;
    std::size_t v = 0;
    for (std::size_t u : on_cell[cell])
      if (!removed[u]) v = u;
    removed[v] = true;
    ++n_removed;
    for (const auto& entry : *vectors[v])
      if (--left[entry.first] == 1) ready.push_back(entry.first);
  }
  return n_removed;
}

// The rank certificate of a structured component basis (header comment).
void certify_structured(const lattice_detail::Component& component, const std::vector<SparseVector>& rows,
                        const ComponentBasis& basis) {
  std::vector<const SparseVector*> vectors, kept_rows;
  for (const SparseVector& v : basis.vectors) vectors.push_back(&v);
  for (std::size_t r : component.rows)
    if (std::find(basis.redundant_rows.begin(), basis.redundant_rows.end(), r) == basis.redundant_rows.end())
      kept_rows.push_back(&rows[r]);
  if (peel_independent(vectors) != vectors.size() || peel_independent(kept_rows) != basis.rank_of_rows ||
      basis.rank_of_rows + vectors.size() != component.cells.size())
    throw std::logic_error(std::string("lattice: the ") + basis.method + " basis failed its rank certificate");
}

// A b = 0 exactly, for every basis vector b (entries |a| <= 2^31, |b| < 2^63,
// at most 2^32 terms: the 128-bit sums cannot overflow).
void verify_kernel(const std::vector<SparseVector>& rows, std::size_t n_cells,
                   const std::vector<ComponentBasis>& parts, const Interrupts& interrupts) {
  std::vector<std::vector<std::pair<std::size_t, std::int64_t>>> by_cell(n_cells);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (const auto& entry : rows[r]) by_cell[entry.first].emplace_back(r, entry.second);
  std::vector<__int128> sum(rows.size(), 0);
  std::vector<std::size_t> touched;
  std::uint64_t iteration = 0;
  for (const ComponentBasis& part : parts)
    for (const SparseVector& b : part.vectors) {
      interrupts.poll_every(++iteration);
      touched.clear();
      for (const auto& [cell, value] : b)
        for (const auto& [row, coefficient] : by_cell[cell]) {
          if (sum[row] == 0) touched.push_back(row);
          sum[row] += static_cast<__int128>(coefficient) * value;
        }
      for (std::size_t row : touched)
        if (sum[row] != 0) throw std::logic_error("lattice: a basis vector breaks an invariant");
      for (std::size_t row : touched) sum[row] = 0;
    }
}

InconsistentInvariants lattice_pins_every_cell(std::size_t n_cells) {
  return InconsistentInvariants("the invariants leave no cell to protect",
                                "The invariant rows fix all " + std::to_string(n_cells) +
                                    " cells exactly, so the invariant lattice is {0} and no noise can be added.",
                                "Drop a margin, or remove a key column from one, so that some cells stay free.");
}

// The order of the output vectors: each component's basis in its own order,
// interleaved by smallest next |b*|^2. The components are orthogonal, so a
// vector's Gram-Schmidt data only involve its own component; within one, the
// size and Lovasz conditions are the component's own; across a switch from
// component X to Y, Y's head was already a candidate when X's last vector was
// chosen as the smallest, so |b_{k+1}*|^2 >= |b_k*|^2 >= delta |b_k*|^2.
std::vector<std::pair<std::size_t, std::size_t>> merge_order(const std::vector<ComponentBasis>& parts) {
  using Head = std::pair<double, std::size_t>;  // (|b*|^2 of the next vector, component)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  std::vector<std::size_t> next(parts.size(), 0);
  for (std::size_t c = 0; c < parts.size(); ++c)
    if (!parts[c].vectors.empty()) heads.emplace(parts[c].gs_norm2[0], c);
  std::vector<std::pair<std::size_t, std::size_t>> order;
  // Ends: one pass per basis vector of the parts.
  while (!heads.empty()) {
    const std::size_t c = heads.top().second;
    heads.pop();
    order.emplace_back(c, next[c]++);
    if (next[c] < parts[c].vectors.size()) heads.emplace(parts[c].gs_norm2[next[c]], c);
  }
  return order;
}

LatticeBasis assemble(std::size_t n_cells, const std::vector<ComponentBasis>& parts, const Interrupts& interrupts) {
  std::size_t rank = 0, entries = 0;
  for (const ComponentBasis& part : parts) {
    rank += part.vectors.size();
    for (const SparseVector& v : part.vectors) entries += v.size();
  }
  if (rank == 0) throw lattice_pins_every_cell(n_cells);
  if (entries > lattice_detail::kMaxBasisEntries)
    throw TooLarge("the invariant lattice basis is too large",
                   "Its " + std::to_string(rank) + " vectors over " + std::to_string(n_cells) + " cells have " +
                       std::to_string(entries) + " nonzero entries, more than the limit of " +
                       std::to_string(lattice_detail::kMaxBasisEntries) + ".",
                   "Release a smaller table, or use a mechanism that does not need the lattice basis.");
  LatticeBasis out;
  out.dimension = n_cells;
  out.columns.reserve(rank);
  for (const auto& [part, index] : merge_order(parts)) {
    interrupts.poll_every(out.columns.size());
    LatticeVector column;
    for (const auto& [cell, value] : parts[part].vectors[index]) {
      column.index.push_back(static_cast<std::uint32_t>(cell));
      column.value.push_back(value);
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

}  // namespace

LatticeBasis invariant_lattice_basis(const Eigen::SparseMatrix<double, Eigen::RowMajor>& independent_rows,
                                     const Interrupts& interrupts) {
  const std::size_t n_cells = static_cast<std::size_t>(independent_rows.cols());
  if (n_cells == 0) throw InvalidData("there are no cells to release");
  if (n_cells > UINT32_MAX) throw TooLarge("too many cells for the invariant lattice basis");
  const std::vector<SparseVector> rows = read_rows(independent_rows);
  interrupts.poll();
  const std::vector<lattice_detail::Component> components =
      lattice_detail::connected_components(rows, n_cells, interrupts);
  std::vector<ComponentBasis> parts(components.size());
  for (std::size_t c = 0; c < components.size(); ++c) {
    interrupts.poll_every(c);
    if (lattice_detail::structured_basis(components[c], rows, parts[c]))
      certify_structured(components[c], rows, parts[c]);
    else
      parts[c] = lattice_detail::general_basis(components[c], rows, interrupts);
  }
  interrupts.poll();
  verify_kernel(rows, n_cells, parts, interrupts);
  interrupts.poll();
  return assemble(n_cells, parts, interrupts);
}

}  // namespace invariant_dp
