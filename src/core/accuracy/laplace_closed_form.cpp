// Laplace combinations in closed form (laplace_closed_form.hpp;
// DERIVATIONS.md, section 18, "A group's cell in closed form").
#include "laplace_closed_form.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "laplace_combination.hpp"

namespace invariant_dp::accuracy {
namespace {

using Real = long double;  // its exponent range holds e^(-z) for any z asked here
constexpr Real kUnit = 0x1p-64L;
// A weight carried once must be at least this multiple of the other
// (below it the integral of e^((1/r - 1) s) is no Poisson probability).
constexpr double kMinRatio = 1.5;
// The weights d_k / beta1^(k+1) grow by r/(r - 1) a step: at most e^40
// times d_k (so in double's range, and the sums' rounding small beside
// what they add up to). A group's cell has m ln(m/(m - 1)) < 1.
constexpr double kMaxLogGrowth = 40;
bool growth_fits(double r, std::size_t m) { return r == 0 || double(m) * std::log(r / (r - 1)) <= kMaxLogGrowth; }
// The Poisson probabilities are read until they fall below this (their
// rest then bounded by a geometric series).
constexpr Real kNegligible = 1e-24L;

// 1/i for i <= 2 kMaxClosedFormVariables, in double (each within a unit
// of it): a law's weights multiply by them (a chain of divisions was most
// of a law's set-up).
const std::vector<double>& inverses() {
  static const std::vector<double> table = [] {
    std::vector<double> out(2 * kMaxClosedFormVariables + 1, 0);
    for (std::size_t i = 1; i < out.size(); ++i) out[i] = 1 / double(i);
    return out;
  }();
  return table;
}

// Poisson(z) probabilities p_i on [lo, hi] within [0, m - 1] (each within a
// relative `error`), the mass below lo at most `below`, and the mass above
// hi in [above_low, above_high].
struct PoissonWindow {
  std::size_t lo = 0, hi = 0;
  std::vector<Real> p;  // p[i - lo]
  Real below = 0, above_low = 0, above_high = 0, error = 0;
  Real at(std::size_t i) const { return p[i - lo]; }
};

void poisson_window(Real z, std::size_t m, PoissonWindow& out, const Interrupts& interrupts) {
  out.p.clear();
  out.below = out.above_low = out.above_high = 0;
  if (z == 0) {  // all its mass at 0
    out.lo = out.hi = 0;
    out.p.push_back(1);
    out.error = 0;
    return;
  }
  // From the mode (clipped to m - 1) outward, each step a ratio below 1:
  // nothing overflows, and long double's range holds what would underflow.
  const auto top = static_cast<std::size_t>(std::min<Real>(Real(m - 1), std::floor(z)));
  const Real log_z = std::log(z), inverse_z = 1 / z;
  const Real at_top = std::exp(-z + Real(top) * log_z - std::lgamma(Real(top) + 1));
  // Down: p_(i-1) = p_i i / z, until negligible (written from the top
  // down, then turned).
  out.p.push_back(at_top);
  std::size_t lo = top;
  while (lo > 0 && !(out.p.back() < kNegligible)) {
    interrupts.poll_every(lo);
    out.p.push_back(out.p.back() * Real(lo) * inverse_z);
    --lo;
  }
  if (lo > 0) {  // the rest falls by at most lo / z < 1 a step
    const Real ratio = Real(lo) * inverse_z;
    out.below = ratio < 1 ? out.p.back() * ratio / (1 - ratio) : 1;
  }
  out.lo = lo;
  std::reverse(out.p.begin(), out.p.end());
  // Up: p_(i+1) = p_i z / (i + 1), until negligible or m - 1.
  std::size_t hi = top;
  while (hi + 1 < m && !(out.p.back() < kNegligible && z < Real(hi + 1))) {
    interrupts.poll_every(hi);
    out.p.push_back(out.p.back() * z / Real(hi + 1));
    ++hi;
  }
  out.hi = hi;
  // The mode's exponent within a few units of its parts, then three
  // roundings a step.
  out.error =
      (4 * (z + Real(top) * std::fabs(log_z) + std::lgamma(Real(top) + 1)) + 3 * Real(out.p.size()) + 8) * kUnit;
  Real window = 0;
  for (const Real p : out.p) window += p;
  const Real window_low = window * (1 - out.error - Real(out.p.size()) * kUnit);
  const Real window_high = window * (1 + out.error + Real(out.p.size()) * kUnit);
  if (hi + 1 < m || z < Real(hi + 1)) {
    // Past hi the terms fall by z/(i + 1) < 1 each: summed until
    // negligible (at once when hi < m - 1), the rest geometric.
    Real term = out.p.back() * z / Real(hi + 1), sum = 0;
    for (std::size_t i = hi + 1;; ++i) {
      interrupts.poll_every(i);
      const Real ratio = z / Real(i + 1);
      if (term < kNegligible || term == 0) {
        out.above_low = sum * (1 - out.error - Real(i - hi) * kUnit);
        out.above_high = sum * (1 + out.error + Real(i - hi) * kUnit) + term / (1 - ratio);
        break;
      }
      sum += term;
      term *= ratio;
    }
  } else {
    // z >= m: the mass above m - 1 is at least about a half, 1 less the rest.
    out.above_low = std::max<Real>(0, 1 - window_high - out.below);
    out.above_high = std::max<Real>(0, 1 - window_low);
  }
}

// sum_k w_k Q_k (Q_k = P(N <= k)) or, `above`, sum_k w_k P(N > k), enclosed.
struct Enclosed {
  Real low = 0, high = 0;
};
Enclosed weighted(const std::vector<double>& w, const std::vector<double>& sum, const PoissonWindow& n, bool above) {
  const std::size_t m = w.size();
  Enclosed out;
  Real cumulative = 0;
  if (!above) {
    // k < lo: Q_k in [0, below]; the window; k > hi: Q_k in [1 - above_high, 1].
    out.high += sum[n.lo] * n.below;
    for (std::size_t k = n.lo; k <= n.hi; ++k) {
      cumulative += n.at(k);
      out.low += w[k] * cumulative * (1 - n.error);
      out.high += w[k] * (cumulative * (1 + n.error) + n.below);
    }
    out.low += (sum[m] - sum[n.hi + 1]) * (1 - n.above_high);
    out.high += sum[m] - sum[n.hi + 1];
  } else {
    // k < lo: P(N > k) in [1 - below, 1]; the window, down from hi; k > hi:
    // P(N > k) in [0, above_high].
    out.low += sum[n.lo] * (1 - n.below);
    out.high += sum[n.lo];
    for (std::size_t k = n.hi + 1; k-- > n.lo;) {
      out.low += w[k] * (cumulative * (1 - n.error) + n.above_low);
      out.high += w[k] * (cumulative * (1 + n.error) + n.above_high);
      cumulative += n.at(k);
    }
    out.high += (sum[m] - sum[n.hi + 1]) * n.above_high;
  }
  return out;
}

}  // namespace

LaplaceClosedForm::LaplaceClosedForm(double unit, double r, std::size_t m) : unit_(unit), r_(r), m_(m) {
  if (!(unit > 0) || !std::isfinite(unit) || m < 1 || m > kMaxClosedFormVariables || !(r == 0 || r >= kMinRatio) ||
      !std::isfinite(r) || !growth_fits(r, m))
    throw InvalidArgument(
        "a Laplace closed form needs a positive unit, 1 to 1,000 variables and r = 0, or r >= 1.5 with m ln(r/(r - 1)) "
        "<= 40");
  // d_0 = C(2m - 2, m - 1) / 2^(2m - 1), d_(k+1) = d_k 2 (m - 1 - k) / (2m - 2 - k):
  // the partial products stay below 1e130 for m <= 1,000, d_(m-1) = 2^-m
  // above double's least normal. In double: a law's set-up is O(m).
  const std::vector<double>& inverse = inverses();
  double d = 0.5;
  for (std::size_t i = 1; i < m; ++i) d *= double(m - 1 + i) * inverse[i] * 0.25;
  const auto with_sums = [m](Weights& out) {
    out.sum.resize(m + 1);
    out.sum[0] = 0;
    for (std::size_t k = 0; k < m; ++k) out.sum[k + 1] = out.sum[k] + out.w[k];
  };
  d_.w.resize(m);
  for (std::size_t k = 0; k < m; ++k) {
    d_.w[k] = d;
    if (k + 1 < m) d *= double(2 * (m - 1 - k)) * inverse[2 * m - 2 - k];
  }
  with_sums(d_);
  if (r_ > 0) {
    const double over1 = 1 / (1 - 1 / r_), over2 = 1 / (1 + 1 / r_);
    over_beta1_.w.resize(m);
    over_beta2_.w.resize(m);
    double p1 = 1, p2 = 1;
    for (std::size_t k = 0; k < m; ++k) {
      p1 *= over1, p2 *= over2;
      over_beta1_.w[k] = d_.w[k] * p1;
      over_beta2_.w[k] = d_.w[k] * p2;
    }
    with_sums(over_beta1_);
    with_sums(over_beta2_);
  }
}

std::optional<LaplaceClosedForm> LaplaceClosedForm::of(double b, const std::vector<LaplaceTerm>& terms) {
  const auto whole = [](double count) {
    return count >= 1 && count <= double(kMaxClosedFormVariables) && count == std::floor(count);
  };
  if (terms.size() == 1 && whole(terms[0].count) && terms[0].count >= 2 && terms[0].weight > 0)
    return LaplaceClosedForm(b * terms[0].weight, 0, std::size_t(terms[0].count));
  if (terms.size() != 2) return std::nullopt;
  const bool first_once = terms[0].count == 1 && terms[0].weight > terms[1].weight;
  const LaplaceTerm& once = first_once ? terms[0] : terms[1];
  const LaplaceTerm& many = first_once ? terms[1] : terms[0];
  if (once.count != 1 || !whole(many.count) || !(many.weight > 0) || many.count + 1 > kMaxClosedFormVariables)
    return std::nullopt;
  const double r = once.weight / many.weight;
  if (!(r >= kMinRatio) || !std::isfinite(r) || !growth_fits(r, std::size_t(many.count))) return std::nullopt;
  return LaplaceClosedForm(b * many.weight, r, std::size_t(many.count));
}

CoverageBounds LaplaceClosedForm::coverage(double x, const Interrupts& interrupts, double* slope) const {
  if (!(x >= 0) || !std::isfinite(x)) throw InvalidArgument("a Laplace closed form's coverage is asked at x >= 0");
  interrupts.poll();  // its loops are short (the Poisson windows), and poll every 4,096 steps
  const Real y = Real(x) / Real(unit_);
  const std::size_t m = m_;
  PoissonWindow at_y;
  poisson_window(y, m, at_y, interrupts);
  // C1 = sum_k d_k Q_k(y), Q_k the Poisson(y) probability of at most k.
  const Enclosed c1 = weighted(d_.w, d_.sum, at_y, false);
  Real tail_low = 0, tail_high = 0, magnitude = 0, density = 0, windows = Real(at_y.p.size());
  if (r_ == 0) {
    // P(|T_m| > y) = 2 C1; T_m's density at y is sum_k d_k p_k(y).
    tail_low = 2 * c1.low, tail_high = 2 * c1.high, magnitude = tail_high;
    for (std::size_t k = at_y.lo; k <= at_y.hi; ++k) density += d_.w[k] * at_y.at(k);
  } else {
    const Real r = r_;
    PoissonWindow low, high;
    poisson_window((1 - 1 / r) * y, m, low, interrupts);
    poisson_window((1 + 1 / r) * y, m, high, interrupts);
    windows += Real(low.p.size() + high.p.size());
    // A = sum_k d_k P(N1 > k) / beta1^(k+1), D = sum_k d_k Q_k(beta2 y) / beta2^(k+1).
    const Enclosed a = weighted(over_beta1_.w, over_beta1_.sum, low, true);
    const Enclosed d = weighted(over_beta2_.w, over_beta2_.sum, high, false);
    const Real b = over_beta2_.sum[m];
    const Real e_minus = std::exp(-y / r), e_error = (std::fabs(y / r) + 4) * kUnit;
    // e^(y/r) D, D tiny where e^(y/r) would overflow: by logarithms.
    const auto grown = [&](Real v) { return v > 0 ? std::exp(y / r + std::log(v)) : Real(0); };
    const Real d_low = grown(d.low), d_high = grown(d.high);
    // P(|Y| > y) = e^(-y/r) (A + B) + (2 C1 - e^(y/r) D), e^(y/r) D <= C1
    // term by term: increasing in A and C1, decreasing in D.
    tail_low = e_minus * (1 - e_error) * (a.low + b) + 2 * c1.low - (1 + e_error) * d_high;
    tail_high = e_minus * (1 + e_error) * (a.high + b) + 2 * c1.high - (1 - e_error) * d_low;
    magnitude = e_minus * (a.high + b) + 2 * c1.high + d_high;
    density = (e_minus * (a.low + b) + d_low) / (2 * r);
  }
  // The weights (in double: d_k within 6m units, three a step; the powers
  // of 1/beta within 4m, their base's three units compounding; the prefix
  // sums m more) and the sums here, on everything added.
  const Real rounding = magnitude * (Real(12 * m + 20) * 0x1p-53L + Real(4 * windows + 40) * kUnit);
  tail_low = std::max<Real>(0, tail_low - rounding);
  tail_high += rounding;
  if (slope != nullptr) *slope = double(2 * density / Real(unit_));
  CoverageBounds out;
  out.lower = std::clamp(double(1 - tail_high) - 2 * 0x1p-53, 0.0, 1.0);
  out.upper = std::clamp(double(1 - tail_low) + 2 * 0x1p-53, 0.0, 1.0);
  return out;
}

}  // namespace invariant_dp::accuracy
