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

#include <algorithm>
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

// The step law of a chain on this target: the tuned a above (at the
// scale it was tuned at, b = 16 for the Laplace laws, sigma = 16 for the
// lattice Gaussian) for that scale and below, and steps growing with the
// law's scale beyond it: a = exp(-r min(1, 16 / scale)), r = -log(tuned a).
// With the tuned steps at epsilon = 10^-6 a chain would move its ~10^6-wide
// law by tens of counts in its burn-in and release nearly the data; scaled,
// it crosses the law's width within a few hundred iterations whatever
// epsilon is.
inline double scaled_proposal_a(const Target& target) {
  const double rate = -std::log(default_sampler(target.kind, true).proposal_a);
  const double scale = target.kind == TargetKind::lattice_gaussian ? std::sqrt(target.sigma2) : 1 / target.epsilon;
  return std::exp(-rate * std::min(1.0, 16 / scale));
}

}  // namespace invariant_dp::mcmc
