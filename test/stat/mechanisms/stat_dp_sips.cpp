// DP-SIPS partition selection's law (src/core/mechanisms/dp_sips.hpp): the
// share of cells shown at each weight against its exact formula, P(V + N >=
// tau) with N the discrete Gaussian summed exactly, by a chi-square test
// (false failure 1e-6), with power checks against a wrong calibration (a
// standard deviation 1.1 times the stated), against unweighted units (every
// unit giving w_G, as "gaussian" does) and against the last round alone;
// and through dp.privatize's path: the law the metadata states, with
// unbiased counts of the shown cells.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chi_square.hpp"
#include "mechanisms/dp_sips.hpp"
#include "mechanisms/partition_selection.hpp"
#include "random_source.hpp"
#include "unit_table.hpp"

namespace invariant_dp {
namespace {

using chi_square_test::chi2_critical;
using chi_square_test::kAlpha;
using test_tables::UnitTable;

// P(N >= t) for the discrete Gaussian of variance sigma2, summed exactly
// over |z| <= 40 sigma (the rest is below 1e-300 of the total): the
// suffix sums of the masses, once per variance.
double tail(double sigma2, double t) {
  struct Suffix {
    std::int64_t reach;
    std::vector<double> above;  // above[i]: the mass of z >= i - reach
  };
  static std::map<double, Suffix> cache;
  auto found = cache.find(sigma2);
  if (found == cache.end()) {
    Suffix suffix;
    suffix.reach = static_cast<std::int64_t>(std::ceil(40 * std::sqrt(sigma2)));
    suffix.above.assign(std::size_t(2 * suffix.reach + 2), 0.0);
    for (std::int64_t z = suffix.reach; z >= -suffix.reach; --z) {
      const std::size_t i = std::size_t(z + suffix.reach);
      suffix.above[i] = suffix.above[i + 1] + std::exp(-double(z) * double(z) / (2 * sigma2));
    }
    found = cache.emplace(sigma2, std::move(suffix)).first;
  }
  const Suffix& suffix = found->second;
  const double from = std::ceil(t);
  if (from <= double(-suffix.reach)) return 1;
  if (from > double(suffix.reach)) return 0;
  return suffix.above[std::size_t(std::int64_t(from) + suffix.reach)] / suffix.above[0];
}

// P(shown) of a cell of weight v in every round (its units' cells never
// shown elsewhere): 1 - prod_i P(N_i < tau_i - v); sigma_scale multiplies
// every standard deviation (1: the stated law).
double shown_probability(const DpSipsLaw& law, double v, double sigma_scale = 1, std::size_t first_round = 0) {
  double hidden = 1;
  for (std::size_t i = first_round; i < law.rounds.size(); ++i)
    hidden *= 1 - tail(law.rounds[i].sigma2.to_double() * sigma_scale * sigma_scale,
                       double(law.rounds[i].threshold) - v);
  return 1 - hidden;
}

// Sum of squared z of each class's share shown against p (chi-square with
// one degree of freedom per class under the law).
double sips_chi_square(const std::map<int, double>& shown, const std::map<int, double>& p, double cells) {
  double total = 0;
  for (const auto& [key, count] : shown) {
    const double q = std::min(1 - 1e-12, std::max(1e-12, p.at(key)));
    const double z = (count / cells - q) / std::sqrt(q * (1 - q) / cells);
    total += z * z;
  }
  return total;
}

// Cells in blocks: every unit of a block holds each of its m cells, so
// each cell has n units of m cells; classes (m, n) where the stated law's
// probability is measurable (1e-3 to 1 - 1e-3).
struct Block {
  std::int64_t m, n;
};

// One round at epsilon 1, delta 1e-3, G = 3, add_remove: each (m, n)
// class's share shown follows P(n w_m + N >= tau); units of fewer cells
// weigh more (the unweighted law fails), and a wrong sigma fails.
TEST(DpSipsStat, SharesShownFollowTheWeightedLaw) {
  const DpSipsLaw law = calibrate_dp_sips(1.0, 1e-3, 3, false, 1);
  std::vector<Block> blocks;
  for (std::int64_t m = 1; m <= 3; ++m)
    for (std::int64_t n = 1; n <= 200; ++n) {
      const double p = shown_probability(law, double(n * dp_sips_weight(m)));
      if (p >= 1e-3 && p <= 1 - 1e-3 && (n % 2 == 0 || m == 1)) blocks.push_back({m, n});
    }
  ASSERT_GE(blocks.size(), 12u);
  constexpr int kBlocks = 3000;  // of each class
  std::vector<std::int64_t> units;
  KeptCells unit_cells;
  unit_cells.start.push_back(0);
  std::vector<int> class_of_cell;
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (int copy = 0; copy < kBlocks; ++copy) {
      const auto first = static_cast<std::uint32_t>(units.size());
      for (std::int64_t j = 0; j < blocks[b].m; ++j) {
        units.push_back(blocks[b].n);
        class_of_cell.push_back(int(b));
      }
      for (std::int64_t u = 0; u < blocks[b].n; ++u) {
        for (std::int64_t j = 0; j < blocks[b].m; ++j) unit_cells.cells.push_back(first + std::uint32_t(j));
        unit_cells.start.push_back(unit_cells.cells.size());
      }
    }
  // And absent cells (no unit): never shown.
  for (int i = 0; i < 1000; ++i) {
    units.push_back(0);
    class_of_cell.push_back(-1);
  }
  auto rng = make_seeded_random_source(91);
  const std::vector<bool> shown = dp_sips_select(units.data(), units.size(), &unit_cells, law, *rng, Interrupts());
  std::map<int, double> count, cells_of;
  for (std::size_t c = 0; c < shown.size(); ++c) {
    if (class_of_cell[c] < 0) {
      EXPECT_FALSE(shown[c]) << "an absent cell was shown";
      continue;
    }
    count[class_of_cell[c]] += shown[c] ? 1 : 0;
    cells_of[class_of_cell[c]] += 1;
  }
  std::map<int, double> stated, unweighted, wide;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    stated[int(b)] = shown_probability(law, double(blocks[b].n * dp_sips_weight(blocks[b].m)));
    unweighted[int(b)] = shown_probability(law, double(blocks[b].n * dp_sips_weight(3)));
    wide[int(b)] = shown_probability(law, double(blocks[b].n * dp_sips_weight(blocks[b].m)), 1.1);
  }
  // Every class has m * kBlocks cells; the statistic uses each class's own count.
  double fit = 0, off_weights = 0, off_sigma = 0;
  for (const auto& [b, n_cells] : cells_of) {
    const std::map<int, double> one = {{b, count[b]}};
    fit += sips_chi_square(one, stated, n_cells);
    off_weights += sips_chi_square(one, unweighted, n_cells);
    off_sigma += sips_chi_square(one, wide, n_cells);
  }
  const double critical = chi2_critical(int(cells_of.size()), kAlpha);
  std::cout << "[stat] dp_sips one round: chi2 " << fit << " (df " << cells_of.size() << ", critical " << critical
            << "); power: unweighted units " << off_weights << ", sigma x 1.1 " << off_sigma << "\n";
  EXPECT_LT(fit, critical);
  EXPECT_GT(off_weights, critical) << "(power)";
  EXPECT_GT(off_sigma, critical) << "(power)";
}

// Three rounds, one cell per unit (a cell's weight is S n): a cell is
// shown unless every round hides it; the last round alone is not the law.
TEST(DpSipsStat, RoundsShowACellUnlessEveryRoundHidesIt) {
  const DpSipsLaw law = calibrate_dp_sips(1.0, 1e-3, 1, false, 3);
  std::vector<std::int64_t> ns;
  for (std::int64_t n = 1; n <= 200; ++n) {
    const double p = shown_probability(law, double(n * kDpSipsWeightScale));
    if (p >= 1e-3 && p <= 1 - 1e-3) ns.push_back(n);
  }
  ASSERT_GE(ns.size(), 6u);
  constexpr int kCells = 20000;
  std::vector<std::int64_t> units;
  for (std::int64_t n : ns)
    for (int i = 0; i < kCells; ++i) units.push_back(n);
  auto rng = make_seeded_random_source(92);
  const std::vector<bool> shown = dp_sips_select(units.data(), units.size(), nullptr, law, *rng, Interrupts());
  std::map<int, double> count, stated, last_only, wide;
  for (std::size_t c = 0; c < shown.size(); ++c) count[int(units[c])] += shown[c] ? 1 : 0;
  for (std::int64_t n : ns) {
    const double v = double(n * kDpSipsWeightScale);
    stated[int(n)] = shown_probability(law, v);
    last_only[int(n)] = shown_probability(law, v, 1, law.rounds.size() - 1);
    wide[int(n)] = shown_probability(law, v, 1.1);
  }
  const double critical = chi2_critical(int(ns.size()), kAlpha);
  const double fit = sips_chi_square(count, stated, kCells), last = sips_chi_square(count, last_only, kCells),
               off = sips_chi_square(count, wide, kCells);
  std::cout << "[stat] dp_sips three rounds: chi2 " << fit << " (df " << ns.size() << ", critical " << critical
            << "); power: last round alone " << last << ", sigma x 1.1 " << off << "\n";
  EXPECT_LT(fit, critical);
  EXPECT_GT(last, critical) << "(power)";
  EXPECT_GT(off, critical) << "(power)";
}

// Through dp.privatize (discrete_laplace counts, each patient in 2 clinics
// of a pair, G = 3, add_remove, budget_share 0.5): cells are shown by the
// law the metadata states (one round at (0.5, delta) for weights w_2), and
// the shown counts are unbiased.
TEST(DpSipsStat, ReleasesShowCellsByTheStatedLawWithUnbiasedCounts) {
  constexpr double kEpsilon = 2.0, kDelta = 0.01;
  const DpSipsLaw law = calibrate_dp_sips(kEpsilon / 2, kDelta, 3, false, 1);
  std::vector<std::int64_t> ns;
  for (std::int64_t n = 1; n <= 100; ++n) {
    const double p = shown_probability(law, double(n * dp_sips_weight(2)));
    if (p >= 1e-2 && p <= 1 - 1e-2) ns.push_back(n);
  }
  ASSERT_GE(ns.size(), 3u);
  constexpr int kPairs = 1500;
  UnitTable table;
  int unit = 0;
  for (std::int64_t n : ns)
    for (int i = 0; i < kPairs; ++i)
      for (std::int64_t k = 0; k < n; ++k) {
        const std::string person = "p" + std::to_string(unit++), pair = std::to_string(n) + "_" + std::to_string(i);
        table.add(person, pair + "_a");
        table.add(person, pair + "_b");
      }
  std::string metadata;
  const auto released = table.release("discrete_laplace", kEpsilon, kDelta, "3", "1",
                                      {{"partition_selection", "dp_sips"}, {"neighbours", "add_remove"}}, 93,
                                      &metadata);
  EXPECT_NE(metadata.find("\"method\": \"dp_sips\""), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("\"threshold\": [" + std::to_string(law.rounds[0].threshold) + "]"), std::string::npos)
      << metadata;
  std::map<int, double> count, stated, unweighted;
  double error_sum = 0, n_shown = 0;
  for (const auto& [cell, value] : released) {
    const std::int64_t n = std::stoll(cell.substr(0, cell.find('_')));
    count[int(n)] += 1;
    error_sum += double(value - n);
    n_shown += 1;
  }
  for (std::int64_t n : ns) {
    count.emplace(int(n), 0.0);
    stated[int(n)] = shown_probability(law, double(n * dp_sips_weight(2)));
    unweighted[int(n)] = shown_probability(law, double(n * dp_sips_weight(3)));
  }
  const double critical = chi2_critical(int(ns.size()), kAlpha);
  const double fit = sips_chi_square(count, stated, 2 * kPairs), off = sips_chi_square(count, unweighted, 2 * kPairs);
  // The counts: discrete Laplace of scale G R / (epsilon / 2) = 3, variance 2a / (1 - a)^2, a = e^(-1/3).
  const double a = std::exp(-1.0 / 3), variance = 2 * a / ((1 - a) * (1 - a));
  const double z_mean = error_sum / n_shown / std::sqrt(variance / n_shown);
  std::cout << "[stat] dp.privatize dp_sips: chi2 " << fit << " (df " << ns.size() << ", critical " << critical
            << "); power: unweighted " << off << "; shown counts " << n_shown << ", mean error z " << z_mean << "\n";
  EXPECT_LT(fit, critical);
  EXPECT_GT(off, critical) << "(power)";
  EXPECT_LT(std::fabs(z_mean), 4.8916);  // two-sided 1e-6
}

}  // namespace
}  // namespace invariant_dp
