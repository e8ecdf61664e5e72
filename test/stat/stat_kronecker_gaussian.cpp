// Statistical tests of the exact two-way lattice Gaussian
// (samplers/kronecker_gaussian.hpp), with fixed seeds, against exact laws:
//  1. 2 x 3 and 3 x 3 tables at small sigma2 (0.8: the correction coins
//     reject a few per cent of attempts and many are decided by MPFR), the
//     law of the lattice coordinates (the prefix sums of Z, computed here
//     independently of the sampler) against the target enumerated on a box:
//     P(y) proportional to exp(-||Z(y)||^2 / (2 sigma2)). 2 x 2 at sigma2 = 2
//     (one coordinate, no correction): P(y) ~ exp(-2 y^2 / sigma2).
//     Power: the same draws against the law at 1.05 sigma2, and against the
//     target restricted to the index-2 sublattice y_11 even, must fail; the
//     Klein draw without correction coins must fail the true law.
//  2. 30 x 40 at sigma2 = 50: E ||Z||^2 = sigma2 (r - 1)(c - 1) up to the
//     lattice's smoothing error (exp(-pi^2 sigma2) relative, nil), checked
//     on 2000 tables to 5 standard deviations (sd of the mean ratio
//     sqrt(2 / (2000 * 1131)) = 0.00094); a sigma2 5% off fails it.
// Thresholds: chi-square at p = 1e-6 (chi_square.hpp); the power checks
// have noncentralities far above their critical values.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "errors.hpp"
#include "random_source.hpp"
#include "samplers/kronecker_gaussian.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
using Coordinates = std::vector<std::int64_t>;

// y_ij = sum_{p <= i, q <= j} Z_pq for i < r - 1, j < c - 1.
Coordinates prefix_sums(const std::int64_t* z, std::size_t r, std::size_t c) {
  Coordinates y;
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t j = 0; j + 1 < c; ++j) {
      std::int64_t s = 0;
      for (std::size_t p = 0; p <= i; ++p)
        for (std::size_t q = 0; q <= j; ++q) s += z[p * c + q];
      y.push_back(s);
    }
  return y;
}

// ||Z||^2 of the table with prefix sums y.
double norm2_of(const Coordinates& y, std::size_t r, std::size_t c) {
  auto at = [&](long i, long j) -> double {
    return i >= 0 && j >= 0 && i < long(r) - 1 && j < long(c) - 1 ? double(y[i * (c - 1) + j]) : 0.0;
  };
  double s = 0;
  for (long p = 0; p < long(r); ++p)
    for (long q = 0; q < long(c); ++q) {
      const double v = at(p, q) - at(p - 1, q) - at(p, q - 1) + at(p - 1, q - 1);
      s += v * v;
    }
  return s;
}

// The target on a box of coordinates |y| <= radius; `even_only` keeps the
// index-2 sublattice y_11 even (a wrong law).
std::map<Coordinates, double> enumerated_law(std::size_t r, std::size_t c, double s2, long radius,
                                             bool even_only = false) {
  const std::size_t m = (r - 1) * (c - 1);
  std::map<Coordinates, double> p;
  double total = 0;
  Coordinates y(m, -radius);
  for (;;) {
    if (!even_only || y[0] % 2 == 0) total += p[y] = std::exp(-norm2_of(y, r, c) / (2 * s2));
    std::size_t k = 0;
    while (k < m && y[k] == radius) y[k++] = -radius;
    if (k == m) break;
    ++y[k];
  }
  for (auto& [key, v] : p) v /= total;
  return p;
}

std::map<Coordinates, std::int64_t> coordinate_counts(bool corrected, std::uint64_t seed, Rational s2, std::size_t r,
                                                      std::size_t c, std::size_t draws) {
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> z(r * c);
  std::map<Coordinates, std::int64_t> counts;
  for (std::size_t t = 0; t < draws; ++t) {
    if (corrected)
      sample_two_way_lattice_gaussian(*rng, s2, r, c, z.data(), {});
    else
      sample_two_way_klein_uncorrected(*rng, s2, r, c, z.data(), {});
    for (std::size_t i = 0; i < r; ++i) {
      std::int64_t row = 0;
      for (std::size_t j = 0; j < c; ++j) row += z[i * c + j];
      EXPECT_EQ(row, 0);
    }
    for (std::size_t j = 0; j < c; ++j) {
      std::int64_t col = 0;
      for (std::size_t i = 0; i < r; ++i) col += z[i * c + j];
      EXPECT_EQ(col, 0);
    }
    ++counts[prefix_sums(z.data(), r, c)];
  }
  return counts;
}

void check_shape(std::size_t r, std::size_t c, Rational s2, long radius, std::uint64_t seed, bool power_on_klein) {
  constexpr std::size_t kDraws = 300000;
  const std::string shape = std::to_string(r) + "x" + std::to_string(c) + ", sigma2 = " + std::to_string(s2.to_double());
  const auto counts = coordinate_counts(true, seed, s2, r, c, kDraws);
  const ChiSquare fit = goodness_of_fit(enumerated_law(r, c, s2.to_double(), radius), counts, kDraws);
  report(shape, fit);
  EXPECT_TRUE(fit.passes()) << shape;
  const ChiSquare wide = goodness_of_fit(enumerated_law(r, c, 1.05 * s2.to_double(), radius), counts, kDraws);
  report(shape + ", wrong law (sigma2 5% off)", wide);
  EXPECT_FALSE(wide.passes()) << shape;
  const ChiSquare sub = goodness_of_fit(enumerated_law(r, c, s2.to_double(), radius, true), counts, kDraws);
  report(shape + ", wrong law (sublattice y_11 even)", sub);
  EXPECT_FALSE(sub.passes()) << shape;
  if (power_on_klein) {
    const auto klein = coordinate_counts(false, seed + 1, s2, r, c, kDraws);
    const ChiSquare bare = goodness_of_fit(enumerated_law(r, c, s2.to_double(), radius), klein, kDraws);
    report(shape + ", Klein without correction", bare);
    EXPECT_FALSE(bare.passes()) << shape;
  }
}

TEST(StatKroneckerGaussian, SmallTablesFollowTheEnumeratedLaw) {
  check_shape(2, 2, Rational{2, 1}, 12, 71, false);  // one coordinate, centre 0: nothing to correct
  check_shape(2, 3, Rational{4, 5}, 6, 72, true);
  check_shape(3, 3, Rational{4, 5}, 4, 73, true);
}

TEST(StatKroneckerGaussian, SecondMomentOfALargerTable) {
  constexpr std::size_t r = 30, c = 40, kDraws = 2000;
  const Rational s2{50, 1};
  auto rng = make_seeded_random_source(74);
  std::vector<std::int64_t> z(r * c);
  double sum = 0;
  for (std::size_t t = 0; t < kDraws; ++t) {
    sample_two_way_lattice_gaussian(*rng, s2, r, c, z.data(), {});
    for (auto v : z) sum += double(v) * double(v);
  }
  const double m = double((r - 1) * (c - 1));
  const double ratio = sum / kDraws / (s2.to_double() * m);
  const double sd = std::sqrt(2 / (kDraws * m));
  std::cout << "[stat] 30x40 E||Z||^2 / (sigma2 m) = " << ratio << " (sd " << sd << ")\n";
  EXPECT_LT(std::fabs(ratio - 1), 5 * sd);
  EXPECT_GT(std::fabs(ratio * s2.to_double() / (1.05 * s2.to_double()) - 1), 5 * sd);  // a 5%-off sigma2 fails
}

TEST(KroneckerGaussian, RefusesWhatItCannotDoExactly) {
  auto rng = make_seeded_random_source(1);
  std::vector<std::int64_t> z(9);
  EXPECT_THROW(sample_two_way_lattice_gaussian(*rng, Rational{0, 1}, 3, 3, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_two_way_lattice_gaussian(*rng, Rational{1, 1}, 1, 3, z.data(), {}), InvalidArgument);
  EXPECT_TRUE(kronecker_gaussian_applies(Rational{4, 1}, 1000, 1000));
  EXPECT_FALSE(kronecker_gaussian_applies(Rational{1, 1}, 100, 100));
  std::vector<std::int64_t> big(100 * 100);
  EXPECT_THROW(sample_two_way_lattice_gaussian(*rng, Rational{1, 1}, 100, 100, big.data(), {}), OutOfRange);
}

}  // namespace
}  // namespace invariant_dp
