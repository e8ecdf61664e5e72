// What the Fourier integrals over the lines of a complete two-way table
// share (DERIVATIONS.md, sections 12 and 15): complex arithmetic without
// guards, divided differences by Opitz's formula, and the quadrature grid
// with its box of visited nodes.
//
// The tables: r <= 4 lines across the short side (the "lines" below, each
// a zero-sum vector of r cells given the long side's margins), the other
// r - 1 margins imposed by integrals over alpha in [-pi, pi]^d, d = r - 1.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "../interrupts.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {

// Lines of at most this many cells are summed in double, longer ones in
// 80-bit arithmetic (psi^n multiplies psi's relative error by n).
constexpr double kDoubleLines = 2000;

constexpr int kMaxLines = 4;              // r
constexpr int kMaxNodes = kMaxLines + 1;  // nodes of a divided difference
constexpr long double kQuadraturePi = 3.141592653589793238462643383279502884L;

// A line's weights in a sum of a table's cells, less its last cell's (that
// cell's entry, 0, left out): the lines' cells sum to 0, so a line's
// weights matter up to a constant.
using LinePattern = std::array<std::int64_t, kMaxLines>;

// Complex numbers with plain arithmetic (std::complex's operators guard
// against infinities and NaN at several times the cost; none arise here:
// every modulus lies between (1 - a)^2 and 1/(1 - a)^r).
template <class Real>
struct Cx {
  Real re = 0, im = 0;
};
template <class Real>
inline Cx<Real> operator+(Cx<Real> x, Cx<Real> y) {
  return {x.re + y.re, x.im + y.im};
}
template <class Real>
inline Cx<Real> operator*(Cx<Real> x, Cx<Real> y) {
  return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}
template <class Real>
inline Cx<Real> reciprocal(Cx<Real> x) {
  const Real inverse_modulus = 1 / (x.re * x.re + x.im * x.im);
  return {x.re * inverse_modulus, -x.im * inverse_modulus};
}

// f[x_1 .. x_n] for f(z) = z^p q(z) / prod_k (1 - beta_k z): the last entry
// of the first row of f(J), J the upper bidiagonal matrix with the nodes on
// its diagonal and ones above (Opitz 1964). The row is carried through the
// factors: e_1^T J^p q(J) prod_k (I - beta_k J)^-1, each O(n). Nodes and
// betas are given by index; inverse[b][x] = 1 / (1 - beta_b x_x). At a
// number of nodes N fixed when compiled, which the compiler unrolls (the
// callers' innermost evaluation); divided_difference dispatches on n.
template <int N, class Real>
Cx<Real> divided_difference_of(const Cx<Real>* x, const int* node, int p, const Cx<Real>* q, int q_degree,
                               const Cx<Real>* beta, const int* factor, int n_factors,
                               const Cx<Real> (*inverse)[kMaxNodes]) {
  using C = Cx<Real>;
  C v[N] = {}, acc[N] = {};
  v[0] = {1, 0};
  const auto times_j = [&](C* w) {
    for (int j = N - 1; j >= 1; --j) w[j] = w[j] * x[node[j]] + w[j - 1];
    w[0] = w[0] * x[node[0]];
  };
  for (int k = 0; k < p; ++k) times_j(v);
  // q(J) by Horner: acc = q_d v; acc = acc J + q_i v.
  for (int j = 0; j < N; ++j) acc[j] = q[q_degree] * v[j];
  for (int i = q_degree - 1; i >= 0; --i) {
    times_j(acc);
    for (int j = 0; j < N; ++j) acc[j] = acc[j] + q[i] * v[j];
  }
  for (int k = 0; k < n_factors; ++k) {  // acc <- acc (I - beta J)^-1
    const C b = beta[factor[k]];
    C previous{};
    for (int j = 0; j < N; ++j) {
      acc[j] = (acc[j] + b * previous) * inverse[factor[k]][node[j]];
      previous = acc[j];
    }
  }
  return acc[N - 1];
}

template <class Real>
Cx<Real> divided_difference(const Cx<Real>* x, const int* node, int n, int p, const Cx<Real>* q, int q_degree,
                            const Cx<Real>* beta, const int* factor, int n_factors,
                            const Cx<Real> (*inverse)[kMaxNodes]) {
  static_assert(kMaxNodes == 5, "one case per number of nodes");
  switch (n) {
    case 1: return divided_difference_of<1>(x, node, p, q, q_degree, beta, factor, n_factors, inverse);
    case 2: return divided_difference_of<2>(x, node, p, q, q_degree, beta, factor, n_factors, inverse);
    case 3: return divided_difference_of<3>(x, node, p, q, q_degree, beta, factor, n_factors, inverse);
    case 4: return divided_difference_of<4>(x, node, p, q, q_degree, beta, factor, n_factors, inverse);
    default: return divided_difference_of<5>(x, node, p, q, q_degree, beta, factor, n_factors, inverse);
  }
}

// One line of r cells of the l1 law (i.i.d. discrete Laplace of ratio a,
// conditioned on a zero sum) at angles with u_k = e^(i alpha_k): its
// transform, unnormalised, is the constant coefficient of prod_k g(u_k z),
// g(x) = sum_y a^|y| x^y = (1 - a^2) x / ((1 - a x)(x - a)), i.e. the sum of
// the residues inside the unit circle at the poles x_k = a conj(u_k):
//   (1 - a^2)^r f[x_1 .. x_r],  f(z) = z^(r-1) / prod_k (1 - beta_k z),
// beta_k = a u_k (DERIVATIONS.md, section 12). The poles, the betas and
// every 1 / (1 - beta_b x_k), shared by the divided differences the callers
// take at these angles.
template <class Real>
struct LaplaceLinePoles {
  int r = 0;
  Cx<Real> u[kMaxLines], x[kMaxLines], beta[kMaxLines];
  Cx<Real> inverse[kMaxNodes][kMaxNodes];

  LaplaceLinePoles(Real a, int lines, const Cx<Real>* angles) : r(lines) {
    for (int k = 0; k < r; ++k) {
      u[k] = angles[k];
      x[k] = {a * u[k].re, -a * u[k].im};
      beta[k] = {a * u[k].re, a * u[k].im};
    }
    // beta_b x_k = a^2 u_b conj(u_k): a^2 on the diagonal, and the entry
    // (k, b) the conjugate of (b, k), so r (r - 1) / 2 divisions.
    const Real diagonal = 1 / (1 - a * a);
    for (int b = 0; b < r; ++b) {
      inverse[b][b] = {diagonal, 0};
      for (int k = b + 1; k < r; ++k) {
        const Cx<Real> p = beta[b] * x[k];
        inverse[b][k] = reciprocal(Cx<Real>{1 - p.re, -p.im});
        inverse[k][b] = {inverse[b][k].re, -inverse[b][k].im};
      }
    }
  }

  // The same rational function of the u_k continued off the circle: each
  // u_k given with its inverse (conj(u_k) on the circle), every entry
  // divided.
  LaplaceLinePoles(Real a, int lines, const Cx<Real>* angles, const Cx<Real>* inverse_angles) : r(lines) {
    for (int k = 0; k < r; ++k) {
      u[k] = angles[k];
      x[k] = {a * inverse_angles[k].re, a * inverse_angles[k].im};
      beta[k] = {a * u[k].re, a * u[k].im};
    }
    for (int b = 0; b < r; ++b)
      for (int k = 0; k < r; ++k) {
        const Cx<Real> p = beta[b] * x[k];
        inverse[b][k] = b == k ? Cx<Real>{1 / (1 - a * a), 0} : reciprocal(Cx<Real>{1 - p.re, -p.im});
      }
  }

  // f[x_1 .. x_r]: the transform divided by (1 - a^2)^r; complex off the circle.
  Cx<Real> complex_transform_difference() const {
    int nodes[kMaxNodes] = {};
    for (int k = 0; k < r; ++k) nodes[k] = k;
    const Cx<Real> one[1] = {Cx<Real>{1, 0}};
    return divided_difference(x, nodes, r, r - 1, one, 0, beta, nodes, r, inverse);
  }
  // On the circle, real: the law is symmetric.
  Real transform_difference() const { return complex_transform_difference().re; }
};

// The quadrature grid: N points per axis (aliasing), and the box of nodes
// [-J, J]^d visited. Every node j with max_i |j_i| = s has |psi| at most the
// pair majorant M(2 pi s / N) (the pair of the largest angle's cell and the
// last cell). The denominator's integrand is psi^n, the numerator's at most
// num_bound |psi|^num_power, so the nodes outside the box add at most
// sum_{s > J} ((2s + 1)^d - (2s - 1)^d) M_s^power (times num_bound for the
// numerator, den_bound for the denominator: a node that integrates one more
// angle in closed form is bounded by M_s^power times the integral of the
// majorant's power over that angle), in units of the node at 0; the box
// stops at the first shell whose suffix is not negligible (1e-18 unless
// told) against the node at 0, the numerator's taken as num_at_zero (the
// outer shells bounded in runs, as the majorant does not increase from the
// angle 0 to pi).
struct QuadratureGrid {
  std::uint64_t N = 0, J = 0;
  bool whole = true;
  double omitted_den = 0, omitted_num = 0;  // the bounds above, divided by N^d
  double points = 0;                        // nodes evaluated, after the symmetries
};

// P(S = 0) as the local limit theorem gives it, for the aliasing targets:
// S, the sum of n zero-sum lines' first d = r - 1 cells, has covariance at
// most n var1 (I - J/r) (a zero-sum line's cells vary less than free ones,
// of variance var1), of determinant (n var1)^d / r: P(S = 0) is about
// (2 pi n var1)^(-d/2) sqrt(r), taken at most 1.
inline double lines_sum_at_zero(double var1, int r, double n) {
  const double at_zero = std::pow(2 * double(kQuadraturePi) * n * var1, -0.5 * (r - 1)) * std::sqrt(double(r));
  return at_zero < 1 ? at_zero : 1;
}

// `negligible`: the shells' share left out, in units of the node at 0
// (a pass that decides a quantile to 1e-5 affords more than one that
// publishes a figure). N = x + 1 points per axis; n >= 2 (the
// denominator's power; below, the whole grid);
// `symmetry` the number of nodes each visited one stands for. TooLarge for
// N past 2^24.
QuadratureGrid quadrature_grid(const NoiseTransform& law, int d, double n, double num_power, double num_bound,
                               double num_at_zero, std::int64_t x, double symmetry, const Interrupts& interrupts,
                               double negligible = 1e-18, double den_bound = 1);

}  // namespace invariant_dp::accuracy
