// Calibration of cascade noise both ways, for the release metadata
// (DERIVATIONS.md, section 4: the paper, Dharangutte, Gao, Gong, Wang 2024,
// Theorems 3.8-3.9, calibrates (eps, delta) for eps < 1 only and has no zCDP).
//
// The release x + Z, Z ~ N(0, s^2 Sigma_shape), is for every protected move
// the scalar Gaussian mechanism with sensitivity sqrt(M) / s, where M is the
// largest dx^T Sigma_shape^+ dx over the moves (cascade_privacy.hpp). So:
//   from (eps, delta): s = the analytic Gaussian sigma (Balle-Wang) for
//     sensitivity sqrt(M) - valid for every eps > 0, unlike the paper's
//     sqrt(2 ln(1.25/delta)) bound, which needs eps < 1;
//   from rho: rho = M / (2 s^2) (Bun-Steinke Gaussian mechanism);
//   from absolute per-level targets: rho = M/2 and the smallest eps with the
//     analytic Gaussian delta(eps) <= delta.
// Neighbours: replace_one (default) or add_remove, as in the rest of the
// project; each person contributes to exactly one leaf.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../privacy/neighbours.hpp"
#include "cascade_law.hpp"
#include "cascade_privacy.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

struct CascadeCalibration {
  std::string derived_from;  // "epsilon_delta", "rho" or "variance_targets"
  Neighbours neighbours = Neighbours::ReplaceOne;
  double epsilon = 0;  // 0 when derived from rho without a delta
  double delta = 0;
  double rho = 0;
  // max over protected moves of dx^T Sigma^+ dx under the calibrated law.
  double sensitivity_squared = 0;
  std::vector<double> level_variance;  // per depth, absolute
  std::vector<std::string> level_names;
  std::size_t n_fixed_nodes = 0;
  // One JSON object for the release metadata.
  std::string to_json() const;
};

struct CalibratedLaw {
  CascadeLaw law;  // shape scaled to the budget
  CascadeCalibration calibration;
};

// The shape's largest dx^T Sigma^+ dx over the protected moves (the
// sensitivity both the real-valued and the integer cascade are calibrated
// to). InconsistentInvariants when it is 0: the exact totals leave no move
// to protect, and no scale of noise would mean anything.
double shape_sensitivity(const HierarchyTree& tree, const CascadeLaw& shape, const Protected& protect,
                         const Interrupts& interrupts);

// shape: relative per-level variances (and fixed nodes); its overall scale
// is ignored. InvalidArgument for eps <= 0, delta outside (0, 1);
// InconsistentInvariants when the exact totals leave no move to protect.
// The sensitivity is one O(nodes) pass over the tree (polled).
CalibratedLaw calibrate_epsilon_delta(const HierarchyTree& tree, const CascadeLaw& shape, double epsilon, double delta,
                                      const Protected& protect, const Interrupts& interrupts);
// With a delta (> 0; 0: none) the calibration also reports the epsilon
// the law achieves at it.
CalibratedLaw calibrate_rho(const HierarchyTree& tree, const CascadeLaw& shape, double rho, double delta,
                            const Protected& protect, const Interrupts& interrupts);

// What absolute per-level targets cost: rho, and epsilon at the given delta.
CascadeCalibration cost_of_targets(const HierarchyTree& tree, const CascadeLaw& law, double delta,
                                   const Protected& protect, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
