// Coverage of the exact and certified half-widths of accuracy/ (sums of
// independent cells and node weights, sums in zero-sum groups and 2 x n
// tables, boxes and other sums of lattice Gaussian tables, integer cascade
// queries and rectangles of crossed integer cascades;
// DERIVATIONS.md there, sections 10, 11 and 13) over repeated draws from the
// project's exact samplers, at levels 0.5, 0.9 and 0.99.
//
// For each functional X and level L, with q the half-width and U the law's
// certified upper bound of P(|X| <= q), the share of n draws with |X| <= q
// lies in [L - kZ se(L), U + kZ se(U)] (kZ = 4.8916: false-failure rate 1e-6
// per check, binomial normal approximation; coverage_checks.hpp).
// Power, each check: the half-width one count narrower (coverage certainly
// below L by the law) fails the lower limit, and 1.3 q (at least q + 1)
// fails the upper limit. The draws are as many as the law says these power checks need
// (their expected shares a 2.2 kZ standard errors beyond the limits), and the
// design is checked first: a case that could not see its narrower or wider
// half-width fails, rather than passing blind. The exact shares at q are
// printed: at L = 0.9 they lie between 0.90 and 0.93 whenever one count is
// a small part of the sum's spread.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "accuracy/cascade_kernel.hpp"
#include "accuracy/crossed_accuracy.hpp"
#include "accuracy/crossed_kernel.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "accuracy/independent_sum_quantiles.hpp"
#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "accuracy/table_functional.hpp"
#include "accuracy/zero_sum_quantiles.hpp"
#include "coverage_checks.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/crossed_integer_cascade.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/integer_cascade_sampler.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_gaussian.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/kronecker_gaussian.hpp"
#include "samplers/two_line_table.hpp"

namespace invariant_dp::accuracy {
namespace {

using coverage::kZ;

constexpr double kLevels[] = {0.5, 0.9, 0.99};
constexpr std::uint64_t kMinDraws = 20000, kMaxDraws = 600000;

double se(double p, double n) { return std::sqrt(p * (1 - p) / n); }

// One functional of a sampler's draw: its half-width at a level and its
// law's certified coverage of [-t, t].
struct Functional {
  std::string name;
  std::function<Quantile(double)> quantile;
  std::function<CoverageBounds(std::int64_t)> coverage;
  std::function<std::int64_t(const std::vector<std::int64_t>&)> value;  // X from one draw
};

struct Plan {
  std::int64_t q = 0, narrower = 0, wider = 0;
  double upper_q = 0, narrower_upper = 0, wider_lower = 0;
};

Plan plan_of(const Functional& f, double level) {
  Plan p;
  p.q = f.quantile(level).half_width;
  p.narrower = p.q - 1;
  // 1.3 q, and at least one count more (1.3 q rounds to q below 4).
  p.wider = std::max(static_cast<std::int64_t>(std::floor(1.3 * double(p.q))), p.q + 1);
  p.upper_q = f.coverage(p.q).upper;
  p.narrower_upper = p.narrower < 0 ? 0.0 : f.coverage(p.narrower).upper;
  p.wider_lower = f.coverage(p.wider).lower;
  return p;
}

// Draws needed so that a share expected at `from` falls beyond a limit at
// `to` (both probabilities) by 2.2 kZ standard errors.
double draws_to_separate(double from, double to) {
  const double gap = std::abs(from - to);
  if (gap <= 0) return INFINITY;
  const double s = std::sqrt(from * (1 - from)) + std::sqrt(to * (1 - to));
  return std::pow(2.2 * kZ * s / gap, 2);
}

// A sampler's draws and the functionals read from each.
void check_coverage(const std::string& sampler, const std::function<void(std::vector<std::int64_t>&)>& draw,
                    std::size_t draw_size, const std::vector<Functional>& functionals) {
  // The design: enough draws for every power check of every functional.
  double needed = kMinDraws;
  std::vector<std::vector<Plan>> plans;
  for (const Functional& f : functionals) {
    plans.emplace_back();
    for (const double level : kLevels) {
      const Plan p = plan_of(f, level);
      plans.back().push_back(p);
      if (p.q >= 1) needed = std::max(needed, draws_to_separate(p.narrower_upper, level));
      needed = std::max(needed, draws_to_separate(p.wider_lower, p.upper_q));
    }
  }
  ASSERT_LE(needed, double(kMaxDraws)) << sampler << ": too few draws to see a narrower or wider half-width";
  const auto n = static_cast<std::uint64_t>(std::ceil(needed));
  std::vector<std::vector<std::int64_t>> values(functionals.size(), std::vector<std::int64_t>(n));
  std::vector<std::int64_t> z(draw_size);
  for (std::uint64_t i = 0; i < n; ++i) {
    draw(z);
    for (std::size_t k = 0; k < functionals.size(); ++k) values[k][i] = std::llabs(functionals[k].value(z));
  }
  const double dn = double(n);
  for (std::size_t k = 0; k < functionals.size(); ++k) {
    const auto share = [&](std::int64_t t) {
      double in = 0;
      for (const std::int64_t v : values[k]) in += v <= t;
      return in / dn;
    };
    for (std::size_t l = 0; l < std::size(kLevels); ++l) {
      const double level = kLevels[l];
      const Plan& p = plans[k][l];
      const double lower = level - kZ * se(level, dn), upper = p.upper_q + kZ * se(p.upper_q, dn);
      const double at_q = share(p.q);
      std::printf("[stat] %-44s L=%.2f q=%-6lld coverage %.4f in [%.4f, %.4f] (law <= %.4f); q-1: %.4f; 1.3q: %.4f "
                  "(%llu draws)\n",
                  (sampler + ": " + functionals[k].name).c_str(), level, static_cast<long long>(p.q), at_q, lower,
                  upper, p.upper_q, p.q >= 1 ? share(p.narrower) : 0.0, share(p.wider),
                  static_cast<unsigned long long>(n));
      EXPECT_GE(at_q, lower) << functionals[k].name << " " << level;
      EXPECT_LE(at_q, upper) << functionals[k].name << " " << level;
      if (p.q >= 1) {
        EXPECT_LT(share(p.narrower), lower) << "power: one count narrower, " << functionals[k].name;
      }
      EXPECT_GT(share(p.wider), upper) << "power: 1.3 times wider, " << functionals[k].name;
    }
  }
}

IntegerNoise laplace(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::laplace, {num, den}}; }
IntegerNoise gaussian(std::uint64_t num, std::uint64_t den) { return {IntegerNoise::Kind::gaussian, {num, den}}; }

std::int64_t sum_of(const std::vector<std::int64_t>& z, std::size_t from, std::size_t to) {
  std::int64_t s = 0;
  for (std::size_t i = from; i < to; ++i) s += z[i];
  return s;
}

Functional independent(std::string name, IntegerNoise noise, std::vector<WeightedCells> terms,
                       std::function<std::int64_t(const std::vector<std::int64_t>&)> value) {
  return {std::move(name),
          [=](double level) { return independent_sum_quantile(noise, terms, level, Interrupts()); },
          [=](std::int64_t t) { return independent_sum_coverage(noise, terms, t, Interrupts()); }, std::move(value)};
}

Functional grouped(std::string name, IntegerNoise noise, SignedCounts counts,
                   std::function<std::int64_t(const std::vector<std::int64_t>&)> value) {
  return {std::move(name), [=](double level) { return zero_sum_quantile(noise, counts, level, Interrupts()); },
          [=](std::int64_t t) { return zero_sum_coverage(noise, counts, t, Interrupts()); }, std::move(value)};
}

// discrete_laplace and discrete_gaussian cells: one cell, a sum of cells,
// and a node with some of its leaves also in a selected child (weights 1
// and 2). Each at a scale where one count is a visible step at all three
// levels (the design check above), drawn by the exact samplers.
void independent_case(const std::string& name, IntegerNoise noise, std::vector<WeightedCells> terms,
                      std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  const bool is_laplace = noise.kind == IntegerNoise::Kind::laplace;
  std::size_t cells = 0;
  for (const WeightedCells& t : terms) cells += t.cells;
  check_coverage(
      std::string(is_laplace ? "discrete_laplace b=" : "discrete_gaussian s2=") +
          std::to_string(noise.parameter.num) + "/" + std::to_string(noise.parameter.den),
      [&](std::vector<std::int64_t>& z) {
        for (auto& v : z)
          v = is_laplace ? sample_discrete_laplace(*rng, noise.parameter)
                         : sample_discrete_gaussian(*rng, noise.parameter);
      },
      cells,
      {independent(name, noise, terms, [terms](const std::vector<std::int64_t>& z) {
        std::int64_t x = 0;
        std::size_t at = 0;
        for (const WeightedCells& t : terms)
          for (std::uint64_t i = 0; i < t.cells; ++i) x += std::int64_t(t.weight) * z[at++];
        return x;
      })});
}

TEST(StatExactSumQuantiles, IndependentCells) {
  independent_case("one cell", laplace(1, 1), {{1, 1}}, 61);
  independent_case("sum of 5 cells", laplace(1, 1), {{1, 5}}, 62);
  independent_case("node of 8 leaves, 2 in a selected child", laplace(5, 8), {{1, 6}, {2, 2}}, 63);
  independent_case("one cell", gaussian(7, 4), {{1, 1}}, 64);
  independent_case("sum of 10 cells", gaussian(5, 8), {{1, 10}}, 65);
  independent_case("node of 4 leaves, 1 in a selected child", gaussian(5, 8), {{1, 3}, {2, 1}}, 66);
}

// Draws taken from a sampler that makes `batch` of them per call (as a
// release of many groups or tables draws them), one at a time.
class Batches {
 public:
  Batches(std::size_t draw_size, std::size_t batch, std::function<void(std::vector<std::int64_t>&)> fill)
      : size_(draw_size), all_(draw_size * batch), next_(batch), batch_(batch), fill_(std::move(fill)) {}
  void take(std::vector<std::int64_t>& z) {
    if (next_ == batch_) {
      fill_(all_);
      next_ = 0;
    }
    std::copy(all_.begin() + std::ptrdiff_t(next_ * size_), all_.begin() + std::ptrdiff_t((next_ + 1) * size_),
              z.begin());
    ++next_;
  }

 private:
  std::size_t size_;
  std::vector<std::int64_t> all_;
  std::size_t next_, batch_;
  std::function<void(std::vector<std::int64_t>&)> fill_;
};

// integer_laplace and integer_gaussian on one margin group of 30 cells (the
// exact partition samplers, 1,000 groups a call): one cell, 10 cells.
TEST(StatExactSumQuantiles, ZeroSumGroups) {
  const std::size_t k = 30, groups = 1000;
  std::vector<std::uint32_t> group_of_cell(k * groups);
  for (std::size_t i = 0; i < group_of_cell.size(); ++i) group_of_cell[i] = std::uint32_t(i / k);
  const ZeroSumPartition partition{group_of_cell.data(), group_of_cell.size(), groups};
  for (const IntegerNoise noise : {laplace(1, 2), gaussian(3, 1)}) {
    const bool is_laplace = noise.kind == IntegerNoise::Kind::laplace;
    auto rng = make_seeded_random_source(is_laplace ? 67 : 68);
    Batches batches(k, groups, [&](std::vector<std::int64_t>& z) {
      if (is_laplace)
        sample_laplace_with_zero_group_sums(*rng, noise.parameter, partition, NoiseOutput(z.data()), Interrupts());
      else
        sample_gaussian_with_zero_group_sums(*rng, noise.parameter, partition, NoiseOutput(z.data()), Interrupts());
    });
    check_coverage(
        is_laplace ? "integer_laplace group of 30, b=1/2" : "integer_gaussian group of 30, s2=3",
        [&](std::vector<std::int64_t>& z) { batches.take(z); }, k,
        {grouped("one cell", noise, {1, 0, k - 1}, [](const auto& z) { return z[0]; }),
         grouped("10 cells", noise, {10, 0, k - 10}, [](const auto& z) { return sum_of(z, 0, 10); })});
  }
}

// Sums over several groups of the same partitions (five consecutive groups
// make one draw): a cell of each, and 3 + 2 cells of two groups.
TEST(StatExactSumQuantiles, SumsOverSeveralGroups) {
  const std::size_t k = 30, groups = 1000, G = 5;
  std::vector<std::uint32_t> group_of_cell(k * groups);
  for (std::size_t i = 0; i < group_of_cell.size(); ++i) group_of_cell[i] = std::uint32_t(i / k);
  const ZeroSumPartition partition{group_of_cell.data(), group_of_cell.size(), groups};
  for (const IntegerNoise noise : {laplace(3, 8), gaussian(9, 4)}) {
    const bool is_laplace = noise.kind == IntegerNoise::Kind::laplace;
    auto rng = make_seeded_random_source(is_laplace ? 72 : 73);
    Batches batches(G * k, groups / G, [&](std::vector<std::int64_t>& z) {
      if (is_laplace)
        sample_laplace_with_zero_group_sums(*rng, noise.parameter, partition, NoiseOutput(z.data()), Interrupts());
      else
        sample_gaussian_with_zero_group_sums(*rng, noise.parameter, partition, NoiseOutput(z.data()), Interrupts());
    });
    const auto over_groups = [&](std::string name, std::vector<GroupTerm> terms,
                                 std::function<std::int64_t(const std::vector<std::int64_t>&)> value) {
      return Functional{std::move(name),
                        [=](double level) { return zero_sum_quantile(noise, terms, level, Interrupts()); },
                        [=](std::int64_t t) { return zero_sum_coverage(noise, terms, t, Interrupts()); },
                        std::move(value)};
    };
    check_coverage(
        is_laplace ? "integer_laplace 5 groups of 30, b=3/8" : "integer_gaussian 5 groups of 30, s2=9/4",
        [&](std::vector<std::int64_t>& z) { batches.take(z); }, G * k,
        {over_groups("a cell of each group", {{{1, 0, k - 1}, G}},
                     [&](const auto& z) {
                       std::int64_t x = 0;
                       for (std::size_t g = 0; g < G; ++g) x += z[g * k];
                       return x;
                     }),
         over_groups("3 cells of one group, 2 of another", {{{3, 0, k - 3}, 1}, {{2, 0, k - 2}, 1}},
                     [&](const auto& z) { return sum_of(z, 0, 3) + sum_of(z, k, k + 2); })});
  }
}

// integer_laplace on 2 x 12 tables with both margins (the exact two-line
// sampler, 1,000 tables a call): four cells of the first line; three of the
// first line and three of the second in other columns.
TEST(StatExactSumQuantiles, TwoLineTables) {
  const std::size_t n = 12, tables = 1000;
  std::vector<LatticeTable> all(tables);
  for (std::size_t t = 0; t < tables; ++t) {
    all[t].shape = {2, n};
    for (std::size_t i = 0; i < 2 * n; ++i) all[t].cells.push_back(t * 2 * n + i);
  }
  const IntegerNoise noise = laplace(5, 4);
  auto rng = make_seeded_random_source(69);
  Batches batches(2 * n, tables, [&](std::vector<std::int64_t>& z) {
    sample_laplace_on_two_line_tables(*rng, noise.parameter, all, z.size(), NoiseOutput(z.data()), Interrupts());
  });
  check_coverage(
      "integer_laplace 2x12, b=5/4", [&](std::vector<std::int64_t>& z) { batches.take(z); }, 2 * n,
      {grouped("4 cells of a line", halved(noise), two_line_counts(n, 4, 0), [](const auto& z) { return sum_of(z, 0, 4); }),
       grouped("3 + 3 cells of both lines", halved(noise), two_line_counts(n, 3, 3),
               [&](const auto& z) { return sum_of(z, 0, 3) + sum_of(z, n + 3, n + 6); })});
}

// A functional of step 1 within the tilt exp(excess) of the discrete
// Gaussian at variance V (section 13): its half-width, and its coverage
// bounded around that discrete Gaussian's.
Functional tilted(std::string name, double V, double excess,
                  std::function<std::int64_t(const std::vector<std::int64_t>&)> value) {
  return Functional{std::move(name),
                    [=](double level) { return tilted_gaussian_quantile(V, 1, excess, level, Interrupts()); },
                    [=](std::int64_t t) {
                      const double eps = std::expm1(excess), R = (1 + eps) / (1 - eps);
                      const Rational v = rational_at_least(V * (1 + 1e-14), 1u << 30);
                      const CoverageBounds c = independent_sum_coverage(gaussian(v.num, v.den), {{1, 1}}, t, Interrupts());
                      return CoverageBounds{1 - R * (1 - c.lower), 1 - (1 - c.upper) / R};
                    },
                    std::move(value)};
}

// integer_gaussian on a 4 x 6 table with both margins (the exact Kronecker
// sampler): a cell, and a box of 2 x 3 cells (certified, section 13).
TEST(StatExactSumQuantiles, LatticeGaussianTableBoxes) {
  const Rational s2{3, 1};
  const std::vector<std::size_t> shape{4, 6};
  ASSERT_TRUE(table_lattice_gaussian_applies(s2, shape));
  auto rng = make_seeded_random_source(70);
  const auto box = [&](std::string name, std::vector<std::size_t> selected,
                       std::function<std::int64_t(const std::vector<std::int64_t>&)> value) {
    return tilted(std::move(name), box_variance(s2, shape, selected), box_log_excess(s2, shape, selected),
                  std::move(value));
  };
  check_coverage(
      "integer_gaussian 4x6, s2=3",
      [&](std::vector<std::int64_t>& z) { sample_table_lattice_gaussian(*rng, s2, shape, z.data(), Interrupts()); },
      24,
      {box("a cell", {1, 1}, [](const auto& z) { return z[0]; }),
       box("a 2x3 box", {2, 3}, [](const auto& z) { return sum_of(z, 0, 3) + sum_of(z, 6, 9); })});
}

// integer_gaussian on a 3 x 4 x 5 table with its three two-way margins (the
// exact Kronecker sampler): sets of cells that are no box, the diagonal
// pair (0, 0, 0) + (1, 1, 1) and an L of three cells across two slices
// (certified, section 13, "Any functional of a complete table").
TEST(StatExactSumQuantiles, LatticeGaussianThreeWayFunctionals) {
  // A variance at which one count narrower and 1.3 times wider are both
  // visible at every level in a few tens of thousands of draws.
  const Rational s2{4, 1};
  const std::vector<std::size_t> shape{3, 4, 5};
  ASSERT_TRUE(table_lattice_gaussian_applies(s2, shape));
  auto rng = make_seeded_random_source(71);
  const auto at = [](std::size_t i, std::size_t j, std::size_t k) { return i * 20 + j * 5 + k; };
  const auto functional = [&](std::string name, std::vector<std::pair<std::size_t, std::int64_t>> cells) {
    std::vector<std::int64_t> w(60, 0);
    for (const auto& [c, weight] : cells) w[c] = weight;
    const StepFunctional f = table_functional(s2, shape, w, Interrupts()).functional;
    EXPECT_EQ(f.step, 1u) << name;
    EXPECT_LT(f.unit.log_excess, 0.2) << name;  // the bound decides
    return tilted(std::move(name), f.unit.variance, f.unit.log_excess, [w](const std::vector<std::int64_t>& z) {
      std::int64_t x = 0;
      for (std::size_t c = 0; c < z.size(); ++c) x += w[c] * z[c];
      return x;
    });
  };
  check_coverage(
      "integer_gaussian 3x4x5, s2=4",
      [&](std::vector<std::int64_t>& z) { sample_table_lattice_gaussian(*rng, s2, shape, z.data(), Interrupts()); },
      60,
      {functional("the diagonal pair", {{at(0, 0, 0), 1}, {at(1, 1, 1), 1}}),
       functional("an L of three cells", {{at(0, 0, 0), 1}, {at(0, 0, 1), 1}, {at(1, 2, 0), 1}})});
}

// integer_cascade on a root with 4 regions of 5 leaves, uniform variance 3
// (the exact sampler): a region, a leaf, and two regions together
// (certified, section 13).
TEST(StatExactSumQuantiles, IntegerCascadeQueries) {
  std::vector<std::int64_t> parent{-1, 0, 0, 0, 0};
  for (int region = 1; region <= 4; ++region)
    for (int leaf = 0; leaf < 5; ++leaf) parent.push_back(region);
  const hierarchy::HierarchyTree tree = hierarchy::HierarchyTree::from_parents(parent, {});
  const hierarchy::CascadeLaw law = hierarchy::CascadeLaw::uniform(tree, 3.0);
  const std::vector<double> variance = hierarchy::node_variances(tree, law, {});
  const double tree_excess = cascade_tree_log_excess(tree, law, {});
  auto rng = make_seeded_random_source(71);
  const CascadeKernel kernel(tree, law, {});
  const std::uint32_t first_region = tree.first_child(0), first_leaf = tree.first_child(first_region);
  const CellQuery nodes{{first_leaf, first_leaf + 5, first_region + 2}, {1, 1, 1}};
  const StepFunctional kernel_step =
      kernel.query(nodes, HierarchyAccuracy(tree, law, 0.0).variance(nodes, {}).upper, {});
  ASSERT_EQ(kernel_step.step, 1u);
  const TiltedFunctional kernel_query = kernel_step.unit;
  const std::uint32_t region = tree.first_child(0), leaf = tree.first_child(region);
  ASSERT_EQ(tree.leaf_begin(region), 0u);
  const auto query = [&](std::string name, TiltedFunctional q,
                         std::function<std::int64_t(const std::vector<std::int64_t>&)> value,
                         double common_excess) {
    return tilted(std::move(name), q.variance, common_excess + q.log_excess, std::move(value));
  };
  check_coverage(
      "integer_cascade 4 regions x 5 leaves, v=3",
      [&](std::vector<std::int64_t>& z) { z = hierarchy::integer_cascade_leaf_noise(tree, law, *rng, Interrupts()); },
      20,
      {query("a region", cascade_node_query(tree, law, variance, region), [](const auto& z) { return sum_of(z, 0, 5); },
             tree_excess),
       query("a leaf", cascade_node_query(tree, law, variance, leaf), [](const auto& z) { return z[0]; }, tree_excess),
       query("two regions", cascade_children_query(tree, law, variance, 0, 2),
             [](const auto& z) { return sum_of(z, 0, 10); }, tree_excess),
       // Two leaves of two regions and a third region: no Klein order above,
       // the kernel's short vectors (cascade_kernel.hpp).
       query("leaves of two regions and a third region", kernel_query,
             [](const auto& z) { return z[0] + z[5] + sum_of(z, 10, 15); }, kernel.moves_log_excess())});
}

// integer_cascade over two crossed trees (the exact grid sampler): rows a
// root with 3 regions of 2 leaves, columns a root with 2 nodes of 2 leaves,
// both at uniform variance 2.5 (one count narrower and 1.3 times wider
// visible at every level in under 10^5 draws): one rectangle of two
// leaves, a region by a column node, and two rectangles at different levels
// (certified, section 13, "Rectangles of crossed integer cascades").
TEST(StatExactSumQuantiles, CrossedIntegerCascadeRectangles) {
  const hierarchy::HierarchyTree rows = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 2, 3, 3}, {});
  const hierarchy::HierarchyTree cols = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, {});
  const hierarchy::CascadeLaw row_law = hierarchy::CascadeLaw::uniform(rows, 2.5);
  const hierarchy::CascadeLaw col_law = hierarchy::CascadeLaw::uniform(cols, 2.5);
  const hierarchy::CrossedIntegerCascadeSampler sampler(rows, row_law, cols, col_law, Interrupts());
  const CrossedKernel kernel(rows, row_law, cols, col_law, Interrupts());
  const CrossedAccuracy accuracy(rows, row_law, cols, col_law, 0.0);
  auto rng = make_seeded_random_source(72);
  const std::size_t width = cols.n_nodes();
  const std::uint32_t region = rows.first_child(0), row_leaf = rows.first_child(region);
  const std::uint32_t column = cols.first_child(0), col_leaf = cols.first_child(column);
  const auto rectangles = [&](std::string name, std::vector<std::uint32_t> rs, std::vector<std::uint32_t> cs,
                              std::vector<double> ws) {
    const StepFunctional f = kernel.query(rs, cs, ws, accuracy.variance(rs, cs, ws, {}).upper, Interrupts());
    EXPECT_EQ(f.step, 1u) << name;
    EXPECT_LT(f.unit.log_excess + kernel.moves_log_excess(), 0.01) << name;
    return tilted(std::move(name), f.unit.variance, f.unit.log_excess + kernel.moves_log_excess(),
                  [=](const std::vector<std::int64_t>& grid) {
                    std::int64_t x = 0;
                    for (std::size_t k = 0; k < rs.size(); ++k)
                      x += static_cast<std::int64_t>(ws[k]) * grid[rs[k] * width + cs[k]];
                    return x;
                  });
  };
  check_coverage(
      "crossed integer_cascade 6 x 4 leaves, v=2.5",
      [&](std::vector<std::int64_t>& grid) { sampler.sample(*rng, grid.data(), Interrupts()); },
      rows.n_nodes() * width,
      {rectangles("a leaf by a leaf", {row_leaf}, {col_leaf}, {1}),
       rectangles("a region by a column node", {region}, {column}, {1}),
       rectangles("two rectangles", {row_leaf, region + 2}, {col_leaf, column + 1}, {1, 1})});
}

}  // namespace
}  // namespace invariant_dp::accuracy
