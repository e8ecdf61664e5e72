// DP-SIPS partition selection (src/core/mechanisms/dp_sips.hpp): the exact
// integer weights, the calibration of its rounds against the derivation's
// formulas, its place beside "gaussian" and in "auto", its option and
// refusals, and the unit cell lists contribution bounding gives it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibration/zcdp.hpp"
#include "errors.hpp"
#include "mechanisms/dp_sips.hpp"
#include "mechanisms/partition_selection.hpp"
#include "random_source.hpp"
#include "request/release_request.hpp"

namespace invariant_dp {
namespace {

// w_m is the largest integer with m w^2 <= S^2.
TEST(DpSips, WeightsAreTheLargestIntegersOfSquaredNormAtMostTheScale) {
  const std::int64_t s2 = kDpSipsWeightScale * kDpSipsWeightScale;
  EXPECT_EQ(dp_sips_weight(1), kDpSipsWeightScale);
  EXPECT_EQ(dp_sips_weight(2), 2896);  // 4096 / sqrt 2 = 2896.3
  EXPECT_EQ(dp_sips_weight(3), 2364);  // 4096 / sqrt 3 = 2364.8
  for (std::int64_t m = 1; m <= 5000; ++m) {
    const std::int64_t w = dp_sips_weight(m);
    EXPECT_LE(m * w * w, s2) << m;
    EXPECT_GT(m * (w + 1) * (w + 1), s2) << m;
  }
  EXPECT_THROW(dp_sips_weight(0), Error);
}

// sigma_i^2 = sigma^2 (2^T - 1) / 2^(i-1) rounded up, sigma^2 the lattice
// Gaussian's at (epsilon, delta / 2) for squared shift S^2 (2 S^2 under
// replace_one); tau_i = ceil(sigma_i sqrt(2 ln(2 (1 + e^epsilon) G T / delta))).
TEST(DpSips, RoundsFollowTheDerivation) {
  for (bool replace_one : {false, true})
    for (int rounds : {1, 2, 3}) {
      const double epsilon = 0.5, delta = 1e-6;
      const std::int64_t groups = 3;
      const DpSipsLaw law = calibrate_dp_sips(epsilon, delta, groups, replace_one, rounds);
      const double shift = (replace_one ? 2.0 : 1.0) * 4096.0 * 4096.0;
      EXPECT_DOUBLE_EQ(law.squared_shift, shift);
      const double sigma2 = lattice_gaussian_sigma2(epsilon, delta / 2, shift).to_double();
      ASSERT_EQ(law.rounds.size(), std::size_t(rounds));
      double rho = 0;
      for (int i = 0; i < rounds; ++i) {
        const double expected = sigma2 * (std::pow(2.0, rounds) - 1) / std::pow(2.0, i);
        const double got = law.rounds[std::size_t(i)].sigma2.to_double();
        EXPECT_GE(got, expected * (1 - 1e-15));
        EXPECT_LT(got, expected * (1 + 1e-9));
        rho += shift / (2 * got);
        const double tau = std::ceil(std::sqrt(got) *
                                     std::sqrt(2 * std::log(2 * (1 + std::exp(epsilon)) * 3.0 * rounds / delta)));
        EXPECT_EQ(law.rounds[std::size_t(i)].threshold, std::int64_t(tau));
        // The lone cells' term: G T e^(-tau^2 / (2 sigma^2)) within delta / (2 (1 + e^epsilon)).
        EXPECT_LE(double(groups) * rounds * std::exp(-tau * tau / (2 * got)), delta / (2 * (1 + std::exp(epsilon))));
      }
      // The rounds spend no more than the one rho that converts to (epsilon, delta / 2).
      EXPECT_LE(rho, shift / (2 * sigma2) * (1 + 1e-12));
      EXPECT_LE(zcdp_delta(epsilon, rho), delta / 2);
    }
  EXPECT_THROW(calibrate_dp_sips(1, 1e-6, 3, false, 0), Error);
  EXPECT_THROW(calibrate_dp_sips(1, 1e-6, 3, false, kDpSipsMaxRounds + 1), Error);
}

// One round: a cell whose units all hold G cells is held to gaussian's law
// (scaled by S / sqrt(G), up to the rounding of w_G): the counts of units
// at half chance agree within a unit; a unit of fewer cells weighs more.
TEST(DpSips, OneRoundMatchesGaussianForUnitsOfGCellsAndBeatsItForFewer) {
  for (int groups : {1, 3, 10, 200}) {
    const SelectionLaw gaussian = calibrate_selection(SelectionMethod::Gaussian, 0.5, 1e-6, groups, false);
    const SelectionLaw sips = calibrate_selection(SelectionMethod::DpSips, 0.5, 1e-6, groups, false);
    EXPECT_LE(std::abs(units_at_half(sips) - units_at_half(gaussian)), 1) << groups;
    if (groups > 1) {
      EXPECT_GT(dp_sips_weight(1), dp_sips_weight(groups));
    }
  }
}

// A cell no unit holds is never shown, whatever the noise; a cell far above
// every threshold always is.
TEST(DpSips, AbsentCellsAreNeverShownAndHeavyOnesAlways) {
  const DpSipsLaw law = calibrate_dp_sips(1.0, 1e-6, 1, false, 2);
  std::vector<std::int64_t> units(2000, 0);
  for (std::size_t i = 1000; i < units.size(); ++i) units[i] = 100000;
  auto rng = make_seeded_random_source(3);
  const std::vector<bool> shown = dp_sips_select(units.data(), units.size(), nullptr, law, *rng, Interrupts());
  for (std::size_t i = 0; i < units.size(); ++i) EXPECT_EQ(shown[i], units[i] > 0) << i;
}

// A cell shown in an earlier round gives its units' weight to their other
// cells: cell 0 (3 units) is shown in round 1; cells 1 and 2 (one unit of
// two cells each) pass round 2 only with their unit's whole weight w_1 = S,
// not the w_2 it gave them in round 1.
TEST(DpSips, LaterRoundsWeighOnlyCellsNotShownBefore) {
  DpSipsLaw law;
  law.groups = 2;
  law.squared_shift = 4096.0 * 4096.0;
  // Noise of variance 1/4 (P(N <= -2) < 3e-4) and thresholds: round 1 at
  // 3 w_2 - 1 (cell 0 weighs 2 w_2 + w_1), round 2 at w_1 - 1 (> w_2).
  law.rounds = {{Rational{1, 4}, 3 * 2896 - 1}, {Rational{1, 4}, 4096 - 1}};
  KeptCells cells;  // unit 0 holds {0, 1}, unit 1 {0, 2}, unit 2 {0}
  cells.start = {0, 2, 4, 5};
  cells.cells = {0, 1, 0, 2, 0};
  const std::vector<std::int64_t> units = {3, 1, 1};
  auto rng = make_seeded_random_source(4);
  int all = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<bool> shown = dp_sips_select(units.data(), 3, &cells, law, *rng, Interrupts());
    all += shown[0] && shown[1] && shown[2] ? 1 : 0;
  }
  EXPECT_GE(all, 195);  // a miss needs N <= -2 in round 2 (< 1e-3 a trial)
}

RawRequest unit_request(const std::string& selection, const std::string& groups, const char* neighbours) {
  RawRequest raw;
  raw.mechanism = "discrete_laplace";
  raw.epsilon = 1.0;
  raw.has_delta = true;
  raw.delta = 1e-6;
  raw.options = {{"partition_selection", selection}, {"neighbours", neighbours}};
  raw.has_privacy_unit = true;
  raw.privacy_unit = "person";
  raw.has_bounds = true;
  raw.bounds = {{"max_groups_per_unit", groups}, {"max_rows_per_group", "1"}};
  return raw;
}

// The option: a name or an object with "rounds"; "rounds" refused with any
// other method or out of range.
TEST(DpSips, ParsesTheMethodAndItsRounds) {
  EXPECT_EQ(parse_partition_selection("dp_sips").method, SelectionMethod::DpSips);
  EXPECT_EQ(parse_partition_selection("dp_sips").rounds, 1);
  const SelectionRequest three = parse_partition_selection("{\"method\": \"dp_sips\", \"rounds\": 3}");
  EXPECT_EQ(three.rounds, 3);
  for (const char* bad : {"{\"method\": \"dp_sips\", \"rounds\": 0}", "{\"method\": \"dp_sips\", \"rounds\": 1.5}",
                          "{\"method\": \"dp_sips\", \"rounds\": 9}", "{\"method\": \"dp_sips\", \"rounds\": \"2\"}",
                          "{\"method\": \"gaussian\", \"rounds\": 2}", "{\"rounds\": 2}"})
    EXPECT_THROW(parse_partition_selection(bad), InvalidArgument) << bad;
}

// Through the request: the split (selection at s epsilon and all of delta
// with discrete_laplace counts), the rounds asked for, and the metadata
// stating the method, the rounds and what they were charged.
TEST(DpSips, TheRequestSplitsTheBudgetAndTheMetadataStatesTheLaw) {
  for (const char* neighbours : {"add_remove", "replace_one"}) {
    const ReleaseRequest request =
        validate_request(unit_request("{\"method\": \"dp_sips\", \"rounds\": 2, \"budget_share\": 0.4}", "3",
                                      neighbours));
    const SelectionLaw& law = request.selection;
    ASSERT_EQ(law.method, SelectionMethod::DpSips);
    EXPECT_DOUBLE_EQ(law.epsilon, 0.4);
    EXPECT_DOUBLE_EQ(law.delta, 1e-6);
    EXPECT_NEAR(request.epsilon, 0.6, 1e-15);
    EXPECT_NEAR(request.total_epsilon(), 1.0, 1e-15);
    EXPECT_DOUBLE_EQ(request.total_delta(), 1e-6);
    ASSERT_EQ(law.sips.rounds.size(), 2u);
    const bool replace_one = std::string(neighbours) == "replace_one";
    EXPECT_DOUBLE_EQ(law.sips.squared_shift, (replace_one ? 2 : 1) * 4096.0 * 4096.0);
    const std::string json = selection_json(law);
    EXPECT_NE(json.find("\"method\": \"dp_sips\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"rounds\": 2"), std::string::npos) << json;
    EXPECT_NE(json.find("\"epsilon\": 0.4"), std::string::npos) << json;
    EXPECT_NE(json.find("\"threshold\": [" + std::to_string(law.sips.rounds[0].threshold) + ", "), std::string::npos)
        << json;
    EXPECT_EQ(json.find("chosen_by"), std::string::npos) << json;
  }
}

// auto: truncated_geometric where it needs fewer units at half chance
// (the benchmark's G = 3 among them), dp_sips where units reach many cells.
TEST(DpSips, AutoTakesDpSipsWhereUnitsReachManyCells) {
  for (const char* groups : {"1", "3"}) {
    const ReleaseRequest few = validate_request(unit_request("auto", groups, "add_remove"));
    EXPECT_EQ(few.selection.method, SelectionMethod::TruncatedGeometric) << groups;
  }
  const ReleaseRequest many = validate_request(unit_request("auto", "200", "add_remove"));
  ASSERT_EQ(many.selection.method, SelectionMethod::DpSips);
  EXPECT_TRUE(many.selection.chosen_automatically);
  EXPECT_EQ(many.selection.sips.rounds.size(), 1u);
  EXPECT_LT(units_at_half(many.selection),
            units_at_half(validate_request(unit_request("truncated_geometric", "200", "add_remove")).selection));
  EXPECT_NE(selection_json(many.selection).find("\"chosen_by\": \"auto\""), std::string::npos);
}

// Refused as for every split selector: a share that leaves nothing, a
// budget too small to calibrate.
TEST(DpSips, RefusesWhatEverySplitSelectorRefuses) {
  EXPECT_THROW(validate_request(unit_request("{\"method\": \"dp_sips\", \"budget_share\": 1}", "3", "add_remove")),
               InvalidArgument);
  RawRequest tiny = unit_request("dp_sips", "3", "add_remove");
  tiny.epsilon = 1e-300;
  tiny.delta = 1e-300;
  EXPECT_THROW(validate_request(tiny), OutOfRange);
}

}  // namespace
}  // namespace invariant_dp
