// The covariance scale c of a complete two-way table with both margins, for
// the l1 law of integer_laplace (i.i.d. discrete Laplace cells conditioned on
// every row and column sum being 0) and the lattice Gaussian of
// integer_gaussian (the same with discrete Gaussian cells): Cov(Z) = c Pi_N
// by symmetry (DERIVATIONS.md, section 1), computed, not estimated, when the
// shorter side has at most four lines (DERIVATIONS.md, section 12).
//
// With r <= 4 the shorter side and n the longer, each of the n lines across
// it is a zero-sum vector of r cells with characteristic function
// psi(alpha) = E e^(i alpha . Y), Y its first r - 1 cells; the other r - 1
// margins are imposed by Fourier integrals over alpha in [-pi, pi]^(r-1):
//   P(S = 0) = (2 pi)^-(r-1) int psi^n,     S the r - 1 partial line sums,
//   Var Z_11 = (n - 1)/(r - 1) int psi^(n-2) |grad psi|^2 / int psi^n
// (integration by parts). Both integrands are periodic and analytic, and
// the trapezoid rule on N^(r-1) points computes them exactly up to
// aliasing: the terms at S in N Z^(r-1) \ {0}, bounded by Chernoff. Only
// the nodes where psi^(n-2) is not negligible are visited: |psi| is at most
// the pair majorant at any alpha_i (integer_noise_transforms.hpp), which
// bounds the rest. psi itself: for the l1 law a contour integral, i.e. a
// divided difference of a rational function at the poles a e^(-i alpha_k),
// evaluated by Opitz's formula (the first row of f of a bidiagonal matrix,
// stable when poles coincide); for the Gaussian a Poisson sum over the dual
// lattice of the zero-sum vectors (or the direct sum at small variances).
//
// Error: `quadrature_error` bounds aliasing and truncation (rigorously, as
// a relative error of c; for the l1 law the aliasing by the cells' tails
// or by the lines' l1 mass, whichever is smaller: zero_sum_line_mass.hpp,
// a third of the points on short tables); the floating-point rounding of the sums and of
// psi^n (80-bit arithmetic) is estimated in `rounding_error`, about n times
// the 64-bit unit; test_table_covariance_scale.cpp checks c against exact
// enumeration of 3 x 3 tables and the closed form of 2 x n tables.
// Cost: about (60 sqrt(r))^(r-1) points for large n (a 4 x 1000 table
// visits some 10^5); for short tables, whose whole grid is summed, about
// N^(r-1) / (2 r!) by the symmetries of a line (N growing with the scale);
// TooLarge beyond kMaxScalePoints. Three- and four-line l1 tables of up to
// 32 lines may instead take their last free angle by residues
// (line_residues.hpp): a grid of N^(r-2) nodes, or a box whose size does
// not grow with the scale, at some n^2 operations a
// node, wherever that is less work (DERIVATIONS.md, section 12, "One angle
// by residues").
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {

constexpr double kMaxScalePoints = 4e6;

struct TableScale {
  double scale = 0;             // c: Cov(Z) = c Pi_N
  double cell_variance = 0;     // Var Z_ij = c (1 - 1/rows)(1 - 1/cols)
  double quadrature_error = 0;  // relative, certified: aliasing and truncation
  double rounding_error = 0;    // relative, estimated: floating-point rounding
  std::uint64_t points = 0;     // quadrature points evaluated, over every attempt
};

// The relative quadrature error the grid is chosen for: by default far
// below any digit printed; what releases and their error bars ask (the
// same, so that the sd a release publishes and its error bars' c are one
// number), below the 1e-9 they call exact with a third of the points;
// where that is past their points, the coarser grid they call certified
// (c within its stated error, below 1e-3: about 2.5 times fewer points, as
// the grid's side grows with the log of the target).
constexpr double kScaleQuadratureError = 1e-13;
constexpr double kPublishedScaleError = 1e-10;
constexpr double kCertifiedScaleError = 1e-3;

// Which quadrature: the one of fewer points (what releases and error bars
// take), or, to check one against the other, the Fourier integral over all
// r - 1 angles, or three- and four-line l1 tables' with the last free
// angle by residues (line_residues.hpp; InvalidArgument where it does not
// apply).
enum class ScaleQuadrature { fewest_points, all_angles, last_angle_by_residues };

// rows, cols >= 2 with min(rows, cols) <= 4. InvalidArgument otherwise (a
// line of one level pins the table: c is undefined). TooLarge, before any
// point is evaluated, past max_points (at most kMaxScalePoints). The grid is
// chosen for quadrature_error <= target_error, in [1e-15, 1e-3]. The last 64
// results are kept for the process (they depend on the law, the shape and
// the target alone; dropped when another role calls:
// release/kept_results.hpp): asked again, one costs no work, and is
// refused where its computation would have been, so keeping changes only
// the time a call takes.
TableScale table_covariance_scale(IntegerNoise noise, std::size_t rows, std::size_t cols, const Interrupts& interrupts,
                                  double max_points = kMaxScalePoints, double target_error = kScaleQuadratureError,
                                  ScaleQuadrature quadrature = ScaleQuadrature::fewest_points);

// The scale a release and its error bars take: at kPublishedScaleError,
// or, past max_points there, on the coarser grid of kCertifiedScaleError
// within the same points (its quadrature_error says which: above 1e-9 on
// the coarser grid). TooLarge past both; OutOfRange as above.
TableScale release_table_scale(IntegerNoise noise, std::size_t rows, std::size_t cols, const Interrupts& interrupts,
                               double max_points);

// Drops the kept scales (the C boundary's idp_keep_results_for).
void forget_kept_table_scales();

// The points a release and its error bars spend on one table shape (about
// half a second at some 0.55 microseconds a point): wider, the release
// keeps its Monte Carlo scale.
constexpr double kErrorBarScalePoints = 1e6;

}  // namespace invariant_dp::accuracy
