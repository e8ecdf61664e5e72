// Declared margins compiled to the linear invariant A x = c over the cells,
// with redundant rows removed, and the orthogonal projector onto null(A)
// (null_projectors.hpp). Never forms a dense d x d matrix:
//   - no margin:                          identity;
//   - one margin (a partition of cells):  centre within each group;
//   - nested margins:                     only the finest partition counts;
//   - two margins that cross completely within blocks (row and column totals
//     of one or many two-way tables, e.g. the WiFi cube): double centring;
//   - all K (K-1)-way margins of a complete K-way table: centring along
//     every axis;
//   - anything else: sparse A, rank-revealing sparse factorisation, and
//     Pi_N e = e - A_r^T (A_r A_r^T)^{-1} A_r e on the independent rows A_r.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"
#include "cell_keys.hpp"
#include "lattice_table.hpp"

namespace invariant_dp {

// One declared margin: the key columns whose marginal totals stay exact.
// No column = the grand total.
struct Margin {
  std::vector<std::size_t> columns;
};

class InvariantModel {
 public:
  // Throws InconsistentInvariants when the margins pin every cell, TooLarge
  // when the general projector would need too large a factorisation, and
  // InvalidData when there is no cell. `interrupts` is kept for the later
  // calls too, so its context must outlive the model. groups: borrowed
  // takes a one-column margin's groups from the cells' codes of that column
  // in place (they already number the groups by first appearance), so the
  // cells must outlive the model; copied keeps groups of its own.
  InvariantModel(const CellKeys& keys, std::vector<Margin> margins, const Interrupts& interrupts,
                 KeyCodes groups = KeyCodes::copied);
  ~InvariantModel();
  InvariantModel(InvariantModel&&) noexcept;
  InvariantModel& operator=(InvariantModel&&) noexcept;

  std::size_t n_cells() const;
  // rank(A): the number of independent invariant rows.
  std::size_t rank() const;
  // dim null(A) = n_cells - rank: the dimensions the noise lives in.
  std::size_t null_dimension() const { return n_cells() - rank(); }
  // "none", "partition", "two_way", "k_way" or "general": which projector is used.
  std::string structure() const;

  // For structure() "two_way": the complete two-way tables the two margins
  // cut the cells into (rows are the groups of the first margin); for
  // "k_way": the complete K-way tables whose K (K-1)-way margins are
  // declared, one per group of the columns every margin holds (one table
  // when there are none). The integer invariant lattice is the direct sum
  // of theirs.
  // Empty for any other structure.
  std::vector<LatticeTable> lattice_tables() const;

  // e <- Pi_N e, in place, e has n_cells entries. Polls interrupts.
  void project_onto_null_space(double* e) const;

  // diag(Pi_N): the noise variance of each cell per unit of i.i.d. variance.
  // Exact; for the general structure it may throw TooLarge (selected
  // inverse past its work limit, see sparse_projector.cpp).
  std::vector<double> null_projector_diagonal() const;

  // The independent invariant rows A_r (rank() x n_cells, 0/1 entries).
  Eigen::SparseMatrix<double, Eigen::RowMajor> independent_rows() const;

  // For structure() "partition": group_of_cell[i] is cell i's group, the
  // groups numbered as the rows of independent_rows(), n_groups = rank(),
  // n_cells() of them. Null for any other structure.
  const std::uint32_t* partition_groups() const;

  // The totals of every declared margin (every group of every margin, in a
  // fixed order: margins as declared, redundant ones included, and each
  // margin's groups in order of first appearance among the cells), for
  // checking that a release kept them: out has n_margin_groups() entries.
  std::size_t n_margin_groups() const;
  void margin_totals(const double* values, double* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace invariant_dp
