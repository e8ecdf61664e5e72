// Exact congenial draws on two-way tables with a line of two levels (2 x n
// or n x 2: sex by anything, the shape of Gong and Meng 2020's 2 x 23
// table, arXiv:2008.10202, Section 3) whose row and column totals are both
// kept. The target (congenial_target.hpp, their Section 2.2, eq. 2.3):
//
//   pi(y)  proportional to  exp(-||y - x||_1 / b)  on
//   {y in Z^{2 x n} : y has x's row and column totals, y >= 0},
//
// x the confidential counts, b = num/den. The reduction (written for
// 2 x n; for n x 2 exchange rows and columns), as in
// samplers/two_line_table.hpp: z = y - x keeps every total iff
// z = (t, -t) with sum t = 0, and ||z||_1 = 2 ||t||_1; y >= 0 iff
// x_1j + t_j >= 0 and x_2j - t_j >= 0. So t has the law
//
//   P(t)  proportional to  prod_j exp(-|t_j| / (b/2))  on
//   {t : sum t = 0, -x_1j <= t_j <= x_2j},
//
// i.i.d. discrete Laplace of scale b/2 (exact, half_of) truncated to each
// column's interval, conditioned on a zero sum: one margin group with cells
// bounded on both sides, drawn exactly by the group rejection of
// group_rejection.hpp (tilted truncated proposals, a closing cell accepted
// with its exact probability ratio, sample_bounded_group). A table whose
// first (or second) line totals 0 has t = 0 as its only point.
//
// Why not the O(n) sampler of the integer_laplace law: that one rests on
// the discrete Laplace being a difference of two untruncated geometric
// variables, so that a zero sum is an equality of totals with a known
// (negative binomial) law; the truncation to [-x_1j, x_2j] breaks the
// geometric tails, and the acceptance of the group rejection left is the
// probability that a sum of n bounded variables hits zero, about
// 1/sqrt(n): O(n^1.5) expected work, data-dependent. The budget follows
// group_rejection.hpp: at least min_budget proposals, 50 / (estimated
// acceptance) when that stays below 2^24 cell draws; a table that exhausts
// it is returned to the caller (its cells untouched) to be finished by the
// chain, as the partition path does. Measured (bench_exact_tables): the
// congenial paper's 2 x 23 table at b = 8, 4.9 proposals and 0.04 ms a
// draw; 2 x 10^3 and 2 x 10^4 tables of counts 0 to 9, 31 and 117
// proposals, 7 ms and 0.34 s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp {

// For every table (each 2 x n, n x 2, or pinned by a line of one level):
// y[cell] = x[cell] + z[cell] for the cells of the tables drawn; returns the
// indices of the tables that exhausted their budget, whose cells of y are
// left alone. counts and y index the release's n_cells cells. proposals
// counts the proposals made. InvalidArgument for a zero scale, a table that
// is not two-line, cells out of range or repeated, or a null buffer;
// InvalidData for a negative count; Interrupted on cancel.
std::vector<std::size_t> sample_congenial_on_two_line_tables(const std::int64_t* counts,
                                                             const std::vector<LatticeTable>& tables,
                                                             std::size_t n_cells, Rational scale,
                                                             std::uint64_t min_budget, RandomSource& rng,
                                                             const Interrupts& interrupts, std::int64_t* y,
                                                             std::uint64_t& proposals);

}  // namespace invariant_dp
