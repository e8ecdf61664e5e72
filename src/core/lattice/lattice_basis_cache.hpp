// The last invariant lattice bases this process computed, kept by their
// rows: a release on general margins, its per-cell intervals and the error
// bars asked of it afterwards (each statement of a session's release reads
// the table again) share one LLL reduction, the costly step (seconds for a
// thousand linked cells). A basis depends on the invariant rows alone (the
// keys and margins, never the counts), and the reduction is deterministic,
// so a kept basis is the one a new computation would give: draws and
// figures are unchanged. Another role starts from nothing kept
// (release/kept_results.hpp).
#pragma once

#include <memory>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"
#include "lattice_basis.hpp"

namespace invariant_dp {

// invariant_lattice_basis(independent_rows), from the kept ones when the
// rows are the same (compared whole); a new basis is kept unless it has
// more than kMaxKeptBasisEntries entries, the oldest dropped past
// kKeptBases or kMaxKeptBasisEntries in all. Errors as
// invariant_lattice_basis (never kept).
std::shared_ptr<const LatticeBasis> kept_invariant_lattice_basis(
    const Eigen::SparseMatrix<double, Eigen::RowMajor>& independent_rows, const Interrupts& interrupts);

// Drops every kept basis (the C boundary's idp_keep_results_for: nothing
// kept for one role is used for another).
void forget_kept_lattice_bases();

constexpr std::size_t kKeptBases = 4;
constexpr std::size_t kMaxKeptBasisEntries = std::size_t(1) << 22;  // about 50 MB with the rows

}  // namespace invariant_dp
