// Coverage of error bars for releases projected onto general margins (the
// main effects of a 4 x 5 x 3 table: three crossing margins, the general
// sparse form), 10,000 releases each, the noise projected by the release's
// own projector (InvariantModel::project_onto_null_space):
//  - subspace_gaussian: exact normal intervals and margins; the share of
//    each equals the level; power: a variance 20 % too small, and the
//    partition formula (the first margin alone), fail;
//  - subspace_laplace (continuous Laplace, projected): Gauss's inequality
//    per cell, certified; sums of 30 cells and more by the normal
//    approximation (its predicted coverage), smaller ones by Gauss;
//  - project_l2 (discrete Laplace, projected): Chebyshev per cell,
//    certified; sums likewise.
// Sums: across the first margin's groups (one cell in each of its groups
// with c1 = 0), a 2 x 3 x 3 region, a random subset (half the cells).
#include <gtest/gtest.h>

#include <random>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy_fixtures.hpp"
#include "accuracy_sums.hpp"
#include "random_source.hpp"
#include "samplers/continuous.hpp"
#include "samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;
using namespace accuracy_sums;

constexpr int kReleases = 10000;
constexpr double kLevel = 0.9;

std::vector<std::pair<std::string, CellQuery>> the_sums(const Release& release) {
  QueryBuilder b(release.n());
  std::vector<std::pair<std::string, CellQuery>> out;
  for (std::size_t i = 0; i < release.n(); ++i)
    if (release.tuples[i][1] == 0 && release.tuples[i][2] == 1) b.add(i);
  out.emplace_back("across the first margin's groups", b.take());
  for (std::size_t i = 0; i < release.n(); ++i) {
    const Tuple& t = release.tuples[i];
    if (t[0] < 2 && t[1] >= 1 && t[1] <= 3 && t[2] < 3) b.add(i);
  }
  out.emplace_back("a 2 x 3 x 3 region", b.take());
  std::mt19937_64 gen(51);
  std::bernoulli_distribution in(0.5);
  for (std::size_t i = 0; i < release.n(); ++i)
    if (in(gen)) b.add(i);
  out.emplace_back("a random half", b.take());
  return out;
}

template <class Draw>
void run(const std::string& family, const Release& release, const LinearAccuracy& acc, const LinearAccuracy* wrong_model,
         RealTail cell_tail, LawShape shape, bool integer_sums, Draw draw) {
  std::vector<coverage::SumCheck> sums, wrong;
  for (auto& [name, q] : the_sums(release)) {
    sums.push_back(sum_check(family + ": " + name, acc, q, kLevel, shape, integer_sums));
    wrong.push_back(sum_check(family + ": " + name + ", variance x 0.8", acc, q, kLevel, shape, integer_sums, 0.8));
    if (wrong_model && name != "a random half")  // the crossing sums: there the formula is far off
      wrong.push_back(sum_check(family + ": " + name + ", partition formula", *wrong_model, q, kLevel, shape,
                                integer_sums));
  }
  const CellIntervals intervals = real_intervals(acc, kLevel, cell_tail, Interrupts());
  const bool exact_cells = cell_tail == RealTail::normal;
  coverage::Check cells{family + ": per-cell (" + intervals.method() + ")", kLevel, !exact_cells};
  BlockScalars s = acc.scalars();
  for (double& x : s.upper) x *= 0.8;
  for (double& x : s.lower) x *= 0.8;
  const CellIntervals narrow_cells =
      real_intervals(LinearAccuracy(acc.shared_form(), s, "narrow"), kLevel, cell_tail, Interrupts());
  coverage::Check wrong_cells{family + ": per-cell, variance x 0.8", kLevel, !exact_cells};
  std::vector<double> z(release.n());
  for (int r = 0; r < kReleases; ++r) {
    draw(z);
    release.model->project_onto_null_space(z.data());
    cells.add(cell_share(intervals, z));
    wrong_cells.add(cell_share(narrow_cells, z));
    for (auto& c : sums) c.record(z);
    for (auto& c : wrong) c.record(z);
  }
  cells.report();
  EXPECT_TRUE(cells.passes());
  wrong_cells.report();
  if (exact_cells) {
    EXPECT_FALSE(wrong_cells.passes()) << "power";
  }
  for (const auto& c : sums) {
    c.report();
    EXPECT_TRUE(c.coverage.passes()) << c.name;
    EXPECT_TRUE(c.variance_passes()) << c.name;
  }
  for (const auto& c : wrong) {
    c.report();
    EXPECT_FALSE(c.variance_passes()) << "power: " << c.name;
    if (shape == LawShape::gaussian) {
      EXPECT_FALSE(c.coverage.passes()) << "power: " << c.name;
    }
  }
}

Release main_effects() { return Release(grid({4, 5, 3}), 3, {{0}, {1}, {2}}); }

TEST(StatAccuracy, GeneralSubspaceGaussian) {
  const Release release = main_effects();
  const double sigma = 3.0;
  const auto acc = projected_accuracy(form_of_model(*release.model, Interrupts()), sigma * sigma);
  ASSERT_STREQ(acc.form().structure(), "general");
  const Release first_only(grid({4, 5, 3}), 3, {{0}});
  const auto partition = projected_accuracy(form_of_model(*first_only.model, Interrupts()), sigma * sigma);
  auto rng = make_seeded_random_source(52);
  run("subspace_gaussian, main effects", release, acc, &partition, RealTail::normal, LawShape::gaussian, false,
      [&](std::vector<double>& z) { sample_gaussians(*rng, sigma, z.data(), z.size(), Interrupts()); });
}

TEST(StatAccuracy, GeneralSubspaceLaplace) {
  const Release release = main_effects();
  const double b = 2.5;
  const auto acc = projected_accuracy(form_of_model(*release.model, Interrupts()), 2 * b * b);
  auto rng = make_seeded_random_source(53);
  run("subspace_laplace, main effects", release, acc, nullptr, RealTail::gauss, LawShape::log_concave, false,
      [&](std::vector<double>& z) {
        for (double& x : z) x = sample_laplace(*rng, b);
      });
}

TEST(StatAccuracy, GeneralProjectL2) {
  const Release release = main_effects();
  const Rational b{5, 2};
  const auto acc = projected_accuracy(form_of_model(*release.model, Interrupts()), discrete_laplace_variance(b));
  auto rng = make_seeded_random_source(54);
  run("project_l2, main effects", release, acc, nullptr, RealTail::chebyshev, LawShape::other, false,
      [&](std::vector<double>& z) {
        for (double& x : z) x = double(sample_discrete_laplace(*rng, b));
      });
}

}  // namespace
}  // namespace invariant_dp
