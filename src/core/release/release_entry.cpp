#include "release_entry.hpp"

#include <string>
#include <vector>

#include "../errors.hpp"
#include "../finite_values.hpp"
#include "../mechanisms/release.hpp"
#include "../rollups/crossed_release.hpp"
#include "../accuracy/cell_intervals.hpp"
#include "../rollups/hierarchy_release.hpp"
#include "cell_counts.hpp"
#include "release_intervals.hpp"
#include "released_cells.hpp"

namespace invariant_dp {

namespace {

// A table of n rows over n_keys keys and n_axes hierarchies, every key a
// level of none (printed only in rows that are cells) until set.
ReleaseTable new_table(std::size_t n_rows, std::size_t n_keys, std::size_t n_axes) {
  ReleaseTable table;
  table.n_rows = n_rows;
  table.n_keys = n_keys;
  table.n_axes = n_axes;
  table.key_axis.assign(n_keys, static_cast<std::uint32_t>(n_axes));
  table.key_depth.assign(n_keys, 0);
  return table;
}

// The values, the sd when asked for, and the metadata of every release.
template <class Result>
void move_values(Result& result, bool with_stddev, ReleaseTable& table) {
  const bool written_in_place = table.integer_values_in_place != nullptr || table.values_in_place != nullptr;
  const std::size_t n_values = written_in_place        ? table.n_rows
                               : result.integer_output ? result.integer_values.size()
                                                       : result.values.size();
  if (n_values != table.n_rows || (with_stddev && result.noise_sd.size() != table.n_rows))
    throw Error("a release has fewer values than rows");
  table.integer_output = result.integer_output;
  table.values = std::move(result.values);
  table.integer_values = std::move(result.integer_values);
  if (with_stddev) table.noise_sd = std::move(result.noise_sd);
  table.law = std::move(result.law);
  table.metadata = std::move(result.metadata);
}

// Levels of hierarchy `axis`, coarsest first: the key of level v is printed
// from depth v + 1 on.
void set_levels(ReleaseTable& table, std::size_t axis, const std::vector<std::size_t>& level_columns) {
  for (std::size_t v = 0; v < level_columns.size(); ++v) {
    table.key_axis[level_columns[v]] = static_cast<std::uint32_t>(axis);
    table.key_depth[level_columns[v]] = static_cast<std::uint32_t>(v + 1);
  }
}

// With a privacy unit or partition selection the released cells are some
// source rows: a row names the cell it prints by its source row.
void print_from_source_rows(const std::vector<std::uint32_t>& row_of_cell, ReleaseTable& table,
                            const Interrupts& interrupts) {
  if (row_of_cell.empty()) return;
  for (std::size_t r = 0; r < table.n_rows; ++r) {
    interrupts.poll_every(r);
    table.row_cell[r] = row_of_cell[table.row_cell[r]];
  }
}

ReleaseTable release_crossed(const CheckedRequest& checked, ReleasedCells& cells, std::size_t n_keys, RandomSource& rng,
                             const Interrupts& interrupts) {
  const ReleaseRequest& request = checked.release;
  CrossedReleaseResult result = run_crossed_release(*cells.keys, cells.counts, checked, rng, interrupts);
  ReleaseTable table = new_table(result.node_cell.size(), n_keys, 2);
  set_levels(table, 0, result.row_level_columns);
  set_levels(table, 1, result.col_level_columns);
  table.row_depth.resize(2 * result.node_cell.size());
  for (std::size_t r = 0; r < result.node_cell.size(); ++r) {
    interrupts.poll_every(r);
    table.row_depth[2 * r] = result.row_depth[r];
    table.row_depth[2 * r + 1] = result.col_depth[r];
  }
  table.row_cell = std::move(result.node_cell);
  table.row_is_cell.assign(table.row_cell.size(), 0);
  move_values(result, request.with_stddev, table);
  // While row_cell still names the cells the keys were read from.
  if (request.interval_level > 0)
    add_hierarchy_intervals(table, *cells.keys, cells.keys->column_names(), request.interval_level, interrupts);
  print_from_source_rows(cells.row_of_cell, table, interrupts);
  return table;
}

ReleaseTable release_hierarchy(const CheckedRequest& checked, ReleasedCells& cells, std::size_t n_keys,
                               RandomSource& rng, const Interrupts& interrupts) {
  const ReleaseRequest& request = checked.release;
  HierarchyReleaseResult result = run_hierarchy_release(*cells.keys, cells.counts, checked, rng, interrupts);
  ReleaseTable table = new_table(result.node_cell.size(), n_keys, 1);
  set_levels(table, 0, result.level_columns);
  table.row_cell = std::move(result.node_cell);
  table.row_is_cell = std::move(result.node_is_leaf);
  table.row_depth = std::move(result.node_depth);
  move_values(result, request.with_stddev, table);
  // While row_cell still names the cells the keys were read from.
  if (request.interval_level > 0 && result.intervals)
    add_release_intervals(table, std::move(result.intervals), request.interval_level, interrupts);
  else if (request.interval_level > 0)
    add_hierarchy_intervals(table, *cells.keys, cells.keys->column_names(), request.interval_level, interrupts);
  print_from_source_rows(cells.row_of_cell, table, interrupts);
  return table;
}

// Partition selection noisy_count: the source rows of the cells shown.
void keep_shown_rows(const std::vector<std::size_t>& shown, std::vector<std::uint32_t>& row_of_cell,
                     const Interrupts& interrupts) {
  for (std::size_t j = 0; j < shown.size(); ++j) {
    interrupts.poll_every(j);
    row_of_cell[j] = row_of_cell[shown[j]];
  }
  row_of_cell.resize(shown.size());
}

// Cells only: every row a cell; row r is cell r, or with a privacy unit or
// partition selection source row row_of_cell[r]. The source's counts are
// noised in place when the caller allows it and the cells are its rows (an
// array of millions of cells not made).
ReleaseTable release_flat(const ReleaseInput& input, const ReleaseRequest& request, ReleasedCells& cells,
                          RandomSource& rng, const Interrupts& interrupts) {
  std::int64_t* writable = cells.counts == input.source_counts ? input.writable_counts : nullptr;
  ReleaseResult result = run_release(*cells.keys, cells.counts, request, rng, interrupts, writable);
  std::size_t n_rows = cells.keys->n_cells();
  if (request.selection.method == SelectionMethod::NoisyCount) {
    // The cells are source rows (released_cells keeps a view of them).
    if (cells.row_of_cell.size() != n_rows) throw Error("the shown cells have no source rows");
    keep_shown_rows(result.shown_cells, cells.row_of_cell, interrupts);
    n_rows = result.shown_cells.size();
  }
  ReleaseTable table = new_table(n_rows, input.column_names.size(), 0);
  table.row_cell = std::move(cells.row_of_cell);
  table.integer_values_in_place = result.integer_values_in_place;
  table.values_in_place = result.values_in_place;
  move_values(result, request.with_stddev, table);
  if (request.interval_level > 0) add_flat_intervals(table, *cells.keys, request.interval_level, interrupts);
  return table;
}

// In a hierarchy release NULL marks the rollup rows: a NULL key in a level
// column would print like one, unless the level columns tell rows apart.
void check_no_null_levels(const CheckedRequest& checked, const ReleaseInput& input, const Interrupts& interrupts) {
  if (!checked.hierarchy.active() || checked.hierarchy.with_level) return;
  const KeyRows& keys = input.domain ? *input.domain : input.source;
  std::vector<std::string> levels = checked.hierarchy.levels;
  levels.insert(levels.end(), checked.hierarchy.crossed.begin(), checked.hierarchy.crossed.end());
  for (std::size_t k = 0; k < input.column_names.size(); ++k) {
    bool is_level = false;
    for (const std::string& level : levels) is_level = is_level || level == input.column_names[k];
    for (std::size_t i = 0; is_level && i < keys.n_rows; ++i) {
      interrupts.poll_every(i);
      if (keys.is_null(i, k))
        throw NullValue("hierarchy column \"" + input.column_names[k] + "\" has a NULL key",
                        "In a hierarchy release NULL marks the rollup rows.",
                        checked.hierarchy.is_crossed()
                            ? "COALESCE the key in the source, or add {\"level\": true} to the options and two "
                              "trailing integer columns (row level, column level)."
                            : "COALESCE the key in the source, or add {\"level\": true} to the options and a "
                              "trailing integer column: level 0 is the grand total.");
    }
  }
}

// The caller passes units exactly when the request names a unit, and
// without one counts exactly when the source returns counts (an empty
// source may have no array); a domain leaves nothing to select.
void check_unit_and_domain(const ReleaseRequest& request, const ReleaseInput& input) {
  if (request.bounds.active() != input.units.has_value())
    throw Error("the privacy unit's keys do not match the request");
  if (!request.bounds.active() && input.source.n_rows > 0 && request.source_rows != (input.source_counts == nullptr))
    throw Error("the source's counts do not match the request");
  if (input.domain && request.selection.method != SelectionMethod::None)
    throw InvalidArgument("partition selection is for releases without a domain",
                          "A domain lists the public cells: every one is released, so there is nothing to select.",
                          "Drop the domain, or drop partition_selection.");
}

}  // namespace

ReleaseTable release(const CheckedRequest& checked, const ReleaseInput& input, RandomSource& rng,
                     const Interrupts& interrupts) {
  if (!checked.columns_checked || checked.key_columns != input.column_names)
    check_columns(checked, input.column_names);
  check_no_null_levels(checked, input, interrupts);
  check_unit_and_domain(checked.release, input);
  // The request as the cells make it: a domain's cells, or the source's.
  CheckedRequest with_cells = checked;
  with_cells.release.has_domain = input.domain.has_value();
  const ReleaseRequest& request = with_cells.release;
  ReleasedCells cells =
      released_cells(input, encoded_columns(checked, input.column_names), request, rng, interrupts);
  // Every release's cells: at least one, no count negative; checked once here.
  if (!(request.selection.method != SelectionMethod::None && !checked.hierarchy.active() && cells.keys->n_cells() == 0))
    check_cell_counts(cells.keys->n_cells(), cells.counts, interrupts);
  const std::size_t n_keys = input.column_names.size();
  ReleaseTable table = checked.hierarchy.is_crossed() ? release_crossed(with_cells, cells, n_keys, rng, interrupts)
                       : checked.hierarchy.active()   ? release_hierarchy(with_cells, cells, n_keys, rng, interrupts)
                                                      : release_flat(input, request, cells, rng, interrupts);
  // Every mechanism, structure and calibration ends here: whatever made a
  // real value or a standard deviation overflow, it is not returned.
  if (!table.integer_output) refuse_non_finite(table.real_values(), table.n_rows, "released value", interrupts);
  if (!table.noise_sd.empty())
    refuse_non_finite(table.noise_sd.data(), table.n_rows, "released standard deviation", interrupts);
  table.finish_metadata();
  return table;
}

}  // namespace invariant_dp
