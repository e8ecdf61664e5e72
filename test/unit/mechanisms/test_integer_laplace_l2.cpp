// integer_laplace_l2 (mechanisms/integer_laplace_l2.cpp) through the release
// path: what the request may not ask of it (delta, a sampler), the law its
// metadata states (b = |v|_2 / epsilon for the shortest protected move v)
// and that a chain drew it, its guarantee not certified, integers that
// keep every declared margin exactly (complete tables: the scale-mixture
// Gibbs sampler; a partition: the basis chain), and a diagnosis of its
// chain.
#include <gtest/gtest.h>

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
using invariant_dp::test_tables::grid;

namespace {

test_tables::TestTable three_by_four() {
  return grid({"r", "c"}, {3, 4}, {5, 0, 12, 7, 3, 40, 1, 1, 0, 9, 22, 6});
}

}  // namespace

TEST(IntegerLaplaceL2, RefusesDeltaAndSamplers) {
  EXPECT_EQ(refusal(raw("integer_laplace_l2", 1, {"r"}, true, 1e-6)),
            "mechanism \"integer_laplace_l2\" does not use delta");
  RawRequest r = raw("integer_laplace_l2", 1, {"r", "c"});
  r.options = {{"sampler", "chain"}};
  EXPECT_TRUE(mechanism_release::names_others_taking(refusal(r), "sampler", "integer_laplace_l2")) << refusal(r);
  r.options = {{"iterations", "0"}};
  EXPECT_EQ(refusal(r), "option \"iterations\" must be a whole number from 1 to 1e10");
  r.options = {{"iterations", "30"}};
  EXPECT_EQ(refusal(r), "accepted");
}

// Both margins of a 3 x 4 table: the shortest protected move is a 2 x 2
// swap, |v|_2 = 2, so b = 2 / epsilon; the chain's 20 default iterations,
// and the first fields say the guarantee is not certified.
TEST(IntegerLaplaceL2, MetadataStatesTheLawAndThatAChainDrewIt) {
  const auto table = three_by_four();
  const auto req = request("integer_laplace_l2", 0.5, {"r", "c"});
  const auto json = mechanism_release::metadata(mechanism_release::release_once(table, req, 5));
  EXPECT_EQ(text_at(json, {"output"}), "integer");
  EXPECT_EQ(text_at(json, {"family"}), "conditioning");
  EXPECT_FALSE(json.find("exact")->boolean("exact"));
  EXPECT_EQ(text_at(json, {"delta"}).rfind("TV", 0), 0u);
  EXPECT_EQ(text_at(json, {"privacy"}).rfind("(epsilon, TV)-differential privacy, TV not certified", 0), 0u);
  EXPECT_EQ(text_at(json, {"noise", "scale_parameter"}), "b");
  EXPECT_EQ(number_at(json, {"noise", "scale"}), 4);
  EXPECT_NE(text_at(json, {"noise", "law"}).find("exp(-|z|_2/b)"), std::string::npos);
  EXPECT_TRUE(json.find_path({"noise", "covariance_scale"})->is_array());
  EXPECT_EQ(text_at(json, {"sampler", "method"}).rfind("mcmc: Gibbs sampler on the Gaussian scale mixture", 0), 0u);
  EXPECT_EQ(number_at(json, {"sampler", "iterations"}), 20);
  EXPECT_EQ(text_at(json, {"sampler", "stddev"}).rfind("Monte Carlo estimate from the same chain", 0), 0u);
  EXPECT_EQ(text_at(json, {"invariants", "structure"}), "two_way");
}

TEST(IntegerLaplaceL2, KeepsEveryMarginAsIntegers) {
  const auto table = three_by_four();
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(6);
  for (const std::vector<std::string>& margins :
       {std::vector<std::string>{"r", "c"}, std::vector<std::string>{"r"}, std::vector<std::string>{"", "c"}}) {
    const auto req = request("integer_laplace_l2", 1, margins, 0, {{"iterations", "200"}});
    for (int draw = 0; draw < 5; ++draw) {
      const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
      ASSERT_TRUE(result.integer_output);
      mechanism_release::expect_margins_kept(keys, table.counts, req, result, 0);
    }
  }
}

// It has a chain, so dp.diagnose runs it (the exact mechanisms refuse).
TEST(IntegerLaplaceL2, DiagnosisRunsItsChain) {
  const auto table = three_by_four();
  auto rng = make_seeded_random_source(7);
  DiagnosticsSettings settings;
  settings.coupled_pairs = 4;
  const auto records = run_diagnostics(table.keys(), request("integer_laplace_l2", 1, {"r"}, 0, {{"iterations", "200"}}),
                                       settings, *rng, Interrupts());
  EXPECT_FALSE(records.empty());
}
