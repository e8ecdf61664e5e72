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
// sin and cos of pi k x/L are carried by rotations in double and taken
// afresh this often (each rotation adds a few units of rounding), in
// kLanes independent chains a term apart, each rotating by kLanes terms
// (one chain's latency was most of a term's cost).
constexpr std::size_t kRotationRun = 512;
constexpr std::size_t kLanes = 4;
static_assert(kRotationRun % kLanes == 0 && kLanes == 4, "the series adds up four lanes");
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
  closed_ = LaplaceClosedForm::of(b, terms_);
  if (closed_) return;

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
  term_.reserve(n_terms);
  // The terms and their rounding in double (a release takes a law for each
  // group size: 80-bit arithmetic here was most of a law's cost).
  double rounding = 0;
  const double weight_count = double(terms_.size());
  double direct_count = 0;  // weights carried by one variable
  for (const LaplaceTerm& t : terms_) direct_count += t.count == 1;
  const double theta_step = double(kPi) / period_half_;
  const double two_over_pi = double(2 / kPi);
  const double log_n_terms = std::log(double(n_terms));
  for (std::size_t k = 1; k <= n_terms; ++k) {
    const double theta = theta_step * double(k);
    double log_phi = 0, direct = 1;
    for (std::size_t j = 0; j < terms_.size(); ++j) {
      interrupts.poll_every(k * terms_.size() + j);
      const double y = b * terms_[j].weight * theta;
      // A weight carried once: its factor 1/(1 + y^2) as it is, a logarithm fewer.
      if (terms_[j].count == 1)
        direct *= 1 + y * y;
      else
        log_phi -= terms_[j].count * std::log1p(y * y);
    }
    const double phi = std::exp(log_phi) / direct;
    const double term = two_over_pi * phi / double(k);
    // The term's rounding: log phi's (y within 4 units moves each
    // log1p(y^2) by 8 y^2/(1 + y^2) <= 12 log1p(y^2) units, and each log1p,
    // product and sum adds some; the exponential |log phi| + 1 more), each
    // direct factor's (1 + y^2 within 11 units, its product 1 more), the
    // division and the term's three; then the series' (a few units per
    // rotation of a lane's run, the lane's sum of at most K/kLanes + 1
    // terms, the product and the lanes' two sums), all in double units.
    rounding += term * kDoubleUnit *
                ((4 * weight_count + 12 * direct_count + 34 + 14 * std::fabs(log_phi)) +
                 (4 * double(kRotationRun / kLanes) + double(n_terms) / kLanes + 4));
    phi_.push_back(phi);
    term_.push_back(term);
    // The terms k' = k + 1 .. K: at most (2/pi) phi_k sum 1/k' <= (2/pi) phi_k ln(K/k)
    // <= (2/pi) phi_k ln K (a logarithm a term cost as much as the rest of it).
    const double rest = two_over_pi * phi * log_n_terms;
    if (rest < 1e-17) {
      truncation_ += rest;
      break;
    }
  }
  // The sum of K positive terms in double: within K units of it, and K <= 2^26.
  rounding_ = rounding * (1 + 0x1p-20) + 8 * 0x1p-53;
}

void LaplaceCombination::series(double x, double& value, double& slope, const Interrupts& interrupts) const {
  const long double r = (long double)x / (long double)period_half_;
  // One step's rotation, in 80 bits; the lanes step kLanes of them at once.
  const long double c1 = std::cos(kPi * r), s1 = std::sin(kPi * r);
  const long double c2 = c1 * c1 - s1 * s1, s2 = 2 * s1 * c1;
  const double step_c = double(c2 * c2 - s2 * s2), step_s = double(2 * s2 * c2);
  double c[kLanes], s[kLanes], sum_sin[kLanes] = {}, sum_cos[kLanes] = {};
  const std::size_t n = phi_.size();
  for (std::size_t run = 0; run < n; run += kRotationRun) {
    interrupts.poll();
    // pi k r reduced modulo 2 pi exactly enough (k r mod 2) for the run's
    // first k, the next lanes' one 80-bit step apart.
    const long double turns = std::fmod((long double)(run + 1) * r, 2.0L);
    long double lc = std::cos(kPi * turns), ls = std::sin(kPi * turns);
    for (std::size_t lane = 0; lane < kLanes; ++lane) {
      c[lane] = double(lc), s[lane] = double(ls);
      const long double next_c = lc * c1 - ls * s1;
      ls = ls * c1 + lc * s1;
      lc = next_c;
    }
    const std::size_t end = std::min(n, run + kRotationRun);
    std::size_t i = run;
    for (; i + kLanes <= end; i += kLanes) {
      for (std::size_t lane = 0; lane < kLanes; ++lane) {
        sum_sin[lane] += term_[i + lane] * s[lane];
        sum_cos[lane] += phi_[i + lane] * c[lane];
        const double next_c = c[lane] * step_c - s[lane] * step_s;
        s[lane] = s[lane] * step_c + c[lane] * step_s;
        c[lane] = next_c;
      }
    }
    for (std::size_t lane = 0; i < end; ++i, ++lane) {
      sum_sin[lane] += term_[i] * s[lane];
      sum_cos[lane] += phi_[i] * c[lane];
    }
  }
  value = double(r) + ((sum_sin[0] + sum_sin[1]) + (sum_sin[2] + sum_sin[3]));
  slope = (1 + 2 * ((sum_cos[0] + sum_cos[1]) + (sum_cos[2] + sum_cos[3]))) / period_half_;
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
  if (closed_) return closed_->coverage(x, interrupts, slope);
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
  double v = 0, derivative = 0;
  series(x, v, derivative, interrupts);
  if (slope != nullptr) *slope = derivative;
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
    // Converged: a Newton step of d leaves an error of about C d^2 (C the
    // coverage's curvature over its slope, of order 1/x), so a step of
    // 1e-7 x leaves some 1e-14 x, far inside the resolution; the widening
    // below certifies whatever it left.
    if (slope > 0 && next > lo && next < hi && std::fabs(next - x) <= 1e-7 * x) {
      hi = next;
      break;
    }
    x = next > lo && next < hi ? next : (lo + hi) / 2;
  }
  // The least x found, certified: widened until its lower coverage reaches
  // the level.
  RealQuantile out;
  out.work = law.work();
  out.closed_form = law.closed_form();
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
