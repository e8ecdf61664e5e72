// Building and choosing rows of the invariant matrix A (see null_projectors.hpp):
// indicator rows of margin groups, filled straight into compressed row-major
// storage (no triplets: a million cells times a few margins stays cheap), and
// the selection of independent rows for three or more margins: a
// rank-revealing sparse LDL^T of the Gram matrix A A^T under AMD ordering
// (sparse QR of A^T was tried first; its Householder vectors fill in along
// all d cells and it took minutes where this takes milliseconds).
#include <algorithm>
#include <stdexcept>

#include "../errors.hpp"
#include "null_projectors.hpp"
#include "sparse_ldlt.hpp"

namespace invariant_dp {
namespace detail {
namespace {

using StoredIndex = RowSparse::StorageIndex;

// A pivot of G = A A^T below this fraction of its diagonal entry marks a
// dependent row. For 0/1 margin rows independent pivots stay far above it and
// dependent ones sit at round-off (~1e-15); InvariantModel verifies the
// decision against every dropped row anyway.
constexpr double kDependentPivot = 1e-9;

// Compressed row-major matrix with the given row lengths, entries unset.
RowSparse empty_rows(const std::vector<std::size_t>& row_lengths, std::size_t n_cells) {
  RowSparse rows(static_cast<Eigen::Index>(row_lengths.size()), static_cast<Eigen::Index>(n_cells));
  std::size_t nnz = 0;
  for (std::size_t r = 0; r < row_lengths.size(); ++r) {
    rows.outerIndexPtr()[r] = static_cast<StoredIndex>(nnz);
    nnz += row_lengths[r];
  }
  rows.outerIndexPtr()[row_lengths.size()] = static_cast<StoredIndex>(nnz);
  rows.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  return rows;
}

}  // namespace

RowSparse indicator_rows(const std::vector<const Grouping*>& groupings, std::size_t n_cells,
                         const Interrupts& interrupts) {
  std::vector<std::size_t> first_row, row_lengths;
  for (const Grouping* grouping : groupings) {
    first_row.push_back(row_lengths.size());
    for (std::uint32_t size : group_sizes(*grouping)) row_lengths.push_back(size);
  }
  RowSparse rows = empty_rows(row_lengths, n_cells);
  std::vector<StoredIndex> next(rows.outerIndexPtr(), rows.outerIndexPtr() + row_lengths.size());
  for (std::size_t m = 0; m < groupings.size(); ++m) {
    const std::uint32_t* group_of_cell = groupings[m]->group_of_cell;
    for (std::size_t i = 0; i < n_cells; ++i) {  // increasing i keeps rows sorted
      interrupts.poll_every(i);
      const StoredIndex at = next[first_row[m] + group_of_cell[i]]++;
      rows.innerIndexPtr()[at] = static_cast<StoredIndex>(i);
      rows.valuePtr()[at] = 1.0;
    }
  }
  return rows;
}

RowSparse take_rows(const RowSparse& rows, const std::vector<std::size_t>& which) {
  std::vector<std::size_t> row_lengths;
  for (std::size_t r : which) {
    row_lengths.push_back(static_cast<std::size_t>(rows.outerIndexPtr()[r + 1] - rows.outerIndexPtr()[r]));
  }
  RowSparse out = empty_rows(row_lengths, static_cast<std::size_t>(rows.cols()));
  for (std::size_t k = 0; k < which.size(); ++k) {
    const StoredIndex from = rows.outerIndexPtr()[which[k]];
    const StoredIndex to = out.outerIndexPtr()[k];
    for (std::size_t n = 0; n < row_lengths[k]; ++n) {
      out.innerIndexPtr()[to + n] = rows.innerIndexPtr()[from + n];
      out.valuePtr()[to + n] = rows.valuePtr()[from + n];
    }
  }
  return out;
}

ColSparse gram_matrix(const RowSparse& rows, const Interrupts& interrupts) {
  const Eigen::SparseMatrix<double> columns = rows;  // the rows of each cell
  const Eigen::Index n_rows = rows.rows();
  std::vector<double> accumulated(static_cast<std::size_t>(n_rows), 0.0);
  std::vector<StoredIndex> touched;
  std::vector<Eigen::Triplet<double, StoredIndex>> entries;
  for (Eigen::Index p = 0; p < n_rows; ++p) {
    interrupts.poll_every(static_cast<std::uint64_t>(p));
    for (RowSparse::InnerIterator cell(rows, p); cell; ++cell) {
      for (Eigen::SparseMatrix<double>::InnerIterator q(columns, cell.index()); q; ++q) {
        if (accumulated[q.index()] == 0.0) touched.push_back(static_cast<StoredIndex>(q.index()));
        accumulated[q.index()] += cell.value() * q.value();
      }
    }
    for (StoredIndex q : touched) {
      entries.emplace_back(static_cast<StoredIndex>(p), q, accumulated[q]);
      accumulated[q] = 0.0;
    }
    touched.clear();
  }
  ColSparse gram(n_rows, n_rows);
  gram.setFromTriplets(entries.begin(), entries.end());
  return gram;
}

std::vector<std::size_t> select_independent_rows(const RowSparse& rows,
                                                 const Interrupts& interrupts) {
  const ColSparse gram = gram_matrix(rows, interrupts);
  Permutation order;
  ColSparse permuted;
  order_for_factoring(gram, order, permuted);
  interrupts.poll();
  if (!factor_fits(permuted, kMaxFactorEntries, kMaxFactorWork)) {
    throw TooLarge("the declared margins are too entangled to apply them",
                   "Finding which invariant rows are independent needs too large a factorisation.",
                   "Declare fewer or coarser margins, or release smaller tables.");
  }
  const std::vector<bool> independent = independent_pivots(permuted, kDependentPivot, interrupts);
  std::vector<std::size_t> chosen;
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    if (independent[static_cast<std::size_t>(order.indices()[r])]) chosen.push_back(static_cast<std::size_t>(r));
  }
  return chosen;
}

}  // namespace detail
}  // namespace invariant_dp
