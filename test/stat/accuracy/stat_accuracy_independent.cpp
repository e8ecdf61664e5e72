// Coverage of error bars for releases without invariants: discrete_laplace
// calibrated on a privacy unit's bounds (max_groups_per_unit 3,
// max_rows_per_group 2: the scale is the unit's, nothing else changes) and
// discrete_gaussian, over 10,000 releases of a fixed 10 x 12 table drawn
// with the project's samplers. Checked (thresholds: coverage_checks.hpp):
// per-cell intervals (exact quantiles: the share equals the exact coverage,
// computed from the law), and the sums of a 3 x 4 region, of a column, of a
// random subset of about half the cells and of the whole table (coverage of
// their margins of error, and the sample variance of their noise). Power:
// intervals and margins from a variance 20 % too small fail the same checks.
#include <gtest/gtest.h>

#include <random>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy_sums.hpp"
#include "mechanisms/mechanism.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "random_source.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/discrete_laplace_table.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_sums;

constexpr std::size_t kRows = 10, kCols = 12, kCells = kRows * kCols;
constexpr int kIndependentReleases = 10000;
constexpr double kIndependentLevel = 0.9;

std::vector<CellQuery> independent_sums(std::mt19937_64& gen) {
  std::vector<CellQuery> out(4);
  QueryBuilder b(kCells);
  for (std::size_t r = 2; r < 5; ++r)
    for (std::size_t c = 3; c < 7; ++c) b.add(r * kCols + c);
  out[0] = b.take();
  for (std::size_t r = 0; r < kRows; ++r) b.add(r * kCols + 5);
  out[1] = b.take();
  std::bernoulli_distribution half(0.5);
  for (std::size_t i = 0; i < kCells; ++i)
    if (half(gen)) b.add(i);
  out[2] = b.take();
  out[3] = all_cells(kCells);
  return out;
}
const char* kSumNames[] = {"a 3 x 4 region", "a column", "a random half", "the whole table"};

std::vector<std::int64_t> fixed_table() {
  std::vector<std::int64_t> x(kCells);
  for (std::size_t i = 0; i < kCells; ++i) x[i] = std::int64_t((i * 37) % 50);
  return x;
}

// Runs the releases: draw(z) fills the noise of one release.
template <class Draw>
void run_independent(const std::string& family, const LinearAccuracy& acc, const CellIntervals& intervals,
                     const CellIntervals& narrow, double exact_coverage, LawShape shape, Draw draw) {
  std::mt19937_64 gen(5);
  std::vector<coverage::SumCheck> sums, wrong;
  const std::vector<CellQuery> queries = independent_sums(gen);
  for (std::size_t k = 0; k < queries.size(); ++k) {
    sums.push_back(sum_check(family + ": " + kSumNames[k], acc, queries[k], kIndependentLevel, shape, true));
    wrong.push_back(sum_check(family + ": " + kSumNames[k] + ", variance x 0.8", acc, queries[k], kIndependentLevel,
                              shape, true, 0.8));
  }
  coverage::Check cells{family + ": per-cell intervals", exact_coverage, false};
  coverage::Check narrow_cells{family + ": per-cell, variance x 0.8", exact_coverage, false};
  const std::vector<std::int64_t> x = fixed_table();
  std::vector<std::int64_t> z(kCells), y(kCells), lower(kCells), upper(kCells);
  for (int release = 0; release < kIndependentReleases; ++release) {
    draw(z);
    for (std::size_t i = 0; i < kCells; ++i) y[i] = x[i] + z[i];
    intervals.check_integer_bounds(y.data(), Interrupts());
    intervals.integer_bounds(0, kCells, y.data(), lower.data(), upper.data());
    double covered = 0;
    for (std::size_t i = 0; i < kCells; ++i) covered += lower[i] <= x[i] && x[i] <= upper[i];
    cells.add(covered / kCells);
    narrow_cells.add(cell_share(narrow, z));
    for (auto& s : sums) s.record(z);
    for (auto& s : wrong) s.record(z);
  }
  cells.report();
  EXPECT_TRUE(cells.passes());
  narrow_cells.report();
  EXPECT_FALSE(narrow_cells.passes()) << "power: a 20% narrower variance must fail";
  coverage::expect_sums_hold(sums);
  coverage::expect_wrong_sums_fail(wrong, [](const coverage::SumCheck& s) { return !s.coverage.conservative; });
}

TEST(StatAccuracy, DiscreteLaplaceWithAPrivacyUnit) {
  ReleaseRequest request;
  request.mechanism = &traits_of(Mechanism::DiscreteLaplace);
  request.epsilon = 1.0;
  request.bounds = ContributionBounds{3, 2};
  const NoiseLaw law = calibrate_noise(request);
  const Rational b = law.exact_parameter;
  ASSERT_NEAR(b.to_double(), 12.0, 1e-9);  // 2 G R / epsilon
  const auto acc = laplace_lattice_accuracy(identity_form(kCells), b, nullptr, Interrupts());
  const CellIntervals intervals = discrete_laplace_intervals(kCells, b, kIndependentLevel);
  // The scale whose variance is 80 % of this one (v = 2a/(1-a)^2).
  const double v = 0.8 * discrete_laplace_variance(b);
  const double a = ((v + 1) - std::sqrt(2 * v + 1)) / v;
  const CellIntervals narrow =
      discrete_laplace_intervals(kCells, rational_at_least(-1 / std::log(a), 1000), kIndependentLevel);
  const double exact = 1 - discrete_laplace_tail(b, static_cast<std::int64_t>(intervals.half_width(0)));
  const DiscreteLaplaceTable table(b, Interrupts());
  auto rng = make_seeded_random_source(11);
  run_independent("discrete_laplace (unit G=3, R=2)", acc, intervals, narrow, exact, LawShape::other,
                  [&](std::vector<std::int64_t>& z) {
                    for (auto& v : z) v = table.sample(*rng);
                  });
}

TEST(StatAccuracy, DiscreteGaussian) {
  ReleaseRequest request;
  request.mechanism = &traits_of(Mechanism::DiscreteGaussian);
  request.epsilon = 1.0;
  request.delta = 1e-6;
  const Rational sigma2 = calibrate_noise(request).exact_parameter;
  const auto acc = lattice_gaussian_accuracy(identity_form(kCells), sigma2, Interrupts());
  const CellIntervals intervals = discrete_gaussian_intervals(kCells, sigma2, kIndependentLevel);
  const CellIntervals narrow(kCells, double(discrete_gaussian_half_width(0.8 * sigma2.to_double(), kIndependentLevel)),
                             true, Exactness::exact, "wrong");
  const double exact =
      1 - discrete_gaussian_tail(sigma2.to_double(), static_cast<std::int64_t>(intervals.half_width(0)));
  auto rng = make_seeded_random_source(12);
  run_independent("discrete_gaussian", acc, intervals, narrow, exact, LawShape::lattice_gaussian,
                  [&](std::vector<std::int64_t>& z) {
                    for (auto& v : z) v = sample_discrete_gaussian(*rng, sigma2);
                  });
}

}  // namespace
}  // namespace invariant_dp
