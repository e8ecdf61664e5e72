// Unit tests of the integer cascade (hierarchy/integer_cascade*.hpp):
//  - steps 1-2 of integer_cascade_sampler.hpp against dense linear algebra
//    (Eigen): for binary, m-ary, one-child chains, per-level targets,
//    inherited chain variances and conditioned laws, the basis B (columns:
//    the leaves of each unit coordinate) satisfies B^T Sigma^+ B =
//    (I - M)^T D^-1 (I - M) with M the recorded centres (strictly lower
//    triangular) and D the derived s_j^2; the Cholesky factor of the
//    reversed Gram matrix has diagonal 1/s_j (the Gram-Schmidt norms); B is
//    unimodular (|det| = 1), or spans the margin lattice;
//  - draws: integers, every node the sum of its children, pinned nodes 0,
//    both 1-D methods; same seed and different data differ by exactly x - x';
//  - the certified variance bounds contain the exact variances of an
//    enumerated small-sigma law; calibration meets its budget; refusals
//    (too small a noise, too large a tree) and cancellation.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "calibration/zcdp.hpp"
#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/crossed_integer_cascade.hpp"
#include "hierarchy/integer_cascade.hpp"
#include "hierarchy/rollup.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

Eigen::MatrixXd leaf_covariance_matrix(const HierarchyTree& tree, const CascadeLaw& law) {
  const auto n = static_cast<Eigen::Index>(tree.n_leaves());
  Eigen::MatrixXd s(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      s(i, j) = leaf_covariance(tree, law, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
  return s;
}

Eigen::MatrixXd pseudo_inverse_psd(const Eigen::MatrixXd& m) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  Eigen::VectorXd inv = eig.eigenvalues();
  for (Eigen::Index k = 0; k < inv.size(); ++k) inv(k) = inv(k) > 1e-9 * eig.eigenvalues().maxCoeff() ? 1 / inv(k) : 0;
  return eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
}

std::vector<std::int64_t> leaves_of(const HierarchyTree& tree, const std::vector<std::int64_t>& nodes) {
  std::vector<std::int64_t> out(tree.n_leaves());
  for (std::uint32_t i = 0; i < tree.n_leaves(); ++i) out[i] = nodes[tree.leaf_node(i)];
  return out;
}

void expect_consistent(const HierarchyTree& tree, const std::vector<std::int64_t>& nodes) {
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (tree.is_leaf(v)) continue;
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += nodes[c];
    ASSERT_EQ(sum, nodes[v]) << "node " << v;
  }
}

// Steps 1-2 against Eigen.
void expect_gram_schmidt_matches(const HierarchyTree& tree, const CascadeLaw& law) {
  const auto coords = integer_cascade_coordinates(tree, law);
  const auto r = static_cast<Eigen::Index>(coords.size());
  const auto n = static_cast<Eigen::Index>(tree.n_leaves());
  Eigen::MatrixXd B(n, r), M(r, r);
  for (Eigen::Index l = 0; l < r; ++l) {
    std::vector<std::int64_t> y(coords.size(), 0);
    y[l] = 1;
    std::vector<double> centres;
    const auto nodes = integer_cascade_from_coordinates(tree, law, y, &centres);
    expect_consistent(tree, nodes);
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
      if (law.pinned(v)) {
        ASSERT_EQ(nodes[v], 0);
      }
    }
    const auto leaves = leaves_of(tree, nodes);
    for (Eigen::Index i = 0; i < n; ++i) B(i, l) = double(leaves[i]);
    for (Eigen::Index j = 0; j < r; ++j) M(j, l) = centres[j];
  }
  // Centres use only earlier coordinates.
  for (Eigen::Index j = 0; j < r; ++j)
    for (Eigen::Index l = j; l < r; ++l) ASSERT_EQ(M(j, l), 0.0) << j << " " << l;
  Eigen::VectorXd inv_s2(r);
  for (Eigen::Index j = 0; j < r; ++j) inv_s2(j) = 1 / coords[j].s2;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(r, r);
  const Eigen::MatrixXd derived = (I - M).transpose() * inv_s2.asDiagonal() * (I - M);
  const Eigen::MatrixXd gram = B.transpose() * pseudo_inverse_psd(leaf_covariance_matrix(tree, law)) * B;
  EXPECT_LT((gram - derived).cwiseAbs().maxCoeff(), 1e-9 * gram.cwiseAbs().maxCoeff());
  // Gram-Schmidt norms: the reversed Gram matrix's Cholesky diagonal.
  const Eigen::MatrixXd reversed = gram.reverse();
  const Eigen::LLT<Eigen::MatrixXd> llt(reversed);
  ASSERT_EQ(llt.info(), Eigen::Success);
  const Eigen::MatrixXd L = llt.matrixL();
  for (Eigen::Index k = 0; k < r; ++k) EXPECT_NEAR(1 / (L(k, k) * L(k, k)), coords[r - 1 - k].s2, 1e-9 * coords[r - 1 - k].s2);
  // A basis of Z^n when nothing is pinned; of the margin lattice otherwise
  // (rank n minus the constraints; integer columns by construction).
  if (!law.conditioned()) {
    ASSERT_EQ(r, n);
    EXPECT_NEAR(std::fabs(B.determinant()), 1.0, 1e-9);
  } else {
    EXPECT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(B).rank(), r);
  }
}

HierarchyTree random_tree_with_chains(std::mt19937_64& gen, unsigned depth, bool chains) {
  std::vector<std::int64_t> parent{-1}, level{0};
  for (unsigned d = 0; d < depth; ++d) {
    std::vector<std::int64_t> next;
    for (std::int64_t p : level) {
      const unsigned m = (chains ? 1 : 2) + gen() % 3;
      for (unsigned k = 0; k < m; ++k) {
        next.push_back(static_cast<std::int64_t>(parent.size()));
        parent.push_back(p);
      }
    }
    level = next;
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

TEST(IntegerCascadeBasis, BinaryTreeMatchesDenseCholesky) {
  const auto tree = HierarchyTree::perfect_binary(3, Interrupts());
  expect_gram_schmidt_matches(tree, CascadeLaw::uniform(tree, 2.5));
  expect_gram_schmidt_matches(tree, CascadeLaw(tree, {4, 2, 1.5, 1}));
}

TEST(IntegerCascadeBasis, RandomTreesWithChainsAndLevelTargets) {
  std::mt19937_64 gen(7);
  for (int t = 0; t < 6; ++t) {
    const auto tree = random_tree_with_chains(gen, 3, t % 2 == 0);
    expect_gram_schmidt_matches(tree, CascadeLaw::uniform(tree, 1.0 + t));
    // Level targets that differ across a one-child chain give inherited variances.
    expect_gram_schmidt_matches(tree, CascadeLaw(tree, {9, 6, 5, 4}));
  }
}

TEST(IntegerCascadeBasis, ConditionedLaws) {
  std::mt19937_64 gen(11);
  for (int t = 0; t < 4; ++t) {
    const auto tree = random_tree_with_chains(gen, 3, t % 2 == 1);
    std::vector<std::uint32_t> depth1;
    for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) depth1.push_back(v);
    expect_gram_schmidt_matches(tree, CascadeLaw::uniform(tree, 3.0).conditioned_on(tree, depth1));
    expect_gram_schmidt_matches(tree, CascadeLaw(tree, {5, 4, 3, 2}).conditioned_on(tree, {0}));
  }
}

TEST(IntegerCascadeSampler, IntegerConsistentAndPinned) {
  std::mt19937_64 gen(3);
  const auto tree = random_tree_with_chains(gen, 4, true);
  std::vector<std::uint32_t> depth1;
  for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) depth1.push_back(v);
  const CascadeLaw law = CascadeLaw(tree, {40, 30, 20, 12, 8}).conditioned_on(tree, depth1);
  for (auto draws : {IntegerCascadeOptions::Draws::tables, IntegerCascadeOptions::Draws::rejection}) {
    IntegerCascadeOptions options;
    options.draws = draws;
    const IntegerCascadeSampler sampler(tree, law, Interrupts(), options);
    auto rng = make_seeded_random_source(5);
    std::vector<std::int64_t> nodes(tree.n_nodes());
    bool some_nonzero = false;
    for (int k = 0; k < 50; ++k) {
      sampler.sample(*rng, nodes.data(), Interrupts());
      expect_consistent(tree, nodes);
      for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
        if (law.pinned(v)) {
          ASSERT_EQ(nodes[v], 0);
        }
        some_nonzero |= nodes[v] != 0;
      }
    }
    EXPECT_TRUE(some_nonzero);
  }
}

TEST(IntegerCascadeRelease, SameSeedDifferentDataDiffersByTheData) {
  std::mt19937_64 gen(9);
  const auto tree = random_tree_with_chains(gen, 4, false);
  const CascadeLaw law = CascadeLaw::uniform(tree, 30);
  std::vector<std::int64_t> x(tree.n_leaves()), x2(tree.n_leaves());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<std::int64_t>(gen() % 1000);
    x2[i] = static_cast<std::int64_t>(gen() % 5);
  }
  auto rng1 = make_seeded_random_source(77), rng2 = make_seeded_random_source(77);
  const auto a = release_integer_cascade(tree, law, x.data(), *rng1, Interrupts());
  const auto b = release_integer_cascade(tree, law, x2.data(), *rng2, Interrupts());
  std::vector<std::int64_t> diff(tree.n_leaves());
  for (std::uint32_t i = 0; i < diff.size(); ++i) diff[i] = x[tree.leaf_cell(i)] - x2[tree.leaf_cell(i)];
  const auto expected = rollup(tree, diff, Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) ASSERT_EQ(a.node_values[v] - b.node_values[v], expected[v]);
  expect_consistent(tree, a.node_values);
}

// Exact variance of the root's and a leaf's noise for the 4-leaf tree, by
// enumerating the lattice Gaussian on a box (its mass outside is < 1e-40).
TEST(IntegerCascadeAccuracy, BoundsContainTheEnumeratedVariances) {
  const auto tree = HierarchyTree::perfect_binary(2, Interrupts());
  for (double v : {0.25, 0.6, 1.5}) {
    const CascadeLaw law = CascadeLaw::uniform(tree, v);
    const Eigen::MatrixXd precision = leaf_covariance_matrix(tree, law).inverse();
    const int R = 12;
    double total = 0, leaf2 = 0, root2 = 0, sib = 0;
    for (int a = -R; a <= R; ++a)
      for (int b = -R; b <= R; ++b)
        for (int c = -R; c <= R; ++c)
          for (int d = -R; d <= R; ++d) {
            Eigen::Vector4d z(a, b, c, d);
            const double w = std::exp(-0.5 * z.dot(precision * z));
            total += w;
            leaf2 += w * a * a;
            root2 += w * double(a + b + c + d) * (a + b + c + d);
            sib += w * a * b;
          }
    const IntegerSplits splits(tree, law, Interrupts());
    const double B = integer_cascade_variance_deficit_bound(splits);
    const auto leaf = integer_node_variance(tree, law, B, tree.leaf_node(0));
    const auto root = integer_range_variance(tree, law, B, 0, 3);
    const auto cov = integer_leaf_covariance(tree, law, B, 0, 1);
    SCOPED_TRACE("v = " + std::to_string(v) + ", B = " + std::to_string(B));
    EXPECT_LE(leaf.lower, leaf2 / total);
    EXPECT_LE(leaf2 / total, leaf.upper * (1 + 1e-12));
    EXPECT_LE(root.lower, root2 / total);
    EXPECT_LE(root2 / total, root.upper * (1 + 1e-12));
    EXPECT_LE(cov.lower, sib / total);
    EXPECT_LE(sib / total, cov.upper);
    // The discrete variance is visibly below the closed form at v = 0.25.
    if (v == 0.25) {
      EXPECT_LT(leaf2 / total, 0.99 * leaf.upper);
    }
  }
  // At calibrated sizes the bound is below double precision.
  const auto big = HierarchyTree::perfect_binary(16, Interrupts());
  EXPECT_LT(integer_cascade_variance_deficit_bound(IntegerSplits(big, CascadeLaw::uniform(big, 8.0), Interrupts())),
            1e-30);
}

TEST(IntegerCascadeCalibration, MeetsBudgetAndDescribesTheLaw) {
  const auto tree = HierarchyTree::perfect_binary(10, Interrupts());
  const auto shape = CascadeLaw(tree, std::vector<double>(11, 1.0));
  const auto by_rho = calibrate_integer_cascade_rho(tree, shape, 0.5, Neighbours::ReplaceOne, Interrupts());
  EXPECT_LE(by_rho.calibration.privacy.rho, 0.5);
  EXPECT_GT(by_rho.calibration.privacy.rho, 0.5 * (1 - 1e-9));
  const auto by_eps =
      calibrate_integer_cascade_epsilon_delta(tree, shape, 1.0, 1e-6, Neighbours::AddRemove, Interrupts());
  EXPECT_LE(zcdp_delta(1.0, by_eps.calibration.privacy.rho), 1e-6);
  EXPECT_GT(by_eps.calibration.acceptance_bound, 0.999999);
  EXPECT_LT(by_eps.calibration.variance_deficit_bound, 1e-100);
  const auto targets = integer_cascade_cost_of_targets(tree, by_eps.law, 1e-6, Neighbours::AddRemove, Interrupts());
  EXPECT_NEAR(targets.calibration.privacy.epsilon, 1.0, 1e-6);
  const std::string json = by_eps.calibration.to_json();
  for (const char* key : {"\"integer_cascade\"", "\"variance_lower_bound\"", "\"acceptance_lower_bound\"",
                          "\"variance_deficit_bound\"", "\"rho\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
  // Published rounded up to 2^-53 (a bound below 1e-100 would print as
  // hundreds of digits once jsonb reads it), still far below any effect.
  const std::size_t at = json.find("\"variance_deficit_bound\": ");
  ASSERT_NE(at, std::string::npos);
  const double published = std::stod(json.substr(at + 26));
  EXPECT_EQ(published, 0x1p-53);
}

TEST(IntegerCascadeRefusals, TooSmallNoiseTooLargeTreeAndCancel) {
  const auto tree = HierarchyTree::perfect_binary(12, Interrupts());
  // s^2 = 3v/4 = 0.15: an attempt's acceptance bound is far below 1/2.
  const CascadeLaw tiny = CascadeLaw::uniform(tree, 0.2);
  EXPECT_THROW((IntegerCascadeSampler{tree, tiny, Interrupts()}), OutOfRange);
  EXPECT_THROW(integer_cascade_cost_of_targets(tree, tiny, 1e-6, Neighbours::AddRemove, Interrupts()), OutOfRange);
  EXPECT_THROW(require_integer_cascade_size(kMaxIntegerCascadeNodes + 1), TooLarge);
  EXPECT_NO_THROW(require_integer_cascade_size(kMaxIntegerCascadeNodes));
  // A cancel requested after a few polls stops the draw.
  int polls = 0;
  const Interrupts cancel([](void* n) { return ++*static_cast<int*>(n) > 2; }, &polls);
  const CascadeLaw law = CascadeLaw::uniform(tree, 20);
  const IntegerCascadeSampler sampler(tree, law, Interrupts());
  auto rng = make_seeded_random_source(1);
  std::vector<std::int64_t> nodes(tree.n_nodes());
  EXPECT_THROW(sampler.sample(*rng, nodes.data(), cancel), Interrupted);
}

// Crossed: every (row node, column node) is the sum over the children of
// either, integers throughout; conditioned laws and tiny noise refused.
TEST(CrossedIntegerCascade, ConsistentBothWaysAndRefusals) {
  std::mt19937_64 gen(21);
  const auto rows = random_tree_with_chains(gen, 2, false), cols = random_tree_with_chains(gen, 3, true);
  const CascadeLaw row_law = CascadeLaw::uniform(rows, 20), col_law(cols, {1.5, 1.2, 1.0, 1.0});
  auto rng = make_seeded_random_source(8);
  const std::size_t width = cols.n_nodes();
  for (int k = 0; k < 5; ++k) {
    const auto grid = crossed_integer_cascade_noise(rows, row_law, cols, col_law, *rng, Interrupts());
    ASSERT_EQ(grid.size(), rows.n_nodes() * width);
    for (std::uint32_t s = 0; s < rows.n_nodes(); ++s)
      for (std::uint32_t t = 0; t < width; ++t) {
        const std::int64_t value = grid[s * width + t];
        if (!rows.is_leaf(s)) {
          std::int64_t sum = 0;
          for (std::uint32_t c = rows.first_child(s); c < rows.child_end(s); ++c) sum += grid[c * width + t];
          ASSERT_EQ(sum, value);
        }
        if (!cols.is_leaf(t)) {
          std::int64_t sum = 0;
          for (std::uint32_t c = cols.first_child(t); c < cols.child_end(t); ++c) sum += grid[s * width + c];
          ASSERT_EQ(sum, value);
        }
      }
  }
  EXPECT_LT(crossed_integer_cascade_deficit_bound(rows, row_law, cols, col_law, Interrupts()), 1e-10);
  EXPECT_GT(crossed_integer_cascade_acceptance_bound(rows, row_law, cols, col_law, Interrupts()), 0.999);
  // Both bounds pass over every node of both trees.
  const Interrupts cancel([](void*) { return true; }, nullptr);
  EXPECT_THROW(crossed_integer_cascade_deficit_bound(rows, row_law, cols, col_law, cancel), Interrupted);
  EXPECT_THROW(crossed_integer_cascade_acceptance_bound(rows, row_law, cols, col_law, cancel), Interrupted);
  EXPECT_THROW(crossed_integer_cascade_noise(rows, row_law.conditioned_on(rows, {0}), cols, col_law, *rng,
                                             Interrupts()),
               InvalidArgument);
  EXPECT_THROW(crossed_integer_cascade_noise(rows, CascadeLaw::uniform(rows, 0.05), cols, col_law, *rng, Interrupts()),
               OutOfRange);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
