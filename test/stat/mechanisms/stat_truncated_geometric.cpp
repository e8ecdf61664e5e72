// Truncated geometric thresholding's law (src/core/mechanisms/truncated_geometric.hpp):
// the share of cells shown at each count of units against p_n, by a
// chi-square test (false failure 1e-6), each with power checks against a
// wrong epsilon and a threshold one unit off; and through dp.privatize's
// path: the law the metadata states, with unbiased counts of shown cells.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "mechanisms/truncated_geometric.hpp"
#include "random_source.hpp"
#include "unit_table.hpp"

namespace invariant_dp {
namespace {

using chi_square_test::chi2_critical;
using chi_square_test::kAlpha;
using test_tables::UnitTable;

// p_n of a law, from its 128-bit enclosure (narrower than 1e-15).
double probability(const TruncatedGeometricSelector& law, std::int64_t n) {
  if (n >= law.certain_from()) return 1;
  return (law.lower(n) + law.upper(n)) / 2;
}

// The counts of units where p_n is measurable: 1e-3 <= p_n <= 1 - 1e-3.
std::vector<std::int64_t> measurable(const TruncatedGeometricSelector& law, std::int64_t n_max) {
  std::vector<std::int64_t> out;
  for (std::int64_t n = 1; n <= n_max; ++n)
    if (probability(law, n) >= 1e-3 && probability(law, n) <= 1 - 1e-3) out.push_back(n);
  return out;
}

// Sum over n of the squared z of the share shown, against p_{n + shift}
// of law: chi-square with one degree of freedom per n when it is the law.
double geometric_chi_square(const std::map<std::int64_t, double>& shown, double cells,
                            const TruncatedGeometricSelector& law, std::int64_t shift = 0) {
  double total = 0;
  for (const auto& [n, count] : shown) {
    const double p = std::min(1 - 1e-12, std::max(1e-12, probability(law, n + shift)));
    const double z = (count / cells - p) / std::sqrt(p * (1 - p) / cells);
    total += z * z;
  }
  return total;
}

// The shares against the law, a law at 1.1 epsilon, and the law one unit
// off (a threshold one lower or higher): only the first may pass.
void expect_law_and_power(const std::string& name, const std::map<std::int64_t, double>& shown, double cells,
                          const TruncatedGeometricSelector& law, const TruncatedGeometricSelector& wrong_epsilon) {
  const double critical = chi2_critical(int(shown.size()), kAlpha);
  const double fit = geometric_chi_square(shown, cells, law),
               epsilon_off = geometric_chi_square(shown, cells, wrong_epsilon);
  const double lower = geometric_chi_square(shown, cells, law, 1), higher = geometric_chi_square(shown, cells, law, -1);
  std::cout << "[stat] " << name << ": chi2 " << fit << " (df " << shown.size() << ", critical " << critical
            << "); power: 1.1 epsilon " << epsilon_off << ", one unit lower " << lower << ", higher " << higher << "\n";
  EXPECT_LT(fit, critical) << name;
  EXPECT_GT(epsilon_off, critical) << name << " (power)";
  EXPECT_GT(lower, critical) << name << " (power)";
  EXPECT_GT(higher, critical) << name << " (power)";
}

// The selector's draws, 20,000 cells at each measurable count, for the
// plain law (one and several cells per unit) and the joint one.
TEST(TruncatedGeometricStat, SharesShownFollowTheLaw) {
  struct Case {
    const char* name;
    TruncatedGeometricParameters parameters;
  };
  const Rational b1 = rational_at_least(1 / 0.3), b3 = rational_at_least(3 * 2 / 0.3);
  const std::vector<Case> cases = {
      {"plain, epsilon 1, delta 1e-6", {1.0, 1e-6, 1, Rational{0, 1}, 1}},
      {"plain, epsilon 0.5 over 3 cells, delta 1e-3", {0.5, 1e-3, 3, Rational{0, 1}, 1}},
      {"joint with counts at 0.3, R = 1", {1.0, 1e-6, 1, b1, 1}},
      {"joint with counts at 0.3, 3 cells, R = 2", {1.0, 1e-4, 3, b3, 2}},
  };
  constexpr double kCells = 20000;
  std::uint64_t seed = 40;
  for (const Case& c : cases) {
    const TruncatedGeometricSelector law(c.parameters, 4000, Interrupts());
    TruncatedGeometricParameters off = c.parameters;
    off.epsilon *= 1.1;
    const TruncatedGeometricSelector wrong(off, 4000, Interrupts());
    auto rng = make_seeded_random_source(++seed);
    std::map<std::int64_t, double> shown;
    for (std::int64_t n : measurable(law, 4000)) {
      double count = 0;
      for (int i = 0; i < int(kCells); ++i) count += law.shown(n, *rng) ? 1 : 0;
      shown[n] = count;
    }
    ASSERT_GE(shown.size(), 4u) << c.name;
    expect_law_and_power(c.name, shown, kCells, law, wrong);
  }
}

// Through dp.privatize's path (discrete_laplace counts, one cell per unit,
// add_remove, budget_share 0.6): the cells shown follow the joint law at
// the release's whole epsilon and delta with the counts' scale 1 / 0.4; the
// shown counts are unbiased with the counts' own variance.
TEST(TruncatedGeometricStat, ReleasesShowCellsByTheStatedLawWithUnbiasedCounts) {
  constexpr double kEpsilon = 1.0, kDelta = 0.02, kShare = 0.6;
  const TruncatedGeometricParameters stated{kEpsilon, kDelta, 1, rational_at_least(1 / ((1 - kShare) * kEpsilon)), 1};
  const TruncatedGeometricSelector law(stated, 200, Interrupts());
  TruncatedGeometricParameters off = stated;
  off.epsilon *= 1.1;
  const TruncatedGeometricSelector wrong(off, 200, Interrupts());
  const std::vector<std::int64_t> counts = measurable(law, 200);
  ASSERT_GE(counts.size(), 4u);
  constexpr int kCells = 6000;
  UnitTable table;
  int unit = 0;
  for (std::int64_t n : counts)
    for (int i = 0; i < kCells; ++i)
      for (std::int64_t k = 0; k < n; ++k)
        table.add("p" + std::to_string(unit++), std::to_string(n) + "_" + std::to_string(i));
  std::string metadata;
  const auto released = table.release(
      "discrete_laplace", kEpsilon, kDelta, "1", "1",
      {{"partition_selection", "{\"method\": \"truncated_geometric\", \"budget_share\": 0.6}"},
       {"neighbours", "add_remove"}},
      77, &metadata);
  EXPECT_NE(metadata.find("\"calibration\": \"joint"), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("\"epsilon\": 1,"), std::string::npos) << metadata;
  std::map<std::int64_t, double> shown;
  double error_sum = 0, error_squares = 0, n_shown = 0;
  for (const auto& [cell, value] : released) {
    const std::int64_t n = std::stoll(cell.substr(0, cell.find('_')));
    shown[n] += 1;
    error_sum += double(value - n);
    error_squares += double(value - n) * double(value - n);
    n_shown += 1;
  }
  for (std::int64_t n : counts) shown.emplace(n, 0.0);
  expect_law_and_power("dp.privatize, truncated_geometric with discrete_laplace counts", shown, kCells, law, wrong);
  // The counts' noise: discrete Laplace of a = e^(-0.4), variance 2a / (1 - a)^2.
  const double a = std::exp(-(1 - kShare) * kEpsilon), variance = 2 * a / ((1 - a) * (1 - a));
  const double mean = error_sum / n_shown, z_mean = mean / std::sqrt(variance / n_shown);
  double fourth = 0;  // E Z^4
  for (int z = -400; z <= 400; ++z) fourth += std::pow(double(z), 4) * std::pow(a, std::abs(z)) * (1 - a) / (1 + a);
  const double z_variance = (error_squares / n_shown - variance) / std::sqrt((fourth - variance * variance) / n_shown);
  // Power of the variance check: the selection's scale would be 1 / 0.6.
  const double a_wrong = std::exp(-kShare * kEpsilon), variance_wrong = 2 * a_wrong / ((1 - a_wrong) * (1 - a_wrong));
  const double z_wrong = (error_squares / n_shown - variance_wrong) / std::sqrt((fourth - variance * variance) / n_shown);
  std::cout << "[stat] shown counts: " << n_shown << " cells, mean error " << mean << " (z " << z_mean
            << "), variance z " << z_variance << "; against the selection's scale: z " << z_wrong << "\n";
  EXPECT_LT(std::fabs(z_mean), 4.8916);
  EXPECT_LT(std::fabs(z_variance), 4.8916);
  EXPECT_GT(std::fabs(z_wrong), 4.8916);
}

}  // namespace
}  // namespace invariant_dp
