// The MCMC health report behind dp.diagnose, the checks of Dharangutte, Gao,
// Gong, Yu 2023 (arXiv:2212.00936): the L-lag coupling TV upper-bound curve
// from R independent coupled pairs (Section 4 and Appendix D.2, after
// Biswas, Jacob, Vanetti 2019, arXiv:1905.09971, Theorem 2.5), the first
// iteration at which it falls below a threshold, acceptance rates per move
// type, and split R-hat on ||z||_1 and z_1 over over-dispersed chains (as in
// the paper's Appendix E.4). The PG layer turns tv_curve into rows and the
// scalars into one summary row.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "coupling.hpp"
#include "rhat.hpp"

namespace invariant_dp::mcmc {

struct DiagnosticsConfig {
  std::int64_t lag = 1000;            // L
  int pairs = 200;                    // R, as in the paper's Figure 1
  std::int64_t max_iterations = 10000000;  // meeting-time cap per pair
  StartKind start = StartKind::proposal;   // pi0 = g
  std::int64_t curve_points = 101;
  double threshold = 0.05;
  RhatConfig rhat;                    // rhat.chains = 0 skips R-hat
};

struct DiagnosticsReport {
  std::vector<DiagnosticRow> tv_curve;
  std::int64_t lag = 0;
  int pairs = 0;
  int censored = 0;                    // pairs that hit the cap (curve = 1)
  std::int64_t iterations_below = -1;  // first l with bound < threshold; -1 none
  double basis_acceptance = 0;         // Algorithm 1 sweeps
  double move_acceptance = 0;          // extra moves (0 when none)
  double rhat_l1 = 0, rhat_z1 = 0;     // 0 when skipped
  std::vector<MeetingTime> meeting_times;
};

DiagnosticsReport diagnose(const ChainModel& model, const DiagnosticsConfig& config, RandomSource& rng,
                           const Interrupts& interrupts);

}  // namespace invariant_dp::mcmc
