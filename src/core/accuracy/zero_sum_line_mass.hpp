// Tails of the l1 mass of independent zero-sum lines of discrete Laplace
// cells (DERIVATIONS.md, section 12, "Aliasing by the lines' mass"): a
// line is r cells with P(y) proportional to a^|y|_1 on the vectors of sum
// 0 (a = e^(-1/b)), L the sum of |y|_1 over n independent lines. Where the
// lines' partial sums S (each line's first r - 1 cells, added) are a
// nonzero point of N Z^(r-1), the r row sums are multiples of N, not all 0,
// adding to 0: two of them are at least N in size, so L >= 2 N. Chernoff
// on L reads the joint law of a line, whose mass decays as a^(2|s|) where
// one cell's decays as a^|s|: the same aliasing bound at some two thirds of
// the N the cells' own tails need.
//
// E e^(lambda |Y|_1) = Z(a e^lambda) / Z(a) for Z(a) = sum over zero-sum y
// of a^|y|_1 = (1/2 pi) int G(theta)^r, G(theta) = (1 - a^2) /
// (1 - 2 a cos theta + a^2). Its trapezoid sum adds the coefficients of G^r
// at the multiples of its points, all positive: an upper bound at any
// number of points (and so for Z', whose coefficients |y|_1 a^(|y|_1 - 1)
// are positive too), and a lower bound once the coefficients it adds are
// negligible. Bounds are taken at a fixed grid of lambda in (0, 0.95 / b):
// any lambda gives a bound.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {

class ZeroSumLineMass {
 public:
  // b > 0, r >= 2 cells a line. Scales past kMaxScale give no bound (the
  // tail bound 1, the product's infinite): there every grid these bounds
  // serve is past its work limit whichever bound sets it (a 4 x 4 table at
  // b = 64 would need some 3e8 points), and the trapezoids' points grow
  // with b. Polls: some 8,000 b points of the trapezoids (under 0.5e6, a
  // few milliseconds, at kMaxScale).
  ZeroSumLineMass(Rational b, int r, const Interrupts& interrupts);

  static constexpr double kMaxScale = 64;

  // An upper bound on P(L >= x) for the mass L of `lines` lines.
  double tail_bound(double lines, double x) const;
  // The smallest integer x >= 0 with tail_bound(lines, x) <= p (0 < p < 1),
  // INT64_MAX where none is.
  std::int64_t tail_point(double lines, double p) const;

  // An upper bound on E[L_1 L_2 1{L >= x}] (lines >= 2; L_1, L_2 the
  // masses of two of the lines).
  double product_tail_bound(double lines, double x) const;
  std::int64_t product_tail_point(double lines, double p) const;

 private:
  // At each lambda_k: upper bounds on log E e^(lambda |Y|_1) and on
  // log E[|Y|_1 e^(lambda |Y|_1)].
  std::vector<double> lambda_, log_mgf_, log_mass_mgf_;
};

// The aliasing of the Fourier integrals over a table's lines (the trapezoid
// rule with N points per angle): where the partial sums S of n independent
// zero-sum lines of r discrete Laplace cells (S_i the sum of the lines'
// i-th cells, i < r) are a nonzero point of N Z^(r-1). Bounded by the
// cells' tails (some |S_i| >= N, a cell of a zero-sum line dominated by
// an unconditioned one: r - 1 times NoiseTransform::tail_bound) or by the
// lines' mass (L >= 2N), whichever is smaller.
class LinesAliasing {
 public:
  LinesAliasing(Rational b, int r, std::uint64_t lines, const Interrupts& interrupts);
  // An upper bound on P(S in N Z^(r-1) \ {0}).
  double bound(double N) const;
  // An x with bound(N) <= (r - 1) p for every N >= x: the cells' tail
  // point for p, or the mass's for (r - 1) p if smaller.
  std::int64_t point(double p) const;

  // The same for the covariance scale's numerator (lines >= 2): an upper
  // bound on the sum over i < r of E[|Y_1i Y_2i| 1{S in N Z^(r-1) \ {0}}]
  // for two of the lines, by the cells (NoiseTransform::product_tail_bound
  // on each S_i) or by the masses (at most E[L_1 L_2 1{L >= 2N}]); and an x
  // past which it is at most (r - 1) p.
  double product_bound(double N) const;
  std::int64_t product_point(double p) const;

 private:
  NoiseTransform cells_;
  ZeroSumLineMass mass_;
  std::vector<WeightedCells> line_sums_;
  int d_;
  double lines_;
};

}  // namespace invariant_dp::accuracy
