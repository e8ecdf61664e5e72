// Statistical tests of the exact integer cascade
// (hierarchy/integer_cascade_sampler.hpp) and of its certified CDF-table discrete Gaussian
// (samplers/discrete_gaussian_table.hpp), fixed seeds, against exact laws.
//  1. A root, 2 children, 4 leaves at uniform variance v = 1/4 (s^2 = 3/16:
//     a correction coin fails about one time in ten when the parent is odd,
//     and about one coin in ten reaches MPFR), 200,000 draws by each 1-D
//     method (tables, rejection), the leaf vector z against the target
//     P(z) ~ exp(-z^T Sigma^-1 z / 2) enumerated on [-7, 7]^4 (mass outside
//     < 1e-40), Sigma^-1 the inverse of the closed-form covariance
//     (cascade_covariance.hpp, not the sampler's form). Chi-square at
//     p = 1e-6 and total variation against E TV + sqrt(ln(1e6) / (2N)) with
//     E TV <= sum_z sqrt(p_z / N) / 2 (McDiarmid; false failure <= 1e-6).
//     Power, each against the same test with the same N: Sigma in place of
//     Sigma^-1 (on the box); Klein without the correction coins
//     (noncentrality ~1,700 against a critical value ~150, TV 0.041); the
//     leaf level at 1.05 v (noncentrality ~1,100). All must FAIL.
//     The same with the root's total fixed (the margin lattice sum z = 0),
//     and for a tree with a 3-way split, a one-child chain and per-level
//     targets 0.5, 0.3, 0.25 (centres in halves and thirds).
//     Crossed hierarchies: a 2 x 2 grid of two one-split trees (rows at
//     1/2, columns at 0.6; 120,000 draws) and a 3 x 2 grid (a 3-way row
//     split; 50,000 draws) against the enumerated Kronecker law; power: no
//     correction, rows at 1.05 v.
//  2. A tree of fan-outs 3, 2, 3 at per-level targets 12, 6, 4, 3 (tables),
//     100,000 draws: each level's variance against the published interval
//     [(1 - B) V, V] by chi-square bounds on R S^2 / V (R draws, known mean;
//     Wilson-Hilferty quantiles at p = 1e-6 two-sided; the lattice law's
//     fourth moment is Gaussian to within exp(-2 pi^2 s^2) ~ 1e-20 here);
//     sibling covariances against the published bounds (z = 4.89, se from
//     Gaussian fourth moments); every node's mean against 0 (Bonferroni over
//     nodes, p = 1e-6 in all). Power: draws with the leaf level 6% high fail
//     the variance test; with the middle level 20% high fail the sibling
//     covariance test; a 0.05-sd shift fails the mean test.
//  3. DiscreteGaussianTable for three (s^2, centre) pairs, 200,000 draws
//     each, against the exact pmf; power: the pmf at 1.1 s^2, and at the
//     centre moved by 1/Q, must fail.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/crossed_integer_cascade.hpp"
#include "hierarchy/integer_cascade.hpp"
#include "random_source.hpp"
#include "samplers/discrete_gaussian_table.hpp"

namespace invariant_dp::hierarchy {
namespace {

using namespace chi_square_test;
using Leaves = std::array<std::int64_t, 4>;

// ---- 1. the enumerated law on four leaves --------------------------------

Eigen::Matrix4d leaf_covariance_4(const HierarchyTree& tree, const CascadeLaw& law) {
  Eigen::Matrix4d s;
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::uint32_t j = 0; j < 4; ++j) s(i, j) = leaf_covariance(tree, law, i, j);
  return s;
}

// P(z) ~ exp(-z^T A z / 2) on [-R, R]^4 (only sum z = 0 when root_fixed).
std::map<Leaves, double> cascade_law_on_box(const Eigen::Matrix4d& A, bool root_fixed) {
  constexpr int R = 7;
  std::map<Leaves, double> p;
  double total = 0;
  for (int a = -R; a <= R; ++a)
    for (int b = -R; b <= R; ++b)
      for (int c = -R; c <= R; ++c)
        for (int d = -R; d <= R; ++d) {
          if (root_fixed && a + b + c + d != 0) continue;
          const Eigen::Vector4d z(a, b, c, d);
          total += p[Leaves{a, b, c, d}] = std::exp(-0.5 * z.dot(A * z));
        }
  for (auto& [z, w] : p) w /= total;
  return p;
}

// A on the margin lattice: Sigma^+ of the conditioned law equals the
// unconditioned Sigma^-1 restricted to sum z = 0 only up to the root term;
// for the form, use the pseudo-inverse of the conditioned covariance.
Eigen::Matrix4d pinv(const Eigen::Matrix4d& m) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d> eig(m);
  Eigen::Vector4d inv = eig.eigenvalues();
  for (int k = 0; k < 4; ++k) inv(k) = inv(k) > 1e-9 * eig.eigenvalues().maxCoeff() ? 1 / inv(k) : 0;
  return eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
}

std::map<Leaves, std::int64_t> sampler_counts(const HierarchyTree& tree, const CascadeLaw& law,
                                              IntegerCascadeOptions options, std::uint64_t seed, std::size_t n) {
  const IntegerCascadeSampler sampler(tree, law, Interrupts(), options);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> nodes(tree.n_nodes());
  std::map<Leaves, std::int64_t> counts;
  for (std::size_t t = 0; t < n; ++t) {
    sampler.sample(*rng, nodes.data(), Interrupts());
    Leaves z;
    for (std::uint32_t i = 0; i < 4; ++i) z[i] = nodes[tree.leaf_node(i)];
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
      if (tree.is_leaf(v)) continue;
      std::int64_t sum = 0;
      for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += nodes[c];
      EXPECT_EQ(sum, nodes[v]);
    }
    ++counts[z];
  }
  return counts;
}

// Draws from an enumerated law (for the power check whose law no sampler has).
std::map<Leaves, std::int64_t> inversion_counts(const std::map<Leaves, double>& p, std::uint64_t seed, std::size_t n) {
  std::vector<std::pair<double, Leaves>> cdf;
  double acc = 0;
  for (const auto& [z, w] : p) cdf.push_back({acc += w, z});
  auto rng = make_seeded_random_source(seed);
  std::map<Leaves, std::int64_t> counts;
  for (std::size_t t = 0; t < n; ++t) {
    const double u = rng->uniform_open01() * acc;
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), u, [](const auto& e, double x) { return e.first < x; });
    ++counts[(it == cdf.end() ? cdf.back() : *it).second];
  }
  return counts;
}

struct Fit {
  ChiSquare chi2;
  double tv = 0, tv_threshold = 0;
  bool passes() const { return chi2.passes() && tv < tv_threshold; }
};

// The chi-square fit and the total variation distance against its
// expectation under the law (plus a 1e-6 deviation bound), for any key.
template <class Key>
Fit fit(const std::map<Key, double>& p, const std::map<Key, std::int64_t>& counts, double n, const std::string& what) {
  Fit f;
  f.chi2 = goodness_of_fit(p, counts, n);
  double expected_tv = 0, tv = 0, seen = 0;
  for (const auto& [z, w] : p) {
    expected_tv += 0.5 * std::sqrt(w / n);
    const auto it = counts.find(z);
    const double c = it == counts.end() ? 0.0 : double(it->second);
    tv += 0.5 * std::fabs(c / n - w);
    seen += c;
  }
  tv += 0.5 * (n - seen) / n;  // draws outside the box
  f.tv = tv;
  f.tv_threshold = expected_tv + std::sqrt(std::log(1e6) / (2 * n));
  report(what, f.chi2);
  std::cout << "[stat] " << what << ": TV = " << f.tv << ", threshold = " << f.tv_threshold << "\n";
  return f;
}

TEST(StatIntegerCascade, FourLeavesFollowTheEnumeratedLaw) {
  constexpr std::size_t kDraws = 200000;
  const auto tree = HierarchyTree::perfect_binary(2, Interrupts());
  const CascadeLaw law = CascadeLaw::uniform(tree, 0.25);
  const Eigen::Matrix4d sigma = leaf_covariance_4(tree, law);
  const auto target = cascade_law_on_box(sigma.inverse(), false);
  IntegerCascadeOptions tables, rejection, bare;
  tables.draws = IntegerCascadeOptions::Draws::tables;
  rejection.draws = IntegerCascadeOptions::Draws::rejection;
  bare.draws = IntegerCascadeOptions::Draws::tables;
  bare.skip_correction_for_power_test = true;
  EXPECT_TRUE(fit(target, sampler_counts(tree, law, tables, 101, kDraws), kDraws, "4 leaves, tables").passes());
  EXPECT_TRUE(
      fit(target, sampler_counts(tree, law, rejection, 102, kDraws), kDraws, "4 leaves, rejection").passes());
  // Power.
  const auto swapped = cascade_law_on_box(sigma, false);
  EXPECT_FALSE(fit(target, inversion_counts(swapped, 103, kDraws), kDraws, "power: Sigma for Sigma^-1").chi2.passes());
  const Fit no_coins = fit(target, sampler_counts(tree, law, bare, 104, kDraws), kDraws, "power: no correction");
  EXPECT_FALSE(no_coins.chi2.passes());
  EXPECT_GE(no_coins.tv, no_coins.tv_threshold);
  const CascadeLaw wrong(tree, {0.25, 0.25, 0.25 * 1.05});
  EXPECT_FALSE(
      fit(target, sampler_counts(tree, wrong, tables, 105, kDraws), kDraws, "power: leaves at 1.05 v").chi2.passes());
}

// Fan-out 3 (centres in thirds and halves), a one-child chain, per-level
// targets: root -> {a, b, c}, a -> 2 leaves, b -> one leaf, c a leaf.
TEST(StatIntegerCascade, ThreeWaySplitAndAChain) {
  constexpr std::size_t kDraws = 200000;
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2}, Interrupts());
  ASSERT_EQ(tree.n_leaves(), 4u);
  const CascadeLaw law(tree, {0.5, 0.3, 0.25});
  const auto target = cascade_law_on_box(leaf_covariance_4(tree, law).inverse(), false);
  IntegerCascadeOptions tables, rejection, bare;
  tables.draws = IntegerCascadeOptions::Draws::tables;
  rejection.draws = IntegerCascadeOptions::Draws::rejection;
  bare.draws = IntegerCascadeOptions::Draws::tables;
  bare.skip_correction_for_power_test = true;
  EXPECT_TRUE(fit(target, sampler_counts(tree, law, tables, 121, kDraws), kDraws, "3-way and chain, tables").passes());
  EXPECT_TRUE(
      fit(target, sampler_counts(tree, law, rejection, 122, kDraws), kDraws, "3-way and chain, rejection").passes());
  EXPECT_FALSE(fit(target, sampler_counts(tree, law, bare, 123, kDraws), kDraws, "power: 3-way, no correction")
                   .chi2.passes());
}

TEST(StatIntegerCascade, FourLeavesWithAnExactTotal) {
  constexpr std::size_t kDraws = 200000;
  const auto tree = HierarchyTree::perfect_binary(2, Interrupts());
  const CascadeLaw law = CascadeLaw::uniform(tree, 0.25).conditioned_on(tree, {0});
  const auto target = cascade_law_on_box(pinv(leaf_covariance_4(tree, law)), true);
  IntegerCascadeOptions tables, bare;
  tables.draws = IntegerCascadeOptions::Draws::tables;
  bare.draws = IntegerCascadeOptions::Draws::tables;
  bare.skip_correction_for_power_test = true;
  const auto counts = sampler_counts(tree, law, tables, 111, kDraws);
  for (const auto& [z, c] : counts) ASSERT_EQ(z[0] + z[1] + z[2] + z[3], 0);
  EXPECT_TRUE(fit(target, counts, kDraws, "4 leaves, total exact").passes());
  EXPECT_FALSE(fit(target, sampler_counts(tree, law, bare, 112, kDraws), kDraws, "power: total exact, no correction")
                   .chi2.passes());
}

// Crossed hierarchies (crossed_integer_cascade.hpp) against
// P(Z) ~ exp(-vec(Z)^T (Sigma_r^-1 (x) Sigma_c^-1) vec(Z) / 2) enumerated on
// a box (cells row-major over the leaves).
using Cells = std::vector<std::int64_t>;

std::map<Cells, double> crossed_law(const HierarchyTree& rows, const CascadeLaw& row_law, const HierarchyTree& cols,
                                    const CascadeLaw& col_law, int radius) {
  const auto nr = static_cast<Eigen::Index>(rows.n_leaves()), nc = static_cast<Eigen::Index>(cols.n_leaves());
  Eigen::MatrixXd sr(nr, nr), sc(nc, nc);
  for (Eigen::Index i = 0; i < nr; ++i)
    for (Eigen::Index j = 0; j < nr; ++j) sr(i, j) = leaf_covariance(rows, row_law, i, j);
  for (Eigen::Index i = 0; i < nc; ++i)
    for (Eigen::Index j = 0; j < nc; ++j) sc(i, j) = leaf_covariance(cols, col_law, i, j);
  const Eigen::MatrixXd pr = sr.inverse(), pc = sc.inverse();
  const Eigen::Index n = nr * nc;
  Eigen::MatrixXd precision(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b < n; ++b) precision(a, b) = pr(a / nc, b / nc) * pc(a % nc, b % nc);
  std::map<Cells, double> p;
  double total = 0;
  Cells z(n, -radius);
  Eigen::VectorXd x(n);
  for (;;) {
    for (Eigen::Index k = 0; k < n; ++k) x(k) = double(z[k]);
    total += p[z] = std::exp(-0.5 * x.dot(precision * x));
    Eigen::Index k = 0;
    while (k < n && z[k] == radius) z[k++] = -radius;
    if (k == n) break;
    ++z[k];
  }
  for (auto& [key, w] : p) w /= total;
  return p;
}

std::map<Cells, std::int64_t> crossed_counts(const HierarchyTree& rows, const CascadeLaw& row_law,
                                             const HierarchyTree& cols, const CascadeLaw& col_law, bool correct,
                                             std::uint64_t seed, std::size_t n) {
  auto rng = make_seeded_random_source(seed);
  CrossedIntegerCascadeOptions options;
  options.skip_correction_for_power_test = !correct;
  std::map<Cells, std::int64_t> counts;
  const std::size_t width = cols.n_nodes();
  const CrossedIntegerCascadeSampler sampler(rows, row_law, cols, col_law, Interrupts(), options);
  std::vector<std::int64_t> grid(rows.n_nodes() * width);
  Cells z(rows.n_leaves() * cols.n_leaves());
  for (std::size_t t = 0; t < n; ++t) {
    sampler.sample(*rng, grid.data(), Interrupts());
    std::int64_t sum = 0;
    for (std::uint32_t i = 0; i < rows.n_leaves(); ++i)
      for (std::uint32_t j = 0; j < cols.n_leaves(); ++j)
        sum += z[i * cols.n_leaves() + j] = grid[rows.leaf_node(i) * width + cols.leaf_node(j)];
    EXPECT_EQ(sum, grid[0]);
    ++counts[z];
  }
  return counts;
}

// Two one-split trees, a 2 x 2 grid, rows at 1/2 and columns at 0.6
// (coordinate s^2 down to 0.17).
TEST(StatIntegerCascade, CrossedGridFollowsTheEnumeratedLaw) {
  constexpr std::size_t kDraws = 120000;  // about one coin in seven reaches MPFR here
  const auto rows = HierarchyTree::perfect_binary(1, Interrupts()), cols = HierarchyTree::perfect_binary(1, Interrupts());
  const CascadeLaw row_law = CascadeLaw::uniform(rows, 0.5), col_law = CascadeLaw::uniform(cols, 0.6);
  const auto target = crossed_law(rows, row_law, cols, col_law, 6);
  EXPECT_TRUE(fit(target, crossed_counts(rows, row_law, cols, col_law, true, 131, kDraws), kDraws,
                          "crossed 2 x 2")
                  .passes());
  EXPECT_FALSE(fit(target, crossed_counts(rows, row_law, cols, col_law, false, 132, kDraws), kDraws,
                           "power: crossed, no correction")
                   .chi2.passes());
  const CascadeLaw wide_rows = CascadeLaw::uniform(rows, 0.5 * 1.05);
  EXPECT_FALSE(fit(target, crossed_counts(rows, wide_rows, cols, col_law, true, 133, kDraws), kDraws,
                           "power: crossed, rows at 1.05 v")
                   .chi2.passes());
}

// A 3-way row split (centre denominators (i+1)(j+1) up to 6) crossed with
// a one-split column tree: a 3 x 2 grid, rows at 0.6, columns at 0.7.
TEST(StatIntegerCascade, CrossedThreeByTwoFollowsTheEnumeratedLaw) {
  constexpr std::size_t kDraws = 50000;
  const auto rows = HierarchyTree::from_parents({-1, 0, 0, 0}, Interrupts());
  const auto cols = HierarchyTree::perfect_binary(1, Interrupts());
  const CascadeLaw row_law = CascadeLaw::uniform(rows, 0.6), col_law = CascadeLaw::uniform(cols, 0.7);
  const auto target = crossed_law(rows, row_law, cols, col_law, 3);  // mass outside < 1e-7
  EXPECT_TRUE(fit(target, crossed_counts(rows, row_law, cols, col_law, true, 141, kDraws), kDraws,
                          "crossed 3 x 2")
                  .passes());
  // Power (the coins' own power is shown on the 2 x 2 grid, where the
  // missing correction moves more mass): either factor's variance 10% off.
  EXPECT_FALSE(fit(target, crossed_counts(rows, CascadeLaw::uniform(rows, 0.66), cols, col_law, true, 142,
                                                  kDraws),
                           kDraws, "power: crossed 3 x 2, rows at 1.1 v")
                   .chi2.passes());
  EXPECT_FALSE(fit(target, crossed_counts(rows, row_law, cols, CascadeLaw::uniform(cols, 0.77), true, 143,
                                                  kDraws),
                           kDraws, "power: crossed 3 x 2, columns at 1.1 v")
                   .chi2.passes());
}

// ---- 2. moments on a larger tree -----------------------------------------

// Two-sided chi-square bounds of R S^2 / V at total p = 1e-6 (Wilson-Hilferty).
constexpr double kZ = 4.8916;  // two-sided normal quantile at 1e-6
double chi2_quantile(double df, double z) {
  const double h = 2 / (9 * df);
  return df * std::pow(1 - h + z * std::sqrt(h), 3);
}

// Two-sided normal quantile at p (bisection on erfc).
double normal_quantile_two_sided(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return hi;
}

HierarchyTree fanout_tree() {
  std::vector<std::int64_t> parent{-1};
  std::vector<std::int64_t> level{0};
  for (unsigned m : {3u, 2u, 3u}) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level)
      for (unsigned k = 0; k < m; ++k) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    level = next;
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

struct IntegerMoments {
  std::vector<double> mean, square;   // per node
  std::vector<double> product_first;  // per node: E X_v X_{next sibling} (0 for last children)
};

IntegerMoments moments_of(const HierarchyTree& tree, const CascadeLaw& law, std::uint64_t seed, std::size_t n) {
  IntegerCascadeOptions tables;
  tables.draws = IntegerCascadeOptions::Draws::tables;
  const IntegerCascadeSampler sampler(tree, law, Interrupts(), tables);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> nodes(tree.n_nodes());
  IntegerMoments m{std::vector<double>(tree.n_nodes()), std::vector<double>(tree.n_nodes()),
                   std::vector<double>(tree.n_nodes())};
  for (std::size_t t = 0; t < n; ++t) {
    sampler.sample(*rng, nodes.data(), Interrupts());
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
      m.mean[v] += double(nodes[v]);
      m.square[v] += double(nodes[v]) * double(nodes[v]);
      if (v + 1 < tree.n_nodes() && v > 0 && tree.parent(v) == tree.parent(v + 1))
        m.product_first[v] += double(nodes[v]) * double(nodes[v + 1]);
    }
  }
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    m.mean[v] /= double(n);
    m.square[v] /= double(n);
    m.product_first[v] /= double(n);
  }
  return m;
}

// Each level's first node: R S^2 within chi-square bounds of [lower, upper].
bool variances_pass(const HierarchyTree& tree, const CascadeLaw& law, double B, const IntegerMoments& m, double n,
                    const std::string& what) {
  bool ok = true;
  for (unsigned d = 0; d <= tree.height(); ++d) {
    const std::uint32_t v = tree.level_begin(d);
    const VarianceBounds published = integer_node_variance(tree, law, B, v);
    const double lo = chi2_quantile(n, -kZ) / n * published.lower, hi = chi2_quantile(n, kZ) / n * published.upper;
    std::cout << "[stat] " << what << " depth " << d << ": S^2 = " << m.square[v] << ", published ["
              << published.lower << ", " << published.upper << "], accepted [" << lo << ", " << hi << "]\n";
    ok = ok && m.square[v] >= lo && m.square[v] <= hi;
  }
  return ok;
}

// The first pair of siblings of each depth >= 1 against its published covariance.
bool covariances_pass(const HierarchyTree& tree, const CascadeLaw& law, double B, const IntegerMoments& m, double n,
                      const std::string& what) {
  bool ok = true;
  for (unsigned d = 1; d <= tree.height(); ++d) {
    const std::uint32_t a = tree.level_begin(d), b = a + 1;
    // Leaves of a and b: covariance of node sums = sum of leaf covariances (closed form), then the bound.
    double c = 0;
    for (std::uint32_t i = tree.leaf_begin(a); i < tree.leaf_end(a); ++i)
      for (std::uint32_t j = tree.leaf_begin(b); j < tree.leaf_end(b); ++j) c += leaf_covariance(tree, law, i, j);
    const double va = node_variance(tree, law, a), vb = node_variance(tree, law, b);
    const double spread = B * std::sqrt(va * vb), se = std::sqrt((va * vb + c * c) / n);
    const double lo = c - spread - kZ * se, hi = c + spread + kZ * se;
    std::cout << "[stat] " << what << " siblings at depth " << d << ": mean product = " << m.product_first[a]
              << ", published " << c << " +- " << spread << ", accepted [" << lo << ", " << hi << "]\n";
    ok = ok && m.product_first[a] >= lo && m.product_first[a] <= hi;
  }
  return ok;
}

bool means_pass(const HierarchyTree& tree, const CascadeLaw& law, const std::vector<double>& mean, double n) {
  const double z = normal_quantile_two_sided(1e-6 / double(tree.n_nodes()));
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v)
    if (std::fabs(mean[v]) > z * std::sqrt(node_variance(tree, law, v) / n)) return false;
  return true;
}

TEST(StatIntegerCascade, LevelVariancesCovariancesAndMeans) {
  constexpr std::size_t kDraws = 100000;
  const auto tree = fanout_tree();
  const CascadeLaw law(tree, {12, 6, 4, 3});
  const double B = integer_cascade_variance_deficit_bound(IntegerSplits(tree, law, Interrupts()));
  std::cout << "[stat] variance deficit bound B = " << B << "\n";
  const IntegerMoments m = moments_of(tree, law, 201, kDraws);
  EXPECT_TRUE(variances_pass(tree, law, B, m, kDraws, "levels"));
  EXPECT_TRUE(covariances_pass(tree, law, B, m, kDraws, "levels"));
  EXPECT_TRUE(means_pass(tree, law, m.mean, kDraws));
  // Power.
  const IntegerMoments high_leaves = moments_of(tree, CascadeLaw(tree, {12, 6, 4, 3 * 1.06}), 202, kDraws);
  EXPECT_FALSE(variances_pass(tree, law, B, high_leaves, kDraws, "power: leaves 6% high"));
  const IntegerMoments high_middle = moments_of(tree, CascadeLaw(tree, {12, 6, 4 * 1.2, 3}), 203, kDraws);
  EXPECT_FALSE(covariances_pass(tree, law, B, high_middle, kDraws, "power: depth 2 20% high"));
  std::vector<double> shifted = m.mean;
  shifted[tree.level_begin(3)] += 0.05 * std::sqrt(3.0);
  EXPECT_FALSE(means_pass(tree, law, shifted, kDraws));
}

// ---- 3. the CDF-table discrete Gaussian ----------------------------------

std::map<std::int64_t, double> cascade_pmf(double s2, double centre) {
  std::map<std::int64_t, double> p;
  double total = 0;
  const auto reach = static_cast<std::int64_t>(std::ceil(12 * std::sqrt(s2))) + 2;
  for (std::int64_t x = -reach; x <= reach; ++x) total += p[x] = std::exp(-(x - centre) * (x - centre) / (2 * s2));
  for (auto& [x, w] : p) w /= total;
  return p;
}

TEST(StatDiscreteGaussianTable, MatchesThePmf) {
  constexpr std::size_t kDraws = 200000;
  struct Case {
    Uint128 num, den;
    std::uint64_t F, Q;
  };
  for (const Case& c : {Case{3, 4, 1, 3}, Case{5, 2, 0, 1}, Case{40, 3, 2, 5}}) {
    const double s2 = double(c.num) / double(c.den), centre = double(c.F) / double(c.Q);
    const DiscreteGaussianTable table(c.num, c.den, c.F, c.Q, Interrupts());
    auto rng = make_seeded_random_source(300 + c.Q);
    std::map<std::int64_t, std::int64_t> counts;
    for (std::size_t t = 0; t < kDraws; ++t) ++counts[table.sample(*rng)];
    const std::string what = "table s2 = " + std::to_string(s2) + ", centre = " + std::to_string(centre);
    const ChiSquare good = goodness_of_fit(cascade_pmf(s2, centre), counts, kDraws);
    report(what, good);
    EXPECT_TRUE(good.passes()) << what;
    const ChiSquare wide = goodness_of_fit(cascade_pmf(1.1 * s2, centre), counts, kDraws);
    report(what + ", power: 1.1 s2", wide);
    EXPECT_FALSE(wide.passes()) << what;
    const ChiSquare moved = goodness_of_fit(cascade_pmf(s2, centre + 1.0 / double(c.Q + 1)), counts, kDraws);
    report(what + ", power: centre moved", moved);
    EXPECT_FALSE(moved.passes()) << what;
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
