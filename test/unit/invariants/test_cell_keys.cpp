// Unit tests of CellKeys: dictionary encoding of key columns (NULL is its own
// level, distinct from ''), duplicate-cell detection with a PostgreSQL-style
// message naming the key, column lookup errors, and the large-input paths of
// the grouping (hashed keys, keys wider than 64 bits, a million cells).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "invariants/cell_keys.hpp"
#include "invariants/key_tuples.hpp"
#include "table_builder.hpp"

namespace invariant_dp {
namespace {

using Row = std::vector<std::optional<std::string>>;

CellKeys make_keys(const std::vector<std::string>& names, const std::vector<Row>& rows,
                   const Interrupts& interrupts = Interrupts()) {
  std::vector<const char*> text;
  for (const Row& row : rows) {
    for (const auto& value : row) text.push_back(value ? value->c_str() : nullptr);
  }
  return CellKeys(test_tables::TextKeys(text, names.size()).rows(), names, interrupts);
}

// n cells whose text in column j is the decimal of (i * multiplier[j]) % modulus[j].
CellKeys make_numeric_keys(std::size_t n_cells, const std::vector<std::size_t>& multipliers,
                           const std::vector<std::size_t>& moduli, std::vector<std::string>& storage) {
  const std::size_t n_columns = moduli.size();
  storage.clear();
  storage.reserve(n_cells * n_columns);
  std::vector<const char*> text;
  for (std::size_t i = 0; i < n_cells; ++i) {
    for (std::size_t j = 0; j < n_columns; ++j) storage.push_back(std::to_string(i * multipliers[j] % moduli[j]));
  }
  for (const std::string& s : storage) text.push_back(s.c_str());
  std::vector<std::string> names;
  for (std::size_t j = 0; j < n_columns; ++j) names.push_back("k" + std::to_string(j));
  return CellKeys(test_tables::TextKeys(text, n_columns).rows(), names, Interrupts());
}

TEST(CellKeys, EncodesLevelsInOrderOfFirstAppearance) {
  const CellKeys keys = make_keys({"county", "edu"}, {{"Beta", "Low"}, {"Alpha", "Low"}, {"Beta", "High"}});
  EXPECT_EQ(keys.n_cells(), 3u);
  EXPECT_EQ(keys.n_columns(), 2u);
  EXPECT_EQ(keys.n_levels(0), 2u);
  EXPECT_EQ(keys.code(0, 0), 0u);
  EXPECT_EQ(keys.code(0, 1), 1u);
  EXPECT_EQ(keys.code(0, 2), 0u);
  EXPECT_EQ(keys.code(1, 0), 0u);
  EXPECT_EQ(keys.code(1, 2), 1u);
  EXPECT_EQ(keys.codes(1)[1], 0u);
}

TEST(CellKeys, NullIsALevelOfItsOwnDistinctFromEmptyString) {
  const CellKeys keys = make_keys({"k"}, {{std::nullopt}, {""}, {"x"}});
  EXPECT_EQ(keys.n_levels(0), 3u);
  EXPECT_NE(keys.code(0, 0), keys.code(0, 1));
}

TEST(CellKeys, NullAndEmptyStringAreDifferentCells) {
  EXPECT_NO_THROW(make_keys({"a", "b"}, {{"x", std::nullopt}, {"x", ""}}));
}

TEST(CellKeys, DuplicateCellNamesItsKey) {
  try {
    make_keys({"county", "edu"}, {{"Alpha", "Low"}, {"Alpha", "High"}, {"Alpha", "Low"}});
    FAIL() << "expected InvalidData";
  } catch (const InvalidData& e) {
    EXPECT_STREQ(e.what(), "duplicate cell in source");
    // The core names the key by its row; the shim renders "{key0}" from it.
    EXPECT_EQ(e.detail(), "Key {key0} appears more than once.");
    EXPECT_EQ(e.keys()[0].table, 1);
    EXPECT_EQ(e.keys()[0].row, 2u);
    EXPECT_EQ(e.keys()[0].columns, ~std::uint64_t{0});
    EXPECT_EQ(e.keys()[1].table, 0);
    EXPECT_EQ(e.hint(), "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
  }
}

TEST(CellKeys, DuplicateNullKeyIsNamed) {
  try {
    make_keys({"a", "b"}, {{std::nullopt, ""}, {std::nullopt, ""}});
    FAIL() << "expected InvalidData";
  } catch (const InvalidData& e) {
    EXPECT_EQ(e.detail(), "Key {key0} appears more than once.");
    EXPECT_EQ(e.keys()[0].row, 1u);
  }
}

TEST(CellKeys, NoKeyColumnsAllowOneCellOnly) {
  EXPECT_NO_THROW(CellKeys(test_tables::TextKeys(1).rows(), {}, Interrupts()));
  EXPECT_THROW(CellKeys(test_tables::TextKeys(2).rows(), {}, Interrupts()), InvalidData);
  EXPECT_NO_THROW(CellKeys(test_tables::TextKeys({}, 1).rows(), {"a"}, Interrupts()));
}

TEST(CellKeys, ColumnIndexFindsEveryColumn) {
  const CellKeys keys = make_keys({"state", "county", "edu"}, {{"s", "c", "e"}});
  EXPECT_EQ(keys.column_index("state"), 0u);
  EXPECT_EQ(keys.column_index("edu"), 2u);
}

TEST(CellKeys, UnknownColumnIsNamedAndKnownOnesListed) {
  const CellKeys keys = make_keys({"state", "county"}, {{"s", "c"}});
  try {
    keys.column_index("town");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "key column \"town\" does not exist");
    EXPECT_EQ(e.detail(), "The key columns are: state, county.");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(CellKeys, RepeatedColumnNameIsRejected) {
  EXPECT_THROW(make_keys({"a", "a"}, {{"x", "y"}}), InvalidArgument);
}

TEST(CellKeys, MillionCellsWithFewLevelsEncode) {
  std::vector<std::string> storage;
  const CellKeys keys = make_numeric_keys(1000000, {1, 1}, {1000, 1000003}, storage);
  EXPECT_EQ(keys.n_levels(0), 1000u);
  EXPECT_EQ(keys.n_levels(1), 1000000u);
}

TEST(CellKeys, WideKeysUseHashedAndOverflowingPaths) {
  // Five columns of ~50k levels each: the packed tuple exceeds 64 bits.
  std::vector<std::string> storage;
  const std::size_t n = 50000;
  EXPECT_NO_THROW(make_numeric_keys(n, {1, 7, 11, 13, 17}, {n, n, n, n, n}, storage));
  // Same, but cells 0 and n/2 collide on every column: duplicate.
  EXPECT_THROW(make_numeric_keys(n, {2, 4, 6, 8, 10}, {n, n, n, n, n}, storage), InvalidData);
  // Two columns of many levels: hashed grouping, duplicate found.
  EXPECT_THROW(make_numeric_keys(n, {1, 1}, {n / 2, n / 2}, storage), InvalidData);
  EXPECT_NO_THROW(make_numeric_keys(n, {1, 1}, {n / 2, n / 2 + 1}, storage));
}

// Rows whose dictionaries hold one more key than the rows have (as a
// domain's keys do): the first n - 1 of n coded rows.
CellKeys keys_with_an_extra_level(const std::vector<const char*>& text, std::size_t n_columns,
                                  const std::vector<bool>& encoded) {
  const test_tables::TextKeys all(text, n_columns);
  KeyRows rows = all.rows();
  rows.n_rows -= 1;
  std::vector<std::string> names;
  for (std::size_t j = 0; j < n_columns; ++j) names.push_back("k" + std::to_string(j));
  return CellKeys(rows, names, Interrupts(), &encoded);
}

TEST(CellKeys, AColumnOfDistinctKeysSettlesDuplicatesOnlyWhenTheRowsHaveThemAll) {
  // Column 0's dictionary has as many keys (a, b, c) as there are rows, but
  // the rows repeat "a": the tuples still decide. Distinct tuples pass;
  // a repeated tuple is named by its row, whichever columns are encoded.
  for (const std::vector<bool>& encoded : {std::vector<bool>{false, false}, std::vector<bool>{false, true},
                                           std::vector<bool>{true, false}}) {
    EXPECT_NO_THROW(keys_with_an_extra_level({"a", "x", "b", "x", "a", "y", "c", "z"}, 2, encoded));
    try {
      keys_with_an_extra_level({"a", "x", "b", "x", "a", "x", "c", "z"}, 2, encoded);
      FAIL() << "expected InvalidData";
    } catch (const InvalidData& e) {
      EXPECT_EQ(e.keys()[0].row, 2u);
    }
  }
  // One column whose dictionary is as large as the rows, with a repeat.
  try {
    keys_with_an_extra_level({"a", "b", "a", "c"}, 1, {false});
    FAIL() << "expected InvalidData";
  } catch (const InvalidData& e) {
    EXPECT_EQ(e.keys()[0].row, 2u);
  }
}

TEST(CellKeys, BorrowsCodesOnlyWhenTheyAreNumberedByFirstAppearance) {
  // Column 0's codes are the encoder's (first appearance, every key shown):
  // borrowed, the rows' own array. Without the last row, column 1's
  // dictionary holds a key ("z") no row shows: renumbered, as when copied.
  const test_tables::TextKeys all({"a", "x", "b", "y", "c", "x", "a", "z"}, 2);
  KeyRows rows = all.rows();
  rows.n_rows -= 1;
  const std::vector<bool> encoded{true, true};
  const CellKeys borrowed(rows, {"k0", "k1"}, Interrupts(), &encoded, KeyCodes::borrowed);
  const CellKeys copied(rows, {"k0", "k1"}, Interrupts(), &encoded, KeyCodes::copied);
  EXPECT_EQ(borrowed.codes(0), rows.columns[0]);
  EXPECT_NE(copied.codes(0), rows.columns[0]);
  EXPECT_NE(borrowed.codes(1), rows.columns[1]);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(borrowed.n_levels(j), copied.n_levels(j));
    EXPECT_EQ(std::vector<std::uint32_t>(borrowed.codes(j), borrowed.codes(j) + 3),
              std::vector<std::uint32_t>(copied.codes(j), copied.codes(j) + 3));
  }
  EXPECT_EQ(borrowed.n_levels(0), 3u);  // a, b, c
  EXPECT_EQ(borrowed.n_levels(1), 2u);  // x, y: z dropped
  // Codes that skip ahead (a domain's dictionary filled first) are renumbered too.
  const std::uint32_t skipping[] = {1, 0, 2};
  const std::uint32_t* columns[] = {skipping};
  const KeyRows skipped{3, 1, columns, rows.dictionaries, 1};
  const CellKeys renumbered(skipped, {"k0"}, Interrupts(), nullptr, KeyCodes::borrowed);
  EXPECT_NE(renumbered.codes(0), skipping);
  EXPECT_EQ(std::vector<std::uint32_t>(renumbered.codes(0), renumbered.codes(0) + 3),
            (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(CellKeys, RowNumberedColumnsAreDistinctAndCodeEachRowByItsNumber) {
  // Column 1 of "a x / a y / b z" is passed row-numbered (no array): its
  // codes are 0, 1, 2. Column 0 repeats "a", yet no tuple repeats.
  const test_tables::TextKeys all({"a", "x", "a", "y", "b", "z"}, 2);
  const KeyRows stored = all.rows();
  const std::uint32_t* columns[] = {stored.columns[0], nullptr};
  const KeyRows rows{3, 2, columns, stored.dictionaries, 1};
  EXPECT_TRUE(rows.row_numbered(1));
  EXPECT_EQ(rows.code(2, 1), 2u);
  std::uint64_t scratch;
  EXPECT_EQ(rows.key(1, 1, scratch), "y");
  const std::vector<bool> none{false, false}, both{true, true};
  EXPECT_NO_THROW(CellKeys(rows, {"k0", "k1"}, Interrupts(), &none));
  const CellKeys encoded(rows, {"k0", "k1"}, Interrupts(), &both, KeyCodes::borrowed);
  EXPECT_EQ(encoded.n_levels(1), 3u);
  EXPECT_EQ(std::vector<std::uint32_t>(encoded.codes(1), encoded.codes(1) + 3), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(encoded.n_levels(0), 2u);
  // Grouping by it and by both: one group per row.
  EXPECT_EQ(dense_tuple_ids(rows, {1}, Interrupts()).n_ids, 3u);
  EXPECT_EQ(dense_tuple_ids(rows, Interrupts()).n_ids, 3u);
  EXPECT_EQ(dense_tuple_ids(rows, {0}, Interrupts()).n_ids, 2u);
  // Its dictionary may hold more keys than the rows (a domain's): the
  // first n_rows are the rows'.
  const KeyRows first_two{2, 2, columns, stored.dictionaries, 1};
  EXPECT_EQ(CellKeys(first_two, {"k0", "k1"}, Interrupts(), &both).n_levels(1), 2u);
}

using test_interrupts::always_pending;

TEST(CellKeys, InterruptStopsEncoding) {
  std::vector<Row> rows;
  for (int i = 0; i < 10000; ++i) rows.push_back({std::to_string(i)});
  EXPECT_THROW(make_keys({"k"}, rows, Interrupts(&always_pending, nullptr)), Interrupted);
}

}  // namespace
}  // namespace invariant_dp
