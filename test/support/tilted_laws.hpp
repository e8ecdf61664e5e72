// Test helpers for the tilted discrete Gaussian bound
// (accuracy/lattice_gaussian_quantiles.hpp): an enumerated law of an
// integer functional, the check of the claim against it, and the
// enumeration of complete tables with every (K-1)-way margin zero.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "accuracy/fourier_coverage.hpp"
#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "interrupts.hpp"

namespace invariant_dp::tilted_laws {

// An enumerated law of an integer functional.
struct Law {
  std::map<std::int64_t, double> mass;
  double total = 0;
  void add(std::int64_t x, double w) {
    mass[x] += w;
    total += w;
  }
  double coverage(std::int64_t t) const {
    double in = 0;
    for (const auto& [x, w] : mass)
      if (std::llabs(x) <= t) in += w;
    return in / total;
  }
  double variance() const {
    double s = 0;
    for (const auto& [x, w] : mass) s += double(x) * double(x) * w;
    return s / total;
  }
  // max / min over the support (mass above min_mass) of P(x) / rho_V(x).
  double spread(double V, double min_mass = 1e-12) const {
    double lo = INFINITY, hi = 0;
    for (const auto& [x, w] : mass) {
      if (w / total < min_mass) continue;
      const double ratio = w / total / std::exp(-double(x) * double(x) / (2 * V));
      lo = std::min(lo, ratio);
      hi = std::max(hi, ratio);
    }
    return hi / lo;
  }
};

// The enumerated law against the claim: spread within (1 + eps)/(1 - eps),
// and the half-widths at 0.5, 0.9, 0.99 cover; one less does not when
// decided (and it is decided once eps is small). An enumeration whose
// truncation leaves out mass m compares the spread over the values of mass
// at least min_mass, within the slack 2 m / min_mass (rounding: 1e-9).
inline void expect_claim_holds(const Law& law, double V, double log_excess, const std::string& name,
                               double slack = 1e-9, double min_mass = 1e-12) {
  const double eps = std::expm1(log_excess);
  ASSERT_LT(eps, 1) << name;
  EXPECT_LE(law.spread(V, min_mass), (1 + eps) / (1 - eps) * (1 + slack)) << name << " eps " << eps;
  for (const double level : {0.5, 0.9, 0.99}) {
    const accuracy::Quantile q = accuracy::tilted_gaussian_quantile(V, 1, log_excess, level, Interrupts());
    EXPECT_GE(law.coverage(q.half_width), level) << name << " " << level;
    if (q.exact && q.half_width > 0) {
      EXPECT_LT(law.coverage(q.half_width - 1), level) << name << " " << level;
    }
    if (eps < 1e-3) {
      EXPECT_TRUE(q.exact) << name << " " << level;
    }
  }
}

// Calls visit(z) for every table of this shape with every (K-1)-way margin
// zero whose free cells (those below the last level on every axis) lie in
// [-R, R], z row-major with the last axis fastest.
template <class Visit>
void for_each_zero_margin_table(const std::vector<std::size_t>& shape, std::int64_t R, Visit visit) {
  const std::size_t K = shape.size();
  std::size_t cells = 1, free = 1;
  for (const std::size_t n : shape) {
    cells *= n;
    free *= n - 1;
  }
  // Column f of the map from the free block to the table: free cell f at 1,
  // extended one axis at a time (the last level of axis k is minus the sum
  // of the others, which keeps the earlier axes' lines at zero).
  std::vector<std::vector<std::int64_t>> column(free);
  for (std::size_t f = 0; f < free; ++f) {
    std::vector<std::size_t> dims(K);
    for (std::size_t k = 0; k < K; ++k) dims[k] = shape[k] - 1;
    std::vector<std::int64_t> cur(free, 0);
    cur[f] = 1;
    for (std::size_t k = 0; k < K; ++k) {
      std::size_t outer = 1, inner = 1;
      for (std::size_t j = 0; j < k; ++j) outer *= dims[j];
      for (std::size_t j = k + 1; j < K; ++j) inner *= dims[j];
      const std::size_t n = dims[k];
      std::vector<std::int64_t> next(outer * (n + 1) * inner);
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t in = 0; in < inner; ++in) {
          std::int64_t sum = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t v = cur[(o * n + i) * inner + in];
            next[(o * (n + 1) + i) * inner + in] = v;
            sum += v;
          }
          next[(o * (n + 1) + n) * inner + in] = -sum;
        }
      cur.swap(next);
      dims[k] = n + 1;
    }
    column[f] = cur;
  }
  // The tables in odometer order, each from the last by one column's step.
  std::vector<std::int64_t> f(free, -R), z(cells, 0);
  for (std::size_t k = 0; k < free; ++k)
    for (std::size_t c = 0; c < cells; ++c) z[c] -= R * column[k][c];
  for (;;) {
    visit(z);
    std::size_t k = 0;
    for (; k < free && f[k] == R; ++k) {
      f[k] = -R;
      for (std::size_t c = 0; c < cells; ++c) z[c] -= 2 * R * column[k][c];
    }
    if (k == free) break;
    ++f[k];
    for (std::size_t c = 0; c < cells; ++c) z[c] += column[k][c];
  }
}

// The same, calling visit(z, weight), weight = exp(-|z|^2 / (2 sigma2)).
template <class Visit>
void for_each_zero_margin_table(const std::vector<std::size_t>& shape, std::int64_t R, double sigma2, Visit visit) {
  for_each_zero_margin_table(shape, R, [&](const std::vector<std::int64_t>& z) {
    double q = 0;
    for (const std::int64_t v : z) q += double(v) * double(v);
    visit(z, std::exp(-q / (2 * sigma2)));
  });
}

// The laws of X = w . z for each weight vector w, over the tables
// for_each_zero_margin_table visits, summed by value in dense arrays first
// (millions of tables; a cell is a signed sum of at most every free cell,
// so |X| <= sum |w| R free). Values of weight 0 are left out.
inline std::vector<Law> enumerated_sums(const std::vector<std::size_t>& shape, std::int64_t R, double sigma2,
                                        const std::vector<std::vector<std::int64_t>>& weights) {
  std::int64_t free = 1;
  for (const std::size_t n : shape) free *= static_cast<std::int64_t>(n) - 1;
  std::vector<std::int64_t> reach(weights.size(), 0);
  std::vector<std::vector<double>> mass(weights.size());
  for (std::size_t b = 0; b < weights.size(); ++b) {
    for (const std::int64_t w : weights[b]) reach[b] += std::llabs(w) * R * free;
    mass[b].assign(std::size_t(2 * reach[b] + 1), 0.0);
  }
  for_each_zero_margin_table(shape, R, sigma2, [&](const std::vector<std::int64_t>& z, double weight) {
    for (std::size_t b = 0; b < weights.size(); ++b) {
      std::int64_t x = reach[b];
      for (std::size_t k = 0; k < z.size(); ++k) x += weights[b][k] * z[k];
      mass[b][std::size_t(x)] += weight;
    }
  });
  std::vector<Law> laws(weights.size());
  for (std::size_t b = 0; b < weights.size(); ++b)
    for (std::size_t j = 0; j < mass[b].size(); ++j)
      if (mass[b][j] > 0) laws[b].add(std::int64_t(j) - reach[b], mass[b][j]);
  return laws;
}

}  // namespace invariant_dp::tilted_laws
