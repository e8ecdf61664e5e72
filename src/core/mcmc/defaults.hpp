// Default sampler settings, measured on the 4x4 delinquent-children table
// of Dharangutte, Gao, Gong, Yu 2023, "Integer Subspace Differential
// Privacy" (arXiv:2212.00936), Section 5 and Appendix E.3, Table 2 (d = 16,
// both margins, eps = 0.25) with 200 coupled pairs
// (test/bench/bench_mcmc.cpp, seed 42): iterations until the L-lag TV upper
// bound falls below 0.05, beside the paper's convergence read off its
// Figures 1 (l1) and 6 (l2):
//   l1, a = e^-1, paper proposal:       4946 (L = 1000), 3977 (L = 3000)   paper ~1e4
//   l1, a = e^-1, + 9 swaps/iteration:   641 (L = 1000)
//   l2, a = e^-2, paper proposal:      85099 (L = 1000), 59191 (L = 1e4)  paper ~1e5
//   l2, a = e^-2, + 9 swaps/iteration:  3361 (L = 3000)
// An iteration with swaps costs ~2.5-3.5x one without (0.5M vs 1.2-1.9M
// it/s), so the swaps still win 3-15x in time to TV < 0.05.
// The burn-ins below are these figures rounded up with a factor >= 2 of
// margin. They are defaults for tables of this size only; larger lattices
// need their own diagnosis (dp.diagnose), which is why the diagnostics API
// exists. The lattice Gaussian reuses the l1 settings (no paper figure).
#pragma once

#include <cmath>
#include <cstdint>

#include "targets.hpp"

namespace invariant_dp::mcmc {

struct SamplerDefaults {
  double proposal_a;            // Eq. 11 double-geometric parameter
  std::uint64_t burn_in;        // iterations before the draw is used
  std::int64_t coupling_lag;    // L for the TV bound
};

// with_swaps: the two-way-table 2x2 swaps are proposed, rank(Lambda) of them
// per iteration (moves_per_iteration = basis rank).
inline SamplerDefaults default_sampler(TargetKind kind, bool with_swaps) {
  if (kind == TargetKind::laplace_l2)
    return with_swaps ? SamplerDefaults{std::exp(-2.0), 10000, 3000} : SamplerDefaults{std::exp(-2.0), 200000, 10000};
  return with_swaps ? SamplerDefaults{std::exp(-1.0), 2000, 1000} : SamplerDefaults{std::exp(-1.0), 20000, 1000};
}

}  // namespace invariant_dp::mcmc
