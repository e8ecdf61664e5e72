// Test helper: builds the cells of a release from key values, the way the
// shim hands them to the core (row-major byte strings, here the text itself,
// nullptr for NULL).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interrupts.hpp"
#include "invariants/cell_keys.hpp"

namespace invariant_dp::test_tables {

// Row-major keys given as C strings (nullptr = NULL), as KeyRows: each key's
// bytes are its text. table tags the rows as the C boundary does (source 1).
class TextKeys {
 public:
  TextKeys(const std::vector<const char*>& text, std::size_t n_columns, int table = 1)
      : n_rows_(n_columns == 0 ? 0 : text.size() / n_columns), n_columns_(n_columns), data_(text.size()),
        size_(text.size()), table_(table) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      data_[i] = text[i];
      size_[i] = text[i] ? static_cast<std::uint32_t>(std::string_view(text[i]).size()) : 0;
    }
  }
  // Rows without key columns (n_columns 0): n_rows given explicitly.
  TextKeys(std::size_t n_rows) : n_rows_(n_rows), n_columns_(0), data_(1), size_(1), table_(1) {}

  KeyRows rows() const { return KeyRows{n_rows_, n_columns_, data_.data(), size_.data(), table_}; }
  const void* const* data() const { return data_.data(); }
  const std::uint32_t* size() const { return size_.data(); }

 private:
  std::size_t n_rows_, n_columns_;
  std::vector<const void*> data_;
  std::vector<std::uint32_t> size_;
  int table_;
};

struct TestTable {
  std::vector<std::string> columns;
  std::vector<std::string> text;  // row-major
  std::vector<std::int64_t> counts;

  std::vector<const char*> pointers() const {
    std::vector<const char*> out;
    for (const auto& t : text) out.push_back(t.c_str());
    return out;
  }
  TextKeys text_keys() const { return TextKeys(pointers(), columns.size()); }
  CellKeys keys() const { return CellKeys(text_keys().rows(), columns, Interrupts()); }
};

// A full grid: every combination of levels[0] x levels[1] x ..., with the
// given counts in row-major order (last column fastest).
inline TestTable grid(const std::vector<std::string>& columns, const std::vector<int>& levels,
                      const std::vector<std::int64_t>& counts) {
  TestTable table{columns, {}, counts};
  std::vector<int> index(levels.size(), 0);
  for (std::size_t cell = 0; cell < counts.size(); ++cell) {
    for (std::size_t c = 0; c < levels.size(); ++c) table.text.push_back(columns[c] + std::to_string(index[c]));
    for (int c = static_cast<int>(levels.size()) - 1; c >= 0; --c) {
      if (++index[c] < levels[c]) break;
      index[c] = 0;
    }
  }
  return table;
}

// The 4x4 delinquent-children table (Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Table 2, from FCSM 2005; Gamma's row total is misprinted
// there as 35, its cells sum to 25).
inline TestTable delinquents() {
  return grid({"county", "edu"}, {4, 4}, {15, 1, 3, 1, 20, 10, 10, 15, 3, 10, 10, 2, 12, 14, 7, 2});
}

}  // namespace invariant_dp::test_tables
