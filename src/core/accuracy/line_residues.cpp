// One angle of the covariance scale of three- and four-line tables by
// residues (line_residues.hpp; DERIVATIONS.md, section 12).
#include "line_residues.hpp"

#include <algorithm>
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
  one_minus_a2_ = -std::expm1(-2 * inv_b);
  one_minus_a4_ = -std::expm1(-4 * inv_b);
  const Real psi0 = std::pow(one_minus_a2_, r) * LaplaceLinePoles<Real>(a_, r, zero_angles).transform_difference();
  scale_ = std::pow(one_minus_a2_, r) / psi0;
  const auto K = static_cast<std::size_t>(m_ * n + 1);  // the most nodes, with 0 among them
  row_.resize(K), acc_.resize(K), node_.resize(K);
  plain_row_.resize(K - m_), plain_acc_.resize(K - m_), plain_node_.resize(K - m_);
}

template <class Real>
double LineResidues<Real>::operations(int r, int n) {
  // n + 1 polynomial products of degree 2m and m n + 1 solves, each a pass
  // over m n jets of some 40 operations; sixteen transforms of the line.
  const double m = r - 1, K = m * n;
  return 40 * K * ((2 * m + 1) * (n + 1) + m * n + 1) + 2 * kSamples * 400;
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
  // The inner poles less 1, a^2 u_k - 1 = a^2 (u_k - 1) - (1 - a^2), without
  // cancellation: u_k - 1 = (-(1 - cos), sin), 1 - cos = sin^2 / (1 + cos).
  C below_one[kMaxOther];
  Real spread = 0;  // max |u_k - 1|
  for (int k = 0; k < m; ++k) {
    const Real versine = u[k].re > 0 ? u[k].im * u[k].im / (1 + u[k].re) : 1 - u[k].re;
    spread = std::max(spread, std::sqrt(versine * versine + u[k].im * u[k].im));
    below_one[k] = C{-a2 * versine - one_minus_a2_, a2 * u[k].im};
  }
  // The frame of the nodes: t = (z - centre) / radius. Where every pole lies
  // near 1 (the nodes that carry the mass), centre 1 and a radius twice the
  // poles' distance from it, so that R is read where it is evaluated: R is
  // some b^-6 there and of its coefficients' size elsewhere on the circle,
  // so read on the unit circle it would lose b^4 units. Else centre 0 and
  // radius 1.
  const bool near_one = spread + 2 * one_minus_a2_ < Real(0.25);
  const C centre = near_one ? C{1, 0} : C{0, 0};
  const Real radius = near_one ? 2 * (spread + 2 * one_minus_a2_) : 1;
  C offset[kMaxOther];  // a^2 u_k - centre
  for (int k = 0; k < m; ++k) offset[k] = near_one ? below_one[k] : scaled(a2, u[k]);
  // R(z) = Phi(z) P_in(z) D_out(z) at z = centre + radius w, w the eighth
  // roots of unity (Phi continued off the circle: the cell's angle z and
  // its inverse 1 / z), then its coefficients in t (the inverse transform;
  // degree 2m < 8, so none aliases).
  const auto r_at = [&](C w, bool on_circle) {
    const C z = on_circle ? w : centre + scaled(radius, w);
    C angles[kMaxLines], inverses[kMaxLines];
    for (int k = 0; k < m - 1; ++k) angles[k] = u[k], inverses[k] = conj(u[k]);
    angles[m - 1] = z, inverses[m - 1] = on_circle ? conj(z) : reciprocal(z);
    angles[m] = inverses[m] = {1, 0};
    C value = scaled(scale_, LaplaceLinePoles<Real>(a_, m + 1, angles, inverses).complex_transform_difference());
    for (int k = 0; k < m; ++k) {
      // z - a^2 u_k and 1 - a^2 conj(u_k) z from the offsets, without cancellation.
      const C w_r = scaled(radius, w);
      const C inner = on_circle || !near_one ? z - scaled(a2, u[k]) : w_r - offset[k];
      const C outer = on_circle || !near_one ? C{1, 0} - scaled(a2, conj(u[k])) * z
                                             : C{-offset[k].re, offset[k].im} - scaled(a2, conj(u[k])) * w_r;
      value = value * inner * outer;
    }
    return value;
  };
  C values[kSamples];
  for (int s = 0; s < kSamples; ++s) values[s] = r_at(root_of_unity<Real>(s), false);
  C coefficient[2 * kMaxOther + 1];  // R(centre + radius t) = sum_j coefficient_j t^j
  for (int j = 0; j <= degree; ++j) {
    C c{0, 0};
    for (int s = 0; s < kSamples; ++s) c = c + values[s] * root_of_unity<Real>(-j * s);
    coefficient[j] = scaled(Real(1) / kSamples, c);
  }
  // Near 1, the residue at 0 apart, Phi(0)^n (no moving factor reaches
  // it), with Phi(0) = R(0) / P_in(0) and R(0) the mean of R on the unit
  // circle (0 is far from the frame's circle). Else 0 is the first node of
  // the divided difference below, as close to the others as they are to
  // each other where b is small.
  C residue0{0, 0};
  if (near_one) {
    C r0{0, 0}, p_in0{1, 0};
    for (int s = 0; s < kSamples; ++s) r0 = r0 + r_at(root_of_unity<Real>(s), true);
    r0 = scaled(Real(1) / kSamples, r0);
    for (int k = 0; k < m; ++k) p_in0 = p_in0 * scaled(-a2, u[k]);
    const C phi0 = r0 * reciprocal(p_in0);
    residue0 = {1, 0};
    for (int t = 0; t < n_; ++t) residue0 = residue0 * phi0;
  }
  // The residues at the a^2 u_k (and at 0 where it is a node): the divided
  // difference of R^n / (z D_out^n) at (a^2 u_k) x n (of R^n / D_out^n at
  // 0, (a^2 u_k) x n), by Opitz's formula in t (the matrix's diagonal
  // (x_j - centre) / radius, its superdiagonal 1): a difference in t is
  // radius^(K-1) the one in z. The nodes: [0;] each a^2 u_k, n - 1 times;
  // then the m moving ones, a^2 u_k e^(-beta), last. An entry of the row
  // depends on the nodes up to its own only, so until the factors that move
  // with beta the entries before the last m are plain numbers: the jets'
  // arithmetic (several times the cost) is spent on the last m entries and
  // on the m + 1 factors that move.
  const std::size_t first = near_one ? 0 : 1;  // the node 0's place
  const std::size_t P = std::size_t(m) * std::size_t(n_ - 1) + first, K = P + std::size_t(m);
  const Real inverse_radius = 1 / radius;
  std::size_t at = 0;
  if (!near_one) plain_node_[at++] = {0, 0};
  for (int k = 0; k < m; ++k)
    for (int t = 0; t < n_ - 1; ++t) plain_node_[at++] = scaled(inverse_radius, offset[k]);
  J tail_node[kMaxOther];  // (a^2 u_k e^(-beta) - centre) / radius
  for (int k = 0; k < m; ++k)
    tail_node[k] = {scaled(inverse_radius, offset[k]), scaled(-a2 * inverse_radius, u[k]),
                    scaled(a2 * inverse_radius / 2, u[k])};
  // The first row of f(J), f = e^(-m beta) R(z e^beta) R(z)^(n-1) /
  // ([z] D_out(z e^beta) D_out(z)^(n-1)), carried through each factor
  // (they commute). Near 1, first 1 / z: row <- e_1 (centre + radius J)^-1,
  // w_j = (v_j - radius w_(j-1)) / x_j.
  J tail[kMaxOther] = {}, tail_acc[kMaxOther];
  for (std::size_t j = 0; j < P; ++j) plain_row_[j] = {0, 0};
  plain_row_[0] = {1, 0};
  if (near_one) {
    plain_row_[0] = reciprocal(centre + scaled(radius, plain_node_[0]));
    for (std::size_t j = 1; j < P; ++j)
      plain_row_[j] = scaled(-radius, plain_row_[j - 1]) * reciprocal(centre + scaled(radius, plain_node_[j]));
    J before = constant(plain_row_[P - 1]);
    for (int k = 0; k < m; ++k) {
      const C inverse_node = reciprocal(scaled(a2, u[k]));  // 1 / (a^2 u_k e^(-beta)) = e^beta / (a^2 u_k)
      const J inverse_jet{inverse_node, inverse_node, scaled(Real(0.5), inverse_node)};
      tail[k] = J{scaled(-radius, before.c0), scaled(-radius, before.c1), scaled(-radius, before.c2)} * inverse_jet;
      before = tail[k];
    }
  }
  // The row is kept within the exponent's range (a line's factors reach
  // b^-6 and b^3, n times over): after each factor it is scaled, exactly,
  // by the power of 2 that brings its largest part near 1 once that part
  // passes 2^+-64; `shift` sums the powers (the row is the one held times
  // 2^shift).
  int shift = 0;
  const auto part = [](C c) { return std::max(std::fabs(c.re), std::fabs(c.im)); };
  const auto jet_part = [&part](const J& x) { return std::max({part(x.c0), part(x.c1), part(x.c2)}); };
  const auto scale_jet = [](J& x, Real f) { x = {scaled(f, x.c0), scaled(f, x.c1), scaled(f, x.c2)}; };
  // The power to remove, 0 where none.
  const auto exponent = [](Real largest) {
    if (!(largest > 0) || !std::isfinite(largest)) return 0;
    const int e = std::ilogb(largest);
    return e > -64 && e < 64 ? 0 : e;
  };
  const auto rescale_plain = [&] {
    Real largest = 0;
    for (std::size_t j = 0; j < P; ++j) largest = std::max(largest, part(plain_row_[j]));
    for (int k = 0; k < m; ++k) largest = std::max(largest, jet_part(tail[k]));
    const int e = exponent(largest);
    if (e == 0) return;
    const Real f = std::ldexp(Real(1), -e);
    for (std::size_t j = 0; j < P; ++j) plain_row_[j] = scaled(f, plain_row_[j]);
    for (int k = 0; k < m; ++k) scale_jet(tail[k], f);
    shift += e;
  };
  const auto rescale_row = [&] {
    Real largest = 0;
    for (std::size_t j = 0; j < K; ++j) largest = std::max(largest, jet_part(row_[j]));
    const int e = exponent(largest);
    if (e == 0) return;
    const Real f = std::ldexp(Real(1), -e);
    for (std::size_t j = 0; j < K; ++j) scale_jet(row_[j], f);
    shift += e;
  };
  // ... then R(J) n - 1 times by Horner ...
  for (int t = 0; t < n_ - 1; ++t) {
    for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = coefficient[degree] * plain_row_[j];
    for (int k = 0; k < m; ++k) tail_acc[k] = constant(coefficient[degree]) * tail[k];
    for (int i = degree - 1; i >= 0; --i) {  // acc <- acc J + c_i row
      for (int k = m - 1; k >= 0; --k)
        tail_acc[k] = tail_acc[k] * tail_node[k] + (k > 0 ? tail_acc[k - 1] : constant(plain_acc_[P - 1]));
      for (std::size_t j = P - 1; j >= 1; --j) plain_acc_[j] = plain_acc_[j] * plain_node_[j] + plain_acc_[j - 1];
      plain_acc_[0] = plain_acc_[0] * plain_node_[0];
      for (std::size_t j = 0; j < P; ++j) plain_acc_[j] = plain_acc_[j] + coefficient[i] * plain_row_[j];
      for (int k = 0; k < m; ++k) tail_acc[k] = tail_acc[k] + constant(coefficient[i]) * tail[k];
    }
    plain_row_.swap(plain_acc_);
    for (int k = 0; k < m; ++k) tail[k] = tail_acc[k];
    rescale_plain();
  }
  // ... and (I - q_k (centre + radius J))^-1, q_k = a^2 conj(u_k), n - 1
  // times for each k: row_j <- (row_j + q radius row'_(j-1)) / (1 - q x_j),
  // a bidiagonal solve. The nodes take m values, the a^2 u_l, so each
  // solve's divisions are those: inverse[k][l] = 1 / (1 - q_k a^2 u_l) (l = m:
  // the node 0), and at the moving nodes a^2 u_l e^(-beta) the same tilted.
  C inverse[kMaxOther][kMaxOther + 1];
  for (int k = 0; k < m; ++k) {
    inverse[k][m] = {1, 0};
    for (int l = 0; l < m; ++l) {
      // 1 - a^4 e^(i theta) = (1 - a^4) + a^4 (1 - e^(i theta)), without cancellation.
      const C turn = conj(u[k]) * u[l];
      const Real versine = turn.re > 0 ? turn.im * turn.im / (1 + turn.re) : 1 - turn.re;
      const Real a4 = a2 * a2;
      const C factor{one_minus_a4_ + a4 * versine, -a4 * turn.im};
      inverse[k][l] = reciprocal(factor);
    }
  }
  const auto node_class = [this, first](std::size_t j) {
    return j < first ? m_ : static_cast<int>((j - first) / std::size_t(n_ - 1));
  };
  for (int k = 0; k < m; ++k) {
    const C q = scaled(a2, conj(u[k])), q_radius = scaled(radius, q);
    J tail_inverse[kMaxOther];
    for (int l = 0; l < m; ++l) tail_inverse[l] = tilted_reciprocal(q * scaled(a2, u[l]), inverse[k][l], Real(-1));
    for (int t = 0; t < n_ - 1; ++t) {
      C previous{0, 0};
      for (std::size_t j = 0; j < P; ++j) {
        plain_row_[j] = (plain_row_[j] + q_radius * previous) * inverse[k][node_class(j)];
        previous = plain_row_[j];
      }
      J prior = constant(previous);
      for (int l = 0; l < m; ++l) {
        tail[l] = (tail[l] + constant(q_radius) * prior) * tail_inverse[l];
        prior = tail[l];
      }
      rescale_plain();
    }
  }
  // Then the m + 1 that move, over the whole row as jets: R(z e^beta) =
  // sum_i coefficient_i ((e^beta (centre + radius J) - centre) / radius)^i,
  // whose matrix has the diagonal (x_j e^beta - centre) / radius (constant
  // at the moving nodes) and the superdiagonal e^beta.
  const J e_beta{{1, 0}, {1, 0}, {Real(0.5), 0}};
  for (std::size_t j = 0; j < P; ++j) {
    row_[j] = constant(plain_row_[j]);
    const C x_over_radius = scaled(inverse_radius, centre) + plain_node_[j];
    node_[j] = {plain_node_[j], x_over_radius, scaled(Real(0.5), x_over_radius)};
  }
  for (int k = 0; k < m; ++k) row_[P + std::size_t(k)] = tail[k], node_[P + std::size_t(k)] = constant(tail_node[k].c0);
  for (std::size_t j = 0; j < K; ++j) acc_[j] = constant(coefficient[degree]) * row_[j];
  for (int i = degree - 1; i >= 0; --i) {
    for (std::size_t j = K - 1; j >= 1; --j) acc_[j] = acc_[j] * node_[j] + acc_[j - 1] * e_beta;
    acc_[0] = acc_[0] * node_[0];
    for (std::size_t j = 0; j < K; ++j) acc_[j] = acc_[j] + constant(coefficient[i]) * row_[j];
  }
  row_.swap(acc_);
  rescale_row();
  // The moving factors, q_k e^beta: tilted at the plain nodes, and at the
  // moving ones (a^2 u_l e^(-beta)) the product is constant.
  for (int k = 0; k < m; ++k) {
    const C q0 = scaled(a2, conj(u[k])), q0_radius = scaled(radius, q0);
    const J q_radius{q0_radius, q0_radius, scaled(Real(0.5), q0_radius)};  // a^2 conj(u_k) e^beta radius
    J plain_inverse[kMaxOther + 1], tail_inverse[kMaxOther];
    plain_inverse[m] = constant(C{1, 0});
    for (int l = 0; l < m; ++l) {
      plain_inverse[l] = tilted_reciprocal(q0 * scaled(a2, u[l]), inverse[k][l], Real(1));
      tail_inverse[l] = constant(inverse[k][l]);
    }
    J previous{};
    for (std::size_t j = 0; j < K; ++j) {
      row_[j] = (row_[j] + q_radius * previous) * (j < P ? plain_inverse[node_class(j)] : tail_inverse[j - P]);
      previous = row_[j];
    }
    rescale_row();
  }
  // Times e^(-m beta); back to z (2^shift radius^-(K-1), by logarithms:
  // each alone may pass the exponent's range); the constant coefficient of
  // Phi^n, and E[Y_1,r-1^2 ...] = the second derivative at beta = 0.
  const J g = row_[K - 1] * J{{1, 0}, {Real(-m), 0}, {Real(m * m) / 2, 0}};
  const long double log_factor =
      shift * std::log(2.0L) - static_cast<long double>(K - 1) * std::log(static_cast<long double>(radius));
  const auto in_z = [log_factor](Real v) -> long double {
    const auto x = static_cast<long double>(v);
    return x == 0 ? 0.0L : std::copysign(std::exp(std::log(std::fabs(x)) + log_factor), x);
  };
  return {in_z(g.c0.re) + static_cast<long double>(residue0.re), 2 * in_z(g.c2.re)};
}

template class LineResidues<double>;
template class LineResidues<long double>;

}  // namespace invariant_dp::accuracy
