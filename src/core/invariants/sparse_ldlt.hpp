// Internal: the pieces of a sparse LDL^T that Eigen's SimplicialLDLT does not
// expose: counting the factor before building it (to refuse oversized ones
// without allocating them), and a rank-revealing variant that drops rows of
// a positive semidefinite Gram matrix whose pivot vanishes. The Gram matrix
// G = A A^T of the margin rows is PSD with G x = 0 exactly when A^T x = 0, so
// its vanishing pivots are the rows of A that depend on earlier ones.
#pragma once

#include <cstddef>
#include <vector>

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
// `permuted` has at most `limit` entries (counted through the elimination
// tree in O(n) memory, stopping early once past the limit).
bool factor_fits(const ColSparse& permuted, double limit);

// Up-looking LDL^T of a symmetric PSD matrix (full pattern, already ordered)
// that treats row k as dependent, and removes it, when its pivot falls below
// relative_tolerance * permuted(k, k). Returns one flag per row: independent.
std::vector<bool> independent_pivots(const ColSparse& permuted, double relative_tolerance,
                                     const Interrupts& interrupts);

}  // namespace detail
}  // namespace invariant_dp
