// The integer step of project_nn_integer (TopDown-style, as Gong, Meng 2020,
// arXiv:2008.10202, Section 4, describe TopDown: "non-negative L2
// minimization followed by an L1 minimization onto the integer solutions"):
// from a real table y >= 0 with A_r y = a, the integer
// table z closest in l1 among those with A_r z = a and each z_i rounded up
// or down from y_i (controlled rounding):
//   min sum_i |z_i - y_i|  s.t.  A_r z = a,  floor(y_i) <= z_i <= ceil(y_i).
// On that box |z_i - y_i| is linear in z_i, so this is an LP. y itself is
// feasible, so the LP is. When A_r is totally unimodular (one margin, nested
// margins, the two crossing margins of a two-way table or of blocks of
// them: interval / bipartite-incidence matrices) the polytope has integral
// vertices and Clp's simplex optimum is an integer table; for other margins
// it may not be, and then this throws rather than round blindly.
// Every output is checked exactly: integers, z >= 0, A_r z = a.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "linear_invariants.hpp"

namespace invariant_dp {

std::vector<std::int64_t> round_keeping_invariants(const LinearInvariants& invariants, const std::vector<double>& y,
                                                   const Interrupts& interrupts);

}  // namespace invariant_dp
