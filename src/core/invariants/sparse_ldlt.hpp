// Internal: the pieces of a sparse LDL^T that Eigen's SimplicialLDLT does not
// expose: counting the factor before building it (to refuse oversized ones
// without allocating them), and a rank-revealing variant that drops rows of
// a positive semidefinite Gram matrix whose pivot vanishes. The Gram matrix
// G = A A^T of the margin rows is PSD with G x = 0 exactly when A^T x = 0, so
// its vanishing pivots are the rows of A that depend on earlier ones.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "../interrupts.hpp"

namespace invariant_dp {
namespace detail {

using ColSparse = Eigen::SparseMatrix<double>;
using Permutation = Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int>;

// AMD fill-reducing order of a symmetric matrix: row r goes to position
// order.indices()[r]; `permuted` = order * matrix * order^T.
void order_for_factoring(const ColSparse& matrix, Permutation& order, ColSparse& permuted);

// True when the strictly lower LDL^T factor of the symmetric pattern
// `permuted` has at most `max_entries` entries and its numeric factorisation
// takes at most `max_work` multiply-adds (sum of squared column counts).
// Counted through the elimination tree in O(n) memory, stopping early once
// past the entry limit.
bool factor_fits(const ColSparse& permuted, double max_entries, double max_work);

// The limits every factorisation of invariant rows is held to: 3e7 entries
// (~360 MB with indices) and 3e9 multiply-adds (a few seconds, on a helper
// a cancel leaves: factor_leaving_on_cancel). A few intersecting
// margins with rank up to ~10^4 stay inside unless their groups are densely
// coupled, like the three two-way margins of a cube: 20^3 (rank 1141) fits,
// 40^3 (rank 4681) does not. Beyond them InvariantModel throws TooLarge.
constexpr double kMaxFactorEntries = 3e7;
constexpr double kMaxFactorWork = 3e9;

// Eigen's simplicial LDL^T of a matrix already ordered (order_for_factoring).
using LdltFactor = Eigen::SimplicialLDLT<ColSparse, Eigen::Lower, Eigen::NaturalOrdering<int>>;

// The factor of `permuted` (checked by factor_fits first), computed on a
// helper a cancel leaves (../leave_on_cancel.hpp): Eigen's factorisation is
// one call that cannot poll. Its info() tells whether it succeeded.
std::shared_ptr<const LdltFactor> factor_leaving_on_cancel(const ColSparse& permuted, const Interrupts& interrupts);

// Up-looking LDL^T of a symmetric PSD matrix (full pattern, already ordered)
// that treats row k as dependent, and removes it, when its pivot falls below
// relative_tolerance * permuted(k, k). Returns one flag per row: independent.
std::vector<bool> independent_pivots(const ColSparse& permuted, double relative_tolerance,
                                     const Interrupts& interrupts);

}  // namespace detail
}  // namespace invariant_dp
