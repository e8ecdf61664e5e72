// Test helper: a release made through the C boundary (idp_release) seen as
// its release table: each row's keys as the table prints them (NULL below a
// rollup's level), its value, the true count it releases, and the rows
// coded for the error bars' boundary (invariant_dp_accuracy.h) as the shim
// codes them: one dictionary per key column, NULL a code of its own, each
// row named by an identity (here its row number: a test's rows are
// distinct by construction).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/invariant_dp_accuracy.h"
#include "capi/invariant_dp_core.h"
#include "table_builder.hpp"

namespace invariant_dp::test_tables {

inline idp_row_id row_id(std::size_t row) { return idp_row_id{0x9e3779b97f4a7c15ull * (row + 1), row}; }

// Row r's interval as the shim reads it (idp_release_bounds), in the
// values' type.
struct RowInterval {
  double lower, upper;
};
inline RowInterval row_interval(const idp_release_table& out, std::size_t r) {
  double lower = 0, upper = 0;
  std::int64_t integer_lower = 0, integer_upper = 0;
  idp_release_bounds(&out, r, 1, &lower, &upper, &integer_lower, &integer_upper);
  if (out.integer_output) return {double(integer_lower), double(integer_upper)};
  return {lower, upper};
}

class ReleaseTableRows {
 public:
  // The release table of `out` (made from `table`'s cells), its key columns
  // named as the source names them.
  ReleaseTableRows(const TestTable& table, const idp_release_table& out)
      : names_(table.columns), text_(table.text), law_(out.metadata_json) {
    const std::size_t n_keys = table.columns.size();
    for (std::size_t r = 0; r < out.n_rows; ++r) {
      const std::size_t cell = out.row_cell ? out.row_cell[r] : r;
      double truth = 0;
      std::vector<const char*> printed(n_keys, nullptr);
      for (std::size_t k = 0; k < n_keys; ++k) {
        const bool shown = out.row_is_cell == nullptr || out.row_is_cell[r] ||
                           (out.key_axis[k] < out.n_axes &&
                            out.key_depth[k] <= out.row_depth[r * out.n_axes + out.key_axis[k]]);
        if (shown) printed[k] = text_[cell * n_keys + k].c_str();
      }
      // The true count of the row: the cells whose keys agree on every key it prints.
      for (std::size_t c = 0; c < table.counts.size(); ++c) {
        bool under = true;
        for (std::size_t k = 0; k < n_keys && under; ++k)
          under = printed[k] == nullptr || table.text[c * n_keys + k] == printed[k];
        if (under) truth += double(table.counts[c]);
      }
      keys_.insert(keys_.end(), printed.begin(), printed.end());
      truth_.push_back(truth);
      value_.push_back(out.integer_values ? double(out.integer_values[r]) : out.values[r]);
      if (out.noise_sd != nullptr) sd_.push_back(out.noise_sd[r]);
      for (std::size_t a = 0; a < out.n_axes; ++a) level_[a].push_back(std::int32_t(out.row_depth[r * out.n_axes + a]));
      ids_.push_back(row_id(r));
    }
    n_rows_ = out.n_rows;
    n_axes_ = out.n_axes;
    code();
  }
  ReleaseTableRows(const ReleaseTableRows&) = delete;
  ReleaseTableRows& operator=(const ReleaseTableRows&) = delete;

  std::size_t n_rows() const { return n_rows_; }
  const std::string& law() const { return law_; }
  double noise(std::size_t row) const { return value_[row] - truth_[row]; }
  double truth(std::size_t row) const { return truth_[row]; }
  // The row's noise sd, when the release was asked for it ({"stddev": true}).
  double sd(std::size_t row) const { return sd_.at(row); }
  const char* key(std::size_t row, std::size_t k) const { return keys_[row * names_.size() + k]; }
  const std::vector<idp_row_id>& ids() const { return ids_; }

  // The table's columns: the keys, the count (bigint or float8), then a
  // level column per hierarchy when with_level.
  idp_table_columns columns(bool integer, bool with_level, bool known_keys) {
    column_names_.clear();
    types_.clear();
    for (const std::string& n : names_) {
      column_names_.push_back(n.c_str());
      types_.push_back(IDP_COLUMN_OTHER);
    }
    column_names_.push_back("n");
    types_.push_back(integer ? IDP_COLUMN_INT8 : IDP_COLUMN_FLOAT8);
    for (std::size_t a = 0; with_level && a < n_axes_; ++a) {
      column_names_.push_back(a == 0 ? "level" : "column_level");
      types_.push_back(IDP_COLUMN_INT4);
    }
    idp_table_columns c{column_names_.size(), column_names_.data(), types_.data(), 0, nullptr};
    if (known_keys) {
      c.n_key_names = names_.size();
      c.key_names = column_names_.data();
    }
    return c;
  }

  // The rows for idp_accuracy_prepare (levels when the layout reads them).
  idp_release_rows rows(const idp_row_layout& layout) {
    level_arrays_.clear();
    for (std::size_t a = 0; a < layout.n_level_columns; ++a)
      level_arrays_.push_back(layout.level_column[a] >= 0 ? level_[a].data() : nullptr);
    return idp_release_rows{n_rows_, ids_.data(), codes_.data(), level_arrays_.empty() ? nullptr : level_arrays_.data()};
  }

 private:
  void code() {
    // One encoder per key column, as the shim's (release_table.c).
    const std::size_t n_keys = names_.size();
    coded_ = std::make_unique<TextKeys>(keys_, n_keys);
    for (std::size_t k = 0; k < n_keys; ++k) {
      const idp_key_dictionary& d = coded_->dictionaries()[k];
      idp_key_codes c{coded_->codes()[k], std::uint32_t(d.n_levels), 0xffffffffu};
      for (std::uint32_t code = 0; code < d.n_levels; ++code)
        if (idp_key_is_null(&d, code)) c.null_code = code;
      codes_.push_back(c);
    }
  }

  std::vector<std::string> names_;
  // The cells' printed keys, owned: a row's keys point into them, so the
  // rows outlive the table they were made from.
  std::vector<std::string> text_;
  std::string law_;
  std::size_t n_rows_ = 0, n_axes_ = 0;
  std::vector<const char*> keys_;
  std::vector<double> truth_, value_, sd_;
  std::vector<std::int32_t> level_[2];
  std::vector<idp_row_id> ids_;
  std::unique_ptr<TextKeys> coded_;
  std::vector<idp_key_codes> codes_;
  std::vector<const char*> column_names_;
  std::vector<idp_column_type> types_;
  std::vector<const std::int32_t*> level_arrays_;
};

}  // namespace invariant_dp::test_tables
