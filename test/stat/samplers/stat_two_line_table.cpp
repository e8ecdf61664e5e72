// Statistical tests of the exact sampler of 2 x n and n x 2 tables with
// both margins (samplers/two_line_table.hpp), fixed seeds, thresholds from
// the math:
//  1. against the enumerated l1 law (2 x 3, 2 x 4, 4 x 2; N = 2e5 tables):
//     chi-square goodness of fit on the whole table (its free cells) at
//     p = 1e-6 (chi_square.hpp). Power, each must be rejected: the same
//     draws against the law at b x 1.1; the sampler run at b x 1.1 (a
//     wrong scale); the sampler without its conditioning step (y_1..y_{n-1}
//     i.i.d. at b/2, y_n closing the sum); a one-sided bridge (y = G - G'
//     with G i.i.d. geometric and G' a uniform composition of G's total,
//     i.e. the total drawn from its unconditioned law).
//  2. against the row-rejection oracle (row_rejection_table.hpp) on 2 x 10
//     and 12 x 2 (N = 2e4 each): two-sample chi-square on |z_00|,
//     z_00 + z_11, max |z_ij| and ||z||_1 at p = 1e-6 each. Power: the
//     three wrong samplers above must each be rejected by at least one of
//     the four.
//  3. second moments at n = 10^4 (2 x n, b = 4, 400 tables): the mean of
//     z_0j^2 over a table against the exact conditioned variance at b/2
//     (conditioned_laplace_variance.hpp), the mean lag-one product against
//     -Var/(n-1), and the first half-row's sum against 0: z-tests at
//     |z| < 4.89 (two-sided 1e-6) with the tables' empirical deviation.
//     Power: the sampler at b x 1.03, and without conditioning, fail.
//  4. the lattice Gaussian on 2 x 3 (sigma^2 = 3, N = 2e5) against its
//     enumerated law; power: the law at sigma^2 x 1.2.
// Assertions expected to pass: 3 + 8 + 3 + 1 = 15 at about 1e-6 each, so
// a correct sampler fails this file with probability about 1.5e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/conditioned_laplace_variance.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/row_rejection_table.hpp"
#include "samplers/two_line_table.hpp"
#include "table_laws.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
using table_laws::same_table_law;
using table_laws::table_statistics;
using table_laws::TableStatistics;
constexpr double kZTwoLines = 4.8916;  // two-sided normal quantile at 1e-6

// The samplers compared: the real one and three deliberate errors. Each
// fills `tables` tables of r x c (one of r, c is 2) row-major, one after the
// other, at scale b.
enum class Variant { exact, wrong_scale, no_conditioning, one_sided_bridge };

const char* name(Variant v) {
  switch (v) {
    case Variant::exact:
      return "exact";
    case Variant::wrong_scale:
      return "b x 1.1";
    case Variant::no_conditioning:
      return "no conditioning";
    default:
      return "one-sided bridge";
  }
}

std::vector<std::int64_t> draw(Variant variant, std::size_t r, std::size_t c, Rational b, std::size_t count,
                               std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> z(count * r * c);
  if (variant == Variant::exact || variant == Variant::wrong_scale) {
    std::vector<LatticeTable> tables(count);
    for (std::size_t t = 0; t < count; ++t) {
      tables[t].shape = {r, c};
      tables[t].cells.resize(r * c);
      std::iota(tables[t].cells.begin(), tables[t].cells.end(), t * r * c);
    }
    const Rational scale = variant == Variant::exact ? b : Rational{b.num * 11, b.den * 10};
    sample_laplace_on_two_line_tables(*rng, scale, tables, z.size(), z.data(), {});
    return z;
  }
  const Rational half = half_of(b);
  const std::size_t n = r == 2 ? c : r;
  std::vector<std::int64_t> y(n);
  std::vector<std::uint64_t> parts(n);
  for (std::size_t t = 0; t < count; ++t) {
    if (variant == Variant::no_conditioning) {
      std::int64_t sum = 0;
      for (std::size_t j = 0; j + 1 < n; ++j) sum += y[j] = sample_discrete_laplace(*rng, half);
      y[n - 1] = -sum;
    } else {  // one-sided bridge
      std::uint64_t total = 0;
      for (std::size_t j = 0; j < n; ++j)
        total += std::uint64_t(y[j] = std::int64_t(sample_discrete_geometric(*rng, half)));
      sample_uniform_composition(*rng, total, parts, {});
      for (std::size_t j = 0; j < n; ++j) y[j] -= std::int64_t(parts[j]);
    }
    std::int64_t* table = z.data() + t * r * c;
    for (std::size_t j = 0; j < n; ++j) {
      // Line 0 is the first row (2 x n) or the first column (n x 2).
      table[r == 2 ? j : 2 * j] = y[j];
      table[r == 2 ? n + j : 2 * j + 1] = -y[j];
    }
  }
  return z;
}

std::map<std::int64_t, std::int64_t> keys(const std::vector<std::int64_t>& z, std::size_t r, std::size_t c) {
  std::map<std::int64_t, std::int64_t> counts;
  for (std::size_t t = 0; t < z.size() / (r * c); ++t) ++counts[table_laws::key(z.data() + t * r * c, r, c)];
  return counts;
}

// ---- 1. the enumerated law -------------------------------------------------

void check_against_enumeration(std::size_t r, std::size_t c, Rational b, std::uint64_t seed) {
  constexpr std::size_t kTables = 200000;
  const double bd = b.to_double();
  const int radius = int(std::ceil(20 * bd)) + 4;  // a free cell beyond costs exp(-2 radius/b) < e^-40
  const auto law = table_laws::l1_law(r, c, bd, radius);
  const std::string shape = std::to_string(r) + " x " + std::to_string(c);
  const ChiSquare fit = goodness_of_fit(law, keys(draw(Variant::exact, r, c, b, kTables, seed), r, c), kTables);
  report(shape + " two-line exact vs enumerated law", fit);
  EXPECT_TRUE(fit.passes()) << shape;
  const ChiSquare off = goodness_of_fit(table_laws::l1_law(r, c, 1.1 * bd, radius),
                                        keys(draw(Variant::exact, r, c, b, kTables, seed), r, c), kTables);
  report(shape + "   same draws vs law at b x 1.1 (must fail)", off);
  EXPECT_FALSE(off.passes()) << shape;
  for (Variant v : {Variant::wrong_scale, Variant::no_conditioning, Variant::one_sided_bridge}) {
    const ChiSquare wrong = goodness_of_fit(law, keys(draw(v, r, c, b, kTables, seed + 1), r, c), kTables);
    report(shape + "   sampler " + name(v) + " (must fail)", wrong);
    EXPECT_FALSE(wrong.passes()) << shape << " " << name(v);
  }
}

TEST(StatTwoLineTable, MatchesTheEnumeratedLawOn2x3) { check_against_enumeration(2, 3, Rational{2, 1}, 101); }
TEST(StatTwoLineTable, MatchesTheEnumeratedLawOn2x4) { check_against_enumeration(2, 4, Rational{3, 2}, 102); }
TEST(StatTwoLineTable, MatchesTheEnumeratedLawOn4x2) { check_against_enumeration(4, 2, Rational{2, 1}, 103); }

// ---- 2. the row-rejection oracle -------------------------------------------

void check_against_oracle(std::size_t r, std::size_t c, Rational b, std::uint64_t seed) {
  constexpr std::size_t kTables = 20000;
  RowRejectionSampler oracle(b, r, c);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> reference(kTables * r * c);
  for (std::size_t t = 0; t < kTables; ++t) oracle.sample(*rng, reference.data() + t * r * c, {});
  const TableStatistics truth = table_statistics(reference, r, c);
  const std::string shape = std::to_string(r) + " x " + std::to_string(c);
  EXPECT_TRUE(same_table_law(table_statistics(draw(Variant::exact, r, c, b, kTables, seed + 1), r, c), truth,
                       shape + " two-line exact vs oracle"));
  for (Variant v : {Variant::wrong_scale, Variant::no_conditioning, Variant::one_sided_bridge}) {
    EXPECT_FALSE(same_table_law(table_statistics(draw(v, r, c, b, kTables, seed + 2), r, c), truth,
                          shape + "   " + name(v) + " vs oracle (must fail)"))
        << shape << " " << name(v);
  }
}

TEST(StatTwoLineTable, AgreesWithRowRejectionOn2x10) { check_against_oracle(2, 10, Rational{2, 1}, 201); }
TEST(StatTwoLineTable, AgreesWithRowRejectionOn12x2) { check_against_oracle(12, 2, Rational{2, 1}, 202); }

// ---- 3. second moments at n = 10^4 -----------------------------------------

struct TableMoments {
  double square = 0, lag = 0, half = 0;  // z-scores
};

TableMoments moments(Variant variant, Rational b, double variance, std::uint64_t seed, const char* label) {
  constexpr std::size_t kN = 10000, kTables = 400;
  const auto z = draw(variant, 2, kN, b, kTables, seed);
  double s[3] = {0, 0, 0}, ss[3] = {0, 0, 0};
  for (std::size_t t = 0; t < kTables; ++t) {
    const std::int64_t* y = z.data() + t * 2 * kN;
    double square = 0, lag = 0, half = 0;
    for (std::size_t j = 0; j < kN; ++j) {
      square += double(y[j]) * double(y[j]);
      if (j + 1 < kN) lag += double(y[j]) * double(y[j + 1]);
      if (j < kN / 2) half += double(y[j]);
    }
    const double v[3] = {square / kN, lag / (kN - 1), half};
    for (int k = 0; k < 3; ++k) s[k] += v[k], ss[k] += v[k] * v[k];
  }
  const double target[3] = {variance, -variance / (kN - 1), 0};
  double score[3];
  for (int k = 0; k < 3; ++k) {
    const double mean = s[k] / kTables, var = (ss[k] - s[k] * s[k] / kTables) / (kTables - 1);
    score[k] = (mean - target[k]) / std::sqrt(var / kTables);
  }
  std::printf("[stat] 2 x 10^4, %s: mean z^2 %.4f (exact %.4f), z = %.2f; lag-one z = %.2f; half-row sum z = %.2f\n",
              label, s[0] / kTables, variance, score[0], score[1], score[2]);
  return {score[0], score[1], score[2]};
}

TEST(StatTwoLineTable, SecondMomentsAtTenThousandColumns) {
  const Rational b{4, 1};
  const double variance = conditioned_laplace_variance(half_of(b), 10000);
  const TableMoments exact = moments(Variant::exact, b, variance, 301, "exact");
  EXPECT_LT(std::fabs(exact.square), kZTwoLines);
  EXPECT_LT(std::fabs(exact.lag), kZTwoLines);
  EXPECT_LT(std::fabs(exact.half), kZTwoLines);
  // Power: 3% wider, and without conditioning (the closing cell carries
  // the whole sum's variance, so z^2 averages about twice the variance).
  const TableMoments wider = moments(Variant::exact, Rational{103, 25}, variance, 302, "b x 1.03 (must fail)");
  EXPECT_GT(std::fabs(wider.square), kZTwoLines);
  const TableMoments unconditioned = moments(Variant::no_conditioning, b, variance, 303, "no conditioning (must fail)");
  EXPECT_GT(std::fabs(unconditioned.square), kZTwoLines);
}

// ---- 4. the lattice Gaussian -----------------------------------------------

TEST(StatTwoLineTable, GaussianMatchesTheEnumeratedLawOn2x3) {
  constexpr std::size_t kTables = 200000;
  const std::size_t r = 2, c = 3;
  std::vector<LatticeTable> tables(kTables);
  for (std::size_t t = 0; t < kTables; ++t) {
    tables[t].shape = {r, c};
    tables[t].cells.resize(r * c);
    std::iota(tables[t].cells.begin(), tables[t].cells.end(), t * r * c);
  }
  std::vector<std::int64_t> z(kTables * r * c);
  auto rng = make_seeded_random_source(401);
  sample_gaussian_on_two_line_tables(*rng, Rational{3, 1}, tables, z.size(), z.data(), {});
  auto gaussian = [](double sigma2) {
    return table_laws::enumerate(2, 3, 30, [sigma2](const std::vector<std::int64_t>& t) {
      double q = 0;
      for (auto x : t) q += double(x) * double(x);
      return std::exp(-q / (2 * sigma2));
    });
  };
  const ChiSquare fit = goodness_of_fit(gaussian(3), keys(z, r, c), kTables);
  const ChiSquare off = goodness_of_fit(gaussian(3.6), keys(z, r, c), kTables);
  report("2 x 3 two-line gaussian vs enumerated law", fit);
  report("  same draws vs sigma^2 x 1.2 (must fail)", off);
  EXPECT_TRUE(fit.passes());
  EXPECT_FALSE(off.passes());
}

}  // namespace
}  // namespace invariant_dp
