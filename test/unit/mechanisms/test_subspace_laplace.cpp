// subspace_laplace (mechanisms/subspace_laplace.cpp) through the release
// path: what the request may not ask of it (delta, a sampler, a
// diagnosis), the law its metadata states (b = l1_sensitivity / epsilon,
// continuous Laplace projected onto the null space of the margins: the
// projection family, not the conditional law), and every crossing margin
// kept up to float8 round-off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
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

TEST(SubspaceLaplace, RefusesDeltaSamplersAndDiagnosis) { mechanism_release::expect_pure_epsilon_without_chain("subspace_laplace"); }

// b = 2 / epsilon, variance 2 b^2 before the projection; the projection
// family, so the privacy statement says the projection is not
// post-processing.
TEST(SubspaceLaplace, MetadataStatesTheProjectedLaplace) {
  const auto table = delinquents();
  const auto req = request("subspace_laplace", 0.5, {"county", "edu"});
  const auto json = mechanism_release::metadata(mechanism_release::release_once(table, req, 3));
  EXPECT_EQ(text_at(json, {"output"}), "real");
  EXPECT_EQ(text_at(json, {"family"}), "projection");
  EXPECT_TRUE(json.find("delta")->is_null());
  EXPECT_NE(text_at(json, {"privacy"}).find("not post-processing"), std::string::npos);
  EXPECT_EQ(text_at(json, {"noise", "scale_parameter"}), "b");
  EXPECT_EQ(number_at(json, {"noise", "scale"}), 4);
  EXPECT_TRUE(json.find_path({"noise", "exact_parameter"})->is_null());
  EXPECT_EQ(number_at(json, {"noise", "unit_variance"}), 32);
  EXPECT_EQ(number_at(json, {"invariants", "null_dimension"}), 9);
  EXPECT_EQ(text_at(json, {"covariance"}),
            "unit_variance * Pi_N (Pi_N: orthogonal projector onto the null space of the margins)");
}

// Two crossing two-way margins of a 3 x 4 x 5 table (general margins, the
// sparse projector): every group total kept to float8 round-off, the
// values themselves moved off the integers.
TEST(SubspaceLaplace, KeepsCrossingMarginsOfAThreeWayTable) {
  std::vector<std::int64_t> counts(60);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i * 37 % 101);
  const auto table = grid({"a", "b", "c"}, {3, 4, 5}, counts);
  const auto keys = table.keys();
  const auto req = request("subspace_laplace", 1, {"a,b", "b,c"});
  auto rng = make_seeded_random_source(4);
  for (int draw = 0; draw < 20; ++draw) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    ASSERT_FALSE(result.integer_output);
    mechanism_release::expect_margins_kept(keys, table.counts, req, result, 1e-9);
    int fractional = 0;
    for (double v : result.values) fractional += v != std::round(v);
    EXPECT_GT(fractional, 50);
  }
}
