// The covariance scale of complete two-way tables computed by Fourier
// integrals (accuracy/table_covariance_scale.hpp; DERIVATIONS.md beside it,
// section 12): against exact enumeration of 2 x 2, 2 x 4, 3 x 3 and 4 x 4 tables, the
// closed form of 2 x n tables, and the lattice Gaussian's certified bounds
// at calibrated variances.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "accuracy/lattice_bounds.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "errors.hpp"
#include "samplers/conditioned_laplace_variance.hpp"

namespace invariant_dp::accuracy {
namespace {

IntegerNoise laplace(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::laplace, {num, den}}; }
IntegerNoise gaussian(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::gaussian, {num, den}}; }

// Var Z_11 of a 3 x 3 table with both margins, enumerated over its four
// free cells (|Z_ij| <= R, the rest determined), each cell weighted by the
// law's unnormalised pmf.
double enumerated_3x3_variance(IntegerNoise noise, std::int64_t R) {
  const double par = noise.parameter.to_double();
  std::vector<double> w(static_cast<std::size_t>(8 * R + 1));  // weights of |x| <= 4R
  for (std::int64_t x = -4 * R; x <= 4 * R; ++x)
    w[static_cast<std::size_t>(x + 4 * R)] = noise.kind == IntegerNoise::Kind::laplace
                                                 ? std::exp(-std::fabs(double(x)) / par)
                                                 : std::exp(-double(x) * double(x) / (2 * par));
  const auto W = [&](std::int64_t x) { return w[static_cast<std::size_t>(x + 4 * R)]; };
  long double total = 0, second = 0;
  for (std::int64_t a = -R; a <= R; ++a)
    for (std::int64_t b = -R; b <= R; ++b) {
      const long double row1 = W(a) * W(b) * W(-a - b);
      for (std::int64_t c = -R; c <= R; ++c)
        for (std::int64_t d = -R; d <= R; ++d) {
          const long double p = row1 * W(c) * W(d) * W(-c - d) * W(-a - c) * W(-b - d) * W(a + b + c + d);
          total += p;
          second += p * double(a) * double(a);
        }
    }
  return double(second / total);
}

TEST(TableCovarianceScale, ThreeByThreeMatchesEnumeration) {
  struct Case {
    IntegerNoise noise;
    std::int64_t reach;  // the mass beyond is below 1e-17
  };
  for (const Case& c : {Case{laplace(7, 10), 28}, Case{laplace(1, 1), 40}, Case{gaussian(35, 100), 8},
                        Case{gaussian(7, 10), 10}, Case{gaussian(2, 1), 16}}) {
    const double direct = enumerated_3x3_variance(c.noise, c.reach);
    const TableScale t = table_covariance_scale(c.noise, 3, 3, Interrupts());
    EXPECT_NEAR(t.cell_variance / direct - 1, 0, 1e-12) << c.noise.parameter.to_double();
    EXPECT_DOUBLE_EQ(t.scale, t.cell_variance * 9 / 4);
    EXPECT_LT(t.quadrature_error, 1e-13);
    EXPECT_LT(t.rounding_error, 1e-11);
    if (c.noise.kind == IntegerNoise::Kind::laplace) {  // the second angle by residues, too
      const TableScale r = table_covariance_scale(c.noise, 3, 3, Interrupts(), kMaxScalePoints, kPublishedScaleError,
                                                  ScaleQuadrature::last_angle_by_residues);
      EXPECT_NEAR(r.cell_variance / direct - 1, 0, 1e-10) << c.noise.parameter.to_double();
      EXPECT_LE(r.quadrature_error, kPublishedScaleError);
    }
  }
}

// 2 x 4 enumerated directly (its three free cells, the second line the
// first's negative), for both laws: the case the error bars of two-line
// tables read without the group computation.
TEST(TableCovarianceScale, TwoByFourMatchesEnumeration) {
  for (const IntegerNoise noise : {laplace(9, 10), laplace(3, 1), gaussian(1, 2), gaussian(3, 1)}) {
    const double par = noise.parameter.to_double();
    const auto W = [&](std::int64_t x) {
      return noise.kind == IntegerNoise::Kind::laplace ? std::exp(-std::fabs(double(x)) / par)
                                                       : std::exp(-double(x) * double(x) / (2 * par));
    };
    const std::int64_t R = noise.kind == IntegerNoise::Kind::laplace ? std::int64_t(45 * par) + 10 : 20;
    long double total = 0, second = 0;
    for (std::int64_t a = -R; a <= R; ++a)
      for (std::int64_t b = -R; b <= R; ++b)
        for (std::int64_t c = -R; c <= R; ++c) {
          const double d = -double(a + b + c);
          const long double line = W(a) * W(b) * W(c) * W(std::int64_t(d));
          const long double p = line * line;  // the second line is the first's negative
          total += p;
          second += p * double(a) * double(a);
        }
    const double direct = double(second / total);
    const TableScale t = table_covariance_scale(noise, 2, 4, Interrupts());
    EXPECT_NEAR(t.cell_variance / direct - 1, 0, 1e-12) << par;
    EXPECT_DOUBLE_EQ(t.scale, t.cell_variance * 8 / 3);
  }
}

// 2 x n: the table is (y, -y), y a zero-sum group of n cells at b/2, whose
// per-cell variance V has its own computation (section 3c of DERIVATIONS.md):
// c = 2 V n / (n - 1). That computation is accurate to about 1e-9.
TEST(TableCovarianceScale, TwoLineTablesMatchTheGroupVariance) {
  for (const Rational b : {Rational{1, 1}, Rational{104, 10}, Rational{40, 1}}) {
    for (const std::size_t n : {2u, 3u, 10u, 1000u, 100000u}) {
      const TableScale t = table_covariance_scale({IntegerNoise::Kind::laplace, b}, 2, n, Interrupts());
      const double closed = 2 * conditioned_laplace_variance({b.num, 2 * b.den}, n) * double(n) / double(n - 1);
      EXPECT_NEAR(t.scale / closed - 1, 0, 2e-9) << b.to_double() << " n=" << n;
      // The orientation does not matter.
      EXPECT_DOUBLE_EQ(table_covariance_scale({IntegerNoise::Kind::laplace, b}, n, 2, Interrupts()).scale, t.scale);
    }
  }
}

// The lattice Gaussian's scale lies in [(1 - B) sigma^2, sigma^2] (section
// 3d), B the certified deficit bound; at small variances B says nothing and
// the computed scale is only below sigma^2, as the discrete law's variance is.
TEST(TableCovarianceScale, LatticeGaussianWithinItsCertifiedBounds) {
  const auto within = [](Rational s2, std::size_t r, std::size_t n) {
    const TableScale t = table_covariance_scale({IntegerNoise::Kind::gaussian, s2}, r, n, Interrupts());
    const double B = table_deficit_bound(s2, {r, n});
    EXPECT_LE(t.scale, s2.to_double() * (1 + 1e-11)) << r << "x" << n;
    EXPECT_GE(t.scale, (1 - B) * s2.to_double() * (1 - 1e-11)) << r << "x" << n;
  };
  for (const std::size_t n : {3u, 7u, 200u}) {
    for (const std::size_t r : {2u, 3u, 4u}) {
      within({8, 1}, r, n);
      within({60, 1}, r, n);
      const TableScale small = table_covariance_scale(gaussian(1, 2), r, n, Interrupts());
      EXPECT_LT(small.scale, 0.5);
      EXPECT_GT(small.scale, 0);
    }
  }
  within({60, 1}, 4, 100000);  // 80-bit sums
}

// The l1 scale of r x n tables grows with n towards its limit (measured, and
// pinned here), r x n and n x r agree, and Var Z_11 stays below the
// unconditioned cell's variance (a conditioned cell is dominated by it,
// DERIVATIONS.md section 5).
TEST(TableCovarianceScale, LaplaceScaleGrowsWithTheLongSide) {
  for (const std::size_t r : {3u, 4u}) {
    double last = 0;
    for (const std::size_t n : {100u, 1000u, 100000u}) {
      const TableScale t = table_covariance_scale(laplace(3, 1), r, n, Interrupts());
      EXPECT_GT(t.scale, last) << r << "x" << n;
      EXPECT_LT(t.quadrature_error, 1e-12);
      last = t.scale;
      if (n == 100) {
        EXPECT_DOUBLE_EQ(table_covariance_scale(laplace(3, 1), n, r, Interrupts()).scale, t.scale);
      }
    }
    const double var1 = NoiseTransform(laplace(3, 1)).variance();
    EXPECT_LT(table_covariance_scale(laplace(3, 1), r, 100000, Interrupts()).cell_variance, var1);
  }
}

// Var Z_11 of a 4 x 4 table with both margins, enumerated row by row: each
// row a zero-sum vector of cells within +-R, the state the partial sums of
// the first three columns, the last row the negated state (so every column
// sums to 0). F counts the weight, G the weight times Z_11^2 (row one).
double enumerated_4x4_variance(IntegerNoise noise, int R) {
  const double par = noise.parameter.to_double();
  const auto W = [&](int x) {
    return noise.kind == IntegerNoise::Kind::laplace ? std::exp(-std::fabs(double(x)) / par)
                                                     : std::exp(-double(x) * double(x) / (2 * par));
  };
  struct Row {
    int y[3];
    double w;
  };
  std::vector<Row> rows;
  for (int a = -R; a <= R; ++a)
    for (int b = -R; b <= R; ++b)
      for (int c = -R; c <= R; ++c)
        if (std::abs(a + b + c) <= R) rows.push_back({{a, b, c}, W(a) * W(b) * W(c) * W(-a - b - c)});
  const int S = 3 * R, side = 2 * S + 1;
  const auto at = [&](int s1, int s2, int s3) { return (std::size_t(s1 + S) * side + (s2 + S)) * side + (s3 + S); };
  std::vector<long double> f(std::size_t(side) * side * side, 0), g(f.size(), 0);
  for (const Row& row : rows) {  // the first row
    f[at(row.y[0], row.y[1], row.y[2])] += row.w;
    g[at(row.y[0], row.y[1], row.y[2])] += row.w * row.y[0] * row.y[0];
  }
  for (int step = 0; step < 2; ++step) {  // rows two and three
    std::vector<long double> f2(f.size(), 0), g2(f.size(), 0);
    for (int s1 = -S; s1 <= S; ++s1)
      for (int s2 = -S; s2 <= S; ++s2)
        for (int s3 = -S; s3 <= S; ++s3) {
          const long double fs = f[at(s1, s2, s3)], gs = g[at(s1, s2, s3)];
          if (fs == 0) continue;
          for (const Row& row : rows) {
            const int t1 = s1 + row.y[0], t2 = s2 + row.y[1], t3 = s3 + row.y[2];
            if (std::abs(t1) > S || std::abs(t2) > S || std::abs(t3) > S) continue;
            f2[at(t1, t2, t3)] += fs * row.w;
            g2[at(t1, t2, t3)] += gs * row.w;
          }
        }
    f.swap(f2);
    g.swap(g2);
  }
  long double total = 0, second = 0;
  for (int s1 = -S; s1 <= S; ++s1)
    for (int s2 = -S; s2 <= S; ++s2)
      for (int s3 = -S; s3 <= S; ++s3) {
        const long double last = W(-s1) * W(-s2) * W(-s3) * W(s1 + s2 + s3);
        total += f[at(s1, s2, s3)] * last;
        second += g[at(s1, s2, s3)] * last;
      }
  return double(second / total);
}

// Four-line tables, whose whole grid is summed by the orbits of all four
// angles (the last one 0 among them): enumerated 4 x 4 tables at scales
// where cells past +-R carry below 1e-12 of the mass, at both the default
// and the published target error.
TEST(TableCovarianceScale, FourByFourMatchesEnumeration) {
  struct Case {
    IntegerNoise noise;
    int reach;
  };
  for (const Case& c : {Case{laplace(1, 4), 7}, Case{gaussian(35, 100), 6}, Case{gaussian(1, 1), 8}}) {
    const double direct = enumerated_4x4_variance(c.noise, c.reach);
    for (const double target : {kScaleQuadratureError, kPublishedScaleError}) {
      const TableScale t = table_covariance_scale(c.noise, 4, 4, Interrupts(), kMaxScalePoints, target);
      EXPECT_NEAR(t.cell_variance / direct - 1, 0, 1e-10) << c.noise.parameter.to_double();
      EXPECT_DOUBLE_EQ(t.scale, t.cell_variance * 16 / 9);
      EXPECT_LE(t.quadrature_error, target);
    }
    if (c.noise.kind == IntegerNoise::Kind::laplace) {  // the third angle by residues, too
      const TableScale t = table_covariance_scale(c.noise, 4, 4, Interrupts(), kMaxScalePoints, kPublishedScaleError,
                                                  ScaleQuadrature::last_angle_by_residues);
      EXPECT_NEAR(t.cell_variance / direct - 1, 0, 1e-10);
      EXPECT_LE(t.quadrature_error, kPublishedScaleError);
    }
  }
}

// Three- and four-line l1 tables with the last free angle by residues:
// the same scale as the integral over all angles, to the published
// target's error, on short and longer tables at calibrated scales and at
// small epsilon (both grids within their limits here); and the cheaper of
// the two is what releases take: the residues on short tables at b of 8
// and more.
TEST(TableCovarianceScale, ResiduesAgreeWithTheIntegralOverAllAngles) {
  for (const auto& [r, n, b] : {std::tuple<std::size_t, std::size_t, std::uint64_t>{4, 4, 3},
                                {4, 4, 8},
                                {4, 5, 6},
                                {4, 8, 7},
                                {4, 12, 5},
                                {3, 3, 3},
                                {3, 3, 60},
                                {3, 8, 40},
                                {3, 30, 10}}) {
    const std::string shape = std::to_string(r) + "x" + std::to_string(n) + " at b = " + std::to_string(b);
    const TableScale all = table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kMaxScalePoints,
                                                  kPublishedScaleError, ScaleQuadrature::all_angles);
    const TableScale residues = table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kMaxScalePoints,
                                                       kPublishedScaleError, ScaleQuadrature::last_angle_by_residues);
    EXPECT_LE(residues.quadrature_error, kPublishedScaleError) << shape;
    EXPECT_LE(residues.rounding_error, 5e-10) << shape;
    EXPECT_NEAR(residues.scale / all.scale - 1, 0, 2 * kPublishedScaleError + residues.rounding_error) << shape;
    EXPECT_DOUBLE_EQ(residues.cell_variance, residues.scale * (1 - 1.0 / double(r)) * (1 - 1.0 / double(n))) << shape;
    if (n <= 8 && b >= 8) {
      EXPECT_LT(residues.points, all.points) << shape;
      EXPECT_EQ(table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kMaxScalePoints, kPublishedScaleError).scale,
                residues.scale)
          << shape;
    }
  }
  // Not three or four lines, or not the l1 law: refused rather than taken
  // otherwise.
  EXPECT_THROW(table_covariance_scale(laplace(3, 1), 2, 6, Interrupts(), kMaxScalePoints, kPublishedScaleError,
                                      ScaleQuadrature::last_angle_by_residues),
               InvalidArgument);
  EXPECT_THROW(table_covariance_scale(gaussian(2, 1), 4, 6, Interrupts(), kMaxScalePoints, kPublishedScaleError,
                                      ScaleQuadrature::last_angle_by_residues),
               InvalidArgument);
}

// The published target spends fewer points for the same figure (to its
// error), and the limit holds the points to what it admits.
TEST(TableCovarianceScale, PublishedTargetIsCheaperAndBounded) {
  for (const auto& [r, n] : {std::pair<std::size_t, std::size_t>{4, 4}, {4, 10}, {3, 50}, {4, 1000}}) {
    const TableScale strict = table_covariance_scale(laplace(4, 1), r, n, Interrupts());
    const TableScale published =
        table_covariance_scale(laplace(4, 1), r, n, Interrupts(), kMaxScalePoints, kPublishedScaleError);
    EXPECT_LT(published.points, strict.points) << r << "x" << n;
    EXPECT_NEAR(published.scale / strict.scale - 1, 0, 2 * kPublishedScaleError) << r << "x" << n;
    // The limit is checked, before evaluating, against a count within some
    // 10 % of the points the orbits then visit.
    EXPECT_THROW(table_covariance_scale(laplace(4, 1), r, n, Interrupts(), 0.8 * double(published.points),
                                        kPublishedScaleError),
                 TooLarge);
    EXPECT_EQ(table_covariance_scale(laplace(4, 1), r, n, Interrupts(), 1.1 * double(published.points),
                                     kPublishedScaleError).points,
              published.points);
  }
  EXPECT_THROW(table_covariance_scale(laplace(4, 1), 4, 4, Interrupts(), kMaxScalePoints, 1e-2), InvalidArgument);
  EXPECT_THROW(table_covariance_scale(laplace(4, 1), 4, 4, Interrupts(), kMaxScalePoints, 1e-16), InvalidArgument);
}

// Past a release's points at the published target, the coarser grid of
// kCertifiedScaleError: its c within its stated error of the published
// one, that error below the target, on fewer than half the points. These
// shapes are past the release's limit at the published target and within
// it at the certified one (by the residues' box, whose shells past the
// law's mass are bounded, not summed).
TEST(TableCovarianceScale, CertifiedTargetIsWithinItsErrorOnFewerPoints) {
  for (const auto& [r, n, b] :
       {std::tuple<std::size_t, std::size_t, std::uint64_t>{4, 6, 24}, {4, 4, 32}, {4, 5, 24}}) {
    const TableScale published =
        table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kMaxScalePoints, kPublishedScaleError);
    const TableScale certified =
        table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kMaxScalePoints, kCertifiedScaleError);
    const double error = certified.quadrature_error + certified.rounding_error;
    EXPECT_LE(error, kCertifiedScaleError) << r << "x" << n << " at b = " << b;
    EXPECT_LE(std::abs(certified.scale / published.scale - 1), error) << r << "x" << n << " at b = " << b;
    EXPECT_LT(2 * certified.points, published.points) << r << "x" << n << " at b = " << b;
    EXPECT_THROW(table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kErrorBarScalePoints, kPublishedScaleError),
                 TooLarge)
        << r << "x" << n << " at b = " << b;
    EXPECT_NO_THROW(
        table_covariance_scale(laplace(b, 1), r, n, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError));
  }
}

// Short three-line tables at small epsilon: by residues the grid left is
// one circle of some 30 b nodes, so 3 x 3 and 3 x 8 tables at b = 400
// (epsilon 0.01) are computed to the published target within a release's
// points, where the integral over both angles (N^2 / 12 nodes) is past
// them from about b = 70. At the certified target the circle's nodes past
// the law's mass are bounded, not summed (the box, whose size does not
// grow with b): within its stated error of the published c on a fraction
// of the points, and within a release's points at b = 64,000 (epsilon
// 3e-5), where the circle alone has some 2e6 nodes. There c / b^2, which
// moves by some 1e-6 between b = 400 and the limit, agrees with the exact
// one at b = 400 to the certified error.
TEST(TableCovarianceScale, ShortThreeLineTablesAtSmallEpsilonAreExactOrCertified) {
  for (const std::size_t n : {3, 5, 8}) {
    const std::string shape = "3x" + std::to_string(n);
    const TableScale exact =
        table_covariance_scale(laplace(400, 1), 3, n, Interrupts(), kErrorBarScalePoints, kPublishedScaleError);
    EXPECT_LE(exact.quadrature_error + exact.rounding_error, 1e-9) << shape;
    EXPECT_THROW(table_covariance_scale(laplace(400, 1), 3, n, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError,
                                        ScaleQuadrature::all_angles),
                 TooLarge)
        << shape;
    const TableScale certified =
        table_covariance_scale(laplace(400, 1), 3, n, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError);
    const double error = certified.quadrature_error + certified.rounding_error;
    EXPECT_LE(error, kCertifiedScaleError) << shape;
    EXPECT_LE(std::abs(certified.scale / exact.scale - 1), error + 1e-9) << shape;
    EXPECT_LT(4 * certified.points, exact.points) << shape;
    const double far_b = 64000;
    const TableScale far = release_table_scale(laplace(64000, 1), 3, n, Interrupts(), kErrorBarScalePoints);
    const double far_error = far.quadrature_error + far.rounding_error;
    EXPECT_LE(far_error, kCertifiedScaleError) << shape;
    EXPECT_LT(far.points, 3e4) << shape;
    EXPECT_LE(std::abs(far.scale / (far_b * far_b) / (exact.scale / (400.0 * 400.0)) - 1), far_error + 1e-5) << shape;
  }
}

// Short four-line tables at small epsilon: the residues' box, whose shells
// are bounded by the pair majorant's mean power over the third angle, does
// not grow with the scale. Within a release's points at the certified
// target on 4 x 4 tables at b = 100 and 400 (epsilon 0.04 and 0.01), and
// within its stated error of c computed to 1e-5 on five times the points.
// Down to epsilon 3e-5 (b = 64,000), read in the frame of the poles near 1,
// the nodes' double arithmetic stays within some 1e-9 of 80-bit
// arithmetic's, so the residues are taken there too, within a release's
// points: c / b^2, which moves by some 3e-6 from b = 400 on, within the
// certified errors of its value at b = 400.
TEST(TableCovarianceScale, ShortFourLineTablesAtSmallEpsilonAreCertified) {
  for (const std::uint64_t b : {100, 400}) {
    const TableScale certified =
        table_covariance_scale(laplace(b, 1), 4, 4, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError);
    EXPECT_LE(certified.quadrature_error + certified.rounding_error, kCertifiedScaleError) << "b = " << b;
    EXPECT_LT(certified.points, 3e5) << "b = " << b;
    if (b == 100) {
      const TableScale finer = table_covariance_scale(laplace(b, 1), 4, 4, Interrupts(), kMaxScalePoints, 1e-5);
      EXPECT_LE(std::abs(certified.scale / finer.scale - 1),
                certified.quadrature_error + certified.rounding_error + finer.quadrature_error + finer.rounding_error);
    }
  }
  for (const std::size_t n : {4, 16, 32}) {
    const TableScale near =
        table_covariance_scale(laplace(400, 1), 4, n, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError);
    const double near_error = near.quadrature_error + near.rounding_error;
    for (const double b : {4000.0, 64000.0}) {
      const std::string shape = "4x" + std::to_string(n) + " at b = " + std::to_string(b);
      const TableScale far =
          release_table_scale(laplace(static_cast<std::uint64_t>(b), 1), 4, n, Interrupts(), kErrorBarScalePoints);
      EXPECT_LE(far.quadrature_error + far.rounding_error, kCertifiedScaleError) << shape;
      EXPECT_LE(far.rounding_error, 1e-7) << shape;
      EXPECT_LE(std::abs(far.scale / (b * b) / (near.scale / (400.0 * 400.0)) - 1),
                far.quadrature_error + far.rounding_error + near_error + 1e-5)
          << shape;
    }
  }
}

// The box's shells are bounded in runs, which relies on the pair majorant
// not increasing from the angle 0 to pi: checked for both laws over small
// and large scales, and the box against the shell-by-shell scan of the
// same bounds (the box never smaller, at most two shells larger, and what
// it leaves out bounded above by the shells' own sum).
TEST(TableCovarianceScale, TheBoxsShellsAreBoundedInRuns) {
  for (const IntegerNoise noise : {laplace(1, 2), laplace(3, 1), laplace(1000, 1), gaussian(3, 10), gaussian(2, 1),
                                   gaussian(50, 1), gaussian(10000, 1)}) {
    const NoiseTransform law(noise);
    for (const std::uint64_t N : {1000, 1001}) {
      for (std::uint64_t r = 0; r < N / 2; ++r)
        ASSERT_LE(law.pair_majorant(r + 1, N), law.pair_majorant(r, N)) << noise.parameter.to_double() << " " << r;
    }
  }
  struct Case {
    IntegerNoise noise;
    int d;
    double n, num_power, negligible;
    std::int64_t x;
  };
  for (const Case& c : {Case{laplace(4, 1), 3, 30, 28, 1e-18, 4000}, Case{laplace(400, 1), 2, 4, 4, 1e-6, 60000},
                        Case{laplace(64000, 1), 1, 7, 7, 1e-5, 3000000}, Case{gaussian(2, 1), 3, 30, 28, 1e-18, 500},
                        Case{laplace(16, 1), 1, 6, 5, 1e-9, 20000}}) {
    const NoiseTransform law(c.noise);
    const QuadratureGrid g = quadrature_grid(law, c.d, c.n, c.num_power, 1.5, 0.1, c.x, 1, Interrupts(), c.negligible);
    // The shell-by-shell scan of the same bounds.
    const auto N = static_cast<std::uint64_t>(c.x + 1);
    double tail_den = 0, tail_num = 0;
    std::uint64_t J = 0;
    for (std::uint64_t s = N / 2; s >= 1; --s) {
      const double m = law.pair_majorant(s, N);
      const double count = std::pow(2.0 * double(s) + 1, c.d) - std::pow(2.0 * double(s) - 1, c.d);
      const double den = tail_den + count * std::pow(m, c.n), num = tail_num + count * 1.5 * std::pow(m, c.num_power);
      if (den > c.negligible || num > c.negligible * 0.1) {
        J = s;
        break;
      }
      tail_den = den, tail_num = num;
    }
    const std::string which = std::to_string(c.noise.parameter.to_double()) + " d = " + std::to_string(c.d);
    EXPECT_GE(g.J, J) << which;
    EXPECT_LE(g.J, J + 2) << which;
    const double all = std::pow(double(N), c.d);
    EXPECT_GE(g.omitted_den * all, tail_den * (g.J == J ? 1.0 : 0.0)) << which;
    EXPECT_LE(g.omitted_den * all, c.negligible * 1.02) << which;
    EXPECT_LE(g.omitted_num * all, c.negligible * 0.1 * 1.02) << which;
  }
}

TEST(TableCovarianceScale, RefusesWhatItCannotBound) {
  EXPECT_THROW(table_covariance_scale(laplace(3, 1), 5, 5, Interrupts()), InvalidArgument);
  EXPECT_THROW(table_covariance_scale(laplace(3, 1), 1, 5, Interrupts()), InvalidArgument);
  EXPECT_THROW(table_covariance_scale(laplace(0, 1), 3, 5, Interrupts()), InvalidArgument);
  // Short wide tables at the default target: polynomially decaying
  // integrands over a fine grid.
  EXPECT_THROW(table_covariance_scale(laplace(400, 1), 4, 4, Interrupts()), TooLarge);
  EXPECT_THROW(table_covariance_scale(laplace(4, 1), 4, 4, Interrupts(), kErrorBarScalePoints / 100), TooLarge);
  // A scale far from any calibrated release (epsilon 1e-12): its grid would
  // have some 1e15 points a side, refused before its shells are scanned.
  EXPECT_THROW(table_covariance_scale(laplace(4000000000000, 1), 3, 50, Interrupts()), TooLarge);
  // At b = 1/100 the cells are 0 but with probability 1e-87: its own error bound refuses it.
  EXPECT_THROW(table_covariance_scale(laplace(1, 100), 3, 3, Interrupts()), OutOfRange);
  // A computation polls (a kept result, read at no work, need not).
  forget_kept_table_scales();
  const Interrupts stop([](void*) { return true; }, nullptr);
  EXPECT_THROW(table_covariance_scale(laplace(3, 1), 4, 1000, stop), Interrupted);
  // The residues poll at every node (each is thousands of operations), and
  // stop at the poll asked: a 4 x 4 table at b = 16 visits some 34,000; a
  // 3 x 3 table at b = 400, whose grid left is one circle, some 11,000.
  struct Polls {
    int count = 0, stop_at = -1;
  } polls;
  const Interrupts counting(
      [](void* context) {
        auto* p = static_cast<Polls*>(context);
        return ++p->count == p->stop_at;
      },
      &polls);
  for (const auto& [r, n, b, at_least, stop_at] :
       {std::tuple<std::size_t, std::size_t, std::uint64_t, int, int>{4, 4, 16, 30000, 5000},
        {3, 3, 400, 10000, 2000}}) {
    const auto residues = [&] {
      forget_kept_table_scales();
      return table_covariance_scale(laplace(b, 1), r, n, counting, kMaxScalePoints, kPublishedScaleError,
                                    ScaleQuadrature::last_angle_by_residues);
    };
    polls = {};
    residues();
    EXPECT_GT(polls.count, at_least) << r << "x" << n;
    polls = {0, stop_at};
    EXPECT_THROW(residues(), Interrupted) << r << "x" << n;
    EXPECT_EQ(polls.count, stop_at) << r << "x" << n;
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
