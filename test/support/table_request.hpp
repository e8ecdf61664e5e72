// A request and a test table's cells as the C boundary takes them (the
// shim's idp_request and idp_cells), for the tests that release through it
// (test/stat/accuracy/stat_margin_of_error.cpp,
// test/stat/accuracy/stat_cell_intervals.cpp, test/unit/release/). The C structs point into the
// Request and the TableCells, which must outlive them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "table_builder.hpp"

namespace invariant_dp::test_tables {

struct Request {
  const char* mechanism = "integer_laplace";
  double epsilon = 1;
  double delta = 0;
  std::vector<const char*> margins{}, hierarchy{}, option_keys{}, option_values{};

  idp_request c_request() const {
    idp_request out{};
    out.mechanism = mechanism;
    out.epsilon = epsilon;
    out.has_delta = delta > 0;
    out.delta = delta;
    out.n_margins = margins.size();
    out.margins = margins.data();
    out.n_hierarchy = hierarchy.size();
    out.hierarchy = hierarchy.data();
    out.n_options = option_keys.size();
    out.option_keys = option_keys.data();
    out.option_values = option_values.data();
    return out;
  }

  // The options as (key, value) pairs.
  void set_options(const std::vector<std::pair<const char*, const char*>>& options) {
    option_keys.clear();
    option_values.clear();
    for (const auto& [key, value] : options) {
      option_keys.push_back(key);
      option_values.push_back(value);
    }
  }
};

// The table's keys coded once, and its source rows and counts as idp_cells.
class TableCells {
 public:
  explicit TableCells(const TestTable& table)
      : keys_(std::make_unique<TextKeys>(table.pointers(), table.columns.size())) {
    for (const std::string& c : table.columns) names_.push_back(c.c_str());
    cells_.n_columns = names_.size();
    cells_.column_names = names_.data();
    cells_.dictionaries = keys_->dictionaries();
    cells_.n_source_rows = table.counts.size();
    cells_.source_keys.columns = keys_->codes();
    cells_.source_counts = table.counts.data();
  }
  const idp_cells& cells() const { return cells_; }

 private:
  std::vector<const char*> names_;
  std::unique_ptr<TextKeys> keys_;
  idp_cells cells_{};
};

// A table released again and again with one request and one seeded
// stream (each draw continues it). c_request and cells are what draw()
// passes; a test may rebind them (a privacy unit's rows instead of counts).
class RepeatedRelease {
 public:
  RepeatedRelease(TestTable table, Request request, idp_randomness randomness)
      : table_(std::move(table)), request_(std::move(request)), randomness_(randomness), table_cells_(table_),
        c_request(request_.c_request()), cells(table_cells_.cells()) {}
  RepeatedRelease(const RepeatedRelease&) = delete;
  RepeatedRelease& operator=(const RepeatedRelease&) = delete;

  const TestTable& table() const { return table_; }
  // The next release; NULL, the test failed, if it is refused.
  idp_release_table* draw() {
    idp_release_table* out = nullptr;
    idp_error error{};
    EXPECT_EQ(prepare_and_release(&c_request, &cells, &randomness_, nullptr, &out, &error), IDP_OK) << error.message;
    return out;
  }

 private:
  TestTable table_;
  Request request_;
  idp_randomness randomness_;
  TableCells table_cells_;

 public:
  idp_request c_request;
  idp_cells cells;
};

}  // namespace invariant_dp::test_tables
