// An integer basis of the invariant lattice Lambda_A = {z in Z^d : A z = 0}
// (integer_subspace_dp digest, section 2): every integer noise vector that
// keeps every invariant exact is an integer combination of its columns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"

namespace invariant_dp {

struct LatticeBasis {
  std::size_t dimension = 0;  // d, the number of cells
  std::size_t rank = 0;       // m = d - rank(A), the number of basis vectors
  // Column-major d x m: basis vector j occupies [j * d, (j + 1) * d).
  std::vector<std::int64_t> vectors;

  const std::int64_t* column(std::size_t j) const { return vectors.data() + j * dimension; }
};

// A basis of Lambda_A for the independent 0/1 rows A (as returned by
// InvariantModel::independent_rows()), LLL-reduced, verified A B = 0 and
// verified to generate all of Lambda_A (not a sublattice). Throws
// InconsistentInvariants when Lambda_A = {0}, TooLarge beyond the sizes an
// exact computation can afford.
LatticeBasis invariant_lattice_basis(const Eigen::SparseMatrix<double, Eigen::RowMajor>& independent_rows,
                                     const Interrupts& interrupts);

}  // namespace invariant_dp
