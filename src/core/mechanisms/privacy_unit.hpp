// Releases whose privacy unit is not one row (dp.privatize's privacy_unit
// and bounds): a patient with many visits, a customer with many orders.
//
// The source returns rows (unit, keys...). Each unit's contribution is
// bounded before anything is counted: of the distinct cells (key tuples) a
// unit has rows in, at most G = max_groups_per_unit are kept, a uniformly
// random subset (the G lowest of a keyed hash of unit and cell, its key
// drawn from the release's random source, so the choice does not depend on
// the rows' order), and at most R = max_rows_per_group of its rows in each
// kept cell. The cells' counts are then sums of bounded contributions, and
// one unit moves the count vector by at most G cells of at most R each:
//   add/remove a unit:   l1 <= G R,    l2 <= sqrt(G) R;
//   replace a unit:      l1 <= 2 G R,  l2 <= sqrt(2 G) R
// (disjoint supports give the l2 bound: |c' - c|^2 <= sum over supp c u
// supp c' of R^2). Every mechanism is calibrated on these norms instead of
// one record's (noise_calibration.hpp), the same way ZetaSQL
// (max_groups_contributed), Tumult Analytics (MaxGroupsPerID,
// MaxRowsPerID), OpenDP and PipelineDP bound contributions. With exact
// margins, the margins released exactly are the bounded table's.
//
// Partition selection (keys that are not public): a cell is released only
// if a noisy count of its distinct units passes a threshold, so that a cell
// only one unit contributes to appears with probability at most delta
// (Korolova, Kenthapadi, Mishra, Ntoulas 2009, "Releasing search queries and
// clicks privately", WWW; Desfontaines, Voss, Gipson, Mandayam 2022,
// "Differentially private partition selection", PoPETs, arXiv:2006.03684,
// sections 3-4). partition_selection.hpp holds the thresholds.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/key_rows.hpp"
#include "../random_source.hpp"
#include "../privacy/contribution_bounds.hpp"
#include "kept_cells.hpp"

namespace invariant_dp {

// The cells of a bounded source: distinct key tuples, each with the sum of
// its units' bounded contributions and the number of units kept in it.
struct BoundedCells {
  std::vector<std::uint32_t> row;     // a source row holding the cell's keys
  std::vector<std::int64_t> counts;   // sum over kept units of min(rows, R)
  std::vector<std::int64_t> units;    // units that kept the cell
  KeptCells unit_cells;               // each unit's kept cells (only when asked for)
};

// rows: the source's rows, units (one column) the unit of each row, keys
// its key tuple, row_counts[i] >= 0 how many of the unit's rows it stands
// for (nullptr: one each; rows of a unit and tuple are added up). A NULL unit is refused
// (NullValue, 22004): it would lump the rows of unrelated people into one.
// with_unit_cells: also list each unit's kept cells.
BoundedCells bound_contributions(const KeyRows& units, const KeyRows& keys, const std::int64_t* row_counts,
                                 const ContributionBounds& bounds, RandomSource& rng,
                                 const Interrupts& interrupts, bool with_unit_cells = false);

}  // namespace invariant_dp
