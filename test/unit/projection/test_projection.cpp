// The projections of src/core/projection: the equality projection
// project_l2 computes (closed form), the non-negative QP of project_nn_l2
// (Clp, with its KKT certificate), the controlled rounding of
// project_nn_integer, and Clp's cancellation and size limits. The
// mechanisms' releases are tested in test/unit/mechanisms. Deterministic:
// fixed seeds, exact or round-off tolerances.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "errors.hpp"
#include "invariants/invariant_model.hpp"
#include "projection/clp_problem.hpp"
#include "projection/controlled_rounding.hpp"
#include "projection/linear_invariants.hpp"
#include "projection/nonneg_projection.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;
using invariant_dp::test_tables::random_counts;

namespace {

Eigen::MatrixXd dense_rows(const LinearInvariants& inv) { return Eigen::MatrixXd(inv.rows); }

// min |y - t|^2 s.t. A y = a by the normal (KKT) equations, densely.
Eigen::VectorXd equality_projection(const LinearInvariants& inv, const Eigen::VectorXd& t) {
  const Eigen::MatrixXd a = dense_rows(inv);
  const Eigen::VectorXd totals = Eigen::Map<const Eigen::VectorXd>(inv.totals.data(), inv.totals.size());
  const Eigen::VectorXd lambda = (a * a.transpose()).ldlt().solve(totals - a * t);
  return t + a.transpose() * lambda;
}

double distance2(const std::vector<double>& y, const std::vector<double>& t) {
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) s += (y[i] - t[i]) * (y[i] - t[i]);
  return s;
}

}  // namespace

TEST(ProjectL2, LandsOnTheInvariantsIsIdempotentAndNearest) {
  std::mt19937_64 g(7);
  const auto table = grid({"a", "b"}, {5, 7}, random_counts(35, g, 6));
  const auto keys = table.keys();
  const InvariantModel model(keys, {Margin{{0}}, Margin{{1}}}, Interrupts());
  const LinearInvariants inv = linear_invariants(model, table.counts.data());
  std::normal_distribution<double> noise(0, 3);
  for (int trial = 0; trial < 20; ++trial) {
    // y = x + Pi_N (t - x): what project_l2 computes for t = x + e.
    std::vector<double> t(35), y(35);
    for (int i = 0; i < 35; ++i) t[i] = double(table.counts[i]) + std::round(noise(g));
    for (int i = 0; i < 35; ++i) y[i] = t[i] - double(table.counts[i]);
    model.project_onto_null_space(y.data());
    for (int i = 0; i < 35; ++i) y[i] += double(table.counts[i]);
    EXPECT_LT(invariant_residual(inv, y.data()), 1e-9);
    // Idempotent.
    std::vector<double> again(35);
    for (int i = 0; i < 35; ++i) again[i] = y[i] - double(table.counts[i]);
    model.project_onto_null_space(again.data());
    for (int i = 0; i < 35; ++i) EXPECT_NEAR(again[i] + double(table.counts[i]), y[i], 1e-9);
    // The normal equations give the same point.
    const Eigen::VectorXd reference = equality_projection(inv, Eigen::Map<Eigen::VectorXd>(t.data(), 35));
    for (int i = 0; i < 35; ++i) EXPECT_NEAR(y[i], reference[i], 1e-9);
    // Nearest: every perturbed feasible point is farther from t.
    for (int k = 0; k < 20; ++k) {
      std::vector<double> step(35);
      for (auto& s : step) s = noise(g);
      model.project_onto_null_space(step.data());
      std::vector<double> z(35);
      for (int i = 0; i < 35; ++i) z[i] = y[i] + 0.1 * step[i];
      EXPECT_GT(distance2(z, t), distance2(y, t));
    }
  }
}

// The QP answer is certified by KKT and beats every feasible perturbation.
TEST(ProjectNnL2, SatisfiesKktAndIsNearestAmongNonNegativeTables) {
  std::mt19937_64 g(11);
  std::normal_distribution<double> noise(0, 4);
  for (int trial = 0; trial < 30; ++trial) {
    const int rows = 2 + trial % 4, cols = 3 + trial % 5;
    const auto table = grid({"a", "b"}, {rows, cols}, random_counts(rows * cols, g, 2));
    const std::vector<Margin> margins =
        trial % 3 == 0 ? std::vector<Margin>{Margin{{0}}} : std::vector<Margin>{Margin{{0}}, Margin{{1}}};
    const InvariantModel model(table.keys(), margins, Interrupts());
    const LinearInvariants inv = linear_invariants(model, table.counts.data());
    std::vector<double> t(table.counts.size());
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = double(table.counts[i]) + noise(g);
    const NonnegProjection p = project_nonnegative(inv, t, Interrupts());
    ASSERT_TRUE(p.kkt.holds());
    EXPECT_LT(invariant_residual(inv, p.y.data()), 1e-9 * (1 + inv.totals[0]) + p.kkt.tolerance);
    for (double v : p.y) EXPECT_GE(v, 0.0);
    // Feasible perturbations along null-space directions, shortened so every
    // cell stays non-negative, never get closer to t.
    for (int k = 0; k < 30; ++k) {
      std::vector<double> step(t.size());
      for (auto& s : step) s = noise(g);
      model.project_onto_null_space(step.data());
      double scale = 0.05;
      for (std::size_t i = 0; i < t.size(); ++i)
        if (step[i] < 0) scale = std::min(scale, p.y[i] / -step[i]);
      if (scale < 1e-6) continue;
      std::vector<double> z(t.size());
      for (std::size_t i = 0; i < t.size(); ++i) z[i] = p.y[i] + scale * step[i];
      EXPECT_GE(distance2(z, t), distance2(p.y, t) - 1e-9);
    }
  }
}

TEST(ProjectNnL2, NegativeTotalsAreInconsistent) {
  const auto table = grid({"a", "b"}, {2, 3}, {1, 2, 3, 4, 5, 6});
  const InvariantModel model(table.keys(), {Margin{{0}}}, Interrupts());
  LinearInvariants inv = linear_invariants(model, table.counts.data());
  inv.totals[0] = -1;
  EXPECT_THROW(project_nonnegative(inv, std::vector<double>(6, 1.0), Interrupts()), InconsistentInvariants);
}

TEST(ProjectNnInteger, RoundingStaysWithinOneOfTheRealTable) {
  const auto table = grid({"a", "b"}, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const InvariantModel model(table.keys(), {Margin{{0}}, Margin{{1}}}, Interrupts());
  const LinearInvariants inv = linear_invariants(model, table.counts.data());
  const std::vector<double> t = {0.4, 1.2, -3, 5, 4.5, 4.5, 6.2, 6.1, 8.3, 8.8, 10.1, 12};
  const auto y = project_nonnegative(inv, t, Interrupts()).y;
  const auto z = round_keeping_invariants(inv, y, Interrupts());
  for (std::size_t i = 0; i < z.size(); ++i) EXPECT_LT(std::fabs(double(z[i]) - y[i]), 1.0);
}

namespace {
bool pending_after_calls(void* context) { return --*static_cast<int*>(context) < 0; }
}  // namespace

TEST(ProjectNnL2, ClpStopsWhenAskedAndLargeProblemsAreRefused) {
  // 60 x 60 cells, both margins: the barrier runs several iterations, each
  // an event; asking to stop at the third poll unwinds with Interrupted.
  const auto table = grid({"a", "b"}, {60, 60}, std::vector<std::int64_t>(3600, 5));
  const InvariantModel model(table.keys(), {Margin{{0}}, Margin{{1}}}, Interrupts());
  const LinearInvariants inv = linear_invariants(model, table.counts.data());
  std::vector<double> t(3600);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = 5.0 + double(i % 7) - 3.0;
  int polls = 2;
  EXPECT_THROW(project_nonnegative(inv, t, Interrupts(pending_after_calls, &polls)), Interrupted);
  EXPECT_NO_THROW(project_nonnegative(inv, t, Interrupts()));
  EXPECT_THROW(refuse_large_clp_problem(kMaxClpCells + 1, 10), TooLarge);
  EXPECT_THROW(refuse_large_clp_problem(100, kMaxClpRows + 1), TooLarge);
  EXPECT_NO_THROW(refuse_large_clp_problem(kMaxClpCells, kMaxClpRows));
}
