// How many cells a query's noise is worth for the normal approximation, as
// a count of the random variable itself, not of the rows it was asked with.
//
// Given the margins, a query w and w plus whole margins (the rest of a
// line, a pair with a whole row added) are one random variable: the noise
// reads only v = Pi_N w. Where a sum's own law is not known, its margin
// takes the normal approximation from kNormalCells cells
// (margin_of_error.hpp); counted as asked, the same variable would switch
// between that and a tail bound as whole lines are added. The count here is
//   N = Var(w^T z) / max_i c_b(i) v_i^2,
// the variance over the largest share one cell's term can carry
// (DERIVATIONS.md, section 17). For m cells of equal weight and no margin it
// is m; it depends on v alone; and it is the count that bounds the
// Berry-Esseen error of sum_i v_i Z_i for independent Z_i of one law, which
// is at most C E|Z|^3 / sd(Z)^3 / sqrt(N).
//
// v is read per block of the form, exactly for integer weights (as integer
// numerators over the block's cells): a margin group and a complete two-way
// table in O(query log query) (the largest entry off the query by a
// best-first walk over its rows' and columns' parts), tables of three axes
// or more by one dense pass over the block, general margins by one
// projection (the floating-point projector's rounding then enters).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "../interrupts.hpp"
#include "cell_query.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// max_i c_b(i) (Pi_N w)_i^2 over every cell, c_b the block's scalar
// (block_scalar[b], one per block of the form); nothing where a table of
// three axes or more has more than kMaxDenseCountBlock cells (the caller
// then counts the query's cells as asked).
std::optional<double> largest_cell_term(const ProjectorForm& form, const std::vector<double>& block_scalar,
                                        const CellQuery& query, const Interrupts& interrupts);
constexpr std::size_t kMaxDenseCountBlock = std::size_t(1) << 22;

}  // namespace invariant_dp::accuracy
