// Benchmark: error bars (src/core/accuracy). Prints, each case best of 3:
//   * one sum over all 10^6 cells of a 1000 x 1000 two-way release (both
//     margins): preparation (the table form, the integer_gaussian scalars
//     with their deficit bound) and the query (collecting the cells, the
//     inclusion-exclusion form); a quarter of it, with its margin from the
//     law of the sum (a box: sum_quantile.hpp); target < 1 s through SQL;
//   * the margin of one sum over 10^6 independent discrete Laplace cells
//     from its law (Fourier inversion), and over the first lines of 1,000
//     2 x 1,000 integer_laplace tables (zero-sum groups); target < 1 s;
//   * 3,143 county sums over the national tree (50 states, 3,143 counties,
//     85,000 tracts, 240,000 block groups, 8,000,000 blocks; the synthetic
//     geography of bench_integer_cascade): preparation, the counties as
//     nodes, and as the sums of their blocks (what a GROUP BY county over
//     the released blocks hands over); per-node certified intervals of every
//     node; the margin of one tract of every county (nodes of different
//     parents, through the kernel of cascade_kernel.hpp) at its first query
//     and again; target < 5 s through SQL;
//   * per-cell intervals of 5,000,000 independent discrete Laplace cells
//     against the release itself (noise drawn from the certified CDF table
//     and added); target: intervals at most 0.2 x the release.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <vector>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/sum_quantile.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "bench_checks.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "national_tree.hpp"
#include "random_source.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/discrete_laplace_table.hpp"

using namespace invariant_dp;
using namespace invariant_dp::accuracy;
using namespace invariant_dp::hierarchy;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

template <class F>
double best_of_3(F f) {
  double best = 1e300;
  for (int k = 0; k < 3; ++k) {
    const auto start = Clock::now();
    f();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

void two_way_case() {
  const std::size_t R = 1000, C = 1000, n = R * C;
  LatticeTable table{{R, C}, {}};
  table.cells.resize(n);
  for (std::size_t i = 0; i < n; ++i) table.cells[i] = i;
  std::shared_ptr<const ProjectorForm> form;
  const double t_form = best_of_3([&] { form = table_form({table}, n); });
  std::unique_ptr<LinearAccuracy> acc;
  const double t_scalars = best_of_3(
      [&] { acc = std::make_unique<LinearAccuracy>(lattice_gaussian_accuracy(form, Rational{60, 1}, Interrupts())); });
  QueryBuilder builder(n);
  std::vector<std::uint32_t> cells(n);
  for (std::size_t i = 0; i < n; ++i) cells[i] = static_cast<std::uint32_t>(i);
  VarianceFigure v;
  const double t_query = best_of_3([&] {
    builder.add_all(cells.data(), n, Interrupts());
    v = acc->variance(builder.take(), Interrupts());
  });
  // A quarter of the table (500 x 500 cells): a sum the margins do not fix
  // (the whole table's, like half of every row's, is 0).
  std::vector<std::uint32_t> half;
  for (std::size_t r = 0; r < R / 2; ++r)
    for (std::size_t c = 0; c < C / 2; ++c) half.push_back(static_cast<std::uint32_t>(r * C + c));
  VarianceFigure vh;
  const double t_half = best_of_3([&] {
    builder.add_all(half.data(), half.size(), Interrupts());
    vh = acc->variance(builder.take(), Interrupts());
  });
  std::optional<MarginOfError> mh;
  const double t_half_margin = best_of_3([&] {
    builder.add_all(half.data(), half.size(), Interrupts());
    mh = lattice_sum_margin(*form, IntegerNoise{IntegerNoise::Kind::gaussian, {60, 1}}, builder.take(), 0.9,
                            Interrupts());
  });
  if (!mh) bench_checks::fail("the quarter of a two-way table is a box: its margin has a law");
  // A random half of the cells is no box: its margin from the law of any
  // functional of a two-way table (short vectors of the kernel).
  std::vector<std::uint32_t> random_half;
  std::mt19937_64 gen(5);
  for (std::uint32_t i = 0; i < n; ++i)
    if (gen() & 1) random_half.push_back(i);
  std::optional<MarginOfError> mr;
  const double t_random_half = best_of_3([&] {
    builder.add_all(random_half.data(), random_half.size(), Interrupts());
    mr = lattice_sum_margin(*form, IntegerNoise{IntegerNoise::Kind::gaussian, {60, 1}}, builder.take(), 0.9,
                            Interrupts());
  });
  if (!mr) bench_checks::fail("a random half of a two-way table has a law: its margin is missing");
  builder.add_all(random_half.data(), random_half.size(), Interrupts());
  const VarianceFigure vr = acc->variance(builder.take(), Interrupts());
  std::printf("two-way 1000 x 1000: form %.3f s, integer_gaussian scalars (deficit bound) %.3f s; one sum of all "
              "10^6 cells %.3f s (variance %.3g); a 500 x 500 quarter (2.5e5 cells) %.3f s (variance [%.6g, %.6g]), "
              "its margin at 0.9 from the law of the box %.3f s (%.0f, %s; normal quantile %.1f); a random half "
              "(%zu cells), no box, its margin from the law of the sum %.3f s (%.0f, %s; normal quantile %.1f); "
              "preparation + query %.3f s\n",
              t_form, t_scalars, t_query, v.upper, t_half, vh.lower, vh.upper, t_half_margin, mh->half_width,
              exactness_name(mh->kind), normal_half_width(vh.upper, 0.9), random_half.size(), t_random_half,
              mr->half_width, exactness_name(mr->kind), normal_half_width(vr.upper, 0.9), t_form + t_scalars + t_query);
}

// Margins of large sums from their laws, including collecting the query.
void sum_law_case() {
  const std::size_t n = 1000000;
  const auto independent = identity_form(n);
  QueryBuilder builder(n);
  std::vector<std::uint32_t> cells(n);
  for (std::size_t i = 0; i < n; ++i) cells[i] = static_cast<std::uint32_t>(i);
  const IntegerNoise laplace{IntegerNoise::Kind::laplace, {625, 60}};  // b = 2 / 0.192
  std::optional<MarginOfError> m;
  const double t_independent = best_of_3([&] {
    builder.add_all(cells.data(), n, Interrupts());
    m = lattice_sum_margin(*independent, laplace, builder.take(), 0.9, Interrupts());
  });
  if (!m || m->kind != Exactness::exact) bench_checks::fail("a sum of independent cells has an exact margin");
  const double normal = normal_half_width(double(n) * discrete_laplace_variance(laplace.parameter), 0.9);
  if (std::abs(m->half_width - normal) > 3) bench_checks::fail("the independent sum's margin is near the normal one");
  // 1,000 tables of 2 x 1,000: the first line's first 600 cells and the
  // second line's last 300 of each.
  std::vector<LatticeTable> tables(1000);
  std::vector<std::uint32_t> taken;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    tables[t].shape = {2, 1000};
    for (std::size_t p = 0; p < 2000; ++p) {
      tables[t].cells.push_back(t * 2000 + p);
      if ((p < 1000 && p < 600) || p >= 1700) taken.push_back(static_cast<std::uint32_t>(t * 2000 + p));
    }
  }
  const auto two_line = table_form(std::move(tables), 2 * n);
  QueryBuilder lines(2 * n);
  std::optional<MarginOfError> g;
  const double t_groups = best_of_3([&] {
    lines.add_all(taken.data(), taken.size(), Interrupts());
    g = lattice_sum_margin(*two_line, laplace, lines.take(), 0.9, Interrupts());
  });
  if (!g || g->kind != Exactness::exact) bench_checks::fail("a set of cells of 2 x n tables has an exact margin");
  std::printf("the sum of 10^6 independent discrete Laplace cells (b = 10.42): margin at 0.9 from its law %.3f s "
              "(%.0f, exact; normal quantile %.1f); 9e5 cells of 1,000 tables of 2 x 1,000: %.3f s (%.0f, exact)\n",
              t_independent, m->half_width, normal, t_groups, g->half_width);
}

using bench::national_tree;

void county_case() {
  auto start = Clock::now();
  const HierarchyTree tree = national_tree();
  const double t_tree = seconds_since(start);
  // The calibrated national variance at epsilon 1 (integer_cascade_sampler.hpp: 323).
  const CascadeLaw law = CascadeLaw::uniform(tree, 323.0);
  const HierarchyAccuracy acc(tree, law, 0x1p-53);
  QueryBuilder builder(tree.n_nodes());
  double checksum = 0;
  const double t_nodes = best_of_3([&] {
    checksum = 0;
    for (std::uint32_t c = tree.level_begin(2); c < tree.level_end(2); ++c) {
      builder.add(c);
      checksum += acc.variance(builder.take(), Interrupts()).upper;
    }
  });
  double checksum_blocks = 0;
  const double t_blocks = best_of_3([&] {
    checksum_blocks = 0;
    for (std::uint32_t c = tree.level_begin(2); c < tree.level_end(2); ++c) {
      for (std::uint32_t leaf = tree.leaf_begin(c); leaf < tree.leaf_end(c); ++leaf) builder.add(tree.leaf_node(leaf));
      checksum_blocks += acc.variance(builder.take(), Interrupts()).upper;
    }
  });
  start = Clock::now();
  const CellIntervals intervals = acc.node_intervals(0.9, Interrupts());
  const double t_intervals = seconds_since(start);
  // Margins of node sets no Klein order covers (accuracy/cascade_kernel.hpp):
  // the first tract of every county (3,143 tracts of different parents), at
  // the first query (the kernel built over every move) and again.
  const auto tract_of_every_county = [&] {
    for (std::uint32_t c = tree.level_begin(2); c < tree.level_end(2); ++c) builder.add(tree.first_child(c));
    return builder.take();
  };
  start = Clock::now();
  const std::optional<MarginOfError> first = acc.lattice_margin(tract_of_every_county(), 0.9, Interrupts());
  const double t_kernel_first = seconds_since(start);
  std::optional<MarginOfError> again;
  const double t_kernel_again = best_of_3([&] { again = acc.lattice_margin(tract_of_every_county(), 0.9, Interrupts()); });
  if (!first || !again || first->half_width != again->half_width) {
    std::fprintf(stderr, "the kernel's margin of 3,143 tracts is missing or differs\n");
    std::exit(1);
  }
  std::printf("national tree: theta ratio R - 1 = %.3g at node variance 323\n", acc.theta_ratio(Interrupts()) - 1);
  std::printf("national tree (%zu nodes, built in %.2f s): 3,143 county sums as nodes %.4f s, as the sums of "
              "their 8e6 blocks %.3f s (mean variance %.6g = %.6g); per-node certified intervals of every node %.3f "
              "s (county half-width %.0f)\n",
              tree.n_nodes(), t_tree, t_nodes, t_blocks, checksum / 3143, checksum_blocks / 3143, t_intervals,
              intervals.half_width(tree.level_begin(2)));
  std::printf("national tree: one tract of every county (3,143 nodes of different parents), margin at 0.9 from the "
              "law of the sum: first query %.3f s (the kernel built), again %.4f s (%.0f, %s; normal quantile %.1f)\n",
              t_kernel_first, t_kernel_again, first->half_width, first->kind == Exactness::exact ? "exact" : "certified",
              1.6448536269514722 * std::sqrt(acc.variance(tract_of_every_county(), Interrupts()).upper));
}

void independent_case() {
  const std::size_t n = 5000000;
  const Rational b{2, 1};
  std::vector<std::int64_t> counts(n), released(n), lower(n), upper(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = std::int64_t((i * 7919) % 300);
  auto rng = make_seeded_random_source(1);
  const double t_release = best_of_3([&] {
    const DiscreteLaplaceTable table(b, Interrupts());
    for (std::size_t i = 0; i < n; ++i) released[i] = counts[i] + table.sample(*rng);
  });
  const double t_intervals = best_of_3([&] {
    const CellIntervals intervals = discrete_laplace_intervals(n, b, 0.9);
    intervals.integer_bounds(0, released.size(), released.data(), lower.data(), upper.data());
  });
  std::printf("5e6 independent discrete Laplace cells (b = 2): release (noise + counts) %.3f s, per-cell intervals "
              "%.3f s: %.3f x the release (half-width %lld)\n",
              t_release, t_intervals, t_intervals / t_release, static_cast<long long>(upper[0] - released[0]));
}

}  // namespace

int main() {
  two_way_case();
  sum_law_case();
  county_case();
  independent_case();
  return 0;
}
