// Test helper: the cells and bounds of a release with a privacy unit, as
// the shim hands them through the C boundary: each row's unit and keys
// coded (TextKeys), the bounds {"max_groups_per_unit": G,
// "max_rows_per_group": R} flattened like jsonb. The rest of the request
// (mechanism, epsilon, margins, options) is the caller's.
#pragma once

#include <cstddef>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "table_builder.hpp"

namespace invariant_dp::test_tables {

class UnitCells {
 public:
  // units: one per row; keys: row-major, names.size() per row.
  UnitCells(const std::vector<const char*>& units, const std::vector<const char*>& keys,
            std::vector<const char*> names, const char* max_groups, const char* max_rows)
      : units_(units, 1), keys_(keys, names.size()), names_(std::move(names)), bound_values_{max_groups, max_rows} {
    cells_.n_columns = names_.size();
    cells_.column_names = names_.data();
    cells_.dictionaries = keys_.dictionaries();
    cells_.n_source_rows = units.size();
    cells_.source_keys.columns = keys_.codes();
    cells_.unit_keys.columns = units_.codes();
    cells_.unit_dictionary = units_.dictionaries()[0];
  }
  UnitCells(const UnitCells&) = delete;
  UnitCells& operator=(const UnitCells&) = delete;

  // The request names the unit ("patient") and carries the bounds, which
  // point into this object.
  void bind(idp_request& request) const {
    request.privacy_unit = "patient";
    request.has_bounds = true;
    request.n_bounds = 2;
    request.bound_keys = bound_keys_;
    request.bound_values = bound_values_;
  }
  const idp_cells& cells() const { return cells_; }

 private:
  TextKeys units_, keys_;
  std::vector<const char*> names_;
  const char* bound_keys_[2] = {"max_groups_per_unit", "max_rows_per_group"};
  const char* bound_values_[2];
  idp_cells cells_{};
};

}  // namespace invariant_dp::test_tables
