// One angle of the covariance scale of three- and four-line tables by
// residues (line_residues.hpp; DERIVATIONS.md, section 12).
#include "line_residues.hpp"

#include <cmath>
#include <stdexcept>

namespace invariant_dp::accuracy {
namespace {

// Phi's samples: eight points on the unit circle, enough for R of degree
// 2m <= 6 (m <= kMaxOther other cells).
constexpr int kSamples = 8;
constexpr int kMaxOther = 3;

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
LineResidues<Real>::LineResidues(Rational b, int r, int n) : m_(r - 1), n_(n) {
  if (r != 3 && r != 4) throw std::logic_error("LineResidues: lines of three or four cells");
  if (n < 2) throw std::logic_error("LineResidues: a table needs two lines");
  const Real inv_b = Real(b.den) / Real(b.num);
  a_ = std::exp(-inv_b);
  const Cx<Real> zero_angles[kMaxLines] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
  const Real one_minus_a2 = -std::expm1(-2 * inv_b);
  const Real psi0 = std::pow(one_minus_a2, r) * LaplaceLinePoles<Real>(a_, r, zero_angles).transform_difference();
  scale_ = std::pow(one_minus_a2, r) / psi0;
  const auto K = static_cast<std::size_t>(m_ * n + 1);
  row_.resize(K), acc_.resize(K), node_.resize(K);
  plain_row_.resize(K - m_), plain_acc_.resize(K - m_), plain_node_.resize(K - m_);
}

template <class Real>
double LineResidues<Real>::operations(int r, int n) {
  // n + 1 polynomial products of degree 2m and m n solves, each a pass over
  // m n + 1 jets of some 40 operations; eight transforms of the line.
  const double m = r - 1, K = m * n + 1;
  return 40 * K * ((2 * m + 1) * (n + 1) + m * n) + kSamples * 400;
}

template <class Real>
ResidueNode LineResidues<Real>::evaluate(Real cos1, Real sin1, Real cos2, Real sin2) {
  using C = Cx<Real>;
  using J = TaylorJet<Real>;
  const int m = m_, degree = 2 * m_;
  // The other cells' angles: alpha_1 (and alpha_2), then the last cell's 0.
  C u[kMaxOther] = {{cos1, sin1}, {cos2, sin2}, {1, 0}};
  u[m - 1] = {1, 0};
  const Real a2 = a_ * a_;
  // R(z) = Phi(z) P_in(z) D_out(z) at the eighth roots of unity, then its
  // coefficients (the inverse transform; degree 2m < 8, so none aliases).
  C values[kSamples];
  for (int s = 0; s < kSamples; ++s) {
    const C z = root_of_unity<Real>(s);
    C angles[kMaxLines];
    for (int k = 0; k < m - 1; ++k) angles[k] = u[k];
    angles[m - 1] = z;
    angles[m] = {1, 0};
    C value{scale_ * LaplaceLinePoles<Real>(a_, m + 1, angles).transform_difference(), 0};
    for (int k = 0; k < m; ++k) value = value * (z - scaled(a2, u[k])) * (C{1, 0} - scaled(a2, conj(u[k]) * z));
    values[s] = value;
  }
  C plain[2 * kMaxOther + 1];   // R(z)
  J moving[2 * kMaxOther + 1];  // R(z e^beta), as jets in beta
  for (int j = 0; j <= degree; ++j) {
    C c{0, 0};
    for (int s = 0; s < kSamples; ++s) c = c + values[s] * root_of_unity<Real>(-j * s);
    c = scaled(Real(1) / kSamples, c);
    plain[j] = c;
    moving[j] = {c, scaled(Real(j), c), scaled(Real(j * j) / 2, c)};
  }
  // The nodes: 0; each a^2 u_k, n - 1 times; then the m moving ones,
  // a^2 u_k e^(-beta), last. An entry of the row depends on the nodes up to
  // its own only, so until the factors that move with beta the entries
  // before the last m are plain numbers: the jets' arithmetic (several
  // times the cost) is spent on the last m entries and on the m + 1
  // factors that move.
  const std::size_t P = plain_node_.size(), K = P + std::size_t(m);
  std::size_t at = 0;
  plain_node_[at++] = {0, 0};
  for (int k = 0; k < m; ++k)
    for (int t = 0; t < n_ - 1; ++t) plain_node_[at++] = scaled(a2, u[k]);
  J tail_node[kMaxOther];
  for (int k = 0; k < m; ++k) tail_node[k] = {scaled(a2, u[k]), scaled(-a2, u[k]), scaled(a2 / 2, u[k])};
  // The first row of f(J), f = e^(-m beta) R(z e^beta) R(z)^(n-1) /
  // (D_out(z e^beta) D_out(z)^(n-1)), carried through each factor (they
  // commute): first the plain ones, R(J) n - 1 times by Horner ...
  for (std::size_t j = 0; j < P; ++j) plain_row_[j] = {0, 0};
  plain_row_[0] = {1, 0};
  J tail[kMaxOther] = {}, tail_acc[kMaxOther];
  for (int t = 0; t < n_ - 1; ++t) {
    for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = plain[degree] * plain_row_[j];
    for (int k = 0; k < m; ++k) tail_acc[k] = constant(plain[degree]) * tail[k];
    for (int i = degree - 1; i >= 0; --i) {  // acc <- acc J + c_i row
      for (int k = m - 1; k >= 0; --k)
        tail_acc[k] = tail_acc[k] * tail_node[k] + (k > 0 ? tail_acc[k - 1] : constant(plain_acc_[P - 1]));
      for (std::size_t j = P - 1; j >= 1; --j) plain_acc_[j] = plain_acc_[j] * plain_node_[j] + plain_acc_[j - 1];
      plain_acc_[0] = plain_acc_[0] * plain_node_[0];
      for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = plain_acc_[j] + plain[i] * plain_row_[j];
      for (int k = 0; k < m; ++k) tail_acc[k] = tail_acc[k] + constant(plain[i]) * tail[k];
    }
    plain_row_.swap(plain_acc_);
    for (int k = 0; k < m; ++k) tail[k] = tail_acc[k];
  }
  // ... and (I - q_k J)^-1, q_k = a^2 conj(u_k), n - 1 times for each k:
  // row_j <- (row_j + q row'_(j-1)) / (1 - q x_j), a bidiagonal solve. The
  // nodes take m + 1 values, the a^2 u_l and 0, so each solve's divisions
  // are those: inverse[k][l] = 1 / (1 - q_k a^2 u_l) (l = m: node 0), and
  // at the moving nodes a^2 u_l e^(-beta) the same tilted.
  C inverse[kMaxOther][kMaxOther + 1];
  for (int k = 0; k < m; ++k) {
    for (int l = 0; l < m; ++l) inverse[k][l] = reciprocal(C{1, 0} - scaled(a2, conj(u[k])) * scaled(a2, u[l]));
    inverse[k][m] = {1, 0};
  }
  const auto node_class = [this](std::size_t j) { return j == 0 ? m_ : static_cast<int>((j - 1) / (n_ - 1)); };
  for (int k = 0; k < m; ++k) {
    const C q = scaled(a2, conj(u[k]));
    J tail_inverse[kMaxOther];
    for (int l = 0; l < m; ++l) tail_inverse[l] = tilted_reciprocal(q * scaled(a2, u[l]), inverse[k][l], Real(-1));
    for (int t = 0; t < n_ - 1; ++t) {
      C previous{0, 0};
      for (std::size_t j = 0; j < P; ++j) {
        plain_row_[j] = (plain_row_[j] + q * previous) * inverse[k][node_class(j)];
        previous = plain_row_[j];
      }
      J before = constant(previous);
      for (int l = 0; l < m; ++l) {
        tail[l] = (tail[l] + constant(q) * before) * tail_inverse[l];
        before = tail[l];
      }
    }
  }
  // Then the m + 1 that move, over the whole row as jets.
  for (std::size_t j = 0; j < P; ++j) row_[j] = constant(plain_row_[j]), node_[j] = constant(plain_node_[j]);
  for (int k = 0; k < m; ++k) row_[P + std::size_t(k)] = tail[k], node_[P + std::size_t(k)] = tail_node[k];
  for (std::size_t j = 0; j < K; ++j) acc_[j] = moving[degree] * row_[j];
  for (int i = degree - 1; i >= 0; --i) {
    for (std::size_t j = K - 1; j >= 1; --j) acc_[j] = acc_[j] * node_[j] + acc_[j - 1];
    acc_[0] = acc_[0] * node_[0];
    for (std::size_t j = 0; j < K; ++j) acc_[j] = acc_[j] + moving[i] * row_[j];
  }
  row_.swap(acc_);
  // The moving factors, q_k e^beta: tilted at the plain nodes, and at the
  // moving ones (a^2 u_l e^(-beta)) the product is constant.
  for (int k = 0; k < m; ++k) {
    const C q0 = scaled(a2, conj(u[k]));
    const J q{q0, q0, scaled(Real(0.5), q0)};  // a^2 conj(u_k) e^beta
    J plain_inverse[kMaxOther + 1], tail_inverse[kMaxOther];
    for (int l = 0; l < m; ++l) {
      plain_inverse[l] = tilted_reciprocal(q0 * scaled(a2, u[l]), inverse[k][l], Real(1));
      tail_inverse[l] = constant(inverse[k][l]);
    }
    plain_inverse[m] = constant(C{1, 0});
    J previous{};
    for (std::size_t j = 0; j < K; ++j) {
      row_[j] = (row_[j] + q * previous) * (j < P ? plain_inverse[node_class(j)] : tail_inverse[j - P]);
      previous = row_[j];
    }
  }
  // Times e^(-m beta); the constant coefficient of Phi^n, and
  // E[Y_1,r-1^2 ...] = the second derivative at beta = 0.
  const J g = row_[K - 1] * J{{1, 0}, {Real(-m), 0}, {Real(m * m) / 2, 0}};
  return {static_cast<long double>(g.c0.re), 2 * static_cast<long double>(g.c2.re)};
}

template class LineResidues<double>;
template class LineResidues<long double>;

}  // namespace invariant_dp::accuracy
