// The error bars of any weighted sum of a release's rows, from what an
// analyst may read: the published noise law (published_law.hpp) and the
// release table's rows (release_rows.hpp). Built once per release (O(rows):
// the structure from the keys, then the family's accuracy object of
// accuracy.hpp), then each sum costs O(rows in the sum) (times the depth of
// a hierarchy; a rolled-up hierarchy's node counts its leaves).
//
// By family (DERIVATIONS.md, sections 1 to 9):
//   flat releases: the invariant model rebuilt from the keys and the law's
//     margins, its form, and the family's scalars (linear_accuracy.hpp),
//     checked against the law's cells, rank and null dimension;
//   cascade, integer_cascade: the tree rebuilt from the keys, the law's
//     level variances conditioned on the margins' nodes
//     (HierarchyAccuracy), or both trees when crossed (CrossedAccuracy);
//     rows are nodes, or (row node, column node) pairs;
//   other mechanisms with a hierarchy: the leaves as a flat release, each
//     node the sum of its leaves;
//   streams: rows in period order, stream_variance.
// One functional, one error bar: a sum is first brought to a canonical
// form (a cascade's complete families of equal weight read as their parent,
// up the tree; the units in increasing order), so a node read from its row,
// from its children's rows or from its leaves' rows is one query. A query
// of one unit (a flat release's cell, a one-tree cascade's node) takes that
// unit's interval, |w| times (the figure the release's per-cell intervals
// and row_intervals give it, by the same code); any other sum takes the
// tail its law recommends for its canonical size (margin_of_error.hpp).
// Where the law is drawn by a chain the figure is the law's, and
// ErrorBar::caveat says so.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "../invariants/cell_keys.hpp"
#include "cell_intervals.hpp"
#include "cell_query.hpp"
#include "margin_of_error.hpp"
#include "published_law.hpp"
#include "release_rows.hpp"

namespace invariant_dp::accuracy {

struct ErrorBar {
  std::size_t unknown_rows = 0;  // rows of no cell of this release: no figure then
  std::size_t cells = 0;         // released rows with a non-zero total weight
  VarianceFigure variance;
  bool has_margin = false;
  MarginOfError margin;
  std::string caveat;  // empty, or why the figure is the law's only
};

class PublishedRelease {
 public:
  // The rows must be the release's, as the layout reads them; InvalidData
  // when they are not (another count of cells, keys of no node, ...).
  PublishedRelease(PublishedLaw law, const RowLayout& layout, const ReleaseRows& rows, const Interrupts& interrupts);
  ~PublishedRelease();
  PublishedRelease(const PublishedRelease&) = delete;
  PublishedRelease& operator=(const PublishedRelease&) = delete;

  // The sum of weights[i] times row ids[i] (a row given twice counts
  // twice); level in (0, 1) for a margin of error, or NaN for the variance
  // alone. One sum at a time (the forms keep scratch arrays).
  ErrorBar sum(const RowId* ids, const double* weights, std::size_t n, double level, const Interrupts& interrupts);

  // One interval per row at `level` (cell_intervals.hpp), in row order: a
  // flat release's cells or a one-hierarchy cascade's nodes. InvalidArgument
  // for crossed and rolled-up hierarchies (a node's law is then a sum's).
  CellIntervals row_intervals(double level, const Interrupts& interrupts) const;

  std::size_t n_rows() const;
  const PublishedLaw& law() const;
  // The covariance in words, with how it is known.
  const std::string& statement() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The per-cell intervals of a flat release (no hierarchy) over the cells it
// released, keyed as it keyed them (the margins' columns at least): what a
// release computes beside its values, with no table rows to rebuild.
CellIntervals flat_intervals(const PublishedLaw& law, const CellKeys& cells, double level,
                             const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
