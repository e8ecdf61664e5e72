// Exact laws of the noise a mechanism adds, for the statistical tests of
// test/stat/mechanisms: the discrete Laplace and the discrete Gaussian
// (any symmetric weight on the integers), the difference of two
// independent draws of a law, the continuous laws of a projected pair, and
// the tests against them: chi-square goodness of fit (chi_square.hpp) and
// Kolmogorov-Smirnov at false-failure rate 1e-6 (critical value from the
// Dvoretzky-Kiefer-Wolfowitz-Massart inequality, as in stat_samplers.cpp).
// Each pmf is summed out to where a term falls below 1e-18 of the mode, so
// the mass it leaves out is far below what 10^6 draws can see.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"

namespace invariant_dp::noise_laws {

using Pmf = std::map<std::int64_t, double>;

// P(k) proportional to weight(k), weight even and falling in |k|.
inline Pmf symmetric_pmf(const std::function<double(std::int64_t)>& weight) {
  Pmf p;
  const double mode = weight(0);
  double total = 0;
  for (std::int64_t k = 0; k == 0 || weight(k) > 1e-18 * mode; ++k) {
    p[k] = p[-k] = weight(k);
    total += k == 0 ? weight(k) : 2 * weight(k);
  }
  for (auto& [k, v] : p) v /= total;
  return p;
}

// P(k) proportional to exp(-|k| / b).
inline Pmf discrete_laplace(double b) {
  return symmetric_pmf([b](std::int64_t k) { return std::exp(-double(std::llabs(k)) / b); });
}

// P(k) proportional to exp(-k^2 / (2 sigma2)).
inline Pmf discrete_gaussian(double sigma2) {
  return symmetric_pmf([sigma2](std::int64_t k) { return std::exp(-double(k) * double(k) / (2 * sigma2)); });
}

// The law of e1 - e2 for e1, e2 independent with law p.
inline Pmf difference(const Pmf& p) {
  Pmf d;
  for (const auto& [a, pa] : p)
    for (const auto& [b, pb] : p) d[a - b] += pa * pb;
  return d;
}

// The law of f(k) for k with law p.
inline Pmf image(const Pmf& p, const std::function<std::int64_t(std::int64_t)>& f) {
  Pmf out;
  for (const auto& [k, v] : p) out[f(k)] += v;
  return out;
}

inline std::map<std::int64_t, std::int64_t> histogram(const std::vector<std::int64_t>& draws) {
  std::map<std::int64_t, std::int64_t> h;
  for (std::int64_t d : draws) ++h[d];
  return h;
}

// Chi-square goodness of fit of the draws to the law, reported.
inline chi_square_test::ChiSquare fit(const std::string& what, const Pmf& law, const std::vector<std::int64_t>& draws) {
  const auto r = chi_square_test::goodness_of_fit(law, histogram(draws), double(draws.size()));
  chi_square_test::report(what, r);
  return r;
}

// sqrt(N) times the Kolmogorov-Smirnov distance of the draws from cdf.
inline double ks_statistic(std::vector<double> draws, const std::function<double(double)>& cdf) {
  std::sort(draws.begin(), draws.end());
  const double n = double(draws.size());
  double d = 0;
  for (std::size_t i = 0; i < draws.size(); ++i) {
    const double f = cdf(draws[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return std::sqrt(n) * d;
}

// P(sqrt(N) D > x) <= 2 exp(-2 x^2) for every N: 1e-6 at x = sqrt(ln(2e6) / 2).
constexpr double kKsCritical = 2.6941;

inline double normal_cdf(double x, double sd) { return 0.5 * std::erfc(-x / (sd * std::sqrt(2.0))); }

// The law of (e1 - e2) / 2 for e1, e2 independent continuous Laplace(b):
// e1 - e2 has density (1 + |d|/b) exp(-|d|/b) / (4b), so
// P((e1 - e2)/2 > s) = (1 + s/b) exp(-2s/b) / 2 for s >= 0.
inline double half_laplace_difference_cdf(double s, double b) {
  const double tail = 0.5 * (1 + std::fabs(s) / b) * std::exp(-2 * std::fabs(s) / b);
  return s < 0 ? tail : 1 - tail;
}

inline double laplace_cdf(double x, double b) {
  return x < 0 ? 0.5 * std::exp(x / b) : 1 - 0.5 * std::exp(-x / b);
}

}  // namespace invariant_dp::noise_laws
