// Dictionary encoding of the cells' key columns (see cell_keys.hpp). Each
// column's keys get dense codes in order of first appearance; SQL NULL gets
// a code of its own, distinct from the empty string, as GROUP BY treats it.
// The codes drive everything downstream (margin groups, duplicate
// detection), so no key bytes are kept after construction. The dictionary
// is an open-addressing table sized from the row count: no allocation per
// key, which matters at millions of cells.
#include "cell_keys.hpp"

#include <limits>
#include <string_view>
#include <unordered_set>

#include "../errors.hpp"
#include "cell_grouping.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint32_t kNoCode = std::numeric_limits<std::uint32_t>::max();

void check_column_names(const std::vector<std::string>& names) {
  std::unordered_set<std::string> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second) {
      throw InvalidArgument("key column \"" + name + "\" appears more than once",
                            "Every key column of a release needs a distinct name.",
                            "Rename one of the columns in the source query.");
    }
  }
}

// Codes of column `column` for every row; returns the number of levels.
// Each slot of the table holds the row that first had a key (kNoCode:
// empty), so a probe compares bytes with that row's key.
std::uint32_t encode_column(const KeyRows& keys, std::size_t column, const Interrupts& interrupts,
                            std::vector<std::uint32_t>& codes) {
  std::size_t capacity = 16;
  while (capacity < 2 * keys.n_rows) capacity *= 2;
  std::vector<std::uint32_t> slot_row(capacity, kNoCode);
  const std::size_t mask = capacity - 1;
  std::uint32_t null_code = kNoCode;
  std::uint32_t n_levels = 0;
  codes.resize(keys.n_rows);
  for (std::size_t i = 0; i < keys.n_rows; ++i) {
    interrupts.poll_every(i);
    if (keys.is_null(i, column)) {
      if (null_code == kNoCode) null_code = n_levels++;
      codes[i] = null_code;
      continue;
    }
    const std::string_view key = keys.key(i, column);
    // Sources sorted by a key repeat the previous row's value.
    if (i > 0 && !keys.is_null(i - 1, column) && keys.key(i - 1, column) == key) {
      codes[i] = codes[i - 1];
      continue;
    }
    std::size_t slot = hash_key_bytes(key) & mask;
    while (slot_row[slot] != kNoCode && keys.key(slot_row[slot], column) != key) slot = (slot + 1) & mask;
    if (slot_row[slot] == kNoCode) {
      slot_row[slot] = static_cast<std::uint32_t>(i);
      codes[i] = n_levels++;
    } else {
      codes[i] = codes[slot_row[slot]];
    }
  }
  return n_levels;
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t j = 0; j < names.size(); ++j) out += (j > 0 ? ", " : "") + names[j];
  return out;
}

void check_cell_count(std::size_t n_cells) {
  if (n_cells >= std::numeric_limits<std::uint32_t>::max()) {
    throw TooLarge("too many cells in source",
                   "The source returned " + std::to_string(n_cells) + " cells.",
                   "Release fewer than 4294967295 cells at a time.");
  }
}

}  // namespace

CellKeys::CellKeys(std::size_t n_cells, std::vector<std::string> column_names, int table)
    : n_cells_(n_cells), column_names_(std::move(column_names)), table_(table) {
  check_cell_count(n_cells);
  check_column_names(column_names_);
  codes_.resize(column_names_.size());
  n_levels_.resize(column_names_.size());
}

CellKeys::CellKeys(const KeyRows& keys, std::vector<std::string> column_names, const Interrupts& interrupts)
    : CellKeys(keys.n_rows, std::move(column_names), keys.table) {
  if (keys.n_columns != column_names_.size())
    throw Error("the keys have " + std::to_string(keys.n_columns) + " columns, the names " +
                std::to_string(column_names_.size()));
  for (std::size_t j = 0; j < column_names_.size(); ++j)
    n_levels_[j] = encode_column(keys, j, interrupts, codes_[j]);
  check_no_duplicate_cells(interrupts);
}

CellKeys CellKeys::from_codes(std::vector<std::string> column_names, std::vector<std::vector<std::uint32_t>> codes,
                              std::vector<std::uint32_t> n_levels, const Interrupts& interrupts) {
  CellKeys cells(codes.empty() ? 0 : codes[0].size(), std::move(column_names), 0);
  if (codes.size() != cells.column_names_.size() || n_levels.size() != codes.size())
    throw Error("codes for " + std::to_string(codes.size()) + " columns, names for " +
                std::to_string(cells.column_names_.size()));
  cells.codes_ = std::move(codes);
  cells.n_levels_ = std::move(n_levels);
  cells.check_no_duplicate_cells(interrupts);
  return cells;
}

void CellKeys::check_no_duplicate_cells(const Interrupts& interrupts) const {
  std::vector<detail::CodeColumn> columns;
  for (std::size_t j = 0; j < n_columns(); ++j) columns.push_back({codes_[j].data(), n_levels_[j]});
  const detail::Grouping cells = detail::group_by_codes(n_cells_, columns, interrupts);
  if (cells.n_groups == n_cells_) return;
  // Groups are numbered by first appearance, so the first cell whose id is
  // not a new one repeats an earlier key.
  std::uint32_t next_new_id = 0;
  for (std::size_t i = 0; i < n_cells_; ++i) {
    if (cells.group_of_cell[i] == next_new_id) {
      ++next_new_id;
      continue;
    }
    InvalidData duplicate("duplicate cell in source", "Key {key0} appears more than once.",
                          "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
    duplicate.name_key(0, KeyRef{table_, i});
    throw duplicate;
  }
}

std::size_t CellKeys::column_index(const std::string& name) const {
  for (std::size_t j = 0; j < column_names_.size(); ++j) {
    if (column_names_[j] == name) return j;
  }
  const std::string known = column_names_.empty()
                                ? "The source has no key columns."
                                : "The key columns are: " + joined_names(column_names_) + ".";
  throw InvalidArgument("key column \"" + name + "\" does not exist", known,
                        "Name margins by the key columns of the source query.");
}

}  // namespace invariant_dp
