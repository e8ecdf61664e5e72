// Dictionary encoding of the cells' key columns (see cell_keys.hpp). Each
// encoded column's keys get dense codes in order of first appearance; SQL
// NULL gets a code of its own, distinct from the empty string, as GROUP BY
// treats it. The codes drive everything downstream (margin groups, the
// hierarchy), so no key bytes are kept after construction. Dictionaries
// and the duplicate check are key_tuples.hpp's tables.
#include "cell_keys.hpp"

#include <limits>
#include <string_view>
#include <unordered_set>

#include "../errors.hpp"
#include "../large_buffer.hpp"
#include "cell_grouping.hpp"
#include "key_tuples.hpp"

namespace invariant_dp {
namespace {

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

// The first row whose key on `column` an earlier row has (n_rows: none),
// with a bit per code.
std::size_t first_repeated_key(const KeyRows& keys, std::size_t column, const Interrupts& interrupts) {
  std::vector<bool> seen(keys.dictionaries[column].n_levels, false);
  for (std::size_t i = 0; i < keys.n_rows; ++i) {
    interrupts.poll_every(i);
    const std::uint32_t code = keys.code(i, column);
    if (seen[code]) return i;
    seen[code] = true;
  }
  return keys.n_rows;
}

}  // namespace

CellKeys::CellKeys(std::size_t n_cells, std::vector<std::string> column_names, int table)
    : n_cells_(n_cells), column_names_(std::move(column_names)), table_(table) {
  check_cell_count(n_cells);
  check_column_names(column_names_);
  codes_.resize(column_names_.size(), nullptr);
  owned_codes_.resize(column_names_.size());
  n_levels_.resize(column_names_.size());
  encoded_.assign(column_names_.size(), true);
}

CellKeys::CellKeys(const KeyRows& keys, std::vector<std::string> column_names, const Interrupts& interrupts,
                   const std::vector<bool>* encoded, KeyCodes storage)
    : CellKeys(keys.n_rows, std::move(column_names), keys.table) {
  if (keys.n_columns != column_names_.size())
    throw Error("the keys have " + std::to_string(keys.n_columns) + " columns, the names " +
                std::to_string(column_names_.size()));
  if (encoded != nullptr) encoded_ = *encoded;
  for (std::size_t j = 0; j < column_names_.size(); ++j) {
    if (!encoded_.at(j)) continue;
    if (keys.row_numbered(j)) {
      // Its codes are the rows' numbers: numbered by first appearance, one
      // level per cell (a domain's extra keys are not among the cells').
      owned_codes_[j] = row_numbers(n_cells_, interrupts);
      n_levels_[j] = static_cast<std::uint32_t>(n_cells_);
      codes_[j] = owned_codes_[j].data();
      continue;
    }
    const std::uint32_t* column = keys.columns[j];
    const std::size_t n_levels = keys.dictionaries[j].n_levels;
    if (detail::numbered_by_first_appearance(column, n_cells_, n_levels, interrupts)) {
      n_levels_[j] = static_cast<std::uint32_t>(n_levels);
      if (storage == KeyCodes::borrowed) {
        codes_[j] = column;
        continue;
      }
      owned_codes_[j].assign(column, column + n_cells_);
    } else {
      TupleIds renumbered = dense_tuple_ids(keys, {j}, interrupts);
      owned_codes_[j] = std::move(renumbered.id);
      n_levels_[j] = renumbered.n_ids;
    }
    codes_[j] = owned_codes_[j].data();
  }
  check_no_duplicate_keys(keys, interrupts);
}

CellKeys CellKeys::from_codes(std::vector<std::string> column_names, std::vector<std::vector<std::uint32_t>> codes,
                              std::vector<std::uint32_t> n_levels, const Interrupts& interrupts) {
  CellKeys cells(codes.empty() ? 0 : codes[0].size(), std::move(column_names), 0);
  if (codes.size() != cells.column_names_.size() || n_levels.size() != codes.size())
    throw Error("codes for " + std::to_string(codes.size()) + " columns, names for " +
                std::to_string(cells.column_names_.size()));
  cells.owned_codes_ = std::move(codes);
  cells.codes_by_first_appearance_ = false;
  for (std::size_t j = 0; j < cells.owned_codes_.size(); ++j) cells.codes_[j] = cells.owned_codes_[j].data();
  cells.n_levels_ = std::move(n_levels);
  cells.check_no_duplicate_codes(interrupts);
  return cells;
}

std::uint32_t CellKeys::n_levels(std::size_t column) const {
  (void) codes(column);
  return n_levels_[column];
}

const std::uint32_t* CellKeys::codes(std::size_t column) const {
  if (!encoded_.at(column))
    throw Error("key column \"" + column_names_[column] + "\" was not encoded");
  return codes_[column];
}

void CellKeys::throw_duplicate(std::size_t row) const {
  InvalidData duplicate("duplicate cell in source", "Key {key0} appears more than once.",
                        "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
  duplicate.name_key(0, KeyRef{table_, row});
  throw duplicate;
}

void CellKeys::check_no_duplicate_codes(const Interrupts& interrupts) const {
  // A column whose codes differ on every cell settles it (the deepest level
  // of a geography: one block per cell), found with a bit per code instead
  // of a table of tuples.
  for (std::size_t j = 0; j < n_columns() && n_cells_ > 1; ++j) {
    if (n_levels_[j] < n_cells_ || n_levels_[j] > 4 * n_cells_ + 64) continue;
    std::vector<std::uint64_t> seen((n_levels_[j] + 63) / 64, 0);
    std::size_t i = 0;
    for (; i < n_cells_; ++i) {
      interrupts.poll_every(i);
      const std::uint32_t c = codes_[j][i];
      if (c >= n_levels_[j] || (seen[c / 64] >> (c % 64) & 1)) break;
      seen[c / 64] |= std::uint64_t(1) << (c % 64);
    }
    if (i == n_cells_) return;
  }
  std::vector<detail::CodeColumn> columns;
  for (std::size_t j = 0; j < n_columns(); ++j) columns.push_back({codes_[j], n_levels_[j]});
  const detail::Grouping cells = detail::group_by_codes(n_cells_, columns, interrupts);
  if (cells.n_groups == n_cells_) return;
  // Groups are numbered by first appearance, so the first cell whose id is
  // not a new one repeats an earlier key.
  std::uint32_t next_new_id = 0;
  for (std::size_t i = 0; i < n_cells_; ++i) {
    if (cells.group_of_cell[i] != next_new_id) throw_duplicate(i);
    ++next_new_id;
  }
}

void CellKeys::check_no_duplicate_keys(const KeyRows& keys, const Interrupts& interrupts) const {
  // A column whose keys differ on every row makes every tuple of keys
  // differ: a wide release usually has one (a block, a person), and then
  // no table of tuples is needed. A row-numbered column is one by
  // construction (each row brought a new key). An encoded column has
  // counted its distinct keys already; another may have as many only if
  // its dictionary does (a domain may have added keys the rows do not have).
  for (std::size_t j = 0; j < n_columns(); ++j)
    if (keys.row_numbered(j) || (encoded_[j] && n_levels_[j] == n_cells_)) return;
  for (std::size_t j = 0; j < n_columns(); ++j) {
    if (encoded_[j] || keys.dictionaries[j].n_levels < n_cells_) continue;
    const std::size_t repeat = first_repeated_key(keys, j, interrupts);
    if (repeat == n_cells_) return;
    if (n_columns() == 1) throw_duplicate(repeat);
  }
  if (n_columns() == 1) {
    // Fewer keys than rows in the only column: some key repeats.
    throw_duplicate(first_repeated_key(keys, 0, interrupts));
  }
  const TupleIds cells = dense_tuple_ids(keys, interrupts);
  if (cells.n_ids == n_cells_) return;
  // Ids are numbered by first appearance, so the first row whose id is not
  // a new one repeats an earlier tuple.
  std::uint32_t next_new_id = 0;
  for (std::size_t i = 0; i < n_cells_; ++i) {
    if (cells.id[i] != next_new_id) throw_duplicate(i);
    ++next_new_id;
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
