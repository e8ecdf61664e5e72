// Coverage of error bars for one margin (a partition into groups of 2, 3, 5,
// 8, 12 and 30 cells): integer_laplace (the exact conditioned discrete
// Laplace sampler) and integer_gaussian (the exact conditioned discrete
// Gaussian), 10,000 releases each. Checked (coverage_checks.hpp): per-cell
// intervals (integer_laplace: exact, the share equals the exact coverage
// from each group's cell law; integer_gaussian: certified, at least the
// level), and four sums: across the margin's groups (the first two cells of
// every group), within the largest group, a random subset, a union of two
// whole groups plus one cell (noise of one cell only). Power: a variance 20 %
// too large fails the variance check and, for sums of 30 cells or more,
// the coverage check; intervals from the independent law (no conditioning)
// fail the exact per-cell check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/conditioned_marginal.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy_sums.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_gaussian.hpp"
#include "samplers/conditioned_laplace.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_sums;

constexpr int kPartitionReleases = 10000;
constexpr double kPartitionLevel = 0.9;
const std::vector<std::size_t> kSizes{2, 3, 5, 8, 12, 30};

struct Groups {
  std::vector<std::uint32_t> group_of;
  std::vector<std::size_t> first;  // first cell of each group
};

Groups make_groups() {
  Groups g;
  for (std::size_t k = 0; k < kSizes.size(); ++k) {
    g.first.push_back(g.group_of.size());
    g.group_of.insert(g.group_of.end(), kSizes[k], static_cast<std::uint32_t>(k));
  }
  return g;
}

std::vector<std::pair<std::string, CellQuery>> partition_sums(const Groups& g) {
  const std::size_t n = g.group_of.size();
  QueryBuilder b(n);
  std::vector<std::pair<std::string, CellQuery>> out;
  for (std::size_t k = 0; k < kSizes.size(); ++k) {
    b.add(g.first[k]);
    b.add(g.first[k] + 1);
  }
  out.emplace_back("across the margin's groups", b.take());
  for (std::size_t i = 0; i < 11; ++i) b.add(g.first[5] + i);
  out.emplace_back("11 cells of the 30-cell group", b.take());
  std::mt19937_64 gen(7);
  std::bernoulli_distribution in(0.6);
  for (std::size_t i = 0; i < n; ++i)
    if (in(gen)) b.add(i);
  out.emplace_back("a random subset", b.take());
  for (std::size_t i = 0; i < 12; ++i) b.add(g.first[4] + i);
  for (std::size_t i = 0; i < 8; ++i) b.add(g.first[3] + i);
  b.add(g.first[2]);
  out.emplace_back("two whole groups and one cell", b.take());
  return out;
}

template <class Draw>
void run_partition(const std::string& family, const LinearAccuracy& acc, const CellIntervals& intervals,
                   coverage::Check cells, const CellIntervals* wrong_intervals, const std::string& wrong_name,
                   LawShape shape, Draw draw) {
  const Groups g = make_groups();
  std::vector<coverage::SumCheck> sums, wrong;
  for (auto& [name, q] : partition_sums(g)) {
    sums.push_back(sum_check(family + ": " + name, acc, q, kPartitionLevel, shape, true));
    wrong.push_back(sum_check(family + ": " + name + ", variance x 1.2", acc, q, kPartitionLevel, shape, true, 1.2));
  }
  coverage::Check wrong_cells = cells;
  wrong_cells.name += ", " + wrong_name;
  std::vector<std::int64_t> z(g.group_of.size());
  for (int release = 0; release < kPartitionReleases; ++release) {
    draw(g, z);
    cells.add(cell_share(intervals, z));
    if (wrong_intervals) wrong_cells.add(cell_share(*wrong_intervals, z));
    for (auto& s : sums) s.record(z);
    for (auto& s : wrong) s.record(z);
  }
  cells.report();
  EXPECT_TRUE(cells.passes());
  if (wrong_intervals) {
    wrong_cells.report();
    EXPECT_FALSE(wrong_cells.passes()) << "power: the intervals of " << wrong_name << " are not exact here";
  }
  coverage::expect_sums_hold(sums);
  coverage::expect_wrong_sums_fail(wrong, [](const coverage::SumCheck& s) { return !s.coverage.conservative; });
}

TEST(StatAccuracy, PartitionIntegerLaplace) {
  const Rational b{4, 1};  // epsilon 0.5
  const Groups g = make_groups();
  auto form = partition_form(g.group_of, kSizes.size());
  const auto acc = laplace_lattice_accuracy(std::move(form), b, nullptr, Interrupts());
  const CellIntervals intervals = laplace_lattice_intervals(acc, b, kPartitionLevel, Interrupts());
  ASSERT_EQ(intervals.kind(), Exactness::exact);
  // The exact coverage, averaged over cells, from each group's cell law.
  double expected = 0;
  for (std::size_t k = 0; k < kSizes.size(); ++k) {
    const auto pmf = conditioned_laplace_marginal(b, kSizes[k], 1e9);
    const auto t = static_cast<std::size_t>(intervals.half_width(static_cast<std::uint32_t>(g.first[k])));
    double inside = pmf[0];
    for (std::size_t x = 1; x <= t; ++x) inside += 2 * pmf[x];
    expected += inside * double(kSizes[k]) / double(g.group_of.size());
  }
  const CellIntervals unconditioned = discrete_laplace_intervals(g.group_of.size(), b, kPartitionLevel);
  // Every release in one call, each release's groups numbered apart, so
  // that the group-total samplers are built once per size.
  auto rng = make_seeded_random_source(21);
  const std::size_t n = g.group_of.size();
  std::vector<std::uint32_t> all_groups(n * kPartitionReleases);
  for (std::size_t r = 0; r < std::size_t(kPartitionReleases); ++r)
    for (std::size_t i = 0; i < n; ++i)
      all_groups[r * n + i] = static_cast<std::uint32_t>(r * kSizes.size() + g.group_of[i]);
  std::vector<std::int64_t> all(all_groups.size());
  sample_laplace_with_zero_group_sums(*rng, b, {all_groups.data(), all.size(), kSizes.size() * kPartitionReleases},
                                      all.data(), Interrupts());
  std::size_t next = 0;
  run_partition(
      "integer_laplace, one margin", acc, intervals, coverage::Check{"integer_laplace: per-cell", expected, false},
      &unconditioned, "the unconditioned law", LawShape::other, [&](const Groups&, std::vector<std::int64_t>& z) {
        std::copy(all.begin() + static_cast<std::ptrdiff_t>(next), all.begin() + static_cast<std::ptrdiff_t>(next + n),
                  z.begin());
        next += n;
      });
}

TEST(StatAccuracy, PartitionIntegerGaussian) {
  const Rational sigma2{6, 1};
  const Groups g = make_groups();
  const auto acc = lattice_gaussian_accuracy(partition_form(g.group_of, kSizes.size()), sigma2, Interrupts());
  const CellIntervals intervals = lattice_gaussian_intervals(acc.shared_form(), sigma2, kPartitionLevel, Interrupts());
  ASSERT_EQ(intervals.kind(), Exactness::exact);
  // The exact coverage, averaged over cells: a cell of a group of k is the
  // discrete Gaussian at sigma2 (k - 1)/k within a tilt far below 1e-9 here.
  double expected = 0;
  for (std::size_t k = 0; k < kSizes.size(); ++k) {
    const double v = sigma2.to_double() * double(kSizes[k] - 1) / double(kSizes[k]);
    const auto t = static_cast<int>(intervals.half_width(static_cast<std::uint32_t>(g.first[k])));
    double inside = 0, total = 0;
    for (int x = -200; x <= 200; ++x) {
      const double w = std::exp(-double(x) * double(x) / (2 * v));
      total += w;
      if (std::abs(x) <= t) inside += w;
    }
    expected += inside / total * double(kSizes[k]) / double(g.group_of.size());
  }
  // Power: one count narrower is not exact.
  std::vector<double> narrower(g.group_of.size());
  for (std::uint32_t i = 0; i < narrower.size(); ++i) narrower[i] = intervals.half_width(i) - 1;
  const CellIntervals one_less(std::move(narrower), true, Exactness::exact, "one count narrower");
  auto rng = make_seeded_random_source(22);
  run_partition(
      "integer_gaussian, one margin", acc, intervals, coverage::Check{"integer_gaussian: per-cell", expected, false},
      &one_less, "one count narrower",
      LawShape::lattice_gaussian, [&](const Groups& groups, std::vector<std::int64_t>& z) {
        sample_gaussian_with_zero_group_sums(*rng, sigma2, {groups.group_of.data(), z.size(), kSizes.size()},
                                             z.data(), Interrupts());
      });
}

}  // namespace
}  // namespace invariant_dp
