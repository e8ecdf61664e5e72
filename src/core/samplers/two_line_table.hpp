// Exact noise on two-way tables with a line of two levels (2 x n or n x 2:
// sex by anything) whose row and column totals are both kept, for the l1
// law of integer_laplace and the lattice Gaussian of integer_gaussian
// (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Definitions 9 and 13,
// whose sampler there is MCMC, Section 4 and Appendix D.1; exact samplers
// are its open problem, Section 6):
//
//   l1:        P(Z)  proportional to  exp(-||Z||_1 / b),        b = num/den > 0,
//   Gaussian:  P(Z)  proportional to  exp(-||Z||_2^2 / (2 s2)), s2 = num/den > 0,
//   on L = {Z in Z^{2 x n} : every row and every column of Z sums to 0}.
//
// The reduction (written for 2 x n; for n x 2 exchange rows and columns).
// 1. L is the image of Y = {y in Z^n : sum_j y_j = 0} under the bijection
//    y -> Z(y) = (y, -y) (first row y, second row -y): a column sums to 0
//    iff Z_2j = -Z_1j, the first row sums to 0 iff sum y = 0, and the second
//    row's sum -sum y is then 0 too. The inverse is Z -> first row.
// 2. Norms: ||Z(y)||_1 = 2 ||y||_1 and ||Z(y)||_2^2 = 2 ||y||_2^2. So the law
//    of the first row is
//      l1:        P(y)  proportional to  exp(-||y||_1 / (b/2))            on Y,
//      Gaussian:  P(y)  proportional to  exp(-||y||_2^2 / (2 (s2/2)))     on Y,
//    i.e. i.i.d. discrete Laplace of scale b/2 (discrete Gaussians of
//    variance parameter s2/2) conditioned on a zero sum: one group of n
//    cells of the partition samplers, conditioned_laplace.hpp (exact, by
//    compositions) and conditioned_gaussian.hpp (exact, Klein's sampler with
//    the rejection step of Brakerski et al. 2013, or naive rejection).
//    Drawing y exactly from that law and writing Z(y) draws Z exactly from
//    the target, since a bijection carries the law of y to the law of Z.
// 3. The halved parameter is exact: b/2 = num/(2 den), or (num/2)/den when
//    num is even (a Rational of 64-bit parts either way, else OutOfRange);
//    no rounding enters the law.
// A table with a line of one level (2 x 1, 1 x n) is pinned: L = {0}.
//
// Not the l2 law (integer_laplace_l2, exp(-||Z||_2 / b)): the bijection
// still maps it to exp(-||y||_2 / (b / sqrt 2)) on Y, but that density does
// not factorise over cells (it is not an i.i.d. law conditioned on a sum),
// its scale is irrational, and no exact sampler of it exists here; it
// keeps the scale-mixture chain (mcmc/scale_mixture_chain.hpp).
//
// Cost: l1, O(n + N) per table with N ~ n b/2 the group total
// (conditioned_laplace.hpp), no memory beyond the group sampler's two
// compositions (16 bytes per column); one total sampler per distinct n.
// Gaussian: O(n) (conditioned_gaussian.hpp), 12 bytes per column.
// Measured (bench_exact_tables, a loaded 2-core machine): l1 2 x 23 in
// 0.3 ms (building the group sampler), 2 x 10^4 in 0.5 ms, 2 x 10^6 in
// 56 to 72 ms at b = 4 and 16; the Gaussian 2 x 10^6 in 0.39 s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "rational.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

// Whether the table is two-way with a line of at most two levels (2 x n,
// n x 2, or pinned by a line of one level).
bool is_two_line_table(const LatticeTable& table);

// Half of a positive rational, exactly: (num/2)/den or num/(2 den);
// OutOfRange when neither fits 64-bit parts.
Rational half_of(Rational x);

// The l1 law above on every table, written through z (cells index the
// release's n_cells cells; a cell of no table is left alone). InvalidArgument
// for a zero scale, a table that is not two-line, or cells out of range or
// repeated; OutOfRange as the partition sampler (n b/2 > 2^50) or when a
// noisy count leaves bigint; Interrupted on cancel.
void sample_laplace_on_two_line_tables(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                       std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts);

// The lattice Gaussian above likewise (sigma2 = s2); OutOfRange as
// conditioned_gaussian.hpp for a variance too large or too small for a
// table's n.
void sample_gaussian_on_two_line_tables(RandomSource& rng, Rational sigma2, const std::vector<LatticeTable>& tables,
                                        std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts);

}  // namespace invariant_dp
