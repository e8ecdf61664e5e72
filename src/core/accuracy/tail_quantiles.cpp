// Certified half-widths (tail_quantiles.hpp). The certain comparisons are
// made on Intervals (interval.hpp).
#include "tail_quantiles.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "../errors.hpp"
#include "../samplers/interval.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr mpfr_prec_t kPrecision = 128;
// Direct sums of the discrete Gaussian up to this variance (about 40
// standard deviations of terms: 4e4 at the limit); beyond, the continuous
// bound is at most one count wide of the exact quantile, a thousandth of it.
constexpr double kDirectVariance = 1e6;
// A computed tail must clear 1 - level by this relative margin.
constexpr double kQuantileSlack = 1e-9;

// 1 - level, enclosed.
Interval alpha(double level) { return sub(1ul, exact_double(kPrecision, level)); }

// Whether 2 a^(t+1) / (1 + a) <= 1 - level for certain, a = exp(-den/num).
bool laplace_tail_within(Rational b, std::int64_t t, double level) {
  const mpfr_prec_t p = kPrecision;
  // (t + 1) den < 2^127: exact.
  const Interval a_power = exp(neg(div(exact(p, static_cast<Uint128>(t + 1) * b.den), b.num)));  // a^(t+1)
  const Interval a = exp(neg(div(exact(p, b.den), b.num)));
  return certainly_at_most(div(scale_2exp(a_power, 1), add(a, 1ul)), alpha(level));
}

// Whether ratio * erfc(t / sqrt(2 s2)) <= 1 - level for certain (t >= 0).
bool gaussian_bound_within(double s2, std::int64_t t, double level, double ratio) {
  const mpfr_prec_t p = kPrecision;
  const Interval x = div(exact_signed(p, t), sqrt(scale_2exp(exact_double(p, s2), 1)));
  return certainly_at_most(mul(erfc(x), exact_double(p, ratio)), alpha(level));
}

// Whether erfc(z / sqrt 2) <= 1 - level for certain (z >= 0).
bool normal_within(double z, double level) {
  const mpfr_prec_t p = kPrecision;
  const Interval x = div(exact_double(p, z), exact_double(p, std::sqrt(2.0) * (1 + 1e-15)));  // above sqrt 2
  return certainly_at_most(erfc(x), alpha(level));
}

// The exp(-x^2 / (2 s2)) for x = 0 .. X (beyond: below e^-745), summed from
// the top: tail[x] = sum_{y >= x} rho(y); returns the normaliser
// rho(0) + 2 tail[1].
double gaussian_suffix_sums(double s2, std::vector<double>& tail) {
  const auto top = static_cast<std::size_t>(std::ceil(std::sqrt(2 * s2 * 745))) + 2;
  tail.assign(top + 2, 0.0);
  for (std::size_t x = top + 1; x-- > 0;) tail[x] = tail[x + 1] + std::exp(-double(x) * double(x) / (2 * s2));
  return tail[0] + tail[1];  // rho(0) + 2 sum_{x >= 1}: tail[0] = rho(0) + tail[1]
}

// The smallest t >= 0 with within(t), for a predicate that holds from some
// t on (a tail that decreases in t), found from a guess by galloping and
// bisection: at most about 2 log2(2^62) evaluations whatever the guess.
template <typename Within>
std::int64_t smallest_half_width(double guess, Within within) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  std::int64_t hi = guess >= 0 && guess < 0x1p62 ? static_cast<std::int64_t>(std::ceil(guess)) + 1 : 0;
  std::int64_t lo = -1;  // within(lo) is false, or lo = -1
  for (std::int64_t step = 1; !within(hi); step *= 2) {
    if (hi >= kLimit) throw OutOfRange("the interval is too wide for bigint bounds");
    lo = hi;
    hi = std::min(kLimit, hi + step);
  }
  if (lo < 0 && hi > 0) {
    // Gallop down from the guess to a t that fails (or to 0).
    // Ends: the step doubles, so below reaches -1 within 63 passes.
    for (std::int64_t step = 1;; step *= 2) {
      const std::int64_t below = std::max<std::int64_t>(-1, hi - step);
      if (below < 0 || !within(below)) {
        lo = below;
        break;
      }
      hi = below;
    }
  }
  // Ends: bisection of [lo, hi] within [-1, 2^62]: at most 63 passes.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (within(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

void check_level(double level) {
  if (!(level > 0 && level < 1)) throw InvalidArgument("a coverage level must lie strictly between 0 and 1");
}

std::int64_t integer_half_width(double t) {
  if (!(t >= 0)) throw InvalidArgument("a half-width must be a non-negative number");
  const double up = std::ceil(t);
  if (!(up <= 0x1p62)) throw OutOfRange("the interval is too wide for bigint bounds");
  return static_cast<std::int64_t>(up);
}

std::int64_t discrete_laplace_half_width(Rational b, double level) {
  check_level(level);
  if (b.num == 0 || b.den == 0) throw InvalidArgument("a discrete Laplace scale must be positive");
  // 2 a^(t+1) / (1 + a) <= alpha  <=>  t >= b log(2 / (alpha (1 + a))) - 1,
  // log a = -1/b; the guess only brackets the search (a wrong one costs steps).
  const double inverse_b = double(b.den) / double(b.num);
  const double guess = std::log(2 / ((1 - level) * (1 + std::exp(-inverse_b)))) / inverse_b - 1;
  return smallest_half_width(guess, [&](std::int64_t t) { return laplace_tail_within(b, t, level); });
}

double discrete_laplace_tail(Rational b, std::int64_t t) {
  const double a = std::exp(-double(b.den) / double(b.num));
  return 2 * std::exp(double(t + 1) * std::log(a)) / (1 + a);
}

std::int64_t discrete_gaussian_half_width(double s2, double level, double ratio) {
  check_level(level);
  if (!(s2 > 0) || !std::isfinite(s2)) throw InvalidArgument("a discrete Gaussian needs a positive finite variance");
  if (!(ratio >= 1)) throw InvalidArgument("a tail ratio must be at least 1");
  if (!std::isfinite(ratio)) throw OutOfRange("the tail bound of this law says nothing at this coverage");
  const double alpha = 1 - level;
  if (s2 <= kDirectVariance) {
    std::vector<double> tail;
    const double total = gaussian_suffix_sums(s2, tail);
    for (std::size_t t = 0; t + 1 < tail.size(); ++t)
      if (ratio * 2 * tail[t + 1] / total * (1 + kQuantileSlack) <= alpha) return static_cast<std::int64_t>(t);
    throw OutOfRange("the tail bound of this law says nothing at this coverage");
  }
  const double guess = normal_quantile(std::max(0.0, 1 - alpha / ratio)) * std::sqrt(s2);
  return smallest_half_width(guess, [&](std::int64_t t) { return gaussian_bound_within(s2, t, level, ratio); });
}

double discrete_gaussian_tail(double s2, std::int64_t t) {
  std::vector<double> tail;
  const double total = gaussian_suffix_sums(s2, tail);
  const auto next = static_cast<std::size_t>(t + 1);
  return next < tail.size() ? 2 * tail[next] / total : 0;
}

double normal_quantile(double level) {
  check_level(level);
  // The last level's quantile is kept: a GROUP BY asks the same level for
  // thousands of sums, and each bisection takes some 60 MPFR evaluations.
  thread_local double last_level = -1, last_quantile = 0;
  if (level == last_level) return last_quantile;
  double lo = 0, hi = 1;
  // Ends: erfc(2^6 / sqrt 2) < 1e-800 is below 1 - level for every double level < 1.
  while (!normal_within(hi, level)) hi *= 2;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (normal_within(mid, level) ? hi : lo) = mid;
  }
  last_level = level;
  last_quantile = hi;
  return hi;
}

double normal_half_width(double variance, double level) { return normal_quantile(level) * std::sqrt(variance); }

double sub_gaussian_half_width(double variance, double level) {
  check_level(level);
  return std::sqrt(2 * variance * std::log(2 / (1 - level))) * (1 + 1e-12);
}

double gauss_half_width(double variance, double level) {
  check_level(level);
  const double sd = std::sqrt(variance);
  // P(|X| >= t) <= 4 V / (9 t^2) for t >= 2 sd / sqrt 3, and <= 1 - t / (sqrt 3 sd) below.
  const double t = level >= 2.0 / 3 ? (2.0 / 3) * sd / std::sqrt(1 - level) : std::sqrt(3.0) * sd * level;
  return t * (1 + 1e-12);
}

double chebyshev_half_width(double variance, double level) {
  check_level(level);
  return std::sqrt(variance / (1 - level)) * (1 + 1e-12);
}

}  // namespace invariant_dp::accuracy
