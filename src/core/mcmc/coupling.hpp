// Convergence diagnostics by L-lag coupling (Dharangutte, Gao, Gong, Yu
// 2023, arXiv:2212.00936, sections 4.4-4.6, after Biswas, Jacob and Vanetti 2019): Algorithm 2, the coupled
// kernel; Algorithm 3, the meeting time tau; and the TV upper bound
//   d_TV(q^(l), q) <= E[max(0, ceil((tau - L - l) / L))]   (Thm 2.5),
// estimated by the mean over independent meeting times.
// Corrections of the paper's pseudocode applied: v*, w* are copied ONCE before the coordinate loop
// (Alg. 2, erratum 9); the lagged chain's state is w^(l-L) (not w^(l));
// the leading chain runs exactly L single steps before coupling starts
// (Alg. 3, erratum 10); ONE uniform is shared by both accept/reject tests;
// loops run j over the basis (erratum 8); and there is an iteration cap.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "lattice_chain.hpp"

namespace invariant_dp::mcmc {

enum class StartKind { zero, proposal };  // pi0 = point mass at 0, or g

// Algorithm 2: one coupled iteration of (x, y) = (z^(l-1), zo^(l-L-1)).
// Marginally each chain makes exactly one LatticeChain::iterate step; the
// basis jumps are maximally coupled coordinate-wise, extra moves use the
// same move and sign, and every accept/reject shares one uniform. Chains
// that are equal stay equal forever.
class CoupledKernel {
 public:
  explicit CoupledKernel(const ChainModel& model);
  void iterate(LatticeChain& x, LatticeChain& y, RandomSource& rng, const Interrupts& interrupts);

 private:
  const ChainModel* model_;
  std::vector<std::int64_t> ex_, ey_;
};

struct MeetingTime {
  std::int64_t tau = 0;  // the meeting time, or the cap when !met
  bool met = false;
};

// Algorithm 3 with lag L >= 1; gives up (met = false) after `cap` iterations.
// Accumulates both chains' acceptance counts into *acceptance when given.
MeetingTime sample_meeting_time(const ChainModel& model, std::int64_t lag, std::int64_t cap, StartKind start,
                                RandomSource& rng, const Interrupts& interrupts,
                                AcceptanceCounts* acceptance = nullptr);

// One point of the TV bound curve for dp.diagnose.
struct DiagnosticRow {
  std::int64_t iteration;
  double tv_upper_bound;
};

// min(1, mean_n max(0, ceil((tau_n - L - l) / L))). A censored pair's tau is
// unknown, so any censored pair makes the estimate the trivial bound 1.
double tv_upper_bound(const std::vector<MeetingTime>& times, std::int64_t lag, std::int64_t iteration);

// The bound at `points` evenly spaced iterations from 0 to max tau - L.
std::vector<DiagnosticRow> tv_upper_bound_curve(const std::vector<MeetingTime>& times, std::int64_t lag,
                                                std::int64_t points);

// Smallest iteration l with tv_upper_bound < threshold (the bound is
// non-increasing in l), or -1 when censoring leaves it at 1.
std::int64_t first_iteration_below(const std::vector<MeetingTime>& times, std::int64_t lag, double threshold);

}  // namespace invariant_dp::mcmc
