// The law of a sum that takes at most one cell from each line of a complete
// two-way integer_laplace table (r = 3 or 4 levels across its short side),
// with no inversion (DERIVATIONS.md, section 15): a pair of cells, a stretch
// of a row, any integer weights on cells of distinct lines.
//
// X = sum_j w_j Y_(j, p_j) over the k lines j the sum takes (cell p_j of
// line j). As for one cell (laplace_table_cell.hpp), the margins across the
// long side are a Fourier integral over the lines' angles alpha, and at each
// node the lines are independent:
//   P(|X| <= t, S = 0) = (2 pi)^-(r-1) int [sum_{|x| <= t} (h_1 * .. * h_k)(x)] psi^(n-k),
// h_j(s) = E[1{Y_(j,p_j) = s} e^(i alpha . Y_j)] the twisted law of line j's
// cell (its values w_j s), computed for |s| <= T by the cell's recursion and
// convolved at every node. The cells beyond T are not dropped silently:
// P(|Y_(j,p)| > T, S = 0 mod N) is computed in the same pass (the line's
// transform less its cell's mass within T) and widens the upper bound.
// The trapezoid rule's aliasing and the box's omitted nodes enclose the
// rest, as for one cell.
//
// Where the inversion of laplace_table_sum.hpp must visit every node of a
// wide grid at each of its nodes in theta (a pair of cells of a 4 x 4 table
// at b = 4: some 7e8 line transforms, a minute), this visits the grid once
// (a second or less), so it serves those sums; the inversion keeps the
// others. A first pass at a coarser grid and truncation (errors of 1e-8)
// decides the quantile unless the coverage lies that close to the level; a
// second at 1e-14 settles the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "fourier_coverage.hpp"
#include "table_quadrature.hpp"

namespace invariant_dp::accuracy {

// The sum's lines: cell `position` (0 .. r - 1) of each, with its weight
// (divided by the sum's step).
struct SparseLine {
  int position = 0;
  std::int64_t weight = 0;
};
struct SparseTableSum {
  int r = 0;     // levels across the short side: 3 or 4
  double n = 0;  // lines
  std::vector<SparseLine> lines;
};

// At most this many lines, with sum_j |w_j| at most kMaxSparseWeight: the
// convolution at a node holds (2 sum_j |w_j| T + 1) values.
constexpr std::size_t kMaxSparseLines = 8;
constexpr std::int64_t kMaxSparseWeight = 64;

// The sum as lines of one cell each, from its nonzero line patterns (with
// their numbers of lines: laplace_table_sum.cpp's reading, divided by the
// step); nothing when a pattern takes more than one cell of its line (up
// to a constant), or past the limits above.
std::optional<SparseTableSum> sparse_table_sum(int r, double n,
                                               const std::vector<std::pair<LinePattern, double>>& patterns);

// The least work its first pass can take (in line transforms of the
// inversion's measure, for one limit: about 1.5e-7 s each): the scan of
// its grid against the orbits, and one transform per orbit, every node
// only bounded. A node whose psi^(n-k) is not negligible costs more: about
// (2T + 1)(ceiling + 1) operations.
double sparse_sum_least_work(Rational b, const SparseTableSum& sum, double level, const Interrupts& interrupts);

// The quantile of X (in units of the step). TooLarge past max_work: before
// a pass whose least work crosses it, or during one once its work does
// (after the first pass: the quantile it found, exact or certified);
// OutOfRange when the bounds do not reach the level within the search's
// ceiling (the union of the lines' quantiles at level 1 - (1 - level) / k).
// `work` receives the units spent, or past max_work when refused.
Quantile sparse_sum_quantile(Rational b, const SparseTableSum& sum, double level, const Interrupts& interrupts,
                             double max_work, double& work);

}  // namespace invariant_dp::accuracy
