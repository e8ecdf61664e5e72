// Internal pieces of invariant_lattice_basis (lattice_basis.hpp), shared by
// the files of src/core/lattice and by the unit tests. The invariant lattice
// Lambda_A = {z in Z^d : A z = 0} (lattice_basis.hpp) is
// the direct sum of the lattices of A's connected components (cells linked
// by sharing a row), so each component is solved on its own: structured
// components (a single group, a complete two-way table) by an explicit
// basis, the rest by exact integer linear algebra (lattice_general.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "lattice_basis.hpp"

namespace invariant_dp {
namespace lattice_detail {

// A sparse integer row or basis vector: (cell index, value) with value != 0,
// cells increasing.
using SparseVector = std::vector<std::pair<std::size_t, std::int64_t>>;

// A connected component: its cells (increasing) and the rows touching them.
struct Component {
  std::vector<std::size_t> cells;
  std::vector<std::size_t> rows;
};

// A component's kernel basis and the proof obligations it carries.
struct ComponentBasis {
  std::vector<SparseVector> vectors;  // over global cell indices
  std::size_t rank_of_rows = 0;       // rank(A_c); vectors.size() = |cells| - rank_of_rows
  // Structured bases only: rows known to be redundant (the rank certificate
  // in lattice_basis.cpp shows the others independent).
  std::vector<std::size_t> redundant_rows;
  const char* method = "";            // "free", "group", "two_way", "rref", "hnf"
  // |b_j*|^2, the Gram-Schmidt norms (closed forms for the structured bases,
  // from the Gram matrix for the general path): the components are
  // orthogonal, so merging their bases by smallest next |b*|^2 keeps the
  // whole basis LLL-reduced (lattice_basis.cpp).
  std::vector<double> gs_norm2;
};

// The connected components of the rows (cells not in any row are singleton
// components), in order of their smallest cell.
std::vector<Component> connected_components(const std::vector<SparseVector>& rows, std::size_t n_cells,
                                            const Interrupts& interrupts);

// Explicit bases for a free cell, a single group and a complete two-way
// table (blocks are separate components). Returns false when the component
// has none of these structures.
bool structured_basis(const Component& component, const std::vector<SparseVector>& rows, ComponentBasis& out);

// The general path: exact kernel of A_c (RREF when it is integral, else the
// HNF of [A_c^T | I]), LLL-reduced. Throws TooLarge past the limits below.
// force_hnf is for tests (both routes must give the same lattice).
ComponentBasis general_basis(const Component& component, const std::vector<SparseVector>& rows,
                             const Interrupts& interrupts, bool force_hnf = false);

// The general path's limits: cells in one component, cells for the HNF
// fallback (kMaxLllWork, the LLL work m^2 d in one component, m = kernel
// rank, is in lattice_basis.hpp).
constexpr std::size_t kMaxGeneralCells = 2000;
constexpr std::size_t kMaxHnfCells = 400;
// Nonzero entries of the sparse output (12 bytes each, held twice while the
// components are merged): 2^25, under 1 GiB in all. A two-way table's basis
// has 4 per vector, so this admits about 8 million cells.
constexpr std::size_t kMaxBasisEntries = std::size_t{1} << 25;

}  // namespace lattice_detail
}  // namespace invariant_dp
