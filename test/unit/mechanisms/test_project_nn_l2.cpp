// project_nn_l2 (mechanisms/project_nn_l2.cpp) through the release path:
// what the request may not ask of it (delta, a sampler, a diagnosis), what
// its metadata states (non-negative, so no covariance is published), and
// its values: the nearest non-negative table with the declared totals to
// project_l2's release under the same seed (the QP of
// projection/nonneg_projection.hpp), or without a margin that release
// clamped at zero; every margin kept and no cell negative on sparse tables.
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
#include "projection/linear_invariants.hpp"
#include "projection/nonneg_projection.hpp"
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

TEST(ProjectNnL2, RefusesDeltaSamplersAndDiagnosis) { mechanism_release::expect_pure_epsilon_without_chain("project_nn_l2"); }

TEST(ProjectNnL2, MetadataSaysItIsNonNegative) {
  const auto table = delinquents();
  const auto json =
      mechanism_release::metadata(mechanism_release::release_once(table, request("project_nn_l2", 0.5, {"county"}), 3));
  EXPECT_EQ(text_at(json, {"output"}), "real");
  EXPECT_EQ(text_at(json, {"family"}), "projection");
  EXPECT_TRUE(json.find("non_negative")->boolean("non_negative"));
  EXPECT_NE(text_at(json, {"noise", "law"}).find("onto the invariants with every cell non-negative"), std::string::npos);
  EXPECT_EQ(text_at(json, {"covariance"}).rfind("not published: non-negativity", 0), 0u);
}

// The same seed draws the same noise as project_l2: with margins the
// release is the QP's answer from project_l2's table, without them that
// table clamped at zero.
TEST(ProjectNnL2, IsTheNearestNonNegativeTableToProjectL2s) {
  std::mt19937_64 g(21);
  const auto table = grid({"a", "b"}, {4, 6}, random_counts(24, g, 1.5));
  const auto keys = table.keys();
  for (const std::vector<std::string>& margins :
       {std::vector<std::string>{"a", "b"}, std::vector<std::string>{"a"}, std::vector<std::string>{}}) {
    const auto real = mechanism_release::release_once(table, request("project_l2", 0.3, margins), 5);
    const auto nn = mechanism_release::release_once(table, request("project_nn_l2", 0.3, margins), 5);
    ASSERT_FALSE(nn.integer_output);
    std::vector<double> want = real.values;
    if (margins.empty()) {
      for (double& v : want) v = std::max(v, 0.0);
    } else {
      const InvariantModel model(keys, margins_by_index(keys, request("project_l2", 0.3, margins)), Interrupts());
      want = project_nonnegative(linear_invariants(model, table.counts.data()), real.values, Interrupts()).y;
    }
    ASSERT_EQ(nn.values.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(nn.values[i], want[i], 1e-9) << i;
  }
}

TEST(ProjectNnL2, KeepsMarginsAndNonNegativityOnSparseTables) {
  std::mt19937_64 g(22);
  auto rng = make_seeded_random_source(6);
  for (int trial = 0; trial < 20; ++trial) {
    const int rows = 2 + trial % 4, cols = 3 + trial % 3;
    const auto table = grid({"a", "b"}, {rows, cols}, random_counts(rows * cols, g, 0.7));
    const auto keys = table.keys();
    const auto req = request("project_nn_l2", 0.5, trial % 2 ? std::vector<std::string>{"a"}
                                                             : std::vector<std::string>{"a", "b"});
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    for (double v : result.values) EXPECT_GE(v, 0.0) << "trial " << trial;
    mechanism_release::expect_margins_kept(keys, table.counts, req, result, 1e-6);
  }
}
