// Margins of sums from the law of the sum (accuracy/sum_quantile.hpp;
// DERIVATIONS.md beside it, section 14), against the law of the sum
// computed directly: the cells' noise enumerated over the lattice of the
// release's margins (independent cells, two zero-sum groups, 2 x 3 and
// 3 x 3 tables), the functional's pmf accumulated, its smallest covering
// half-width read off. Exact margins must be that half-width; certified
// ones must cover, and a count less must not cover wherever the kind says
// exact. Sums the law does not give (the l1 law on a 3 x 3 table, a set of
// cells of a three-way table that is no box, fractional weights) return
// nothing; any integer sum of a two-way lattice Gaussian table has one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "accuracy/projector_form.hpp"
#include "accuracy/sum_quantile.hpp"
#include "accuracy_fixtures.hpp"

namespace invariant_dp::accuracy {
namespace {

using accuracy_fixtures::grid;
using accuracy_fixtures::Release;

double cell_weight(IntegerNoise noise, std::int64_t x) {
  const double par = noise.parameter.to_double();
  return noise.kind == IntegerNoise::Kind::laplace ? std::exp(-std::fabs(double(x)) / par)
                                                   : std::exp(-double(x) * double(x) / (2 * par));
}

// The law of sum_i w_i z_i, z the cells' noise on the lattice: `free` cells
// range over [-M, M], `complete` fills the others from them.
std::map<std::int64_t, double> enumerated_law(IntegerNoise noise, std::size_t n_cells, std::size_t n_free,
                                              std::int64_t M,
                                              const std::function<void(std::vector<std::int64_t>&)>& complete,
                                              const std::vector<std::int64_t>& w) {
  std::map<std::int64_t, double> law;
  std::vector<std::int64_t> z(n_cells, 0), free(n_free, -M);
  for (;;) {
    for (std::size_t i = 0; i < n_free; ++i) z[i] = free[i];
    complete(z);
    double p = 1;
    std::int64_t x = 0;
    for (std::size_t i = 0; i < n_cells; ++i) {
      p *= cell_weight(noise, z[i]);
      x += w[i] * z[i];
    }
    law[x] += p;
    std::size_t k = 0;
    while (k < n_free && ++free[k] > M) free[k++] = -M;
    if (k == n_free) break;
  }
  return law;
}

std::int64_t direct_quantile(const std::map<std::int64_t, double>& law, double level) {
  double total = 0;
  for (const auto& [x, p] : law) total += p;
  for (std::int64_t t = 0;; ++t) {
    double in = 0;
    for (const auto& [x, p] : law)
      if (std::llabs(x) <= t) in += p;
    if (in / total >= level) return t;
  }
}

CellQuery query_of(const std::vector<std::int64_t>& w) {
  CellQuery q;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] != 0) {
      q.cells.push_back(static_cast<std::uint32_t>(i));
      q.weights.push_back(double(w[i]));
    }
  return q;
}

// The margin, checked against the enumerated law at three levels.
void expect_law_quantile(const ProjectorForm& form, IntegerNoise noise, const std::vector<std::int64_t>& w,
                         const std::map<std::int64_t, double>& law, const char* what, bool must_be_exact) {
  for (const double level : {0.5, 0.9, 0.99}) {
    const std::optional<MarginOfError> m = lattice_sum_margin(form, noise, query_of(w), level, Interrupts());
    ASSERT_TRUE(m.has_value()) << what;
    const std::int64_t direct = direct_quantile(law, level);
    if (m->kind == Exactness::exact)
      EXPECT_EQ(m->half_width, double(direct)) << what << " at " << level;
    else
      EXPECT_GE(m->half_width, double(direct)) << what << " at " << level;
    if (must_be_exact) {
      EXPECT_EQ(m->kind, Exactness::exact) << what << " at " << level;
    }
    EXPECT_EQ(m->tail, SumTail::law_quantile);
    EXPECT_NE(m->method.find("the sum's law"), std::string::npos) << m->method;
  }
}

TEST(SumQuantile, IndependentCellsWithWeights) {
  const Release none(grid({5}), 1, {});
  const auto form = form_of_model(*none.model, Interrupts());
  for (const IntegerNoise noise : {IntegerNoise{IntegerNoise::Kind::laplace, {9, 10}},
                                   IntegerNoise{IntegerNoise::Kind::gaussian, {3, 2}}}) {
    // Weights 1, -1 and 2 (a row given twice) on three of five cells; the
    // other two are independent of them and left out of the enumeration.
    const auto law = enumerated_law(noise, 3, 3, 30, [](std::vector<std::int64_t>&) {}, {1, -1, 2});
    expect_law_quantile(*form, noise, {1, 0, -1, 2, 0}, law, "independent cells", true);
  }
}

TEST(SumQuantile, CellsOfTwoZeroSumGroups) {
  // Groups of 3 and 4 cells (one margin): tuples (group, level).
  std::vector<accuracy_fixtures::Tuple> cells;
  for (int level = 0; level < 3; ++level) cells.push_back({0, level});
  for (int level = 0; level < 4; ++level) cells.push_back({1, level});
  const Release partition(cells, 2, {{0}});
  const auto form = form_of_model(*partition.model, Interrupts());
  ASSERT_STREQ(form->structure(), "partition");
  // Each group's law enumerated (its last cell completes it to 0), the two
  // convolved: the groups are independent.
  const auto last_completes = [](std::vector<std::int64_t>& z) {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i + 1 < z.size(); ++i) sum += z[i];
    z.back() = -sum;
  };
  for (const IntegerNoise noise : {IntegerNoise{IntegerNoise::Kind::laplace, {9, 10}},
                                   IntegerNoise{IntegerNoise::Kind::gaussian, {6, 5}}}) {
    // Two cells of the first group and one of the second; then weights
    // 2, 1, 0 on the first group (three values c - d, c, c + d) with one
    // cell of weight 1 in the second.
    for (const std::vector<std::int64_t>& w :
         {std::vector<std::int64_t>{1, 1, 0, 1, 0, 0, 0}, std::vector<std::int64_t>{2, 1, 0, 0, 0, 1, 0}}) {
      const auto first = enumerated_law(noise, 3, 2, 30, last_completes, {w[0], w[1], w[2]});
      const auto second = enumerated_law(noise, 4, 3, 30, last_completes, {w[3], w[4], w[5], w[6]});
      std::map<std::int64_t, double> law;
      for (const auto& [x, p] : first)
        for (const auto& [y, q] : second) law[x + y] += p * q;
      expect_law_quantile(*form, noise, w, law, "two zero-sum groups", true);
    }
  }
}

TEST(SumQuantile, CellsOfATwoByThreeTable) {
  const Release table(grid({2, 3}), 2, {{0}, {1}});
  const auto form = form_of_model(*table.model, Interrupts());
  // Cells (r, c) at 3 r + c; free: (0, 0), (0, 1).
  const auto complete = [](std::vector<std::int64_t>& z) {
    const std::int64_t a = z[0], b = z[1];
    z[2] = -(a + b);
    z[3] = -a;
    z[4] = -b;
    z[5] = a + b;
  };
  for (const IntegerNoise noise : {IntegerNoise{IntegerNoise::Kind::laplace, {3, 2}},
                                   IntegerNoise{IntegerNoise::Kind::gaussian, {2, 1}}}) {
    // Cells of both lines: (0, 0), (1, 1), (0, 2); and (0, 0), (0, 1), (1, 0).
    for (const std::vector<std::int64_t>& w :
         {std::vector<std::int64_t>{1, 0, 1, 0, 1, 0}, std::vector<std::int64_t>{1, 1, 0, 1, 0, 0}}) {
      const auto law = enumerated_law(noise, 6, 2, 40, complete, w);
      expect_law_quantile(*form, noise, w, law, "a 2 x 3 table", true);
    }
  }
}

TEST(SumQuantile, SumsOfCellsOfThreeByThreeTables) {
  const Release table(grid({3, 3}), 2, {{0}, {1}});
  const auto form = form_of_model(*table.model, Interrupts());
  // Free: (0, 0), (0, 1), (1, 0), (1, 1) at 0, 1, 3, 4 -- enumerated in
  // slots 0 .. 3 and moved into place.
  const auto complete = [](std::vector<std::int64_t>& z) {
    const std::int64_t a = z[0], b = z[1], c = z[2], d = z[3];
    z[0] = a, z[1] = b, z[2] = -(a + b);
    z[3] = c, z[4] = d, z[5] = -(c + d);
    z[6] = -(a + c), z[7] = -(b + d), z[8] = a + b + c + d;
  };
  // The l1 law: any integer weights (a row pair, a box, mixed signs).
  const IntegerNoise l1{IntegerNoise::Kind::laplace, {1, 1}};
  for (const std::vector<std::int64_t>& w :
       {std::vector<std::int64_t>{1, 1, 0, 0, 0, 0, 0, 0, 0}, std::vector<std::int64_t>{1, 1, 0, 1, 1, 0, 0, 0, 0},
        std::vector<std::int64_t>{2, 0, 0, 0, 0, 1, 0, -1, 0}}) {
    const auto law = enumerated_law(l1, 9, 4, 24, complete, w);
    expect_law_quantile(*form, l1, w, law, "cells of a 3 x 3 table, the l1 law", true);
  }
  for (const std::uint64_t s2_tenths : {8u, 30u}) {
    const IntegerNoise noise{IntegerNoise::Kind::gaussian, {s2_tenths, 10}};
    // The box {0, 1} x {0, 1}, weight 2; the box {2} x {0, 1}.
    for (const std::vector<std::int64_t>& w : {std::vector<std::int64_t>{2, 2, 0, 2, 2, 0, 0, 0, 0},
                                               std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 1, 1, 0}}) {
      const auto law = enumerated_law(noise, 9, 4, 12, complete, w);
      expect_law_quantile(*form, noise, w, law, "a box of a 3 x 3 table", s2_tenths >= 30);
    }
  }
}

TEST(SumQuantile, NothingWhereTheLawOfTheSumIsNotGiven) {
  const Release table(grid({3, 3}), 2, {{0}, {1}});
  const auto form = form_of_model(*table.model, Interrupts());
  const IntegerNoise laplace{IntegerNoise::Kind::laplace, {3, 1}}, gaussian{IntegerNoise::Kind::gaussian, {30, 1}};
  // The l1 law on a table whose lines all have five cells.
  const Release wide(grid({5, 5}), 2, {{0}, {1}});
  std::vector<std::int64_t> pair(25, 0);
  pair[0] = pair[1] = 1;
  EXPECT_FALSE(lattice_sum_margin(*form_of_model(*wide.model, Interrupts()), laplace, query_of(pair), 0.9,
                                  Interrupts()));
  // A set of cells of a three-way table that is no box, too coarse for the
  // tilted bound at this variance (moves of squared length 8): the tail.
  const Release cube(grid({3, 3, 3}), 3, {{0, 1}, {0, 2}, {1, 2}});
  const auto cube_form = form_of_model(*cube.model, Interrupts());
  ASSERT_EQ(std::string(cube_form->structure()), "tables");
  std::vector<std::int64_t> weight_two_beside_one(27, 0);
  weight_two_beside_one[0] = 2, weight_two_beside_one[13] = 1;
  EXPECT_FALSE(lattice_sum_margin(*cube_form, IntegerNoise{IntegerNoise::Kind::gaussian, {3, 2}},
                                  query_of(weight_two_beside_one), 0.9, Interrupts()));
  // Fractional weights.
  const Release none(grid({4}), 1, {});
  EXPECT_FALSE(lattice_sum_margin(*form_of_model(*none.model, Interrupts()), laplace, [] {
    CellQuery q;
    q.cells = {0, 1};
    q.weights = {0.5, 1};
    return q;
  }(), 0.9, Interrupts()));
  // A group with four weight values under the l1 law.
  const Release group(grid({1, 5}), 2, {{0}});
  EXPECT_FALSE(lattice_sum_margin(*form_of_model(*group.model, Interrupts()), laplace, query_of({3, 2, 1, 0, 0}), 0.9,
                                  Interrupts()));
  // A box that is a sum of whole lines adds nothing: no law to read.
  EXPECT_FALSE(lattice_sum_margin(*form, gaussian, query_of({1, 1, 1, 0, 0, 0, 0, 0, 0}), 0.9, Interrupts()));
}

// On a two-way table any integer weights have a law (the tilted bound over
// short vectors of the kernel): a set of cells that is no box, and a box
// with unequal weights, at a calibrated variance, exact.
TEST(SumQuantile, AnySumOfATwoWayTable) {
  const Release table(grid({3, 3}), 2, {{0}, {1}});
  const auto form = form_of_model(*table.model, Interrupts());
  const IntegerNoise gaussian{IntegerNoise::Kind::gaussian, {30, 1}};
  for (const std::vector<std::int64_t>& weights :
       {std::vector<std::int64_t>{1, 1, 0, 1, 0, 0, 0, 0, 0}, std::vector<std::int64_t>{1, 2, 0, 1, 1, 0, 0, 0, 0}}) {
    const std::optional<MarginOfError> m = lattice_sum_margin(*form, gaussian, query_of(weights), 0.9, Interrupts());
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, Exactness::exact);
    EXPECT_EQ(m->tail, SumTail::law_quantile);
    EXPECT_NE(m->method.find("short vectors"), std::string::npos) << m->method;
  }
}

// Under the lattice Gaussian any integer weights have a law on any complete
// table: sets of cells of a three-way table that are no box, a group's four
// weight values, and parts of different steps in two tables; at a
// calibrated variance, exact.
TEST(SumQuantile, AnySumOfCompleteTablesOrGroups) {
  const IntegerNoise gaussian{IntegerNoise::Kind::gaussian, {30, 1}};
  const auto expect_exact = [&](const ProjectorForm& form, const std::vector<std::int64_t>& weights,
                                const std::string& method, const std::string& name) {
    const std::optional<MarginOfError> m = lattice_sum_margin(form, gaussian, query_of(weights), 0.9, Interrupts());
    ASSERT_TRUE(m) << name;
    EXPECT_EQ(m->kind, Exactness::exact) << name;
    EXPECT_EQ(m->tail, SumTail::law_quantile) << name;
    EXPECT_NE(m->method.find(method), std::string::npos) << name << ": " << m->method;
  };
  // (0, 0, 0) and (1, 1, 1) of a 3 x 3 x 3 table with its three two-way margins.
  const Release cube(grid({3, 3, 3}), 3, {{0, 1}, {0, 2}, {1, 2}});
  std::vector<std::int64_t> diagonal(27, 0);
  diagonal[0] = diagonal[13] = 1;
  expect_exact(*form_of_model(*cube.model, Interrupts()), diagonal, "short vectors", "a three-way diagonal");
  // Four weight values in a group of one margin (no zero-sum inversion).
  const Release group(grid({1, 5}), 2, {{0}});
  expect_exact(*form_of_model(*group.model, Interrupts()), {3, 2, 1, 0, 0}, "short vectors", "four values");
  // Two 3 x 3 tables (the first axis indexes them): one cell of the first,
  // three times two cells of the second.
  const Release tables(grid({2, 3, 3}), 3, {{0, 1}, {0, 2}});
  const auto tables_form = form_of_model(*tables.model, Interrupts());
  ASSERT_EQ(std::string(tables_form->structure()), "tables");
  std::vector<std::int64_t> steps(18, 0);
  steps[0] = 1, steps[9] = 3, steps[13] = 3;
  expect_exact(*tables_form, steps, "different steps", "steps 1 and 3");
}

// A sum and the same sum with whole margins added (random multiples of the
// margins' groups) are one random variable: one margin, kind and method, or
// none for both, on every structure the forms read (groups, tables in
// blocks, cubes, main effects, general margins), for pairs, random sets of
// cells and weighted sums. Returns how many had a law.
std::size_t expect_one_margin_whatever_margins_added(IntegerNoise noise, int trials, int pairs, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> coefficient(-2, 2);
  std::size_t compared = 0;
  for (const accuracy_fixtures::ProjectorFormCase& c : accuracy_fixtures::projector_form_cases()) {
    const auto form = form_of_model(*c.release.model, Interrupts());
    const auto groups = accuracy_fixtures::margin_groups(c.release);
    for (int trial = 0; trial < trials; ++trial) {
      std::vector<std::int64_t> w(c.release.n(), 0);
      if (trial < pairs) {
        w[gen() % w.size()] += 1;
        w[gen() % w.size()] += 1;
      } else {
        for (std::int64_t& x : w) x = gen() % 4 == 0 ? (trial % 2 ? std::int64_t(gen() % 5) - 2 : 1) : 0;
      }
      std::vector<std::int64_t> with_margins = w;
      for (const auto& g : groups)
        if (const int k = coefficient(gen); k != 0)
          for (const std::uint32_t i : g) with_margins[i] += k;
      const std::optional<MarginOfError> alone = lattice_sum_margin(*form, noise, query_of(w), 0.9, Interrupts());
      const std::optional<MarginOfError> added =
          lattice_sum_margin(*form, noise, query_of(with_margins), 0.9, Interrupts());
      const std::string what = std::string(c.name) + ", trial " + std::to_string(trial);
      EXPECT_EQ(alone.has_value(), added.has_value())
          << what << ": " << (alone ? alone->method : "no law") << " against " << (added ? added->method : "no law");
      if (!alone || !added) continue;
      ++compared;
      EXPECT_EQ(added->half_width, alone->half_width) << what;
      EXPECT_EQ(added->kind, alone->kind) << what;
      EXPECT_EQ(added->method, alone->method) << what;
    }
  }
  return compared;
}

TEST(SumQuantile, OneMarginWhateverMarginsAreAddedLatticeGaussian) {
  EXPECT_GT(expect_one_margin_whatever_margins_added(IntegerNoise{IntegerNoise::Kind::gaussian, {30, 1}}, 12, 4, 1202),
            60u);
}

// The l1 law: groups, 2 x n tables and tables with a side of three or four
// levels have laws; the others none either way. Pairs only: a random set
// of cells of a 4 x 5 table is an inversion of seconds under the
// sanitizers.
TEST(SumQuantile, OneMarginWhateverMarginsAreAddedLaplace) {
  EXPECT_GT(expect_one_margin_whatever_margins_added(IntegerNoise{IntegerNoise::Kind::laplace, {3, 2}}, 5, 5, 1203),
            10u);
}

// A sum of a million independent cells costs milliseconds (the inversion
// visits a narrow peak), as test/bench/bench_accuracy.cpp measures.
TEST(SumQuantile, LargeSumsAreExact) {
  const auto form = identity_form(1000000);
  CellQuery q;
  for (std::uint32_t i = 0; i < 1000000; i += 2) {
    q.cells.push_back(i);
    q.weights.push_back(1);
  }
  const std::optional<MarginOfError> m =
      lattice_sum_margin(*form, IntegerNoise{IntegerNoise::Kind::laplace, {625, 60}}, q, 0.9, Interrupts());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Exactness::exact);
  const double normal = 1.6448536269514722 * std::sqrt(500000 * 2 * std::exp(-60.0 / 625) /
                                                       std::pow(1 - std::exp(-60.0 / 625), 2));
  EXPECT_NEAR(m->half_width, normal, 3);
}

}  // namespace
}  // namespace invariant_dp::accuracy
