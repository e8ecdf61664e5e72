#include "released_cells.hpp"

#include <limits>

#include "../invariants/key_tuples.hpp"
#include "../mechanisms/cell_domain.hpp"
#include "../mechanisms/partition_selection.hpp"
#include "../mechanisms/privacy_unit.hpp"

namespace invariant_dp {

namespace {

// The source rows `rows` as a table of their own, viewed in place.
KeyRows view_of_rows(const KeyRows& source, const std::vector<std::uint32_t>& rows, ReleasedCells& out,
                     const Interrupts& interrupts) {
  const std::size_t columns = source.n_columns;
  out.view_codes.assign(columns, std::vector<std::uint32_t>(rows.size()));
  out.view_columns.clear();
  for (std::size_t k = 0; k < columns; ++k) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      interrupts.poll_every(j);
      out.view_codes[k][j] = source.code(rows[j], k);
    }
    out.view_columns.push_back(out.view_codes[k].data());
  }
  KeyRows view{rows.size(), columns, out.view_columns.data(), source.dictionaries, source.table};
  view.row_ids = rows.data();
  return view;
}

// options {"source": "rows"}: each source row is one person. The distinct
// key tuples are the cells, each counting its rows and printed from its
// first row: the GROUP BY the caller did not write, as the privacy unit's
// path counts its rows.
void count_rows(const KeyRows& source, const Interrupts& interrupts, ReleasedCells& out) {
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  const TupleIds cells = dense_tuple_ids(source, interrupts);
  out.row_of_cell.assign(cells.n_ids, kNone);
  out.view_counts.assign(cells.n_ids, 0);
  for (std::size_t i = 0; i < source.n_rows; ++i) {
    interrupts.poll_every(i);
    const std::uint32_t cell = cells.id[i];
    if (out.row_of_cell[cell] == kNone) out.row_of_cell[cell] = static_cast<std::uint32_t>(i);
    ++out.view_counts[cell];
  }
}

// With a privacy unit: each unit's contribution bounded, one row per
// distinct cell. A source of rows: its rows counted. With partition
// selection: only the cells it shows, except noisy_count's, which the
// release selects on its counts' own noise (every bounded cell is kept
// here, as a copy the release never writes in). Else the source rows as
// they are (false).
bool bound_and_select(const ReleaseInput& input, const ReleaseRequest& request, RandomSource& rng,
                      const Interrupts& interrupts, ReleasedCells& out) {
  const std::size_t n_rows = input.source.n_rows;
  std::vector<std::int64_t> units;
  KeptCells unit_cells;  // dp_sips weighs a unit by its count of cells
  const bool weighs_units = request.selection.method == SelectionMethod::DpSips;
  if (request.bounds.active()) {
    BoundedCells bounded = bound_contributions(*input.units, input.source, input.source_counts, request.bounds, rng,
                                               interrupts, weighs_units);
    out.row_of_cell = std::move(bounded.row);
    out.view_counts = std::move(bounded.counts);
    units = std::move(bounded.units);
    unit_cells = std::move(bounded.unit_cells);
  } else if (request.source_rows) {
    count_rows(input.source, interrupts, out);
    if (request.selection.method != SelectionMethod::None) units = out.view_counts;  // one row per person
  } else if (request.selection.method != SelectionMethod::None) {
    // One row per person: a cell's count is its number of units.
    out.row_of_cell.resize(n_rows);
    for (std::size_t i = 0; i < n_rows; ++i) {
      interrupts.poll_every(i);
      out.row_of_cell[i] = static_cast<std::uint32_t>(i);
    }
    out.view_counts.assign(input.source_counts, input.source_counts + n_rows);
    units = out.view_counts;
  } else {
    return false;
  }
  if (request.selection.method != SelectionMethod::None && request.selection.method != SelectionMethod::NoisyCount) {
    const std::vector<bool> shown = select_partitions(units.data(), units.size(), request.selection, rng, interrupts,
                                                      weighs_units && request.bounds.active() ? &unit_cells : nullptr);
    std::size_t kept = 0;
    for (std::size_t j = 0; j < shown.size(); ++j) {
      interrupts.poll_every(j);
      if (shown[j]) {
        out.row_of_cell[kept] = out.row_of_cell[j];
        out.view_counts[kept++] = out.view_counts[j];
      }
    }
    out.row_of_cell.resize(kept);
    out.view_counts.resize(kept);
  }
  return true;
}

}  // namespace

ReleasedCells released_cells(const ReleaseInput& input, const std::vector<bool>& encoded,
                             const ReleaseRequest& request, RandomSource& rng, const Interrupts& interrupts) {
  ReleasedCells out;
  KeyRows source = input.source;
  const std::int64_t* source_counts = input.source_counts;
  if (bound_and_select(input, request, rng, interrupts, out)) {
    source = view_of_rows(source, out.row_of_cell, out, interrupts);
    source_counts = out.view_counts.data();
  }
  if (!input.domain) {
    out.keys = std::make_unique<CellKeys>(source, input.column_names, interrupts, &encoded, KeyCodes::borrowed);
    out.counts = source_counts;
    return out;
  }
  out.row_of_cell.clear();  // the released rows are the domain's
  out.domain_counts = counts_on_domain(*input.domain, source, source_counts,
                                       request.drop_rows_outside_domain ? OutsideDomain::Drop : OutsideDomain::Refuse,
                                       interrupts);
  out.keys = std::make_unique<CellKeys>(*input.domain, input.column_names, interrupts, &encoded, KeyCodes::borrowed);
  out.counts = out.domain_counts.data();
  return out;
}

}  // namespace invariant_dp
