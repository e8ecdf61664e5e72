// The two integer noise laws of the exact error bars, described by what the
// Fourier inversion of their sums needs (DERIVATIONS.md, section 10):
//
//   discrete Laplace of scale b:   P(x) proportional to a^|x|, a = exp(-1/b);
//     phi(theta) = E e^(i theta X) = 1 / (1 + kappa sin^2(theta/2)),
//     kappa = 4 a / (1 - a)^2;
//   discrete Gaussian D_{Z, s2}:   P(x) proportional to exp(-x^2 / (2 s2));
//     phi(theta) = sum_k exp(-s2 (theta - 2 pi k)^2 / 2) / sum_k exp(-2 pi^2 s2 k^2)
//     (Poisson summation), a wrapped normal density up to its constant.
//
// Both transforms are positive, even and decreasing on [0, pi], so the
// transform of a sum of i.i.d. cells, phi^m, is too. The angles are always
// theta = 2 pi r / N for integers r and N, reduced exactly in integer
// arithmetic before any floating-point operation (the reduced angle is
// then within a few ulps).
//
// Besides phi: the pair majorant, a bound on |E e^(i theta U)| for the split
// U of two cells given their sum (decreasing on [0, pi]; section 11), and a
// Chernoff bound on the tails of weighted sums of independent cells
// (section 10), for the truncations of the inversions.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "../samplers/rational.hpp"

namespace invariant_dp::accuracy {

struct IntegerNoise {
  enum class Kind { laplace, gaussian };
  Kind kind = Kind::laplace;
  Rational parameter;  // the scale b, or the variance parameter s2
};

// The same law at half its parameter (b/2 or s2/2, exactly), the law of one
// line of a 2 x n table (samplers/two_line_table.hpp, step 2).
IntegerNoise halved(IntegerNoise noise);

// `cells` i.i.d. cells, each multiplied by `weight` (>= 1), as one term of
// a weighted sum.
struct WeightedCells {
  std::uint64_t weight = 1;
  std::uint64_t cells = 0;
};

class NoiseTransform {
 public:
  // InvalidArgument for a zero parameter.
  explicit NoiseTransform(IntegerNoise noise);

  const IntegerNoise& noise() const { return noise_; }
  // Var X of one cell.
  double variance() const { return variance_; }

  // log phi(2 pi r / N), N >= 1, any r (reduced modulo N exactly).
  double log_phi(std::uint64_t r, std::uint64_t N) const;
  // The pair majorant at 2 pi r / N (at most 1; it does not increase from
  // the angle 0 to pi, for either law: quadrature_grid bounds runs of
  // shells by it).
  double pair_majorant(std::uint64_t r, std::uint64_t N) const;
  // Its mean k-th power over the circle, (2 pi)^-1 int M(theta)^k d theta,
  // 0 <= k <= 64, from above (its rounding's few units added). The l1 law
  // only (InvalidArgument for the Gaussian): M = 1 / (1 + kappa_2
  // sin^2(theta/2)), whose mean power is P_(k-1)(z) / (1 + kappa_2)^(k/2),
  // z = (1 + kappa_2/2) / sqrt(1 + kappa_2), P the Legendre polynomial
  // (Laplace's integral for the Legendre functions).
  double pair_majorant_mean_power(int k) const;

  // An upper bound on P(|sum of the terms| >= x), x >= 0 (Chernoff,
  // optimised over its free parameter; any value of it gives a bound).
  double tail_bound(const std::vector<WeightedCells>& terms, double x) const;
  // The smallest integer x >= 0 with tail_bound(terms, x) <= p (0 < p < 1).
  std::int64_t tail_point(const std::vector<WeightedCells>& terms, double p) const;

  // For `cells` >= 2 independent cells whose laws are this one or are
  // dominated by it (a likelihood ratio to it that decreases in |y|, as for
  // a cell of a zero-sum group: DERIVATIONS.md, section 5): an upper bound
  // on E[|X_1 X_2| 1{|X_1 + ... + X_cells| >= x}] (Chernoff on the measure
  // |y| p(y) for the first two cells: E|X| e^(lambda X) is at most the
  // law's E|X| cosh(lambda X), |y| cosh(lambda y) increasing in |y|).
  double product_tail_bound(std::uint64_t cells, double x) const;
  std::int64_t product_tail_point(std::uint64_t cells, double p) const;

  // log E e^(lambda X) of one cell (for the Gaussian its sub-Gaussian bound
  // lambda^2 s2 / 2, Poisson summation), for 0 <= lambda < mgf_limit().
  double log_mgf(double lambda) const;
  double mgf_limit() const { return noise_.kind == IntegerNoise::Kind::laplace ? inv_b_ : INFINITY; }
  // min over lambda in [0, limit) of a convex f, by golden-section search
  // (limit finite).
  static double minimise(const std::function<double(double)>& f, double limit);

 private:
  double log_abs_mgf(double lambda) const;  // log E |X| e^(lambda X), as log_mgf
  IntegerNoise noise_;
  double s2_ = 0;        // Gaussian: the variance parameter
  double inv_b_ = 0;     // Laplace: 1/b
  double kappa_ = 0;     // Laplace: 4 a / (1 - a)^2
  double kappa2_ = 0;    // Laplace: the same at a^2 (the pair's split)
  double log_norm_ = 0;  // Gaussian: log(1 + 2 sum_k>=1 exp(-2 pi^2 s2 k^2))
  double variance_ = 0;
};

// The reduced angle: r mod N folded to x in [0, N/2], so that
// phi(2 pi r / N) = phi(2 pi x / N).
std::uint64_t folded_residue(std::uint64_t r, std::uint64_t N);
// sin(pi x / N) for 0 <= x <= N/2, the argument rounded once.
double sin_pi_fraction(std::uint64_t x, std::uint64_t N);

}  // namespace invariant_dp::accuracy
