// Cascade Sampling on hierarchies: the one header the shim includes.
//
// A release of GROUP BY counts over a declared hierarchy (the "cascade"
// mechanism; docs/hierarchies.md, "Four ways to noise a hierarchy"; what goes
// beyond the paper, Dharangutte, Gao, Gong, Wang 2024, arXiv:2402.07066, is
// derived in DERIVATIONS.md), in the order the calls are made:
//   1. tree  = HierarchyTree::from_cell_keys(keys, level_columns, interrupts)
//   2. shape = CascadeLaw::uniform(tree, 1.0) or CascadeLaw(tree, per-level
//      variances) (relative; infeasible targets are refused)
//   3. exact totals: shape = shape.conditioned_on(tree, nodes), nodes the
//      concatenated margin_nodes(tree, keys, margin_columns, interrupts) of
//      every margin (one call)
//   4. calibrated = calibrate_epsilon_delta(tree, shape, eps, delta, neighbours,
//      interrupts) or calibrate_rho(...); absolute targets:
//      cost_of_targets(tree, law, delta, neighbours, interrupts)
//   5. release = release_cascade(tree, calibrated.law, counts_by_cell, rng, interrupts)
//      release.node_values[v] for every node v in node order (root, then each
//      level); tree.depth(v), tree.leaf_cell(tree.representative_leaf(v)) give
//      the row's prefix keys; calibrated.calibration.to_json() the metadata.
//   6. standard errors: node_variance(tree, law, v); ranges of ordered leaves:
//      range_variance(tree, law, lo, hi).
// Crossed hierarchies: crossed_cascade.hpp; appending to a time series:
// streaming_cascade.hpp.
#pragma once

#include "cascade_calibration.hpp"
#include "cascade_covariance.hpp"
#include "cascade_law.hpp"
#include "cascade_margins.hpp"
#include "cascade_privacy.hpp"
#include "cascade_sampler.hpp"
#include "crossed_cascade.hpp"
#include "hierarchy_tree.hpp"
#include "rollup.hpp"
#include "streaming_cascade.hpp"
