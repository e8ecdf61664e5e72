// Margins of sums of rectangles of a crossed integer cascade from the law
// of the sum (accuracy/crossed_kernel.hpp; DERIVATIONS.md, section 13,
// "Rectangles of crossed integer cascades"), against the enumerated grid
// law P(Z) ~ exp(-vec(Z)^T (Sigma_rows (x) Sigma_cols)^-1 vec(Z) / 2): a
// rectangle of two leaves, of a node and a leaf, of the two roots, two
// rectangles at different levels, and weights 2 and 1. X / step must stay
// within the claimed tilt of the discrete Gaussian at the continuous
// variance wherever the bound says something, and
// CrossedAccuracy::lattice_margin must give that quantile.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accuracy/crossed_accuracy.hpp"
#include "accuracy/crossed_kernel.hpp"
#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "interrupt_callbacks.hpp"
#include "tilted_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

using tilted_laws::expect_claim_holds;
using tilted_laws::Law;

Eigen::MatrixXd leaf_precision(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law) {
  const std::uint32_t n = tree.n_leaves();
  Eigen::MatrixXd cov(n, n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) cov(i, j) = hierarchy::leaf_covariance(tree, law, i, j);
  return cov.inverse();
}

struct Rectangle {
  std::uint32_t row, col;
  std::int64_t weight;
};

struct CrossedQuery {
  std::string name;
  std::vector<Rectangle> rectangles;
};

// The queries' claims and margins against the enumerated grid law at
// uniform variance v, every cell over [-R, R]; returns how many the bound
// decided.
std::size_t check_crossed(const hierarchy::HierarchyTree& rows, const hierarchy::HierarchyTree& cols, double v,
                          std::int64_t R, const std::vector<CrossedQuery>& queries) {
  const int nr = int(rows.n_leaves()), nc = int(cols.n_leaves()), n = nr * nc;
  const hierarchy::CascadeLaw row_law = hierarchy::CascadeLaw::uniform(rows, v);
  const hierarchy::CascadeLaw col_law = hierarchy::CascadeLaw::uniform(cols, v);
  const Eigen::MatrixXd pr = leaf_precision(rows, row_law), pc = leaf_precision(cols, col_law);
  Eigen::MatrixXd precision(n, n);  // pr (x) pc, cell (i, j) at i * nc + j
  for (int i = 0; i < nr; ++i)
    for (int j = 0; j < nc; ++j)
      for (int k = 0; k < nr; ++k)
        for (int l = 0; l < nc; ++l) precision(i * nc + j, k * nc + l) = pr(i, k) * pc(j, l);
  const CrossedKernel kernel(rows, row_law, cols, col_law, {});
  const CrossedAccuracy accuracy(rows, row_law, cols, col_law, 0.0);
  struct Claimed {
    std::vector<std::uint32_t> rs, cs;
    std::vector<double> ws;
    std::vector<std::int64_t> cell_weight;
    StepFunctional f;
  };
  std::vector<Claimed> claimed(queries.size());
  for (std::size_t k = 0; k < queries.size(); ++k) {
    Claimed& c = claimed[k];
    c.cell_weight.assign(std::size_t(n), 0);
    for (const Rectangle& r : queries[k].rectangles) {
      c.rs.push_back(r.row);
      c.cs.push_back(r.col);
      c.ws.push_back(double(r.weight));
      for (std::uint32_t i = rows.leaf_begin(r.row); i < rows.leaf_end(r.row); ++i)
        for (std::uint32_t j = cols.leaf_begin(r.col); j < cols.leaf_end(r.col); ++j)
          c.cell_weight[i * std::uint32_t(nc) + j] += r.weight;
    }
    c.f = kernel.query(c.rs, c.cs, c.ws, accuracy.variance(c.rs, c.cs, c.ws, {}).upper, {});
    EXPECT_GT(c.f.step, 0u) << queries[k].name;
    if (c.f.step == 0) return 0;
  }
  // Dense accumulators per query (X / step within +-reach, at X / step +
  // reach), made Laws at the end.
  std::vector<std::int64_t> reach(queries.size(), 0);
  std::vector<std::vector<double>> mass(queries.size());
  for (std::size_t k = 0; k < queries.size(); ++k) {
    for (const std::int64_t w : claimed[k].cell_weight) reach[k] += std::llabs(w) * R;
    mass[k].assign(std::size_t(2 * reach[k] + 1), 0.0);
  }
  // X / step as a sum of cells: every cell's weight is a multiple of the
  // step (the cells are free, so the step divides each).
  std::vector<std::vector<std::int64_t>> unit(queries.size());
  for (std::size_t k = 0; k < queries.size(); ++k)
    for (const std::int64_t w : claimed[k].cell_weight) {
      const auto step = static_cast<std::int64_t>(claimed[k].f.step);
      EXPECT_EQ(w % step, 0) << queries[k].name;
      unit[k].push_back(w / step);
    }
  // The tables in odometer order, cell 0 fastest. Along a run of cell 0
  // (2R + 1 tables) the form and the sums follow its steps: the form by
  // 2 (precision z)_0 + precision_00, recomputed whole at each run's start
  // so that its rounding never accumulates past one run.
  std::vector<std::int64_t> z(std::size_t(n), -R), sum(queries.size());
  for (;;) {
    double form = 0, slope = 0;  // z^T precision z, and (precision z)_0
    for (int i = 0; i < n; ++i) {
      double row = 0;
      for (int j = 0; j < n; ++j) row += precision(i, j) * double(z[std::size_t(j)]);
      form += double(z[std::size_t(i)]) * row;
      if (i == 0) slope = row;
    }
    for (std::size_t k = 0; k < queries.size(); ++k) {
      sum[k] = 0;
      for (int i = 0; i < n; ++i) sum[k] += unit[k][std::size_t(i)] * z[std::size_t(i)];
      sum[k] += reach[k];
    }
    for (std::int64_t x0 = -R;; ++x0) {
      const double w = std::exp(-form / 2);
      for (std::size_t k = 0; k < queries.size(); ++k) mass[k][std::size_t(sum[k])] += w;
      if (x0 == R) break;
      form += 2 * slope + precision(0, 0);
      slope += precision(0, 0);
      for (std::size_t k = 0; k < queries.size(); ++k) sum[k] += unit[k][0];
    }
    int i = 1;
    while (i < n && ++z[std::size_t(i)] > R) z[std::size_t(i++)] = -R;
    if (i == n) break;
  }
  std::vector<Law> laws(queries.size());
  for (std::size_t k = 0; k < queries.size(); ++k)
    for (std::size_t j = 0; j < mass[k].size(); ++j)
      if (mass[k][j] > 0) laws[k].add(std::int64_t(j) - reach[k], mass[k][j]);
  std::size_t decided = 0;
  for (std::size_t k = 0; k < queries.size(); ++k) {
    const Claimed& c = claimed[k];
    const std::string name = queries[k].name + " at v = " + std::to_string(v);
    EXPECT_LE(laws[k].variance(), c.f.unit.variance * (1 + 1e-6)) << name;
    const double excess = c.f.unit.log_excess + kernel.moves_log_excess();
    const std::optional<MarginOfError> margin = accuracy.lattice_margin(c.rs, c.cs, c.ws, 0.9, {});
    if (excess >= 0.69) {
      EXPECT_FALSE(margin.has_value()) << name;
      continue;
    }
    ++decided;
    // Cells are enumerated to 7 standard deviations at least: the mass left
    // out is below n 2.6e-12, so over values of mass 1e-6 or more the
    // spread moves by less than 1e-4.
    expect_claim_holds(laws[k], c.f.unit.variance, excess, name, 1e-4, 1e-6);
    // Power: a variance 20 % off leaves the claimed tilt.
    const double eps = std::expm1(excess);
    EXPECT_GT(laws[k].spread(1.2 * c.f.unit.variance, 1e-6), (1 + eps) / (1 - eps) * (1 + 1e-4)) << name;
    EXPECT_TRUE(margin.has_value()) << name;
    if (!margin) continue;
    const Quantile q = tilted_gaussian_quantile(c.f.unit.variance, 1, excess, 0.9, {});
    EXPECT_EQ(margin->half_width, double(q.half_width * static_cast<std::int64_t>(c.f.step))) << name;
    EXPECT_NE(margin->method.find("crossed"), std::string::npos) << margin->method;
  }
  return decided;
}

// Rows and columns each a root with two leaves (four grid cells), from
// coarse to calibrated variances; then rows of two leaves against columns
// of a root with two nodes, the first with two leaves and the second with
// one (six cells). The enumeration reaches 7 standard deviations of a cell.
TEST(CrossedKernel, RectanglesOfSmallGrids) {
  const hierarchy::HierarchyTree pair = hierarchy::HierarchyTree::from_parents({-1, 0, 0}, {});
  const std::uint32_t p0 = pair.first_child(0);
  const std::vector<CrossedQuery> square{{"two leaves", {{p0, p0, 1}}},
                                         {"a leaf and a root", {{p0, 0, 1}}},
                                         {"the roots", {{0, 0, 1}}},
                                         {"a diagonal", {{p0, p0, 1}, {p0 + 1, p0 + 1, 1}}},
                                         {"weights 2 and 1", {{p0, p0, 2}, {p0 + 1, 0, 1}}}};
  std::size_t decided = 0;
  for (const double v : {0.7, 1.5, 3.0})
    decided += check_crossed(pair, pair, v, static_cast<std::int64_t>(std::ceil(7 * v)) + 1, square);
  EXPECT_GE(decided, 2 * square.size());  // every one from 1.5 on
  const hierarchy::HierarchyTree cols = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2}, {});
  ASSERT_EQ(cols.n_leaves(), 3u);
  const std::uint32_t a = cols.first_child(0), b = a + 1, a0 = cols.first_child(a), b0 = cols.first_child(b);
  ASSERT_EQ(cols.leaf_begin(b0), 2u);
  const std::vector<CrossedQuery> deeper{{"two leaves", {{p0, a0, 1}}},
                                         {"a leaf and a node", {{p0, a, 1}}},
                                         {"two rectangles", {{p0, a0, 1}, {p0 + 1, b, 1}}},
                                         {"weights 2 and 1", {{p0, a, 2}, {0, b0, 1}}},
                                         {"a node less a leaf", {{0, a, 1}, {p0, a0 + 1, -1}}}};
  EXPECT_EQ(check_crossed(pair, cols, 1.0, 8, deeper), deeper.size());  // a cell's sd is v = 1
}

// One bound for every rectangle (CrossedKernel::rectangle_log_excess, what
// a rectangle's interval takes): at least each rectangle's own excess, on a
// grid of a 3-level and a 2-level tree at three variances.
TEST(CrossedKernel, OneBoundCoversEveryRectangle) {
  const hierarchy::HierarchyTree rows =
      hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 7}, {});
  const hierarchy::HierarchyTree cols = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 3, 3, 3}, {});
  for (const double v : {0.8, 2.0, 20.0}) {
    const hierarchy::CascadeLaw row_law = hierarchy::CascadeLaw::uniform(rows, v);
    const hierarchy::CascadeLaw col_law = hierarchy::CascadeLaw::uniform(cols, v);
    const CrossedKernel kernel(rows, row_law, cols, col_law, {});
    const CrossedAccuracy accuracy(rows, row_law, cols, col_law, 0.0);
    ASSERT_TRUE(std::isfinite(kernel.moves_log_excess()));
    double widest = 0;
    for (std::uint32_t s = 0; s < rows.n_nodes(); ++s)
      for (std::uint32_t t = 0; t < cols.n_nodes(); ++t) {
        const StepFunctional f =
            kernel.query({s}, {t}, {1}, accuracy.variance({s}, {t}, {1}, {}).upper, {});
        ASSERT_EQ(f.step, 1u);
        const double own = f.unit.log_excess + kernel.moves_log_excess();
        widest = std::max(widest, own);
        EXPECT_LE(own, kernel.rectangle_log_excess()) << s << " x " << t << " at v = " << v;
      }
    // At calibrated scales it is negligible, as every rectangle's own; at
    // a few counts per factor it is loose while the own ones are small, so
    // an interval then takes the rectangle's own (rounded up): the
    // accuracy's interval covers the enumeration-free claim either way.
    if (v >= 20) {
      EXPECT_LT(kernel.rectangle_log_excess(), 1e-6) << v;
    }
    if (v >= 2) {
      EXPECT_LT(widest, 1e-3) << v;
      const CrossedAccuracy::RectangleInterval leaf = accuracy.rectangle_interval(
          rows.n_nodes() - 1, cols.n_nodes() - 1, 0.9, {});
      EXPECT_EQ(leaf.kind, Exactness::exact) << v << ": " << leaf.method;
    }
  }
}

bool count_poll(void* polls) {
  ++*static_cast<int*>(polls);
  return false;
}

// A rectangle's interval keeps both trees' node variances for the next one:
// a cancel at any poll of their computation, between the two trees
// included, leaves the next interval what a fresh accuracy gives.
TEST(CrossedKernel, ACancelWhileTheNodeVariancesAreComputedKeepsNeither) {
  const hierarchy::HierarchyTree rows =
      hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 7}, {});
  const hierarchy::HierarchyTree cols = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 3, 3, 3}, {});
  const hierarchy::CascadeLaw row_law = hierarchy::CascadeLaw::uniform(rows, 2.0);
  const hierarchy::CascadeLaw col_law = hierarchy::CascadeLaw::uniform(cols, 2.0);
  const std::uint32_t r = rows.n_nodes() - 1, c = cols.n_nodes() - 1;
  const double expected = CrossedAccuracy(rows, row_law, cols, col_law, 0.0).rectangle_interval(r, c, 0.9, {}).half_width;
  int polls = 0;
  CrossedAccuracy(rows, row_law, cols, col_law, 0.0).rectangle_interval(r, c, 0.9, Interrupts(count_poll, &polls));
  ASSERT_GE(polls, 2);
  for (int k = 1; k <= polls; ++k) {
    const CrossedAccuracy accuracy(rows, row_law, cols, col_law, 0.0);
    int left = k - 1;
    try {
      accuracy.rectangle_interval(r, c, 0.9, Interrupts(test_interrupts::pending_after, &left));
    } catch (const Interrupted&) {
    }
    EXPECT_EQ(accuracy.rectangle_interval(r, c, 0.9, {}).half_width, expected) << "stopped at poll " << k;
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
