// Statistical tests of the exact sampler of 3 x n and n x 3 tables with
// both margins (samplers/three_line_table.hpp), fixed seeds, thresholds
// from the math:
//  1. against the enumerated l1 law on 3 x 2, 2 x 3 (lines as columns) and
//     3 x 3 (N = 2e5 tables): chi-square goodness of fit on the whole
//     table at p = 1e-6 (chi_square.hpp). Power, each must be rejected: the
//     same draws against the law at b x 1.1, and the sampler that retries a
//     rejected second line without restarting the first (DERIVATIONS.md,
//     section 3), N = 2e5 as well.
//  2. against the row-rejection oracle (row_rejection_table.hpp) on 3 x 8
//     and 7 x 3 (N = 2e4 each): two-sample chi-square on |z_00|,
//     z_00 + z_11, max |z_ij| and ||z||_1 at p = 1e-6 each. Power: the
//     sampler at b x 1.1 must be rejected by at least one of the four.
//  3. 3 x 10^4 at b = 4 (100 tables): the mean of z_ij^2 over a table
//     against the variance of one entry of a free column, (1 + p) Var K
//     (DERIVATIONS.md, section 1), which the conditioning moves by O(1/n)
//     (about 2/n relative for two lines: 2e-4, a sixth of the test's
//     standard error here); the first half-row's sum against 0. z-tests at
//     |z| < 4.89 (1e-6). Power: the sampler at b x 1.03 fails.
// Assertions expected to pass: 3 + 8 + 2 = 13 at about 1e-6 each: a
// correct sampler fails this file with probability about 1.3e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "random_source.hpp"
#include "samplers/row_rejection_table.hpp"
#include "samplers/three_line_table.hpp"
#include "table_laws.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
using table_laws::same_table_law;
using table_laws::table_statistics;
using table_laws::TableStatistics;
constexpr double kZThreeLines = 4.8916;

// `count` r x c tables, row-major one after the other.
std::vector<std::int64_t> draw_three_lines(std::size_t r, std::size_t c, Rational b, std::size_t count,
                                           std::uint64_t seed) {
  std::vector<LatticeTable> tables(count);
  for (std::size_t t = 0; t < count; ++t) {
    tables[t].shape = {r, c};
    tables[t].cells.resize(r * c);
    std::iota(tables[t].cells.begin(), tables[t].cells.end(), t * r * c);
  }
  std::vector<std::int64_t> z(count * r * c);
  auto rng = make_seeded_random_source(seed);
  sample_laplace_on_three_line_tables(*rng, b, tables, z.size(), z.data(), {});
  return z;
}

std::map<std::int64_t, std::int64_t> key_counts_three_lines(const std::vector<std::int64_t>& z, std::size_t r,
                                                            std::size_t c) {
  std::map<std::int64_t, std::int64_t> counts;
  for (std::size_t t = 0; t < z.size() / (r * c); ++t) ++counts[table_laws::key(z.data() + t * r * c, r, c)];
  return counts;
}

// ---- 1. the enumerated law -------------------------------------------------

void check_three_lines_against_enumeration(std::size_t r, std::size_t c, Rational b, std::uint64_t seed) {
  constexpr std::size_t kTables = 200000;
  const double bd = b.to_double();
  // A free cell at distance R costs a 2 x 2 swap's l1 norm 4R at least:
  // weight below e^-40 beyond.
  const int radius = int(std::ceil(10 * bd)) + 2;
  const auto law = table_laws::l1_law(r, c, bd, radius);
  const std::string shape = std::to_string(r) + " x " + std::to_string(c);
  const auto z = draw_three_lines(r, c, b, kTables, seed);
  const ChiSquare fit = goodness_of_fit(law, key_counts_three_lines(z, r, c), kTables);
  const ChiSquare off =
      goodness_of_fit(table_laws::l1_law(r, c, 1.1 * bd, radius), key_counts_three_lines(z, r, c), kTables);
  report(shape + " three-line exact vs enumerated law", fit);
  report(shape + "   same draws vs law at b x 1.1 (must fail)", off);
  EXPECT_TRUE(fit.passes()) << shape;
  EXPECT_FALSE(off.passes()) << shape;
  if (r != 3) return;  // the power check draws 3 x n tables
  std::vector<std::int64_t> wrong(kTables * r * c);
  auto rng = make_seeded_random_source(seed + 1);
  sample_three_line_without_restart(*rng, b, c, kTables, wrong.data(), {});
  const ChiSquare bad = goodness_of_fit(law, key_counts_three_lines(wrong, r, c), kTables);
  report(shape + "   second line retried without restarting the first (must fail)", bad);
  EXPECT_FALSE(bad.passes()) << shape;
}

TEST(StatThreeLineTable, MatchesTheEnumeratedLawOn3x2) {
  check_three_lines_against_enumeration(3, 2, Rational{3, 2}, 501);
}
TEST(StatThreeLineTable, MatchesTheEnumeratedLawOn2x3) {
  check_three_lines_against_enumeration(2, 3, Rational{3, 2}, 502);
}
TEST(StatThreeLineTable, MatchesTheEnumeratedLawOn3x3) {
  check_three_lines_against_enumeration(3, 3, Rational{3, 2}, 503);
}
// h = b/2 > 1: the plateau's inside points are proposed by their share and
// kept with probability h (1 - exp(-1/h)), instead of kept with 1 - rho.
TEST(StatThreeLineTable, MatchesTheEnumeratedLawOn3x2AtALargerScale) {
  check_three_lines_against_enumeration(3, 2, Rational{5, 2}, 504);
}

// ---- 2. the row-rejection oracle -------------------------------------------

void check_three_lines_against_oracle(std::size_t r, std::size_t c, Rational b, std::uint64_t seed) {
  constexpr std::size_t kTables = 20000;
  RowRejectionSampler oracle(b, r, c);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> reference(kTables * r * c);
  for (std::size_t t = 0; t < kTables; ++t) oracle.sample(*rng, reference.data() + t * r * c, {});
  const TableStatistics truth = table_statistics(reference, r, c);
  const std::string shape = std::to_string(r) + " x " + std::to_string(c);
  EXPECT_TRUE(same_table_law(table_statistics(draw_three_lines(r, c, b, kTables, seed + 1), r, c), truth,
                             shape + " three-line vs oracle"));
  EXPECT_FALSE(same_table_law(
      table_statistics(draw_three_lines(r, c, Rational{b.num * 11, b.den * 10}, kTables, seed + 2), r, c), truth,
      shape + "   b x 1.1 vs oracle (must fail)"));
}

TEST(StatThreeLineTable, AgreesWithRowRejectionOn3x8) { check_three_lines_against_oracle(3, 8, Rational{3, 2}, 601); }
TEST(StatThreeLineTable, AgreesWithRowRejectionOn7x3) { check_three_lines_against_oracle(7, 3, Rational{3, 2}, 602); }
TEST(StatThreeLineTable, AgreesWithRowRejectionOn3x8AtALargerScale) {
  check_three_lines_against_oracle(3, 8, Rational{6, 1}, 603);
}

// ---- 3. a long table -------------------------------------------------------

struct Scores {
  double mean_square, square, half;
};

Scores long_table(Rational b, double variance, std::uint64_t seed) {
  constexpr std::size_t kN = 10000, kTables = 100;
  const auto z = draw_three_lines(3, kN, b, kTables, seed);
  double s[2] = {0, 0}, ss[2] = {0, 0};
  for (std::size_t t = 0; t < kTables; ++t) {
    const std::int64_t* table = z.data() + t * 3 * kN;
    double square = 0, half = 0;
    for (std::size_t k = 0; k < 3 * kN; ++k) square += double(table[k]) * double(table[k]);
    for (std::size_t j = 0; j < kN / 2; ++j) half += double(table[j]);
    const double v[2] = {square / (3 * kN), half};
    for (int k = 0; k < 2; ++k) s[k] += v[k], ss[k] += v[k] * v[k];
  }
  const double target[2] = {variance, 0};
  double score[2];
  for (int k = 0; k < 2; ++k) {
    const double mean = s[k] / kTables, var = (ss[k] - s[k] * s[k] / kTables) / (kTables - 1);
    score[k] = (mean - target[k]) / std::sqrt(var / kTables);
  }
  return {s[0] / kTables, score[0], score[1]};
}

TEST(StatThreeLineTable, LongTableHasTheColumnLawsVariance) {
  const Rational b{4, 1};
  const double rho = std::exp(-2 / b.to_double());
  const double p = (1 + rho) * (1 + rho) / (1 + 4 * rho + rho * rho);
  const double variance = (1 + p) * 2 * rho / ((1 - rho) * (1 - rho));
  const Scores exact = long_table(b, variance, 701);
  const Scores wider = long_table(Rational{103, 25}, variance, 702);
  std::printf("[stat] 3 x 10^4, b = 4: mean z^2 %.4f (limit %.4f), z = %.2f; half-row sum z = %.2f\n",
              exact.mean_square, variance, exact.square, exact.half);
  std::printf("[stat] 3 x 10^4, b x 1.03 (must fail): mean z^2 %.4f, z = %.2f\n", wider.mean_square, wider.square);
  EXPECT_LT(std::fabs(exact.square), kZThreeLines);
  EXPECT_LT(std::fabs(exact.half), kZThreeLines);
  EXPECT_GT(std::fabs(wider.square), kZThreeLines);
}

}  // namespace
}  // namespace invariant_dp
