// Unit tests (deterministic) of the integer cascade release of one hierarchy
// (rollups/integer_cascade_release.hpp) and of the range variances it
// publishes (capi_range_variance.cpp): integers at every level, each node
// the sum of its children, exact margins, the three calibrations, the
// metadata, the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "errors.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "random_source.hpp"
#include "rollups/hierarchy_release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"
#include "checked_parts.hpp"

namespace invariant_dp {
namespace {

// 3 states x 2-4 counties x 1-3 tracts; state s2 has one county.
test_tables::TestTable states_and_tracts() {
  test_tables::TestTable t{{"state", "county", "tract"}, {}, {}};
  for (int s = 0; s < 3; ++s)
    for (int c = 0; c < (s == 2 ? 1 : 2 + 2 * s); ++c)
      for (int k = 0; k < 1 + (s + c) % 3; ++k) {
        t.text.insert(t.text.end(), {"s" + std::to_string(s), "c" + std::to_string(c), "t" + std::to_string(k)});
        t.counts.push_back(11 * s + 3 * c + k);
      }
  return t;
}

ReleaseRequest request(double epsilon, std::vector<std::string> margins = {}, bool stddev = false) {
  RawRequest raw;
  raw.mechanism = "integer_cascade";
  raw.epsilon = epsilon;
  raw.has_delta = true;
  raw.delta = 1e-9;
  raw.margins = std::move(margins);
  if (stddev) raw.options.emplace_back("stddev", "true");
  return validate_request(raw);
}

HierarchyRequest state_county_tract() {
  HierarchyRequest h;
  h.levels = {"state", "county", "tract"};
  return h;
}

// Every internal node's value against its children's, rebuilding the tree.
void expect_integer_consistency(const CellKeys& cells, const HierarchyReleaseResult& out) {
  ASSERT_TRUE(out.integer_output);
  const auto tree = hierarchy::HierarchyTree::from_cell_keys(cells, out.level_columns, Interrupts());
  ASSERT_EQ(out.integer_values.size(), tree.n_nodes());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (tree.is_leaf(v)) continue;
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += out.integer_values[c];
    EXPECT_EQ(sum, out.integer_values[v]) << v;
  }
}

bool has(const std::string& json, const std::string& text) { return json.find(text) != std::string::npos; }

}  // namespace

TEST(IntegerCascadeHierarchyRelease, IntegersAtEveryLevelEachNodeTheSumOfItsChildren) {
  const auto table = states_and_tracts();
  const CellKeys cells = table.keys();
  auto rng = make_seeded_random_source(3);
  const auto out = run_hierarchy_release(
      cells, table.counts.data(), checked_parts(request(1.0, {}, true), state_county_tract(), {}), *rng, Interrupts());
  expect_integer_consistency(cells, out);
  EXPECT_TRUE(out.values.empty());
  EXPECT_EQ(out.node_depth[0], 0u);
  ASSERT_EQ(out.noise_sd.size(), out.integer_values.size());
  // Uniform levels: every node at the same sd but the one-child county, which copies its state.
  for (double sd : out.noise_sd) EXPECT_NEAR(sd, out.noise_sd[0], 1e-12 * sd);
  for (const char* field : {"\"mechanism\": \"integer_cascade\"", "\"output\": \"integer\"", "\"family\": \"none\"",
                            "\"level_variance\": [", "\"level_variance_lower_bound\": [",
                            "\"variance_deficit_bound\": ", "\"exact\": true", "\"attempts\": ",
                            "\"epsilon_delta_conversion\"", "\"children\": ["})
    EXPECT_TRUE(has(out.metadata_json, field)) << field << " in " << out.metadata_json;
}

TEST(IntegerCascadeHierarchyRelease, StateTotalsStayExact) {
  const auto table = states_and_tracts();
  const CellKeys cells = table.keys();
  auto rng = make_seeded_random_source(4);
  const auto out = run_hierarchy_release(
      cells, table.counts.data(), checked_parts(request(0.5, {"state"}), state_county_tract(), {}), *rng, Interrupts());
  expect_integer_consistency(cells, out);
  std::int64_t total = 0;
  for (std::int64_t n : table.counts) total += n;
  EXPECT_EQ(out.integer_values[0], total);
  std::int64_t states[3] = {0, 0, 0};
  for (std::size_t i = 0; i < table.counts.size(); ++i) states[table.text[3 * i][1] - '0'] += table.counts[i];
  for (std::uint32_t v = 1; v <= 3; ++v) EXPECT_EQ(out.integer_values[v], states[v - 1]);
  EXPECT_TRUE(has(out.metadata_json, "\"family\": \"conditioning\"")) << out.metadata_json;
}

TEST(IntegerCascadeHierarchyRelease, CalibratedFromRhoOrTargets) {
  const auto table = states_and_tracts();
  const CellKeys cells = table.keys();
  auto rng = make_seeded_random_source(5);
  HierarchyRequest from_rho = state_county_tract();
  from_rho.rho = 0.5;
  HierarchyBudget no_epsilon;
  no_epsilon.has_epsilon = false;
  auto out = run_hierarchy_release(cells, table.counts.data(), checked_parts(request(1.0), from_rho, no_epsilon), *rng, Interrupts());
  expect_integer_consistency(cells, out);
  EXPECT_TRUE(has(out.metadata_json, "\"derived_from\": \"rho\"")) << out.metadata_json;
  HierarchyRequest targets = state_county_tract();
  targets.level_variance = {400, 200, 100, 50};
  out = run_hierarchy_release(cells, table.counts.data(), checked_parts(request(1.0), targets, no_epsilon), *rng, Interrupts());
  EXPECT_TRUE(has(out.metadata_json, "\"derived_from\": \"variance_targets\"")) << out.metadata_json;
  EXPECT_TRUE(has(out.metadata_json, "\"level_variance\": [400, 200, 100, 50]")) << out.metadata_json;
  // Both epsilon and rho, or neither and no targets: refused as for the cascade.
  EXPECT_THROW(run_hierarchy_release(cells, table.counts.data(), checked_parts(request(1.0), from_rho, {}), *rng, Interrupts()),
               InvalidArgument);
  EXPECT_THROW(run_hierarchy_release(cells, table.counts.data(),
                                     checked_parts(request(1.0), state_county_tract(), no_epsilon), *rng, Interrupts()),
               NullValue);
}

TEST(IntegerCascadeHierarchyRelease, RefusesWhatTheExactSamplerCannotDo) {
  const auto table = states_and_tracts();
  const CellKeys cells = table.keys();
  auto rng = make_seeded_random_source(6);
  HierarchyRequest tiny = state_county_tract();
  tiny.level_variance = {0.01, 0.01, 0.01, 0.01};
  HierarchyBudget no_epsilon;
  no_epsilon.has_epsilon = false;
  EXPECT_THROW(run_hierarchy_release(cells, table.counts.data(), checked_parts(request(1.0), tiny, no_epsilon), *rng, Interrupts()),
               OutOfRange);
  // A margin that is not whole nodes.
  HierarchyRequest coarse;
  coarse.levels = {"state", "county"};
  EXPECT_THROW(run_hierarchy_release(cells, table.counts.data(), checked_parts(request(1.0, {"tract"}), coarse, {}), *rng,
                                     Interrupts()),
               InvalidArgument);
}

TEST(IntegerCascadeHierarchyRelease, RangeVarianceBoundsFromThePublishedLaw) {
  // A binary tree of 4 leaves at level variances (4, 2, 1): the closed form
  // of leaves 1..2 (across the root) is 2 - 2/8 = 1.75 times v = 1.
  const std::uint32_t children[] = {2, 2, 2};
  const double state_county_tract[] = {1, 1, 1};
  double lower = 0, upper = 0;
  idp_error error{};
  ASSERT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", children, 3, state_county_tract, 3, nullptr, 0, 0.25,
                                       1, 2, nullptr, &lower, &upper, &error),
            IDP_OK)
      << error.message;
  EXPECT_DOUBLE_EQ(upper, 1.75);
  EXPECT_LT(lower, 0.75 * 1.75);
  EXPECT_GT(lower, 0.75 * 1.75 * (1 - 1e-15));
  ASSERT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", children, 3, state_county_tract, 3, nullptr, 0, 0, 1,
                                       2, nullptr, &lower, &upper, &error),
            IDP_OK);
  EXPECT_EQ(lower, upper);
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", children, 3, state_county_tract, 3, nullptr, 0, NAN,
                                       1, 2, nullptr, &lower, &upper, &error),
            IDP_INVALID_ARGUMENT);
}

}  // namespace invariant_dp
