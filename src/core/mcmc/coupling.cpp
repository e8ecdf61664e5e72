// L-lag coupling, meeting times and the TV upper bound; see coupling.hpp
// (Dharangutte et al. 2023, arXiv:2212.00936, sections 4.4-4.6; Biswas et al.
// 2019 Theorem 2.5).
#include "coupling.hpp"

#include <algorithm>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

CoupledKernel::CoupledKernel(const ChainModel& model)
    : model_(&model), ex_(model.rank(), 0), ey_(model.rank(), 0) {}

// Lines 3-12: coordinate-wise maximal couplings of eta(. - v_j) and
// eta(. - w_j); lines 13-15: one shared uniform for both Metropolis tests.
void CoupledKernel::iterate(LatticeChain& x, LatticeChain& y, RandomSource& rng, const Interrupts& interrupts) {
  const DoubleGeometric& eta = model_->step_law();
  for (std::size_t j = 0; j < ex_.size(); ++j) {
    const std::int64_t vj = x.v()[j], wj = y.v()[j];
    const auto [to_x, to_y] = eta.maximal_coupling(vj, wj, rng, interrupts);
    ex_[j] = to_x - vj;
    ey_[j] = to_y - wj;
  }
  const double rx = x.propose_basis(ex_);
  const double ry = y.propose_basis(ey_);
  const double r = rng.uniform_open01();
  x.finish_basis(metropolis_accepts(rx, r));
  y.finish_basis(metropolis_accepts(ry, r));
  for (std::size_t t = 0; t < model_->config().moves_per_iteration; ++t) {
    const std::size_t k = rng.uniform_below(model_->move_count());
    const std::int64_t magnitude = model_->move_magnitude(rng);
    const std::int64_t s = rng.fair_bit() ? magnitude : -magnitude;
    const double mx = x.propose_move(k, s), my = y.propose_move(k, s);
    const double u = rng.uniform_open01();
    x.finish_move(k, s, metropolis_accepts(mx, u));
    y.finish_move(k, s, metropolis_accepts(my, u));
  }
}

namespace {

void start(LatticeChain& chain, StartKind kind, RandomSource& rng) {
  if (kind == StartKind::zero)
    chain.reset_zero();
  else
    chain.reset_from_proposal(rng);
}

}  // namespace

MeetingTime sample_meeting_time(const ChainModel& model, std::int64_t lag, std::int64_t cap, StartKind start_kind,
                                RandomSource& rng, const Interrupts& interrupts, AcceptanceCounts* acceptance) {
  if (lag < 1) throw InvalidArgument("coupling lag must be at least 1");
  if (cap <= lag) throw InvalidArgument("meeting-time cap must exceed the lag");
  LatticeChain x(model), y(model);
  start(x, start_kind, rng);
  start(y, start_kind, rng);
  x.run(static_cast<std::uint64_t>(lag), rng, interrupts);  // z^(1..L) ~ K
  CoupledKernel kernel(model);
  MeetingTime out{cap, false};
  for (std::int64_t l = lag + 1; l <= cap; ++l) {
    model.poll_at(static_cast<std::uint64_t>(l), interrupts);
    kernel.iterate(x, y, rng, interrupts);
    if (x.same_state(y)) {
      out = MeetingTime{l, true};
      break;
    }
  }
  if (acceptance != nullptr) {
    *acceptance += x.acceptance();
    *acceptance += y.acceptance();
  }
  return out;
}

double tv_upper_bound(const std::vector<MeetingTime>& times, std::int64_t lag, std::int64_t iteration) {
  if (times.empty()) return 1.0;
  double sum = 0;
  for (const MeetingTime& t : times) {
    if (!t.met) return 1.0;
    const std::int64_t excess = t.tau - lag - iteration;
    if (excess > 0) sum += double((excess + lag - 1) / lag);
  }
  return std::min(1.0, sum / double(times.size()));
}

std::vector<DiagnosticRow> tv_upper_bound_curve(const std::vector<MeetingTime>& times, std::int64_t lag,
                                                std::int64_t points) {
  std::int64_t last = 0;
  for (const MeetingTime& t : times) last = std::max(last, t.tau - lag);
  points = std::max<std::int64_t>(points, 2);
  std::vector<DiagnosticRow> rows;
  for (std::int64_t p = 0; p < points; ++p) {
    const std::int64_t l = last * p / (points - 1);
    if (!rows.empty() && rows.back().iteration == l) continue;
    rows.push_back(DiagnosticRow{l, tv_upper_bound(times, lag, l)});
  }
  return rows;
}

std::int64_t first_iteration_below(const std::vector<MeetingTime>& times, std::int64_t lag, double threshold) {
  std::int64_t hi = 0;
  for (const MeetingTime& t : times) {
    if (!t.met) return -1;
    hi = std::max(hi, t.tau);
  }
  if (tv_upper_bound(times, lag, hi) >= threshold) return -1;  // empty input or threshold <= 0
  std::int64_t lo = 0;  // invariant: the answer is in [lo, hi]
  // Ends: bisection of [0, hi], hi < 2^63: at most 63 passes.
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (tv_upper_bound(times, lag, mid) < threshold)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace invariant_dp::mcmc
