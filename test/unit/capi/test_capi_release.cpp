// The C boundary's release (capi/invariant_dp_core.h), as the shim drives
// it: errors mapped to statuses with their messages, a release prepared
// and drawn through idp_release, a source of rows counted by the release,
// row-numbered key columns, counts noised in place, and the rows of
// hierarchy and crossed releases.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::delinquents;
using invariant_dp::test_tables::grid;

TEST(CApi, MapsErrorsToStatusesWithMessages) {
  idp_request request{};
  request.mechanism = "subspace_gaussian";
  request.epsilon = 1;
  idp_request_info info{};
  idp_error error{};
  EXPECT_EQ(check_prepared(&request, 0, nullptr, &info, &error), IDP_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "mechanism \"subspace_gaussian\" requires delta");
  request.epsilon = 1000;
  EXPECT_EQ(check_prepared(&request, 0, nullptr, &info, &error), IDP_OUT_OF_RANGE);
  request.epsilon = 1;
  request.has_delta = true;
  request.delta = 1e-6;
  EXPECT_EQ(check_prepared(&request, 0, nullptr, &info, &error), IDP_OK);
  EXPECT_FALSE(info.integer_output);
  EXPECT_EQ(error.message[0], '\0');
}

TEST(CApi, ReleaseThroughTheBoundary) {
  const auto table = delinquents();
  const auto keys = table.text_keys();
  const char* names[] = {"county", "edu"};
  const char* margins[] = {"county", "edu"};
  idp_request request{};
  request.mechanism = "subspace_laplace";
  request.epsilon = 1;
  request.n_margins = 2;
  request.margins = margins;
  idp_cells cells{2, names, keys.dictionaries(), 16, {keys.codes()}, table.counts.data(), false, 0, {}, {}, {}, false};
  idp_randomness randomness{true, 11, 1};
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(out->n_rows, 16u);
  EXPECT_EQ(out->n_axes, 0u);
  EXPECT_FALSE(out->integer_output);
  ASSERT_NE(out->values, nullptr);
  EXPECT_EQ(out->noise_sd, nullptr);  // not asked for
  ASSERT_NE(out->metadata_json, nullptr);
  EXPECT_NEAR(std::accumulate(out->values, out->values + 16, 0.0), 135.0, 1e-9);
  // Cells only: row r is cell r and prints every key (no arrays needed).
  EXPECT_EQ(out->row_cell, nullptr);
  EXPECT_EQ(out->row_is_cell, nullptr);
  idp_free_release(out);
  // An interrupted release reports IDP_INTERRUPTED and returns no table.
  request.n_margins = 0;
  idp_interrupts interrupts{[](void*) { return true; }, nullptr, nullptr};
  const auto big = grid({"a", "b"}, {300, 300}, std::vector<std::int64_t>(90000, 5));
  const auto big_keys = big.text_keys();
  const char* big_names[] = {"a", "b"};
  idp_cells big_cells{2, big_names, big_keys.dictionaries(), 90000, {big_keys.codes()}, big.counts.data(), false, 0, {}, {}, {}, false};
  out = nullptr;
  EXPECT_EQ(prepare_and_release(&request, &big_cells, &randomness, &interrupts, &out, &error), IDP_INTERRUPTED);
  EXPECT_EQ(out, nullptr);
}

// options {"source": "rows"}: the source's rows carry no count, and the
// release counts them into the cells a GROUP BY would make, in the order
// of their first rows; with the same seed the noise is the aggregated
// table's. Counts passed with it, or missing without it, are the caller's
// mistake.
TEST(CApi, ASourceOfRowsIsCountedByTheRelease) {
  // Rows b, a, b, NULL, b, a: cells b (3), a (2), NULL (1).
  const char* row_text[] = {"b", "a", "b", nullptr, "b", "a"};
  const test_tables::TextKeys rows(std::vector<const char*>(row_text, row_text + 6), 1);
  const char* cell_text[] = {"b", "a", nullptr};
  const test_tables::TextKeys cells_keys(std::vector<const char*>(cell_text, cell_text + 3), 1);
  const std::vector<std::int64_t> counts{3, 2, 1};
  const char* names[] = {"k"};
  const char* keys[] = {"source", "keys"};
  const char* values[] = {"rows", "public"};
  idp_request request{};
  request.mechanism = "discrete_laplace";
  request.epsilon = 1;
  request.n_options = 2;
  request.option_keys = keys;
  request.option_values = values;
  idp_cells from_rows{1, names, rows.dictionaries(), 6, {rows.codes()}, nullptr, false, 0, {}, {}, {}, false};
  idp_randomness randomness{true, 12, 0x5eed1001};  // a generation no other test uses: the stream starts afresh
  idp_error error{};
  idp_release_table* counted = nullptr;
  ASSERT_EQ(prepare_and_release(&request, &from_rows, &randomness, nullptr, &counted, &error), IDP_OK)
      << error.message;
  ASSERT_EQ(counted->n_rows, 3u);
  ASSERT_NE(counted->row_cell, nullptr);
  EXPECT_EQ(counted->row_cell[0], 0u);  // first rows of b, a, NULL
  EXPECT_EQ(counted->row_cell[1], 1u);
  EXPECT_EQ(counted->row_cell[2], 3u);
  request.n_options = 1;
  request.option_keys = keys + 1;
  request.option_values = values + 1;
  idp_cells aggregated{1, names, cells_keys.dictionaries(), 3, {cells_keys.codes()}, counts.data(), false, 0, {}, {}, {}, false};
  idp_release_table* grouped = nullptr;
  randomness.seed_generation = 0x5eed1002;  // restarted from the same seed
  ASSERT_EQ(prepare_and_release(&request, &aggregated, &randomness, nullptr, &grouped, &error), IDP_OK)
      << error.message;
  for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(counted->integer_values[r], grouped->integer_values[r]) << r;
  idp_free_release(counted);
  idp_free_release(grouped);
  // Rows without the option, counts with it: refused, nothing released.
  idp_release_table* out = nullptr;
  EXPECT_NE(prepare_and_release(&request, &from_rows, &randomness, nullptr, &out, &error), IDP_OK);
  EXPECT_EQ(out, nullptr);
  request.n_options = 2;
  request.option_keys = keys;
  request.option_values = values;
  EXPECT_NE(prepare_and_release(&request, &aggregated, &randomness, nullptr, &out, &error), IDP_OK);
  EXPECT_EQ(out, nullptr);
}

TEST(CApi, RowNumberedColumnsReleaseAsTheirStoredCodesDo) {
  // 600 cells keyed (state, id), id new on every row: passing the id
  // column row-numbered (NULL) must release what its stored codes do, with
  // or without a margin, integer or real.
  std::vector<std::string> storage;
  for (int i = 0; i < 600; ++i) {
    storage.push_back(std::to_string(i / 20));
    storage.push_back("id" + std::to_string(i));
  }
  std::vector<const char*> text;
  for (const std::string& s : storage) text.push_back(s.c_str());
  const test_tables::TextKeys keys(text, 2);
  std::vector<std::int64_t> counts(600);
  for (int i = 0; i < 600; ++i) counts[i] = i % 7;
  const char* names[] = {"state", "id"};
  const std::uint32_t* row_numbered[] = {keys.codes()[0], nullptr};
  const char* state[] = {"state"};
  const char* hierarchy[] = {"state", "id"};
  struct Case { const char* mechanism; bool margin; bool hierarchy; };
  for (const Case c : {Case{"discrete_laplace", false, false}, Case{"integer_laplace", true, false},
                       Case{"subspace_gaussian", true, false}, Case{"integer_gaussian", true, false},
                       Case{"subspace_laplace", false, false}, Case{"integer_laplace", false, true},
                       Case{"cascade", false, true}}) {
    idp_request request{};
    request.mechanism = c.mechanism;
    request.epsilon = 1;
    request.has_delta = std::string(c.mechanism).find("gaussian") != std::string::npos ||
                        std::string(c.mechanism) == "cascade";
    request.delta = 1e-6;
    request.n_margins = c.margin ? 1 : 0;
    request.margins = state;
    request.n_hierarchy = c.hierarchy ? 2 : 0;
    request.hierarchy = hierarchy;
    idp_release_table* tables[2] = {nullptr, nullptr};
    static std::uint64_t generation = 1000;  // each release restarts the seeded stream
    for (int form = 0; form < 2; ++form) {
      idp_cells cells{2, names, keys.dictionaries(), 600, {form == 0 ? keys.codes() : row_numbered},
                      counts.data(), false, 0, {}, {}, {}, false};
      idp_randomness randomness{true, 5, ++generation};
      idp_error error{};
      ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &tables[form], &error), IDP_OK)
          << c.mechanism << ": " << error.message;
    }
    ASSERT_EQ(tables[0]->n_rows, tables[1]->n_rows);
    for (std::size_t r = 0; r < tables[0]->n_rows; ++r) {
      if (tables[0]->integer_output)
        ASSERT_EQ(tables[0]->integer_values[r], tables[1]->integer_values[r]) << c.mechanism << " row " << r;
      else
        ASSERT_EQ(tables[0]->values[r], tables[1]->values[r]) << c.mechanism << " row " << r;
      if (c.hierarchy) {
        ASSERT_EQ(tables[0]->row_cell[r], tables[1]->row_cell[r]) << c.mechanism << " row " << r;
        ASSERT_EQ(tables[0]->row_depth[r], tables[1]->row_depth[r]) << c.mechanism << " row " << r;
      }
    }
    EXPECT_EQ(tables[0]->n_rows, c.hierarchy ? 631u : 600u);
    EXPECT_STREQ(tables[0]->metadata_json, tables[1]->metadata_json);
    idp_free_release(tables[0]);
    idp_free_release(tables[1]);
  }
  // A row-numbered column needs a key per row in its dictionary.
  idp_request request{};
  request.mechanism = "discrete_laplace";
  request.epsilon = 1;
  idp_key_dictionary short_dictionaries[] = {keys.dictionaries()[0], keys.dictionaries()[1]};
  short_dictionaries[1].n_levels = 599;
  idp_cells cells{2, names, short_dictionaries, 600, {row_numbered}, counts.data(), false, 0, {}, {}, {}, false};
  idp_randomness randomness{true, 5, 1};
  idp_error error{};
  idp_release_table* out = nullptr;
  EXPECT_NE(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK);
  EXPECT_NE(std::string(error.message).find("row-numbered key column \"id\" has 599 keys for 600 rows"),
            std::string::npos)
      << error.message;
  EXPECT_EQ(out, nullptr);
}

TEST(CApi, WritableCountsAreNoisedInPlaceAsACopyWouldBe) {
  // With counts_writable the independent and partition releases write
  // their values over the source's counts (reals as float8 in the same 8
  // bytes) and the table points there; the values are those of a release
  // into an array of its own under the same seed. Crossing margins, and
  // releases over a domain, leave the counts alone.
  const auto table = grid({"state", "block"}, {40, 25}, std::vector<std::int64_t>(1000, 0));
  const auto keys = table.text_keys();
  const char* names[] = {"state", "block"};
  const char* state[] = {"state"};
  const char* both[] = {"state", "block"};
  std::vector<std::int64_t> counts(1000);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i % 13) * 1000;
  struct Case { const char* mechanism; std::size_t n_margins; const char** margins; bool in_place; };
  for (const Case c : {Case{"discrete_laplace", 0, state, true}, Case{"discrete_gaussian", 0, state, true},
                       Case{"integer_laplace", 1, state, true}, Case{"integer_gaussian", 1, state, true},
                       Case{"integer_laplace", 0, state, true}, Case{"integer_laplace", 2, both, false},
                       Case{"subspace_laplace", 1, state, true}, Case{"subspace_gaussian", 0, state, true},
                       Case{"subspace_gaussian", 2, both, false}}) {
    idp_request request{};
    request.mechanism = c.mechanism;
    request.epsilon = 1;
    request.has_delta = std::string(c.mechanism).find("gaussian") != std::string::npos;
    request.delta = 1e-6;
    request.n_margins = c.n_margins;
    request.margins = c.margins;
    // A 40 x 25 table has no exact l1 sampler: the chain is named.
    const char* chain_key[] = {"sampler"};
    const char* chain_value[] = {"chain"};
    if (c.n_margins == 2 && std::string(c.mechanism) == "integer_laplace") {
      request.n_options = 1;
      request.option_keys = chain_key;
      request.option_values = chain_value;
    }
    std::vector<std::int64_t> writable = counts;
    idp_release_table* tables[2] = {nullptr, nullptr};
    static std::uint64_t generation = 2000;  // each release restarts the seeded stream
    for (int form = 0; form < 2; ++form) {
      idp_cells cells{2, names, keys.dictionaries(), 1000, {keys.codes()}, form == 0 ? counts.data() : writable.data(),
                      false, 0, {}, {}, {}, form == 1};
      idp_randomness randomness{true, 9, ++generation};
      idp_error error{};
      ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &tables[form], &error), IDP_OK)
          << c.mechanism << ": " << error.message;
    }
    const void* values = tables[1]->integer_output ? static_cast<const void*>(tables[1]->integer_values)
                                                   : static_cast<const void*>(tables[1]->values);
    EXPECT_EQ(values == static_cast<const void*>(writable.data()), c.in_place) << c.mechanism;
    for (std::size_t r = 0; r < 1000; ++r) {
      if (tables[0]->integer_output)
        ASSERT_EQ(tables[0]->integer_values[r], tables[1]->integer_values[r]) << c.mechanism << " row " << r;
      else
        ASSERT_EQ(tables[0]->values[r], tables[1]->values[r]) << c.mechanism << " row " << r;
    }
    if (!c.in_place) {
      EXPECT_EQ(writable, counts) << c.mechanism;
    }
    if (tables[1]->integer_output) {  // noised, not merely copied
      EXPECT_NE(std::vector<std::int64_t>(tables[1]->integer_values, tables[1]->integer_values + 1000), counts)
          << c.mechanism;
    }
    idp_free_release(tables[0]);
    idp_free_release(tables[1]);
  }
  // A domain: the released cells are the domain's, the counts untouched.
  std::vector<std::int64_t> writable = counts;
  idp_request request{};
  request.mechanism = "discrete_laplace";
  request.epsilon = 1;
  idp_cells cells{2, names, keys.dictionaries(), 1000, {keys.codes()}, writable.data(), true, 1000, {keys.codes()},
                  {}, {}, true};
  idp_randomness randomness{true, 9, 3000};
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  EXPECT_NE(out->integer_values, writable.data());
  EXPECT_EQ(writable, counts);
  idp_free_release(out);
  // A noisy count beyond bigint, in place: refused, as into an array of its own.
  writable.assign(1000, INT64_MAX);
  request.epsilon = 0.01;
  idp_cells huge{2, names, keys.dictionaries(), 1000, {keys.codes()}, writable.data(), false, 0, {}, {}, {}, true};
  EXPECT_EQ(prepare_and_release(&request, &huge, &randomness, nullptr, &out, &error), IDP_OUT_OF_RANGE);
  EXPECT_STREQ(error.message, "noisy count out of range for bigint");
  EXPECT_EQ(out, nullptr);
}

// Which keys a row prints: key k when the row is a cell, or when k is a level
// of hierarchy key_axis[k] no deeper than the row's depth there.
static std::vector<bool> printed_keys(const idp_release_table& table, std::size_t row) {
  std::vector<bool> printed(table.n_keys);
  for (std::size_t k = 0; k < table.n_keys; ++k)
    printed[k] = table.row_is_cell[row] ||
                 (table.key_axis[k] < table.n_axes &&
                  table.key_depth[k] <= table.row_depth[row * table.n_axes + table.key_axis[k]]);
  return printed;
}

TEST(CApi, HierarchyAndCrossedReleasesShareTheTable) {
  const auto table = delinquents();
  const auto keys = table.text_keys();
  const char* names[] = {"county", "edu"};
  const char* hierarchy[] = {"county"};
  const char* option_keys[] = {"level", "crossed"};
  const char* option_values[] = {"true", "[\"edu\"]"};
  idp_request request{};
  request.mechanism = "integer_laplace";
  request.epsilon = 1;
  request.n_hierarchy = 1;
  request.hierarchy = hierarchy;
  request.n_options = 1;  // {"level": true}
  request.option_keys = option_keys;
  request.option_values = option_values;
  idp_cells cells{2, names, keys.dictionaries(), 16, {keys.codes()}, table.counts.data(), false, 0, {}, {}, {}, false};
  idp_randomness randomness{true, 11, 1};
  idp_error error{};
  idp_request_info info{};
  ASSERT_EQ(check_prepared(&request, 2, names, &info, &error), IDP_OK) << error.message;
  EXPECT_EQ(info.n_level_columns, 1u);
  EXPECT_TRUE(info.integer_output);

  // One hierarchy: the grand total, 4 counties, 16 cells; edu is no level.
  idp_release_table* out = nullptr;
  ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  ASSERT_EQ(out->n_rows, 21u);
  ASSERT_EQ(out->n_axes, 1u);
  EXPECT_EQ(out->key_axis[0], 0u);
  EXPECT_EQ(out->key_depth[0], 1u);
  EXPECT_EQ(out->key_axis[1], 1u);
  std::int64_t cells_total = 0, root_total = 0;
  std::size_t counties = 0;
  for (std::size_t r = 0; r < out->n_rows; ++r) {
    const auto printed = printed_keys(*out, r);
    if (out->row_is_cell[r]) {
      EXPECT_EQ(printed, std::vector<bool>({true, true}));
      cells_total += out->integer_values[r];
    } else if (out->row_depth[r] == 1) {
      EXPECT_EQ(printed, std::vector<bool>({true, false}));
      ++counties;
    } else {
      EXPECT_EQ(out->row_depth[r], 0u);
      EXPECT_EQ(printed, std::vector<bool>({false, false}));
      root_total = out->integer_values[r];
    }
  }
  EXPECT_EQ(counties, 4u);
  EXPECT_EQ(cells_total, root_total);
  idp_free_release(out);

  // Crossed with edu: every (county node, edu node) pair, two depths a row.
  request.n_options = 2;
  ASSERT_EQ(check_prepared(&request, 2, names, &info, &error), IDP_OK) << error.message;
  EXPECT_EQ(info.n_level_columns, 2u);
  request.mechanism = "cascade";
  request.has_delta = true;
  request.delta = 1e-6;
  ASSERT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  ASSERT_EQ(out->n_rows, 25u);
  ASSERT_EQ(out->n_axes, 2u);
  EXPECT_EQ(out->key_axis[0], 0u);
  EXPECT_EQ(out->key_axis[1], 1u);
  for (std::size_t r = 0; r < out->n_rows; ++r) {
    const auto printed = printed_keys(*out, r);
    EXPECT_EQ(printed[0], out->row_depth[2 * r] == 1);
    EXPECT_EQ(printed[1], out->row_depth[2 * r + 1] == 1);
  }
  idp_free_release(out);

  // A NULL key in a level column is refused without the level columns.
  auto with_null = table.pointers();
  with_null[0] = nullptr;
  const test_tables::TextKeys null_keys(with_null, 2);
  idp_cells null_cells{2, names, null_keys.dictionaries(), 16, {null_keys.codes()}, table.counts.data(), false, 0, {}, {}, {}, false};
  request.n_options = 0;
  request.mechanism = "integer_laplace";
  request.has_delta = false;
  EXPECT_EQ(prepare_and_release(&request, &null_cells, &randomness, nullptr, &out, &error), IDP_NULL_VALUE);
  EXPECT_STREQ(error.message, "hierarchy column \"county\" has a NULL key");
  EXPECT_EQ(out, nullptr);
}
