// Internal: the orthogonal projectors onto null(A) that InvariantModel picks
// from (the Pi_N of Gao, Gong, Yu 2022, arXiv:2108.11527, Corollary 3.2; the
// paper gives no formula, these are standard least squares,
// Pi_N = I - A^T (A A^T)^-1 A for independent rows A). Each one applies Pi_N in
// linear time or through a sparse factorisation, never as a dense d x d
// matrix, and knows its exact diagonal and a set of independent rows of A.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"
#include "cell_grouping.hpp"
#include "invariant_model.hpp"

namespace invariant_dp {
namespace detail {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using SharedGrouping = std::shared_ptr<const Grouping>;

class NullProjector {
 public:
  virtual ~NullProjector() = default;
  // "none", "partition", "two_way" or "general".
  virtual const char* structure() const = 0;
  virtual std::size_t rank() const = 0;
  // e <- Pi_N e in place.
  virtual void project(double* e, const Interrupts& interrupts) const = 0;
  virtual std::vector<double> diagonal(const Interrupts& interrupts) const = 0;
  // rank() x n_cells, 0/1 entries, linearly independent rows.
  virtual RowSparse independent_rows(const Interrupts& interrupts) const = 0;
  // The complete tables whose lattices make up null(A) intersected with
  // Z^d, for the two_way and k_way structures only.
  virtual std::vector<LatticeTable> lattice_tables(const Interrupts&) const { return {}; }
  // For the partition structure, its groups (else nullptr).
  virtual const Grouping* partition() const { return nullptr; }
};

// The 0/1 rows "sum of the cells of group g" for every group of every
// grouping, grouping after grouping, groups in id order.
RowSparse indicator_rows(const std::vector<const Grouping*>& groupings, std::size_t n_cells,
                         const Interrupts& interrupts);

// The connected components of the bipartite graph whose nodes are the groups
// of two partitions and whose edges are the cells (cell i joins its group in
// each). Two-margin rank = n_groups(first) + n_groups(second) - n_components.
struct BipartiteComponents {
  std::vector<std::uint32_t> component_of_first;   // per group of the first partition
  std::vector<std::uint32_t> component_of_second;  // per group of the second partition
  std::uint32_t n_components = 0;
};
BipartiteComponents bipartite_components(const Grouping& first, const Grouping& second,
                                         const Interrupts& interrupts);

// Independent rows of two margins: all groups of the first, and all groups of
// the second except the first-numbered one of each component (the only
// dependency inside a connected component is sum(first rows) = sum(second rows)).
RowSparse two_margin_independent_rows(const Grouping& first, const Grouping& second,
                                      const BipartiteComponents& components,
                                      const Interrupts& interrupts);

// Complete K-way tables (K >= 3): the group columns lie in every declared
// margin, the margins are exactly the groups crossed with the K subsets of
// K - 1 of the other columns, and in each group every combination of the
// levels it holds is a cell (one table when no column is in every
// margin); nullopt otherwise.
std::optional<std::vector<LatticeTable>> complete_k_way_tables(const CellKeys& cells,
                                                               const std::vector<Margin>& margins,
                                                               const Interrupts& interrupts);

// Their projector: centring along every axis of each table (k_way_projector.cpp).
std::unique_ptr<NullProjector> make_k_way_projector(std::vector<LatticeTable> tables,
                                                    std::vector<SharedGrouping> margins);

// No invariant: Pi_N = I.
std::unique_ptr<NullProjector> make_identity_projector(std::size_t n_cells);

// One partition: centre within each group.
std::unique_ptr<NullProjector> make_partition_projector(SharedGrouping groups);

// Two partitions that cross completely inside every connected block (each
// (first group, second group) pair of a block holds exactly one cell): double
// centring. Returns nullptr when the crossing is incomplete somewhere.
std::unique_ptr<NullProjector> make_two_way_projector(SharedGrouping first, SharedGrouping second,
                                                      const BipartiteComponents& components,
                                                      const Interrupts& interrupts);

// Two partitions that do not cross completely: exact elimination of the
// larger margin's rows and a dense Cholesky of the Schur complement on the
// smaller one's. Returns nullptr when those dense matrices would be too big.
std::unique_ptr<NullProjector> make_incomplete_two_way_projector(SharedGrouping first, SharedGrouping second,
                                                                 const BipartiteComponents& components,
                                                                 const Interrupts& interrupts);

// Any set of independent 0/1 rows: Pi_N e = e - A_r^T (A_r A_r^T)^{-1} A_r e
// with a sparse LDL^T factorisation of A_r A_r^T.
std::unique_ptr<NullProjector> make_sparse_projector(RowSparse independent_rows,
                                                     const Interrupts& interrupts);

// Indices of a maximal set of linearly independent rows of a 0/1 matrix, in
// increasing order (rank-revealing sparse LDL^T of A A^T, see sparse_ldlt.hpp).
std::vector<std::size_t> select_independent_rows(const RowSparse& rows,
                                                 const Interrupts& interrupts);

// G = A A^T of 0/1 rows: G(p, q) = the number of cells rows p and q share.
// Accumulated row by row through each cell's rows (linear memory).
Eigen::SparseMatrix<double> gram_matrix(const RowSparse& rows, const Interrupts& interrupts);

// The listed rows of a row-major matrix, in the given order.
RowSparse take_rows(const RowSparse& rows, const std::vector<std::size_t>& which);

}  // namespace detail
}  // namespace invariant_dp
