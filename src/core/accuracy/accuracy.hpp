// Error bars: the one header a caller includes. Every figure follows from a
// release's published law alone (no budget, no source row); DERIVATIONS.md
// beside this file has the arguments, cell_query.hpp what "exact",
// "certified" and "estimate" mean.
//
// What a caller builds, per family (each object once per release, then any
// number of queries, each O(cells in the query)):
//
//  1. The form of the invariants (projector_form.hpp): form_of_model(model)
//     from the release's InvariantModel (rebuilt from the release's key
//     columns and declared margins: the structure is a function of the keys),
//     or identity_form(n) without margins.
//  2. The accuracy (linear_accuracy.hpp), from the published law:
//       discrete_laplace, discrete_gaussian (and integer_* without margins):
//         laplace_lattice_accuracy(form, b) / lattice_gaussian_accuracy(form, sigma2)
//         with b, sigma2 = noise.exact_parameter;
//       subspace_gaussian, subspace_laplace, project_l2:
//         projected_accuracy(form, noise.unit_variance);
//       integer_laplace: laplace_lattice_accuracy(form, b, sd^2 per cell or
//         nullptr) -- the per-cell Monte Carlo variances (the published sd,
//         squared) are needed only where no closed form exists (tables with
//         no line of two levels, general margins);
//       integer_gaussian: lattice_gaussian_accuracy(form, sigma2);
//       integer_laplace_l2: estimated_accuracy(form, sd^2 per cell, ...),
//         or from one published scalar per block (per table; one for
//         general margins) if the release keeps those instead.
//     congenial, project_nn_l2 and project_nn_integer have none (their laws
//     depend on the counts).
//     cascade, integer_cascade: HierarchyAccuracy(tree, law, B or -1)
//     (hierarchy_accuracy.hpp), tree and law as the release built them (or
//     from the published children and level_variance), B the published
//     variance_deficit_bound. Crossed trees: CrossedAccuracy(rows, row law,
//     columns, column law, B or -1) (crossed_accuracy.hpp), queries as
//     rectangles (row node, column node). Streams: stream_variance(node
//     variance, periods, weights).
//  3. Queries: QueryBuilder(n) collects a sum's cells (a release row's cell
//     index; for hierarchies its node, in node order), variance(query)
//     returns a VarianceFigure; margin_of_error(figure, level,
//     recommended_tail(shape, cells), shape, integer) its half-width
//     (margin_of_error.hpp).
//  4. Per-cell intervals (cell_intervals.hpp): discrete_laplace_intervals,
//     discrete_gaussian_intervals, laplace_lattice_intervals,
//     lattice_gaussian_intervals, real_intervals, estimated_intervals,
//     HierarchyAccuracy::node_intervals; then check_integer_bounds once,
//     integer_bounds or real_bounds over the released values as their rows
//     are read, and method()/kind() for the metadata.
// A privacy unit changes nothing here: its bounds are already in the
// calibrated scale the law publishes.
#pragma once

#include "cell_intervals.hpp"
#include "cell_query.hpp"
#include "crossed_accuracy.hpp"
#include "hierarchy_accuracy.hpp"
#include "linear_accuracy.hpp"
#include "margin_of_error.hpp"
#include "projector_form.hpp"
#include "tail_quantiles.hpp"
