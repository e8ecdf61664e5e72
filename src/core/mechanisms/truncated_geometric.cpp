// Truncated geometric thresholding, drawn exactly (truncated_geometric.hpp).
#include "truncated_geometric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../errors.hpp"
#include "../samplers/lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

constexpr mpfr_prec_t kStepPrecision = 128;
constexpr std::int64_t kFigureSteps = kMaxTruncatedGeometricSteps;

// min(a, b) of two enclosures: each end the smaller of the two ends (min is
// increasing in both arguments; no rounding: the ends are copied).
Interval smaller(const Interval& a, const Interval& b) {
  const mpfr_prec_t prec = std::max(a.precision(), b.precision());
  mpfr_srcptr lower = mpfr_lessequal_p(a.lower(), b.lower()) ? a.lower() : b.lower();
  mpfr_srcptr upper = mpfr_lessequal_p(a.upper(), b.upper()) ? a.upper() : b.upper();
  return Interval(prec, lower, upper);
}

// The recursion's constants at one precision.
struct Step {
  Interval growth_first, add_first;    // e^e a^R, (1 + a) d
  Interval growth_second, add_second;  // e^e a^(R-1), d
  Interval decay, d;                   // e^-e, d

  Step(const TruncatedGeometricParameters& parameters, mpfr_prec_t prec)
      : growth_first(prec), add_first(prec), growth_second(prec), add_second(prec), decay(prec), d(prec) {
    const auto k = static_cast<unsigned long>(parameters.moved_cells);
    const Interval e = div(exact_double(prec, parameters.epsilon), k);
    d = div(exact_double(prec, parameters.delta), k);
    const Interval grow = exp(e);
    decay = exp(neg(e));
    if (!parameters.joint()) {
      growth_first = growth_second = grow;
      add_first = add_second = d;
      return;
    }
    // a = e^(-1/b) = exp(-den / num).
    const Interval a = exp(neg(div(exact(prec, parameters.counts_scale.den), parameters.counts_scale.num)));
    const auto rows = static_cast<unsigned long>(parameters.max_rows);
    growth_first = mul(grow, pow(a, rows));
    growth_second = rows > 1 ? mul(grow, pow(a, rows - 1)) : grow;
    add_first = mul(add(a, 1), d);
    add_second = d;
  }

  // p_n from p_{n-1}; certain_one: p_n is certainly exactly 1.
  Interval next(const Interval& p, bool& certain_one) const {
    const Interval first = add(mul(growth_first, p), add_first);
    const Interval second = add(mul(growth_second, p), add_second);
    const Interval third = sub(1, mul(decay, sub(sub(1, p), d)));
    const Interval bound = smaller(smaller(first, second), third);
    certain_one = mpfr_cmp_ui(bound.lower(), 1) >= 0;
    return smaller(bound, exact(bound.precision(), std::uint64_t{1}));
  }
};

void check_parameters(const TruncatedGeometricParameters& parameters) {
  if (!(parameters.epsilon > 0) || !(parameters.delta > 0 && parameters.delta < 1) || parameters.moved_cells < 1 ||
      parameters.max_rows < 1)
    throw Error("invalid truncated geometric selection parameters");
}

}  // namespace

Interval truncated_geometric_probability(const TruncatedGeometricParameters& parameters, std::uint64_t n,
                                         mpfr_prec_t prec, const Interrupts& interrupts) {
  check_parameters(parameters);
  const Step step(parameters, prec);
  Interval p(prec);  // p_0 = 0
  for (std::uint64_t i = 1; i <= n; ++i) {
    interrupts.poll_every(i);
    bool certain_one = false;
    p = step.next(p, certain_one);
    if (certain_one) return exact(prec, std::uint64_t{1});
  }
  return p;
}

TruncatedGeometricFigures truncated_geometric_figures(const TruncatedGeometricParameters& parameters,
                                                      const Interrupts& interrupts) {
  check_parameters(parameters);
  const double k = double(parameters.moved_cells);
  const double e = parameters.epsilon / k, d = parameters.delta / k;
  double growth_first = std::exp(e), growth_second = std::exp(e), add_first = d;
  if (parameters.joint()) {
    const double b = parameters.counts_scale.to_double(), a = std::exp(-1 / b), rows = double(parameters.max_rows);
    growth_first = std::exp(e - rows / b);
    growth_second = std::exp(e - (rows - 1) / b);
    add_first = (1 + a) * d;
  }
  const double decay = std::exp(-e);
  TruncatedGeometricFigures figures;
  double p = 0;
  for (std::int64_t n = 1; n <= kFigureSteps; ++n) {
    interrupts.poll_every(std::uint64_t(n));
    p = std::min({growth_first * p + add_first, growth_second * p + d, 1 - decay * (1 - p - d), 1.0});
    if (figures.units_at_half < 0 && p >= 0.5) figures.units_at_half = n;
    if (p >= 1) {
      figures.units_always_shown = n;
      break;
    }
  }
  return figures;
}

TruncatedGeometricSelector::TruncatedGeometricSelector(const TruncatedGeometricParameters& parameters,
                                                       std::int64_t max_units, const Interrupts& interrupts)
    : parameters_(parameters), interrupts_(interrupts) {
  check_parameters(parameters);
  if (max_units < 0) throw Error("a negative count of units");
  const Step step(parameters, kStepPrecision);
  Interval p(kStepPrecision);  // p_0 = 0
  lower_.push_back(0);
  upper_.push_back(0);
  // The calibration refused laws that do not reach 1 within the figures'
  // steps (double rounding may put the certain 1 a few steps later).
  const std::int64_t most = std::min(max_units, kMaxTruncatedGeometricSteps + 1024);
  for (std::int64_t n = 1; n <= most; ++n) {
    interrupts.poll_every(std::uint64_t(n));
    bool certain_one = false;
    p = step.next(p, certain_one);
    if (certain_one) {
      always_at_end_ = true;
      break;
    }
    lower_.push_back(to_double(p, End::lower));
    upper_.push_back(to_double(p, End::upper));
  }
  certain_from_ = std::int64_t(lower_.size());
  if (!always_at_end_ && most < max_units) throw Error("a truncated geometric law that does not reach 1");
}

bool TruncatedGeometricSelector::shown(std::int64_t units, RandomSource& rng) const {
  if (units <= 0) return false;  // p_0 = 0: a cell no unit has
  if (units >= certain_from_) {
    if (!always_at_end_) throw Error("a unit count beyond the selection's table");
    return true;
  }
  LazyUniform u(rng);
  // U in [word, word + 1) / 2^64; lower and upper * 2^64 are exact doubles.
  const std::uint64_t word = u.first_word();
  const double low = std::ldexp(lower_[std::size_t(units)], 64), high = std::ldexp(upper_[std::size_t(units)], 64);
  if (low >= 0x1p64 || word < static_cast<std::uint64_t>(std::floor(low))) return true;    // U < lower <= p
  if (high < 0x1p64 && word >= static_cast<std::uint64_t>(std::ceil(high))) return false;  // U >= upper >= p
  const ProbabilityBounds bounds = [this, units](mpfr_prec_t prec) {
    return truncated_geometric_probability(parameters_, std::uint64_t(units), prec, interrupts_);
  };
  return u.less_than(bounds, 2 * kStepPrecision);
}

}  // namespace invariant_dp
