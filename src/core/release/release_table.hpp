// What every release returns, whatever its mechanism and structure (cells,
// one hierarchy, two crossed hierarchies): rows, each a cell or a rollup
// node, with its value, its noise sd and interval when asked for, and the
// noise law's metadata. The C boundary hands it out as idp_release_table
// (capi/invariant_dp_core.h), pointing into it rather than copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../accuracy/cell_intervals.hpp"
#include "../accuracy/published_law_json.hpp"

namespace invariant_dp {

struct ReleaseTable {
  std::size_t n_rows = 0;
  std::size_t n_keys = 0;
  std::size_t n_axes = 0;  // hierarchies: 0 (cells), 1, or 2 (crossed)
  bool integer_output = false;
  // Per key column: the hierarchy it is a level of (n_axes: none, printed
  // only in rows that are cells) and its depth there (printed from that
  // depth on).
  std::vector<std::uint32_t> key_axis, key_depth;
  std::vector<std::uint32_t> row_cell;    // the cell (source or domain row) a row prints; empty: row r is cell r
  std::vector<std::uint8_t> row_is_cell;  // empty: every row is a cell
  std::vector<std::uint32_t> row_depth;   // n_rows x n_axes: each row's depth on each hierarchy
  std::vector<double> values;             // real mechanisms, unless written in place
  std::vector<std::int64_t> integer_values;
  // The input's counts, when the release wrote its values over them
  // (ReleaseInput::writable_counts); then values and integer_values are empty.
  std::int64_t* integer_values_in_place = nullptr;
  double* values_in_place = nullptr;
  std::vector<double> noise_sd;  // per row, when asked for
  // options {"interval": level}: per row a half-width t, the bounds value
  // - t and value + t read a few rows at a time (bounds()), never stored:
  // millions of rows need no two arrays of bounds. Integer bounds were
  // checked to fit bigint when the intervals were attached.
  std::shared_ptr<const accuracy::CellIntervals> intervals;
  // The published law, typed (accuracy/published_law.hpp), and the
  // metadata object it is written in; metadata_json is that object's text,
  // written once the release is complete (finish_metadata).
  accuracy::PublishedLaw law;
  accuracy::MetadataObject metadata;
  std::string metadata_json;

  void finish_metadata() { metadata_json = metadata.text(); }

  const double* real_values() const { return values_in_place != nullptr ? values_in_place : values.data(); }
  const std::int64_t* integers() const {
    return integer_values_in_place != nullptr ? integer_values_in_place : integer_values.data();
  }
  // Rows [first, first + n)'s bounds, in the values' type (the other pair
  // is not written; nothing is without intervals).
  void bounds(std::size_t first, std::size_t n, double* lower, double* upper, std::int64_t* integer_lower,
              std::int64_t* integer_upper) const noexcept {
    if (intervals == nullptr || first > n_rows || n > n_rows - first) return;
    if (integer_output)
      intervals->integer_bounds(first, n, integers(), integer_lower, integer_upper);
    else
      intervals->real_bounds(first, n, real_values(), lower, upper);
  }
};

}  // namespace invariant_dp
