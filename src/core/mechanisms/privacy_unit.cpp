// Contribution bounds of a privacy unit (see privacy_unit.hpp).
#include "privacy_unit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "../errors.hpp"
#include "../invariants/key_tuples.hpp"
#include "../keyed_hash.hpp"
#include "../large_buffer.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

}  // namespace

BoundedCells bound_contributions(const KeyRows& units, const KeyRows& keys, const std::int64_t* row_counts,
                                 const ContributionBounds& bounds, RandomSource& rng,
                                 const Interrupts& interrupts, bool with_unit_cells) {
  const std::size_t n = keys.n_rows;
  if (units.n_rows != n || units.n_columns != 1) throw Error("the privacy units do not match the rows");
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (units.is_null(i, 0))
      throw NullValue("the privacy unit is NULL in a row of the source",
                      "A NULL unit would lump the rows of unrelated people into one.",
                      "Leave such rows out of the source, or give each its own unit.");
    if (row_counts != nullptr && row_counts[i] < 0) throw InvalidData("count must not be negative");
  }
  // Units numbered by their dictionary codes where there are no more codes
  // than rows (a row-numbered column: the row itself), so that no array of
  // a unit id per row is made; a dictionary shared with far more units than
  // these rows hold is numbered densely instead. Units without rows here
  // are skipped by the walk below.
  const bool by_code = units.row_numbered(0) || units.dictionaries[0].n_levels <= n;
  const TupleIds dense_units = by_code ? TupleIds{} : dense_tuple_ids(units, interrupts);
  auto unit_of = [&](std::size_t row) { return by_code ? units.code(row, 0) : dense_units.id[row]; };
  const std::size_t n_units =
      by_code ? (units.row_numbered(0) ? n : units.dictionaries[0].n_levels) : dense_units.n_ids;
  const TupleIds cell_ids = dense_tuple_ids(keys, interrupts);
  const std::vector<std::uint32_t>& cell = cell_ids.id;
  const std::uint32_t n_cells = cell_ids.n_ids;

  // Each unit's rows, consecutive (a counting sort by unit), and the content
  // hash of each unit and cell: what the choice below depends on, never the
  // rows' order or the units' or cells' numbering.
  std::vector<std::uint64_t> start(n_units + 1, 0);
  std::vector<std::uint64_t> unit_hash(n_units), cell_hash(n_cells);
  BoundedCells out;
  out.row.assign(n_cells, kNone);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    const std::uint32_t u = unit_of(i);
    if (start[u + 1]++ == 0) unit_hash[u] = tuple_hash(units, i);
    if (out.row[cell[i]] == kNone) {
      out.row[cell[i]] = static_cast<std::uint32_t>(i);
      cell_hash[cell[i]] = tuple_hash(keys, i);
    }
  }
  for (std::size_t u = 0; u < n_units; ++u) {
    interrupts.poll_every(u);
    start[u + 1] += start[u];
  }
  // The rows' cells (and counts) copied in unit order, so that the walk below
  // reads each unit's in sequence: reaching them through row numbers cost a
  // cache miss a row (half of a 10M-row release's time in the core). Each
  // unit's start moves to its end as its rows are placed, then every start
  // is taken back from the unit before (no second array of starts).
  std::vector<std::uint32_t> cell_by_unit = zeroed_large_buffer<std::uint32_t>(n);
  std::vector<std::int64_t> rows_by_unit;
  if (row_counts != nullptr) rows_by_unit = zeroed_large_buffer<std::int64_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    const std::uint64_t k = start[unit_of(i)]++;
    cell_by_unit[k] = cell[i];
    if (row_counts != nullptr) rows_by_unit[k] = row_counts[i];
  }
  for (std::size_t u = n_units; u > 0; --u) {
    interrupts.poll_every(u);
    start[u] = start[u - 1];
  }
  start[0] = 0;

  // Per unit: its distinct cells with their rows added up, ranked by a
  // keyed hash of (unit, cell) under a key drawn now from the release's
  // random source. For one unit the ranks of its distinct cells are
  // exchangeable, so the G lowest are a uniformly random G-subset; the
  // same unit and cell rank the same wherever their rows are.
  const SipKey key{rng.next_u64(), rng.next_u64()};
  struct Entry {
    std::uint64_t rank;
    std::uint32_t cell;
    std::int64_t rows;
  };
  std::vector<Entry> entries;
  std::vector<std::uint32_t> slot_of_cell(n_cells, kNone);
  out.counts.assign(n_cells, 0);
  out.units.assign(n_cells, 0);
  const std::size_t groups = static_cast<std::size_t>(bounds.max_groups_per_unit);
  if (with_unit_cells) out.unit_cells.start.assign(std::size_t(n_units) + 1, 0);
  for (std::size_t u = 0; u < n_units; ++u) {
    interrupts.poll_every(u);
    entries.clear();
    for (std::uint64_t k = start[u]; k < start[u + 1]; ++k) {
      const std::uint32_t c = cell_by_unit[k];
      std::uint32_t& slot = slot_of_cell[c];
      if (slot == kNone) {
        slot = static_cast<std::uint32_t>(entries.size());
        entries.push_back(Entry{siphash_2_4(key, unit_hash[u], cell_hash[c]), c, 0});
      }
      const std::int64_t rows = row_counts != nullptr ? rows_by_unit[k] : 1;
      add_to(entries[slot].rows, rows);
    }
    for (const Entry& e : entries) slot_of_cell[e.cell] = kNone;
    // Rows that count nothing (a count of 0) hold no cell.
    entries.erase(std::remove_if(entries.begin(), entries.end(), [](const Entry& e) { return e.rows == 0; }),
                  entries.end());
    std::size_t kept = entries.size();
    if (kept > groups) {
      std::nth_element(entries.begin(), entries.begin() + groups, entries.end(),
                       [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
      kept = groups;
    }
    for (std::size_t j = 0; j < kept; ++j) {
      add_to(out.counts[entries[j].cell], std::min<std::int64_t>(entries[j].rows, bounds.max_rows_per_group));
      ++out.units[entries[j].cell];
      if (with_unit_cells) out.unit_cells.cells.push_back(entries[j].cell);
    }
    if (with_unit_cells) out.unit_cells.start[std::size_t(u) + 1] = out.unit_cells.cells.size();
  }
  return out;
}

}  // namespace invariant_dp
