// The non-negative cascade on hierarchies: the one header a caller includes
// for the mechanism "nonnegative_cascade" (integer counts at every level,
// every node >= 0 and the sum of its children, the declared totals exact,
// drawn exactly from a stated law; NONNEGATIVE.md beside this file has the
// law, the privacy proof and the sampler's argument). In the order the
// calls are made, with integer_cascade's inputs (integer_cascade.hpp):
//   1. tree  = HierarchyTree::from_cell_keys(keys, level_columns, interrupts)
//   2. fixed = margin_nodes(...) of every margin (cascade_margins.hpp), or
//      none; level_variance: one value per depth (the grand total first),
//      all equal for the default split
//   3. calibrated = calibrate_nonnegative_cascade(tree, level_variance,
//      fixed, epsilon, protect, interrupts) (relative targets scaled to
//      epsilon), or nonnegative_cascade_cost_of_targets(tree, level_variance,
//      fixed, protect, interrupts) (absolute targets: the epsilon they cost,
//      calibrated.calibration.epsilon). The release is pure epsilon-DP
//      (delta = 0) for neighbours that keep every exact total.
//   4. release = release_nonnegative_cascade(tree, calibrated, counts_by_cell,
//      rng, interrupts): release.node_values (int64, node order, rows printed
//      as for "cascade"), release.node_bias and release.node_variance (per
//      node, the law's at the released counts: for {"stddev": true},
//      intervals and margins of error), release.metadata_json. TooLarge
//      (54000) before any window is allocated when the windows would not
//      fit (nonnegative_cascade_size); InvalidData (22000) for a negative
//      count; OutOfRange (22003) for a level epsilon out of range.
//   5. the same figures at other counts (the true ones, for a comparison
//      with the truth known): nonnegative_cascade_moments(tree, law,
//      leaf_counts_in_leaf_order, interrupts).
#pragma once

#include "hierarchy_tree.hpp"
#include "nonnegative_cascade_law.hpp"
#include "nonnegative_cascade_moments.hpp"
#include "nonnegative_cascade_release.hpp"
