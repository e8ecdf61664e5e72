// subspace_gaussian (mechanisms/subspace_gaussian.cpp) through the release
// path: what the request may not ask of it (no delta, add_remove with
// margins, a sampler, a diagnosis), the law its metadata states (the
// analytic Gaussian's sigma, projected onto the null space of the
// margins), the per-cell sd sigma sqrt((Pi_N)_ii), and every crossing
// margin kept up to float8 round-off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibration/analytic_gaussian.hpp"
#include "errors.hpp"
#include "mechanism_release.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "request/release_request.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::number_at;
using invariant_dp::mechanism_release::raw;
using invariant_dp::mechanism_release::refusal;
using invariant_dp::mechanism_release::request;
using invariant_dp::mechanism_release::text_at;
using invariant_dp::test_tables::delinquents;
using invariant_dp::test_tables::grid;

// The per-cell sds, asked for with {"stddev": true} (without it the release
// publishes none, and the loop below would check nothing).
TEST(Release, NoiseSdIsSigmaTimesSqrtOfProjectorDiagonal) {
  const auto table = delinquents();
  auto rng = make_seeded_random_source(1);
  RawRequest raw_request = raw("subspace_gaussian", 0.5, {"county", "edu"}, true, 1e-6);
  raw_request.options = {{"stddev", "true"}};
  const auto request = validate_request(raw_request);
  const auto result = run_release(table.keys(), table.counts.data(), request, *rng, Interrupts());
  const double sigma = calibrate_noise(request).scale;
  ASSERT_EQ(result.noise_sd.size(), 16u);
  for (double sd : result.noise_sd) EXPECT_NEAR(sd, sigma * 0.75, 1e-12);  // (1-1/4)(1-1/4) = 9/16
}

TEST(SubspaceGaussian, RefusesMissingDeltaAddRemoveMarginsSamplersAndDiagnosis) {
  EXPECT_EQ(refusal(raw("subspace_gaussian", 1, {"county"})), "mechanism \"subspace_gaussian\" requires delta");
  EXPECT_EQ(refusal(raw("subspace_gaussian", 1, {}, true, 0)), "delta must be in the open interval (0, 1)");
  RawRequest r = raw("subspace_gaussian", 1, {"county"}, true, 1e-6);
  r.options = {{"neighbours", "add_remove"}};
  EXPECT_EQ(refusal(r), "exact margins need replace_one neighbours");
  r.options = {{"sampler", "mis"}};
  EXPECT_TRUE(mechanism_release::names_others_taking(refusal(r), "sampler", "subspace_gaussian")) << refusal(r);
  EXPECT_EQ(refusal(raw("subspace_gaussian", 1, {"county"}, true, 1e-6)), "accepted");
  const auto table = delinquents();
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(run_diagnostics(table.keys(), request("subspace_gaussian", 1, {"county"}, 1e-6), DiagnosticsSettings{},
                               *rng, Interrupts()),
               InvalidArgument);
}

// sigma is the analytic Gaussian mechanism's for l2 sensitivity sqrt 2;
// real values, of the conditioning family (for spherical Gaussian noise
// the projection is the conditional law), with the covariance
// unit_variance * Pi_N.
TEST(SubspaceGaussian, MetadataStatesTheProjectedGaussian) {
  const auto table = delinquents();
  const auto req = request("subspace_gaussian", 0.5, {"county", "edu"}, 1e-6);
  const auto json = mechanism_release::metadata(mechanism_release::release_once(table, req, 3));
  const double sigma = analytic_gaussian_sigma(0.5, 1e-6, std::sqrt(2.0));
  EXPECT_EQ(text_at(json, {"output"}), "real");
  EXPECT_EQ(text_at(json, {"family"}), "conditioning");
  EXPECT_TRUE(json.find("exact")->boolean("exact"));
  EXPECT_NE(text_at(json, {"privacy"}).find("induced subspace DP"), std::string::npos);
  EXPECT_DOUBLE_EQ(number_at(json, {"l2_sensitivity"}), std::sqrt(2.0));
  EXPECT_EQ(text_at(json, {"noise", "scale_parameter"}), "sigma");
  EXPECT_DOUBLE_EQ(number_at(json, {"noise", "scale"}), sigma);
  EXPECT_TRUE(json.find_path({"noise", "exact_parameter"})->is_null());
  EXPECT_DOUBLE_EQ(number_at(json, {"noise", "unit_variance"}), sigma * sigma);
  EXPECT_FALSE(json.find("non_negative")->boolean("non_negative"));
  EXPECT_EQ(text_at(json, {"covariance"}),
            "unit_variance * Pi_N (Pi_N: orthogonal projector onto the null space of the margins)");
}

// Two crossing two-way margins of a 3 x 4 x 5 table (general margins, the
// sparse projector): every group total kept to float8 round-off, the
// values themselves moved off the integers.
TEST(SubspaceGaussian, KeepsCrossingMarginsOfAThreeWayTable) {
  std::vector<std::int64_t> counts(60);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i * 37 % 101);
  const auto table = grid({"a", "b", "c"}, {3, 4, 5}, counts);
  const auto keys = table.keys();
  const auto req = request("subspace_gaussian", 1, {"a,b", "b,c"}, 1e-6);
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
