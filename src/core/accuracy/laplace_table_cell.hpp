// The law of one cell of a complete two-way table under integer_laplace:
// i.i.d. discrete Laplace cells of scale b conditioned on every row and
// column sum being 0 (the l1 law), for tables whose shorter side has r <= 4
// levels (DERIVATIONS.md, section 15). Every cell has the same law (rows
// and columns are exchangeable), so one computation serves the table.
//
// Condition first on the n lines across the short side: independent
// zero-sum vectors Y_j of r cells, the cell asked being Y_11. The other
// r - 1 margins, S = sum_j Y_j = 0, are imposed by a Fourier integral over
// alpha in [-pi, pi]^(r-1):
//   P(|Z_11| <= t, S = 0) = (2 pi)^-(r-1) int H_alpha(t) psi(alpha)^(n-1),
//   H_alpha(t) = sum_{|s| <= t} E[1{Y_11 = s} e^(i alpha . Y_1)],
// psi the line's transform (table_covariance_scale.hpp). Both H and psi are
// divided differences at the poles a e^(-i alpha_k) (Opitz's formula), H for
// every s at once by carrying one row through powers of the bidiagonal
// matrix: the sum over s is exact, only the integral over alpha is
// discretised. The trapezoid rule on N^(r-1) points computes the integrals
// conditioned on S = 0 modulo N instead, within P(S in N Z^(r-1) \ {0})
// (LinesAliasing, zero_sum_line_mass.hpp), and only the nodes where
// psi^(n-1) is not negligible are visited (the pair majorant bounds the
// rest): both bounds enclose the coverage. The floating-point rounding is
// estimated (about n times the unit of the arithmetic, as for the
// covariance scale). On tables of at most 12 lines the asked cell may be
// taken as the one whose angle the node integrates in closed form, by
// residues (line_power_coefficients.hpp): a grid of one dimension less,
// its rounding measured against 80-bit arithmetic at three nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "fourier_coverage.hpp"

namespace invariant_dp::accuracy {

struct TableCellCoverage {
  // P(|Z_11| <= t) within [lower[t], upper[t]], t = 0 .. T.
  std::vector<double> lower, upper;
  double points = 0;  // quadrature nodes evaluated
  double work = 0;    // work units spent (below)
};

// Work units of one computation: nodes times (T + r). The per-cell
// intervals of a release spend at most kTableCellWork on all its shapes
// (about half a second).
constexpr double kTableCellWork = 1.5e7;
// A work unit of the sums' measure (a line transform, about 1.5e-7 s) in
// the cell's (about 3.3e-8 s): the one-pass law the quantile falls back on
// counts in the former.
constexpr double kCellWorkPerSumWork = 4.5;

// rows, cols >= 3 with min(rows, cols) <= 4 (InvalidArgument otherwise: a
// line of two levels is a zero-sum group, conditioned_marginal.hpp), T >= 0.
// TooLarge, before any node is evaluated, when the work passes max_work or
// T passes 2^20;
// OutOfRange when the error bound passes 1e-9 (scales far from calibrated).
// `spent`, when given, receives the work spent, also when refused for work
// (after a coarser grid).
// `quadrature`: the grid over all the short side's angles but the last
// line's, or (tables of at most 12 lines) the asked cell's angle by
// residues and the grid over the others' (DERIVATIONS.md, section 15), or
// whichever is less work (automatic).
enum class CellQuadrature { automatic, all_angles, asked_angle_by_residues };
TableCellCoverage laplace_table_cell_coverage(Rational b, std::size_t rows, std::size_t cols, std::int64_t T,
                                              const Interrupts& interrupts, double max_work = kTableCellWork,
                                              double* spent = nullptr,
                                              CellQuadrature quadrature = CellQuadrature::automatic);

// The smallest t whose certified coverage reaches the level (exact when
// t - 1 certainly does not), searched up to a ceiling well past the
// unconditioned cell's quantile. Where the coverage above is past the work
// limit, the same law by one pass that decides at a coarser grid first and
// leaves out the nodes where psi^(n-1) is negligible
// (laplace_table_sparse_sum.hpp: a sum of this one cell): long tables at
// small epsilon, e.g. 4 x 20 at b = 10.4 in 0.01 s. The same errors as
// above, and OutOfRange when the ceiling does not cover. The last 64 quantiles found are kept for the process (they
// depend on b, the shape and the level alone; dropped when another role calls: release/kept_results.hpp): asked again,
// one is read without computing and reports the work its search took (asked under a lower limit, it is searched again);
// a refusal for work is kept with its limit, and refuses at once under that limit or a lower one.
struct TableCellQuantile {
  Quantile quantile;
  double work = 0;
};
TableCellQuantile laplace_table_cell_quantile(Rational b, std::size_t rows, std::size_t cols, double level,
                                              const Interrupts& interrupts, double max_work = kTableCellWork);

// Drops the kept quantiles (the C boundary's idp_keep_results_for).
void forget_kept_cell_quantiles();

}  // namespace invariant_dp::accuracy
