// The quadratic form x^T Pi_N x of a query x, where Pi_N is the orthogonal
// projector onto the null space of a release's invariants (the projector of
// invariants/null_projectors.hpp, never formed as a matrix), block by block.
//
// Every data-independent law a release draws has covariance sum_b c_b Pi_b:
// Pi_N is block diagonal (one block per margin group of a partition, per
// complete table, or one block), and symmetry makes the covariance a scalar
// multiple of the projector on each block (DERIVATIONS.md, section 1). So a
// family (linear_accuracy.hpp) only supplies the scalars c_b, and the
// variance of any query is sum_b c_b x_b^T Pi_b x_b.
//
// Forms, each O(cells of the query) after O(cells) preparation:
//   identity   x^T x;
//   partition  per group g of k_g cells: sum w^2 - (sum w)^2 / k_g;
//   tables     per complete n_1 x ... x n_K table (the two_way structure's
//              blocks, the k_way structure's cube), the Kronecker product of
//              centring matrices by inclusion-exclusion over the axes:
//                sum over subsets T of the axes of (-1)^|T| / prod_{k in T} n_k
//                times sum over the marginal cells of (sum of w over T)^2,
//              e.g. for r x c: sum w^2 - sum_rows R^2/c - sum_cols C^2/r + T^2/(rc);
//   general    x^T x - (A x)^T (A A^T)^-1 (A x) on the independent rows A of
//              the margins, A A^T factored once (sparse LDL^T in a
//              fill-reducing order); a query solves L u = P A x for the
//              sparse right-hand side only along the elimination tree paths
//              of the rows it touches: O(cells + factor entries on those
//              paths).
// Each form keeps scratch arrays between queries (the O(cells) preparation
// buys O(query) queries), so one form must not answer two queries at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../invariants/lattice_table.hpp"
#include "cell_query.hpp"

namespace invariant_dp::accuracy {

class GeneralLatticeFunctionals;

// One block's share of a query: x_b^T Pi_b x_b (>= 0).
struct BlockForm {
  std::uint32_t block = 0;
  double form = 0;
};

class ProjectorForm {
 public:
  virtual ~ProjectorForm() = default;
  // "none", "partition", "tables" or "general".
  virtual const char* structure() const = 0;
  virtual std::size_t n_cells() const = 0;
  virtual std::size_t n_blocks() const = 0;
  virtual std::uint32_t block_of(std::uint32_t cell) const = 0;
  // Every cell's block_of as one array, for forms that keep one (a
  // partition's groups); nullptr for the others.
  virtual const std::uint32_t* block_of_cells() const { return nullptr; }
  // (Pi_N)_{ii}: a cell's variance per unit of its block's scalar.
  virtual double diagonal(std::uint32_t cell) const = 0;
  // The block as a complete table: {k} for a margin group of k cells (a
  // table of one axis), the shape of a table; empty for the identity and
  // general forms, whose one block is no table.
  virtual std::vector<std::size_t> block_shape(std::uint32_t) const { return {}; }
  // The cell's place in its block as a table, in row-major order over
  // block_shape (a group's cells in cell order; 0 for forms whose blocks are
  // no tables).
  virtual std::size_t position_in_block(std::uint32_t) const { return 0; }
  // The cell at a place in a block (the inverse of position_in_block, for
  // the partition and table forms; a group's cell by one pass over the
  // cells). InvalidArgument for another form or a place outside the block.
  virtual std::uint32_t cell_at(std::uint32_t block, std::size_t position, const Interrupts& interrupts) const;
  // out <- one entry per block the query touches (in no particular order).
  // The query's cells must be distinct and below n_cells() (check_query).
  virtual void block_forms(const CellQuery& query, std::vector<BlockForm>& out,
                           const Interrupts& interrupts) const = 0;
  // Their sum: x^T Pi_N x.
  double form(const CellQuery& query, const Interrupts& interrupts) const;
  // Pi_N x over every cell, for the general form (the partition and table
  // forms' blocks are read as tables instead: one_cell_query.hpp), by one
  // solve with the whole factor. InvalidArgument for the other forms.
  virtual std::vector<double> projection(const CellQuery& query, const Interrupts& interrupts) const;
  // The general form's lattice of integer noise vectors, by a basis
  // (general_lattice_functional.hpp), built at the first call and kept;
  // nullptr for the other forms (their lattices have explicit moves) and
  // where the basis would pass the lattice's limits (remembered).
  virtual const GeneralLatticeFunctionals* lattice_functionals(const Interrupts&) const { return nullptr; }
};

// No invariant: Pi_N = I, one block.
std::unique_ptr<ProjectorForm> identity_form(std::size_t n_cells);

// One partition (a margin, or the finest of nested margins): cell i in group
// group_of_cell[i] < n_groups; block = group.
std::unique_ptr<ProjectorForm> partition_form(std::vector<std::uint32_t> group_of_cell, std::size_t n_groups,
                                              const Interrupts& interrupts = {});

// Complete tables with all their (K-1)-way margins, each cell of the release
// in exactly one table (InvariantModel::lattice_tables() of the two_way and
// k_way structures); block = table, in the given order. InvalidArgument for a
// cell in no table or in two, TooLarge past 2^32 cells, kMaxTableAxes axes,
// or marginal sums of more than kMaxScratchPerCell per cell (many axes of few
// levels), refused before anything is allocated.
std::unique_ptr<ProjectorForm> table_form(std::vector<LatticeTable> tables, std::size_t n_cells,
                                          const Interrupts& interrupts = {});
constexpr std::size_t kMaxTableAxes = 12;
constexpr std::size_t kMaxScratchPerCell = 16;

// A block given as a table shape (block_shape): whether its margins fix every
// cell (a group of one cell, an axis of one level), and (Pi_N)_ii in it,
// prod_k (1 - 1/n_k).
bool shape_pinned(const std::vector<std::size_t>& shape);
double shape_diagonal(const std::vector<std::size_t>& shape);

// Any margins, from their independent 0/1 rows (rank x n_cells,
// InvariantModel::independent_rows()); one block. TooLarge when the factor
// of A A^T would pass the invariants' limits (sparse_ldlt.hpp), as the
// projector itself would.
std::unique_ptr<ProjectorForm> general_form(const Eigen::SparseMatrix<double, Eigen::RowMajor>& independent_rows,
                                            const Interrupts& interrupts);

// The form of a release's invariants: by InvariantModel::structure().
std::unique_ptr<ProjectorForm> form_of_model(const InvariantModel& model, const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
