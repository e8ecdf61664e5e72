// Coverage of error bars for hierarchies and streams, 10,000 releases each:
//  - cascade (real-valued Gaussian cascade sampler) on a 3-state, 11-county,
//    60-tract geography with per-level variances: exact normal per-node
//    intervals and margins;
//  - integer_cascade (the exact integer sampler) on the same tree, with the
//    state totals exact: certified per-node intervals, certified variances;
//  - a governed stream (the streaming cascade), 50 periods appended:
//    exact normal intervals and margins;
//  - crossed cascades (the geography x 3 age groups of 2 ages, the crossed
//    sampler): sums of rectangles, exact normal margins.
// Sums: a region of the hierarchy (one county and two tracts of another),
// nodes at mixed levels (a state, a county of another state, a tract), a
// random subset of the leaves; for the stream a range of periods, a random
// subset of periods, two separate ranges. Power: a variance 20 % too small
// fails the variance check (and the coverage check where the law is
// Gaussian), and per-node intervals from it fail the exact check.
#include <gtest/gtest.h>

#include <random>

#include "accuracy/crossed_accuracy.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy_sums.hpp"
#include "hierarchy/cascade_sampler.hpp"
#include "hierarchy/crossed_cascade.hpp"
#include "hierarchy/integer_cascade_sampler.hpp"
#include "hierarchy/rollup.hpp"
#include "hierarchy/streaming_cascade.hpp"
#include "random_source.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_sums;
using namespace hierarchy;

constexpr int kHierarchyReleases = 10000;
constexpr double kHierarchyLevel = 0.9;

// Root; 3 states with 3, 4, 4 counties; counties with 2 to 9 tracts (60).
HierarchyTree geography() {
  std::vector<std::int64_t> parent{-1, 0, 0, 0};
  const int counties[] = {3, 4, 4};
  for (int s = 0; s < 3; ++s)
    for (int c = 0; c < counties[s]; ++c) parent.push_back(1 + s);
  const int tracts[] = {2, 9, 5, 6, 4, 7, 3, 8, 5, 6, 5};
  for (int c = 0; c < 11; ++c)
    for (int t = 0; t < tracts[c]; ++t) parent.push_back(4 + c);
  return HierarchyTree::from_parents(parent, Interrupts());
}

std::vector<std::pair<std::string, CellQuery>> node_sums(const HierarchyTree& tree) {
  QueryBuilder b(tree.n_nodes());
  std::vector<std::pair<std::string, CellQuery>> out;
  const std::uint32_t county = tree.level_begin(2) + 1, other = tree.level_begin(2) + 4;
  b.add(county);
  b.add(tree.first_child(other));
  b.add(tree.first_child(other) + 1);
  out.emplace_back("a region (a county and two tracts)", b.take());
  b.add(tree.level_begin(1));             // a state
  b.add(tree.level_begin(2) + 5);         // a county of another state
  b.add(tree.level_end(3) - 1);           // a tract
  out.emplace_back("nodes at mixed levels", b.take());
  std::mt19937_64 gen(61);
  std::bernoulli_distribution in(0.6);
  for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf)
    if (in(gen)) b.add(tree.leaf_node(leaf));
  out.emplace_back("a random subset of tracts", b.take());
  return out;
}

template <class Draw>
void run_hierarchy(const std::string& family, const HierarchyTree& tree, const HierarchyAccuracy& acc, LawShape shape,
                   bool integer, Draw draw) {
  std::vector<coverage::SumCheck> sums, wrong;
  for (auto& [name, q] : node_sums(tree)) {
    const VarianceFigure v = acc.variance(q, Interrupts());
    sums.push_back(sum_check(family + ": " + name, q, v, kHierarchyLevel, shape, integer));
    wrong.push_back(sum_check(family + ": " + name + ", variance x 0.8", q, v, kHierarchyLevel, shape, integer, 0.8));
  }
  const CellIntervals intervals = acc.node_intervals(kHierarchyLevel, Interrupts());
  coverage::Check cells{family + ": per-node (" + std::string(exactness_name(intervals.kind())) + ")", kHierarchyLevel,
                        integer};
  std::vector<double> narrow_width(tree.n_nodes());
  for (std::uint32_t u = 0; u < tree.n_nodes(); ++u)
    narrow_width[u] = normal_half_width(0.8 * acc.node_variance(u).upper, kHierarchyLevel);
  const CellIntervals narrow(narrow_width, false, Exactness::exact, "narrow");
  coverage::Check narrow_cells{family + ": per-node, variance x 0.8", kHierarchyLevel, false};
  std::vector<double> z(tree.n_nodes());
  for (int r = 0; r < kHierarchyReleases; ++r) {
    draw(z);
    cells.add(cell_share(intervals, z));
    narrow_cells.add(cell_share(narrow, z));
    for (auto& s : sums) s.record(z);
    for (auto& s : wrong) s.record(z);
  }
  cells.report();
  EXPECT_TRUE(cells.passes());
  narrow_cells.report();
  if (!integer) {
    EXPECT_FALSE(narrow_cells.passes()) << "power";
  }
  coverage::expect_sums_hold(sums);
  coverage::expect_wrong_sums_fail(wrong, [&](const coverage::SumCheck&) { return shape == LawShape::gaussian; });
}

TEST(StatAccuracy, Cascade) {
  const HierarchyTree tree = geography();
  const CascadeLaw law(tree, {40, 30, 20, 10});
  const HierarchyAccuracy acc(tree, law, -1);
  auto rng = make_seeded_random_source(62);
  run_hierarchy("cascade", tree, acc, LawShape::gaussian, false, [&](std::vector<double>& z) {
    const std::vector<double> leaves = cascade_leaf_noise(tree, law, *rng, Interrupts());
    z = rollup(tree, leaves, Interrupts());
  });
}

TEST(StatAccuracy, IntegerCascadeWithExactStates) {
  const HierarchyTree tree = geography();
  std::vector<std::uint32_t> states;
  for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) states.push_back(v);
  const CascadeLaw law = CascadeLaw(tree, {40, 30, 20, 10}).conditioned_on(tree, states);
  const IntegerCascadeSampler sampler(tree, law, Interrupts());
  const HierarchyAccuracy acc(tree, law, 0x1p-53);
  auto rng = make_seeded_random_source(63);
  std::vector<std::int64_t> noise(tree.n_nodes());
  run_hierarchy("integer_cascade, states exact", tree, acc, LawShape::lattice_gaussian, true,
                [&](std::vector<double>& z) {
                  sampler.sample(*rng, noise.data(), Interrupts());
                  for (std::size_t u = 0; u < z.size(); ++u) z[u] = double(noise[u]);
                });
}

TEST(StatAccuracy, Stream) {
  const double v = 25;
  const std::uint64_t periods = 50;
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> queries;
  std::vector<std::uint64_t> range, random, two;
  for (std::uint64_t p = 10; p < 30; ++p) range.push_back(p);
  std::mt19937_64 gen(64);
  std::bernoulli_distribution in(0.7);
  for (std::uint64_t p = 0; p < periods; ++p)
    if (in(gen)) random.push_back(p);
  for (std::uint64_t p = 3; p < 8; ++p) two.push_back(p);
  for (std::uint64_t p = 40; p < 47; ++p) two.push_back(p);
  queries = {{"a range of periods", range}, {"a random subset of periods", random}, {"two ranges", two}};
  std::vector<coverage::SumCheck> sums, wrong;
  for (auto& [name, ps] : queries) {
    CellQuery q;
    for (auto p : ps) {
      q.cells.push_back(static_cast<std::uint32_t>(p));
      q.weights.push_back(1);
    }
    const double var = stream_variance(v, ps, std::vector<double>(ps.size(), 1.0));
    const VarianceFigure f{var, var, Exactness::exact};
    sums.push_back(sum_check("stream: " + name, q, f, kHierarchyLevel, LawShape::gaussian, false));
    wrong.push_back(
        sum_check("stream: " + name + ", variance x 0.8", q, f, kHierarchyLevel, LawShape::gaussian, false, 0.8));
  }
  const CellIntervals intervals(periods, normal_half_width(v, kHierarchyLevel), false, Exactness::exact, "normal");
  coverage::Check cells{"stream: per-period (exact)", kHierarchyLevel, false};
  auto rng = make_seeded_random_source(65);
  for (int r = 0; r < kHierarchyReleases; ++r) {
    StreamingCascade stream(v, 10);
    std::vector<double> z = stream.append(periods / 2, *rng, Interrupts());
    const std::vector<double> more = stream.append(periods - periods / 2, *rng, Interrupts());  // a second refresh
    z.insert(z.end(), more.begin(), more.end());
    cells.add(cell_share(intervals, z));
    for (auto& s : sums) s.record(z);
    for (auto& s : wrong) s.record(z);
  }
  cells.report();
  EXPECT_TRUE(cells.passes());
  coverage::expect_sums_hold(sums);
  coverage::expect_wrong_sums_fail(wrong, [](const coverage::SumCheck&) { return true; });
}


TEST(StatAccuracy, CrossedCascade) {
  const HierarchyTree rows = geography();
  const CascadeLaw row_law(rows, {40, 30, 20, 10});
  const HierarchyTree ages = HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 2, 3, 3}, Interrupts());
  const CascadeLaw age_law(ages, {1, 0.8, 0.6});
  const CrossedAccuracy acc(rows, row_law, ages, age_law, -1);
  struct Rectangles {
    std::string name;
    std::vector<std::uint32_t> r, c;
    std::vector<double> w;
  };
  std::vector<Rectangles> queries(3);
  queries[0] = {"crossed: a state x an age group", {rows.level_begin(1)}, {ages.level_begin(1)}, {1}};
  queries[1] = {"crossed: rectangles at mixed levels",
                {rows.level_begin(1) + 1, rows.level_begin(2) + 2, rows.level_end(3) - 3},
                {0, ages.level_begin(2) + 3, ages.level_begin(1) + 2},
                {1, 1, 1}};
  queries[2].name = "crossed: a random subset of grid cells";
  std::mt19937_64 gen(66);
  std::bernoulli_distribution in(0.3);
  for (std::uint32_t a = 0; a < rows.n_leaves(); ++a)
    for (std::uint32_t b = 0; b < ages.n_leaves(); ++b)
      if (in(gen)) {
        queries[2].r.push_back(rows.leaf_node(a));
        queries[2].c.push_back(ages.leaf_node(b));
        queries[2].w.push_back(1);
      }
  // Each rectangle's noise is the sum of its grid cells: queries as grid-cell weights.
  const std::size_t ncol = ages.n_leaves();
  std::vector<coverage::SumCheck> sums, wrong;
  for (const Rectangles& q : queries) {
    QueryBuilder grid(rows.n_leaves() * ncol);
    for (std::size_t k = 0; k < q.r.size(); ++k)
      for (std::uint32_t a = rows.leaf_begin(q.r[k]); a < rows.leaf_end(q.r[k]); ++a)
        for (std::uint32_t b = ages.leaf_begin(q.c[k]); b < ages.leaf_end(q.c[k]); ++b) grid.add(a * ncol + b, q.w[k]);
    const CellQuery cells = grid.take();
    const VarianceFigure v = acc.variance(q.r, q.c, q.w, Interrupts());
    sums.push_back(sum_check(q.name, cells, v, kHierarchyLevel, LawShape::gaussian, false));
    wrong.push_back(sum_check(q.name + ", variance x 0.8", cells, v, kHierarchyLevel, LawShape::gaussian, false, 0.8));
  }
  auto rng = make_seeded_random_source(67);
  for (int r = 0; r < kHierarchyReleases; ++r) {
    const std::vector<double> z = crossed_cascade_noise(rows, row_law, ages, age_law, *rng, Interrupts());
    for (auto& s : sums) s.record(z);
    for (auto& s : wrong) s.record(z);
  }
  coverage::expect_sums_hold(sums);
  coverage::expect_wrong_sums_fail(wrong, [](const coverage::SumCheck&) { return true; });
}

}  // namespace
}  // namespace invariant_dp
