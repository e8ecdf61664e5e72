// The chains' starting table, computed from the public invariant totals
// only (never from the confidential cells: a chain that never moves
// releases its start, congenial_target.hpp): the
// non-negative least-squares point nearest the zero table, i.e. the
// minimum-norm table with the declared totals (for one margin: each group's
// total spread evenly), rounded to integers keeping the totals
// (projection/controlled_rounding.hpp). Deterministic, so two databases with
// equal totals start at the same table.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../projection/linear_invariants.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts);

// For complete two-way tables (the cells of `tables`, together every cell):
// a non-negative integer table with each table's row and column totals,
// close to the independence table r_i c_j / N. Row by row, row i's total is
// split in proportion to what each column still lacks: floor(r_i l_j / L)
// (L = sum of l_j, which is the total of the rows not yet filled, so
// r_i <= L and no column receives more than it lacks), and the remainder,
// fewer than the columns with a fractional share, one each to those with
// the largest fractions (each still lacks at least one). The last row takes
// exactly what is left. Exact integer arithmetic; reads only the totals of
// `counts`; O(cells log cols), no solver.
std::vector<std::int64_t> proportional_table_start(const std::vector<LatticeTable>& tables,
                                                   const std::int64_t* counts, std::size_t n_cells,
                                                   const Interrupts& interrupts);

}  // namespace invariant_dp
