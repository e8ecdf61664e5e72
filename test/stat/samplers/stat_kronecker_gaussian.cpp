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
//  1b. A 2 x 3 x 3 table with its three two-way margins at sigma2 = 1.6 the
//     same way (and Klein without correction must fail).
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

// A law proportional to exp(-norm2(y) / (2 sigma2)) on the box |y_k| <=
// radius of m coordinates; `even_only` keeps the index-2 sublattice y_11
// even (a wrong law).
template <typename Norm2>
std::map<Coordinates, double> law_on_box(std::size_t m, long radius, double s2, Norm2 norm2, bool even_only = false) {
  std::map<Coordinates, double> p;
  double total = 0;
  Coordinates y(m, -radius);
  for (;;) {
    if (!even_only || y[0] % 2 == 0) total += p[y] = std::exp(-norm2(y) / (2 * s2));
    std::size_t k = 0;
    while (k < m && y[k] == radius) y[k++] = -radius;
    if (k == m) break;
    ++y[k];
  }
  for (auto& [key, v] : p) v /= total;
  return p;
}

std::map<Coordinates, double> enumerated_law(std::size_t r, std::size_t c, double s2, long radius,
                                             bool even_only = false) {
  return law_on_box((r - 1) * (c - 1), radius, s2, [&](const Coordinates& y) { return norm2_of(y, r, c); },
                    even_only);
}

std::map<Coordinates, std::int64_t> coordinate_counts(bool corrected, std::uint64_t seed, Rational s2, std::size_t r,
                                                      std::size_t c, std::size_t draws) {
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> z(r * c);
  std::map<Coordinates, std::int64_t> counts;
  for (std::size_t t = 0; t < draws; ++t) {
    if (corrected)
      sample_table_lattice_gaussian(*rng, s2, {r, c}, z.data(), {});
    else
      sample_table_klein_uncorrected(*rng, s2, {r, c}, z.data(), {});
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

// ---- three-way tables with all three two-way margins ---------------------

// Cells of shape dims, row-major; coordinates of shape dims - 1.
std::vector<std::size_t> strides(const std::vector<std::size_t>& dims) {
  std::vector<std::size_t> out(dims.size(), 1);
  for (std::size_t k = dims.size() - 1; k-- > 0;) out[k] = out[k + 1] * dims[k + 1];
  return out;
}

// Z = sum_i y_i (x)_k (e_{i_k} - e_{i_k + 1}), built term by term.
std::vector<std::int64_t> kronecker_table_of(const Coordinates& y, const std::vector<std::size_t>& dims) {
  std::vector<std::size_t> coord_dims;
  for (auto n : dims) coord_dims.push_back(n - 1);
  const auto cs = strides(coord_dims), zs = strides(dims);
  std::size_t cells = 1;
  for (auto n : dims) cells *= n;
  std::vector<std::int64_t> z(cells, 0);
  for (std::size_t t = 0; t < y.size(); ++t) {
    std::vector<std::size_t> i(dims.size());
    for (std::size_t k = 0, rest = t; k < dims.size(); ++k) {
      i[k] = rest / cs[k];
      rest %= cs[k];
    }
    for (std::size_t corner = 0; corner < (std::size_t(1) << dims.size()); ++corner) {
      std::size_t cell = 0;
      int sign = 1;
      for (std::size_t k = 0; k < dims.size(); ++k) {
        const bool up = corner >> k & 1;
        cell += (i[k] + (up ? 1 : 0)) * zs[k];
        if (up) sign = -sign;
      }
      z[cell] += sign * y[t];
    }
  }
  return z;
}

// y_i = sum of Z over the box a <= i.
Coordinates box_sums(const std::vector<std::int64_t>& z, const std::vector<std::size_t>& dims) {
  std::vector<std::size_t> coord_dims;
  for (auto n : dims) coord_dims.push_back(n - 1);
  const auto cs = strides(coord_dims), zs = strides(dims);
  std::size_t coords = 1;
  for (auto n : coord_dims) coords *= n;
  Coordinates y(coords, 0);
  for (std::size_t t = 0; t < coords; ++t)
    for (std::size_t cell = 0; cell < z.size(); ++cell) {
      bool inside = true;
      for (std::size_t k = 0; k < dims.size(); ++k)
        inside = inside && (cell / zs[k]) % dims[k] <= (t / cs[k]) % coord_dims[k];
      if (inside) y[t] += z[cell];
    }
  return y;
}

std::map<Coordinates, double> cube_law(const std::vector<std::size_t>& dims, double s2, long radius) {
  std::size_t m = 1;
  for (auto n : dims) m *= n - 1;
  return law_on_box(m, radius, s2, [&](const Coordinates& y) {
    double norm2 = 0;
    for (auto v : kronecker_table_of(y, dims)) norm2 += double(v) * double(v);
    return norm2;
  });
}

TEST(StatKroneckerGaussian, ThreeWayTablesFollowTheEnumeratedLaw) {
  constexpr std::size_t kDraws = 200000;
  const std::vector<std::size_t> dims{2, 3, 3};
  const Rational s2{8, 5};  // s^2 >= 0.2 at the first coordinate: coins matter
  for (bool corrected : {true, false}) {
    auto rng = make_seeded_random_source(corrected ? 75 : 76);
    std::vector<std::int64_t> z(18);
    std::map<Coordinates, std::int64_t> counts;
    for (std::size_t t = 0; t < kDraws; ++t) {
      if (corrected)
        sample_table_lattice_gaussian(*rng, s2, dims, z.data(), {});
      else
        sample_table_klein_uncorrected(*rng, s2, dims, z.data(), {});
      const Coordinates y = box_sums(z, dims);
      ASSERT_EQ(kronecker_table_of(y, dims), z);  // every line sum zero: Z is in the lattice the y span
      ++counts[y];
    }
    const ChiSquare fit = goodness_of_fit(cube_law(dims, s2.to_double(), 4), counts, kDraws);
    report(std::string("2x3x3, sigma2 = 1.6") + (corrected ? "" : ", Klein without correction"), fit);
    EXPECT_EQ(fit.passes(), corrected);
    if (corrected) {
      const ChiSquare wide = goodness_of_fit(cube_law(dims, 1.05 * s2.to_double(), 4), counts, kDraws);
      report("2x3x3, wrong law (sigma2 5% off)", wide);
      EXPECT_FALSE(wide.passes());
    }
  }
}

TEST(StatKroneckerGaussian, SecondMomentOfALargerTable) {
  constexpr std::size_t r = 30, c = 40, kDraws = 2000;
  const Rational s2{50, 1};
  auto rng = make_seeded_random_source(74);
  std::vector<std::int64_t> z(r * c);
  double sum = 0;
  for (std::size_t t = 0; t < kDraws; ++t) {
    sample_table_lattice_gaussian(*rng, s2, {r, c}, z.data(), {});
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
  EXPECT_THROW(sample_table_lattice_gaussian(*rng, Rational{0, 1}, {3, 3}, z.data(), {}), InvalidArgument);
  EXPECT_THROW(sample_table_lattice_gaussian(*rng, Rational{1, 1}, {1, 3}, z.data(), {}), InvalidArgument);
  EXPECT_TRUE(table_lattice_gaussian_applies(Rational{4, 1}, {1000, 1000}));
  EXPECT_FALSE(table_lattice_gaussian_applies(Rational{1, 1}, {100, 100}));
  std::vector<std::int64_t> big(100 * 100);
  EXPECT_THROW(sample_table_lattice_gaussian(*rng, Rational{1, 1}, {100, 100}, big.data(), {}), OutOfRange);
}

}  // namespace
}  // namespace invariant_dp
