// One cell's law of a complete two-way integer_laplace table
// (accuracy/laplace_table_cell.hpp; DERIVATIONS.md beside it, section 15):
// against exact enumeration of 3 x 3 tables and convolution of 3 x 5 ones,
// against the computed covariance scale of 3 x 40, 4 x 4 and 4 x 9 tables
// (the law's second moment), and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "accuracy/laplace_table_cell.hpp"
#include "accuracy/laplace_table_sparse_sum.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "table_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

// P(|Z_11| = s) for s = 0 .. R of a 3 x 3 table (table_laws.hpp enumerates it).
std::vector<double> enumerated_3x3_cell(double b, std::int64_t R) {
  std::vector<std::int64_t> first(9, 0);
  first[0] = 1;
  std::vector<double> out(static_cast<std::size_t>(R) + 1, 0);
  for (const auto& [x, p] : table_laws::l1_sum_law_3x3(b, first, R))
    if (std::llabs(x) <= R) out[static_cast<std::size_t>(std::llabs(x))] += p;
  return out;
}

// The same for a 3 x n table by convolving its columns: each column a
// zero-sum line (y_1, y_2, -y_1 - y_2), the first column's y_1 the cell
// asked, the others summed into the partial row sums (S_1, S_2), which the
// first column must cancel.
std::vector<double> convolved_3xn_cell(double b, std::size_t n, std::int64_t R) {
  const auto W = [&](std::int64_t x) { return std::exp(-std::fabs(double(x)) / b); };
  const std::int64_t side = 2 * R + 1;
  std::vector<long double> line(static_cast<std::size_t>(side * side));
  for (std::int64_t y1 = -R; y1 <= R; ++y1)
    for (std::int64_t y2 = -R; y2 <= R; ++y2)
      line[static_cast<std::size_t>((y1 + R) * side + (y2 + R))] = W(y1) * W(y2) * W(-y1 - y2);
  // The sum of n - 1 columns, over [-(n-1)R, (n-1)R]^2.
  std::vector<long double> sum = line;
  std::int64_t reach = R;
  for (std::size_t k = 2; k < n; ++k) {
    const std::int64_t next_reach = reach + R, ns = 2 * next_reach + 1, os = 2 * reach + 1;
    std::vector<long double> next(static_cast<std::size_t>(ns * ns), 0);
    for (std::int64_t p = -reach; p <= reach; ++p)
      for (std::int64_t q = -reach; q <= reach; ++q) {
        const long double v = sum[static_cast<std::size_t>((p + reach) * os + (q + reach))];
        if (v == 0) continue;
        for (std::int64_t y1 = -R; y1 <= R; ++y1)
          for (std::int64_t y2 = -R; y2 <= R; ++y2)
            next[static_cast<std::size_t>((p + y1 + next_reach) * ns + (q + y2 + next_reach))] +=
                v * line[static_cast<std::size_t>((y1 + R) * side + (y2 + R))];
      }
    sum = std::move(next);
    reach = next_reach;
  }
  const std::int64_t os = 2 * reach + 1;
  std::vector<long double> mass(static_cast<std::size_t>(R) + 1, 0);
  long double total = 0;
  for (std::int64_t y1 = -R; y1 <= R; ++y1)
    for (std::int64_t y2 = -R; y2 <= R; ++y2) {
      const long double p = line[static_cast<std::size_t>((y1 + R) * side + (y2 + R))] *
                            sum[static_cast<std::size_t>((-y1 + reach) * os + (-y2 + reach))];
      total += p;
      mass[static_cast<std::size_t>(std::llabs(y1))] += p;
    }
  std::vector<double> out(mass.size());
  for (std::size_t s = 0; s < mass.size(); ++s) out[s] = double(mass[s] / total);
  return out;
}

void expect_encloses(const TableCellCoverage& c, const std::vector<double>& mass, double width) {
  double cumulative = 0;
  for (std::size_t t = 0; t < c.lower.size(); ++t) {
    cumulative += mass[t];
    EXPECT_LE(c.lower[t], cumulative + 1e-14) << t;
    EXPECT_GE(c.upper[t], cumulative - 1e-14) << t;
    EXPECT_LT(c.upper[t] - c.lower[t], width) << t;
  }
}

TEST(LaplaceTableCell, ThreeByThreeMatchesEnumeration) {
  for (const CellQuadrature quadrature : {CellQuadrature::all_angles, CellQuadrature::asked_angle_by_residues})
    for (const auto& [b, R] : {std::pair<Rational, std::int64_t>{{7, 10}, 30}, {{6, 5}, 48}}) {
      const std::vector<double> mass = enumerated_3x3_cell(b.to_double(), R);
      const TableCellCoverage c =
          laplace_table_cell_coverage(b, 3, 3, 8, Interrupts(), kTableCellWork, nullptr, quadrature);
      expect_encloses(c, mass, 1e-9);
    }
}

// The asked cell's angle by residues against the grid over all angles:
// the same law, within both enclosures, on three- and four-line tables of
// several lengths and scales; and another table's law told apart.
TEST(LaplaceTableCell, ResiduesAgreeWithAllAngles) {
  struct Case {
    Rational b;
    std::size_t rows, cols;
    std::int64_t T;
  };
  for (const Case& k : {Case{{9, 4}, 4, 4, 12}, Case{{4, 1}, 5, 4, 16}, Case{{3, 2}, 4, 12, 10}, Case{{8, 1}, 3, 3, 24},
                        Case{{20, 1}, 3, 4, 50}, Case{{7, 10}, 12, 3, 6}}) {
    const TableCellCoverage all =
        laplace_table_cell_coverage(k.b, k.rows, k.cols, k.T, Interrupts(), 1e9, nullptr, CellQuadrature::all_angles);
    const TableCellCoverage by_residues = laplace_table_cell_coverage(k.b, k.rows, k.cols, k.T, Interrupts(), 1e9,
                                                                      nullptr, CellQuadrature::asked_angle_by_residues);
    for (std::size_t t = 0; t <= std::size_t(k.T); ++t) {
      EXPECT_LE(by_residues.lower[t], all.upper[t]) << k.rows << " x " << k.cols << " at " << t;
      EXPECT_LE(all.lower[t], by_residues.upper[t]) << k.rows << " x " << k.cols << " at " << t;
      EXPECT_LT(by_residues.upper[t] - by_residues.lower[t], 1e-9) << t;
    }
  }
  const TableCellCoverage four =
      laplace_table_cell_coverage({4, 1}, 4, 4, 4, Interrupts(), 1e9, nullptr, CellQuadrature::asked_angle_by_residues);
  const TableCellCoverage five =
      laplace_table_cell_coverage({4, 1}, 4, 5, 4, Interrupts(), 1e9, nullptr, CellQuadrature::all_angles);
  EXPECT_GT(std::fabs(four.lower[0] - five.lower[0]), 1e-4);
  // Past twelve lines the residues are not taken.
  EXPECT_THROW(laplace_table_cell_coverage({2, 1}, 3, 13, 4, Interrupts(), 1e9, nullptr,
                                           CellQuadrature::asked_angle_by_residues),
               InvalidArgument);
}

// Short tables at small epsilon, where the grid over all angles is past a
// release's work: exact by residues (a 4 x 4 table at b = 12, epsilon
// about 1/3 under replace_one; a 3 x 3 table at b = 100).
TEST(LaplaceTableCell, ShortTablesAtSmallEpsilonAreExact) {
  struct Case {
    Rational b;
    std::size_t rows, cols;
  };
  for (const Case& k : {Case{{12, 1}, 4, 4}, Case{{100, 1}, 3, 3}}) {
    const std::int64_t T = discrete_laplace_half_width(k.b, 0.9) + 2;
    EXPECT_THROW(laplace_table_cell_coverage(k.b, k.rows, k.cols, T, Interrupts(), kTableCellWork, nullptr,
                                             CellQuadrature::all_angles),
                 TooLarge);
    const TableCellQuantile q = laplace_table_cell_quantile(k.b, k.rows, k.cols, 0.9, Interrupts());
    EXPECT_TRUE(q.quantile.exact) << k.rows << " x " << k.cols;
    EXPECT_LE(q.work, kTableCellWork);
    // Conditioning on the margins narrows the cell's law: below the
    // unconditioned cell's quantile; and within a fifth of the normal one
    // at the cell's computed variance (a Laplace law's is 0.99 times it).
    const TableScale scale = table_covariance_scale({IntegerNoise::Kind::laplace, k.b}, k.rows, k.cols, Interrupts());
    const double normal = normal_half_width(scale.cell_variance, 0.9);
    EXPECT_LT(q.quantile.half_width, T - 2);
    EXPECT_GT(double(q.quantile.half_width), 0.8 * normal);
    EXPECT_LT(double(q.quantile.half_width), 1.2 * normal);
  }
}

TEST(LaplaceTableCell, ThreeByFiveMatchesConvolution) {
  const Rational b{7, 10};
  const std::vector<double> mass = convolved_3xn_cell(b.to_double(), 5, 28);
  const TableCellCoverage c = laplace_table_cell_coverage(b, 3, 5, 10, Interrupts());
  expect_encloses(c, mass, 1e-9);
  EXPECT_EQ(laplace_table_cell_coverage(b, 5, 3, 10, Interrupts()).lower, c.lower);
  // A wrong law is told apart: the 3 x 4 table's cell at the same scale.
  const std::vector<double> other = convolved_3xn_cell(b.to_double(), 4, 28);
  EXPECT_GT(std::fabs(other[0] - c.lower[0]), 1e-3);
}

// The law's second moment, sum_t t^2 P(|Z_11| = t), against the computed
// covariance scale's cell variance (an independent integral).
TEST(LaplaceTableCell, SecondMomentIsTheComputedVariance) {
  struct Case {
    Rational b;
    std::size_t rows, cols;
  };
  for (const Case& k : {Case{{5, 2}, 3, 40}, Case{{9, 4}, 4, 4}, Case{{3, 2}, 4, 9}, Case{{3, 2}, 12, 4}}) {
    const IntegerNoise noise{IntegerNoise::Kind::laplace, k.b};
    const TableScale scale = table_covariance_scale(noise, k.rows, k.cols, Interrupts());
    const std::int64_t T = std::int64_t(40 * k.b.to_double()) + 20;  // the mass beyond is below e^-40
    const TableCellCoverage c = laplace_table_cell_coverage(k.b, k.rows, k.cols, T, Interrupts(), 1e9);
    double second = 0, previous = 0;
    for (std::int64_t t = 0; t <= T; ++t) {
      const double mid = (c.lower[std::size_t(t)] + c.upper[std::size_t(t)]) / 2;
      second += double(t) * double(t) * (mid - previous);
      previous = mid;
    }
    EXPECT_NEAR(second / scale.cell_variance - 1, 0, 1e-8) << k.rows << " x " << k.cols;
    // Within the stated accuracy of the coverage (1e-9), whose bounds enclose 1.
    EXPECT_NEAR(previous, 1, 1e-9);
    EXPECT_GE(c.upper[std::size_t(T)], 1 - 1e-15);
  }
}

TEST(LaplaceTableCell, QuantileIsTheEnumeratedOne) {
  const Rational b{6, 5};
  const std::vector<double> mass = enumerated_3x3_cell(b.to_double(), 48);
  for (const double level : {0.5, 0.9, 0.99}) {
    std::int64_t t = 0;
    double cumulative = mass[0];
    while (cumulative < level) cumulative += mass[std::size_t(++t)];
    const Quantile q = laplace_table_cell_quantile(b, 3, 3, level, Interrupts()).quantile;
    EXPECT_EQ(q.half_width, t) << level;
    EXPECT_TRUE(q.exact);
    EXPECT_GE(q.coverage_lower, level);
  }
}

// The nodes' loop polls for cancellation: a stop asked at any poll ends the
// computation (Interrupted), and a run polls at least once per 4096 steps
// of work.
TEST(LaplaceTableCell, PollsForCancellation) {
  int left = std::numeric_limits<int>::max();
  const TableCellCoverage c =
      laplace_table_cell_coverage({9, 4}, 4, 4, 12, Interrupts(test_interrupts::pending_after, &left));
  const int polls = std::numeric_limits<int>::max() - left;
  EXPECT_GE(double(polls), c.work / 4096);
  for (const int passing : {0, polls / 2, polls - 1}) {
    int stop = passing;
    EXPECT_THROW(laplace_table_cell_coverage({9, 4}, 4, 4, 12, Interrupts(test_interrupts::pending_after, &stop)),
                 Interrupted)
        << passing;
  }
}

TEST(LaplaceTableCell, RefusesWhatItCannotCompute) {
  EXPECT_THROW(laplace_table_cell_coverage({1, 1}, 2, 9, 3, Interrupts()), InvalidArgument);
  EXPECT_THROW(laplace_table_cell_coverage({1, 1}, 5, 5, 3, Interrupts()), InvalidArgument);
  // A short wide table at a wide scale: refused before any node is evaluated.
  EXPECT_THROW(laplace_table_cell_coverage({52, 5}, 4, 5, 60, Interrupts(), 1e6), TooLarge);
  // A scale so wide that the cell's values to sum pass 2^20: too large, not malformed.
  EXPECT_THROW(laplace_table_cell_quantile({10000000, 1}, 3, 5, 0.9, Interrupts()), TooLarge);
}

// A kept quantile changes only the time: asked again within the work its
// search took, it is read without computing (no poll); under a lower limit
// it is searched again, as a first search would be. A refusal for work is
// kept with its limit: refused at once under it, searched again above it.
TEST(LaplaceTableCell, AKeptQuantileKeepsItsWork) {
  const Interrupts stop(test_interrupts::always_pending, nullptr);
  forget_kept_cell_quantiles();
  const TableCellQuantile first = laplace_table_cell_quantile({7, 2}, 3, 6, 0.9, Interrupts());
  ASSERT_GT(first.work, 0);
  const TableCellQuantile again = laplace_table_cell_quantile({7, 2}, 3, 6, 0.9, stop, first.work);
  EXPECT_EQ(again.work, first.work);
  EXPECT_EQ(again.quantile.half_width, first.quantile.half_width);
  EXPECT_THROW(laplace_table_cell_quantile({7, 2}, 3, 6, 0.9, stop, first.work / 2), Interrupted);
  // 4 x 4 at b = 8 (epsilon 0.5) under a limit of 2e6: both laws refuse
  // before any node (the one-pass law's least work is about 8.4e6 of the
  // cell's units; it finds the quantile within the release's 1.5e7).
  forget_kept_cell_quantiles();
  EXPECT_THROW(laplace_table_cell_quantile({8, 1}, 4, 4, 0.9, Interrupts(), 2e6), TooLarge);
  EXPECT_THROW(laplace_table_cell_quantile({8, 1}, 4, 4, 0.9, stop, 2e6), TooLarge);
  EXPECT_THROW(laplace_table_cell_quantile({8, 1}, 4, 4, 0.9, stop, 1e6), TooLarge);
  EXPECT_THROW(laplace_table_cell_quantile({8, 1}, 4, 4, 0.9, stop, 1e7), Interrupted);
}

// The one-pass law (a sum of this one cell, laplace_table_sparse_sum.hpp)
// gives the cell's quantile: on a 4 x 10 table at b = 5 (epsilon 4/5),
// where the grid over all angles is past a release's limit, the same as
// the residues' within it. On a 4 x 20 table at b = 10.4, past both (the
// residues take at most 12 lines), the search falls back on it. Refused
// for work by all, the search says so as the cell's law.
TEST(LaplaceTableCell, PastItsLimitTheOnePassLaw) {
  forget_kept_cell_quantiles();
  EXPECT_THROW(
      laplace_table_cell_coverage({5, 1}, 4, 10, 9, Interrupts(), kTableCellWork, nullptr, CellQuadrature::all_angles),
      TooLarge);
  const TableCellQuantile q = laplace_table_cell_quantile({5, 1}, 4, 10, 0.9, Interrupts());
  EXPECT_TRUE(q.quantile.exact);
  EXPECT_LE(q.work, kTableCellWork);
  double spent = 0;
  const SparseTableSum one_cell{4, 10, {{0, 1}}};
  const Quantile one_pass = sparse_sum_quantile({5, 1}, one_cell, 0.9, Interrupts(), 1e9, spent);
  EXPECT_EQ(one_pass.half_width, q.quantile.half_width);
  EXPECT_NEAR(one_pass.coverage_lower, q.quantile.coverage_lower, 1e-3);
  forget_kept_cell_quantiles();
  const std::int64_t T = discrete_laplace_half_width({52, 5}, 0.9) + 2;
  EXPECT_THROW(laplace_table_cell_coverage({52, 5}, 4, 20, T, Interrupts()), TooLarge);
  const TableCellQuantile long_table = laplace_table_cell_quantile({52, 5}, 4, 20, 0.9, Interrupts());
  EXPECT_TRUE(long_table.quantile.exact);
  EXPECT_LE(long_table.work, kTableCellWork);
  forget_kept_cell_quantiles();
  try {
    laplace_table_cell_quantile({8, 1}, 4, 4, 0.9, Interrupts(), 2e6);
    ADD_FAILURE() << "4 x 4 at b = 8 within 2e6";
  } catch (const TooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("table cell's law"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
