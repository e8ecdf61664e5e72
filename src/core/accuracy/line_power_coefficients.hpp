// The Laurent coefficients [z^-s] Phi(z)^q, s = 0 .. T, of a line's
// transform under the l1 law as a function of one cell's angle z (the
// others fixed): what one cell's law of a short table needs with that
// cell's angle integrated in closed form (laplace_table_cell.cpp;
// DERIVATIONS.md, section 15, "The asked cell's angle by residues").
//
// With the other cells at angles u_k (the last one 1), section 12 writes
// Phi = R / (P_in D_out), P_in(z) = prod_k (z - a^2 u_k), D_out(z) =
// prod_k (1 - a^2 conj(u_k) z), R a polynomial of degree at most 2m read
// from eight values of Phi on the unit circle. For s >= 0,
//   [z^-s] Phi^q = (2 pi i)^-1 oint Phi^q z^(s-1) dz,
// the sum of the residues inside the circle: at the a^2 u_k (each of order
// q) and, for s = 0, at 0. With 0 as one more node, all of them are the
// divided difference of f_s = z^s R^q / D_out^q at the nodes 0 and
// (a^2 u_k) x q (the residue of f_s / (z P_in^q) at 0 is f_s(0) = 0 for
// s >= 1): by Opitz's formula, e_1^T f_s(J) e_K with J bidiagonal. The row
// e_1^T R(J)^q D_out(J)^-q is carried once, by Horner through R and by
// bidiagonal solves through D_out, and then [z^-s] Phi^q = row . J^s e_K
// for every s, the column J^s e_K carried one power at a time: O(q m K)
// and O(T K) a node, K = 1 + m q.
#pragma once

#include <cstdint>
#include <vector>

#include "../samplers/rational.hpp"
#include "table_quadrature.hpp"

namespace invariant_dp::accuracy {

// Real: double or long double (every step's arithmetic).
template <class Real>
class LinePowerCoefficients {
 public:
  // b the l1 law's scale; lines of r = 3 or 4 cells; powers q up to max_power.
  LinePowerCoefficients(Rational b, int r, int max_power);

  // c[s] = [z^-s] psi-hat(z)^q for s = 0 .. T (psi-hat = psi / psi(0)), z
  // the angle of cell r - 1, at the other cells' angles u[0 .. r - 3] and
  // the last cell's 1.
  void coefficients(const Cx<Real>* u, int q, std::int64_t T, Cx<Real>* c);

  // The floating-point operations of one call, about.
  static double operations(int r, int q, std::int64_t T);

 private:
  Real a_ = 0, scale_ = 0;
  int r_ = 0, max_power_ = 0;
  std::vector<Cx<Real>> node_, row_, acc_, column_;
};

}  // namespace invariant_dp::accuracy
