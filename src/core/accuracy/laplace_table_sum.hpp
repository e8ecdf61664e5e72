// The law of an integer sum of cells over independent complete two-way
// integer_laplace tables whose shorter side has r = 3 or 4 levels
// (DERIVATIONS.md, section 15): X = sum_j w_j . Y_j per table, Y_j its n
// lines across the short side (zero-sum vectors of r cells, independent
// given the long side's margins), w_j the weights of line j's cells. The
// other margins are a Fourier integral over alpha, so that
//   E[e^(i theta X) | margins] = int prod_j psi(alpha + theta w_j) / int psi^n,
// psi the line's transform (table_quadrature.hpp): lines of one weight
// pattern share one evaluation (the lines the sum leaves out, the pattern
// 0, most of them). The transform at the N-th roots of unity is inverted
// for the coverage of [-t, t] (fourier_coverage.hpp), enclosing:
//   - the trapezoid rule in alpha (each table conditioned on its margins
//     modulo N: within P(S in N Z^d \ {0}) / P(S = 0 mod N) in total
//     variation, added over the tables);
//   - the nodes outside the box in alpha (the pair majorant);
//   - the aliasing of the inversion, P(|X| >= N_theta - t), by Chernoff:
//     E e^(lambda w . Y) of a zero-sum line is at most the ratio of its
//     partition functions at a e^(lambda (max w - min w) / 2) and at a;
//   - the alpha nodes left out in theta: psi^(lines of pattern 0), computed
//     at theta = 0, bounds a node's share at every theta, and the smallest
//     nodes up to 1e-11 of the whole are left out (a few per cent of the
//     box remain);
//   - rounding, estimated as for the cell's law.
// The work is (nodes in theta) x (alpha nodes kept) x (patterns): cheap for
// the sums of a few cells or lines, refused (TooLarge) past max_work, where
// the caller keeps its tail bound: before any node is evaluated when the
// box is past a third of it (the passes in theta cost twice the box or more
// on every sum measured), else after the pass at theta = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "fourier_coverage.hpp"

namespace invariant_dp::accuracy {

// One table's part of the sum: its shape and one integer weight per cell,
// row-major (rows x cols).
struct LaplaceTablePart {
  std::size_t rows = 0, cols = 0;
  std::vector<std::int64_t> weights;
};

// Evaluations of a line's transform one margin of error may spend (under a
// second: a pair of cells of a 4 x 100 table at b = 10.4 spends 5.7e6 in
// 0.8 s).
constexpr double kTableSumWork = 6e6;

// How a sum's law was computed: by the inversion, or by one pass, the sum
// taking at most one cell of each line (laplace_table_sparse_sum.hpp).
enum class TableSumMethod { inversion, one_pass };
struct TableSumQuantile {
  Quantile quantile;      // of X / step
  std::int64_t step = 0;  // X takes the values step Z; 0: X is constant given the margins
  double work = 0;        // line transforms evaluated
  TableSumMethod method = TableSumMethod::inversion;
};

// parts: tables with min(rows, cols) in {3, 4} and both sides at least 3
// (InvalidArgument otherwise). TooLarge past max_work, for lines longer than
// 2,000 or weights past 2^39 in size; OutOfRange when the bounds do not
// certify a half-width.
// The process keeps the last 16 sums it computed or refused for work, with
// that work, so that asking again (a composite's columns, a dashboard's
// refresh) reads them within the same limits.
TableSumQuantile laplace_table_sum_quantile(Rational b, const std::vector<LaplaceTablePart>& parts, double level,
                                            const Interrupts& interrupts, double max_work = kTableSumWork);

// Drops the kept sums (release/kept_results.hpp: a new role starts from nothing).
void forget_kept_table_sums();

}  // namespace invariant_dp::accuracy
