// discrete_gaussian (mechanisms/discrete_gaussian.cpp) through the release
// path: what the request may not ask of it (no delta, margins, a sampler, a
// diagnosis), the law its metadata states (sigma^2 certified for the cells
// one record moves, or by the zCDP route for a privacy unit's bounds),
// integer cells whose noise is drawn apart from the counts, and no
// invariant claimed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibration/discrete_gaussian_privacy.hpp"
#include "calibration/zcdp.hpp"
#include "errors.hpp"
#include "mechanism_release.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::number_at;
using invariant_dp::mechanism_release::raw;
using invariant_dp::mechanism_release::refusal;
using invariant_dp::mechanism_release::request;
using invariant_dp::mechanism_release::text_at;
using invariant_dp::test_tables::delinquents;
using invariant_dp::test_tables::grid;

namespace {

std::string fraction(const Rational& r) { return std::to_string(r.num) + "/" + std::to_string(r.den); }

}  // namespace

TEST(DiscreteGaussian, RefusesMissingDeltaMarginsSamplersAndDiagnosis) {
  EXPECT_EQ(refusal(raw("discrete_gaussian", 1)), "mechanism \"discrete_gaussian\" requires delta");
  EXPECT_EQ(refusal(raw("discrete_gaussian", 1, {}, true, 1)), "delta must be in the open interval (0, 1)");
  EXPECT_EQ(refusal(raw("discrete_gaussian", 1, {"edu"}, true, 1e-6)),
            "mechanism \"discrete_gaussian\" does not keep invariants");
  RawRequest chain = raw("discrete_gaussian", 1, {}, true, 1e-6);
  chain.options = {{"sampler", "chain"}};
  EXPECT_TRUE(mechanism_release::names_others_taking(refusal(chain), "sampler", "discrete_gaussian")) << refusal(chain);
  EXPECT_EQ(refusal(raw("discrete_gaussian", 1, {}, true, 1e-6)), "accepted");
  const auto table = delinquents();
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(run_diagnostics(table.keys(), request("discrete_gaussian", 1, {}, 1e-6), DiagnosticsSettings{}, *rng,
                               Interrupts()),
               InvalidArgument);
}

// sigma^2 is the smallest certified for two moved cells (replace_one) or
// one (add_remove), published as the exact fraction the sampler draws at.
TEST(DiscreteGaussian, MetadataStatesTheExactLawAtItsSigma) {
  const auto table = delinquents();
  for (const char* neighbours : {"replace_one", "add_remove"}) {
    const Rational sigma2 = discrete_gaussian_sigma2(1, 1e-6, std::string(neighbours) == "replace_one" ? 2 : 1);
    const auto req = request("discrete_gaussian", 1, {}, 1e-6, {{"neighbours", neighbours}});
    const auto json = mechanism_release::metadata(mechanism_release::release_once(table, req, 2));
    EXPECT_EQ(text_at(json, {"mechanism"}), "discrete_gaussian");
    EXPECT_EQ(text_at(json, {"output"}), "integer");
    EXPECT_EQ(text_at(json, {"family"}), "none");
    EXPECT_EQ(number_at(json, {"delta"}), 1e-6);
    EXPECT_EQ(text_at(json, {"privacy"}).rfind("(epsilon, delta)-differential privacy for databases that differ", 0),
              0u);
    EXPECT_EQ(text_at(json, {"noise", "scale_parameter"}), "sigma");
    EXPECT_EQ(text_at(json, {"noise", "exact_parameter"}), fraction(sigma2));
    EXPECT_DOUBLE_EQ(number_at(json, {"noise", "scale"}), std::sqrt(sigma2.to_double()));
    EXPECT_DOUBLE_EQ(number_at(json, {"noise", "unit_variance"}), discrete_gaussian_variance(sigma2));
    EXPECT_NE(text_at(json, {"noise", "calibration"}).find("certified delta(epsilon)"), std::string::npos);
    EXPECT_EQ(text_at(json, {"invariants", "structure"}), "none");
    EXPECT_EQ(text_at(json, {"covariance"}), "unit_variance * I (independent cells)");
  }
}

// A privacy unit of at most 3 cells and 2 rows in each moves the counts by
// l2 norm sqrt(2 * 3) * 2: sigma^2 by the zCDP route for that shift.
TEST(DiscreteGaussian, APrivacyUnitsBoundsCalibrateByZcdp) {
  RawRequest r = raw("discrete_gaussian", 1, {}, true, 1e-6);
  r.has_privacy_unit = true;
  r.privacy_unit = "person";
  r.has_bounds = true;
  r.bounds = {{"max_groups_per_unit", "3"}, {"max_rows_per_group", "2"}};
  const NoiseLaw law = calibrate_noise(validate_request(r));
  EXPECT_DOUBLE_EQ(law.l2_sensitivity, std::sqrt(6.0) * 2);
  EXPECT_EQ(fraction(law.exact_parameter), fraction(lattice_gaussian_sigma2(1, 1e-6, 24)));
  EXPECT_NE(law.calibration.find("zCDP"), std::string::npos);
}

// The same seed on other counts adds the same noise: y - x does not depend
// on x. Every cell's sd is the law's, when asked for.
TEST(DiscreteGaussian, NoiseIsDrawnApartFromTheCounts) {
  const auto table = grid({"k"}, {50}, std::vector<std::int64_t>(50, 0));
  auto other = table;
  for (std::size_t i = 0; i < other.counts.size(); ++i) other.counts[i] = std::int64_t(i * i * 1000);
  const auto req = request("discrete_gaussian", 0.3, {}, 1e-9, {{"stddev", "true"}});
  const auto a = mechanism_release::release_once(table, req, 9), b = mechanism_release::release_once(other, req, 9);
  EXPECT_EQ(mechanism_release::noise(a, table.counts), mechanism_release::noise(b, other.counts));
  ASSERT_EQ(a.noise_sd.size(), 50u);
  for (double sd : a.noise_sd) EXPECT_DOUBLE_EQ(sd, std::sqrt(calibrate_noise(req).unit_variance));
}
