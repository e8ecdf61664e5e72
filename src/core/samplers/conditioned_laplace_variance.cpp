#include "conditioned_laplace_variance.hpp"

#include "../errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace invariant_dp {
namespace {

// Harmonic sums over fewer cells than this are added term by term.
constexpr double kDirectHarmonic = 1000;
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kZeta2 = 1.64493406684822643647;
constexpr double kZeta3 = 1.20205690315959428540;
// The sum below takes at most 40 * 64 terms up to the mode and, past it,
// fewer than 64 * 21 sqrt(2) (the weights fall by 1e-18 within 21 b, and b
// is below sqrt(2 / k) spreads); this bound is never reached by a law a
// release publishes, only by a malformed one.
constexpr std::uint32_t kMaxTerms = 100000;

// lgamma(n + k) - lgamma(n + 1), i.e. log (n+1)(n+2)...(n+k-1). At the
// totals a tiny epsilon gives (n ~ 10^14) each lgamma is ~10^16 and their
// difference would lose every digit; from Stirling's series,
//   (n + 1/2) log1p((k-1)/(n+1)) + (k-1)(log(n+k) - 1) + t(n+k) - t(n+1),
// t(y) = 1/(12y) - 1/(360y^3) + 1/(1260y^5), has no cancellation (error
// below 1e-12 for n + 1 >= 16; smaller n take lgamma directly).
double log_rising(double n, double k) {
  if (n + 1 < 16) return std::lgamma(n + k) - std::lgamma(n + 1);
  const auto t = [](double y) {
    const double r = 1 / y, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 / 1260));
  };
  return (n + 0.5) * std::log1p((k - 1) / (n + 1)) + (k - 1) * (std::log(n + k) - 1) + t(n + k) - t(n + 1);
}

// log of C(n+k-1, k-1)^2 a^(2n), up to a constant.
double log_weight(double n, double k, double log_a) { return 2 * log_rising(n, k) + 2 * n * log_a; }

// The spread of N around its mode m: 1 / sqrt(-(log w)''(m)), with the
// trigamma function approximated by 1/x + 1/(2x^2) (only the step of the sum
// depends on it). The difference of the two trigammas is written out, so
// that it keeps its digits at modes far beyond 2^53 (a subtraction of the
// two would give 0 there).
double spread_at(double m, double k) {
  const double p = m + 1, q = m + k;
  const double curvature = 2 * (k - 1) / (p * q) * (1 + (p + q) / (2 * p * q));
  return curvature > 0 && std::isfinite(curvature) ? 1 / std::sqrt(curvature) : 1;
}

// The first three derivatives of log w at n = 0, from the polygamma
// functions: 2 (psi(k) - psi(1)) + 2 log a = 2 H_{k-1} + 2 log a, then
// -2 sum 1/i^2 and 4 sum 1/i^3 over i < k (needed only while the weights
// reach n = 0, i.e. for groups of fewer than about 800 cells).
struct LogDerivatives {
  double d1, d2, d3;
};

LogDerivatives log_derivatives_at_zero(double k, double log_a) {
  double h1 = 0, h2 = 0, h3 = 0;
  if (k <= kDirectHarmonic) {
    for (std::uint32_t i = 1; i < std::uint32_t(k); ++i) {
      const double x = i;
      h1 += 1 / x;
      h2 += 1 / (x * x);
      h3 += 1 / (x * x * x);
    }
  } else {
    // The sums over i < k from their asymptotic series at k (Abramowitz and
    // Stegun 6.3.18, 6.4.12): H_{k-1} = psi(k) + gamma, and the tails of
    // zeta(2) and zeta(3) from k on; truncation below 1e-17 for k > 1000.
    const double r = 1 / k, r2 = r * r;
    h1 = std::log(k) - r / 2 - r2 * (1.0 / 12 - r2 / 120) + kEulerGamma;
    h2 = kZeta2 - r * (1 + r / 2 + r2 / 6 - r2 * r2 / 30);
    h3 = kZeta3 - r2 * (0.5 + r / 2 + r2 / 4 - r2 * r2 / 12);
  }
  return {2 * h1 + 2 * log_a, -2 * h2, 4 * h3};
}

}  // namespace

// Sum_n w(n) and Sum_n w(n) n (n + k) over n >= 0. Summed at every integer
// that is O(spread) terms, 10^8 and more at the scales a tiny epsilon gives
// (an attack once hung a backend here). Instead the sums are taken at a step
// h = spread / 64 on a grid that starts at 0 (or where the weights are below
// 1e-18 of the mode's, 40 spreads below it), as the trapezoid rule, and the
// integer sums recovered by Euler-Maclaurin: with T_h the trapezoid sum,
//   Sum_{n>=0} f(n) = T_h + f(0)/2 + (h^2 - 1)/12 f'(0) - (h^4 - 1)/720 f'''(0) + R,
// the endpoint terms at infinity vanishing and the derivatives at 0 exact
// (log_derivatives_at_zero). R holds the fifth and higher
// derivatives at 0 and, in the bulk, the aliasing error of a smooth unimodal
// function sampled at 64 points per spread (about exp(-2 pi^2 64^2)). With
// h = 1 the formula is the plain sum. Checked against the sum over every
// integer (test_integer_laplace.cpp): agreement within 1e-9
// relative for groups of 2 to 1000 cells and scales up to 20000, and with the
// k = 2 closed form at scales up to 2e8. At most a few thousand terms.
double conditioned_laplace_variance(Rational scale, std::size_t cells) {
  if (cells < 2) return 0;
  const double k = double(cells);
  const double log_a = -double(scale.den) / double(scale.num);
  const double a = std::exp(log_a);
  // w(n+1)/w(n) = ((n+k)/(n+1))^2 a^2 >= 1 up to the mode (n+k) a = n+1.
  const double mode = std::max(0.0, std::floor((k * a - 1) / -std::expm1(log_a)));
  if (!(mode < 0x1p62)) throw OutOfRange("the conditioned Laplace variance cannot be computed at this scale");
  const double log_mode = log_weight(mode, k, log_a);
  const double spread = spread_at(mode, k);
  const double h = std::max(1.0, std::floor(spread / 64));
  const double first = std::max(0.0, std::floor((mode - 40 * spread) / h) * h);
  const auto weight = [&](double n) { return std::exp(log_weight(n, k, log_a) - log_mode); };

  double total = 0, moment = 0;
  bool converged = false;
  for (std::uint32_t term = 0; term < kMaxTerms; ++term) {
    const double n = first + double(term) * h;
    const double w = weight(n);
    const double c = n == 0 ? 0.5 : 1.0;
    total += c * w;
    moment += c * w * n * (n + k);
    if (n > mode && w < 1e-18 * total) {
      converged = true;
      break;
    }
  }
  if (!converged) throw OutOfRange("the conditioned Laplace variance cannot be computed at this scale");
  total *= h;
  moment *= h;
  if (first == 0 && h > 1) {
    // w' = w L', w'' = w (L'' + L'^2), w''' = w (L''' + 3 L' L'' + L'^3); for
    // the moment f = w g with g = n (n + k): g(0) = 0, g'(0) = k, g'' = 2.
    const LogDerivatives l = log_derivatives_at_zero(k, log_a);
    const double w0 = weight(0), w1 = w0 * l.d1, w2 = w0 * (l.d2 + l.d1 * l.d1),
                 w3 = w0 * (l.d3 + 3 * l.d1 * l.d2 + l.d1 * l.d1 * l.d1);
    const double c1 = (h * h - 1) / 12, c3 = (h * h * h * h - 1) / 720;
    total += w0 / 2 + c1 * w1 - c3 * w3;
    moment += c1 * (w0 * k) - c3 * (3 * w2 * k + 6 * w1);
  } else if (first == 0) {
    total += weight(0) / 2;  // h = 1: the trapezoid's half weight at 0 made whole
  }
  return 2 * (k - 1) * (moment / total) / (k * k * (k + 1));
}

}  // namespace invariant_dp
