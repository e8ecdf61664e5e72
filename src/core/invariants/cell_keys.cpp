// Dictionary encoding of the cells' key columns (see cell_keys.hpp). Each
// column's texts get dense codes in order of first appearance; SQL NULL gets
// a code of its own, distinct from the empty string, as GROUP BY treats it.
// The codes drive everything downstream (margin groups, duplicate detection),
// so no key text is kept after construction.
#include "cell_keys.hpp"

#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>
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

// Codes of column `column` for every cell; returns the number of levels.
std::uint32_t encode_column(std::size_t n_cells, std::size_t n_columns, std::size_t column,
                            const char* const* text, const Interrupts& interrupts,
                            std::vector<std::uint32_t>& codes) {
  std::unordered_map<std::string_view, std::uint32_t> code_of_text;
  std::uint32_t null_code = kNoCode;
  std::uint32_t n_levels = 0;
  const char* previous = nullptr;  // sources sorted by key repeat the last value
  std::uint32_t previous_code = kNoCode;
  codes.resize(n_cells);
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    const char* value = text[i * n_columns + column];
    if (value == nullptr) {
      if (null_code == kNoCode) null_code = n_levels++;
      codes[i] = null_code;
      continue;
    }
    if (previous == nullptr || std::strcmp(value, previous) != 0) {
      auto inserted = code_of_text.try_emplace(std::string_view(value), n_levels);
      if (inserted.second) ++n_levels;
      previous = value;
      previous_code = inserted.first->second;
    }
    codes[i] = previous_code;
  }
  return n_levels;
}

// "Key (county, edu)=(Alpha, null)", as PostgreSQL words unique violations.
std::string describe_key(const std::vector<std::string>& names, const char* const* row) {
  std::string columns, values;
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (j > 0) {
      columns += ", ";
      values += ", ";
    }
    columns += names[j];
    values += row[j] == nullptr ? "null" : row[j];
  }
  return "Key (" + columns + ")=(" + values + ")";
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t j = 0; j < names.size(); ++j) out += (j > 0 ? ", " : "") + names[j];
  return out;
}

}  // namespace

CellKeys::CellKeys(std::size_t n_cells, std::vector<std::string> column_names,
                   const char* const* text, const Interrupts& interrupts)
    : n_cells_(n_cells), column_names_(std::move(column_names)) {
  if (n_cells >= std::numeric_limits<std::uint32_t>::max()) {
    throw TooLarge("too many cells in source",
                   "The source returned " + std::to_string(n_cells) + " cells.",
                   "Release fewer than 4294967295 cells at a time.");
  }
  check_column_names(column_names_);
  const std::size_t n_columns = column_names_.size();
  codes_.resize(n_columns);
  n_levels_.resize(n_columns);
  for (std::size_t j = 0; j < n_columns; ++j) {
    n_levels_[j] = encode_column(n_cells, n_columns, j, text, interrupts, codes_[j]);
  }
  check_no_duplicate_cells(text, interrupts);
}

void CellKeys::check_no_duplicate_cells(const char* const* text,
                                        const Interrupts& interrupts) const {
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
    throw InvalidData(
        "duplicate cell in source",
        describe_key(column_names_, text + i * n_columns()) + " appears more than once.",
        "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
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
