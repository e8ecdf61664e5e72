// discrete_laplace (mechanisms/discrete_laplace.cpp) through the release
// path: what the request may not ask of it (margins, delta, a sampler, a
// diagnosis), the law its metadata states (b = l1_sensitivity / epsilon,
// following the neighbour relation), integer cells whose noise is drawn
// apart from the counts, and no invariant claimed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

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

TEST(Release, IntegerMechanismsReturnIntegersPerCell) {
  const auto table = delinquents();
  auto rng = make_seeded_random_source(3);
  const auto result = run_release(table.keys(), table.counts.data(), validate_request(raw("discrete_laplace", 1)),
                                  *rng, Interrupts());
  ASSERT_TRUE(result.integer_output);
  ASSERT_EQ(result.integer_values.size(), 16u);
  bool any_noise = false;
  for (std::size_t i = 0; i < 16; ++i) any_noise = any_noise || result.integer_values[i] != table.counts[i];
  EXPECT_TRUE(any_noise);
}

TEST(DiscreteLaplace, RefusesMarginsDeltaSamplersAndDiagnosis) {
  EXPECT_EQ(refusal(raw("discrete_laplace", 1, {"county"})), "mechanism \"discrete_laplace\" does not keep invariants");
  EXPECT_EQ(refusal(raw("discrete_laplace", 1, {}, true, 1e-6)), "mechanism \"discrete_laplace\" does not use delta");
  RawRequest chain = raw("discrete_laplace", 1);
  chain.options = {{"sampler", "chain"}};
  EXPECT_TRUE(mechanism_release::names_others_taking(refusal(chain), "sampler", "discrete_laplace")) << refusal(chain);
  EXPECT_EQ(refusal(raw("discrete_laplace", 1)), "accepted");
  const auto table = delinquents();
  auto rng = make_seeded_random_source(1);
  try {
    run_diagnostics(table.keys(), request("discrete_laplace", 1), DiagnosticsSettings{}, *rng, Interrupts());
    FAIL() << "a mechanism drawn exactly has no chain to diagnose";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "mechanism \"discrete_laplace\" has no MCMC sampler to diagnose");
  }
}

// b = 2 / epsilon between databases that differ in one record (two cells
// move by one), 1 / epsilon when one is added or removed; the exact
// parameter is b as a fraction, the variance the discrete law's.
TEST(DiscreteLaplace, MetadataStatesTheExactLawAtItsScale) {
  const auto table = delinquents();
  for (const char* neighbours : {"replace_one", "add_remove"}) {
    const bool replace = std::string(neighbours) == "replace_one";
    const auto req = request("discrete_laplace", 0.5, {}, 0, {{"neighbours", neighbours}});
    const auto json = mechanism_release::metadata(mechanism_release::release_once(table, req, 2));
    EXPECT_EQ(text_at(json, {"mechanism"}), "discrete_laplace");
    EXPECT_EQ(text_at(json, {"output"}), "integer");
    EXPECT_EQ(text_at(json, {"family"}), "none");
    EXPECT_EQ(text_at(json, {"neighbours"}), neighbours);
    EXPECT_TRUE(json.find("delta")->is_null());
    EXPECT_TRUE(json.find("exact")->boolean("exact"));
    EXPECT_EQ(text_at(json, {"privacy"}).rfind("epsilon-differential privacy for databases that differ", 0), 0u);
    EXPECT_EQ(number_at(json, {"l1_sensitivity"}), replace ? 2 : 1);
    EXPECT_EQ(text_at(json, {"noise", "scale_parameter"}), "b");
    EXPECT_EQ(number_at(json, {"noise", "scale"}), replace ? 4 : 2);
    EXPECT_EQ(text_at(json, {"noise", "exact_parameter"}), replace ? "4/1" : "2/1");
    EXPECT_DOUBLE_EQ(number_at(json, {"noise", "unit_variance"}), calibrate_noise(req).unit_variance);
    EXPECT_EQ(text_at(json, {"invariants", "structure"}), "none");
    EXPECT_EQ(number_at(json, {"invariants", "rank"}), 0);
    EXPECT_EQ(number_at(json, {"invariants", "null_dimension"}), 16);
    EXPECT_FALSE(json.find("non_negative")->boolean("non_negative"));
    EXPECT_EQ(text_at(json, {"covariance"}), "unit_variance * I (independent cells)");
  }
}

// The same seed on other counts adds the same noise: y - x does not depend
// on x. Every cell's sd is the law's, when asked for.
TEST(DiscreteLaplace, NoiseIsDrawnApartFromTheCounts) {
  const auto table = grid({"k"}, {50}, std::vector<std::int64_t>(50, 0));
  auto other = table;
  for (std::size_t i = 0; i < other.counts.size(); ++i) other.counts[i] = std::int64_t(i * i * 1000);
  const auto req = request("discrete_laplace", 0.3, {}, 0, {{"stddev", "true"}});
  const auto a = mechanism_release::release_once(table, req, 9), b = mechanism_release::release_once(other, req, 9);
  EXPECT_EQ(mechanism_release::noise(a, table.counts), mechanism_release::noise(b, other.counts));
  ASSERT_EQ(a.noise_sd.size(), 50u);
  for (double sd : a.noise_sd) EXPECT_DOUBLE_EQ(sd, std::sqrt(calibrate_noise(req).unit_variance));
}
