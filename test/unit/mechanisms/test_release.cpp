// The release layer (mechanisms/release.hpp): calibration choices,
// invariants kept, metadata, the checks of the counts, domain handling and
// cancellation, for every mechanism alike (each mechanism's own tests are
// in its file, test_<mechanism>.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "errors.hpp"
#include "mechanisms/cell_domain.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "mechanisms/release.hpp"
#include "samplers/continuous.hpp"
#include "invariants/invariant_model.hpp"
#include "mechanism_release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"
#include "release/cell_counts.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::raw;
using invariant_dp::test_tables::delinquents;
using invariant_dp::test_tables::grid;

namespace {

double margin_sum(const std::vector<double>& values, int row, bool by_row) {
  double total = 0;
  for (int j = 0; j < 4; ++j) total += by_row ? values[row * 4 + j] : values[j * 4 + row];
  return total;
}

}  // namespace

TEST(NoiseCalibration, SensitivitiesFollowNeighbours) {
  auto request = validate_request(raw("discrete_laplace", 0.5));
  NoiseLaw law = calibrate_noise(request);
  EXPECT_EQ(law.l1_sensitivity, 2);
  EXPECT_DOUBLE_EQ(law.scale, 4.0);  // b = 2 / 0.5 exactly representable
  EXPECT_EQ(law.exact_parameter.num, 4u);
  EXPECT_EQ(law.exact_parameter.den, 1u);
  RawRequest r = raw("discrete_laplace", 0.5);
  r.options = {{"neighbours", "add_remove"}};
  law = calibrate_noise(validate_request(r));
  EXPECT_DOUBLE_EQ(law.scale, 2.0);
  // Analytic Gaussian, l2 = sqrt 2: sigma / sqrt 2 = 3.7306 at (1, 1e-5)
  // (the mpmath reference table of test_calibration.cpp).
  law = calibrate_noise(validate_request(raw("subspace_gaussian", 1, {}, true, 1e-5)));
  EXPECT_NEAR(law.scale / std::sqrt(2.0), 3.7306, 1e-4);
  EXPECT_DOUBLE_EQ(law.unit_variance, law.scale * law.scale);
  law = calibrate_noise(validate_request(raw("subspace_laplace", 0.192)));
  EXPECT_DOUBLE_EQ(law.scale, 2 / 0.192);
  EXPECT_DOUBLE_EQ(law.unit_variance, 2 * law.scale * law.scale);
}

TEST(Release, SubspaceKeepsBothMarginsOfTheDelinquentTable) {
  const auto table = delinquents();
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(7);
  for (const char* mechanism : {"subspace_gaussian", "subspace_laplace"}) {
    const bool gaussian = std::string(mechanism) == "subspace_gaussian";
    const auto request = validate_request(raw(mechanism, 0.25, {"county", "edu"}, gaussian, 1e-6));
    for (int draw = 0; draw < 50; ++draw) {
      const auto result = run_release(keys, table.counts.data(), request, *rng, Interrupts());
      ASSERT_FALSE(result.integer_output);
      ASSERT_EQ(result.values.size(), 16u);
      std::vector<double> truth(table.counts.begin(), table.counts.end());
      for (int k = 0; k < 4; ++k) {
        EXPECT_NEAR(margin_sum(result.values, k, true), margin_sum(truth, k, true), 1e-9);
        EXPECT_NEAR(margin_sum(result.values, k, false), margin_sum(truth, k, false), 1e-9);
      }
    }
  }
}

TEST(Release, RealsOnAPartitionAreTheCountsPlusTheProjectedNoise) {
  // On a partition (or no invariant) a real release draws its noise a block
  // at a time and subtracts group means at the end, never holding the noise
  // whole: it must equal x + Pi_N e for the e the same seed draws at once,
  // projected by the model's projector. 7 x 1301 cells (three blocks, the
  // last odd); margin {h} groups cells that are not adjacent.
  const auto table = grid({"g", "h"}, {7, 1301}, std::vector<std::int64_t>(7 * 1301, 0));
  std::vector<std::int64_t> counts(table.counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i * 7919 % 100000);
  const CellKeys keys = table.keys();
  struct Case { const char* mechanism; std::vector<std::string> margins; };
  for (const Case& c : {Case{"subspace_gaussian", {"h"}}, Case{"subspace_laplace", {"g"}},
                        Case{"subspace_gaussian", {}}, Case{"subspace_laplace", {"h"}}}) {
    const bool gaussian = std::string(c.mechanism) == "subspace_gaussian";
    const auto request = validate_request(raw(c.mechanism, 0.5, c.margins, gaussian, 1e-6));
    auto a = make_seeded_random_source(31), b = make_seeded_random_source(31);
    const auto result = run_release(keys, counts.data(), request, *a, Interrupts());
    std::vector<Margin> margins;
    for (const std::string& m : c.margins) margins.push_back(Margin{{keys.column_index(m)}});
    const InvariantModel model(keys, margins, Interrupts());
    const double scale = calibrate_noise(request).scale;
    std::vector<double> e(counts.size());
    if (gaussian)
      sample_gaussians(*b, scale, e.data(), e.size(), Interrupts());
    else
      for (double& v : e) v = sample_laplace(*b, scale);
    model.project_onto_null_space(e.data());
    ASSERT_EQ(result.values.size(), counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i)
      ASSERT_NEAR(result.values[i], double(counts[i]) + e[i], 1e-9) << c.mechanism << " cell " << i;
  }
}

TEST(Release, SameSeedSameRelease) {
  const auto table = delinquents();
  const auto request = validate_request(raw("subspace_gaussian", 1, {"county"}, true, 1e-6));
  auto a = make_seeded_random_source(99), b = make_seeded_random_source(99);
  const auto x = run_release(table.keys(), table.counts.data(), request, *a, Interrupts());
  const auto y = run_release(table.keys(), table.counts.data(), request, *b, Interrupts());
  EXPECT_EQ(x.values, y.values);
}

TEST(Release, NoiseDoesNotDependOnTheData) {
  // Same seed, different counts: the difference of releases is exactly the
  // difference of the data (the noise is drawn independently of x).
  auto table = delinquents();
  auto other = table;
  for (auto& c : other.counts) c = c * 3 + 1;
  const auto request = validate_request(raw("subspace_laplace", 1, {"county", "edu"}));
  auto a = make_seeded_random_source(5), b = make_seeded_random_source(5);
  const auto x = run_release(table.keys(), table.counts.data(), request, *a, Interrupts());
  const auto y = run_release(other.keys(), other.counts.data(), request, *b, Interrupts());
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_NEAR(y.values[i] - x.values[i], double(other.counts[i] - table.counts[i]), 1e-9);
}

TEST(Release, RefusesEmptyNegativeAndPinnedInputs) {
  auto rng = make_seeded_random_source(1);
  const auto table = delinquents();
  const auto laplace = validate_request(raw("subspace_laplace", 1));
  const test_tables::TestTable empty{{"county"}, {}, {}};
  EXPECT_THROW(run_release(empty.keys(), nullptr, laplace, *rng, Interrupts()), InvalidData);
  // Every release's counts are checked once, at the entry (release/cell_counts.hpp).
  auto negative = table;
  negative.counts[3] = -1;
  EXPECT_THROW(check_cell_counts(negative.counts.size(), negative.counts.data(), Interrupts()), InvalidData);
  EXPECT_THROW(check_cell_counts(0, nullptr, Interrupts()), InvalidData);
  const auto pinned = validate_request(raw("subspace_laplace", 1, {"county,edu"}));
  EXPECT_THROW(run_release(table.keys(), table.counts.data(), pinned, *rng, Interrupts()), InconsistentInvariants);
}

TEST(Release, MetadataDescribesTheNoiseLaw) {
  const auto table = delinquents();
  auto rng = make_seeded_random_source(1);
  const auto request = validate_request(raw("subspace_gaussian", 0.5, {"county", "edu"}, true, 1e-6));
  const auto json = run_release(table.keys(), table.counts.data(), request, *rng, Interrupts()).metadata_json;
  for (const char* field : {"\"mechanism\": \"subspace_gaussian\"", "\"rank\": 7", "\"null_dimension\": 9",
                            "\"structure\": \"two_way\"", "\"neighbours\": \"replace_one\"", "\"cells\": 16",
                            "\"margins\": [[\"county\"], [\"edu\"]]", "\"delta\": 1e-06"})
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
}

// With a margin, the per-cell sds are spelled out only when asked for; the
// metadata's expected total squared error is the same either way: their
// squares' sum (unequal groups, so unequal sds), or for subspace noise the
// null space's dimension times the unit variance (the projector's trace).
TEST(Release, TotalSquaredErrorWithAndWithoutPerCellSds) {
  const auto table = grid({"g", "k"}, {3, 4}, std::vector<std::int64_t>(12, 9));
  std::vector<std::size_t> drop = {0, 1, 5};  // groups of 2, 3 and 4 cells
  std::vector<const char*> text;
  std::vector<std::int64_t> counts;
  for (std::size_t i = 0; i < 12; ++i) {
    if (std::find(drop.begin(), drop.end(), i) != drop.end()) continue;
    text.push_back(table.text[2 * i].c_str());
    text.push_back(table.text[2 * i + 1].c_str());
    counts.push_back(9);
  }
  const test_tables::TextKeys keys(text, 2);
  for (const char* mechanism : {"integer_laplace", "integer_gaussian", "subspace_gaussian", "subspace_laplace"}) {
    RawRequest raw;
    raw.mechanism = mechanism;
    raw.epsilon = 1;
    raw.has_delta = std::string(mechanism).find("gaussian") != std::string::npos;
    raw.delta = raw.has_delta ? 1e-6 : 0;
    raw.margins = {"g"};
    ReleaseRequest request = validate_request(raw);
    auto rng = make_seeded_random_source(3);
    request.with_stddev = true;
    const CellKeys cells(keys.rows(), {"g", "k"}, Interrupts());
    const auto with_sds = run_release(cells, counts.data(), request, *rng, Interrupts());
    ASSERT_EQ(with_sds.noise_sd.size(), counts.size()) << mechanism;
    double sum = 0;
    for (double sd : with_sds.noise_sd) sum += sd * sd;
    EXPECT_NE(with_sds.noise_sd.front(), with_sds.noise_sd.back()) << mechanism;
    request.with_stddev = false;
    const auto without = run_release(cells, counts.data(), request, *rng, Interrupts());
    EXPECT_TRUE(without.noise_sd.empty()) << mechanism;
    for (const auto* json : {&with_sds.metadata_json, &without.metadata_json}) {
      const auto at = json->find("\"expected_total_squared_error\": ");
      ASSERT_NE(at, std::string::npos);
      EXPECT_NEAR(std::stod(json->substr(at + 32)), sum, 1e-9 * sum) << mechanism;
    }
  }
}

TEST(Release, PollsForCancellation) {
  const auto table = grid({"a", "b"}, {300, 300}, std::vector<std::int64_t>(90000, 5));
  auto rng = make_seeded_random_source(1);
  const Interrupts cancelled([](void*) { return true; }, nullptr);
  EXPECT_THROW(run_release(table.keys(), table.counts.data(), validate_request(raw("discrete_laplace", 1)), *rng,
                           cancelled),
               Interrupted);
}

TEST(CellDomain, ZeroCellsAndErrors) {
  using test_tables::TextKeys;
  const TextKeys domain({"a", "b", "c"}, 1, 2);
  const std::int64_t counts[] = {4, 2};
  auto merged = counts_on_domain(domain.rows(), TextKeys({"c", "a"}, 1).rows(), counts, OutsideDomain::Refuse, Interrupts());
  EXPECT_EQ(merged, (std::vector<std::int64_t>{2, 0, 4}));
  try {
    counts_on_domain(domain.rows(), TextKeys({"z"}, 1).rows(), counts, OutsideDomain::Refuse, Interrupts());
    FAIL() << "a source cell outside the domain must be refused";
  } catch (const InvalidData& e) {
    EXPECT_EQ(e.detail(), "Key {key0} is not a domain row.");
    EXPECT_EQ(e.keys()[0].table, 1);  // the source row
    EXPECT_EQ(e.keys()[0].row, 0u);
  }
  EXPECT_THROW(counts_on_domain(domain.rows(), TextKeys({"a", "a"}, 1).rows(), counts, OutsideDomain::Refuse, Interrupts()), InvalidData);
  try {
    counts_on_domain(TextKeys({"a", "b", "a"}, 1, 2).rows(), TextKeys({}, 1).rows(), nullptr, OutsideDomain::Refuse, Interrupts());
    FAIL() << "a repeated domain row must be refused";
  } catch (const InvalidData& e) {
    EXPECT_STREQ(e.what(), "duplicate cell in domain");
    EXPECT_EQ(e.keys()[0].table, 2);  // the domain row
    EXPECT_EQ(e.keys()[0].row, 2u);
  }
  // NULL and '' are different cells.
  merged = counts_on_domain(TextKeys({nullptr, ""}, 1, 2).rows(), TextKeys({nullptr}, 1).rows(), counts,
                            OutsideDomain::Refuse, Interrupts());
  EXPECT_EQ(merged, (std::vector<std::int64_t>{4, 0}));
  // Rows outside the domain left out, as a key set filters them; a repeated
  // source row is still refused.
  merged = counts_on_domain(domain.rows(), TextKeys({"z", "b"}, 1).rows(), counts, OutsideDomain::Drop, Interrupts());
  EXPECT_EQ(merged, (std::vector<std::int64_t>{0, 2, 0}));
  EXPECT_THROW(counts_on_domain(domain.rows(), TextKeys({"b", "b"}, 1).rows(), counts, OutsideDomain::Drop,
                                Interrupts()),
               InvalidData);
}

TEST(Family, EveryMechanismPublishesItsFamily) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(1);
  const struct {
    const char* mechanism;
    bool margins;
    double delta;
    const char* family;
  } cases[] = {{"discrete_laplace", false, 0, "none"},          {"discrete_gaussian", false, 1e-6, "none"},
               {"subspace_gaussian", true, 1e-6, "conditioning"}, {"subspace_laplace", true, 0, "projection"},
               {"integer_laplace", true, 0, "conditioning"},      {"integer_gaussian", true, 1e-6, "conditioning"},
               {"integer_laplace_l2", true, 0, "conditioning"},   {"project_l2", true, 0, "projection"},
               {"project_nn_l2", true, 0, "projection"},          {"project_nn_integer", true, 0, "projection"},
               {"congenial", true, 0, "conditioning"}};
  for (const auto& c : cases) {
    auto r = mechanism_release::request(c.mechanism, 1.0,
                                        c.margins ? std::vector<std::string>{"county"} : std::vector<std::string>{},
                                        c.delta);
    r.iterations = 50;
    const auto json = run_release(table.keys(), table.counts.data(), r, *rng, Interrupts()).metadata_json;
    EXPECT_NE(json.find(std::string("\"family\": \"") + c.family + "\""), std::string::npos) << c.mechanism << json;
  }
}
