// Quantiles of weighted sums of independent integer cells
// (independent_sum_quantiles.hpp).
#include "independent_sum_quantiles.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

// Aliasing and truncation budgets: far below any level's resolution.
constexpr double kIndependentAlias = 1e-20;
constexpr double kIndependentNegligible = 1e-18;
// Nodes visited when no weight is 1 (no decreasing majorant).
constexpr std::uint64_t kMaxScan = std::uint64_t(1) << 25;

std::uint64_t weight_residue(std::uint64_t w, std::uint64_t j, std::uint64_t N) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(w) * j) % N);
}

// The period: t_max + x + 1 with P(|X| >= x) <= kIndependentAlias, and at least 2 t_max + 1.
std::uint64_t period_for(const NoiseTransform& law, const std::vector<WeightedCells>& terms, std::int64_t t_max) {
  const std::int64_t x = law.tail_point(terms, kIndependentAlias);
  const std::int64_t n = std::max(2 * t_max + 1, t_max + x + 1);
  if (n >= (std::int64_t(1) << 61)) throw OutOfRange("the sum's noise is too wide for an exact quantile");
  return static_cast<std::uint64_t>(n);
}

}  // namespace

SumCoverage::SumCoverage(const NoiseTransform& law, std::vector<WeightedCells> terms, std::int64_t t_max,
                         const Interrupts& interrupts)
    : law_(law), terms_(std::move(terms)), t_max_(t_max), interrupts_(interrupts) {
  transform_ = sample_independent_sum(law_, terms_, period_for(law_, terms_, t_max_), t_max_, kIndependentNegligible,
                                      interrupts_);
}

CoverageBounds SumCoverage::operator()(std::int64_t t) const {
  if (t > t_max_) throw InvalidArgument("a coverage beyond the sampled half-widths was asked");
  CoverageBounds c = periodic_coverage(transform_, t, interrupts_);
  c.lower = std::max(0.0, next_down(c.lower - law_.tail_bound(terms_, double(transform_.period) - double(t))));
  return c;
}

std::uint64_t normalise_terms(std::vector<WeightedCells>& terms) {
  std::map<std::uint64_t, std::uint64_t> merged;
  double total = 0;
  for (const WeightedCells& t : terms) {
    if (t.cells == 0) continue;
    if (t.weight == 0) throw InvalidArgument("a weighted sum's weight must be at least 1");
    merged[t.weight] += t.cells;
    total += double(t.cells);
  }
  if (total > 0x1p53) throw InvalidArgument("a weighted sum has more than 2^53 cells");
  std::uint64_t g = 0;
  for (const auto& [w, m] : merged) g = std::gcd(g, w);
  terms.clear();
  for (const auto& [w, m] : merged) terms.push_back({w / g, m});
  return g;
}

SampledTransform sample_independent_sum(const NoiseTransform& law, const std::vector<WeightedCells>& terms,
                                        std::uint64_t N, std::int64_t t_max, double negligible,
                                        const Interrupts& interrupts) {
  SampledTransform s;
  s.period = N;
  const std::uint64_t half = N / 2;
  std::uint64_t m1 = 0;
  for (const WeightedCells& t : terms)
    if (t.weight == 1) m1 = t.cells;
  if (m1 == 0 && half > kMaxScan)
    throw TooLarge("the weighted sum's noise is too wide for an exact quantile",
                   "Its transform would be evaluated at " + std::to_string(half) + " points.",
                   "The sum's variance gives a certified bound instead.");
  const double width = 2 * double(t_max) + 1;
  const double listed_floor = negligible / width;  // an unlisted node adds at most this times 2t+1 per N nodes
  // With a weight 1, the nodes visited end where phi^m1 (decreasing) makes
  // the rest negligible: found by bisection, and refused before any memory
  // is taken when too many.
  std::uint64_t last = half;
  if (m1 > 0) {
    const auto negligible_from = [&](std::uint64_t j) {
      return double(m1) * law.log_phi(j, N) + std::log(width) <= std::log(negligible);
    };
    if (negligible_from(half)) {
      std::uint64_t lo = 0, hi = half;  // negligible_from(hi)
      // Ends: bisection over a 64-bit range: at most 64 passes.
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (negligible_from(mid) ? hi : lo) = mid;
      }
      last = hi;
    }
  }
  if (last > kMaxTransformNodes && (m1 > 0 || terms.size() == 1))
    throw TooLarge("the sum's noise is too wide for an exact quantile",
                   "More than " + std::to_string(kMaxTransformNodes) + " points of its transform matter.",
                   "A single cell has its closed-form quantile; otherwise the sum's variance gives a certified bound.");
  s.node.reserve(std::min<std::uint64_t>(last, kMaxTransformNodes));
  s.value.reserve(s.node.capacity());
  s.error.reserve(s.node.capacity());
  for (std::uint64_t j = 1; j <= half; ++j) {
    interrupts.poll_every(j);
    double log_u = 0, log_major = 0;
    for (const WeightedCells& t : terms) {
      const double lp = law.log_phi(weight_residue(t.weight, j, N), N);
      log_u += double(t.cells) * lp;
      if (t.weight == 1) log_major = double(t.cells) * lp;
    }
    const double wj = 2 * j == N ? 1.0 : 2.0;
    const double u = std::exp(log_u);
    // log_u within 20 u |log_u| (each log phi within 16 u relative, terms of one sign).
    const double err = u * (std::expm1(20 * kDoubleUnit * std::abs(log_u)) + 2 * kDoubleUnit) + 1e-300;
    if (u > listed_floor) {
      if (s.node.size() >= kMaxTransformNodes)
        throw TooLarge("the sum's noise is too wide for an exact quantile",
                       "More than " + std::to_string(kMaxTransformNodes) + " points of its transform matter.",
                       "A single cell has its closed-form quantile; otherwise the sum's variance gives a certified "
                       "bound.");
      s.node.push_back(j);
      s.value.push_back(u);
      s.error.push_back(err);
    } else {
      s.omitted += wj * (u + err);
    }
    // Stop once the decreasing majorant phi^m1 says the rest is negligible.
    if (m1 > 0 && std::exp(log_major) * width <= negligible) {
      s.omitted += 2 * double(half - j) * std::exp(log_major) * (1 + 1e-9);
      break;
    }
  }
  s.omitted = next_up(s.omitted);
  return s;
}

CoverageBounds independent_sum_coverage(IntegerNoise noise, std::vector<WeightedCells> terms, std::int64_t t,
                                        const Interrupts& interrupts) {
  if (t < 0) throw InvalidArgument("a half-width must be non-negative");
  const std::uint64_t g = normalise_terms(terms);
  if (g == 0) return {1, 1};
  const std::int64_t t1 = t / static_cast<std::int64_t>(g);
  const NoiseTransform law(noise);
  return SumCoverage(law, std::move(terms), t1, interrupts)(t1);
}

Quantile independent_sum_quantile(IntegerNoise noise, std::vector<WeightedCells> terms, double level,
                                  const Interrupts& interrupts) {
  check_level(level);
  const std::uint64_t g = normalise_terms(terms);
  Quantile out;
  if (g == 0) {  // no cell: the sum is 0
    out.coverage_lower = 1;
    out.exact = true;
    return out;
  }
  const NoiseTransform law(noise);
  const auto scaled = [g](Quantile q) {
    q.half_width *= static_cast<std::int64_t>(g);
    return q;
  };
  if (noise.kind == IntegerNoise::Kind::laplace && terms.size() == 1 && terms[0].cells == 1) {
    // One cell: the closed-form tail 2 a^(t+1) / (1 + a), decided on MPFR enclosures.
    const std::int64_t q = discrete_laplace_half_width(noise.parameter, level);
    out.half_width = q;
    out.coverage_lower = next_down(next_down(1 - discrete_laplace_tail(noise.parameter, q)) - 1e-15);
    out.narrower_upper = q == 0 ? 0.0 : next_up(next_up(1 - discrete_laplace_tail(noise.parameter, q - 1)) + 1e-15);
    out.exact = out.narrower_upper < level;
    return scaled(out);
  }
  const double alpha = 1 - level;
  const std::int64_t t_max = law.tail_point(terms, alpha / 2);
  const SumCoverage coverage(law, terms, t_max, interrupts);
  double quadratic = 0;
  for (const WeightedCells& t : terms) quadratic += double(t.cells) * double(t.weight) * double(t.weight);
  const auto guess = static_cast<std::int64_t>(std::floor(normal_quantile(level) * std::sqrt(law.variance() * quadratic)));
  return scaled(smallest_covering(coverage, level, guess, t_max, interrupts));
}

}  // namespace invariant_dp::accuracy
