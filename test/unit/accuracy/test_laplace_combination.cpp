// Combinations of independent Laplace variables (accuracy/laplace_combination.hpp)
// against closed forms: one weight is Laplace; two equal weights have
// P(|X| <= x) = 1 - e^(-x/b) (1 + x/(2b)); distinct weights a_j = b |v_j|
// are a signed mixture of Laplace laws by partial fractions,
// phi = sum_j A_j / (1 + a_j^2 theta^2), A_j = prod_{k != j} a_j^2 / (a_j^2 - a_k^2).
// The enclosure holds the closed form and is narrower than 1e-11; the
// quantile is the closed form's root within its resolution. The weights of
// projected Laplace noise's functionals (accuracy/projected_laplace.hpp)
// against the dense projector, for every structure, as sizes and as
// integer numerators; the lattice law of projected discrete Laplace noise
// against a direct convolution; refusals; cancels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/integer_noise_transforms.hpp"
#include "accuracy/laplace_combination.hpp"
#include "accuracy/projected_laplace.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp::accuracy {
namespace {

using namespace accuracy_fixtures;

// P(|X| <= x) for distinct scales a_j, each once, by partial fractions.
double mixture_coverage(const std::vector<double>& a, double x) {
  long double p = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    long double A = 1;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (k != j) A *= (long double)a[j] * a[j] / ((long double)a[j] * a[j] - (long double)a[k] * a[k]);
    p += A * -std::expm1(-(long double)x / a[j]);
  }
  return double(p);
}

// The root in x of coverage(x) = level, by bisection on the closed form.
template <class F>
double closed_form_quantile(F coverage, double level, double hi) {
  double lo = 0;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (coverage(mid) < level ? lo : hi) = mid;
  }
  return hi;
}

void expect_combination_encloses(const LaplaceCombination& law, double x, double expected) {
  const CoverageBounds c = law.coverage(x, Interrupts());
  EXPECT_LE(c.lower, expected + 1e-15) << "x " << x;
  EXPECT_GE(c.upper, expected - 1e-15) << "x " << x;
  EXPECT_LT(c.upper - c.lower, 1e-11) << "x " << x;
}

TEST(LaplaceCombination, OneWeightIsLaplace) {
  for (const double level : {0.5, 0.9, 0.99}) {
    const RealQuantile q = laplace_combination_quantile(2.5, {{0.75, 1}}, level, Interrupts());
    const double expected = -2.5 * 0.75 * std::log1p(-level);
    EXPECT_TRUE(q.exact);
    EXPECT_GE(q.half_width, expected * (1 - 1e-12));
    EXPECT_LE(q.half_width, expected * (1 + kQuantileResolution));
  }
}

TEST(LaplaceCombination, TwoEqualWeightsMatchTheirClosedForm) {
  // As one weight carried twice (laplace_closed_form.hpp) and as two
  // terms of equal weight (the Fourier series).
  const double b = 3;
  const auto coverage = [b](double x) { return double(1 - std::exp(-(long double)x / b) * (1 + x / (2 * b))); };
  const LaplaceCombination closed(b, {{1, 2}}, 60, Interrupts()), series(b, {{1, 1}, {1, 1}}, 60, Interrupts());
  EXPECT_TRUE(closed.closed_form());
  EXPECT_FALSE(series.closed_form());
  for (const double x : {0.0, 0.01, 0.5, 2.0, 7.3, 15.0, 40.0, 60.0}) {
    expect_combination_encloses(closed, x, coverage(x));
    expect_combination_encloses(series, x, coverage(x));
  }
  for (const auto& terms : {std::vector<LaplaceTerm>{{1, 2}}, std::vector<LaplaceTerm>{{1, 1}, {1, 1}}})
    for (const double level : {0.5, 0.9, 0.99}) {
      const RealQuantile q = laplace_combination_quantile(b, terms, level, Interrupts());
      const double expected = closed_form_quantile(coverage, level, 100);
      EXPECT_TRUE(q.exact) << level;
      EXPECT_GE(q.half_width, expected * (1 - 1e-12)) << level;
      EXPECT_LE(q.half_width, expected * (1 + kQuantileResolution)) << level;
      EXPECT_GE(q.coverage_lower, level);
      EXPECT_LT(q.narrower_upper, level);
    }
}

TEST(LaplaceCombination, DistinctWeightsMatchTheirPartialFractions) {
  const double b = 1.7;
  const std::vector<double> v = {1, 0.7, 0.45, 0.3, 0.2};
  std::vector<LaplaceTerm> terms;
  std::vector<double> a;
  for (const double w : v) {
    terms.push_back({w, 1});
    a.push_back(b * w);
  }
  const LaplaceCombination law(b, terms, 30, Interrupts());
  for (const double x : {0.1, 1.0, 2.2, 3.9, 8.0, 30.0}) expect_combination_encloses(law, x, mixture_coverage(a, x));
  for (const double level : {0.5, 0.9, 0.99}) {
    const RealQuantile q = laplace_combination_quantile(b, terms, level, Interrupts());
    const double expected = closed_form_quantile([&](double x) { return mixture_coverage(a, x); }, level, 100);
    EXPECT_TRUE(q.exact) << level;
    EXPECT_GE(q.half_width, expected * (1 - 1e-12)) << level;
    EXPECT_LE(q.half_width, expected * (1 + kQuantileResolution)) << level;
  }
  // Power: the law of slightly different weights is outside the enclosure.
  std::vector<double> other = a;
  other[1] *= 1.01;
  const CoverageBounds c = law.coverage(2.2, Interrupts());
  EXPECT_GT(std::fabs(mixture_coverage(other, 2.2) - (c.lower + c.upper) / 2), 1e-4);
}

// A cell of a large table: one weight near 1, a few thousand near 1e-3 and
// a million near 1e-6. Its quantile lies between the lone cell's Laplace
// quantile and Gauss's bound, and takes few series terms (the small
// weights decay phi like a Gaussian).
TEST(LaplaceCombination, ACellOfALargeTableIsCheap) {
  const std::vector<LaplaceTerm> terms = cell_projected_weights({1000, 1000});
  ASSERT_EQ(terms.size(), 3u);  // its row's and its column's cells share one size
  double variance = 0;
  for (const LaplaceTerm& t : terms) variance += 2 * t.count * t.weight * t.weight;
  const LaplaceCombination law(1, terms, 10, Interrupts());
  EXPECT_LT(law.series_terms(), 200000u);
  const RealQuantile q = laplace_combination_quantile(1, terms, 0.9, Interrupts());
  EXPECT_TRUE(q.exact);
  EXPECT_GT(q.half_width, -0.998 * 0.998 * std::log(0.1));
  EXPECT_LT(q.half_width, std::sqrt(variance) * 2.11);
}

TEST(LaplaceCombination, RefusesBadArgumentsAndTooMuchWork) {
  EXPECT_THROW(LaplaceCombination(0, {{1, 1}}, 1, Interrupts()), InvalidArgument);
  EXPECT_THROW(LaplaceCombination(1, {{0, 3}}, 1, Interrupts()), InvalidArgument);
  EXPECT_THROW(LaplaceCombination(1, {{NAN, 1}}, 1, Interrupts()), InvalidArgument);
  EXPECT_THROW(LaplaceCombination(1, {{1, 0.5}}, 1, Interrupts()), InvalidArgument);
  // A series of too many terms (three weights: no closed form).
  EXPECT_THROW(LaplaceCombination(1, {{1, 1}, {1e-6, 1}, {2e-6, 1}}, 1, Interrupts(), 1e3), TooLarge);
  const LaplaceCombination law(1, {{1, 1}, {0.5, 1}}, 5, Interrupts());
  EXPECT_THROW(law.coverage(6, Interrupts()), InvalidArgument);
}

TEST(LaplaceCombination, ACancelStopsTheSeries) {
  std::vector<LaplaceTerm> terms;
  for (int k = 1; k <= 3000; ++k) terms.push_back({1.0 / k, 1});
  int polls_left = 2;
  EXPECT_THROW(laplace_combination_quantile(1, terms, 0.9, Interrupts(test_interrupts::pending_after, &polls_left)),
               Interrupted);
}

// The sizes of Pi_N w, expanded, against the dense projector's.
void expect_weights_match(const Release& release, const char* structure, std::uint64_t seed) {
  const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
  const auto form = form_of_model(*release.model, Interrupts());
  ASSERT_STREQ(form->structure(), structure);
  std::mt19937_64 gen(seed);
  for (int trial = 0; trial < 20; ++trial) {
    const CellQuery q = random_query(release.n(), trial < 3 ? 1.0 : 0.3, trial % 2 == 1, gen);
    const Eigen::VectorXd v = P * dense_weights(q, release.n());
    std::vector<double> expected;
    for (Eigen::Index i = 0; i < v.size(); ++i)
      if (std::fabs(v[i]) > 1e-9) expected.push_back(std::fabs(v[i]));
    std::sort(expected.begin(), expected.end());
    const auto terms = projected_weights(*form, q, Interrupts());
    ASSERT_TRUE(terms) << structure;
    std::vector<double> got;
    for (const LaplaceTerm& t : *terms)
      for (double c = 0; c < t.count; ++c) got.push_back(t.weight);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got.size(), expected.size()) << structure << " trial " << trial;
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-9) << structure;
  }
}

TEST(ProjectedLaplace, WeightsAreTheProjectionOfTheQuery) {
  expect_weights_match(Release(grid({3, 4}), 2, {}), "none", 1);
  expect_weights_match(Release(grid({5, 4}), 2, {{0}}), "partition", 2);
  expect_weights_match(Release(grid({4, 5}), 2, {{0}, {1}}), "tables", 3);
  expect_weights_match(Release(grid({3, 4, 2}), 3, {{0, 1}, {0, 2}, {1, 2}}), "tables", 4);
  expect_weights_match(Release(grid({3, 4, 2}), 3, {{0}, {1}, {2}}), "general", 5);
  // Blocks 3 x 4, 2 x 5 and a pinned 1 x 3, keyed (block, row, column).
  std::vector<Tuple> blocks;
  const int rows[] = {3, 2, 1}, cols[] = {4, 5, 3};
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < rows[b]; ++r)
      for (int c = 0; c < cols[b]; ++c) blocks.push_back({b, r, c});
  expect_weights_match(Release(blocks, 3, {{0, 1}, {0, 2}}), "tables", 6);
}

TEST(ProjectedLaplace, ACellsWeightsAreItsRowOfTheProjector) {
  const Release release(grid({4, 5}), 2, {{0}, {1}});
  const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
  std::vector<double> expected;
  for (Eigen::Index j = 0; j < P.cols(); ++j)
    if (std::fabs(P(7, j)) > 1e-12) expected.push_back(std::fabs(P(7, j)));
  std::sort(expected.begin(), expected.end());
  std::vector<double> got;
  for (const LaplaceTerm& t : cell_projected_weights({4, 5}))
    for (double c = 0; c < t.count; ++c) got.push_back(t.weight);
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-12);
}

TEST(ProjectedLaplace, NumeratorsAreTheProjectionTimesTheDenominator) {
  const Release releases[] = {Release(grid({3, 4}), 2, {}), Release(grid({5, 4}), 2, {{0}}),
                              Release(grid({4, 5}), 2, {{0}, {1}}),
                              Release(grid({3, 4, 2}), 3, {{0, 1}, {0, 2}, {1, 2}})};
  std::mt19937_64 gen(31);
  for (const Release& release : releases) {
    const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
    const auto form = form_of_model(*release.model, Interrupts());
    for (int trial = 0; trial < 10; ++trial) {
      const CellQuery q = random_query(release.n(), 0.3, trial % 2 == 1, gen);
      const auto w = projected_numerators(*form, q, Interrupts());
      ASSERT_TRUE(w) << form->structure();
      const Eigen::VectorXd v = P * dense_weights(q, release.n()) * double(w->denominator);
      std::vector<std::uint64_t> expected, got;
      for (Eigen::Index i = 0; i < v.size(); ++i) {
        const double x = std::fabs(v[i]);
        EXPECT_NEAR(x, std::round(x), 1e-8) << "an integer numerator";
        if (std::round(x) != 0) expected.push_back(std::uint64_t(std::round(x)));
      }
      for (const WeightedCells& c : w->numerators)
        for (std::uint64_t k = 0; k < c.cells; ++k) got.push_back(c.weight);
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(got, expected) << form->structure() << " trial " << trial;
    }
  }
  // The general form has no lattice here.
  const Release general(grid({3, 4, 2}), 3, {{0}, {1}, {2}});
  EXPECT_FALSE(projected_numerators(*form_of_model(*general.model, Interrupts()), all_cells(24), Interrupts()));
}

// General margins (a 5 x 6 table without three cells): a sum's margin is
// the quantile of the law of its projection by the dense projector.
TEST(ProjectedLaplace, GeneralMarginsSumsTakeTheirProjectionsLaw) {
  std::vector<Tuple> incomplete = grid({5, 6});
  for (const std::size_t drop : {17, 9, 2}) incomplete.erase(incomplete.begin() + std::ptrdiff_t(drop));
  const Release release(incomplete, 2, {{0}, {1}});
  const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
  const auto form = form_of_model(*release.model, Interrupts());
  ASSERT_STREQ(form->structure(), "general");
  const double b = 1.5;
  std::mt19937_64 gen(41);
  for (int trial = 0; trial < 8; ++trial) {
    const CellQuery q = random_query(release.n(), 0.2, trial % 2 == 1, gen);
    const Eigen::VectorXd v = P * dense_weights(q, release.n());
    std::vector<LaplaceTerm> dense;
    for (Eigen::Index j = 0; j < v.size(); ++j)
      if (std::fabs(v[j]) > 1e-12) dense.push_back({std::fabs(v[j]), 1});
    if (dense.empty()) continue;
    const RealQuantile expected = laplace_combination_quantile(b, dense, 0.9, Interrupts());
    const std::optional<MarginOfError> m = projected_laplace_margin(*form, b, q, 0.9, Interrupts());
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, Exactness::exact);
    EXPECT_NEAR(m->half_width, expected.half_width, 1e-8 * expected.half_width) << "trial " << trial;
  }
}

// A margin whose groups take 299 sizes: the first 256 shapes' cells take
// their laws, the others the tail bound, and the release says both.
TEST(ProjectedLaplace, AReleaseComputesItsShapesLawsWithinTheirWork) {
  std::vector<std::uint32_t> group_of_cell;
  for (std::uint32_t size = 2; size <= 300; ++size)
    for (std::uint32_t k = 0; k < size; ++k) group_of_cell.push_back(size - 2);
  std::shared_ptr<const ProjectorForm> form = partition_form(group_of_cell, 299);
  const LinearAccuracy continuous = projected_accuracy(form, 2.0);
  // The continuous laws of all 299 group sizes fit within one law's work:
  // every cell exact, the 258-cell group's as its own law gives it.
  const CellIntervals c = projected_laplace_intervals(continuous, 0.9, Interrupts());
  EXPECT_EQ(c.kind(), Exactness::exact) << c.method();
  EXPECT_EQ(c.method().find("Gauss's inequality"), std::string::npos) << c.method();
  std::size_t first_of_258 = 0;
  for (std::uint32_t size = 2; size < 258; ++size) first_of_258 += size;
  EXPECT_DOUBLE_EQ(c.half_width(std::uint32_t(first_of_258)),
                   laplace_combination_quantile(1, cell_projected_weights({258}), 0.9, Interrupts()).half_width);
  // The lattice law: every group size in one pass, by convolution, the
  // 258-cell group's as its own inversion gives it; where that pass is
  // past its work (b = 2000), each size's inversion, the first 256 sizes.
  const CellIntervals d = projected_discrete_laplace_intervals(continuous, Rational{1, 1}, 0.9, Interrupts());
  EXPECT_EQ(d.kind(), Exactness::exact) << d.method();
  EXPECT_NE(d.method().find("by convolution"), std::string::npos) << d.method();
  EXPECT_DOUBLE_EQ(d.half_width(std::uint32_t(first_of_258)),
                   discrete_combination_margin({1, 1}, cell_projected_numerators({258}), 0.9, {}).half_width);
  const CellIntervals wide = projected_discrete_laplace_intervals(continuous, Rational{2000, 1}, 0.9, Interrupts());
  EXPECT_NE(wide.method().find("Chebyshev"), std::string::npos) << wide.method();
  EXPECT_NE(wide.method().find("exact: the quantile of its law"), std::string::npos) << wide.method();
  EXPECT_NE(wide.method().find("Fourier inversion"), std::string::npos) << wide.method();
}

// A 2 x 3 block of a 1000 x 1000 table: its numerators over 10^6 have no
// weight equal to their gcd, so the lattice law would scan some 10^8 nodes:
// refused at once (the caller keeps Chebyshev's bound); the continuous law
// of the same weights is computed.
TEST(ProjectedLaplace, AWideLatticeLawIsRefusedBeforeItsScan) {
  std::vector<LatticeTable> tables{{{1000, 1000}, {}}};
  for (std::size_t i = 0; i < 1000000; ++i) tables[0].cells.push_back(i);
  const auto form = table_form(std::move(tables), 1000000);
  CellQuery block;
  for (std::uint32_t a = 0; a < 2; ++a)
    for (std::uint32_t b = 0; b < 3; ++b) {
      block.cells.push_back(a * 1000 + b);
      block.weights.push_back(1);
    }
  EXPECT_FALSE(projected_discrete_laplace_margin(*form, Rational{1, 1}, block, 0.9, Interrupts()));
  EXPECT_TRUE(projected_laplace_margin(*form, 1, block, 0.9, Interrupts()));
}

// Tables of three axes or more are made dense: a sum touching one of
// 128 x 128 x 65 cells (past 2^20) has no weights (the caller keeps the
// tail bound), refused before it is allocated; one of 64^3 is read. Groups
// and two-way tables are read from the query alone, whatever their size.
TEST(ProjectedLaplace, DenseTablesPastTheirLimitAreRefused) {
  const auto cube = [](std::size_t n0, std::size_t n1, std::size_t n2) {
    std::vector<LatticeTable> tables{{{n0, n1, n2}, {}}};
    for (std::size_t i = 0; i < n0 * n1 * n2; ++i) tables[0].cells.push_back(i);
    return table_form(std::move(tables), n0 * n1 * n2);
  };
  const CellQuery pair{{0, 1}, {1, 1}};
  EXPECT_FALSE(projected_numerators(*cube(128, 128, 65), pair, Interrupts()));
  EXPECT_TRUE(projected_numerators(*cube(64, 64, 64), pair, Interrupts()));
  const std::uint32_t half = (1u << 22) + 1;
  std::vector<std::uint32_t> group_of_cell(2 * std::size_t(half));
  for (std::size_t i = half; i < group_of_cell.size(); ++i) group_of_cell[i] = 1;
  const auto groups = partition_form(std::move(group_of_cell), 2);
  const auto both = projected_numerators(*groups, CellQuery{{0, half}, {1, 1}}, Interrupts());
  ASSERT_TRUE(both);
  EXPECT_EQ(both->denominator, half);
}

// D X for a cell of a 3 x 3 table (numerators 4, 2 x 4, 1 x 4 over 9) of
// discrete Laplace cells at b = 1.5, by convolving the cells' laws
// (truncated where their mass is below 1e-30).
TEST(ProjectedLaplace, TheLatticeLawIsTheConvolutionOfTheCells) {
  const Rational b{3, 2};
  const ScaledWeights cell = cell_projected_numerators({3, 3});
  ASSERT_EQ(cell.denominator, 9u);
  const long double a = std::exp(-1.0L / 1.5L);
  const int reach = 110;  // a^110 < 1e-30
  std::vector<long double> cell_law(2 * reach + 1);
  for (int e = -reach; e <= reach; ++e) cell_law[std::size_t(e + reach)] = (1 - a) / (1 + a) * std::pow(a, std::abs(e));
  std::vector<long double> law{1};  // P(D X = k - offset)
  int offset = 0;
  for (const WeightedCells& c : cell.numerators)
    for (std::uint64_t m = 0; m < c.cells; ++m) {
      const int w = int(c.weight);
      std::vector<long double> next(law.size() + 2 * std::size_t(reach * w), 0);
      for (std::size_t k = 0; k < law.size(); ++k)
        for (int e = -reach; e <= reach; ++e)
          next[k + std::size_t((e + reach) * w)] += law[k] * cell_law[std::size_t(e + reach)];
      law = std::move(next);
      offset += reach * w;
    }
  for (const double level : {0.5, 0.9, 0.99}) {
    long double covered = law[std::size_t(offset)];
    int q = 0;
    while (covered < level) {
      ++q;
      covered += law[std::size_t(offset + q)] + law[std::size_t(offset - q)];
    }
    const MarginOfError m = discrete_combination_margin(b, cell, level, Interrupts());
    EXPECT_EQ(m.kind, Exactness::exact) << level;
    EXPECT_DOUBLE_EQ(m.half_width, (q + 0.5) / 9) << level;
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
