// Least-squares projections onto the invariants (the imaging of Liu, Sun,
// Zhou, Feng 2023, arXiv:2303.00228, Section 3, Eq. 5; with y >= 0 the
// "NNL2" of Gong, Meng 2020, arXiv:2008.10202, Section 3):
//   equality only:    y = t + A^T (A A^T)^{-1} (a - A t)   (closed form; the
//                     release path uses InvariantModel's null-space projector,
//                     y = x + Pi_N e, which is the same point when t = x + e);
//   with y >= 0:      the convex QP  min |y - t|_2^2  s.t.  A_r y = a, y >= 0,
//                     solved by Clp's barrier (clp_problem.hpp), polished by
//                     semi-smooth Newton on the dual from Clp's multipliers
//                     (y = max(0, t + A^T lambda)), and certified by the KKT
//                     conditions (kkt.hpp).
// Real output. A solution that fails the KKT check after polishing throws
// (never returned); infeasible invariants throw InconsistentInvariants.
#pragma once

#include <vector>

#include "../interrupts.hpp"
#include "kkt.hpp"
#include "linear_invariants.hpp"

namespace invariant_dp {

struct NonnegProjection {
  std::vector<double> y;
  KktReport kkt;
  bool polished = false;  // the Newton-polished point was certified (else Clp's own point)
};

NonnegProjection project_nonnegative(const LinearInvariants& invariants, const std::vector<double>& target,
                                     const Interrupts& interrupts);

}  // namespace invariant_dp
