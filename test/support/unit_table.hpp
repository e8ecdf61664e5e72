// Test helper: rows (unit, clinic) and a release of them through the C
// boundary (idp_release) with a privacy unit, as the shim drives it.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "unit_cells.hpp"

namespace invariant_dp::test_tables {

class UnitTable {
 public:
  void add(const std::string& unit, const std::string& clinic, int rows = 1) {
    for (int i = 0; i < rows; ++i) {
      unit_.push_back(unit);
      clinic_.push_back(clinic);
    }
  }
  const std::vector<std::string>& clinic() const { return clinic_; }

  // The released values by clinic (integer mechanisms), or an error;
  // options: (key, value) as jsonb flattens them.
  std::map<std::string, std::int64_t> release(const char* mechanism, double epsilon, double delta, const char* groups,
                                              const char* rows,
                                              const std::vector<std::pair<std::string, std::string>>& options,
                                              std::uint64_t seed, std::string* metadata = nullptr) const {
    std::vector<const char*> unit_text, clinic_text, option_keys, option_values;
    for (const auto& u : unit_) unit_text.push_back(u.c_str());
    for (const auto& c : clinic_) clinic_text.push_back(c.c_str());
    for (const auto& [key, value] : options) {
      option_keys.push_back(key.c_str());
      option_values.push_back(value.c_str());
    }
    const UnitCells cells(unit_text, clinic_text, {"clinic"}, groups, rows);
    idp_request request{};
    cells.bind(request);
    request.mechanism = mechanism;
    request.epsilon = epsilon;
    request.has_delta = delta > 0;
    request.delta = delta;
    request.n_options = option_keys.size();
    request.option_keys = option_keys.data();
    request.option_values = option_values.data();
    idp_randomness randomness{true, seed, seed};
    idp_release_table* out = nullptr;
    idp_error error{};
    EXPECT_EQ(prepare_and_release(&request, &cells.cells(), &randomness, nullptr, &out, &error), IDP_OK) << error.message;
    std::map<std::string, std::int64_t> released;
    if (out == nullptr) return released;
    for (std::size_t r = 0; r < out->n_rows; ++r) released[clinic_[out->row_cell[r]]] = out->integer_values[r];
    if (metadata != nullptr && out->metadata_json != nullptr) *metadata = out->metadata_json;
    idp_free_release(out);
    return released;
  }

  // The partition selection option alone (nullptr: none).
  std::map<std::string, std::int64_t> release(const char* mechanism, double epsilon, double delta, const char* groups,
                                              const char* rows, const char* selection, std::uint64_t seed) const {
    std::vector<std::pair<std::string, std::string>> options;
    if (selection != nullptr) options.emplace_back("partition_selection", selection);
    return release(mechanism, epsilon, delta, groups, rows, options, seed);
  }

 private:
  std::vector<std::string> unit_, clinic_;
};

}  // namespace invariant_dp::test_tables
