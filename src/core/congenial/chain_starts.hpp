// Where congenial's chains start. A chain that never moves releases its
// start (congenial_target.hpp), so a start may read the confidential cells
// only through a mechanism that is private on its own; and a start far from
// the target's mass (the zero table for counts of 10^5) is one the chain
// never leaves in its iterations, so the released table would be the
// start's, not the law's.
//
// noisy_start: the confidential table plus the base law's noise (independent
// discrete Laplace of scale b on every cell, the base mechanism of congenial
// itself, (epsilon/2)-DP), projected onto the non-negative tables with the
// declared totals (least squares, projection/nonneg_projection.hpp) and
// rounded keeping them (projection/controlled_rounding.hpp); with no
// declared total the projection is y = max(0, x + Z). It lies within the
// noise's scale of x, where the target's mass is; a chain that never moves
// releases a post-processing of the base mechanism and the public totals.
//
// public_start: the non-negative least-squares point nearest the zero table
// with the declared totals (for one margin: each group's total spread
// evenly), rounded keeping them: public, deterministic; far from the mass
// when the counts are large.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../projection/linear_invariants.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts);

// counts: the confidential cells (invariants.n_cells() of them); b: the
// base law's scale.
std::vector<std::int64_t> noisy_start(const LinearInvariants& invariants, const std::int64_t* counts, Rational b,
                                      RandomSource& rng, const Interrupts& interrupts);

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
