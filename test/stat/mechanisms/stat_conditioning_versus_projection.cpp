// Conditioning versus projection on one sum constraint (Liu, Sun, Zhou, Feng
// 2023, arXiv:2303.00228, Section 4: Proposition 4.1 and the n = 3 example,
// Appendix B) and for Gaussian noise, where both coincide (Gao, Gong, Yu
// 2022, arXiv:2108.11527, Theorem 4.2), through run_release.
//
// Design: G independent groups of 3 cells, each group's total kept exact
// (margin "g"), so one release holds G independent draws of the 3-cell
// problem; only the first cells (or first two) of each group are used.
// Thresholds: 5 standard errors of the estimator under the stated law
// (two-sided normal tail 5.7e-7 per check), the standard error computed
// from the law's own fourth moment, never from the sample:
//   Laplace(b) on a sum of 3, conditioned:  density (b+|u|)e^{-2|u|/b}/(1.5b^2),
//     Var = 5/6 b^2, E u^4 = 7/2 b^4, so Var(u^2) = (7/2 - 25/36) b^4;
//   projected: u = (2e1 - e2 - e3)/3, Var = 4/3 b^2, kurtosis cumulant
//     (16+1+1)/81 * 12 b^4, so E u^4 = 8 b^4 and Var(u^2) = (8 - 16/9) b^4.
// The noise here is the exact discrete Laplace of scale b = 20: its moments
// differ from the continuous ones by O(1/b^2) = 0.25% relative, far below
// the standard errors; the means compared against are the exact discrete
// values (conditioned_laplace_variance, 2/3 of discrete_laplace_variance).
// Gaussian: sample covariances against sigma^2 Pi_N, Var(s_ij) =
// (S_ij^2 + S_ii S_jj) / N for Gaussian data.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "mechanisms/release.hpp"
#include "samplers/conditioned_laplace_variance.hpp"
#include "samplers/discrete_laplace.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

constexpr int kProjectionGroups = 40000;
constexpr double kZProjection = 5;

ReleaseRequest projection_request(const std::string& mechanism, double epsilon, double delta = 0) {
  RawRequest raw;
  raw.mechanism = mechanism;
  raw.epsilon = epsilon;
  raw.has_delta = delta > 0;
  raw.delta = delta;
  raw.margins = {"g"};
  return validate_request(raw);
}

// Noise u = y - x of cells 0 and 1 of every group.
struct GroupNoise {
  std::vector<double> first, second;
  double scale = 0;
};

GroupNoise release_noise(const std::string& mechanism, double epsilon, double delta, std::uint64_t seed) {
  const auto table = grid({"g", "c"}, {kProjectionGroups, 3}, std::vector<std::int64_t>(3 * kProjectionGroups, 50));
  auto rng = make_seeded_random_source(seed);
  const auto result =
      run_release(table.keys(), table.counts.data(), projection_request(mechanism, epsilon, delta), *rng, Interrupts());
  GroupNoise out;
  for (int g = 0; g < kProjectionGroups; ++g) {
    const auto value = [&](int i) {
      return result.integer_output ? double(result.integer_values[i]) : result.values[i];
    };
    out.first.push_back(value(3 * g) - 50);
    out.second.push_back(value(3 * g + 1) - 50);
  }
  const auto at = result.metadata_json.find("\"scale\": ");
  out.scale = std::stod(result.metadata_json.substr(at + 9));
  return out;
}

double mean_product(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s / double(a.size());
}

}  // namespace

TEST(ConditioningVersusProjection, LaplaceSumOfThreeVariances) {
  const double epsilon = 0.1;  // b = l1 / epsilon = 2 / 0.1 = 20
  const GroupNoise conditioned = release_noise("integer_laplace", epsilon, 0, 31);
  const GroupNoise projected = release_noise("project_l2", epsilon, 0, 32);
  const double b = conditioned.scale;
  ASSERT_DOUBLE_EQ(b, 20.0);
  ASSERT_DOUBLE_EQ(projected.scale, 20.0);
  const Rational rb{20, 1};
  const double want_conditioned = conditioned_laplace_variance(rb, 3);
  const double want_projected = 2.0 / 3.0 * discrete_laplace_variance(rb);
  // The discrete values are the paper's continuous 5/6 b^2 and 4/3 b^2 up
  // to O(1/b^2).
  EXPECT_NEAR(want_conditioned / (b * b), 5.0 / 6.0, 2e-3);
  EXPECT_NEAR(want_projected / (b * b), 4.0 / 3.0, 2e-3);

  const double n = kProjectionGroups;
  const double se_conditioned = std::sqrt((3.5 - 25.0 / 36.0) / n) * b * b;
  const double se_projected = std::sqrt((8.0 - 16.0 / 9.0) / n) * b * b;
  const double var_conditioned = mean_product(conditioned.first, conditioned.first);
  const double var_projected = mean_product(projected.first, projected.first);
  std::cout << "[stat] n=3 sum, b=20: conditioning Var/b^2 = " << var_conditioned / (b * b) << " (theory 5/6 = "
            << 5.0 / 6 << "), projection Var/b^2 = " << var_projected / (b * b) << " (theory 4/3), SEs "
            << se_conditioned / (b * b) << ", " << se_projected / (b * b) << "\n";
  EXPECT_LT(std::fabs(var_conditioned - want_conditioned), kZProjection * se_conditioned);
  EXPECT_LT(std::fabs(var_projected - want_projected), kZProjection * se_projected);
  // Power: each sample rejects the other family's law.
  EXPECT_GT(std::fabs(var_conditioned - want_projected), kZProjection * se_projected);
  EXPECT_GT(std::fabs(var_projected - want_conditioned), kZProjection * se_conditioned);
}

TEST(ConditioningVersusProjection, GaussianLawsHaveTheSameCovariance) {
  // Projection: subspace_gaussian (x + Pi_N e). Conditioning: integer_gaussian
  // (discrete Gaussian given zero group sums, exact sampler). Both sigma^2 Pi_N:
  // Var = 2/3 sigma^2, Cov = -1/3 sigma^2 within a group of 3.
  const GroupNoise projected = release_noise("subspace_gaussian", 0.5, 1e-6, 41);
  const GroupNoise conditioned = release_noise("integer_gaussian", 0.5, 1e-6, 42);
  const double n = kProjectionGroups;
  for (const GroupNoise* s : {&projected, &conditioned}) {
    const double sigma2 = s->scale * s->scale;
    const double var = 2.0 / 3.0 * sigma2, cov = -1.0 / 3.0 * sigma2;
    const double se_var = std::sqrt(2 * var * var / n), se_cov = std::sqrt((cov * cov + var * var) / n);
    const double got_var = mean_product(s->first, s->first), got_cov = mean_product(s->first, s->second);
    std::cout << "[stat] Gaussian, sigma^2 = " << sigma2 << ": Var " << got_var << " (theory " << var << "), Cov "
              << got_cov << " (theory " << cov << ")\n";
    EXPECT_LT(std::fabs(got_var - var), kZProjection * se_var);
    EXPECT_LT(std::fabs(got_cov - cov), kZProjection * se_cov);
    // Power: the unprojected law (Var sigma^2, Cov 0) is rejected.
    EXPECT_GT(std::fabs(got_var - sigma2), kZProjection * std::sqrt(2 * sigma2 * sigma2 / n));
    EXPECT_GT(std::fabs(got_cov), kZProjection * std::sqrt(sigma2 * sigma2 / n));
  }
}
