// Building and choosing rows of the invariant matrix A (see null_projectors.hpp):
// indicator rows of margin groups, filled straight into compressed row-major
// storage (no triplets: a million cells times a few margins stays cheap), and
// the rank-revealing selection of independent rows for the general case.
#include <algorithm>
#include <stdexcept>

#include <Eigen/OrderingMethods>
#include <Eigen/SparseQR>

#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

using Index = RowSparse::StorageIndex;

// Compressed row-major matrix with the given row lengths, entries unset.
RowSparse empty_rows(const std::vector<std::size_t>& row_lengths, std::size_t n_cells) {
  RowSparse rows(static_cast<Eigen::Index>(row_lengths.size()), static_cast<Eigen::Index>(n_cells));
  std::size_t nnz = 0;
  for (std::size_t r = 0; r < row_lengths.size(); ++r) {
    rows.outerIndexPtr()[r] = static_cast<Index>(nnz);
    nnz += row_lengths[r];
  }
  rows.outerIndexPtr()[row_lengths.size()] = static_cast<Index>(nnz);
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
  std::vector<Index> next(rows.outerIndexPtr(), rows.outerIndexPtr() + row_lengths.size());
  for (std::size_t m = 0; m < groupings.size(); ++m) {
    const std::vector<std::uint32_t>& group_of_cell = groupings[m]->group_of_cell;
    for (std::size_t i = 0; i < n_cells; ++i) {  // increasing i keeps rows sorted
      interrupts.poll_every(i);
      const Index at = next[first_row[m] + group_of_cell[i]]++;
      rows.innerIndexPtr()[at] = static_cast<Index>(i);
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
    const Index from = rows.outerIndexPtr()[which[k]];
    const Index to = out.outerIndexPtr()[k];
    for (std::size_t n = 0; n < row_lengths[k]; ++n) {
      out.innerIndexPtr()[to + n] = rows.innerIndexPtr()[from + n];
      out.valuePtr()[to + n] = rows.valuePtr()[from + n];
    }
  }
  return out;
}

std::vector<std::size_t> select_independent_rows(const RowSparse& rows,
                                                 const Interrupts& interrupts) {
  interrupts.poll();
  // A^T (column-major view of the row-major A) P = Q R: the first rank()
  // columns of A^T P are independent, i.e. rows P(0..rank) of A.
  const Eigen::SparseMatrix<double> rows_transposed = rows.transpose();
  Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> qr(rows_transposed);
  interrupts.poll();
  if (qr.info() != Eigen::Success) throw std::logic_error("sparse QR of the invariant rows failed");
  std::vector<std::size_t> chosen;
  for (Eigen::Index k = 0; k < qr.rank(); ++k) {
    chosen.push_back(static_cast<std::size_t>(qr.colsPermutation().indices()[k]));
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace detail
}  // namespace invariant_dp
