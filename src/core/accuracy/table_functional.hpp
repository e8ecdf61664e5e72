// Any integer functional of the lattice Gaussian on complete tables
// (integer_gaussian: sigma2 I on the lattice of tables whose every
// (K-1)-way margin is fixed; one axis: a zero-sum group), and sums of such
// functionals over independent tables whose parts have different steps:
// the step, the continuous variance and the log excess of the tilted
// discrete Gaussian (lattice_gaussian_quantiles.hpp), by the theta sums over
// a full-rank set of short vectors of the kernel of the functional
// (kernel_lengths.hpp; DERIVATIONS.md, section 13, "Any functional of a
// complete table").
//
// The moves: with a corner level p_k on every axis (read from the
// functional, not from how it was written: DERIVATIONS.md, section 13,
// "The corner"), M_i = (e_p1 - e_i1) x ... x (e_pK - e_iK) for
// every i with i_k != p_k, a basis of the lattice (Kronecker products of the
// axes' zero-sum bases), each of squared length 2^K, and
// <M_i, M_j> = prod_k (1 + [i_k = j_k]) = 2^(axes where i and j agree).
// The values a_i = w^T M_i are the weights differenced against the corner
// along every axis: O(K x cells), and up to 2^18 more (32 x cells a short
// axis, K x cells a long one) for the corner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "lattice_gaussian_quantiles.hpp"

namespace invariant_dp::accuracy {

struct TableFunctional {
  StepFunctional functional;  // X takes the values step Z; step 0: X is constant on the lattice
  std::uint64_t pivot = 0;    // |a| of the pivot move, the smallest nonzero
  double pivot_length2 = 0;   // the pivot's squared length in the law's metric, 2^K / sigma2
};

// Tables past this many cells keep the caller's tail bound (the weights,
// their differences and the centred copy are held at once: 24 bytes a
// cell).
constexpr std::size_t kMaxFunctionalCells = std::size_t(1) << 23;

// w up to whole lines (functions constant along some axis, which the
// (K-1)-way margins fix): differenced against level 0 along every axis,
// D_i = sum over subsets S of axes of (-1)^|S| w(i with the axes of S at 0),
// 0 wherever some axis is at level 0. One vector for every way of writing
// one functional on the lattice; 0 exactly for sums of whole lines.
// |D| <= 2^K max|w|. O(K x cells). With except_axis, every axis but that
// one (lines along the others gone; a line along it shifts every slice
// across it alike).
std::vector<std::int64_t> up_to_lines(const std::vector<std::size_t>& shape, std::vector<std::int64_t> w,
                                      const Interrupts& interrupts, std::size_t except_axis = SIZE_MAX);

// prod n_k Pi_b x for a dense table of this shape (row-major, the last
// axis fastest), in place: each axis centred in turn as numerators,
// x <- n x - (the line's sum), exact in integers (|x| grows at most 2n
// times an axis: the caller keeps it in range). O(K x cells).
template <class T>
void centred_numerators(const std::vector<std::size_t>& shape, std::vector<T>& x, const Interrupts& interrupts) {
  std::size_t stride = x.size();
  std::uint64_t lines = 0;
  for (const std::size_t n : shape) {
    stride /= n;  // the axis's step
    const std::size_t span = stride * n;
    for (std::size_t outer = 0; outer < x.size(); outer += span)
      for (std::size_t inner = 0; inner < stride; ++inner) {
        interrupts.poll_scaled(++lines, n);
        const std::size_t base = outer + inner;
        T sum = 0;
        for (std::size_t l = 0; l < n; ++l) sum += x[base + l * stride];
        for (std::size_t l = 0; l < n; ++l) x[base + l * stride] = T(n) * x[base + l * stride] - sum;
      }
  }
}

// X = w^T z for one table of this shape (each axis at least two levels),
// w integer up to 2^40 in size, one per cell in row-major order (the last
// axis fastest). InvalidArgument for a malformed shape or weights; TooLarge
// past kMaxFunctionalCells. O(K x cells).
TableFunctional table_functional(Rational sigma2, const std::vector<std::size_t>& shape,
                                 const std::vector<std::int64_t>& weights, const Interrupts& interrupts);

// X = X_1 + ... + X_B over independent tables (their steps may differ): the
// step is the gcd of theirs and the variances add; the kernel keeps each
// table's own vectors and adds, for every table but the one P* of the
// smallest pivot, (a_* P_b - a_b P_*) / gcd(a_*, a_b), of squared length
// alpha^2 |P_b|^2 + beta^2 |P_*|^2 (the tables are orthogonal). Parts of
// step 0 are left out; step 0 when all are.
StepFunctional independent_tables(const std::vector<TableFunctional>& parts, const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
