// An integer basis of the invariant lattice Lambda_A = {z in Z^d : A z = 0}
// (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Section 3.1,
// Proposition 8): every integer noise vector that
// keeps every invariant exact is an integer combination of its columns.
// Stored sparse: the structured bases (groups, two-way tables) have 2-4
// nonzeros per vector, so a 1000 x 1000 table's basis takes O(cells) memory
// where a dense d x m array would take d^2 entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"

namespace invariant_dp {

// A sparse integer vector over cells: index increasing, value != 0.
struct LatticeVector {
  std::vector<std::uint32_t> index;
  std::vector<std::int64_t> value;
};

struct LatticeBasis {
  std::size_t dimension = 0;            // d, the number of cells
  std::vector<LatticeVector> columns;   // the m = d - rank(A) basis vectors

  std::size_t rank() const { return columns.size(); }
  const LatticeVector& column(std::size_t j) const { return columns[j]; }
};

// The LLL work m^2 d allowed in one component (m = kernel rank, d =
// cells): a few seconds. FLINT's reduction is one call that cannot poll;
// it runs on a helper a cancel leaves (../leave_on_cancel.hpp), so this
// bounds the processor time a left reduction still takes.
constexpr double kMaxLllWork = 2.5e9;

// A basis of Lambda_A for the independent 0/1 rows A (as returned by
// InvariantModel::independent_rows()), LLL-reduced, verified A B = 0 and
// verified to generate all of Lambda_A (not a sublattice). Throws
// InconsistentInvariants when Lambda_A = {0}, TooLarge beyond the sizes an
// exact computation can afford, or a component's LLL work past
// kMaxLllWork (checked before the work starts).
LatticeBasis invariant_lattice_basis(const Eigen::SparseMatrix<double, Eigen::RowMajor>& independent_rows,
                                     const Interrupts& interrupts);

}  // namespace invariant_dp
