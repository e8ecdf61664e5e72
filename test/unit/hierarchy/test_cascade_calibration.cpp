// Unit tests of cascade calibration (cascade_calibration.hpp): from (eps,
// delta) by the analytic Gaussian with the Mahalanobis sensitivity, from rho,
// and back from per-level targets; neighbours; conditioned laws; metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "calibration/analytic_gaussian.hpp"
#include "errors.hpp"
#include "hierarchy/cascade.hpp"
#include "hierarchy/cascade_calibration.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/cascade_privacy.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "interrupt_callbacks.hpp"
#include "unit_moves.hpp"

namespace invariant_dp::hierarchy {
namespace {

TEST(CascadeCalibration, FromEpsilonDeltaUsesTheMahalanobisSensitivity) {
  const unsigned k = 4;
  const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
  const auto shape = CascadeLaw::uniform(tree, 7.0);  // the shape's scale is irrelevant
  const auto add = calibrate_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::AddRemove, Interrupts());
  const double s_add = analytic_gaussian_sigma(1.0, 1e-9, std::sqrt(1 + k / 3.0));
  EXPECT_NEAR(add.law.level_variance(0), s_add * s_add, 1e-9 * s_add * s_add);
  EXPECT_NEAR(add.law.level_variance(k), s_add * s_add, 1e-9 * s_add * s_add);
  const auto replace = calibrate_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  const double s_rep = analytic_gaussian_sigma(1.0, 1e-9, std::sqrt((2 * k + 2) / 3.0));
  EXPECT_NEAR(replace.law.level_variance(0), s_rep * s_rep, 1e-9 * s_rep * s_rep);
  // Tighter than the paper's Theorem 3.9 bound (valid for eps < 1) at eps = 0.5.
  const auto half = calibrate_epsilon_delta(tree, shape, 0.5, 1e-6, Neighbours::AddRemove, Interrupts());
  const double paper = std::sqrt(2 * std::log(1.25 / 1e-6) * (k + 3) / 3.0) / 0.5;
  EXPECT_LT(half.law.level_variance(0), paper * paper);
  EXPECT_DOUBLE_EQ(add.calibration.rho, (1 + k / 3.0) / (2 * s_add * s_add));
}

TEST(CascadeCalibration, FromRho) {
  const unsigned k = 6;
  const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
  const auto out = calibrate_rho(tree, CascadeLaw::uniform(tree, 1.0), 0.5, 0, Neighbours::AddRemove, Interrupts());
  EXPECT_NEAR(out.law.level_variance(3), (1 + k / 3.0) / (2 * 0.5), 1e-12);
  EXPECT_DOUBLE_EQ(out.calibration.rho, 0.5);
  EXPECT_THROW(calibrate_rho(tree, CascadeLaw::uniform(tree, 1.0), 0.0, 0, Neighbours::AddRemove, Interrupts()),
               InvalidArgument);
  // Without a delta no epsilon is claimed; with one, the epsilon at it: the
  // rho of a (0.7, 1e-8) calibration gives back 0.7.
  EXPECT_EQ(out.calibration.epsilon, 0);
  const auto by_epsilon =
      calibrate_epsilon_delta(tree, CascadeLaw::uniform(tree, 1.0), 0.7, 1e-8, Neighbours::AddRemove, Interrupts());
  const auto by_rho = calibrate_rho(tree, CascadeLaw::uniform(tree, 1.0), by_epsilon.calibration.rho, 1e-8,
                                    Neighbours::AddRemove, Interrupts());
  EXPECT_NEAR(by_rho.calibration.epsilon, 0.7, 1e-9);
  EXPECT_EQ(by_rho.calibration.delta, 1e-8);
  EXPECT_NEAR(by_rho.law.level_variance(0), by_epsilon.law.level_variance(0), 1e-9 * by_epsilon.law.level_variance(0));
}

TEST(CascadeCalibration, TargetsCostWhatTheyWereCalibratedFor) {
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 0, 1, 1, 2, 2, 2, 3, 3}, Interrupts());
  const CascadeLaw shape(tree, {9.0, 4.0, 2.0});
  for (Neighbours nb : {Neighbours::ReplaceOne, Neighbours::AddRemove}) {
    const auto out = calibrate_epsilon_delta(tree, shape, 0.7, 1e-8, nb, Interrupts());
    const auto cost = cost_of_targets(tree, out.law, 1e-8, nb, Interrupts());
    EXPECT_NEAR(cost.epsilon, 0.7, 1e-9);
    EXPECT_NEAR(cost.rho, out.calibration.rho, 1e-12 * cost.rho);
    EXPECT_EQ(cost.derived_from, "variance_targets");
    // Relative shape kept.
    EXPECT_NEAR(out.law.level_variance(0) / out.law.level_variance(2), 4.5, 1e-12);
  }
}

TEST(CascadeCalibration, ConditionedLawsProtectTheMovesThatKeepTotals) {
  const auto tree = HierarchyTree::perfect_binary(5, Interrupts());
  const auto shape = CascadeLaw::uniform(tree, 1.0);
  const auto fixed = shape.conditioned_on(tree, {1, 2});
  const auto free = calibrate_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  const auto kept = calibrate_epsilon_delta(tree, fixed, 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  // Moves stay inside one half: the LCA is at depth >= 1, (2(k-1) + 2)/3.
  const double s = analytic_gaussian_sigma(1.0, 1e-9, std::sqrt((2 * 4 + 2) / 3.0));
  EXPECT_NEAR(kept.law.level_variance(0), s * s, 1e-9 * s * s);
  EXPECT_LT(kept.law.level_variance(0), free.law.level_variance(0));
  EXPECT_EQ(kept.calibration.n_fixed_nodes, 2u);
  EXPECT_THROW(calibrate_epsilon_delta(tree, fixed, 1.0, 1e-9, Neighbours::AddRemove, Interrupts()), InvalidArgument);
  // Every leaf pinned: nothing left to protect.
  std::vector<std::uint32_t> leaves;
  for (std::uint32_t v = tree.level_begin(5); v < tree.level_end(5); ++v) leaves.push_back(v);
  EXPECT_THROW(calibrate_epsilon_delta(tree, shape.conditioned_on(tree, leaves), 1.0, 1e-9, Neighbours::ReplaceOne,
                                       Interrupts()),
               InconsistentInvariants);
}

TEST(CascadeCalibration, SingleCellAndBadParameters) {
  const auto single = HierarchyTree::perfect_binary(0, Interrupts());
  const auto shape = CascadeLaw::uniform(single, 1.0);
  const auto add = calibrate_epsilon_delta(single, shape, 1.0, 1e-5, Neighbours::AddRemove, Interrupts());
  const double s = analytic_gaussian_sigma(1.0, 1e-5, 1.0);  // the plain Gaussian mechanism
  EXPECT_NEAR(add.law.level_variance(0), s * s, 1e-9 * s * s);
  EXPECT_THROW(calibrate_epsilon_delta(single, shape, 1.0, 1e-5, Neighbours::ReplaceOne, Interrupts()),
               InconsistentInvariants);
  EXPECT_THROW(calibrate_epsilon_delta(single, shape, -1.0, 1e-5, Neighbours::AddRemove, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(calibrate_epsilon_delta(single, shape, 1.0, 2.0, Neighbours::AddRemove, Interrupts()), InvalidArgument);
  EXPECT_THROW(cost_of_targets(single, shape, 0.0, Neighbours::AddRemove, Interrupts()), InvalidArgument);
}

using test_interrupts::always_pending;

// Calibration runs the sensitivity pass over the whole tree: a cancel stops it.
TEST(CascadeCalibration, StopsWhenInterrupted) {
  const auto tree = HierarchyTree::perfect_binary(4, Interrupts());
  const auto shape = CascadeLaw::uniform(tree, 1.0);
  const Interrupts cancel(always_pending, nullptr);
  EXPECT_THROW(calibrate_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::ReplaceOne, cancel), Interrupted);
  EXPECT_THROW(calibrate_rho(tree, shape, 0.5, 0, Neighbours::AddRemove, cancel), Interrupted);
  EXPECT_THROW(cost_of_targets(tree, shape, 1e-9, Neighbours::AddRemove, cancel), Interrupted);
}

TEST(CascadeCalibration, MetadataJson) {
  const auto tree = HierarchyTree::perfect_binary(2, Interrupts());
  const auto out =
      calibrate_epsilon_delta(tree, CascadeLaw::uniform(tree, 1.0), 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  const std::string json = out.calibration.to_json();
  for (const char* key : {"\"mechanism\": \"cascade\"", "\"neighbours\": \"replace_one\"", "\"epsilon\": 1,",
                          "\"delta\": 1e-09,", "\"rho\"", "\"levels\": [{\"depth\": 0",
                          "\"name\": \"depth 2\"", "\"noise_law\""})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
}

}  // namespace
}  // namespace invariant_dp::hierarchy

namespace invariant_dp::hierarchy {
namespace {

// A privacy unit (cascade_privacy.hpp, protected_sensitivity_squared): on a
// small tree every move of a unit with G = 2 cells and R = 1 row in each,
// enumerated, costs dx^T Sigma^-1 dx at most the bound; and the bound is
// needed: some unit move costs more than one record's maximum.
TEST(CascadeUnitSensitivity, BoundsEveryMoveOfAUnit) {
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 1, 1, 1, 2, 2}, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 1.0);
  const std::size_t n = tree.n_leaves();
  std::vector<std::vector<double>> a(n, std::vector<double>(n));
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) a[i][j] = precision_entry(tree, law, i, j);
  const auto [added, replaced] = test_tables::max_unit_move_costs(a);
  const double bound_added =
      protected_sensitivity_squared(tree, law, Protected(Neighbours::AddRemove, 2), Interrupts());
  const double bound_replaced =
      protected_sensitivity_squared(tree, law, Protected(Neighbours::ReplaceOne, 2), Interrupts());
  EXPECT_LE(added, bound_added * (1 + 1e-12));
  EXPECT_LE(replaced, bound_replaced * (1 + 1e-12));
  EXPECT_GT(added, max_sensitivity_squared(tree, law, Neighbours::AddRemove, Interrupts()) * (1 + 1e-9));
  EXPECT_GT(replaced, max_sensitivity_squared(tree, law, Neighbours::ReplaceOne, Interrupts()) * (1 + 1e-9));
  // Calibrated on it: add_remove noise variances scale by (G R)^2 = 4.
  const auto one = calibrate_epsilon_delta(tree, law, 1.0, 1e-6, Neighbours::AddRemove, Interrupts());
  const auto unit = calibrate_epsilon_delta(tree, law, 1.0, 1e-6, Protected(Neighbours::AddRemove, 2), Interrupts());
  EXPECT_NEAR(unit.law.level_variance(0) / one.law.level_variance(0), 4.0, 1e-9);
  // One record: the bound is the exact maximum.
  EXPECT_DOUBLE_EQ(protected_sensitivity_squared(tree, law, Neighbours::ReplaceOne, Interrupts()),
                   max_sensitivity_squared(tree, law, Neighbours::ReplaceOne, Interrupts()));
}

}  // namespace
}  // namespace invariant_dp::hierarchy
