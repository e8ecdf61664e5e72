// A release over two crossed hierarchies (dp.privatize with `hierarchy` and
// the option "crossed"; hierarchy/crossed_cascade.hpp): the cells are the full grid of (row
// leaf, column leaf) pairs, and the release has one row per (row node,
// column node) pair, e.g. (state, age_group) or (county, all ages).
//
// Three ways to noise it, as in one hierarchy (hierarchy_release.hpp; the
// non-negative cascade is refused with crossed hierarchies):
// - mechanism "cascade": Kronecker cascade noise on the grid
//   (hierarchy/crossed_cascade.hpp): every rectangle (s, t) has variance
//   v_rows(s) * v_cols(t); with uniform levels, the paper's "every dyadic
//   rectangle at sigma^2". Calibrated from (epsilon, delta) or rho through
//   crossed_max_sensitivity_squared. No exact margins, no per-level targets.
// - mechanism "integer_cascade": the same Kronecker covariance as an exact
//   lattice Gaussian on the integer grid (hierarchy/crossed_integer_
//   cascade.hpp), calibrated through rho-zCDP; integers in every rectangle,
//   each rectangle's variance within certified bounds of the closed form.
// - any other mechanism: the grid cells are released by it as usual
//   (margins exact, integers stay integers), then rolled up over both trees.
// Every value is a fixed-order fold of released grid cells
// (crossed_rollup; for integer_cascade, of the exact counts plus noise of
// that layout): exact for integers; for float8, (s, t) is bit-exactly
// the sum over the children of s, and the sum over the children of t agrees
// to rounding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../random_source.hpp"
#include "hierarchy_release.hpp"
#include "../request/checked_request.hpp"

namespace invariant_dp {

struct CrossedReleaseResult {
  bool integer_output = false;
  std::vector<std::size_t> row_level_columns, col_level_columns;  // key column indices, coarsest first
  // Per output row, row-major over (row node, column node), each in its
  // tree's level order: the cell whose keys the row prints, and the two
  // depths (a row prints the row levels down to row_depth and the column
  // levels down to col_depth, NULL below).
  std::vector<std::uint32_t> node_cell, row_depth, col_depth;
  std::vector<double> values;                // real mechanisms
  std::vector<std::int64_t> integer_values;  // integer mechanisms
  std::vector<double> noise_sd;              // empty unless requested
  accuracy::PublishedLaw law;         // typed (accuracy/published_law.hpp)
  accuracy::MetadataObject metadata;  // that law written with the release's other fields
  std::string metadata_json;          // its text
};

struct CrossedGrid;

// Fills the rows' cells and depths of a release over `grid`: one output row
// per (row node, column node) pair, so polled per pair.
void describe_nodes(const CrossedGrid& grid, CrossedReleaseResult& out, const Interrupts& interrupts);

// What a crossed request may not combine, checked before the source runs:
// per-level targets, and exact margins with the cascade. No-op when the
// request is not crossed.
void check_crossed_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy);

CrossedReleaseResult run_crossed_release(const CellKeys& cells, const std::int64_t* counts,
                                         const CheckedRequest& checked, RandomSource& rng,
                                         const Interrupts& interrupts);

}  // namespace invariant_dp
