// Certified half-widths of functionals of lattice Gaussians by the tilted
// discrete Gaussian (accuracy/lattice_gaussian_quantiles.hpp; DERIVATIONS.md
// beside it, section 13), against enumerated laws: every box of 3 x 3 and
// 3 x 4 tables and the nodes and sibling sets of a small integer cascade,
// alone and across independent subtrees.
// The enumerated law of the functional must stay within the factors 1 +- eps
// of rho_V up to one constant, and the half-widths must cover the
// enumerated law while one count less does not, wherever the bound decides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "accuracy/cascade_kernel.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "accuracy/lattice_gaussian_quantiles.hpp"
#include "accuracy/tail_quantiles.hpp"
#include "accuracy/zero_sum_quantiles.hpp"
#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "tilted_laws.hpp"

namespace invariant_dp::accuracy {
namespace {

using tilted_laws::expect_claim_holds;
using tilted_laws::Law;

// The r x c table with zero margins whose first (r-1) x (c-1) cells are f
// (row-major): the last column and row complete each line to 0.
void zero_margin_table(std::size_t r, std::size_t c, const std::vector<std::int64_t>& f, std::vector<std::int64_t>& z) {
  const std::size_t free_r = r - 1, free_c = c - 1;
  for (std::size_t i = 0; i < r; ++i) {
    std::int64_t row = 0;
    for (std::size_t j = 0; j < c; ++j) {
      if (i < free_r && j < free_c) z[i * c + j] = f[i * free_c + j];
      else if (i < free_r) z[i * c + j] = -row;
      else {
        std::int64_t column = 0;
        for (std::size_t k = 0; k < free_r; ++k) column += z[k * c + j];
        z[i * c + j] = -column;
      }
      if (j < free_c) row += z[i * c + j];
    }
  }
}

// Every box of an r x c table (r, c <= 4) under sigma2: the table enumerated
// over its (r-1)(c-1) free cells in [-R, R]. Returns the boxes' laws and
// functionals.
std::vector<std::pair<Law, TiltedFunctional>> check_boxes(std::size_t r, std::size_t c, Rational sigma2,
                                                          std::int64_t R) {
  const std::size_t free_r = r - 1, free_c = c - 1, d = free_r * free_c;
  std::vector<std::int64_t> f(d, -R);
  // Boxes: the first sr rows and first sc columns (every box is one of
  // these up to permuting levels, which keeps the law).
  std::vector<std::pair<std::size_t, std::size_t>> boxes;
  for (std::size_t sr = 1; sr < r; ++sr)
    for (std::size_t sc = 1; sc < c; ++sc) boxes.push_back({sr, sc});
  std::vector<Law> laws(boxes.size());
  const double s2 = sigma2.to_double();
  std::vector<std::int64_t> z(r * c);
  for (;;) {
    double q = 0;
    zero_margin_table(r, c, f, z);
    for (const std::int64_t v : z) q += double(v) * double(v);
    const double w = std::exp(-q / (2 * s2));
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      std::int64_t x = 0;
      for (std::size_t i = 0; i < boxes[b].first; ++i)
        for (std::size_t j = 0; j < boxes[b].second; ++j) x += z[i * c + j];
      laws[b].add(x, w);
    }
    std::size_t k = 0;
    while (k < d && ++f[k] > R) f[k++] = -R;
    if (k == d) break;
  }
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const std::vector<std::size_t> shape{r, c}, selected{boxes[b].first, boxes[b].second};
    const double V = box_variance(sigma2, shape, selected);
    const std::string name = std::to_string(r) + "x" + std::to_string(c) + " box " +
                             std::to_string(boxes[b].first) + "x" + std::to_string(boxes[b].second) + " at " +
                             std::to_string(s2);
    // The discrete law's variance lies below the continuous one (section 3d).
    EXPECT_LE(laws[b].variance(), V * (1 + 1e-9)) << name;
    expect_claim_holds(laws[b], V, box_log_excess(sigma2, shape, selected), name);
  }
  std::vector<std::pair<Law, TiltedFunctional>> out;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const std::vector<std::size_t> shape{r, c}, selected{boxes[b].first, boxes[b].second};
    out.push_back({laws[b], {box_variance(sigma2, shape, selected), box_log_excess(sigma2, shape, selected)}});
  }
  return out;
}

// The law of the sum of two independent functionals: their laws convolved.
Law convolved(const Law& a, const Law& b) {
  Law out;
  for (const auto& [x, w] : a.mass)
    for (const auto& [y, v] : b.mass) out.add(x + y, w / a.total * v / b.total);
  return out;
}

TEST(LatticeGaussianQuantiles, BoxesOfThreeByThreeTables) {
  for (const Rational s2 : {Rational{1, 2}, Rational{4, 5}, Rational{3, 2}, Rational{3, 1}})
    check_boxes(3, 3, s2, static_cast<std::int64_t>(9 * std::sqrt(s2.to_double())) + 3);
}

// A set of cells of one margin group is the box of one axis: its certified
// half-width equals the exact quantile of the group's law
// (zero_sum_quantiles.hpp, by an independent computation) at these variances.
TEST(LatticeGaussianQuantiles, OneAxisBoxesAreTheGroupsExactQuantiles) {
  for (const std::uint64_t s2 : {2u, 8u, 60u}) {
    for (const std::size_t k : {10u, 1000u}) {
      for (const std::size_t s : {std::size_t(1), std::size_t(3), k / 2}) {
        for (const double level : {0.5, 0.9, 0.99}) {
          const Quantile t = tilted_gaussian_quantile(box_variance({s2, 1}, {k}, {s}), 1,
                                                      box_log_excess({s2, 1}, {k}, {s}), level, Interrupts());
          const Quantile e = zero_sum_quantile({IntegerNoise::Kind::gaussian, {s2, 1}}, SignedCounts{s, 0, k - s},
                                               level, Interrupts());
          EXPECT_EQ(t.half_width, e.half_width) << s2 << " " << k << " " << s << " " << level;
          EXPECT_TRUE(t.exact);
        }
      }
    }
  }
}

// Boxes of three independent tables (3 x 3 and 3 x 4 at different
// variances), summed: the blocks' merge (independent_blocks).
TEST(LatticeGaussianQuantiles, SumsOverIndependentTables) {
  const auto a = check_boxes(3, 3, {4, 5}, 9);
  const auto b = check_boxes(3, 3, {3, 2}, 14);
  const auto c = check_boxes(3, 4, {4, 5}, 6);
  const Law sum = convolved(convolved(a[0].first, b[3].first), c[4].first);
  const TiltedFunctional f = independent_blocks({a[0].second, b[3].second, c[4].second}, Interrupts());
  EXPECT_NEAR(f.variance, a[0].second.variance + b[3].second.variance + c[4].second.variance, 1e-12);
  EXPECT_GT(f.log_excess, a[0].second.log_excess + b[3].second.log_excess + c[4].second.log_excess);
  expect_claim_holds(sum, f.variance, f.log_excess, "three tables' boxes summed");
}

TEST(LatticeGaussianQuantiles, BoxesOfThreeByFourTables) {
  for (const Rational s2 : {Rational{1, 2}, Rational{4, 5}}) check_boxes(3, 4, s2, 6);
}

// A root with three children of two leaves each, under the integer cascade
// at uniform variance v, enumerated over the six leaves: z has density
// exp(-Q/2), Q = X_0^2/v_0 + sum_splits (sum_c X_c^2 - X_s^2/m) / tau_s^2
// (hierarchy/integer_cascade_sampler.hpp, step 1).
TEST(LatticeGaussianQuantiles, NodesAndSiblingSetsOfACascade) {
  const hierarchy::HierarchyTree tree = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 2, 3, 3}, {});
  ASSERT_EQ(tree.n_leaves(), 6u);
  for (const double v : {0.5, 1.0}) {
    const hierarchy::CascadeLaw law = hierarchy::CascadeLaw::uniform(tree, v);
    const std::vector<double> variance = hierarchy::node_variances(tree, law, {});
    const std::uint32_t root = 0, a = tree.first_child(root);
    const double tau_root = law.split_tau2(root, 0, 3), tau_mid = law.split_tau2(a, 1, 2);
    struct Query {
      std::string name;
      TiltedFunctional q;
    };
    const std::uint32_t leaf0 = tree.first_child(a);
    ASSERT_EQ(tree.leaf_begin(a), 0u);
    ASSERT_EQ(tree.leaf_begin(leaf0), 0u);
    // Values below: X_a = z_0 + z_1, the leaf z_0, X_a + X_(a+1), the root.
    const std::vector<Query> queries{{"a middle node", cascade_node_query(tree, law, variance, a)},
                                     {"a leaf", cascade_node_query(tree, law, variance, leaf0)},
                                     {"two of three middle nodes", cascade_children_query(tree, law, variance, root, 2)},
                                     {"the root", cascade_node_query(tree, law, variance, root)}};
    std::vector<Law> laws(queries.size());
    const std::int64_t R = v < 0.75 ? 5 : 7;  // the mass beyond is below 1e-14
    std::vector<std::int64_t> z(6, -R);
    for (;;) {
      std::int64_t mid[3];
      double q = 0;
      for (int k = 0; k < 3; ++k) {
        mid[k] = z[2 * k] + z[2 * k + 1];
        q += (double(z[2 * k]) * double(z[2 * k]) + double(z[2 * k + 1]) * double(z[2 * k + 1]) -
              double(mid[k]) * double(mid[k]) / 2) /
             tau_mid;
      }
      const std::int64_t top = mid[0] + mid[1] + mid[2];
      const double total = double(top);
      q += (double(mid[0]) * double(mid[0]) + double(mid[1]) * double(mid[1]) + double(mid[2]) * double(mid[2]) -
            total * total / 3) /
               tau_root +
           total * total / v;
      const double w = std::exp(-q / 2);
      laws[0].add(mid[0], w);
      laws[1].add(z[0], w);
      laws[2].add(mid[0] + mid[1], w);
      laws[3].add(top, w);
      std::size_t k = 0;
      while (k < 6 && ++z[k] > R) z[k++] = -R;
      if (k == 6) break;
    }
    const double tree_excess = cascade_tree_log_excess(tree, law, {});
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const std::string name = queries[i].name + " at v = " + std::to_string(v);
      EXPECT_LE(laws[i].variance(), queries[i].q.variance * (1 + 1e-9)) << name;
      expect_claim_holds(laws[i], queries[i].q.variance, tree_excess + queries[i].q.log_excess, name);
    }

  }
}

// A root with two children of two leaves each under the integer cascade at
// uniform variance v (nothing exact), enumerated over the four leaves as
// above: node sets no Klein order of the queries above covers, through the
// short vectors of the kernel (cascade_kernel.hpp), must stay within their
// claim, and HierarchyAccuracy::lattice_margin gives their quantile. At
// these small variances the bound may say nothing; from v = 2 it decides
// every set.
TEST(LatticeGaussianQuantiles, AnyNodeSetOfACascade) {
  const hierarchy::HierarchyTree tree = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 2, 2}, {});
  const std::uint32_t root = 0, a = tree.first_child(root), leaf0 = tree.first_child(a);
  ASSERT_EQ(tree.leaf_begin(leaf0), 0u);
  ASSERT_EQ(leaf0, 3u);
  struct AnySet {
    std::string name;
    std::vector<std::pair<std::uint32_t, std::int64_t>> nodes;
  };
  const std::vector<AnySet> sets{{"leaves of two middle nodes", {{leaf0, 1}, {leaf0 + 2, 1}}},
                                 {"a leaf and the other middle node, weight 2", {{leaf0, 1}, {a + 1, 2}}},
                                 {"three leaves, weights 1, -1, 3", {{leaf0, 1}, {leaf0 + 1, -1}, {leaf0 + 3, 3}}},
                                 {"the root and a leaf", {{root, 1}, {leaf0 + 2, 1}}},
                                 {"weights 2 and 4 (step 2)", {{leaf0, 2}, {leaf0 + 3, 4}}}};
  for (const double v : {1.0, 2.0, 4.0}) {
    const hierarchy::CascadeLaw law = hierarchy::CascadeLaw::uniform(tree, v);
    const double tau_root = law.split_tau2(root, 0, 2), tau_mid = law.split_tau2(a, 1, 2);
    const CascadeKernel kernel(tree, law, {});
    const HierarchyAccuracy accuracy(tree, law, 0.0);
    std::vector<CellQuery> queries(sets.size());
    std::vector<StepFunctional> claimed;
    for (std::size_t k = 0; k < sets.size(); ++k) {
      for (const auto& [node, weight] : sets[k].nodes) {
        queries[k].cells.push_back(node);
        queries[k].weights.push_back(double(weight));
      }
      claimed.push_back(kernel.query(queries[k], accuracy.variance(queries[k], {}).upper, {}));
    }
    std::vector<Law> laws(sets.size());
    const auto R = static_cast<std::int64_t>(9 * std::sqrt(v)) + 3;  // the mass beyond is below 1e-14
    for (std::int64_t z0 = -R; z0 <= R; ++z0)
      for (std::int64_t z1 = -R; z1 <= R; ++z1)
        for (std::int64_t z2 = -R; z2 <= R; ++z2)
          for (std::int64_t z3 = -R; z3 <= R; ++z3) {
            const std::int64_t m0 = z0 + z1, m1 = z2 + z3, top = m0 + m1;
            const double q = (double(z0 * z0 + z1 * z1) - double(m0 * m0) / 2) / tau_mid +
                             (double(z2 * z2 + z3 * z3) - double(m1 * m1) / 2) / tau_mid +
                             (double(m0 * m0 + m1 * m1) - double(top * top) / 2) / tau_root + double(top * top) / v;
            const double w = std::exp(-q / 2);
            const std::int64_t value[7] = {top, m0, m1, z0, z1, z2, z3};
            for (std::size_t k = 0; k < sets.size(); ++k) {
              std::int64_t x = 0;
              for (const auto& [node, weight] : sets[k].nodes) x += weight * value[node];
              laws[k].add(x / static_cast<std::int64_t>(claimed[k].step), w);
            }
          }
    for (std::size_t k = 0; k < sets.size(); ++k) {
      const std::string name = sets[k].name + " at v = " + std::to_string(v);
      ASSERT_EQ(claimed[k].step, k + 1 == sets.size() ? 2u : 1u) << name;
      EXPECT_LE(laws[k].variance(), claimed[k].unit.variance * (1 + 1e-9)) << name;
      const double excess = claimed[k].unit.log_excess + kernel.moves_log_excess();
      const std::optional<MarginOfError> margin = accuracy.lattice_margin(queries[k], 0.9, {});
      if (excess >= 0.69) {
        EXPECT_LT(v, 2) << name << ": the bound says nothing";
        EXPECT_FALSE(margin.has_value()) << name;
        continue;
      }
      expect_claim_holds(laws[k], claimed[k].unit.variance, excess, name);
      ASSERT_TRUE(margin.has_value()) << name;
      const Quantile q = tilted_gaussian_quantile(claimed[k].unit.variance, 1, excess, 0.9, {});
      EXPECT_EQ(margin->half_width, double(q.half_width * static_cast<std::int64_t>(claimed[k].step))) << name;
      EXPECT_NE(margin->method.find("short vectors"), std::string::npos) << margin->method;
    }
  }
}

// Two exact "states" of three leaves each under the integer cascade at
// uniform variance v, enumerated: within a state the leaves are a zero-sum
// group of density exp(-sum z^2 / (2 tau^2)), the states independent. Sums
// across the states (no two nodes of one parent) are the independent-blocks
// merge of each state's node or sibling set, and
// HierarchyAccuracy::lattice_margin gives their quantile.
TEST(LatticeGaussianQuantiles, NodesInIndependentSubtreesOfACascade) {
  const hierarchy::HierarchyTree tree = hierarchy::HierarchyTree::from_parents({-1, 0, 0, 1, 1, 1, 2, 2, 2}, {});
  ASSERT_EQ(tree.n_leaves(), 6u);
  const std::uint32_t root = 0, state_a = tree.first_child(root), state_b = state_a + 1;
  const std::uint32_t leaf0 = tree.first_child(state_a), leaf3 = tree.first_child(state_b);
  ASSERT_EQ(tree.leaf_begin(leaf0), 0u);
  ASSERT_EQ(tree.leaf_begin(leaf3), 3u);
  for (const double v : {0.5, 1.0}) {
    const hierarchy::CascadeLaw law = hierarchy::CascadeLaw::uniform(tree, v).conditioned_on(tree, {state_a, state_b});
    const std::vector<double> variance = hierarchy::node_variances(tree, law, {});
    ASSERT_EQ(variance[state_a], 0);
    const double tau2 = law.split_tau2(state_a, 1, 3);
    const double tree_excess = cascade_tree_log_excess(tree, law, {});
    const TiltedFunctional one_each = independent_blocks(
        {cascade_node_query(tree, law, variance, leaf0), cascade_node_query(tree, law, variance, leaf3)}, {});
    const TiltedFunctional two_and_one = independent_blocks(
        {cascade_children_query(tree, law, variance, state_a, 2), cascade_node_query(tree, law, variance, leaf3)}, {});
    Law first_of_each, two_and_first;
    const std::int64_t R = v < 0.75 ? 6 : 8;  // the mass beyond is below 1e-14
    for (std::int64_t a0 = -R; a0 <= R; ++a0)
      for (std::int64_t a1 = -R; a1 <= R; ++a1)
        for (std::int64_t b0 = -R; b0 <= R; ++b0)
          for (std::int64_t b1 = -R; b1 <= R; ++b1) {
            const std::int64_t a2 = -a0 - a1, b2 = -b0 - b1;
            const double q = double(a0 * a0 + a1 * a1 + a2 * a2 + b0 * b0 + b1 * b1 + b2 * b2) / tau2;
            const double w = std::exp(-q / 2);
            first_of_each.add(a0 + b0, w);
            two_and_first.add(a0 + a1 + b0, w);
          }
    const std::string at = " at v = " + std::to_string(v);
    EXPECT_LE(first_of_each.variance(), one_each.variance * (1 + 1e-9)) << at;
    EXPECT_LE(two_and_first.variance(), two_and_one.variance * (1 + 1e-9)) << at;
    expect_claim_holds(first_of_each, one_each.variance, tree_excess + one_each.log_excess, "one leaf of each" + at);
    expect_claim_holds(two_and_first, two_and_one.variance, tree_excess + two_and_one.log_excess,
                       "two leaves of one, one of the other" + at);
    // Through the accuracy of the release: the same quantile.
    const HierarchyAccuracy accuracy(tree, law, 0.0);
    for (const double level : {0.5, 0.9, 0.99}) {
      const std::optional<MarginOfError> margin = accuracy.lattice_margin({{leaf0, leaf0 + 1, leaf3}, {2, 2, 2}}, level, {});
      ASSERT_TRUE(margin.has_value()) << at;
      EXPECT_EQ(margin->tail, SumTail::law_quantile);
      const Quantile q =
          tilted_gaussian_quantile(two_and_one.variance, 1, tree_excess + two_and_one.log_excess, level, {});
      EXPECT_EQ(margin->half_width, 2.0 * double(q.half_width)) << at << " " << level;
      EXPECT_EQ(margin->kind, q.exact ? Exactness::exact : Exactness::certified);
    }
    // Unequal weights, and a whole state's leaves (the state, exact) with
    // another leaf, are no sibling sets: the kernel's short vectors
    // (cascade_kernel.hpp) take them.
    for (const CellQuery& other : {CellQuery{{leaf0, leaf3}, {1, 2}}, CellQuery{{leaf0, leaf0 + 1, leaf0 + 2, leaf3}, {1, 1, 1, 1}}}) {
      const std::optional<MarginOfError> margin = accuracy.lattice_margin(other, 0.9, {});
      ASSERT_TRUE(margin.has_value()) << at;
      EXPECT_NE(margin->method.find("short vectors"), std::string::npos) << margin->method;
    }
  }
}

// At calibrated variances the half-width is the normal quantile within a
// count, where the sub-Gaussian bound is about 1.49 times wider at 0.9.
TEST(LatticeGaussianQuantiles, NearTheNormalQuantileAtCalibratedVariances) {
  for (const double V : {30.0, 323.0, 1e4, 1e8, 1e12}) {
    for (const double level : {0.5, 0.9, 0.95, 0.99}) {
      const double excess = log_excess_at_least(V / 2, 1e7);  // ten million coordinates at V/2
      const Quantile q = tilted_gaussian_quantile(V, 1, excess, level, Interrupts());
      EXPECT_TRUE(q.exact) << V;
      EXPECT_NEAR(double(q.half_width), normal_quantile(level) * std::sqrt(V), 1.01) << V << " " << level;
      if (level == 0.9 && V >= 30) {
        EXPECT_GT(sub_gaussian_half_width(V, level), 1.4 * double(q.half_width));
      }
    }
  }
  // A step g: X = g Y.
  const Quantile q3 = tilted_gaussian_quantile(9 * 323.0, 3, 0, 0.9, Interrupts());
  EXPECT_EQ(q3.half_width, 3 * tilted_gaussian_quantile(323.0, 1, 0, 0.9, Interrupts()).half_width);
}

TEST(LatticeGaussianQuantiles, RefusesWhatItCannotBound) {
  EXPECT_THROW(tilted_gaussian_quantile(10, 1, 0.7, 0.9, Interrupts()), OutOfRange);
  EXPECT_THROW(tilted_gaussian_quantile(0, 1, 0, 0.9, Interrupts()), InvalidArgument);
  EXPECT_THROW(tilted_gaussian_quantile(10, 0, 0, 0.9, Interrupts()), InvalidArgument);
  EXPECT_THROW(box_log_excess({8, 1}, {3, 4}, {3, 1}), InvalidArgument);  // a whole axis: a margin
  EXPECT_THROW(box_variance({8, 1}, {3, 4}, {1}), InvalidArgument);
  // q near 1: the excess is too large for the bound to say anything.
  EXPECT_THROW(tilted_gaussian_quantile(10, 1, log_excess_at_least(1e-3, 1), 0.9, Interrupts()), OutOfRange);
}

// The variance's lower end: below the discrete Gaussian's own variance
// (its series, samplers/discrete_gaussian.hpp) and within 1e-6 of it from
// v = 1/2; scaled by the step squared; divided by R for a tilt; 0 where
// it says nothing.
TEST(LatticeGaussianQuantiles, VarianceLowerEnd) {
  for (const Rational v : {Rational{3, 10}, Rational{1, 2}, Rational{1, 1}, Rational{2, 1}, Rational{10, 1}}) {
    const double exact = discrete_gaussian_variance(v), x = v.to_double();
    const double lower = tilted_gaussian_variance_lower(x, 1, 0);
    EXPECT_LE(lower, exact) << x;
    if (x >= 0.5) {
      EXPECT_GE(lower, exact * (1 - 1e-6)) << x;
    }
    EXPECT_NEAR(tilted_gaussian_variance_lower(4 * x, 2, 0), 4 * lower, 1e-12 * lower) << x;
  }
  const double eps = std::expm1(0.01);
  EXPECT_NEAR(tilted_gaussian_variance_lower(10, 1, 0.01), tilted_gaussian_variance_lower(10, 1, 0) * (1 - eps) / (1 + eps),
              1e-9);
  EXPECT_EQ(tilted_gaussian_variance_lower(0.2, 1, 0), 0);
  EXPECT_EQ(tilted_gaussian_variance_lower(10, 1, 0.7), 0);
}

}  // namespace
}  // namespace invariant_dp::accuracy
