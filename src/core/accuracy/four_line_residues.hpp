// The covariance scale's integrands for tables of four lines across under
// the l1 law, with one of the three angles integrated exactly, by residues
// (DERIVATIONS.md, section 12, "One angle by residues").
//
// The whole-grid quadrature of table_covariance_scale.cpp sums psi^n over
// N^3 nodes, N growing with the scale b (psi's poles lie 2/b from the torus,
// so the trapezoid rule needs N of some 30 b for a relative error of 1e-3):
// short tables at small epsilon cost b^3. Here the integral over the third
// cell's angle is taken in closed form at each node (alpha_1, alpha_2): as a
// function of z = e^(i alpha_3), the line's transform is
//   Phi(z) = R(z) / (P_in(z) D_out(z)),
// P_in = prod_k (z - a^2 u_k), D_out = prod_k (1 - a^2 conj(u_k) z) over the
// three other cells' angles (u = u_1, u_2, 1), R a polynomial of degree at
// most 6 (read from eight values of Phi on the unit circle by a discrete
// Fourier transform, exact for that degree). The constant coefficient of
// Phi^n is then the sum of the residues inside the unit circle, at 0 and at
// the a^2 u_k, each of order n: one divided difference of R^n / D_out^n,
// evaluated by Opitz's formula (table_quadrature.hpp) without any difference
// of nodes. The numerator's E[Y_3^2 ...] is the second derivative at
// beta = 0 of the constant coefficient of Phi(z e^beta) Phi(z)^(n-1), the
// same divided difference with three nodes moving with beta, carried as
// second-order Taylor jets. The grid left is N^2, so the cost grows as b^2
// (times n^2 a node) instead of b^3, or less: a box around 0 whose size
// stops growing with b (table_covariance_scale.cpp).
#pragma once

#include <vector>

#include "../samplers/rational.hpp"
#include "table_quadrature.hpp"

namespace invariant_dp::accuracy {

// At one node (alpha_1, alpha_2), the third angle integrated:
//   den    = (2 pi)^-1 int psi-hat^n d alpha_3,
//   second = (2 pi)^-1 int ... E[Y_13^2 e^(i (alpha_1 S_1 + alpha_2 S_2)); S_3 = 0] / psi(0)^n,
// psi-hat = psi / psi(0), Y_13 the third cell of one line, S the row sums.
struct ResidueNode {
  long double den = 0, second = 0;
};

// c0 + c1 beta + c2 beta^2: a number's first three Taylor coefficients in beta.
template <class Real>
struct TaylorJet {
  Cx<Real> c0, c1, c2;
};

// Real: double or long double (the arithmetic of every step).
template <class Real>
class FourLineResidues {
 public:
  // b the l1 law's scale, n >= 2 the number of lines (the table's long side).
  FourLineResidues(Rational b, int n);

  // The node at angles alpha_1, alpha_2 (the fourth cell's angle is 0),
  // given by their cosines and sines.
  ResidueNode evaluate(Real cos1, Real sin1, Real cos2, Real sin2);

  // The floating-point operations one evaluation takes, about: how often
  // the caller polls for cancellation.
  double operations() const;

 private:
  using C = Cx<Real>;
  using Jet = TaylorJet<Real>;
  Real a_ = 0, scale_ = 0;
  int n_ = 0;
  // Opitz's row vector, its scratch and the nodes: as jets, and the plain
  // part before the three nodes that move.
  std::vector<Jet> row_, acc_, node_;
  std::vector<C> plain_row_, plain_acc_, plain_node_;
};

}  // namespace invariant_dp::accuracy
