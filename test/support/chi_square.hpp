// Chi-square machinery shared by the statistical tests: the regularized
// upper incomplete gamma function, critical values at a chosen false-failure
// rate, goodness of fit with pooled small bins, and the two-sample
// (homogeneity) test. Each returns the statistic, its degrees of freedom and
// the critical value at kAlpha = 1e-6.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace invariant_dp::chi_square_test {

constexpr double kAlpha = 1e-6;


inline double gamma_q(double a, double x) {
  if (x <= 0) return 1.0;
  const double log_prefix = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 100000 && std::fabs(term) > std::fabs(sum) * 1e-17; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return 1.0 - sum * std::exp(log_prefix);
  }
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    if (std::fabs(d * c - 1) < 1e-16) break;
  }
  return std::exp(log_prefix) * h;
}

inline double chi2_critical(int df, double p) {
  double lo = 0, hi = df + 10.0;
  while (gamma_q(df / 2.0, hi / 2) > p) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (gamma_q(df / 2.0, mid / 2) > p ? lo : hi) = mid;
  }
  return hi;
}

struct ChiSquare {
  double statistic = 0;
  int df = 0;
  double critical = 0;
  bool passes() const { return statistic < critical; }
};

inline void report(const std::string& what, const ChiSquare& r) {
  std::cout << "[stat] " << what << ": chi2 = " << r.statistic << ", df = " << r.df
            << ", critical(p=1e-6) = " << r.critical << "\n";
}

// Goodness of fit of counts to probabilities prob (the full law's mass at
// each listed category). Categories expecting >= 5 are bins of their own;
// every other category, listed or not, is pooled into one bin, which is
// merged into the smallest bin if it expects < 5.
template <class K>
inline ChiSquare goodness_of_fit(const std::map<K, double>& prob, const std::map<K, std::int64_t>& counts, double n) {
  std::map<K, std::size_t> bin_of;
  std::vector<double> expected, observed;
  double listed = 0;
  for (const auto& [key, p] : prob) {
    if (n * p < 5) continue;
    bin_of[key] = expected.size();
    expected.push_back(n * p);
    listed += p;
  }
  const std::size_t rest = expected.size();
  expected.push_back(n * (1 - listed));
  observed.assign(expected.size(), 0.0);
  for (const auto& [key, c] : counts) {
    auto it = bin_of.find(key);
    observed[it == bin_of.end() ? rest : it->second] += c;
  }
  if (expected[rest] < 5) {
    const auto smallest = std::min_element(expected.begin(), expected.end() - 1) - expected.begin();
    expected[smallest] += expected[rest];
    observed[smallest] += observed[rest];
    expected.pop_back();
    observed.pop_back();
  }
  ChiSquare r;
  for (std::size_t i = 0; i < expected.size(); ++i)
    r.statistic += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  r.df = static_cast<int>(expected.size()) - 1;
  r.critical = chi2_critical(r.df, kAlpha);
  return r;
}

// Two-sample chi-square (homogeneity): sum (sqrt(nb/na) a - sqrt(na/nb) b)^2
// / (a + b) over bins, df = bins - 1; categories with a + b < 10 pooled.
inline ChiSquare two_sample(const std::map<std::int64_t, std::int64_t>& a, double na,
                     const std::map<std::int64_t, std::int64_t>& b, double nb) {
  std::map<std::int64_t, std::pair<double, double>> both;
  for (const auto& [k, c] : a) both[k].first += c;
  for (const auto& [k, c] : b) both[k].second += c;
  std::vector<std::pair<double, double>> bins;
  std::pair<double, double> pooled{0, 0};
  for (const auto& [k, ab] : both) {
    if (ab.first + ab.second >= 10) {
      bins.push_back(ab);
    } else {
      pooled.first += ab.first;
      pooled.second += ab.second;
    }
  }
  if (pooled.first + pooled.second >= 10 || bins.empty()) {
    bins.push_back(pooled);
  } else {
    bins.back().first += pooled.first;
    bins.back().second += pooled.second;
  }
  ChiSquare r;
  const double ka = std::sqrt(nb / na), kb = std::sqrt(na / nb);
  for (const auto& [x, y] : bins) r.statistic += (ka * x - kb * y) * (ka * x - kb * y) / (x + y);
  r.df = static_cast<int>(bins.size()) - 1;
  r.critical = chi2_critical(r.df, kAlpha);
  return r;
}

}  // namespace invariant_dp::chi_square_test
