// idp_release: every form of dp.privatize (cells, one hierarchy, two crossed
// hierarchies) ends in the one release table of invariant_dp_core.h.
#include <cstdlib>
#include <cstring>
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

// A table of n rows over n_keys keys and n_axes hierarchies, every key a
// level of none (printed only in rows that are cells) until set.
idp_release_table* new_table(std::size_t n_rows, std::size_t n_keys, std::size_t n_axes) {
  auto* table = static_cast<idp_release_table*>(std::calloc(1, sizeof(idp_release_table)));
  if (table == nullptr) throw std::bad_alloc();
  table->n_rows = n_rows;
  table->n_keys = n_keys;
  table->n_axes = n_axes;
  try {
    table->key_axis = malloc_array<uint32_t>(std::vector<std::size_t>(n_keys, n_axes));
    table->key_depth = malloc_array<uint32_t>(std::vector<std::size_t>(n_keys, 0));
  } catch (...) {
    idp_free_release(table);
    throw;
  }
  return table;
}

// The values, the sd when asked for, and the metadata of every release.
template <class Result>
void copy_values(const Result& result, bool with_stddev, idp_release_table* table) {
  const std::size_t n_values = result.integer_output ? result.integer_values.size() : result.values.size();
  if (n_values != table->n_rows || (with_stddev && result.noise_sd.size() != table->n_rows))
    throw Error("a release has fewer values than rows");
  table->integer_output = result.integer_output;
  if (result.integer_output)
    table->integer_values = malloc_array<int64_t>(result.integer_values);
  else
    table->values = malloc_array<double>(result.values);
  if (with_stddev) table->noise_sd = malloc_array<double>(result.noise_sd);
  table->metadata_json = malloc_copy(result.metadata_json);
}

// Levels of hierarchy `axis`, coarsest first: the key of level v is printed
// from depth v + 1 on.
void set_levels(idp_release_table* table, std::size_t axis, const std::vector<std::size_t>& level_columns) {
  for (std::size_t v = 0; v < level_columns.size(); ++v) {
    table->key_axis[level_columns[v]] = static_cast<uint32_t>(axis);
    table->key_depth[level_columns[v]] = static_cast<uint32_t>(v + 1);
  }
}

void fill_cells(const ReleaseResult& result, bool with_stddev, idp_release_table* table) {
  std::vector<std::uint32_t> cell(table->n_rows);
  for (std::size_t i = 0; i < cell.size(); ++i) cell[i] = static_cast<std::uint32_t>(i);
  table->row_cell = malloc_array<uint32_t>(cell);
  table->row_is_cell = malloc_array<bool>(std::vector<bool>(table->n_rows, true));
  copy_values(result, with_stddev, table);
}

void fill_hierarchy(const HierarchyReleaseResult& result, bool with_stddev, idp_release_table* table) {
  set_levels(table, 0, result.level_columns);
  table->row_cell = malloc_array<uint32_t>(result.node_cell);
  table->row_is_cell = malloc_array<bool>(result.node_is_leaf);
  table->row_depth = malloc_array<uint32_t>(result.node_depth);
  copy_values(result, with_stddev, table);
}

void fill_crossed(const CrossedReleaseResult& result, bool with_stddev, idp_release_table* table) {
  set_levels(table, 0, result.row_level_columns);
  set_levels(table, 1, result.col_level_columns);
  std::vector<std::uint32_t> depth(2 * result.node_cell.size());
  for (std::size_t r = 0; r < result.node_cell.size(); ++r) {
    depth[2 * r] = result.row_depth[r];
    depth[2 * r + 1] = result.col_depth[r];
  }
  table->row_cell = malloc_array<uint32_t>(result.node_cell);
  table->row_is_cell = malloc_array<bool>(std::vector<bool>(result.node_cell.size(), false));
  table->row_depth = malloc_array<uint32_t>(depth);
  copy_values(result, with_stddev, table);
}

// In a hierarchy release NULL marks the rollup rows: a NULL key in a level
// column would print like one, unless the level columns tell rows apart.
void check_no_null_levels(const CheckedRequest& checked, const idp_cells* cells) {
  if (!checked.hierarchy.active() || checked.hierarchy.with_level) return;
  const KeyRows keys = released_key_rows(cells);
  std::vector<std::string> levels = checked.hierarchy.levels;
  levels.insert(levels.end(), checked.hierarchy.crossed.begin(), checked.hierarchy.crossed.end());
  for (std::size_t k = 0; k < cells->n_columns; ++k) {
    bool is_level = false;
    for (const std::string& level : levels) is_level = is_level || level == cells->column_names[k];
    for (std::size_t i = 0; is_level && i < keys.n_rows; ++i)
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

}  // namespace

extern "C" {

idp_status idp_release(const idp_request* request, const idp_cells* cells, const idp_randomness* randomness,
                       const idp_interrupts* interrupts, idp_release_table** table, idp_error* error) {
  *table = nullptr;
  idp_release_table* out = nullptr;
  const idp_status status = guarded(error, [&] {
    const CheckedRequest checked = check_request(request);
    check_columns(checked, strings(cells->n_columns, cells->column_names));
    check_no_null_levels(checked, cells);
    const Interrupts polling = interrupts_of(interrupts);
    RandomSource& rng = session_random_source(randomness);
    const ReleasedCells released = released_cells(cells, polling);
    const std::size_t n_keys = cells->n_columns;
    if (checked.hierarchy.is_crossed()) {
      const CrossedReleaseResult result = run_crossed_release(*released.keys, released.counts, checked.release,
                                                              checked.hierarchy, checked.budget, rng, polling);
      out = new_table(result.node_cell.size(), n_keys, 2);
      fill_crossed(result, checked.release.with_stddev, out);
    } else if (checked.hierarchy.active()) {
      const HierarchyReleaseResult result = run_hierarchy_release(
          *released.keys, released.counts, checked.release, checked.hierarchy, checked.budget, rng, polling);
      out = new_table(result.node_cell.size(), n_keys, 1);
      fill_hierarchy(result, checked.release.with_stddev, out);
    } else {
      const ReleaseResult result = run_release(*released.keys, released.counts, checked.release, rng, polling);
      out = new_table(released.keys->n_cells(), n_keys, 0);
      fill_cells(result, checked.release.with_stddev, out);
    }
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
  std::free(table->row_cell);
  std::free(table->row_is_cell);
  std::free(table->row_depth);
  std::free(table->key_axis);
  std::free(table->key_depth);
  std::free(table->values);
  std::free(table->integer_values);
  std::free(table->noise_sd);
  std::free(table->metadata_json);
  std::free(table);
}

}  // extern "C"
