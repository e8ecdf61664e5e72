// The exact l1 (integer_laplace) noise of complete two-way tables with both
// margins, where an exact sampler of bounded cost exists: every table has a
// line of at most three levels (2 x n, n x 2: two_line_table.hpp; 3 x n,
// n x 3: three_line_table.hpp; a line of one level pins the table). One
// entry point for a release's list of tables (InvariantModel's
// lattice_tables()), so that the mechanism can choose it over the table
// chain by the tables' shapes alone. Tables whose lines are all longer keep
// the chain: samplers/DERIVATIONS.md, section 4.
#pragma once

#include <cstddef>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "rational.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

// Whether every table is two-way with a line of at most three levels (and
// its cells listed).
bool exact_table_laplace_applies(const std::vector<LatticeTable>& tables);

// The l1 law P(z) proportional to exp(-||z||_1 / b) on each table's lattice,
// tables independent, written through z (a cell of no table is left
// alone): the two-line tables first, in their order, then the three-line
// ones. InvalidArgument unless exact_table_laplace_applies, and as the two
// samplers; OutOfRange past their limits; Interrupted on cancel.
void sample_exact_table_laplace(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts);

}  // namespace invariant_dp
