// Exact per-group rejection with tilted truncated proposals and a closing
// cell; see group_rejection.hpp for the law and the argument.
#include "group_rejection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../errors.hpp"
#include "../math_constants.hpp"
#include "../samplers/wide_int.hpp"
#include "tilted_laplace.hpp"

namespace invariant_dp {
namespace {

constexpr double kBudgetFactor = 50;     // proposals per unit of 1 / acceptance
constexpr double kMaxCellDraws = 16777216;  // 2^24: a few seconds

// One proposal for a planned group: true when accepted, z filled in the
// order of plan.cells.
bool propose_group(const GroupPlan& plan, const TiltedRates& rates, const std::vector<std::int64_t>& center,
                   RandomSource& rng, std::vector<std::int64_t>& z) {
  const std::size_t k = plan.cells.size() - 1;
  std::int64_t sum = 0;
  for (std::size_t t = 0; t < k; ++t) {
    z[t] = sample_truncated_tilted(rng, rates, center[plan.cells[t]]);
    add_to(sum, z[t], kNoisyCountOutOfRange);
  }
  z[k] = checked_sub(0, sum, kNoisyCountOutOfRange);
  return accept_against_mode(rng, rates, z[k], center[plan.cells[k]]);
}

// The closing cell (the widest: the smallest mass at zero under the tilt),
// the estimated acceptance (a normal approximation of P(sum = 0) over the
// closing cell's mass at zero) and the budget, for cells with the given
// lower and upper bounds (uppers empty: none).
struct Closing {
  std::size_t cell = 0;
  double estimated_acceptance = 1;
  std::uint64_t budget = 0;
};

Closing choose_closing(const TiltedRates& rates, const std::vector<std::int64_t>& lowers,
                       const std::vector<std::int64_t>& uppers, std::uint64_t min_budget) {
  double mean = 0, variance = 0, widest = 2;
  Closing c;
  for (std::size_t t = 0; t < lowers.size(); ++t) {
    const CellMoments m = truncated_moments(rates, lowers[t], uppers.empty() ? kNoUpperBound : uppers[t]);
    mean += m.mean;
    variance += m.variance;
    if (m.mass_at_zero < widest) {
      widest = m.mass_at_zero;
      c.cell = t;
    }
  }
  const double p_zero_sum = std::exp(-mean * mean / (2 * variance)) / std::sqrt(2 * kPi * variance);
  c.estimated_acceptance = std::min(1.0, p_zero_sum / widest);
  const double wanted = std::ceil(kBudgetFactor / c.estimated_acceptance);
  const double cap = kMaxCellDraws / static_cast<double>(lowers.size());
  c.budget = wanted <= cap ? std::max<std::uint64_t>(min_budget, static_cast<std::uint64_t>(wanted)) : min_budget;
  return c;
}

}  // namespace

GroupPlan plan_group(const std::vector<std::int64_t>& center, std::vector<std::uint32_t> cells, Rational scale,
                     std::uint64_t min_budget, TiltedRates& rates) {
  std::vector<std::int64_t> counts;
  for (auto c : cells) counts.push_back(center[c]);
  rates = balancing_tilt(scale, counts);
  const Closing closing = choose_closing(rates, counts, {}, min_budget);
  std::swap(cells[closing.cell], cells.back());
  GroupPlan plan;
  plan.cells = std::move(cells);
  plan.estimated_acceptance = closing.estimated_acceptance;
  plan.budget = closing.budget;
  return plan;
}

bool sample_bounded_group(const std::vector<std::int64_t>& lower, const std::vector<std::int64_t>& upper,
                          Rational scale, std::uint64_t min_budget, RandomSource& rng, const Interrupts& interrupts,
                          std::vector<std::int64_t>& z, std::uint64_t& proposals) {
  const std::size_t n = lower.size();
  if (upper.size() != n) throw InvalidArgument("a bounded group needs one upper bound per cell");
  z.assign(n, 0);
  std::int64_t below = 0, above = 0;  // the room on each side, saturating
  for (std::size_t i = 0; i < n; ++i) {
    if (lower[i] < 0 || upper[i] < 0) throw InvalidArgument("a cell's bounds must not exclude zero");
    if (__builtin_add_overflow(below, lower[i], &below)) below = kNoUpperBound;
    if (__builtin_add_overflow(above, upper[i], &above)) above = kNoUpperBound;
  }
  if (n < 2 || below == 0 || above == 0) return true;  // z = 0 is the only point
  const TiltedRates rates = balancing_tilt(scale, lower, upper);
  const Closing closing = choose_closing(rates, lower, upper, min_budget);
  const std::size_t k = closing.cell;
  for (std::uint64_t t = 0; t < closing.budget; ++t) {
    interrupts.poll_scaled(++proposals, n);
    std::int64_t sum = 0;
    bool fits = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == k) continue;
      z[i] = sample_truncated_tilted(rng, rates, lower[i], upper[i]);
      fits = fits && !__builtin_add_overflow(sum, z[i], &sum);
    }
    if (!fits || sum == std::numeric_limits<std::int64_t>::min()) continue;  // far outside the closing cell's bounds
    z[k] = -sum;
    if (accept_against_mode(rng, rates, z[k], lower[k], upper[k])) return true;
  }
  return false;
}

std::vector<std::uint32_t> sample_groups_by_rejection(const CongenialTarget& target, Rational scale,
                                                      const std::vector<std::uint32_t>& group_of_cell,
                                                      std::size_t n_groups, bool constrained, std::uint64_t budget,
                                                      CompositionSamplers& /*samplers*/, RandomSource& rng,
                                                      const Interrupts& interrupts, std::vector<std::int64_t>& y,
                                                      std::uint64_t& proposals) {
  const std::vector<std::int64_t>& x = target.center;
  if (!constrained) {  // no margin: each cell from its truncated law, no rejection at group level
    const TiltedRates plain = untilted_rates(scale);
    for (std::size_t i = 0; i < x.size(); ++i) {
      interrupts.poll_every(++proposals);
      y[i] = checked_add(x[i], sample_truncated_tilted(rng, plain, x[i]), kNoisyCountOutOfRange);
    }
    return {};
  }
  std::vector<std::vector<std::uint32_t>> cells(n_groups);
  for (std::uint32_t i = 0; i < group_of_cell.size(); ++i) cells[group_of_cell[i]].push_back(i);
  std::vector<std::uint32_t> failed;
  std::vector<std::int64_t> z;
  for (std::uint32_t g = 0; g < n_groups; ++g) {
    if (cells[g].size() < 2) {  // a group of one cell is pinned
      for (auto c : cells[g]) y[c] = x[c];
      continue;
    }
    std::int64_t total = 0;
    for (auto c : cells[g]) add_to(total, x[c]);
    if (total == 0) {  // the only non-negative table with a zero total
      for (auto c : cells[g]) y[c] = 0;
      continue;
    }
    TiltedRates rates;
    const GroupPlan plan = plan_group(x, cells[g], scale, budget, rates);
    z.assign(plan.cells.size(), 0);
    bool accepted = false;
    for (std::uint64_t t = 0; t < plan.budget && !accepted; ++t) {
      interrupts.poll_scaled(++proposals, plan.cells.size());
      accepted = propose_group(plan, rates, x, rng, z);
    }
    if (!accepted) {
      failed.push_back(g);
      continue;
    }
    for (std::size_t t = 0; t < plan.cells.size(); ++t)
      y[plan.cells[t]] = checked_add(x[plan.cells[t]], z[t], kNoisyCountOutOfRange);
  }
  return failed;
}

}  // namespace invariant_dp
