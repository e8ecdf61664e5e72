// project_nn_integer (mechanisms/project_nn_integer.cpp) through the
// release path: what the request may not ask of it (delta, a sampler, a
// diagnosis), what its metadata states (integer, non-negative, rounded),
// integers that keep every margin exactly and are never negative, each
// within one of project_nn_l2's real table under the same seed (the
// controlled rounding of projection/controlled_rounding.hpp).
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

TEST(ProjectNnInteger, IntegerNonNegativeAndExactOnRandomTables) {
  std::mt19937_64 g(13);
  auto rng = make_seeded_random_source(4);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = 2 + trial % 5, cols = 2 + (trial / 5) % 6;
    const double mean = trial % 2 ? 0.7 : 8;  // sparse tables make non-negativity bind
    const auto table = grid({"a", "b"}, {rows, cols}, random_counts(rows * cols, g, mean));
    std::vector<std::string> margins = trial % 3 == 0 ? std::vector<std::string>{"a"}
                                       : trial % 3 == 1 ? std::vector<std::string>{"a", "b"}
                                                        : std::vector<std::string>{"", "b"};
    if (rows * cols <= 4 && margins.size() == 2) margins = {"a"};
    const auto keys = table.keys();
    ReleaseResult result;
    try {
      result = run_release(keys, table.counts.data(), request("project_nn_integer", 1.0, margins), *rng, Interrupts());
    } catch (const Error& e) {
      FAIL() << "trial " << trial << ": " << e.what() << " " << e.detail();
    }
    ASSERT_TRUE(result.integer_output);
    std::vector<Margin> m;
    for (const auto& name : margins)
      m.push_back(name.empty() ? Margin{} : Margin{{keys.column_index(name)}});
    const InvariantModel model(keys, m, Interrupts());
    std::vector<double> x(table.counts.begin(), table.counts.end()), y(result.integer_values.begin(), result.integer_values.end());
    std::vector<double> want(model.n_margin_groups()), got(model.n_margin_groups());
    model.margin_totals(x.data(), want.data());
    model.margin_totals(y.data(), got.data());
    EXPECT_EQ(got, want) << "trial " << trial;
    for (auto v : result.integer_values) EXPECT_GE(v, 0);
  }
}

TEST(ProjectNnInteger, RefusesDeltaSamplersAndDiagnosis) { mechanism_release::expect_pure_epsilon_without_chain("project_nn_integer"); }

TEST(ProjectNnInteger, MetadataSaysIntegerNonNegativeAndRounded) {
  const auto table = delinquents();
  const auto json = mechanism_release::metadata(
      mechanism_release::release_once(table, request("project_nn_integer", 0.5, {"county"}), 3));
  EXPECT_EQ(text_at(json, {"output"}), "integer");
  EXPECT_EQ(text_at(json, {"family"}), "projection");
  EXPECT_TRUE(json.find("non_negative")->boolean("non_negative"));
  EXPECT_NE(text_at(json, {"noise", "law"}).find("then controlled rounding to the nearest (l1) integer table"),
            std::string::npos);
  EXPECT_EQ(text_at(json, {"covariance"}).rfind("not published: non-negativity", 0), 0u);
}

// The same seed draws the same noise as project_nn_l2: each integer is that
// real value rounded up or down.
TEST(ProjectNnInteger, RoundsProjectNnL2sTable) {
  std::mt19937_64 g(23);
  const auto table = grid({"a", "b"}, {5, 4}, random_counts(20, g, 2));
  for (const std::vector<std::string>& margins :
       {std::vector<std::string>{"a", "b"}, std::vector<std::string>{"b"}, std::vector<std::string>{}}) {
    const auto real = mechanism_release::release_once(table, request("project_nn_l2", 0.4, margins), 9);
    const auto rounded = mechanism_release::release_once(table, request("project_nn_integer", 0.4, margins), 9);
    ASSERT_TRUE(rounded.integer_output);
    ASSERT_EQ(rounded.integer_values.size(), real.values.size());
    for (std::size_t i = 0; i < real.values.size(); ++i) {
      EXPECT_LE(double(rounded.integer_values[i]), std::ceil(real.values[i] - 1e-9) + 1e-9) << i;
      EXPECT_GE(double(rounded.integer_values[i]), std::floor(real.values[i] + 1e-9) - 1e-9) << i;
    }
  }
}
