// Exact l1 noise on two-way tables with a line of three levels (3 x n or
// n x 3) whose row and column totals are both kept: the integer_laplace law
// of Dharangutte, Gao, Gong, Yu 2023 (arXiv:2212.00936), Definition 9, on
// crossing margins, sampled there by MCMC (Section 4; exact samplers are its
// open problem, Section 6). The derivation goes beyond the papers; the
// algebra of the two identities is in DERIVATIONS.md beside this file, and
// stat_three_line_table.cpp checks the law against enumeration and against
// the row-rejection oracle.
//
// Target (3 x n; for n x 3 exchange rows and columns). With rows u, v and
// w = -u - v (the column sums vanish), lambda = 1/b, b = num/den:
//   P(u, v)  proportional to  prod_j W(u_j, v_j)  on  sum u = sum v = 0,
//   W(u, v) = exp(-lambda (|u| + |v| + |u + v|)).
// (The third row's sum is then 0 too.) Notation: rho = exp(-2 lambda)
// = exp(-1/h), h = b/2 (exact, half_of); Geo: P(g) = (1 - rho) rho^g on
// g >= 0; K: the two-sided law P(x) = (1 - rho)/(1 + rho) rho^|x|, which is
// the law of Geo - Geo' (independent).
//
// Two identities (DERIVATIONS.md, sections 1 and 2):
//  (I1) the column law's first coordinate, f(u) = sum_v W(u, v) / Z, is the
//       mixture f = p K*K + (1 - p) K, p = (1 + rho)^2 / (1 + 4 rho + rho^2):
//       u = D + B D' with D, D' ~ K and B ~ Bernoulli(p), all independent;
//  (I2) given u, v has the law W(u, v) / sum_v' W(u, v') = a + C + K,
//       a = min(0, -u), C ~ alpha_L on {0..L}, L = |u|, with weight 1 at 0
//       and L and 1 - rho inside (the plateau of pair_block.hpp).
// So under the free process Phi (no constraint), with every variable
// independent given those it depends on,
//   u_j = P_j - M_j + B_j D'_j,   v_j = a(u_j) + C_j + P'_j - M'_j,
//   P, M, P', M' ~ Geo,  D' ~ K,  B ~ Bernoulli(p),  C_j ~ alpha_{|u_j|},
// the columns (u_j, v_j) are i.i.d. with pmf proportional to W, and the
// target is Phi conditioned on E = {sum u = 0, sum v = 0}.
//
// Sampler (probabilistic divide-and-conquer with deterministic second
// halves, Arratia and DeSalvo 2016, arXiv:1110.3856), one trial:
//  1. draw B, D', M; set N = sum M - sum B D' (then sum u = 0 iff
//     sum P = N); reject if N < 0, else accept with probability
//     nb(N)/nb(mode) (NegativeBinomialCoin: sum P is negative binomial);
//     on acceptance P is a uniform composition of N into n parts (the law of
//     n i.i.d. Geo given their sum), and u = P - M + B D';
//  2. draw C given u and M'; set N' = sum M' - sum (a + C); reject if
//     N' < 0, else accept with probability nb(N')/nb(mode); P' a uniform
//     composition of N', v = a + C + P' - M'.
// Any rejection restarts the trial at step 1 (not at step 2: the weight of
// u in the target includes P(sum v = 0 | u), which the restart supplies).
// Exactness: for an outcome omega of all the variables with E holding,
// P(a trial returns omega) = Phi(omega) / nb(mode)^2, because Phi gives the
// sums of P and P' the negative binomial law and, given a sum, a uniform
// composition: both steps reproduce Phi's weight of (P, P') up to the
// constant 1/nb(mode) each. Outcomes outside E are never returned. So the
// returned omega has the law Phi( . | E), and (u, v) the target.
// Every draw is exact: Geo and K by Canonne, Kamath, Steinke 2020
// (arXiv:2004.00010), Algorithm 2 (discrete_laplace.hpp), B by picking one
// of the six terms 1, rho, rho, rho^2 (B = 1) and rho, rho (B = 0) of
// (1 + rho)^2 + 2 rho uniformly and keeping it with probability its value
// (exact Bernoulli(rho) coins, bernoulli_exp.hpp), C by a uniform point of
// {0..L} kept always at the ends and with probability 1 - rho inside.
//
// Cost: each trial is O(n + N + N') with N, N' ~ n h (the compositions);
// measured acceptances are 0.5 to 0.6 (step 1) and 0.53 to 0.73 (step 2)
// for n = 3 to 10^4 and b = 1 to 16: 2.6 to 3.5 trials of step 1 and 1.4 to
// 1.9 of step 2 a table, O(n (1 + h)) expected; C costs (L + 1)/(2 + (L -
// 1)(1 - rho)) draws, at most about h. Measured (bench_exact_tables):
// 3 x 23 in 0.25 ms, 3 x 10^6 in 0.5 to 0.9 s. Memory: three arrays of n
// (24 bytes per column) and the coin's kept bounds (64 KB).
// Limits: n h below 2^50 (OutOfRange, as the partition sampler).
#pragma once

#include <cstddef>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "../random_source.hpp"
#include "rational.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

// Whether the table is two-way with a line of three levels (3 x n or n x 3,
// n >= 1; 3 x 1 is pinned).
bool is_three_line_table(const LatticeTable& table);

// The law above on every table, written through z (cells index the
// release's n_cells cells; a cell of no table is left alone).
// InvalidArgument for a zero scale, a table that is not three-line, or
// cells out of range or repeated; OutOfRange past the limits or when a
// noisy count leaves bigint; Interrupted on cancel.
void sample_laplace_on_three_line_tables(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                         std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts);

// Exposed for the statistical tests' power checks only: the same sampler
// with a deliberate error, restarting a rejected step 2 at step 2 (so u
// misses the weight P(sum v = 0 | u)); `count` 3 x n tables row-major one
// after the other in z. Not the target law.
void sample_three_line_without_restart(RandomSource& rng, Rational scale, std::size_t n, std::size_t count,
                                       std::int64_t* z, const Interrupts& interrupts);

}  // namespace invariant_dp
