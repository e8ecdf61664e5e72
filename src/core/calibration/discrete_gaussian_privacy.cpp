// Certified (eps, delta) of independent discrete Gaussian noise N_Z(0, sigma2)
// per cell: Canonne, Kamath, Steinke (2020), "The Discrete Gaussian for
// Differential Privacy" (arXiv 2004.00010): the exact privacy loss of
// section 2.1 (Theorem 7 in one dimension) and the conversion from
// concentrated DP of section 2.3 (Corollary 13). Neighbours move
// `moved_cells` in {1, 2} cells by one each; by the symmetry of the law the
// signs do not matter.
//
// What is certified: discrete_gaussian_delta returns an upper bound on
//   delta(eps) = E_P[max(0, 1 - exp(eps - L))],
// L the privacy loss, for the exact rational sigma2 given. It is the smaller
// of two valid bounds:
//  * exact sum (sigma2 <= kExactSumMaxSigma2): with w(y) = exp(-y^2/(2 sigma2))
//    and Z = sum_y w(y), h(L) = max(0, -expm1(eps - L)),
//      1 cell:  L(y) = (1 - 2y) / (2 sigma2),  delta = sum_y w(y) h(L(y)) / Z;
//      2 cells: the loss depends on z = y1 - y2 only, L(z) = (1 - z) / sigma2,
//      and completing the square gives the law of z in closed form,
//      P(z) = exp(-z^2/(4 sigma2)) T(z mod 2) / Z^2 with
//      T(0) = sum_y exp(-y^2/sigma2), T(1) = sum_y exp(-(y-1/2)^2/sigma2),
//      so no convolution is needed.
//    Every sum is truncated with a proved Gaussian tail bound: the
//    normaliser Z is bounded below, T and the delta sum above (their tails
//    added). The result is multiplied by (1 + kRoundingMargin) for the
//    floating-point error of exp/expm1, of summing < 10^6 positive terms
//    (relative error < 10^6 * 2^-53 ~ 1e-10) and of converting
//    sigma2 = num/den to double.
//  * zCDP: N_Z(0, sigma2) on moved_cells cells is rho-zCDP with
//    rho = moved_cells / (2 sigma2) (CKS section 2.2, independent
//    coordinates), and rho-zCDP implies (eps, delta) with
//    delta = exp((a-1)(a rho - eps)) / (a-1) * (1 - 1/a)^a for every a > 1
//    (Corollary 13); any a gives a valid bound, the minimiser is found by
//    bisection.
// discrete_gaussian_sigma2 returns the rational sigma2 (rational_at_least)
// just above the smallest sigma2 this bound certifies, within 0.1%, and
// re-certifies the rational itself. The bound is not monotone in sigma2, so
// this is not a plain bisection: see "The calibration problem" below.
#include "discrete_gaussian_privacy.hpp"
#include "zcdp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "../errors.hpp"
#include "analytic_gaussian.hpp"

namespace invariant_dp {
namespace {

// Above this sigma2 the exact sums (O(sigma) terms) are skipped.
constexpr double kExactSumMaxSigma2 = 1e8;
constexpr double kRoundingMargin = 1e-9;
// Variances beyond this are refused (uint64 numerators over 2^20 stop at
// 1.7e13, and such noise would swamp any count).
constexpr double kMaxSigma2 = 1e13;
// Sums stop once the proved bound on the rest is below this fraction of the
// partial sum (the rest is then added, so this costs tightness, not safety).
constexpr double kTailRelative = 1e-14;

void check_target_epsilon(double epsilon) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw InvalidArgument("epsilon must be positive and finite",
                          "Epsilon is " + format_double(epsilon) + ".");
}

void check_moved_cells(int moved_cells) {
  if (moved_cells != 1 && moved_cells != 2)
    throw InvalidArgument("number of moved cells must be 1 or 2",
                          "It is " + std::to_string(moved_cells) + ".");
}

// Bound on sum_{j >= 0} exp(-(t + j)^2 / (2 s2)) for t >= 0: since
// (t+j)^2 >= t^2 + (2t+1) j for integer j >= 0, a geometric series.
double gaussian_tail_bound(double t, double s2) {
  return std::exp(-t * t / (2 * s2)) / -std::expm1(-(2 * t + 1) / (2 * s2));
}

struct Bounds {
  double lower, upper;
};

// sum_{k >= 0} exp(-(d0 + k)^2 / (2 s2)) for d0 >= 0, bracketed.
Bounds half_line_sum(double d0, double s2) {
  double sum = 0;
  // Ends: called with s2 <= kExactSumMaxSigma2 and d0 < 1: the tail bound falls below 1e-14 of the sum within
  // 10 sqrt(s2) terms.
  for (double t = d0;; t += 1) {
    sum += std::exp(-t * t / (2 * s2));
    const double rest = gaussian_tail_bound(t + 1, s2);
    if (rest <= kTailRelative * sum) return Bounds{sum, sum + rest};
  }
}

// sum_{y in Z} exp(-(y - c)^2 / (2 s2)) for c in [0, 1), bracketed.
Bounds shifted_theta(double c, double s2) {
  const Bounds left = half_line_sum(c, s2), right = half_line_sum(1 - c, s2);
  return Bounds{left.lower + right.lower, left.upper + right.upper};
}

// Upper bound on sum_{z <= z_hi} weight(z) * max(0, -expm1(eps - loss(z))),
// given 0 <= weight(z) <= weight_max * exp(-z^2 / (2 s2)).
template <typename Weight, typename Loss>
double loss_tail_sum(double z_hi, double s2, double weight_max, double eps, Weight weight,
                     Loss loss) {
  std::int64_t z = static_cast<std::int64_t>(std::max(z_hi, -1e15));
  double sum = 0;
  // Ends: z starts at 2 or below (s2 eps >= 0), and the callers keep s2 <= kExactSumMaxSigma2: the tail
  // bound falls under 1e-14 of the sum within 10 sqrt(s2) = 10^5 terms of the peak.
  for (;; --z) {
    const double zd = static_cast<double>(z);
    sum += weight(zd) * std::max(0.0, -std::expm1(eps - loss(zd)));
    if (z > 1) continue;
    const double rest = weight_max * gaussian_tail_bound(1 - zd, s2);  // z' <= z - 1
    if (rest <= kTailRelative * sum) return sum + rest;
  }
}

double exact_delta_one_cell(double eps, double sigma2) {
  const double z_lower = shifted_theta(0, sigma2).lower;
  const double sum = loss_tail_sum(
      std::floor(0.5 - sigma2 * eps) + 2, sigma2, 1.0, eps,
      [&](double y) { return std::exp(-y * y / (2 * sigma2)); },
      [&](double y) { return (1 - 2 * y) / (2 * sigma2); });
  return sum / z_lower;
}

double exact_delta_two_cells(double eps, double sigma2) {
  const double z_lower = shifted_theta(0, sigma2).lower;
  const double theta[2] = {shifted_theta(0, sigma2 / 2).upper,
                           shifted_theta(0.5, sigma2 / 2).upper};
  const double sum = loss_tail_sum(
      std::floor(1 - sigma2 * eps) + 2, 2 * sigma2, std::max(theta[0], theta[1]), eps,
      [&](double z) {
        return std::exp(-z * z / (4 * sigma2)) * theta[std::fmod(std::fabs(z), 2.0) != 0];
      },
      [&](double z) { return (1 - z) / sigma2; });
  return sum / (z_lower * z_lower);
}

// The smaller of the two bounds for sigma2 (a double standing for the exact
// rational; its rounding is inside kRoundingMargin).
double delta_bound(double epsilon, double s2, int moved_cells) {
  double delta = zcdp_delta(epsilon, moved_cells / (2 * s2));
  if (s2 <= kExactSumMaxSigma2) {
    const double exact = moved_cells == 1 ? exact_delta_one_cell(epsilon, s2)
                                          : exact_delta_two_cells(epsilon, s2);
    delta = std::min(delta, exact * (1 + kRoundingMargin));
  }
  return std::min(delta, 1.0);
}

[[noreturn]] void throw_too_large(double epsilon, double delta) {
  throw OutOfRange("epsilon and delta require a discrete gaussian variance that is too large",
                   "Epsilon is " + format_double(epsilon) + ", delta is " +
                       format_double(delta) + ".");
}

// The calibration problem: which sigma2 certify (epsilon, delta)?
//
// The exact bound is not monotone in sigma2 (visibly so for eps >~ 2): the
// set {L > eps} changes at the breakpoints b_j = (j + 1/2)/eps (one cell)
// or (j + 1)/eps (two cells), where 1/2 - s2 eps or 1 - s2 eps crosses an
// integer. Between two breakpoints the bound rises (the law spreads) and
// then falls to a local minimum at the next breakpoint (the boundary term's
// factor 1 - e^{eps-L} reaches 0), and the minima f(b_j) decrease in j.
// Given these two shapes (checked in test_calibration), the smallest
// certifying sigma2 is the single crossing in the segment just below the
// first certifying breakpoint; that breakpoint is found by binary search.
struct Target {
  double epsilon, delta;
  int moved_cells;

  bool meets(double s2) const { return delta_bound(epsilon, s2, moved_cells) <= delta; }
  double offset() const { return moved_cells == 1 ? 0.5 : 1.0; }
  double breakpoint(double j) const { return (j + offset()) / epsilon; }
  // Breakpoint -1 stands for sigma2 -> 0, where the bound tends to 1.
  bool meets_at_breakpoint(double j) const { return j >= 0 && meets(breakpoint(j)); }
};

// Shrinks [lo, hi] with !meets(lo), meets(hi) to hi <= lo (1 + 2e-4).
Bounds bisect(const Target& t, double lo, double hi) {
  // Ends: geometric bisection between two variances below 1e13 to a relative 2e-4: under 40 passes.
  while (hi > lo * (1 + 2e-4)) {
    const double mid = std::sqrt(lo) * std::sqrt(hi);
    if (t.meets(mid)) hi = mid; else lo = mid;
  }
  return Bounds{lo, hi};
}

// The left end of the segment ending at `right`: breakpoint j, or for j = -1
// (the first segment) a point found by halving, which fails the target.
double segment_start(const Target& t, double j, double right) {
  if (j >= 0) return t.breakpoint(j);
  double left = right;
  // Ends: the delta bound tends to 1 > delta as s2 -> 0, and halving reaches 0 after about 1075 passes, where
  // meets fails.
  do left /= 2; while (t.meets(left));  // terminates: the bound -> 1 as s2 -> 0
  return left;
}

// [j_bad, j_ok] adjacent breakpoint indices, j_ok the first that certifies,
// searched by galloping from j_start and then bisecting; false if no
// breakpoint up to j_cap certifies.
bool first_certifying_breakpoint(const Target& t, double j_start, double j_cap, double* j_bad,
                                 double* j_ok) {
  double bad = j_start, ok = j_start;
  if (t.meets_at_breakpoint(j_start)) {
    // Ends: the step doubles and bad stops at breakpoint -1, which never meets: at most 64 passes.
    for (double step = 1; t.meets_at_breakpoint(bad); step *= 2) {
      ok = bad;
      bad = std::max(-1.0, ok - step);
    }
  } else {
    // Ends: ok reaches j_cap, which returns, within 64 doublings.
    for (double step = 1; !t.meets_at_breakpoint(ok); step *= 2) {
      if (ok >= j_cap) return false;
      bad = ok;
      ok = std::min(j_cap, bad + step);
    }
  }
  // Ends: bisection of breakpoint indices below 2^64: at most 64 passes.
  while (ok - bad > 1) {
    const double mid = std::floor((ok + bad) / 2);
    if (t.meets_at_breakpoint(mid)) ok = mid; else bad = mid;
  }
  *j_bad = bad;
  *j_ok = ok;
  return true;
}

// [lo, hi] around the smallest certifying sigma2: on the exact side
// (sigma2 <= kExactSumMaxSigma2) if it can certify there, else on the zCDP
// side, where the bound is decreasing (it jumps up across the cap).
Bounds smallest_certifying_range(const Target& t) {
  const double cap = kExactSumMaxSigma2;
  const double sigma = analytic_gaussian_sigma(t.epsilon, t.delta, std::sqrt(t.moved_cells));
  const double guess = sigma * sigma;  // the continuous answer: a good start
  const double j_cap = std::floor(cap * t.epsilon - t.offset());  // b_{j_cap} <= cap
  if (j_cap >= 0) {
    const double j_start = std::min(j_cap, std::max(0.0, std::floor(guess * t.epsilon)));
    double j_bad = -1, j_ok = -1;
    if (first_certifying_breakpoint(t, j_start, j_cap, &j_bad, &j_ok)) {
      const double right = t.breakpoint(j_ok);
      return bisect(t, segment_start(t, j_bad, right), right);
    }
    if (t.meets(cap)) return bisect(t, t.breakpoint(j_cap), cap);
  } else if (t.meets(cap)) {
    return bisect(t, segment_start(t, -1, cap), cap);
  }
  double lo = cap, hi = std::max(guess, 2 * cap);
  // Ends: hi doubles and past kMaxSigma2 the calibration is refused: at most 50 passes.
  while (!t.meets(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > kMaxSigma2) throw_too_large(t.epsilon, t.delta);
  }
  if (lo > kMaxSigma2) throw_too_large(t.epsilon, t.delta);
  return bisect(t, lo, hi);
}

// The smallest rational >= x certifying the target, with the least
// denominator bound (from 2^20 up) that keeps rounding within 0.05% of x.
// Larger bounds are tried if a breakpoint lies just above x.
Rational certified_rational_at_least(const Target& t, double x) {
  std::uint64_t max_den = std::uint64_t{1} << 20;
  // Ends: max_den reaches 2^40 within 5 passes.
  while (1.0 / static_cast<double>(max_den) > 5e-4 * x && max_den < (1ull << 40)) max_den <<= 4;
  for (; max_den <= (1ull << 48); max_den <<= 4) {
    const Rational r = rational_at_least(x, max_den);
    if (t.meets(r.to_double())) return r;
  }
  throw std::logic_error("discrete gaussian calibration failed to certify");  // bug guard
}

}  // namespace

double discrete_gaussian_delta(double epsilon, Rational sigma2, int moved_cells) {
  check_target_epsilon(epsilon);
  check_moved_cells(moved_cells);
  if (sigma2.num == 0 || sigma2.den == 0)
    throw InvalidArgument("variance must be positive",
                          "It is " + std::to_string(sigma2.num) + "/" +
                              std::to_string(sigma2.den) + ".");
  return delta_bound(epsilon, sigma2.to_double(), moved_cells);
}

Rational discrete_gaussian_sigma2(double epsilon, double delta, int moved_cells) {
  check_target_epsilon(epsilon);
  if (!(delta > 0 && delta < 1))
    throw InvalidArgument("delta must be between 0 and 1 exclusive",
                          "Delta is " + format_double(delta) + ".");
  check_moved_cells(moved_cells);
  const Target target{epsilon, delta, moved_cells};
  const Bounds range = smallest_certifying_range(target);
  return certified_rational_at_least(target, range.upper);
}

}  // namespace invariant_dp
