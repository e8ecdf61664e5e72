// The congenial target (Gong, Meng 2020, "Congenial Differential Privacy
// under Mandated Disclosure", FODS 2020, arXiv:2008.10202, Section 2.2,
// eq. 2.3, and Section 2.3; README.md, the `congenial` row of the
// mechanism table):
//   pi(y)  proportional to  exp(-|y - x|_1 / b)  on  S* = {y in Z^d : A_r y = A_r x, y >= 0},
// i.e. i.i.d. discrete Laplace noise of scale b conditioned on every
// declared margin AND on non-negativity of every released cell. x is the
// confidential table; the samplers only evaluate pi's ratios through it and
// never start from it: a chain started at x that never moves would release
// x exactly (the paper leaves the start open). They start at a table of the
// public totals, or at a noisy one, private on its own (chain_starts.hpp;
// test_congenial.cpp checks what a chain that never moves releases).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../projection/linear_invariants.hpp"

namespace invariant_dp {

struct CongenialTarget {
  LinearInvariants invariants;      // A_r and a = A_r x (public)
  std::vector<std::int64_t> center;  // x (confidential)
  double inverse_scale = 0;          // 1 / b

  std::size_t n_cells() const { return center.size(); }
  // log pi(y) + const, or -infinity off the orthant (A_r y = a is the
  // samplers' invariant, not checked here).
  double log_density(const std::vector<std::int64_t>& y) const {
    double l1 = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (y[i] < 0) return -1.0 / 0.0;
      l1 += static_cast<double>(std::llabs(y[i] - center[i]));
    }
    return -inverse_scale * l1;
  }
};

}  // namespace invariant_dp
