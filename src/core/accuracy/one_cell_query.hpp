// A query that is one cell times a weight, up to sums the invariants fix
// (whole lines of a complete table, whole groups of a margin). Its noise is
// that cell's noise times the weight, so its error bar is the cell's
// interval scaled: the cell asked alone, the rest of its row, or the cell
// with its row added get one figure (DERIVATIONS.md, section 16).
//
// On a block that is a complete table of shape n_1 x ... x n_K with all its
// (K-1)-way margins fixed (a group of a margin: K = 1), the noise z
// satisfies every margin, so w.z = w'.z whenever w - w' is a sum of
// functions each constant along one axis: exactly the kernel of the mixed
// difference D = prod_m (I - S_m), S_m setting coordinate m to 0. D maps
// the cell c to s * 1[box], the box prod_m B_m with B_m = {c_m} where
// c_m != 0 and {1, ..., n_m - 1} where c_m = 0, s = (-1)^#{m : c_m = 0}.
// So w is a times c exactly when D w is a * s on that box and 0 elsewhere,
// checked exactly (differences of the weights, exact for integer weights).
// On general margins (incomplete tables, margins that cross), w is a times
// c when Pi_N w is a times Pi_N e_c, read from Pi_N w up to the rounding of
// the floating-point projector.
#pragma once

#include <cstddef>
#include <optional>

#include "../interrupts.hpp"
#include "cell_query.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// The one cell (with its weight) the query equals given the invariants;
// nothing without invariants, for a query of one cell already, a constant,
// any other query, or a block past kMaxOneCellBlock cells (then the sum
// keeps its own figure).
std::optional<CellQuery> as_one_cell(const ProjectorForm& form, const CellQuery& query, const Interrupts& interrupts);
constexpr std::size_t kMaxOneCellBlock = std::size_t(1) << 22;

}  // namespace invariant_dp::accuracy
