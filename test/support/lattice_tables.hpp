// Test helper: the "corner" basis of the lattice of an r x c table with both
// margins fixed (row-major cells): b_(i,j) = e_(i,j) - e_(i,c-1) -
// e_(r-1,j) + e_(r-1,c-1) for i < r-1, j < c-1. Built by hand, so the MCMC
// tests and benchmarks do not depend on the FLINT construction. And the
// margin rows of an r x c table without its last cell: general margins, on
// which the FLINT construction and LLL run.
#pragma once

#include <Eigen/SparseCore>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lattice/lattice_basis.hpp"

namespace invariant_dp::test_tables {

inline LatticeBasis table_basis(std::size_t r, std::size_t c) {
  LatticeBasis b;
  b.dimension = r * c;
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t k = 0; k + 1 < c; ++k)
      b.columns.push_back(LatticeVector{
          {std::uint32_t(i * c + k), std::uint32_t(i * c + c - 1), std::uint32_t((r - 1) * c + k),
           std::uint32_t((r - 1) * c + c - 1)},
          {1, -1, -1, 1}});
  return b;
}

// The row and column totals of an R x C table without cell (R-1, C-1), its
// column C-1 total dropped as redundant (cells row-major, skipping the
// missing one).
inline Eigen::SparseMatrix<double, Eigen::RowMajor> table_without_a_corner(int R, int C) {
  std::vector<Eigen::Triplet<double>> t;
  int n = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      if (i == R - 1 && j == C - 1) continue;
      t.emplace_back(i, n, 1.0);
      if (j < C - 1) t.emplace_back(R + j, n, 1.0);
      ++n;
    }
  Eigen::SparseMatrix<double, Eigen::RowMajor> a(R + C - 1, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

}  // namespace invariant_dp::test_tables
