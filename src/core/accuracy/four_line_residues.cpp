// One angle of the four-line covariance scale by residues
// (four_line_residues.hpp; DERIVATIONS.md, section 12).
#include "four_line_residues.hpp"

#include <cmath>
#include <stdexcept>

namespace invariant_dp::accuracy {
namespace {

// Phi's samples: eight points on the unit circle, enough for R of degree 6.
constexpr int kSamples = 8;
constexpr int kDegree = 6;

template <class Real>
Cx<Real> operator-(Cx<Real> x, Cx<Real> y) {
  return {x.re - y.re, x.im - y.im};
}
template <class Real>
Cx<Real> scaled(Real s, Cx<Real> x) {
  return {s * x.re, s * x.im};
}
template <class Real>
Cx<Real> conj(Cx<Real> x) {
  return {x.re, -x.im};
}

// e^(2 pi i k / 8).
template <class Real>
Cx<Real> root_of_unity(int k) {
  const Real h = std::sqrt(Real(0.5));
  const Cx<Real> roots[kSamples] = {{1, 0}, {h, h}, {0, 1}, {-h, h}, {-1, 0}, {-h, -h}, {0, -1}, {h, -h}};
  return roots[((k % kSamples) + kSamples) % kSamples];
}

template <class Real>
inline TaylorJet<Real> operator*(const TaylorJet<Real>& x, const TaylorJet<Real>& y) {
  return {x.c0 * y.c0, x.c0 * y.c1 + x.c1 * y.c0, x.c0 * y.c2 + x.c1 * y.c1 + x.c2 * y.c0};
}
template <class Real>
inline TaylorJet<Real> operator+(const TaylorJet<Real>& x, const TaylorJet<Real>& y) {
  return {x.c0 + y.c0, x.c1 + y.c1, x.c2 + y.c2};
}
template <class Real>
inline TaylorJet<Real> constant(Cx<Real> c) {
  return {c, {}, {}};
}
// 1 / (1 - w e^(s beta)) as a jet, given r = 1 / (1 - w): its derivatives
// at 0 are s w r^2 and s^2 w r^2 (1 + 2 w r).
template <class Real>
inline TaylorJet<Real> tilted_reciprocal(Cx<Real> w, Cx<Real> r, Real s) {
  const Cx<Real> wr2 = w * r * r;
  return {r, scaled(s, wr2), scaled(s * s / 2, wr2 * (Cx<Real>{1, 0} + scaled(Real(2), w * r)))};
}

}  // namespace

template <class Real>
FourLineResidues<Real>::FourLineResidues(Rational b, int n) : n_(n) {
  if (n < 2) throw std::logic_error("FourLineResidues: a table needs two lines");
  const Real inv_b = Real(b.den) / Real(b.num);
  a_ = std::exp(-inv_b);
  const Cx<Real> zero_angles[kMaxLines] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
  const Real one_minus_a2 = -std::expm1(-2 * inv_b);
  const Real psi0 = std::pow(one_minus_a2, 4) * LaplaceLinePoles<Real>(a_, 4, zero_angles).transform_difference();
  scale_ = std::pow(one_minus_a2, 4) / psi0;
  const auto K = static_cast<std::size_t>(3 * n + 1);
  row_.resize(K), acc_.resize(K), node_.resize(K);
  plain_row_.resize(K - 3), plain_acc_.resize(K - 3), plain_node_.resize(K - 3);
}

template <class Real>
double FourLineResidues<Real>::operations() const {
  // n + 1 polynomial products of degree 6 and 3n solves, each a pass over
  // 3n + 1 jets of some 40 operations; eight transforms of the line.
  const double K = 3.0 * n_ + 1;
  return 40 * K * (7.0 * (n_ + 1) + 3.0 * n_) + kSamples * 400;
}

template <class Real>
ResidueNode FourLineResidues<Real>::evaluate(Real cos1, Real sin1, Real cos2, Real sin2) {
  using C = Cx<Real>;
  using J = TaylorJet<Real>;
  const C u[3] = {{cos1, sin1}, {cos2, sin2}, {1, 0}};
  const Real a2 = a_ * a_;
  // R(z) = Phi(z) P_in(z) D_out(z) at the eighth roots of unity, then its
  // coefficients (the inverse transform; degree 6 < 8, so none aliases).
  C values[kSamples];
  for (int m = 0; m < kSamples; ++m) {
    const C z = root_of_unity<Real>(m);
    const C angles[kMaxLines] = {u[0], u[1], z, {1, 0}};
    C value{scale_ * LaplaceLinePoles<Real>(a_, 4, angles).transform_difference(), 0};
    for (const C& w : u) value = value * (z - scaled(a2, w)) * (C{1, 0} - scaled(a2, conj(w) * z));
    values[m] = value;
  }
  C plain[kDegree + 1];   // R(z)
  J moving[kDegree + 1];  // R(z e^beta), as jets in beta
  for (int j = 0; j <= kDegree; ++j) {
    C c{0, 0};
    for (int m = 0; m < kSamples; ++m) c = c + values[m] * root_of_unity<Real>(-j * m);
    c = scaled(Real(1) / kSamples, c);
    plain[j] = c;
    moving[j] = {c, scaled(Real(j), c), scaled(Real(j * j) / 2, c)};
  }
  // The nodes: 0; each a^2 u_k, n - 1 times; then the three moving ones,
  // a^2 u_k e^(-beta), last. An entry of the row depends on the nodes up to
  // its own only, so until the factors that move with beta the entries
  // before the last three are plain numbers: the jets' arithmetic (several
  // times the cost) is spent on the last three entries and on the four
  // factors that move.
  const std::size_t P = plain_node_.size(), K = P + 3;
  std::size_t at = 0;
  plain_node_[at++] = {0, 0};
  for (const C& w : u)
    for (int t = 0; t < n_ - 1; ++t) plain_node_[at++] = scaled(a2, w);
  J tail_node[3];
  for (int k = 0; k < 3; ++k) tail_node[k] = {scaled(a2, u[k]), scaled(-a2, u[k]), scaled(a2 / 2, u[k])};
  // The first row of f(J), f = e^(-3 beta) R(z e^beta) R(z)^(n-1) /
  // (D_out(z e^beta) D_out(z)^(n-1)), carried through each factor (they
  // commute): first the plain ones, R(J) n - 1 times by Horner ...
  for (std::size_t j = 0; j < P; ++j) plain_row_[j] = {0, 0};
  plain_row_[0] = {1, 0};
  J tail[3] = {}, tail_acc[3];
  for (int t = 0; t < n_ - 1; ++t) {
    for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = plain[kDegree] * plain_row_[j];
    for (int k = 0; k < 3; ++k) tail_acc[k] = constant(plain[kDegree]) * tail[k];
    for (int i = kDegree - 1; i >= 0; --i) {  // acc <- acc J + c_i row
      for (int k = 2; k >= 0; --k)
        tail_acc[k] = tail_acc[k] * tail_node[k] + (k > 0 ? tail_acc[k - 1] : constant(plain_acc_[P - 1]));
      for (std::size_t j = P - 1; j >= 1; --j) plain_acc_[j] = plain_acc_[j] * plain_node_[j] + plain_acc_[j - 1];
      plain_acc_[0] = plain_acc_[0] * plain_node_[0];
      for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = plain_acc_[j] + plain[i] * plain_row_[j];
      for (int k = 0; k < 3; ++k) tail_acc[k] = tail_acc[k] + constant(plain[i]) * tail[k];
    }
    plain_row_.swap(plain_acc_);
    for (int k = 0; k < 3; ++k) tail[k] = tail_acc[k];
  }
  // ... and (I - q_k J)^-1, q_k = a^2 conj(u_k), n - 1 times for each k:
  // row_j <- (row_j + q row'_(j-1)) / (1 - q x_j), a bidiagonal solve. The
  // nodes take four values, 0 and the a^2 u_m, so each solve's divisions
  // are those four: inverse[k][m] = 1 / (1 - q_k a^2 u_m) (m = 3: node 0),
  // and at the moving nodes a^2 u_m e^(-beta) the same tilted.
  C inverse[3][4];
  for (int k = 0; k < 3; ++k) {
    for (int m = 0; m < 3; ++m) inverse[k][m] = reciprocal(C{1, 0} - scaled(a2, conj(u[k])) * scaled(a2, u[m]));
    inverse[k][3] = {1, 0};
  }
  const auto node_class = [this](std::size_t j) { return j == 0 ? 3 : static_cast<int>((j - 1) / (n_ - 1)); };
  for (int k = 0; k < 3; ++k) {
    const C q = scaled(a2, conj(u[k]));
    J tail_inverse[3];
    for (int m = 0; m < 3; ++m) tail_inverse[m] = tilted_reciprocal(q * scaled(a2, u[m]), inverse[k][m], Real(-1));
    for (int t = 0; t < n_ - 1; ++t) {
      C previous{0, 0};
      for (std::size_t j = 0; j < P; ++j) {
        plain_row_[j] = (plain_row_[j] + q * previous) * inverse[k][node_class(j)];
        previous = plain_row_[j];
      }
      J before = constant(previous);
      for (int m = 0; m < 3; ++m) {
        tail[m] = (tail[m] + constant(q) * before) * tail_inverse[m];
        before = tail[m];
      }
    }
  }
  // Then the four that move, over the whole row as jets.
  for (std::size_t j = 0; j < P; ++j) row_[j] = constant(plain_row_[j]), node_[j] = constant(plain_node_[j]);
  for (int k = 0; k < 3; ++k) row_[P + k] = tail[k], node_[P + k] = tail_node[k];
  for (std::size_t j = 0; j < K; ++j) acc_[j] = moving[kDegree] * row_[j];
  for (int i = kDegree - 1; i >= 0; --i) {
    for (std::size_t j = K - 1; j >= 1; --j) acc_[j] = acc_[j] * node_[j] + acc_[j - 1];
    acc_[0] = acc_[0] * node_[0];
    for (std::size_t j = 0; j < K; ++j) acc_[j] = acc_[j] + moving[i] * row_[j];
  }
  row_.swap(acc_);
  // The moving factors, q_k e^beta: tilted at the plain nodes, and at the
  // moving ones (a^2 u_m e^(-beta)) the product is constant.
  for (int k = 0; k < 3; ++k) {
    const C q0 = scaled(a2, conj(u[k]));
    const J q{q0, q0, scaled(Real(0.5), q0)};  // a^2 conj(u_k) e^beta
    J plain_inverse[4], tail_inverse[3];
    for (int m = 0; m < 3; ++m) {
      plain_inverse[m] = tilted_reciprocal(q0 * scaled(a2, u[m]), inverse[k][m], Real(1));
      tail_inverse[m] = constant(inverse[k][m]);
    }
    plain_inverse[3] = constant(C{1, 0});
    J previous{};
    for (std::size_t j = 0; j < K; ++j) {
      row_[j] = (row_[j] + q * previous) * (j < P ? plain_inverse[node_class(j)] : tail_inverse[j - P]);
      previous = row_[j];
    }
  }
  // Times e^(-3 beta); the constant coefficient of Phi^n, and E[Y_13^2 ...]
  // = the second derivative at beta = 0.
  const J g = row_[K - 1] * J{{1, 0}, {-3, 0}, {4.5, 0}};
  return {static_cast<long double>(g.c0.re), 2 * static_cast<long double>(g.c2.re)};
}

template class FourLineResidues<double>;
template class FourLineResidues<long double>;

}  // namespace invariant_dp::accuracy
