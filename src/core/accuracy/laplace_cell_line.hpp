// One line of an integer_laplace table seen from one of its cells, and the
// symmetries of the integrals over the lines' angles that single out that
// cell: what the law of one cell (laplace_table_cell.hpp) and the law of a
// sum taking at most one cell from each line (laplace_table_sparse_sum.hpp)
// share (DERIVATIONS.md, section 15).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "../samplers/rational.hpp"
#include "table_quadrature.hpp"

namespace invariant_dp::accuracy {

// At angles u_k = e^(i alpha_k) of the line's r cells (the law depends on
// them up to a common rotation: the cells sum to 0), the cell asked first:
// the line's transform psi (LaplaceLinePoles) and
// h(s) = E[1{Y_1 = s} e^(i alpha . Y)] for s = 0 .. T, both unnormalised
// (divided by psi at alpha = 0 by the caller). h(-s) = conj(h(s)): the
// line's law is symmetric. With the poles x_k = a conj(u_k) and
// beta_k = a u_k:
//   h(s) = (1 - a^2)^(r-1) (a u_1)^s g_s[x_2 .. x_r],
//   g_s(z) = z^(r-2+s) / prod_{k >= 2} (1 - beta_k z)
// (the coefficient of z^-s in the product of the other cells' two-sided
// geometric series). g_s[...] = e_1^T J^(r-2+s) R(J) e_K: the column R(J)
// e_K once, then the row e_1^T J^p carried one power at a time.
template <class Real>
class LaplaceCellLine {
  using C = Cx<Real>;

 public:
  LaplaceCellLine(Rational b, int r, std::int64_t T) : r_(r), T_(T) {
    const Real inv_b = Real(b.den) / Real(b.num);
    a_ = std::exp(-inv_b);
    one_minus_a2_ = -std::expm1(-2 * inv_b);
    power_r_ = std::pow(one_minus_a2_, r_);
    power_k_ = std::pow(one_minus_a2_, r_ - 1);
  }

  // The grid's form: r - 1 angles by cosine and sine, the last cell's 0.
  Real evaluate(const Real* cosine, const Real* sine, C* h) const {
    C angles[kMaxLines];
    for (int k = 0; k < r_; ++k) angles[k] = k < r_ - 1 ? C{cosine[k], sine[k]} : C{1, 0};
    return evaluate(angles, h);
  }

  // psi at the r angles, and h(0 .. T) into `h`.
  Real evaluate(const C* angles, C* h) const {
    const LaplaceLinePoles<Real> line = poles(angles);
    cell_law(line, h);
    return transform(line);
  }

  // The poles at the r angles, which psi and h share.
  LaplaceLinePoles<Real> poles(const C* angles) const { return LaplaceLinePoles<Real>(a_, r_, angles); }

  // psi at the poles' angles.
  Real transform(const LaplaceLinePoles<Real>& line) const { return power_r_ * line.transform_difference(); }

  // h(0 .. T) at the poles' angles, into `h`.
  void cell_law(const LaplaceLinePoles<Real>& line, C* h) const {
    const int K = r_ - 1;
    const C* x = line.x;
    const C* beta = line.beta;
    const auto& inverse = line.inverse;
    // The column R(J) e_K over the nodes x_2 .. x_r: K bidiagonal solves
    // (I - beta J) y = v from the bottom up.
    std::array<C, kMaxNodes> column{}, row{};
    column[K - 1] = {1, 0};
    for (int f = 1; f < r_; ++f) {
      C below{};
      for (int i = K - 1; i >= 0; --i) {
        column[i] = (column[i] + beta[f] * below) * inverse[f][i + 1];
        below = column[i];
      }
    }
    // The row e_1^T J^(K-1).
    row[0] = {1, 0};
    const auto times_j = [&] {
      for (int j = K - 1; j >= 1; --j) row[j] = row[j] * x[j + 1] + row[j - 1];
      row[0] = row[0] * x[1];
    };
    for (int p = 0; p < K - 1; ++p) times_j();
    C power{power_k_, 0};  // (1 - a^2)^K (a u_1)^s
    const C ratio = beta[0];
    for (std::int64_t s = 0; s <= T_; ++s) {
      C dot{};
      for (int i = 0; i < K; ++i) dot = dot + row[i] * column[i];
      h[s] = power * dot;
      power = power * ratio;
      times_j();
    }
  }

 private:
  int r_;
  std::int64_t T_;
  Real a_ = 0, one_minus_a2_ = 0, power_r_ = 0, power_k_ = 0;  // (1 - a^2)^r, (1 - a^2)^(r-1)
};

// A permutation of a line's r cells.
using CellPermutation = std::array<int, kMaxLines>;

// The permutations of r cells that leave the first `fixed` in place.
inline std::vector<CellPermutation> cell_permutations(int r, int fixed) {
  std::vector<CellPermutation> out;
  CellPermutation perm{};
  for (int k = 0; k < r; ++k) perm[k] = k;
  // Ends: next_permutation runs through the (r - fixed)! orders of the rest.
  do out.push_back(perm);
  while (std::next_permutation(perm.begin() + fixed, perm.begin() + r));
  return out;
}

// The permutations of lines 2 .. r: the symmetries of an integrand that
// depends on the angles through psi and the first cell's h alone.
inline std::vector<CellPermutation> first_cell_symmetries(int r) { return cell_permutations(r, 1); }

// The orbits of the grid's nodes under the sign (psi(-alpha) = psi(alpha),
// h_-alpha(s) = conj(h_alpha(s))) and a group of permutations of the
// line's cells that leave the integrand as it is (for one cell's law, those
// of lines 2 .. r, which hold no cell asked), acting on the angles of all r
// lines up to a common shift (the lines sum to 0), i.e. re-gauged so that
// line r keeps angle 0. On the whole torus the group maps the grid onto
// itself, and each orbit is visited once, at its lexicographically largest
// node, weighted by its size. In a box of the torus the shift would leave
// the box: there only the sign and, for one cell's law on four lines, the
// swap of lines 2 and 3 are used.
class LineOrbits {
 public:
  LineOrbits(int r, std::int64_t N, std::int64_t first, std::vector<CellPermutation> group)
      : r_(r), N_(N), first_(first), group_(std::move(group)) {}

  // The size of j's orbit on the whole torus when j is its largest node, else 0.
  int whole_weight(const std::array<std::int64_t, kMaxLines>& j) const {
    const int d = r_ - 1;
    std::array<std::int64_t, kMaxLines> beta{}, image{};
    for (int i = 0; i < d; ++i) beta[i] = j[i];
    beta[d] = 0;
    int fixed = 0, images = 0;
    for (const CellPermutation& perm : group_) {
      for (const int sign : {1, -1}) {
        ++images;
        for (int k = 0; k < d; ++k) image[k] = reduce(sign * (beta[perm[k]] - beta[perm[d]]));
        int order = 0;
        for (int k = 0; k < d && order == 0; ++k) order = image[k] < j[k] ? -1 : image[k] > j[k] ? 1 : 0;
        if (order > 0) return 0;
        fixed += order == 0;
      }
    }
    return images / fixed;
  }

  // One cell's law in a box: the weight of j (j[1] <= j[2] for four lines)
  // when it is the larger of itself and its negation's ordered form, else 0.
  int first_cell_box_weight(const std::array<std::int64_t, kMaxLines>& j) const {
    const int d = r_ - 1;
    std::array<std::int64_t, kMaxLines> minus{};
    for (int i = 0; i < d; ++i) minus[i] = -j[i];
    if (d == 3 && minus[1] > minus[2]) std::swap(minus[1], minus[2]);
    int order = 0;
    for (int i = 0; i < d && order == 0; ++i) order = j[i] < minus[i] ? -1 : j[i] > minus[i] ? 1 : 0;
    if (order < 0) return 0;
    return (order == 0 ? 1 : 2) * (d == 3 && j[1] != j[2] ? 2 : 1);
  }

  // The sign alone, in a box: j's weight (1 or 2) when it is the larger of
  // itself and -j, else 0.
  int sign_weight(const std::array<std::int64_t, kMaxLines>& j) const {
    const int d = r_ - 1;
    int order = 0;
    for (int i = 0; i < d && order == 0; ++i) order = j[i] < -j[i] ? -1 : j[i] > -j[i] ? 1 : 0;
    return order < 0 ? 0 : order == 0 ? 1 : 2;
  }

  // The group's size times 2: the nodes an orbit holds at most.
  double largest_orbit() const { return 2 * double(group_.size()); }

 private:
  // v modulo N, in [first, first + N): the images' entries are differences
  // of two angles of the grid, within a period or two of it (no division,
  // which the scan over every node of the grid would pay many times).
  std::int64_t reduce(std::int64_t v) const {
    std::int64_t m = v - first_;
    if (m < 0) m += N_;
    if (m < 0) m += N_;
    if (m >= N_) m -= N_;
    if (m >= N_) m -= N_;
    if (m < 0 || m >= N_) m = ((m % N_) + N_) % N_;
    return m + first_;
  }
  int r_;
  std::int64_t N_, first_;
  std::vector<CellPermutation> group_;
};

}  // namespace invariant_dp::accuracy
