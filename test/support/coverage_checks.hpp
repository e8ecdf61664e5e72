// Coverage tests of error bars (test/stat/accuracy/stat_accuracy_*.cpp): over N
// independent releases of a fixed table, how often each interval covered the
// truth, against what its method promises, and the sample variance of each
// sum's noise against the predicted variance.
//
// Thresholds (false-failure rate 1e-6 per check, two-sided normal quantile
// kZ = 4.8916):
//  - an exact method predicts coverage p: the share of N releases is within
//    kZ sqrt(p (1 - p) / N) of p (binomial, normal approximation);
//  - a conservative method promises at least p: the share is at least
//    p - kZ sqrt(p (1 - p) / N);
//  - per-cell coverage is pooled over the cells of each release before
//    averaging over releases; the pooled share's variance is at most one
//    cell's (an average of dependent indicators), so the same tolerance
//    holds, conservatively;
//  - the noise of a sum has mean 0 (every law is symmetric): its sample
//    second moment s^2 over N releases has standard error
//    sqrt((m4 - s^4) / N), and the z-statistic (s^2 - V) / se lies within
//    kZ for an exact V, and within [V_lower, V_upper] widened by kZ se for
//    a certified one.
// Power: each file also applies a wrong method (a variance off by 20 %, the
// partition formula on crossing margins) and asserts that the same check
// fails, so no check is vacuous.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "accuracy/cell_query.hpp"

namespace invariant_dp::coverage {

constexpr double kZ = 4.8916;

inline double tolerance(double p, double n) { return kZ * std::sqrt(p * (1 - p) / n); }

// The normal law's coverage of an integer sum by [-h, h] (continuity corrected).
inline double normal_integer_coverage(double h, double variance) {
  return std::erf((h + 0.5) / std::sqrt(2 * variance));
}

struct Moments {
  double n = 0, s2 = 0, s4 = 0;
  void add(double x) {
    n += 1;
    s2 += x * x;
    s4 += x * x * x * x;
  }
  double second() const { return s2 / n; }
  double standard_error() const { return std::sqrt(std::max(0.0, s4 / n - second() * second()) / n); }
  // Distance of the sample second moment outside [lower, upper], in standard errors.
  double z(double lower, double upper) const {
    const double s = second();
    return s < lower ? (s - lower) / standard_error() : s > upper ? (s - upper) / standard_error() : 0.0;
  }
};

// One interval under test: a sum (its half-width) or the pooled cells.
struct Check {
  std::string name;
  double expected = 0;        // predicted coverage (exact) or promised (conservative)
  bool conservative = false;
  double covered = 0, releases = 0;
  void add(double share_this_release) {
    covered += share_this_release;
    releases += 1;
  }
  double share() const { return covered / releases; }
  double tol() const { return tolerance(expected, releases); }
  bool passes() const {
    return conservative ? share() >= expected - tol() : std::abs(share() - expected) <= tol();
  }
  void report() const {
    std::printf("[stat] %-52s coverage %.4f, %s %.4f +/- %.4f (%s)\n", name.c_str(), share(),
                conservative ? "at least" : "expected", expected, tol(), passes() ? "pass" : "FAIL");
  }
};

// A sum of cells with its margin of error and predicted variance.
struct SumCheck {
  std::string name;
  accuracy::CellQuery query;
  double half_width = 0;
  double variance_lower = 0, variance_upper = 0;
  Check coverage;
  Moments moments;

  template <class Noise>
  void record(const Noise& z) {
    double sum = 0;
    for (std::size_t k = 0; k < query.size(); ++k) sum += query.weights[k] * double(z[query.cells[k]]);
    moments.add(sum);
    coverage.add(std::abs(sum) <= half_width ? 1.0 : 0.0);
  }
  bool variance_passes() const { return std::abs(moments.z(variance_lower, variance_upper)) <= kZ; }
  void report() const {
    coverage.report();
    std::printf("[stat] %-52s variance %.4g, predicted [%.4g, %.4g], z %.2f (%s)\n", name.c_str(), moments.second(),
                variance_lower, variance_upper, moments.z(variance_lower, variance_upper),
                variance_passes() ? "pass" : "FAIL");
  }
};

// Every sum covers its truth at its level and has its predicted variance
// (each reported).
inline void expect_sums_hold(const std::vector<SumCheck>& sums) {
  for (const auto& s : sums) {
    s.report();
    EXPECT_TRUE(s.coverage.passes()) << s.name;
    EXPECT_TRUE(s.variance_passes()) << s.name;
  }
}

// Power: every sum predicted with a wrong variance fails its variance
// check, and its coverage check too where coverage_too(s) says the
// coverage test can see the error.
template <class CoverageToo>
void expect_wrong_sums_fail(const std::vector<SumCheck>& wrong, CoverageToo coverage_too) {
  for (const auto& s : wrong) {
    EXPECT_FALSE(s.variance_passes()) << "power: " << s.name;
    if (coverage_too(s)) {
      EXPECT_FALSE(s.coverage.passes()) << "power: " << s.name;
    }
  }
}

}  // namespace invariant_dp::coverage
