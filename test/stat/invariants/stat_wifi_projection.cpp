// Statistical tests of the projected noise on the WiFi example of Gao,
// Gong, Yu 2022, "Subspace Differential Privacy" (arXiv:2108.11527),
// Section 5.2: 20
// buildings x 14 groups x 24 hours with the margins {building, hour} and
// {building, group}, unit Gaussian noise projected onto null(A). Theory:
// rank 740, null dimension 5980, noise covariance Pi_N with every diagonal
// entry (13/14)(23/24) = 0.8899. Also an entrywise covariance check on a
// 3 x 4 table. Seeds are fixed, so each run is deterministic; the stated
// false-failure rates are what a fresh seed would risk.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "invariants/cell_keys.hpp"
#include "table_builder.hpp"
#include "invariants/invariant_model.hpp"

namespace invariant_dp {
namespace {

constexpr int kBuildings = 20, kGroups = 14, kHours = 24;
constexpr double kCellVariance = (13.0 / 14.0) * (23.0 / 24.0);

// Cells of a full grid, last column fastest; key text "<column><level>".
CellKeys grid_keys(const std::vector<std::string>& columns, const std::vector<int>& levels) {
  std::vector<std::vector<std::string>> tuples{{}};
  for (std::size_t c = 0; c < levels.size(); ++c) {
    std::vector<std::vector<std::string>> next;
    for (const auto& t : tuples) {
      for (int v = 0; v < levels[c]; ++v) {
        next.push_back(t);
        next.back().push_back(columns[c] + std::to_string(v));
      }
    }
    tuples.swap(next);
  }
  std::vector<const char*> pointers;
  for (const auto& t : tuples) {
    for (const auto& s : t) pointers.push_back(s.c_str());
  }
  return CellKeys(test_tables::TextKeys(pointers, columns.size()).rows(), columns, Interrupts());
}

InvariantModel wifi_model() {
  const CellKeys keys = grid_keys({"building", "group", "hour"}, {kBuildings, kGroups, kHours});
  return InvariantModel(keys, {Margin{{0, 2}}, Margin{{0, 1}}}, Interrupts());
}

// Projected unit Gaussian noise, one draw.
std::vector<double> projected_noise(const InvariantModel& model, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<double> e(model.n_cells());
  for (double& x : e) x = normal(rng);
  model.project_onto_null_space(e.data());
  return e;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * (values.size() - 1);
  const std::size_t below = static_cast<std::size_t>(position);
  const double above_weight = position - below;
  return values[below] * (1 - above_weight) + values[std::min(below + 1, values.size() - 1)] * above_weight;
}

TEST(WifiProjection, RankNullDimensionAndDiagonal) {
  const InvariantModel model = wifi_model();
  EXPECT_EQ(model.n_cells(), 6720u);
  EXPECT_EQ(model.rank(), 740u);
  EXPECT_EQ(model.null_dimension(), 5980u);
  EXPECT_EQ(model.structure(), "two_way");
  for (double d : model.null_projector_diagonal()) ASSERT_NEAR(d, kCellVariance, 1e-12);
}

// Per repetition v = |Pi_N e|^2 / 6720 (the projected errors have mean 0 in
// every building, so this is their variance) and |Pi_N e|^2 ~ chi^2(5980):
// E v = 5980/6720 = 0.8899, sd(v) = sqrt(2 * 5980)/6720 = 0.01627. The
// median of 50 reps is close to normal with sd 1.2533 * 0.01627 / sqrt(50) =
// 0.00288 (the chi^2 median sits 0.67/6720 = 1e-4 below the mean); a
// tolerance of 5 of those sds, 0.0144, fails falsely with probability
// about 6e-7. The paper's 0.88 (0.86, 0.91) is printed next to ours.
TEST(WifiProjection, PerRepetitionVarianceMatchesTheory) {
  const InvariantModel model = wifi_model();
  std::mt19937_64 rng(6720);
  std::vector<double> per_rep;
  for (int rep = 0; rep < 50; ++rep) {
    const std::vector<double> e = projected_noise(model, rng);
    double squares = 0;
    for (double x : e) squares += x * x;
    per_rep.push_back(squares / e.size());
  }
  const double median = quantile(per_rep, 0.5);
  std::printf("WiFi per-rep variance over 50 reps: median %.4f, 5%% %.4f, 95%% %.4f (theory 0.8899; paper 0.88 (0.86, 0.91))\n",
              median, quantile(per_rep, 0.05), quantile(per_rep, 0.95));
  const double sd_of_median = 1.2533 * std::sqrt(2.0 * 5980) / 6720 / std::sqrt(50.0);
  EXPECT_NEAR(median, 5980.0 / 6720.0, 5 * sd_of_median);
}

// Per cell i, s_i = mean over R reps of e_i^2 estimates Var e_i = 0.8899 with
// sd 0.8899 * sqrt(2/R) (e_i is Gaussian). Averaged over cells, the mean of
// s_i is the mean of R independent chi^2(5980)/6720, sd 0.01627/sqrt(R);
// tolerance 5 of those (false failure ~6e-7). Each cell alone is also held to
// 5.5 sd: over 6720 cells a false failure has probability about 5e-4 (the
// upper tail of chi^2(2000) is a little heavier than the normal one).
TEST(WifiProjection, PerCellVarianceMatchesDiagonal) {
  const InvariantModel model = wifi_model();
  const int reps = 2000;
  std::mt19937_64 rng(20220202);
  std::vector<double> sum_squares(model.n_cells(), 0.0);
  for (int rep = 0; rep < reps; ++rep) {
    const std::vector<double> e = projected_noise(model, rng);
    for (std::size_t i = 0; i < e.size(); ++i) sum_squares[i] += e[i] * e[i];
  }
  double average = 0, worst_z = 0;
  const double cell_sd = kCellVariance * std::sqrt(2.0 / reps);
  for (double s : sum_squares) {
    average += s / reps / sum_squares.size();
    worst_z = std::max(worst_z, std::abs(s / reps - kCellVariance) / cell_sd);
  }
  std::printf("WiFi per-cell variance over %d reps: average %.5f (theory %.5f), worst cell %.2f sd away\n", reps,
              average, kCellVariance, worst_z);
  EXPECT_NEAR(average, kCellVariance, 5 * std::sqrt(2.0 * 5980) / 6720 / std::sqrt(double(reps)));
  EXPECT_LT(worst_z, 5.5);
}

// Pi_N of an r x c table with both margins: (I - J/r) (x) (I - J/c).
Eigen::MatrixXd double_centring(int r, int c) {
  Eigen::MatrixXd out(r * c, r * c);
  for (int a = 0; a < r * c; ++a) {
    for (int b = 0; b < r * c; ++b) {
      const double rows = (a / c == b / c) - 1.0 / r, columns = (a % c == b % c) - 1.0 / c;
      out(a, b) = rows * columns;
    }
  }
  return out;
}

// Empirical C = (1/R) sum x x^T of projected noise x ~ N(0, Pi) (mean known
// to be 0). Each entry is a mean of R products x_j x_k with variance
// Pi_jk^2 + Pi_jj Pi_kk (Wishart / Isserlis), so |C_jk - Pi_jk| is held to
// 5 sqrt((Pi_jk^2 + Pi_jj Pi_kk)/R). With R = 20000 the entries are close to
// normal; over the 78 distinct entries a false failure has probability
// about 78 * 5.7e-7 = 4e-5.
TEST(SmallTableProjection, EmpiricalCovarianceMatchesProjector) {
  const CellKeys keys = grid_keys({"row", "col"}, {3, 4});
  const InvariantModel model(keys, {Margin{{0}}, Margin{{1}}}, Interrupts());
  const Eigen::MatrixXd pi = double_centring(3, 4);
  const int reps = 20000;
  std::mt19937_64 rng(34);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(12, 12);
  for (int rep = 0; rep < reps; ++rep) {
    const std::vector<double> e = projected_noise(model, rng);
    const Eigen::Map<const Eigen::VectorXd> x(e.data(), 12);
    sum.noalias() += x * x.transpose();
  }
  const Eigen::MatrixXd cov = sum / reps;
  double worst_z = 0;
  for (int j = 0; j < 12; ++j) {
    for (int k = 0; k <= j; ++k) {
      const double sd = std::sqrt((pi(j, k) * pi(j, k) + pi(j, j) * pi(k, k)) / reps);
      worst_z = std::max(worst_z, std::abs(cov(j, k) - pi(j, k)) / sd);
    }
  }
  std::printf("3x4 table: worst covariance entry %.2f sd from Pi_N over %d reps\n", worst_z, reps);
  EXPECT_LT(worst_z, 5.0);
}

}  // namespace
}  // namespace invariant_dp
