// Test helper: the "corner" basis of the lattice of an r x c table with both
// margins fixed (row-major cells): b_(i,j) = e_(i,j) - e_(i,c-1) -
// e_(r-1,j) + e_(r-1,c-1) for i < r-1, j < c-1. Built by hand, so the MCMC
// tests and benchmarks do not depend on the FLINT construction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lattice/lattice_basis.hpp"

namespace invariant_dp::test_tables {

inline LatticeBasis table_basis(std::size_t r, std::size_t c) {
  LatticeBasis b;
  b.dimension = r * c;
  b.rank = (r - 1) * (c - 1);
  b.vectors.assign(b.dimension * b.rank, 0);
  std::size_t j = 0;
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t k = 0; k + 1 < c; ++k, ++j) {
      std::int64_t* col = b.vectors.data() + j * b.dimension;
      col[i * c + k] = 1;
      col[i * c + c - 1] = -1;
      col[(r - 1) * c + k] = -1;
      col[(r - 1) * c + c - 1] = 1;
    }
  return b;
}

}  // namespace invariant_dp::test_tables
