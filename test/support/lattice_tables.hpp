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
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t k = 0; k + 1 < c; ++k)
      b.columns.push_back(LatticeVector{
          {std::uint32_t(i * c + k), std::uint32_t(i * c + c - 1), std::uint32_t((r - 1) * c + k),
           std::uint32_t((r - 1) * c + c - 1)},
          {1, -1, -1, 1}});
  return b;
}

}  // namespace invariant_dp::test_tables
