// [z^-s] Phi^q by residues (line_power_coefficients.hpp; DERIVATIONS.md,
// section 15).
#include "line_power_coefficients.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace invariant_dp::accuracy {
namespace {

// Phi's samples: eight points on the unit circle, enough for R of degree
// 2m <= 6.
constexpr int kSamples = 8;
constexpr int kMaxOther = 3;

template <class Real>
Cx<Real> minus(Cx<Real> x, Cx<Real> y) {
  return {x.re - y.re, x.im - y.im};
}
template <class Real>
Cx<Real> scaled(Real s, Cx<Real> x) {
  return {s * x.re, s * x.im};
}

// e^(2 pi i k / 8).
template <class Real>
Cx<Real> eighth_root(int k) {
  const Real h = std::sqrt(Real(0.5));
  const Cx<Real> roots[kSamples] = {{1, 0}, {h, h}, {0, 1}, {-h, h}, {-1, 0}, {-h, -h}, {0, -1}, {h, -h}};
  return roots[((k % kSamples) + kSamples) % kSamples];
}

}  // namespace

template <class Real>
LinePowerCoefficients<Real>::LinePowerCoefficients(Rational b, int r, int max_power) : r_(r), max_power_(max_power) {
  if (r != 3 && r != 4) throw std::logic_error("LinePowerCoefficients: lines of three or four cells");
  if (max_power < 1) throw std::logic_error("LinePowerCoefficients: a power of at least 1");
  const Real inv_b = Real(b.den) / Real(b.num);
  a_ = std::exp(-inv_b);
  const Real one_minus_a2 = -std::expm1(-2 * inv_b);
  const Cx<Real> zero_angles[kMaxLines] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
  const Real psi0 = std::pow(one_minus_a2, r) * LaplaceLinePoles<Real>(a_, r, zero_angles).transform_difference();
  scale_ = std::pow(one_minus_a2, r) / psi0;
  const auto K = static_cast<std::size_t>(1 + (r - 1) * max_power);
  node_.resize(K), row_.resize(K), acc_.resize(K), column_.resize(K);
}

template <class Real>
double LinePowerCoefficients<Real>::operations(int r, int q, std::int64_t T) {
  // Sixteen transforms of the line for R; q products by R (degree 2m) and
  // m solves, each a pass over K entries; T + 1 dot products and column
  // steps; some 8 operations a complex step.
  const double m = r - 1, K = 1 + m * q;
  return 8 * K * (q * (3 * m + 1) + 2 * double(T + 1)) + 2 * kSamples * 200;
}

template <class Real>
void LinePowerCoefficients<Real>::coefficients(const Cx<Real>* u, int q, std::int64_t T, Cx<Real>* c) {
  using C = Cx<Real>;
  if (q < 1 || q > max_power_) throw std::logic_error("LinePowerCoefficients: power out of range");
  const int m = r_ - 1, degree = 2 * m;
  const Real a2 = a_ * a_;
  // R = Phi P_in D_out at the eighth roots of unity, then its coefficients
  // (degree 2m < 8: none aliases).
  C values[kSamples];
  for (int s = 0; s < kSamples; ++s) {
    const C z = eighth_root<Real>(s);
    C angles[kMaxLines];
    for (int k = 0; k < m; ++k) angles[k] = u[k];
    angles[m] = z;
    C value = scaled(scale_, LaplaceLinePoles<Real>(a_, r_, angles).complex_transform_difference());
    for (int k = 0; k < m; ++k)
      value = value * minus(z, scaled(a2, u[k])) * minus(C{1, 0}, scaled(a2, C{u[k].re, -u[k].im}) * z);
    values[s] = value;
  }
  C coefficient[2 * kMaxOther + 1];
  for (int j = 0; j <= degree; ++j) {
    C sum{0, 0};
    for (int s = 0; s < kSamples; ++s) sum = sum + values[s] * eighth_root<Real>(-j * s);
    coefficient[j] = scaled(Real(1) / kSamples, sum);
  }
  // The nodes: 0, then each a^2 u_k q times.
  const std::size_t K = 1 + std::size_t(m) * std::size_t(q);
  std::size_t at = 0;
  node_[at++] = {0, 0};
  for (int k = 0; k < m; ++k)
    for (int t = 0; t < q; ++t) node_[at++] = scaled(a2, u[k]);
  // The row e_1^T (R(J) D_out(J)^-1)^q, one line's factors at a time (they
  // commute), kept within the exponent's range by exact powers of 2.
  for (std::size_t j = 0; j < K; ++j) row_[j] = {0, 0};
  row_[0] = {1, 0};
  int shift = 0;
  for (int line = 0; line < q; ++line) {
    // acc = row R(J) by Horner: acc = c_d row; acc = acc J + c_i row.
    for (std::size_t j = 0; j < K; ++j) acc_[j] = coefficient[degree] * row_[j];
    for (int i = degree - 1; i >= 0; --i) {
      for (std::size_t j = K - 1; j >= 1; --j) acc_[j] = acc_[j] * node_[j] + acc_[j - 1];
      acc_[0] = acc_[0] * node_[0];
      for (std::size_t j = 0; j < K; ++j) acc_[j] = acc_[j] + coefficient[i] * row_[j];
    }
    row_.swap(acc_);
    // row <- row (I - w J)^-1, w = a^2 conj(u_k): w_j = (v_j + w w_(j-1)) / (1 - w x_j).
    for (int k = 0; k < m; ++k) {
      const C w = scaled(a2, C{u[k].re, -u[k].im});
      C previous{0, 0};
      for (std::size_t j = 0; j < K; ++j) {
        row_[j] = (row_[j] + w * previous) * reciprocal(minus(C{1, 0}, w * node_[j]));
        previous = row_[j];
      }
    }
    Real largest = 0;
    for (std::size_t j = 0; j < K; ++j) largest = std::max({largest, std::fabs(row_[j].re), std::fabs(row_[j].im)});
    if (largest > 0 && std::isfinite(largest)) {
      const int e = std::ilogb(largest);
      if (e > 64 || e < -64) {
        for (std::size_t j = 0; j < K; ++j) row_[j] = {std::scalbn(row_[j].re, -e), std::scalbn(row_[j].im, -e)};
        shift += e;
      }
    }
  }
  // [z^-s] Phi^q = row . J^s e_K: the column carried one power at a time,
  // (J v)_i = x_i v_i + v_(i+1).
  for (std::size_t j = 0; j < K; ++j) column_[j] = {0, 0};
  column_[K - 1] = {1, 0};
  for (std::int64_t s = 0; s <= T; ++s) {
    C dot{0, 0};
    for (std::size_t j = 0; j < K; ++j) dot = dot + row_[j] * column_[j];
    c[s] = {std::scalbn(dot.re, shift), std::scalbn(dot.im, shift)};
    for (std::size_t i = 0; i + 1 < K; ++i) column_[i] = column_[i] * node_[i] + column_[i + 1];
    column_[K - 1] = column_[K - 1] * node_[K - 1];
  }
}

template class LinePowerCoefficients<double>;
template class LinePowerCoefficients<long double>;

}  // namespace invariant_dp::accuracy
