// Statistical tests of the privacy unit (privacy_unit.hpp) and partition
// selection (partition_selection.hpp), through the C boundary the shim uses,
// with fixed seeds and the thresholds of stat_samplers.cpp: chi-square at
// p = 1e-6 and two-sided z at 1e-6 (|z| < 4.89), each beside a power check
// showing the same data fail against the law a plausible bug would give.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "chi_square.hpp"
#include "mechanisms/partition_selection.hpp"
#include "mechanisms/privacy_unit.hpp"
#include "random_source.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"
#include "calibration/zcdp.hpp"
#include "table_builder.hpp"
#include "unit_cells.hpp"
#include "prepared_release.hpp"
#include "unit_table.hpp"

namespace invariant_dp {
namespace {

using chi_square_test::goodness_of_fit;
using chi_square_test::report;
using test_tables::TextKeys;
using test_tables::UnitCells;
using test_tables::UnitTable;
constexpr double kZUnit = 4.8916;

// The exact law of an integer noise, as a pmf over [-span, span].
std::map<std::int64_t, double> unit_pmf(double a_or_sigma2, bool laplace, std::int64_t span) {
  std::map<std::int64_t, double> p;
  double total = 0;
  for (std::int64_t x = -span; x <= span; ++x) {
    const double w = laplace ? std::pow(a_or_sigma2, double(std::llabs(x)))
                             : std::exp(-double(x) * double(x) / (2 * a_or_sigma2));
    p[x] = w;
    total += w;
  }
  for (auto& [x, w] : p) w /= total;
  return p;
}

double moment(const std::map<std::int64_t, double>& p, int k) {
  double m = 0;
  for (const auto& [x, w] : p) m += w * std::pow(double(x), k);
  return m;
}

double tail_at_least(const std::map<std::int64_t, double>& p, std::int64_t t) {
  double m = 0;
  for (const auto& [x, w] : p)
    if (x >= t) m += w;
  return m;
}

// z of an observed mean of squares against a zero-mean law.
double variance_z(double sum_squares, double n, const std::map<std::int64_t, double>& law) {
  const double v = moment(law, 2), m4 = moment(law, 4);
  return (sum_squares / n - v) / std::sqrt((m4 - v * v) / n);
}

// One unit with 5 distinct cells and G = 2: each of the 10 pairs is kept
// with probability 1/10, whatever the rows' multiplicities and order.
TEST(PrivacyUnitStat, TheKeptCellsAreAUniformRandomSubset) {
  const std::vector<std::string> cell_names = {"a", "b", "c", "d", "e"};
  // Uneven rows per cell, in an order that favours no cell.
  std::vector<const char*> units, cells;
  const int rows_of[] = {1, 7, 2, 5, 3};
  for (int c = 0; c < 5; ++c)
    for (int i = 0; i < rows_of[c]; ++i) {
      units.push_back("u");
      cells.push_back(cell_names[c].c_str());
    }
  const TextKeys unit_keys(units, 1), cell_keys(cells, 1);
  auto rng = make_seeded_random_source(2026);
  constexpr int kDraws = 200000;
  std::map<int, std::int64_t> subsets;
  for (int draw = 0; draw < kDraws; ++draw) {
    const BoundedCells kept = bound_contributions(unit_keys.rows(), cell_keys.rows(), nullptr, ContributionBounds{2, 1},
                                                  *rng, Interrupts());
    int mask = 0;
    for (std::size_t c = 0; c < kept.row.size(); ++c)
      if (kept.counts[c] > 0) mask |= 1 << (std::string(cells[kept.row[c]])[0] - 'a');
    ASSERT_EQ(__builtin_popcount(mask), 2);
    ++subsets[mask];
  }
  std::map<int, double> uniform, tilted;
  double tilted_total = 0;
  for (int mask = 0; mask < 32; ++mask)
    if (__builtin_popcount(mask) == 2) {
      uniform[mask] = 0.1;
      tilted[mask] = (mask & 2) ? 1.05 : 1.0;  // cell b (most rows) 5% more likely
      tilted_total += tilted[mask];
    }
  for (auto& [mask, w] : tilted) w /= tilted_total;
  const auto fit = goodness_of_fit(uniform, subsets, kDraws);
  report("kept pairs vs uniform", fit);
  EXPECT_TRUE(fit.passes());
  const auto power = goodness_of_fit(tilted, subsets, kDraws);
  report("kept pairs vs a 5% tilt toward the cell with most rows (power)", power);
  EXPECT_FALSE(power.passes());
}

// The noise follows the bounds: one row per unit and cell, so the bounded
// counts are the true ones and the noise is released - 1. Both mechanisms'
// neighbours are replace_one (a unit's rows replaced by another's), so
// discrete_laplace has scale 2 G R / epsilon (l1) and discrete_gaussian the
// sigma^2 certified for shifts of squared norm 2 G R^2 (l2).
TEST(PrivacyUnitStat, NoiseScaleFollowsTheBounds) {
  constexpr int kCells = 100000;
  UnitTable table;
  for (int i = 0; i < kCells; ++i) table.add("p" + std::to_string(i), "c" + std::to_string(i));
  std::map<std::string, std::map<std::int64_t, double>> laws;
  for (const char* groups : {"1", "4"}) {
    const double g = std::stod(groups);
    const auto laplace = unit_pmf(std::exp(-1 / (2 * g)), true, 800);
    const Rational sigma2 = lattice_gaussian_sigma2(1.0, 1e-6, 2 * g);
    const auto gaussian = unit_pmf(sigma2.to_double(), false, 400);
    laws[std::string("discrete_laplace ") + groups] = laplace;
    laws[std::string("discrete_gaussian ") + groups] = gaussian;
  }
  for (const char* mechanism : {"discrete_laplace", "discrete_gaussian"}) {
    for (const char* groups : {"1", "4"}) {
      const bool gaussian = std::string(mechanism) == "discrete_gaussian";
      const auto released = table.release(mechanism, 1.0, gaussian ? 1e-6 : 0, groups, "1", nullptr, 17);
      ASSERT_EQ(released.size(), std::size_t(kCells));
      double squares = 0;
      for (const auto& [cell, value] : released) squares += double(value - 1) * double(value - 1);
      const std::string name = std::string(mechanism) + " " + groups;
      const double z = variance_z(squares, kCells, laws[name]);
      const std::string other = std::string(mechanism) + (std::string(groups) == "1" ? " 4" : " 1");
      const double z_wrong = variance_z(squares, kCells, laws[other]);
      std::cout << "[stat] " << name << ": noise variance " << squares / kCells << " (law "
                << moment(laws[name], 2) << "), z = " << z << "; against " << other << ": z = " << z_wrong << "\n";
      EXPECT_LT(std::fabs(z), kZUnit) << name;
      EXPECT_GT(std::fabs(z_wrong), kZUnit) << name << " (power)";
    }
  }
}

// Selection: a cell one unit holds is shown with the probability the
// threshold gives, at most delta; a threshold one lower would be caught.
TEST(PrivacyUnitStat, ACellOfOneUnitIsShownWithProbabilityAtMostDelta) {
  constexpr int kCells = 200000;
  UnitTable table;
  for (int i = 0; i < kCells; ++i) table.add("p" + std::to_string(i), "c" + std::to_string(i));
  struct Case {
    const char* mechanism;
    const char* method;
    double delta;
  };
  for (const Case& c : {Case{"discrete_laplace", "laplace", 0.05}, Case{"discrete_gaussian", "gaussian", 0.05}}) {
    const bool laplace = std::string(c.method) == "laplace";
    // The selection's share: half of epsilon; all of delta when the counts
    // use none, else half.
    const double selection_delta = laplace ? c.delta : c.delta / 2;
    const SelectionLaw law = calibrate_selection(laplace ? SelectionMethod::Laplace : SelectionMethod::Gaussian, 0.5,
                                                 selection_delta, 1, true);
    const double parameter = law.noise_parameter.to_double();
    const auto noise = unit_pmf(laplace ? std::exp(-1 / parameter) : parameter, laplace, 2000);
    const double p = tail_at_least(noise, law.threshold - 1);
    const double p_wrong = tail_at_least(noise, law.threshold - 2);
    ASSERT_LE(p, selection_delta);
    const auto shown = table.release(c.mechanism, 1.0, laplace ? c.delta : c.delta, "1", "1", c.method, 23);
    const double n = kCells, observed = double(shown.size()) / n;
    const double z = (observed - p) / std::sqrt(p * (1 - p) / n);
    const double z_wrong = (observed - p_wrong) / std::sqrt(p_wrong * (1 - p_wrong) / n);
    std::cout << "[stat] " << c.method << " selection, threshold " << law.threshold << ": shown " << observed
              << " (law " << p << ", delta " << selection_delta << "), z = " << z << "; threshold - 1 (power): z = "
              << z_wrong << "\n";
    EXPECT_LT(std::fabs(z), kZUnit);
    EXPECT_GT(std::fabs(z_wrong), kZUnit);
    EXPECT_LT(observed, selection_delta);
  }
}

// A cell many units hold is always shown, and the counts of shown cells are
// unbiased: the count's noise is drawn apart from the selection's. Cells at
// exactly the threshold are shown about half the time; reusing the
// selection's noise for the count would bias them by E[N | N >= 0].
TEST(PrivacyUnitStat, ShownCountsAreUnbiasedAndBigCellsAlwaysShown) {
  const SelectionLaw law = calibrate_selection(SelectionMethod::Laplace, 0.5, 0.05, 1, true);
  const std::int64_t tau = law.threshold;
  constexpr int kCells = 60000;
  UnitTable table;
  int unit = 0;
  for (int i = 0; i < kCells; ++i)
    for (std::int64_t k = 0; k < tau; ++k) table.add("p" + std::to_string(unit++), "c" + std::to_string(i));
  for (int k = 0; k < 1000; ++k) table.add("p" + std::to_string(unit++), "big");
  double sum = 0;
  std::size_t shown = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto released = table.release("discrete_laplace", 1.0, 0.05, "1", "1", "laplace", seed);
    ASSERT_EQ(released.count("big"), 1u) << "seed " << seed;
    for (const auto& [cell, value] : released)
      if (cell != "big") {
        sum += double(value - tau);
        ++shown;
      }
  }
  // Counts: discrete Laplace of scale 2 / (epsilon / 2) = 4 (replace_one).
  const auto counts_noise = unit_pmf(std::exp(-1 / 4.0), true, 800);
  const double sd = std::sqrt(moment(counts_noise, 2) / double(shown));
  const double mean = sum / double(shown);
  // The bias reusing the selection's noise would give: E[N | N >= 0].
  const auto selection_noise = unit_pmf(std::exp(-1 / law.noise_parameter.to_double()), true, 400);
  double reused = 0;
  for (const auto& [x, w] : selection_noise)
    if (x >= 0) reused += x * w;
  reused /= tail_at_least(selection_noise, 0);
  std::cout << "[stat] counts at the threshold: " << shown << " shown of " << 4 * kCells << ", mean error " << mean
            << " (sd " << sd << "); reused selection noise would give " << reused << "\n";
  EXPECT_GT(shown, std::size_t(kCells));  // about half of 4 * kCells
  EXPECT_LT(std::fabs(mean / sd), kZUnit);
  EXPECT_GT(std::fabs((mean - reused) / sd), kZUnit);
}

// Selection on the counts themselves (noisy_count): a cell of true count c
// is shown exactly when c + Z >= tau, Z the counts' own noise, with tau
// from calibrate_noisy_count. At delta 0.3 the probabilities are large
// enough to measure for c around tau: the four z of the shares shown, squared
// and summed, are chi-square with 4 degrees of freedom (critical 33.38 at p
// = 1e-6); the same shares against tau - 1 or tau + 1 must fail (power).
TEST(PrivacyUnitStat, NoisyCountShowsACellIffItsCountReachesTheThreshold) {
  constexpr double kChiSquare4 = 33.38;
  constexpr int kCellsPerCount = 40000;
  for (const char* mechanism : {"discrete_laplace", "discrete_gaussian"}) {
    const bool laplace = std::string(mechanism) == "discrete_laplace";
    // One row per unit and cell, G = R = 1, replace_one: l1 2, l2^2 2.
    const Rational parameter =
        laplace ? rational_at_least(2 / 1.0) : lattice_gaussian_sigma2(1.0, 0.3 / 2, 2);
    const SelectionLaw law = calibrate_noisy_count(!laplace, parameter, 1.0, 0.3, 1, 1, true);
    const std::int64_t tau = law.threshold;
    ASSERT_GE(tau, 3);
    const auto noise = unit_pmf(laplace ? std::exp(-1 / parameter.to_double()) : parameter.to_double(), laplace, 400);
    const std::vector<std::int64_t> counts = {1, tau - 1, tau, tau + 1};
    UnitTable table;
    int unit = 0;
    for (std::int64_t c : counts)
      for (int i = 0; i < kCellsPerCount; ++i)
        for (std::int64_t k = 0; k < c; ++k)
          table.add("p" + std::to_string(unit++), "c" + std::to_string(c) + "_" + std::to_string(i));
    const auto released = table.release(mechanism, 1.0, 0.3, "1", "1", "noisy_count", 29);
    std::map<std::int64_t, double> shown;
    for (const auto& [cell, value] : released) {
      EXPECT_GE(value, tau) << cell;
      shown[std::stoll(cell.substr(1, cell.find('_') - 1))] += 1;
    }
    // Sum of squared z of the shares shown, against threshold t.
    const auto chi_square = [&](std::int64_t t) {
      double total = 0;
      for (std::int64_t c : counts) {
        const double p = tail_at_least(noise, t - c), n = kCellsPerCount;
        const double z = (shown[c] / n - p) / std::sqrt(p * (1 - p) / n);
        total += z * z;
      }
      return total;
    };
    const double fit = chi_square(tau), lower = chi_square(tau - 1), higher = chi_square(tau + 1);
    std::cout << "[stat] noisy_count on " << mechanism << ", threshold " << tau << ": shown " << shown[1] << ", "
              << shown[tau - 1] << ", " << shown[tau] << ", " << shown[tau + 1] << " of " << kCellsPerCount
              << " at counts 1, tau - 1, tau, tau + 1; chi-square(4) " << fit << "; against tau - 1: " << lower
              << ", tau + 1: " << higher << " (power)\n";
    EXPECT_LT(fit, kChiSquare4) << mechanism;
    EXPECT_GT(lower, kChiSquare4) << mechanism;
    EXPECT_GT(higher, kChiSquare4) << mechanism;
    // Laplace: a lone cell of one unit (R = 1) is shown at most delta / k.
    if (laplace) {
      EXPECT_LT(shown[1] / kCellsPerCount, 0.3 / 2);
    }
  }
}

}  // namespace
}  // namespace invariant_dp
