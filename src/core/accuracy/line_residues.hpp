// The covariance scale's integrands for tables of three or four lines
// across under the l1 law, with the last free angle integrated exactly, by
// residues (DERIVATIONS.md, section 12, "One angle by residues").
//
// The whole-grid quadrature of table_covariance_scale.cpp sums psi^n over
// N^(r-1) nodes, N growing with the scale b (psi's poles lie 2/b from the
// torus, so the trapezoid rule needs N of some 30 b for a relative error of
// 1e-3): short tables at small epsilon cost b^(r-1). Here the integral over
// the last free cell's angle (cell r - 1; cell r keeps angle 0) is taken in
// closed form at each node of the other angles: as a function of
// z = e^(i alpha_(r-1)), the line's transform is
//   Phi(z) = R(z) / (P_in(z) D_out(z)),
// P_in = prod_k (z - a^2 u_k), D_out = prod_k (1 - a^2 conj(u_k) z) over the
// m = r - 1 other cells' angles (u = u_1 .. u_(r-2), 1), R a polynomial of
// degree at most 2m, read from eight values of Phi by a discrete Fourier
// transform, exact for that degree: on the unit circle, or, where every
// pole lies near 1 (the nodes that carry the mass at small epsilon), on a
// circle about 1 of twice the poles' distance from it, in the frame
// t = (z - 1) / radius in which R is then evaluated (read on the unit
// circle, R would lose some b^4 units near 1, where it is some b^-6). The
// constant coefficient of Phi^n is then the sum of the residues inside the
// unit circle, at 0 and at the a^2 u_k, each of order n: one divided
// difference of R^n / D_out^n (near 1, of R^n / (z D_out^n) at the a^2 u_k,
// the residue at 0, Phi(0)^n, taken apart), evaluated by Opitz's formula
// (table_quadrature.hpp) without any difference of nodes, its row rescaled
// by powers of 2 to stay within the exponent's range. The numerator's E[Y_(r-1)^2 ...] is the
// second derivative at beta = 0 of the constant coefficient of
// Phi(z e^beta) Phi(z)^(n-1), the same divided difference with m nodes
// moving with beta, carried as second-order Taylor jets. The grid left is
// N^(r-2), so the cost grows as b^(r-2) (times n^2 a node) instead of
// b^(r-1), or less: on four-line tables a box around 0 whose size stops
// growing with b (table_covariance_scale.cpp).
#pragma once

#include <vector>

#include "../samplers/rational.hpp"
#include "table_quadrature.hpp"

namespace invariant_dp::accuracy {

// At one node (alpha_1 .. alpha_(r-2)), the last free angle integrated:
//   den    = (2 pi)^-1 int psi-hat^n d alpha_(r-1),
//   second = (2 pi)^-1 int ... E[Y_1,r-1^2 e^(i sum_k<r-1 alpha_k S_k); S_(r-1) = 0] / psi(0)^n,
// psi-hat = psi / psi(0), Y_1,r-1 the cell r - 1 of one line, S the row sums.
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
class LineResidues {
 public:
  // b the l1 law's scale, r = 3 or 4 cells a line, n >= 2 the number of
  // lines (the table's long side).
  LineResidues(Rational b, int r, int n);

  // The node at angles alpha_1 and (four cells) alpha_2, given by their
  // cosines and sines; the last cell's angle is 0. Three cells: alpha_2 is
  // not read.
  ResidueNode evaluate(Real cos1, Real sin1, Real cos2 = 1, Real sin2 = 0);

  // The floating-point operations one evaluation takes, about: how often
  // the caller polls for cancellation, and the work of three-cell lines
  // against four-cell ones.
  static double operations(int r, int n);

 private:
  using C = Cx<Real>;
  using Jet = TaylorJet<Real>;
  Real a_ = 0, scale_ = 0, one_minus_a2_ = 0, one_minus_a4_ = 0;
  int m_ = 0, n_ = 0;  // the other cells of a line (r - 1), the lines
  // Opitz's row vector, its scratch and the nodes (in the frame t): as
  // jets, and the plain part before the m nodes that move.
  std::vector<Jet> row_, acc_, node_;
  std::vector<C> plain_row_, plain_acc_, plain_node_;
};

}  // namespace invariant_dp::accuracy
