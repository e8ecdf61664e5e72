// Integer Cascade on hierarchies: the one header the shim includes for the
// mechanism "integer_cascade" (exact lattice Gaussian with the cascade's
// covariance: integer counts at every level, each node the sum of its
// children, per-level accuracy, unbiased). In the order the calls are made:
//   1. tree  = HierarchyTree::from_cell_keys(keys, level_columns, interrupts)
//   2. shape = CascadeLaw::uniform(tree, 1.0) or CascadeLaw(tree, per-level
//      variances); exact totals: shape = shape.conditioned_on(tree, nodes)
//      with margin_nodes() of every margin (as for "cascade", cascade.hpp)
//   3. calibrated = calibrate_integer_cascade_epsilon_delta(tree, shape, eps,
//      delta, neighbours, interrupts), calibrate_integer_cascade_rho(...), or
//      for absolute targets integer_cascade_cost_of_targets(tree, law, delta,
//      neighbours, interrupts). OutOfRange (22003) when the noise is too
//      small for the exact sampler on this tree.
//   4. release = release_integer_cascade(tree, calibrated.law, counts_by_cell,
//      rng, interrupts): release.node_values[v] (int64) for every node in
//      node order, rows printed as for "cascade";
//      calibrated.calibration.to_json() the metadata. TooLarge (54000)
//      beyond kMaxIntegerCascadeNodes, before any noise is allocated.
//   5. standard errors: integer_node_variance(tree, law, B, v) and
//      integer_range_variance(tree, law, B, lo, hi), B =
//      calibrated.calibration.variance_deficit_bound: certified [lower,
//      upper] of the exact variance (upper = the cascade's closed form).
// Crossed hierarchies: crossed_integer_cascade.hpp (the same argument on
// the Kronecker product; calibrate as the real-valued crossed release does,
// with lattice_gaussian_sigma2 or m / (2 rho) for the rows' variance).
// Streams do not carry over: integer_cascade_sampler.hpp, "Streams".
#pragma once

#include "cascade_law.hpp"
#include "cascade_margins.hpp"
#include "hierarchy_tree.hpp"
#include "crossed_integer_cascade.hpp"
#include "integer_cascade_accuracy.hpp"
#include "integer_cascade_calibration.hpp"
#include "integer_cascade_sampler.hpp"
