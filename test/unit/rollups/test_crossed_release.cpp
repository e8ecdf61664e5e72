// Releases over two crossed hierarchies (rollups/crossed_release.hpp): the
// grid, the (row node, column node) rows, consistency along both trees (also
// for the integer cascade), the published sd against the closed-form
// rectangle variance, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "errors.hpp"
#include "hierarchy/crossed_cascade.hpp"
#include "random_source.hpp"
#include "rollups/crossed_grid.hpp"
#include "rollups/crossed_release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"
#include "checked_parts.hpp"

using namespace invariant_dp;

namespace {

// 2 states (2 and 1 counties) x 2 age groups (2 and 1 ages): 3 x 3 cells,
// source order deliberately not sorted.
struct Table {
  std::vector<std::string> text;
  std::vector<const char*> keys;
  std::vector<std::int64_t> counts;
  std::unique_ptr<CellKeys> cells;

  explicit Table(bool drop_last = false) {
    const char* rows[][2] = {{"S2", "S2a"}, {"S1", "S1a"}, {"S1", "S1b"}};
    const char* cols[][2] = {{"old", "80+"}, {"young", "0-9"}, {"young", "10-19"}};
    std::int64_t n = 1;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        if (drop_last && i == 2 && j == 2) continue;
        for (const char* k : {rows[i][0], rows[i][1], cols[j][0], cols[j][1]}) text.emplace_back(k);
        counts.push_back(n++ * 3);
      }
    for (const auto& t : text) keys.push_back(t.c_str());
    cells = std::make_unique<CellKeys>(test_tables::TextKeys(keys, 4).rows(),
                                       std::vector<std::string>{"state", "county", "group", "age"}, Interrupts());
  }
};

HierarchyRequest crossed_request() {
  HierarchyRequest h;
  h.levels = {"state", "county"};
  h.crossed = {"group", "age"};
  return h;
}

ReleaseRequest crossed_release_request(const std::string& mechanism, double epsilon, bool has_delta, bool stddev,
                                       std::vector<std::string> margins = {}) {
  RawRequest raw;
  raw.mechanism = mechanism;
  raw.epsilon = epsilon;
  raw.has_delta = has_delta;
  raw.delta = has_delta ? 1e-9 : 0;
  raw.margins = std::move(margins);
  if (stddev) raw.options.emplace_back("stddev", "true");
  return validate_request(raw);
}

// Each row node (3 levels: total, state, county) x column node.
constexpr std::size_t kRowNodes = 1 + 2 + 3, kColNodes = 1 + 2 + 3;

// Integers, each (row node, column node) the sum of its children along either tree.
void expect_crossed_integer_consistency(const Table& t, const CrossedReleaseResult& out) {
  ASSERT_TRUE(out.integer_output);
  ASSERT_EQ(out.integer_values.size(), kRowNodes * kColNodes);
  const auto grid = build_crossed_grid(*t.cells, {"state", "county"}, {"group", "age"}, Interrupts());
  for (std::uint32_t s = 0; s < grid.rows.n_nodes(); ++s)
    for (std::uint32_t c = 0; c < grid.cols.n_nodes(); ++c) {
      const std::int64_t value = out.integer_values[s * kColNodes + c];
      if (!grid.rows.is_leaf(s)) {
        std::int64_t sum = 0;
        for (auto k = grid.rows.first_child(s); k < grid.rows.child_end(s); ++k) sum += out.integer_values[k * kColNodes + c];
        EXPECT_EQ(value, sum);
      }
      if (!grid.cols.is_leaf(c)) {
        std::int64_t sum = 0;
        for (auto k = grid.cols.first_child(c); k < grid.cols.child_end(c); ++k) sum += out.integer_values[s * kColNodes + k];
        EXPECT_EQ(value, sum);
      }
    }
}

}  // namespace

TEST(CrossedRelease, CascadeRowsAndStandardDeviations) {
  Table t;
  auto rng = make_seeded_random_source(11);
  const auto out = run_crossed_release(
      *t.cells, t.counts.data(),
      checked_parts(crossed_release_request("cascade", 1.0, true, true), crossed_request(), {}), *rng, Interrupts());
  ASSERT_EQ(out.values.size(), kRowNodes * kColNodes);
  ASSERT_EQ(out.node_cell.size(), out.values.size());
  EXPECT_EQ(out.row_level_columns, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(out.col_level_columns, (std::vector<std::size_t>{2, 3}));
  // Row-major: the grand total first, then the total's column nodes.
  EXPECT_EQ(out.row_depth[0], 0u);
  EXPECT_EQ(out.col_depth[0], 0u);
  EXPECT_EQ(out.col_depth[kColNodes - 1], 2u);
  EXPECT_EQ(out.row_depth[kColNodes], 1u);
  // Leaf rows print their own cell; the grand total sums every count plus noise.
  const std::size_t last = out.values.size() - 1;
  EXPECT_EQ(out.row_depth[last], 2u);
  EXPECT_EQ(out.col_depth[last], 2u);
  // Uniform levels: every rectangle at the same sd, equal to the closed form.
  const auto grid = build_crossed_grid(*t.cells, {"state", "county"}, {"group", "age"}, Interrupts());
  const double v = out.noise_sd[0] * out.noise_sd[0];
  for (double sd : out.noise_sd) EXPECT_NEAR(sd, out.noise_sd[0], 1e-12 * sd);
  const auto rl = hierarchy::CascadeLaw::uniform(grid.rows, v), cl = hierarchy::CascadeLaw::uniform(grid.cols, 1.0);
  for (std::uint32_t s = 0; s < grid.rows.n_nodes(); ++s)
    for (std::uint32_t c = 0; c < grid.cols.n_nodes(); ++c) {
      const double rect = hierarchy::crossed_rectangle_variance(
          grid.rows, rl, grid.cols, cl, grid.rows.leaf_begin(s), grid.rows.leaf_end(s) - 1, grid.cols.leaf_begin(c),
          grid.cols.leaf_end(c) - 1);
      EXPECT_NEAR(out.noise_sd[s * kColNodes + c], std::sqrt(rect), 1e-9 * std::sqrt(rect));
    }
  EXPECT_NE(out.metadata_json.find("\"crossed\": true"), std::string::npos);
}

TEST(CrossedRelease, IntegerRollupIsExactAlongBothTrees) {
  Table t;
  auto rng = make_seeded_random_source(5);
  const auto out = run_crossed_release(
      *t.cells, t.counts.data(),
      checked_parts(crossed_release_request("integer_laplace", 1.0, false, false, {"state"}), crossed_request(), {}),
      *rng, Interrupts());
  expect_crossed_integer_consistency(t, out);
  // The state margin is exact: state S2's row (row node 1, first in source order) over all ages.
  EXPECT_EQ(out.integer_values[1 * kColNodes], 3 + 6 + 9);
}

TEST(CrossedRelease, IntegerCascadeIsExactAlongBothTrees) {
  Table t;
  auto rng = make_seeded_random_source(7);
  const auto out = run_crossed_release(
      *t.cells, t.counts.data(),
      checked_parts(crossed_release_request("integer_cascade", 1.0, true, true), crossed_request(), {}), *rng,
      Interrupts());
  expect_crossed_integer_consistency(t, out);
  // Uniform levels: every rectangle at the same (closed-form) sd.
  ASSERT_EQ(out.noise_sd.size(), kRowNodes * kColNodes);
  for (double sd : out.noise_sd) EXPECT_NEAR(sd, out.noise_sd[0], 1e-12 * sd);
  for (const char* field : {"\"mechanism\": \"integer_cascade\"", "\"output\": \"integer\"",
                            "\"variance_deficit_bound\": ", "\"exact\": true", "\"crossed\": true",
                            "\"epsilon_delta_conversion\""})
    EXPECT_NE(out.metadata_json.find(field), std::string::npos) << field << " in " << out.metadata_json;
  // Margins are refused as for the real-valued crossed cascade.
  EXPECT_THROW(
      check_crossed_request(crossed_release_request("integer_cascade", 1.0, true, false, {"state"}), crossed_request()),
      InvalidArgument);
}

TEST(CrossedRelease, MissingCellAndColumnsAreRefused) {
  Table partial(true);
  auto rng = make_seeded_random_source(1);
  try {
    run_crossed_release(*partial.cells, partial.counts.data(),
                        checked_parts(crossed_release_request("cascade", 1.0, true, false), crossed_request(), {}),
                        *rng, Interrupts());
    FAIL() << "a missing cell must be refused";
  } catch (const InvalidData& e) {
    // The missing pair is named by two cells' keys on each hierarchy's columns
    // ({key0}: cell 6 = S1/S1b on state, county; {key1}: cell 2 = young/10-19 on group, age).
    EXPECT_NE(e.detail().find("No cell for {key0} with {key1}; 8 of 3 x 3 cells are present."), std::string::npos)
        << e.detail();
    EXPECT_EQ(e.keys()[0].row, 6u);
    EXPECT_EQ(e.keys()[0].columns, 0b0011u);
    EXPECT_EQ(e.keys()[1].row, 2u);
    EXPECT_EQ(e.keys()[1].columns, 0b1100u);
  }
  EXPECT_THROW(check_crossed_columns({"state", "county"}, {"age"}, {"state", "county", "group", "age"}), InvalidArgument);
  EXPECT_THROW(check_crossed_columns({"state", "county"}, {"group", "band"}, {"state", "county", "group", "age"}),
               InvalidArgument);
  HierarchyRequest with_targets = crossed_request();
  with_targets.level_variance = {1, 1, 1};
  EXPECT_THROW(check_crossed_request(crossed_release_request("cascade", 1.0, true, false), with_targets),
               InvalidArgument);
  EXPECT_THROW(
      check_crossed_request(crossed_release_request("cascade", 1.0, true, false, {"state"}), crossed_request()),
      InvalidArgument);
}
