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

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy_fixtures.hpp"
#include "accuracy_sums.hpp"
#include "random_source.hpp"
#include "samplers/continuous.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/rational.hpp"

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
void run_general(const std::string& family, const Release& release, const LinearAccuracy& acc,
                 const LinearAccuracy* wrong_model, RealTail cell_tail, LawShape shape, bool integer_sums, Draw draw) {
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
  run_general("subspace_gaussian, main effects", release, acc, &partition, RealTail::normal, LawShape::gaussian, false,
              [&](std::vector<double>& z) { sample_gaussians(*rng, sigma, z.data(), z.size(), Interrupts()); });
}

TEST(StatAccuracy, GeneralSubspaceLaplace) {
  const Release release = main_effects();
  const double b = 2.5;
  const auto acc = projected_accuracy(form_of_model(*release.model, Interrupts()), 2 * b * b);
  auto rng = make_seeded_random_source(53);
  run_general("subspace_laplace, main effects", release, acc, nullptr, RealTail::gauss, LawShape::log_concave, false,
              [&](std::vector<double>& z) {
                for (double& x : z) x = sample_laplace(*rng, b);
              });
}

TEST(StatAccuracy, GeneralProjectL2) {
  const Release release = main_effects();
  const Rational b{5, 2};
  const auto acc = projected_accuracy(form_of_model(*release.model, Interrupts()), discrete_laplace_variance(b));
  auto rng = make_seeded_random_source(54);
  run_general("project_l2, main effects", release, acc, nullptr, RealTail::chebyshev, LawShape::other, false,
              [&](std::vector<double>& z) {
                for (double& x : z) x = double(sample_discrete_laplace(*rng, b));
              });
}

// integer_laplace's chain on general margins publishes the estimate c Pi_N,
// c fitted to the trace (src/core/accuracy/DERIVATIONS.md, section 3e). On a
// 3 x 3 table without its corner cell, rows and columns as margins, the
// null space has dimension 3: z = (a, -a | b, c, -b-c | -b, -a-c, a+b+c) in
// the cells (0,1), (0,2) | (1,0), (1,1), (1,2) | (2,0), (2,1), (2,2), and the
// l1 law P(z) ~ exp(-|z|_1 / b) at b = 3 is enumerated exactly over |a|,
// |b|, |c| <= 45 (the mass left out is below 10^-8 of it). Its covariance departs
// from c Pi_N by up to 4.5 % on this table's sums (printed below), inside
// the variance check's tolerance at 10,000 draws (kZ standard errors, about
// 7 %), so the estimate's sums and cells, drawn from the exact law, pass
// the checks an exact figure would, and a variance 20 % low fails them.
TEST(StatAccuracy, GeneralIntegerLaplaceEstimate) {
  std::vector<Tuple> cells;
  for (const Tuple& t : grid({3, 3}))
    if (t[0] != 0 || t[1] != 0) cells.push_back(t);
  const Release release(cells, 2, {{0}, {1}});
  const auto form = std::shared_ptr<const ProjectorForm>(form_of_model(*release.model, Interrupts()));
  ASSERT_STREQ(form->structure(), "general");
  ASSERT_EQ(release.model->null_dimension(), 3u);

  const double b = 3;
  const int range = 45;
  std::vector<std::array<std::int64_t, 8>> points;
  std::vector<double> cumulative;
  double mass = 0;
  std::array<double, 8> second_moment{};
  for (int a = -range; a <= range; ++a)
    for (int u = -range; u <= range; ++u)
      for (int c = -range; c <= range; ++c) {
        const std::array<std::int64_t, 8> z{a, -a, u, c, -u - c, -u, -a - c, a + u + c};
        double l1 = 0;
        for (const std::int64_t x : z) l1 += std::abs(double(x));
        const double w = std::exp(-l1 / b);
        mass += w;
        for (std::size_t i = 0; i < 8; ++i) second_moment[i] += w * double(z[i]) * double(z[i]);
        points.push_back(z);
        cumulative.push_back(mass);
      }
  double trace = 0;
  for (const double m : second_moment) trace += m / mass;
  const double c = trace / 3;  // trace(Pi_N) = null dimension
  const auto acc = estimated_accuracy(form, std::vector<double>{c}, "the l1 law");
  ASSERT_EQ(acc.kind(), Exactness::estimate);

  QueryBuilder q(release.n());
  std::vector<std::pair<std::string, CellQuery>> sums;
  const auto cell = [&](int row, int col) {
    for (std::size_t i = 0; i < release.n(); ++i)
      if (release.tuples[i][0] == row && release.tuples[i][1] == col) return i;
    ADD_FAILURE() << "no cell " << row << ", " << col;
    return std::size_t{0};
  };
  q.add(cell(0, 1)), q.add(cell(1, 2)), q.add(cell(2, 0));
  sums.emplace_back("across the row margin's groups", q.take());
  q.add(cell(1, 0)), q.add(cell(1, 1)), q.add(cell(2, 0)), q.add(cell(2, 1));
  sums.emplace_back("a 2 x 2 region", q.take());
  std::mt19937_64 pick(55);
  std::bernoulli_distribution in(0.5);
  for (std::size_t i = 0; i < release.n(); ++i)
    if (in(pick)) q.add(i);
  sums.emplace_back("a random half", q.take());

  std::vector<coverage::SumCheck> checks, wrong;
  for (auto& [name, query] : sums) {
    checks.push_back(sum_check("integer_laplace general (estimate): " + name, acc, query, kLevel, LawShape::other, true));
    wrong.push_back(sum_check("integer_laplace general: " + name + ", variance x 0.8", acc, query, kLevel,
                              LawShape::other, true, 0.8));
  }
  const CellIntervals intervals = laplace_lattice_intervals(acc, Rational{3, 1}, kLevel, Interrupts());
  ASSERT_EQ(intervals.kind(), Exactness::estimate);
  coverage::Check per_cell{"integer_laplace general (estimate): per-cell", kLevel, true};

  std::mt19937_64 gen(56);
  std::uniform_real_distribution<double> uniform(0, mass);
  for (int r = 0; r < kReleases; ++r) {
    const auto found = std::upper_bound(cumulative.begin(), cumulative.end(), uniform(gen));
    const auto& z = points[std::size_t(std::min<std::ptrdiff_t>(found - cumulative.begin(), std::ptrdiff_t(points.size()) - 1))];
    per_cell.add(cell_share(intervals, z));
    for (auto& check : checks) check.record(z);
    for (auto& check : wrong) check.record(z);
  }
  for (const auto& check : checks) {
    double exact = 0;  // the sum's variance under the enumerated law
    for (std::size_t p = 0; p < points.size(); ++p) {
      double sum = 0;
      for (std::size_t k = 0; k < check.query.size(); ++k)
        sum += check.query.weights[k] * double(points[p][check.query.cells[k]]);
      exact += (cumulative[p] - (p == 0 ? 0 : cumulative[p - 1])) * sum * sum / mass;
    }
    std::printf("[stat] %-52s the law's variance / the estimate %.3f\n", check.name.c_str(),
                exact / check.variance_upper);
    EXPECT_NEAR(exact / check.variance_upper, 1, 0.06) << "the shape c Pi_N on this table: " << check.name;
  }
  per_cell.report();
  EXPECT_TRUE(per_cell.passes());
  coverage::expect_sums_hold(checks);
  coverage::expect_wrong_sums_fail(wrong, [](const coverage::SumCheck&) { return false; });
}

}  // namespace
}  // namespace invariant_dp
