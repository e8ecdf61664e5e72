// cascade (mechanisms/cascade.cpp) through the release paths: calibrated on
// a hierarchy's tree, so a flat release is refused, as is a request without
// delta or a diagnosis; over a hierarchy (rollups/hierarchy_release.hpp)
// every node is the sum of its children, the declared margins stay exact,
// and the metadata states the mechanism, its real output and its levels'
// variances.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "checked_parts.hpp"
#include "errors.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "mechanism_release.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/noise_calibration.hpp"
#include "rollups/hierarchy_release.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::number_at;
using invariant_dp::mechanism_release::raw;
using invariant_dp::mechanism_release::refusal;
using invariant_dp::mechanism_release::request;
using invariant_dp::mechanism_release::text_at;

namespace {

// region (3) > county (4 each) > edu (5 each), counts 0..59.
test_tables::TestTable regions_counties_edu() {
  std::vector<std::int64_t> counts(60);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i);
  return test_tables::geography(counts);
}

HierarchyRequest levels() {
  HierarchyRequest h;
  h.levels = {"region", "county", "edu"};
  return h;
}

HierarchyReleaseResult cascade_release(const test_tables::TestTable& table, std::vector<std::string> margins,
                                       std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  return run_hierarchy_release(table.keys(), table.counts.data(),
                               checked_parts(request("cascade", 1, std::move(margins), 1e-6), levels()), *rng,
                               Interrupts());
}

}  // namespace

TEST(Cascade, RefusesAFlatReleaseNoDeltaAndDiagnosis) {
  EXPECT_EQ(refusal(raw("cascade", 1)), "mechanism \"cascade\" requires delta");
  const auto table = regions_counties_edu();
  const auto req = request("cascade", 1, {}, 1e-6);
  auto rng = make_seeded_random_source(1);
  try {
    run_release(table.keys(), table.counts.data(), req, *rng, Interrupts());
    FAIL() << "a flat cascade release must be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "mechanism \"cascade\" needs a hierarchy");
  }
  EXPECT_THROW(calibrate_noise(req), InvalidArgument);
  EXPECT_THROW(run_diagnostics(table.keys(), req, DiagnosticsSettings{}, *rng, Interrupts()), InvalidArgument);
}

// Every internal node against its children's sum (reals: to round-off),
// with and without the regions' totals kept.
TEST(Cascade, EveryNodeIsTheSumOfItsChildren) {
  const auto table = regions_counties_edu();
  const CellKeys cells = table.keys();
  for (const std::vector<std::string>& margins : {std::vector<std::string>{}, std::vector<std::string>{"region"}}) {
    const auto out = cascade_release(table, margins, 2);
    ASSERT_FALSE(out.integer_output);
    const auto tree = hierarchy::HierarchyTree::from_cell_keys(cells, out.level_columns, Interrupts());
    ASSERT_EQ(out.values.size(), tree.n_nodes());
    for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
      if (tree.is_leaf(v)) continue;
      double sum = 0;
      for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += out.values[c];
      EXPECT_NEAR(sum, out.values[v], 1e-9 * (1 + std::fabs(sum))) << "node " << v;
    }
  }
}

// With the regions' totals declared, the grand total and each region's
// total are the counts' (to round-off); the noise still moves the rest.
TEST(Cascade, DeclaredMarginsStayExact) {
  const auto table = regions_counties_edu();
  const auto out = cascade_release(table, {"region"}, 3);
  double region_total[3] = {0, 0, 0}, total = 0;
  for (std::size_t i = 0; i < table.counts.size(); ++i) {
    region_total[i / 20] += double(table.counts[i]);
    total += double(table.counts[i]);
  }
  ASSERT_EQ(out.node_depth[0], 0u);
  EXPECT_NEAR(out.values[0], total, 1e-9 * total);
  for (std::uint32_t r = 0; r < 3; ++r) {
    ASSERT_EQ(out.node_depth[1 + r], 1u);
    EXPECT_NEAR(out.values[1 + r], region_total[r], 1e-9 * total);
  }
  int moved = 0;
  for (std::size_t v = 4; v < out.values.size(); ++v) moved += std::fabs(out.values[v] - std::round(out.values[v])) > 0;
  EXPECT_GT(moved, 50);
}

TEST(Cascade, MetadataStatesTheMechanismAndItsLevels) {
  const auto table = regions_counties_edu();
  for (const std::vector<std::string>& margins : {std::vector<std::string>{}, std::vector<std::string>{"region"}}) {
    const auto json = JsonValue::parse(cascade_release(table, margins, 4).metadata_json);
    EXPECT_EQ(text_at(json, {"mechanism"}), "cascade");
    EXPECT_EQ(text_at(json, {"output"}), "real");
    EXPECT_EQ(text_at(json, {"family"}), margins.empty() ? "none" : "conditioning");
    EXPECT_EQ(number_at(json, {"delta"}), 1e-6);
    // The variance of every node at each depth, the grand total first.
    const JsonValue* levels = json.find_path({"noise", "level_variance"});
    ASSERT_NE(levels, nullptr);
    EXPECT_EQ(levels->array("level_variance").size(), 4u);
    EXPECT_EQ(text_at(json, {"noise", "calibration", "derived_from"}), "epsilon_delta");
    const JsonValue* names = json.find_path({"hierarchy", "levels"});
    ASSERT_NE(names, nullptr);
    EXPECT_EQ(names->array("levels").size(), 3u);
  }
}
