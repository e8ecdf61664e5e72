// Test helper: a lattice basis as a dense column-major d x m array, for
// checks that index entries directly (exact determinants, LLL conditions,
// enumerating small lattices), and the conversions to and from the sparse
// LatticeBasis the library uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lattice/lattice_basis.hpp"

namespace invariant_dp::test_tables {

struct DenseBasis {
  std::size_t dimension = 0;
  std::size_t rank = 0;
  std::vector<std::int64_t> vectors;  // column j occupies [j * dimension, (j + 1) * dimension)
  const std::int64_t* column(std::size_t j) const { return vectors.data() + j * dimension; }
};

inline DenseBasis dense(const LatticeBasis& basis) {
  DenseBasis out{basis.dimension, basis.rank(), std::vector<std::int64_t>(basis.dimension * basis.rank(), 0)};
  for (std::size_t j = 0; j < basis.rank(); ++j)
    for (std::size_t t = 0; t < basis.column(j).index.size(); ++t)
      out.vectors[j * basis.dimension + basis.column(j).index[t]] = basis.column(j).value[t];
  return out;
}

inline LatticeBasis sparse(const DenseBasis& basis) {
  LatticeBasis out;
  out.dimension = basis.dimension;
  for (std::size_t j = 0; j < basis.rank; ++j) {
    LatticeVector v;
    for (std::size_t i = 0; i < basis.dimension; ++i)
      if (basis.column(j)[i] != 0) {
        v.index.push_back(static_cast<std::uint32_t>(i));
        v.value.push_back(basis.column(j)[i]);
      }
    out.columns.push_back(std::move(v));
  }
  return out;
}

}  // namespace invariant_dp::test_tables
