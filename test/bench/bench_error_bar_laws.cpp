// Benchmark: the exact and certified laws of error bars (src/core/accuracy:
// independent_sum_quantiles, zero_sum_quantiles, lattice_gaussian_quantiles,
// table_covariance_scale; DERIVATIONS.md there, sections 10 to 13). Prints,
// each case best of 3:
//   * the exact quantile of a sum of m independent discrete Laplace (b =
//     2/0.192) and discrete Gaussian (sigma^2 = 60) cells, m = 1 to 10^6,
//     levels 0.5, 0.9, 0.95, 0.99, and a node over 10^6 leaves with weights
//     1 and 2; target: one sum over 10^6 cells well under 1 s;
//   * a cell, 1,000 cells and half of a zero-sum group of 10^6 cells, and a
//     set of cells across both lines of a 2 x 10^6 table;
//   * the national integer cascade (8.3M nodes, node variance 323): the
//     tree's theta excess once, then the 3,143 counties' certified
//     half-widths; a box of a 1000 x 1000 integer_gaussian table, and a
//     random half of the cells of a 1000 x 1000 and a 100 x 100 x 100
//     table (any set of cells; target: well under 1 s);
//   * the covariance scale of 3 x n and 4 x n tables, l1 and Gaussian,
//     n = 20 to 250,000 (the 4 x 1000 case named by the target), and what
//     releases compute (the published target, within a release's points)
//     on 4 x 4 to 4 x 30 tables at b = 4 (epsilon 1), 6 and 10.4;
//   * the l1 law of two-way tables with a side of three or four levels
//     (laplace_table_cell, laplace_table_sum; section 15): one cell's
//     quantile at level 0.9 on 3 x n and 4 x n tables, and sums (a pair of
//     cells, a region of half the long side), with the work each refuses;
//   * integer_gaussian on incomplete two-way tables (general margins,
//     general_lattice_functional; section 13): the lattice's basis once,
//     then every cell's interval and a random half of the cells;
//   * queries read as one cell given the margins (one_cell_query.hpp;
//     section 16) on a 1000 x 1000 table and an incomplete 300 x 300 one;
//   * projected Laplace noise (projected_laplace.hpp, laplace_combination.hpp;
//     section 18): a cell's quantile at levels 0.9 and 0.99 for tables from
//     a group of 10 to 1000 x 1000 (subspace_laplace's continuous law, and
//     project_l2's lattice law), and sums over a 1000 x 1000 table (a
//     2 x 3 block, a 300 x 500 block, a scattered half), against Gauss's
//     and Chebyshev's bounds at the same variance.
// Each half-width is also checked against the normal quantile at its
// variance (within 3 counts), so a fast wrong answer fails.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/general_lattice_functional.hpp"
#include "accuracy/independent_sum_quantiles.hpp"
#include "accuracy/laplace_table_cell.hpp"
#include "accuracy/laplace_table_sum.hpp"
#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/one_cell_query.hpp"
#include "accuracy/projected_laplace.hpp"
#include "accuracy/projector_form.hpp"
#include "accuracy/sum_quantile.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "accuracy/table_functional.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy/zero_sum_quantiles.hpp"
#include "bench_checks.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "lattice/lattice_basis_cache.hpp"
#include "national_tree.hpp"

using namespace invariant_dp;
using namespace invariant_dp::accuracy;

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double best_of_3(F f) {
  double best = 1e300;
  for (int k = 0; k < 3; ++k) {
    const auto start = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

const IntegerNoise kLaplace{IntegerNoise::Kind::laplace, {625, 60}};  // b = 2 / 0.192
const IntegerNoise kGaussian{IntegerNoise::Kind::gaussian, {60, 1}};

void check_near_normal(const Quantile& q, double variance, double level, const char* what) {
  if (std::abs(double(q.half_width) - normal_quantile(level) * std::sqrt(variance)) > 3)
    bench_checks::fail(what);
}

void independent_sums() {
  for (const IntegerNoise& noise : {kLaplace, kGaussian}) {
    const double var = NoiseTransform(noise).variance();
    for (const std::uint64_t m : {1u, 10u, 1000u, 1000000u}) {
      for (const double level : {0.5, 0.9, 0.95, 0.99}) {
        Quantile q;
        const double t = best_of_3([&] { q = independent_sum_quantile(noise, {{1, m}}, level, Interrupts()); });
        if (m >= 1000) check_near_normal(q, var * double(m), level, "a large sum's quantile is far from normal");
        std::printf("sum of %7llu %s cells, level %.2f: q = %6lld (%s, coverage >= %.6f)  %.4f s\n",
                    static_cast<unsigned long long>(m),
                    noise.kind == IntegerNoise::Kind::laplace ? "discrete Laplace" : "discrete Gaussian", level,
                    static_cast<long long>(q.half_width), q.exact ? "exact" : "certified", q.coverage_lower, t);
      }
    }
    Quantile q;
    const double t = best_of_3(
        [&] { q = independent_sum_quantile(noise, {{1, 900000}, {2, 100000}}, 0.9, Interrupts()); });
    check_near_normal(q, var * (900000 + 4 * 100000.0), 0.9, "a weighted sum's quantile is far from normal");
    std::printf("node over 10^6 leaves, 10^5 of them in a selected child (weights 1, 2), level 0.90: q = %lld "
                "(%s)  %.4f s\n",
                static_cast<long long>(q.half_width), q.exact ? "exact" : "certified", t);
  }
}

void zero_sum_groups() {
  const std::uint64_t k = 1000000;
  for (const IntegerNoise& noise : {kLaplace, kGaussian}) {
    const double var = NoiseTransform(noise).variance();
    for (const std::uint64_t s : {1u, 1000u, 500000u}) {
      Quantile q;
      const double t = best_of_3([&] { q = zero_sum_quantile(noise, {s, 0, k - s}, 0.9, Interrupts()); });
      if (s > 1) check_near_normal(q, var * double(s) * double(k - s) / double(k), 0.9, "a group sum is far from normal");
      std::printf("group of 10^6 %s cells, %6llu of them, level 0.90: q = %lld (%s)  %.4f s\n",
                  noise.kind == IntegerNoise::Kind::laplace ? "l1" : "Gaussian", static_cast<unsigned long long>(s),
                  static_cast<long long>(q.half_width), q.exact ? "exact" : "certified", t);
    }
    Quantile q;
    const double t = best_of_3(
        [&] { q = zero_sum_quantile(halved(noise), two_line_counts(k, 300000, 200000), 0.9, Interrupts()); });
    std::printf("2 x 10^6 %s table, 3e5 first-line and 2e5 second-line cells, level 0.90: q = %lld (%s)  %.4f s\n",
                noise.kind == IntegerNoise::Kind::laplace ? "l1" : "Gaussian", static_cast<long long>(q.half_width),
                q.exact ? "exact" : "certified", t);
  }
}

void lattice_gaussians() {
  const auto build = Clock::now();
  const hierarchy::HierarchyTree tree = bench::national_tree();
  const hierarchy::CascadeLaw law = hierarchy::CascadeLaw::uniform(tree, 323.0);
  const std::vector<double> variance = hierarchy::node_variances(tree, law, Interrupts());
  std::printf("national tree (%zu nodes) built in %.2f s\n", tree.n_nodes(),
              std::chrono::duration<double>(Clock::now() - build).count());
  double tree_excess = 0;
  const double t_tree = best_of_3([&] { tree_excess = cascade_tree_log_excess(tree, law, Interrupts()); });
  std::int64_t first = -1;
  const double t_counties = best_of_3([&] {
    for (std::uint32_t u = tree.level_begin(2); u < tree.level_end(2); ++u) {
      const TiltedFunctional q = cascade_node_query(tree, law, variance, u);
      const Quantile h = tilted_gaussian_quantile(q.variance, 1, tree_excess + q.log_excess, 0.9, Interrupts());
      if (first < 0) first = h.half_width;
      if (!h.exact) bench_checks::fail("a county's certified half-width is not exact");
    }
  });
  std::printf("national integer cascade: tree excess %.3g in %.3f s; 3,143 county half-widths (each %lld, exact) "
              "in %.3f s (the sub-Gaussian bound: %.1f)\n",
              tree_excess, t_tree, static_cast<long long>(first), t_counties, sub_gaussian_half_width(323, 0.9));
  Quantile q;
  const double t_box = best_of_3([&] {
    const std::vector<std::size_t> shape{1000, 1000}, box{300, 500};
    q = tilted_gaussian_quantile(box_variance({60, 1}, shape, box), 1, box_log_excess({60, 1}, shape, box), 0.9,
                                 Interrupts());
  });
  std::printf("a 300 x 500 box of a 1000 x 1000 integer_gaussian table: q = %lld (%s)  %.4f s\n",
              static_cast<long long>(q.half_width), q.exact ? "exact" : "certified", t_box);
  // Any set of cells: a random half of 10^6 cells, on a two-way and on a
  // three-way table (the kernel's short vectors, table_functional.hpp).
  for (const std::vector<std::size_t>& shape :
       {std::vector<std::size_t>{1000, 1000}, std::vector<std::size_t>{100, 100, 100}}) {
    std::vector<std::int64_t> half(1000000);
    std::uint64_t state = 12345;
    for (std::int64_t& w : half) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      w = std::int64_t(state >> 63);
    }
    Quantile h;
    StepFunctional f;
    const double t_half = best_of_3([&] {
      f = table_functional({60, 1}, shape, half, Interrupts()).functional;
      h = tilted_gaussian_quantile(f.unit.variance, 1, f.unit.log_excess, 0.9, Interrupts());
    });
    if (f.step != 1) bench_checks::fail("a random half of cells has step 1");
    const char* what = shape.size() == 2 ? "1000 x 1000" : "100 x 100 x 100";
    check_near_normal(h, f.unit.variance, 0.9, what);
    // At a variance of 10^7 one count moves the coverage by 5e-5, so a
    // tilt of 1e-4 leaves the last count undecided: certified.
    std::printf("a random half of a %s integer_gaussian table (sigma^2 60): q = %lld (%s, log excess %.2g)  %.4f s\n",
                what, static_cast<long long>(h.half_width), h.exact ? "exact" : "certified", f.unit.log_excess,
                t_half);
  }
}

void table_scales() {
  for (const IntegerNoise& noise : {IntegerNoise{IntegerNoise::Kind::laplace, {3, 1}}, kLaplace, kGaussian}) {
    for (const std::size_t r : {3u, 4u}) {
      for (const std::size_t n : {20u, 100u, 1000u, 250000u}) {
        TableScale s;
        double t = 0;
        try {
          t = best_of_3([&] {
            forget_kept_table_scales();  // each run computes (the process keeps what it computed)
            s = table_covariance_scale(noise, r, n, Interrupts());
          });
        } catch (const TooLarge&) {
          std::printf("%zu x %-6zu %s b/s2 = %.4g: refused (too many points)\n", r, n,
                      noise.kind == IntegerNoise::Kind::laplace ? "l1" : "Gaussian", noise.parameter.to_double());
          continue;
        }
        std::printf("%zu x %-6zu %s b/s2 = %.4g: c = %.10g (quadrature %.1e, rounding %.1e, %llu points)  %.3f s\n",
                    r, n, noise.kind == IntegerNoise::Kind::laplace ? "l1" : "Gaussian",
                    noise.parameter.to_double(), s.scale, s.quadrature_error, s.rounding_error,
                    static_cast<unsigned long long>(s.points), t);
      }
    }
  }
}

// What releases and their error bars compute (release_table_scale): the
// published target within a release's points (kErrorBarScalePoints), else
// the certified one within the same points, else the Monte Carlo estimate;
// short three- and four-line tables from the scale of epsilon 1 down to
// epsilon 6e-5 (b = 64,000).
void published_table_scales() {
  const Rational scales[] = {{4, 1}, {52, 5}, {16, 1}, {40, 1}, {100, 1}, {400, 1}, {1000, 1}, {4000, 1}, {64000, 1}};
  for (const std::size_t r : {3u, 4u})
    for (const Rational b : scales)
      for (const std::size_t n : {std::size_t(r), std::size_t(6), std::size_t(10), std::size_t(20), std::size_t(30)}) {
        const IntegerNoise noise{IntegerNoise::Kind::laplace, b};
        TableScale s;
        double t = 0;
        try {
          t = best_of_3([&] {
            forget_kept_table_scales();
            s = release_table_scale(noise, r, n, Interrupts(), kErrorBarScalePoints);
          });
        } catch (const TooLarge&) {
          std::printf("published: %zu x %-3zu l1 b = %.4g: past a release's points, estimated\n", r, n, b.to_double());
          continue;
        }
        const double error = s.quadrature_error + s.rounding_error;
        std::printf("published: %zu x %-3zu l1 b = %.4g: c = %.10g (%s, error %.1e, %llu points)  %.3f s\n", r, n,
                    b.to_double(), s.scale, error <= 1e-9 ? "exact" : "certified", error,
                    static_cast<unsigned long long>(s.points), t);
      }
}

void laplace_table_laws() {
  struct Shape {
    Rational b;
    std::size_t r, n;
  };
  const std::vector<Shape> shapes = {{{9, 4}, 3, 4},     {{4, 1}, 4, 4},   {{8, 1}, 4, 4},     {{4, 1}, 4, 8},
                                     {{5, 1}, 4, 20},    {{2, 1}, 3, 100}, {{52, 5}, 3, 1000}, {{52, 5}, 4, 100},
                                     {{52, 5}, 4, 1000}, {{52, 5}, 4, 20}};
  for (const Shape& s : shapes) {
    TableCellQuantile q;
    try {
      // Once: the process keeps the quantiles it found, so a second call costs nothing.
      const auto start = Clock::now();
      q = laplace_table_cell_quantile(s.b, s.r, s.n, 0.9, Interrupts());
      const double t = std::chrono::duration<double>(Clock::now() - start).count();
      std::printf("l1 %zu x %-5zu b = %.4g, one cell, level 0.90: q = %lld (%s, work %.3g)  %.3f s\n", s.r, s.n,
                  s.b.to_double(), static_cast<long long>(q.quantile.half_width),
                  q.quantile.exact ? "exact" : "certified", q.work, t);
    } catch (const TooLarge&) {
      std::printf("l1 %zu x %-5zu b = %.4g, one cell: refused (past the work limit)\n", s.r, s.n, s.b.to_double());
    }
    for (const bool region : {false, true}) {
      std::vector<std::int64_t> w(s.r * s.n, 0);
      if (region) {
        for (std::size_t i = 0; i < 2; ++i)
          for (std::size_t j = 0; j < s.n / 2; ++j) w[i * s.n + j] = 1;
      } else {
        w[0] = w[s.n + 1] = 1;
      }
      try {
        TableSumQuantile q;
        const double t = best_of_3([&] {
          forget_kept_table_sums();  // each run computes: the process keeps the sums it found
          q = laplace_table_sum_quantile(s.b, {LaplaceTablePart{s.r, s.n, w}}, 0.9, Interrupts());
        });
        std::printf("l1 %zu x %-5zu b = %.4g, %s, level 0.90: q = %lld (%s)  %.3f s\n", s.r, s.n, s.b.to_double(),
                    region ? "2 lines x half the columns" : "a pair of cells",
                    static_cast<long long>(q.quantile.half_width * q.step), q.quantile.exact ? "exact" : "certified",
                    t);
      } catch (const TooLarge&) {
        std::printf("l1 %zu x %-5zu b = %.4g, %s: refused (past the work limit)\n", s.r, s.n, s.b.to_double(),
                    region ? "2 lines x half the columns" : "a pair of cells");
      }
    }
  }
}

// An R x C table without the cells where a fixed pseudo-random draw falls
// below `missing` (row 0 and column 0 kept, so it stays connected), with
// its row totals and all column totals but the first: independent rows.
Eigen::SparseMatrix<double, Eigen::RowMajor> incomplete_table(int R, int C, double missing) {
  std::uint64_t state = 777;
  std::vector<Eigen::Triplet<double>> entries;
  int n = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      if (i > 0 && j > 0 && double(state >> 11) * 0x1p-53 < missing) continue;
      entries.emplace_back(i, n, 1.0);
      if (j > 0) entries.emplace_back(R + j - 1, n, 1.0);
      ++n;
    }
  Eigen::SparseMatrix<double, Eigen::RowMajor> rows(R + C - 1, n);
  rows.setFromTriplets(entries.begin(), entries.end());
  return rows;
}

void general_margins() {
  const Rational sigma2{147, 10};
  for (const auto& [R, C, missing] : {std::tuple{30, 30, 0.1}, std::tuple{40, 40, 0.2}}) {
    const auto rows = incomplete_table(R, C, missing);
    const std::size_t n = std::size_t(rows.cols());
    // The release's set-up reduces the basis (its own work limit) and the
    // process keeps it; the error bars then find it kept.
    const auto start = Clock::now();
    kept_invariant_lattice_basis(rows, Interrupts());
    const double t_basis = std::chrono::duration<double>(Clock::now() - start).count();
    std::shared_ptr<const ProjectorForm> form = general_form(rows, Interrupts());
    if (form->lattice_functionals(Interrupts()) == nullptr) bench_checks::fail("an incomplete table has no basis");
    const LinearAccuracy accuracy = lattice_gaussian_accuracy(form, sigma2, Interrupts());
    CellIntervals intervals(0, 0, true, Exactness::exact, "");
    const double t_cells =
        best_of_3([&] { intervals = lattice_gaussian_intervals(accuracy.shared_form(), sigma2, 0.9, Interrupts()); });
    if (intervals.kind() != Exactness::exact) bench_checks::fail("an incomplete table's cells are not exact");
    CellQuery half;
    std::uint64_t state = 4242;
    for (std::uint32_t i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      if (state >> 63) {
        half.cells.push_back(i);
        half.weights.push_back(1);
      }
    }
    std::optional<MarginOfError> m;
    const double t_half = best_of_3([&] { m = general_lattice_margin(*form, sigma2, half, 0.9, Interrupts()); });
    if (!m || m->kind != Exactness::exact) bench_checks::fail("a random half of an incomplete table is not exact");
    const double v = sigma2.to_double() * form->form(half, Interrupts());
    if (std::fabs(m->half_width - normal_half_width(v, 0.9)) > 3) bench_checks::fail("a sum is far from normal");
    std::printf("integer_gaussian on a %d x %d table without %.0f %% of its cells (%zu cells, sigma^2 14.7): basis in "
                "%.2f s; every cell's interval (first %.0f, exact) in %.4f s; a random half: margin %.0f (exact) in "
                "%.4f s (the sub-Gaussian bound: %.1f)\n",
                R, C, 100 * missing, n, t_basis, intervals.half_width(0), t_cells, m->half_width, t_half,
                sub_gaussian_half_width(v, 0.9));
  }
}

// Queries read as one cell given the margins (one_cell_query.hpp;
// section 16): on a 1000 x 1000 table the rest of a column (one pass over
// the table) and most of the table (no cell: skipped by its share of the
// variance), beside that query's variance; on an incomplete 300 x 300
// table (general margins) the rest of a row and a pair of cells, each a
// projection by the whole factor.
void one_cell_reading() {
  LatticeTable table{{1000, 1000}, {}};
  for (std::size_t i = 0; i < 1000000; ++i) table.cells.push_back(i);
  const auto form = table_form({table}, 1000000);
  CellQuery rest, most;
  for (std::uint32_t i = 0; i < 1000; ++i)
    if (i != 3) {
      rest.cells.push_back(i * 1000 + 7);
      rest.weights.push_back(1);
    }
  for (std::uint32_t i = 0; i < 1000000; ++i)
    if (i % 7 != 3) {
      most.cells.push_back(i);
      most.weights.push_back(1);
    }
  std::optional<CellQuery> one;
  const double t_rest = best_of_3([&] { one = as_one_cell(*form, rest, Interrupts()); });
  if (!one || one->cells[0] != 3007 || one->weights[0] != -1) bench_checks::fail("the rest of a column is no cell");
  const double t_most = best_of_3([&] { one = as_one_cell(*form, most, Interrupts()); });
  if (one) bench_checks::fail("most of a table is read as a cell");
  const double t_form = best_of_3([&] { form->form(most, Interrupts()); });
  std::printf(
      "one cell given the margins, 1000 x 1000: the rest of a column %.4f s; most of the table (%zu cells, no "
      "cell) %.4f s, its variance alone %.4f s\n",
      t_rest, most.size(), t_most, t_form);
  const auto rows = incomplete_table(300, 300, 0.05);
  const auto general = general_form(rows, Interrupts());
  const std::size_t n = std::size_t(rows.cols());
  CellQuery row_rest, pair;
  for (std::uint32_t i = 1; i < 300; ++i) {  // the first row (complete) without its first cell
    row_rest.cells.push_back(i);
    row_rest.weights.push_back(1);
  }
  pair.cells = {5, std::uint32_t(n / 2)};
  pair.weights = {1, 1};
  std::optional<CellQuery> general_one;
  const double t_first = best_of_3([&] { general_one = as_one_cell(*general, row_rest, Interrupts()); });
  if (!general_one || general_one->cells[0] != 0 || general_one->weights[0] != -1)
    bench_checks::fail("the rest of a row of an incomplete table is no cell");
  const double t_pair = best_of_3([&] { general_one = as_one_cell(*general, pair, Interrupts()); });
  if (general_one) bench_checks::fail("a pair of an incomplete table is read as a cell");
  std::printf("general margins, an incomplete 300 x 300 table (%zu cells): the rest of a row %.4f s, a pair %.4f s\n",
              n, t_first, t_pair);
}

void projected_laplace() {
  std::printf("\n== projected Laplace noise: cells (b = 1 continuous, b = 1 discrete) ==\n");
  const std::vector<std::vector<std::size_t>> shapes = {{10}, {4, 4}, {10, 30}, {3, 4, 5}, {300, 300}, {1000, 1000}};
  for (const auto& shape : shapes) {
    std::string name;
    for (const std::size_t n : shape) name += (name.empty() ? "" : " x ") + std::to_string(n);
    const std::vector<LaplaceTerm> terms = cell_projected_weights(shape);
    double variance = 0;
    for (const LaplaceTerm& t : terms) variance += 2 * t.count * t.weight * t.weight;
    for (const double level : {0.9, 0.99}) {
      RealQuantile q;
      const double t_real = best_of_3([&] { q = laplace_combination_quantile(1, terms, level, Interrupts()); });
      MarginOfError d;
      const double t_lattice = best_of_3([&] {
        d = discrete_combination_margin(Rational{1, 1}, cell_projected_numerators(shape), level, Interrupts());
      });
      // Between the normal quantile's half and Gauss's bound: a fast wrong
      // answer fails.
      if (!(q.half_width > 0.5 * normal_half_width(variance, level) &&
            q.half_width < gauss_half_width(variance, level)))
        bench_checks::fail("a projected Laplace cell's quantile is out of its range");
      std::printf(
          "%-12s level %.2f: continuous %.4f (%s, %.2f ms; Gauss %.4f)  lattice %.4f (%s, %.2f ms; Chebyshev %.4f)\n",
          name.c_str(), level, q.half_width, q.exact ? "exact" : "certified", 1e3 * t_real,
          gauss_half_width(variance, level), d.half_width, exactness_name(d.kind), 1e3 * t_lattice,
          chebyshev_half_width(variance, level));
    }
  }
  std::printf("\n== projected Laplace noise: sums over a 1000 x 1000 table (weights Pi_N w, then the law) ==\n");
  std::vector<LatticeTable> tables{{{1000, 1000}, {}}};
  for (std::size_t i = 0; i < 1000000; ++i) tables[0].cells.push_back(i);
  const std::shared_ptr<const ProjectorForm> form = table_form(std::move(tables), 1000000);
  const std::vector<std::pair<const char*, std::function<bool(std::size_t, std::size_t)>>> sums = {
      {"a 2 x 3 block", [](std::size_t a, std::size_t b) { return a < 2 && b < 3; }},
      {"a 300 x 500 block", [](std::size_t a, std::size_t b) { return a < 300 && b < 500; }},
      {"a scattered half", [](std::size_t a, std::size_t b) { return (a * 31 + b * 17) % 2 == 0; }}};
  for (const auto& [what, in] : sums) {
    CellQuery q;
    for (std::size_t a = 0; a < 1000; ++a)
      for (std::size_t b = 0; b < 1000; ++b)
        if (in(a, b)) {
          q.cells.push_back(std::uint32_t(a * 1000 + b));
          q.weights.push_back(1);
        }
    const double variance = 2 * form->form(q, Interrupts());
    std::optional<MarginOfError> real, lattice;
    const double t_real = best_of_3([&] { real = projected_laplace_margin(*form, 1, q, 0.9, Interrupts()); });
    const double t_lattice = best_of_3([&] {
      lattice = projected_discrete_laplace_margin(*form, Rational{1, 1}, q, 0.9, Interrupts());
    });
    std::printf(
        "%-18s (%7zu cells): continuous %s (%.4f s; Gauss %.3f)  lattice %s (%.4f s; Chebyshev %.3f)\n", what, q.size(),
        real ? (format_double(real->half_width) + " " + exactness_name(real->kind)).c_str() : "refused", t_real,
        gauss_half_width(variance, 0.9),
        lattice ? (format_double(lattice->half_width) + " " + exactness_name(lattice->kind)).c_str() : "refused",
        t_lattice, chebyshev_half_width(variance, 0.9));
  }
}

}  // namespace

// Every part, or the one named: bench_error_bar_laws l1_tables.
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const std::vector<std::pair<const char*, void (*)()>> parts = {{"independent_sums", independent_sums},
                                                                 {"zero_sum_groups", zero_sum_groups},
                                                                 {"lattice_gaussians", lattice_gaussians},
                                                                 {"table_scales", table_scales},
                                                                 {"published_table_scales", published_table_scales},
                                                                 {"l1_tables", laplace_table_laws},
                                                                 {"general_margins", general_margins},
                                                                 {"one_cell_reading", one_cell_reading},
                                                                 {"projected_laplace", projected_laplace}};
  for (const auto& [name, part] : parts)
    if (only.empty() || only == name) part();
  return 0;
}
