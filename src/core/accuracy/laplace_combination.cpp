// Linear combinations of independent Laplace variables
// (laplace_combination.hpp; DERIVATIONS.md, section 18).
#include "laplace_combination.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "../errors.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;
// The wrapped mass and the series' tail, each at most this.
constexpr double kSeriesError = 1e-13;
// The unit roundoff of long double.
constexpr long double kLongUnit = 0x1p-64L;
constexpr long double kDoubleUnitLong = 0x1p-53L;
// sin and cos of pi k x/L are carried by rotation and taken afresh this
// often (each rotation adds a few units of rounding).
constexpr std::size_t kRotationRun = 1024;
constexpr double kMaxSeriesTerms = 0x1p26;
// The series' tail bound takes at most this many of the largest factors.
constexpr std::size_t kMaxTailFactors = 512;
// The Chernoff bound's lambdas, as fractions of 1/(b max|v|).
constexpr double kChernoffFractions[] = {0.25, 0.5, 0.7, 0.8, 0.88, 0.93, 0.96, 0.98, 0.99, 0.995};

}  // namespace

LaplaceCombination::LaplaceCombination(double b, std::vector<LaplaceTerm> terms, double ceiling,
                                       const Interrupts& interrupts, double max_work)
    : b_(b), ceiling_(ceiling) {
  if (!(b > 0) || !std::isfinite(b)) throw InvalidArgument("a Laplace combination needs a positive finite scale");
  if (!(ceiling >= 0) || !std::isfinite(ceiling))
    throw InvalidArgument("a Laplace combination's coverage is asked on a finite range");
  double total = 0, largest = 0;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    interrupts.poll_every(k);
    const LaplaceTerm& t = terms[k];
    if (!std::isfinite(t.weight) || !(t.count >= 1) || !std::isfinite(t.count))
      throw InvalidArgument("a Laplace combination's weights are finite, each carried by at least one variable");
    if (t.weight == 0) continue;
    terms_.push_back({std::fabs(t.weight), t.count});
    total += t.count;
    largest = std::max(largest, std::fabs(t.weight));
    variance_ += 2 * b * b * t.count * t.weight * t.weight;
  }
  if (terms_.empty()) throw InvalidArgument("a Laplace combination needs a nonzero weight");
  single_ = terms_.size() == 1 && terms_[0].count == 1;
  if (single_) return;
  // Largest weights first: the series' tail bound takes them (below).
  std::sort(terms_.begin(), terms_.end(),
            [](const LaplaceTerm& x, const LaplaceTerm& y) { return x.weight > y.weight; });

  // The moment generating function at a few lambdas below its pole
  // 1/(b max|v|): P(|X| >= t) <= 2 e^(-lambda t) E e^(lambda X).
  const long double log_tau = std::log((long double)kSeriesError);
  long double t_tail = std::numeric_limits<long double>::infinity();
  for (const double f : kChernoffFractions) {
    const long double lambda = f / ((long double)b * largest);
    long double log_mgf = 0;
    for (std::size_t k = 0; k < terms_.size(); ++k) {
      interrupts.poll_every(k);
      const long double y = (long double)b * terms_[k].weight * lambda;
      log_mgf -= terms_[k].count * std::log1p(-y * y);
    }
    chernoff_lambda_.push_back(double(lambda));
    chernoff_log_mgf_.push_back(double(log_mgf) * (1 + 1e-12));  // rounded up
    t_tail = std::min(t_tail, (std::log(2.0L) + log_mgf - log_tau) / lambda);
  }
  // The period: x <= ceiling <= L, and 2L - x >= t_tail.
  period_half_ = double(std::max<long double>(ceiling, (t_tail + ceiling) / 2)) * (1 + 1e-12);
  if (!std::isfinite(period_half_) || !(period_half_ > 0))
    throw InvalidArgument("a Laplace combination's period could not be chosen");

  // The series' tail past K: with any q of the factors (counted with
  // multiplicity, the largest weights first), |phi(theta)| <= P_q theta^(-2q),
  // P_q = prod (b v)^-2 over them, so sum_{k > K} (2/(pi k)) |phi(pi k/L)|
  // <= (2/pi) P_q (L/pi)^(2q) / (2q K^(2q)). K is the least over q.
  // The least log K, then K (exp is monotone); log(2q) from a table: a
  // release takes up to 256 shapes' laws, and 512 logarithms and
  // exponentials each were a third of a group's law.
  static const std::array<long double, kMaxTailFactors + 1> log_twice = [] {
    std::array<long double, kMaxTailFactors + 1> out{};
    for (std::size_t q = 1; q <= kMaxTailFactors; ++q) out[q] = std::log(2 * (long double)q);
    return out;
  }();
  const long double log_l_pi = std::log((long double)period_half_ / kPi);
  long double log_p = 0, best_log_k = std::numeric_limits<long double>::infinity();
  std::size_t q = 0;
  for (std::size_t k = 0; k < terms_.size() && q < kMaxTailFactors; ++k) {
    interrupts.poll_every(k);
    const long double log_factor = -2 * std::log((long double)b * terms_[k].weight);
    // Ends: q grows every pass and stops at kMaxTailFactors.
    for (double c = 0; c < terms_[k].count && q < kMaxTailFactors; ++c) {
      ++q;
      log_p += log_factor;
      const long double log_k =
          (std::log(2 / kPi) + log_p + 2 * (long double)q * log_l_pi - log_twice[q] - log_tau) / (2 * (long double)q);
      best_log_k = std::min(best_log_k, log_k);
    }
  }
  const long double best_k = std::exp(best_log_k);
  const double K = std::ceil(double(std::max<long double>(best_k, 1)));
  if (!(K <= kMaxSeriesTerms) || K * double(terms_.size()) > max_work)
    throw TooLarge(
        "the Laplace combination's law needs too many series terms",
        "It would evaluate " + format_double(K) + " terms of " + std::to_string(terms_.size()) + " distinct weights.");
  truncation_ = kSeriesError;

  // phi at pi k/L. phi decreases in k: once the terms left are negligible
  // by phi_k (below), they are bounded, not summed.
  const std::size_t n_terms = static_cast<std::size_t>(K);
  phi_.reserve(n_terms);
  long double rounding = 0;
  const long double weight_count = (long double)terms_.size();
  const double theta_step = double(kPi) / period_half_;
  for (std::size_t k = 1; k <= n_terms; ++k) {
    // phi in double (a release takes a law for each of up to 256 shapes;
    // 80-bit logarithms and exponentials cost three times as much), its
    // rounding counted in double units below.
    const double theta = theta_step * double(k);
    double log_phi = 0;
    for (std::size_t j = 0; j < terms_.size(); ++j) {
      interrupts.poll_every(k * terms_.size() + j);
      const double y = b * terms_[j].weight * theta;
      log_phi -= terms_[j].count * std::log1p(y * y);
    }
    const long double phi = std::exp(log_phi);
    const long double term = 2 / (kPi * (long double)k) * phi;
    // The term's rounding: log phi's, in double (y within 4 units moves
    // each log1p(y^2) by 8 y^2/(1 + y^2) <= 12 log1p(y^2) units, and each
    // log1p, product and sum adds some; the exponential |log phi| + 1 more),
    // the rotation's (a few units per
    // step of a run), the summation's (K units of each term).
    rounding += term * ((4 * weight_count + 30 + 14 * std::fabs((long double)log_phi)) * kDoubleUnitLong +
                        (4 * kRotationRun + (long double)n_terms) * kLongUnit);
    phi_.push_back(phi);
    // The terms k' = k + 1 .. K: at most (2/pi) phi_k sum 1/k' <= (2/pi) phi_k ln(K/k).
    const long double rest = 2 / kPi * phi * std::log((long double)n_terms / (long double)k);
    if (rest < 1e-17L) {
      truncation_ += double(rest);
      break;
    }
  }
  rounding_ = double(rounding) + 8 * 0x1p-53;
}

void LaplaceCombination::series(double x, long double& value, long double& slope, const Interrupts& interrupts) const {
  const long double r = (long double)x / (long double)period_half_;
  long double sum_sin = 0, sum_cos = 0;
  const long double step_c = std::cos(kPi * r), step_s = std::sin(kPi * r);
  long double c = 0, s = 0;
  for (std::size_t i = 0; i < phi_.size(); ++i) {
    const std::size_t k = i + 1;
    if (i % kRotationRun == 0) {
      interrupts.poll();
      // pi k r reduced modulo 2 pi exactly enough: k r mod 2.
      const long double turns = std::fmod((long double)k * r, 2.0L);
      c = std::cos(kPi * turns);
      s = std::sin(kPi * turns);
    } else {
      const long double next_c = c * step_c - s * step_s;
      s = s * step_c + c * step_s;
      c = next_c;
    }
    sum_sin += phi_[i] * s / (long double)k;
    sum_cos += phi_[i] * c;
  }
  value = r + 2 / kPi * sum_sin;
  slope = (1 + 2 * sum_cos) / (long double)period_half_;
}

double LaplaceCombination::alias_bound(double t) const {
  if (!(t > 0)) return 1;
  double best = 1;
  for (std::size_t i = 0; i < chernoff_lambda_.size(); ++i)
    best = std::min(best, 2 * std::exp(-chernoff_lambda_[i] * t + chernoff_log_mgf_[i]) * (1 + 1e-12));
  return best;
}

CoverageBounds LaplaceCombination::coverage(double x, const Interrupts& interrupts, double* slope) const {
  if (!(x >= 0) || !(x <= ceiling_))
    throw InvalidArgument("a Laplace combination's coverage is asked within [0, its ceiling]");
  CoverageBounds out;
  if (single_) {
    // Laplace(b |v|): P(|X| <= x) = 1 - e^(-x/(b |v|)), to a few units.
    const long double scale = (long double)b_ * terms_[0].weight;
    const double p = double(-std::expm1(-(long double)x / scale));
    if (slope != nullptr) *slope = double(std::exp(-(long double)x / scale) / scale);
    out.lower = std::clamp(p - 8 * 0x1p-53, 0.0, 1.0);
    out.upper = std::clamp(p + 8 * 0x1p-53, 0.0, 1.0);
    return out;
  }
  long double value = 0, derivative = 0;
  series(x, value, derivative, interrupts);
  if (slope != nullptr) *slope = double(derivative);
  const double v = double(value);
  out.lower = std::clamp(v - truncation_ - rounding_ - alias_bound(2 * period_half_ - x), 0.0, 1.0);
  out.upper = std::clamp(v + truncation_ + rounding_, 0.0, 1.0);
  return out;
}

RealQuantile laplace_combination_quantile(double b, std::vector<LaplaceTerm> terms, double level,
                                          const Interrupts& interrupts, double max_work) {
  check_level(level);
  double variance = 0;
  for (const LaplaceTerm& t : terms) variance += 2 * b * b * t.count * t.weight * t.weight;
  // Chebyshev's half-width covers whatever the law: the search's ceiling.
  const double ceiling = chebyshev_half_width(variance, level);
  const LaplaceCombination law(b, std::move(terms), ceiling, interrupts, max_work);
  // Safeguarded Newton on the enclosure's midpoint, bracketed in [lo, hi]
  // (the coverage's derivative is twice the density at x).
  double lo = 0, hi = ceiling;
  double x = std::clamp(normal_half_width(law.variance(), level), lo, hi);
  for (int iteration = 0; iteration < 200; ++iteration) {
    double slope = 0;
    const CoverageBounds c = law.coverage(x, interrupts, &slope);
    const double mid = (c.lower + c.upper) / 2;
    (mid < level ? lo : hi) = x;
    if (hi - lo <= 1e-3 * kQuantileResolution * hi) break;
    const double next = slope > 0 ? x - (mid - level) / slope : (lo + hi) / 2;
    if (std::fabs(next - x) <= 1e-3 * kQuantileResolution * x) {
      hi = std::max(x, next);  // converged: the widening below certifies it
      break;
    }
    x = next > lo && next < hi ? next : (lo + hi) / 2;
  }
  // The least x found, certified: widened until its lower coverage reaches
  // the level.
  RealQuantile out;
  out.work = law.work();
  double candidate = std::min(hi * (1 + kQuantileResolution / 4), ceiling);
  for (double widen = kQuantileResolution / 2;; widen *= 4) {
    interrupts.poll();
    const CoverageBounds c = law.coverage(candidate, interrupts);
    if (c.lower >= level) {
      out.coverage_lower = c.lower;
      break;
    }
    if (candidate >= ceiling) {
      // Chebyshev's bound covers; the enclosure could not say more.
      out.half_width = ceiling;
      out.coverage_lower = level;
      out.narrower_upper = 1;
      out.exact = false;
      return out;
    }
    candidate = std::min(candidate * (1 + widen), ceiling);
  }
  out.half_width = candidate;
  out.narrower_upper = law.coverage(candidate * (1 - kQuantileResolution), interrupts).upper;
  out.exact = out.narrower_upper < level;
  return out;
}

}  // namespace invariant_dp::accuracy
