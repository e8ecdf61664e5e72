// idp_release: every form of dp.privatize (cells, one hierarchy, two crossed
// hierarchies) ends in the one release table of invariant_dp_core.h.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../errors.hpp"
#include "../mechanisms/release.hpp"
#include "../rollups/crossed_release.hpp"
#include "../rollups/hierarchy_release.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

namespace {

// What a table's arrays point into: the release's own vectors, moved here
// rather than copied (a release of millions of cells is hundreds of MB).
struct TableStorage {
  std::vector<std::uint32_t> row_cell, row_depth, key_axis, key_depth;
  std::vector<std::uint8_t> row_is_cell;
  std::vector<double> values, noise_sd;
  std::vector<std::int64_t> integer_values;
  std::string metadata_json;
};

// A table of n rows over n_keys keys and n_axes hierarchies, every key a
// level of none (printed only in rows that are cells) until set.
idp_release_table* new_table(std::size_t n_rows, std::size_t n_keys, std::size_t n_axes) {
  auto storage = std::make_unique<TableStorage>();
  storage->key_axis.assign(n_keys, static_cast<std::uint32_t>(n_axes));
  storage->key_depth.assign(n_keys, 0);
  auto* table = static_cast<idp_release_table*>(std::calloc(1, sizeof(idp_release_table)));
  if (table == nullptr) throw std::bad_alloc();
  table->n_rows = n_rows;
  table->n_keys = n_keys;
  table->n_axes = n_axes;
  table->storage = storage.release();
  return table;
}

TableStorage& storage_of(idp_release_table* table) { return *static_cast<TableStorage*>(table->storage); }

// Values a release wrote over the cells' counts (run_release's
// writable_counts), if any.
struct InPlaceValues {
  std::int64_t* integers = nullptr;
  double* reals = nullptr;
};

// The values, the sd when asked for, and the metadata of every release;
// then the table's arrays are pointed at what the storage holds, or at the
// values written in place.
template <class Result>
void move_values(Result& result, bool with_stddev, idp_release_table* table, InPlaceValues in_place = {}) {
  TableStorage& s = storage_of(table);
  const bool written_in_place = in_place.integers != nullptr || in_place.reals != nullptr;
  const std::size_t n_values = written_in_place        ? table->n_rows
                               : result.integer_output ? result.integer_values.size()
                                                       : result.values.size();
  if (n_values != table->n_rows || (with_stddev && result.noise_sd.size() != table->n_rows))
    throw Error("a release has fewer values than rows");
  table->integer_output = result.integer_output;
  s.values = std::move(result.values);
  s.integer_values = std::move(result.integer_values);
  if (with_stddev) s.noise_sd = std::move(result.noise_sd);
  s.metadata_json = std::move(result.metadata_json);
  table->values = table->integer_output ? nullptr : in_place.reals != nullptr ? in_place.reals : s.values.data();
  table->integer_values = !table->integer_output           ? nullptr
                          : in_place.integers != nullptr ? in_place.integers
                                                         : s.integer_values.data();
  table->noise_sd = with_stddev ? s.noise_sd.data() : nullptr;
  table->metadata_json = s.metadata_json.data();
  table->row_cell = s.row_cell.empty() ? nullptr : s.row_cell.data();
  table->row_is_cell = s.row_is_cell.empty() ? nullptr : reinterpret_cast<bool*>(s.row_is_cell.data());
  table->row_depth = s.row_depth.empty() ? nullptr : s.row_depth.data();
  table->key_axis = s.key_axis.data();
  table->key_depth = s.key_depth.data();
}

// Levels of hierarchy `axis`, coarsest first: the key of level v is printed
// from depth v + 1 on.
void set_levels(idp_release_table* table, std::size_t axis, const std::vector<std::size_t>& level_columns) {
  TableStorage& s = storage_of(table);
  for (std::size_t v = 0; v < level_columns.size(); ++v) {
    s.key_axis[level_columns[v]] = static_cast<std::uint32_t>(axis);
    s.key_depth[level_columns[v]] = static_cast<std::uint32_t>(v + 1);
  }
}

// Cells only: every row a cell (row_is_cell NULL); row r is cell r, or with
// a privacy unit or partition selection source row row_cell[r].
void fill_cells(ReleaseResult& result, bool with_stddev, idp_release_table* table) {
  move_values(result, with_stddev, table, {result.integer_values_in_place, result.values_in_place});
}

void fill_hierarchy(HierarchyReleaseResult& result, bool with_stddev, idp_release_table* table) {
  TableStorage& s = storage_of(table);
  set_levels(table, 0, result.level_columns);
  s.row_cell = std::move(result.node_cell);
  s.row_is_cell = std::move(result.node_is_leaf);
  s.row_depth = std::move(result.node_depth);
  move_values(result, with_stddev, table);
}

void fill_crossed(CrossedReleaseResult& result, bool with_stddev, idp_release_table* table) {
  TableStorage& s = storage_of(table);
  set_levels(table, 0, result.row_level_columns);
  set_levels(table, 1, result.col_level_columns);
  s.row_depth.resize(2 * result.node_cell.size());
  for (std::size_t r = 0; r < result.node_cell.size(); ++r) {
    s.row_depth[2 * r] = result.row_depth[r];
    s.row_depth[2 * r + 1] = result.col_depth[r];
  }
  s.row_cell = std::move(result.node_cell);
  s.row_is_cell.assign(s.row_cell.size(), 0);
  move_values(result, with_stddev, table);
}

// In a hierarchy release NULL marks the rollup rows: a NULL key in a level
// column would print like one, unless the level columns tell rows apart.
void check_no_null_levels(const CheckedRequest& checked, const idp_cells* cells, const CellTables& tables,
                          const Interrupts& interrupts) {
  if (!checked.hierarchy.active() || checked.hierarchy.with_level) return;
  const KeyRows keys = tables.released();
  std::vector<std::string> levels = checked.hierarchy.levels;
  levels.insert(levels.end(), checked.hierarchy.crossed.begin(), checked.hierarchy.crossed.end());
  for (std::size_t k = 0; k < cells->n_columns; ++k) {
    bool is_level = false;
    for (const std::string& level : levels) is_level = is_level || level == cells->column_names[k];
    for (std::size_t i = 0; is_level && i < keys.n_rows; ++i) {
      interrupts.poll_every(i);
      if (keys.is_null(i, k))
        throw NullValue("hierarchy column \"" + std::string(cells->column_names[k]) + "\" has a NULL key",
                        "In a hierarchy release NULL marks the rollup rows.",
                        checked.hierarchy.is_crossed()
                            ? "COALESCE the key in the source, or add {\"level\": true} to the options and two "
                              "trailing integer columns (row level, column level)."
                            : "COALESCE the key in the source, or add {\"level\": true} to the options and a "
                              "trailing integer column: level 0 is the grand total.");
    }
  }
}

// With a privacy unit the released cells are distinct tuples of the
// source's rows: a row names the cell it prints by one of its source rows.
void print_from_source_rows(const std::vector<std::uint32_t>& row_of_cell, idp_release_table* out,
                            const Interrupts& interrupts) {
  if (row_of_cell.empty()) return;
  for (std::size_t r = 0; r < out->n_rows; ++r) {
    interrupts.poll_every(r);
    out->row_cell[r] = row_of_cell[out->row_cell[r]];
  }
}

// The shim passes unit keys exactly when the request names a unit.
void check_unit_and_domain(const ReleaseRequest& request, const idp_cells* cells) {
  if (request.bounds.active() != (cells->unit_keys.columns != nullptr))
    throw Error("the privacy unit's keys do not match the request");
  if (cells->has_domain && request.selection.method != SelectionMethod::None)
    throw InvalidArgument("partition selection is for releases without a domain",
                          "A domain lists the public cells: every one is released, so there is nothing to select.",
                          "Drop the domain, or drop partition_selection.");
}

}  // namespace

extern "C" {

idp_status idp_release(const idp_request* request, const idp_cells* cells, const idp_randomness* randomness,
                       const idp_interrupts* interrupts, idp_release_table** table, idp_error* error) {
  *table = nullptr;
  idp_release_table* out = nullptr;
  const idp_status status = guarded(error, [&] {
    CheckedRequest checked = check_request(request);
    check_columns(checked, strings(cells->n_columns, cells->column_names));
    const Interrupts polling = interrupts_of(interrupts);
    const CellTables tables(cells);
    check_no_null_levels(checked, cells, tables, polling);
    check_unit_and_domain(checked.release, cells);
    checked.release.has_domain = cells->has_domain;
    RandomSource& rng = session_random_source(randomness);
    ReleasedCells released = released_cells(cells, tables, encoded_columns(checked, cells), checked.release, rng,
                                            polling);
    const std::size_t n_keys = cells->n_columns;
    if (checked.hierarchy.is_crossed()) {
      CrossedReleaseResult result = run_crossed_release(*released.keys, released.counts, checked.release,
                                                              checked.hierarchy, checked.budget, rng, polling);
      out = new_table(result.node_cell.size(), n_keys, 2);
      fill_crossed(result, checked.release.with_stddev, out);
      print_from_source_rows(released.row_of_cell, out, polling);
    } else if (checked.hierarchy.active()) {
      HierarchyReleaseResult result = run_hierarchy_release(
          *released.keys, released.counts, checked.release, checked.hierarchy, checked.budget, rng, polling);
      out = new_table(result.node_cell.size(), n_keys, 1);
      fill_hierarchy(result, checked.release.with_stddev, out);
      print_from_source_rows(released.row_of_cell, out, polling);
    } else {
      // The source's counts, noised in place when the shim allows it and
      // the cells are its rows (an array of millions of cells not made).
      std::int64_t* writable = cells->counts_writable && released.counts == cells->source_counts
                                   ? const_cast<std::int64_t*>(cells->source_counts)
                                   : nullptr;
      ReleaseResult result = run_release(*released.keys, released.counts, checked.release, rng, polling, writable);
      out = new_table(released.keys->n_cells(), n_keys, 0);
      storage_of(out).row_cell = std::move(released.row_of_cell);
      fill_cells(result, checked.release.with_stddev, out);
    }
    // Every mechanism, structure and calibration ends here: whatever made a
    // real value or a standard deviation overflow, it is not returned.
    if (!out->integer_output) refuse_non_finite(out->values, out->n_rows, "released value", polling);
    if (out->noise_sd != nullptr) refuse_non_finite(out->noise_sd, out->n_rows, "released standard deviation", polling);
  });
  if (status != IDP_OK) {
    idp_free_release(out);
    return status;
  }
  *table = out;
  return status;
}

void idp_free_release(idp_release_table* table) {
  if (table == nullptr) return;
  delete static_cast<TableStorage*>(table->storage);
  std::free(table);
}

}  // extern "C"
