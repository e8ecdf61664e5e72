// project_l2 (mechanisms/project_l2.cpp) through the release path: what the
// request may not ask of it (delta, a sampler, a diagnosis), the law and
// accounting its metadata states (discrete Laplace at b = l1_sensitivity /
// epsilon, then the least-squares projection, which reads the data through
// the margin totals), real values that keep every margin, and without a
// margin exactly discrete_laplace's noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "errors.hpp"
#include "invariants/invariant_model.hpp"
#include "mechanism_release.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::number_at;
using invariant_dp::mechanism_release::raw;
using invariant_dp::mechanism_release::refusal;
using invariant_dp::mechanism_release::request;
using invariant_dp::mechanism_release::text_at;
using invariant_dp::test_tables::delinquents;
using invariant_dp::test_tables::grid;
using invariant_dp::test_tables::random_counts;

TEST(ProjectL2, ReleaseIsRealAndKeepsEveryMargin) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(2);
  const InvariantModel model(table.keys(), {Margin{{0}}, Margin{{1}}}, Interrupts());
  const auto result =
      run_release(table.keys(), table.counts.data(), request("project_l2", 1.0, {"county", "edu"}), *rng, Interrupts());
  ASSERT_FALSE(result.integer_output);
  std::vector<double> x(table.counts.begin(), table.counts.end());
  std::vector<double> want(model.n_margin_groups()), got(model.n_margin_groups());
  model.margin_totals(x.data(), want.data());
  model.margin_totals(result.values.data(), got.data());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-9);
  EXPECT_NE(result.metadata_json.find("\"non_negative\": false"), std::string::npos);
  EXPECT_NE(result.metadata_json.find("not post-processing"), std::string::npos);
}

TEST(ProjectL2, RefusesDeltaSamplersAndDiagnosis) { mechanism_release::expect_pure_epsilon_without_chain("project_l2"); }

TEST(ProjectL2, MetadataStatesTheLawAndItsAccounting) {
  const auto table = delinquents();
  const auto json =
      mechanism_release::metadata(mechanism_release::release_once(table, request("project_l2", 0.5, {"county"}), 3));
  EXPECT_EQ(text_at(json, {"output"}), "real");
  EXPECT_EQ(text_at(json, {"family"}), "projection");
  EXPECT_EQ(text_at(json, {"noise", "exact_parameter"}), "4/1");
  EXPECT_EQ(text_at(json, {"noise", "law"}),
            "discrete Laplace, P(e) proportional to exp(-|e|/b), independent per cell, then the least-squares "
            "projection of x + e onto the invariants");
  EXPECT_EQ(number_at(json, {"accounting", "base_epsilon"}), 0.5);
  EXPECT_NE(text_at(json, {"privacy"}).find("not post-processing"), std::string::npos);
  EXPECT_EQ(text_at(json, {"covariance"}),
            "unit_variance * Pi_N (Pi_N: orthogonal projector onto the null space of the margins)");
}

// Nothing to project onto: the values are the counts plus the very noise
// discrete_laplace draws at the same epsilon under the same seed.
TEST(ProjectL2, WithoutMarginsIsDiscreteLaplacesRelease) {
  const auto table = delinquents();
  const auto projected = mechanism_release::release_once(table, request("project_l2", 0.5), 8);
  const auto independent = mechanism_release::release_once(table, request("discrete_laplace", 0.5), 8);
  ASSERT_FALSE(projected.integer_output);
  EXPECT_EQ(projected.values, mechanism_release::values(independent));
}
