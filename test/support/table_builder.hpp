// Test helper: builds the cells of a release from key values, the way the
// shim hands them to the core (each key coded in its column's dictionary of
// byte strings, here the text itself, nullptr for NULL).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "capi/capi_convert.hpp"
#include "capi/invariant_dp_core.h"
#include "interrupts.hpp"
#include "invariants/cell_keys.hpp"
#include "invariants/key_encoder.hpp"

namespace invariant_dp::test_tables {

// Row-major keys given as C strings (nullptr = NULL), coded as the shim
// codes them (one KeyEncoder per column, each key's bytes its text, a
// column's codes side by side): as KeyRows for the core, or as the C
// boundary's codes and dictionaries. table tags the rows as the C boundary
// does (source 1).
class TextKeys {
 public:
  TextKeys(const std::vector<const char*>& text, std::size_t n_columns, int table = 1)
      : n_rows_(n_columns == 0 ? 0 : text.size() / n_columns), n_columns_(n_columns), encoders_(n_columns),
        codes_(n_columns, std::vector<std::uint32_t>(n_rows_)), table_(table) {
    std::vector<const void*> data(n_rows_);
    std::vector<std::uint32_t> size(n_rows_);
    for (std::size_t k = 0; k < n_columns; ++k) {
      for (std::size_t i = 0; i < n_rows_; ++i) {
        const char* key = text[i * n_columns + k];
        data[i] = key;
        size[i] = key ? static_cast<std::uint32_t>(std::string_view(key).size()) : 0;
      }
      encoders_[k].code(n_rows_, data.data(), size.data(), codes_[k].data(), Interrupts());
      columns_.push_back(codes_[k].data());
    }
    for (const KeyEncoder& encoder : encoders_) {
      dictionaries_.push_back(encoder.dictionary());
      c_dictionaries_.push_back(capi::c_dictionary(encoder.dictionary()));
    }
  }
  // Rows without key columns (n_columns 0): n_rows given explicitly.
  TextKeys(std::size_t n_rows) : n_rows_(n_rows), n_columns_(0), table_(1) {}
  TextKeys(const TextKeys&) = delete;
  TextKeys& operator=(const TextKeys&) = delete;

  KeyRows rows() const { return KeyRows{n_rows_, n_columns_, columns_.data(), dictionaries_.data(), table_}; }
  // For idp_cells: the codes (a column at a time), and the dictionaries.
  const std::uint32_t* const* codes() const { return columns_.data(); }
  const idp_key_dictionary* dictionaries() const { return c_dictionaries_.data(); }

 private:
  std::size_t n_rows_, n_columns_;
  std::vector<KeyEncoder> encoders_;
  std::vector<std::vector<std::uint32_t>> codes_;
  std::vector<const std::uint32_t*> columns_;
  std::vector<KeyDictionary> dictionaries_;
  std::vector<idp_key_dictionary> c_dictionaries_;
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

// n counts, geometric of the given mean (sparse tables for small means).
inline std::vector<std::int64_t> random_counts(std::size_t n, std::mt19937_64& g, double mean) {
  std::geometric_distribution<int> counts(1 / (1 + mean));
  std::vector<std::int64_t> out(n);
  for (auto& c : out) c = counts(g);
  return out;
}

// The 4x4 delinquent-children table (Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Table 2, from FCSM 2005; Gamma's row total is misprinted
// there as 35, its cells sum to 25).
inline TestTable delinquents() {
  return grid({"county", "edu"}, {4, 4}, {15, 1, 3, 1, 20, 10, 10, 15, 3, 10, 10, 2, 12, 14, 7, 2});
}

// region (3) > county (4 each) > cells (edu, 5 each): 60 leaves, with
// these counts in that order.
inline TestTable geography(std::vector<std::int64_t> counts) {
  TestTable t{{"region", "county", "edu"}, {}, std::move(counts)};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      for (int e = 0; e < 5; ++e) {
        t.text.push_back("r" + std::to_string(r));
        t.text.push_back("c" + std::to_string(r) + std::to_string(c));
        t.text.push_back("e" + std::to_string(e));
      }
  return t;
}

}  // namespace invariant_dp::test_tables
