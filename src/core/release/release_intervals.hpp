// Per-cell intervals of a release (options {"interval": level}): a
// half-width t per row, whose bounds value - t and value + t cover the
// row's true count with at least that probability under the published
// noise law (ReleaseTable::bounds reads them). They are
// post-processing of the law: computed after the draw, from the law the
// release publishes and the cells it released (accuracy/published_release.hpp
// and accuracy/cell_intervals.hpp), never from a count, and they draw
// nothing, so every released value is the same with or without them. The
// metadata gains "interval": {"level", "method", "kind"}.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../request/hierarchy_request.hpp"
#include "release_table.hpp"

namespace invariant_dp {

namespace accuracy {
class CellIntervals;
}

// InvalidArgument, before anything is read, for a request whose intervals
// no published law gives: congenial and the non-negative projections (their
// noise depends on the counts; nonnegative_cascade computes its own), and hierarchies released by other
// mechanisms (a rolled-up node's law is a sum's: dp.margin_of_error).
void check_interval_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy);

// A flat release: its rows are `cells`, in order.
void add_flat_intervals(ReleaseTable& table, const CellKeys& cells, double level, const Interrupts& interrupts);

// Intervals a release computed itself (nonnegative_cascade, whose law
// depends on the counts: its figures at the released counts), one per row.
void add_release_intervals(ReleaseTable& table, std::shared_ptr<const accuracy::CellIntervals> intervals, double level,
                           const Interrupts& interrupts);

// A cascade over one hierarchy or two crossed ones, while its rows'
// row_cell still name cells of `cells` (every key column encoded).
void add_hierarchy_intervals(ReleaseTable& table, const CellKeys& cells, const std::vector<std::string>& column_names,
                             double level, const Interrupts& interrupts);

}  // namespace invariant_dp
