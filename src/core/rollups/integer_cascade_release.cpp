// A hierarchy released as integers by the integer cascade
// (integer_cascade_release.hpp).
#include "integer_cascade_release.hpp"

#include <cmath>
#include <sstream>

#include "../hierarchy/cascade_covariance.hpp"
#include "../hierarchy/integer_cascade.hpp"
#include "../json_text.hpp"
#include "cascade_release_common.hpp"

namespace invariant_dp {
namespace {

using hierarchy::CalibratedIntegerLaw;
using hierarchy::CascadeLaw;
using hierarchy::HierarchyTree;

CalibratedIntegerLaw calibrate(const HierarchyTree& tree, const CascadeLaw& shape, const ReleaseRequest& request,
                               const HierarchyRequest& hierarchy, const HierarchyBudget& budget,
                               const Interrupts& interrupts) {
  const hierarchy::Protected protect = protected_by(request);
  switch (cascade_budget(hierarchy, budget)) {
    case CascadeBudget::EpsilonDelta:
      return hierarchy::calibrate_integer_cascade_epsilon_delta(tree, shape, request.epsilon, request.delta, protect,
                                                                interrupts);
    case CascadeBudget::Rho:
      return hierarchy::calibrate_integer_cascade_rho(tree, shape, hierarchy.rho, protect, interrupts);
    case CascadeBudget::VarianceTargets: break;
  }
  return hierarchy::integer_cascade_cost_of_targets(tree, shape, request.delta, protect, interrupts);
}

std::string json_array(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + json_number(values[i]);
  return out + "]";
}

std::string metadata(const HierarchyTree& tree, const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                     const CalibratedIntegerLaw& calibrated, const std::vector<std::uint32_t>& fixed,
                     std::uint64_t attempts) {
  const auto& c = calibrated.calibration;
  const auto& p = c.privacy;
  std::ostringstream out;
  out << "{\"mechanism\": \"integer_cascade\", \"family\": " << json_quoted(fixed.empty() ? "none" : "conditioning")
      << ", \"output\": \"integer\", \"epsilon\": " << json_number(p.epsilon) << ", \"delta\": " << json_number(p.delta)
      << ", \"exact\": true, \"rho\": " << json_number(p.rho) << ", " << cascade_privacy_fields(request, !fixed.empty())
      << ", \"noise\": {\"law\": "
      << json_quoted("lattice Gaussian with the cascade's covariance: integer leaf noise z with P(z) proportional to "
                     "exp(-z' Sigma^-1 z / 2) (on the integer vectors that keep every fixed node's total), Sigma the "
                     "Cascade Sampling covariance of level_variance; every node an integer, the sum of its "
                     "children; mean 0; each node's variance lies in [level_variance_lower_bound[depth], "
                     "level_variance[depth]] (a one-child node's: its parent's), any linear query's in "
                     "[(1 - variance_deficit_bound) w' Sigma w, w' Sigma w]")
      << ", \"level_variance\": " << level_variances_json(tree, calibrated.law)
      << ", \"level_variance_lower_bound\": " << json_array(c.level_variance_lower)
      << ", \"variance_deficit_bound\": " << json_number(hierarchy::published_deficit_bound(c.variance_deficit_bound))
      << ", \"calibration\": " << c.to_json() << "}, \"sampler\": {\"method\": "
      << json_quoted("Klein's sampler along the tree with the correction coins of Brakerski, Langlois, Peikert, "
                     "Regev and Stehle 2013 (Lemma 2.3), restarted on a failed coin")
      << ", \"exact\": true, \"attempts\": " << attempts
      << ", \"acceptance_lower_bound\": " << json_number(c.acceptance_bound) << "}, "
      << cascade_invariants_field(request, fixed) << ", \"cells\": " << tree.n_leaves()
      << ", \"hierarchy\": " << hierarchy_tree_json(tree, hierarchy.levels) << "}";
  return out.str();
}

}  // namespace

HierarchyReleaseResult integer_cascade_release(const CellKeys& cells, const std::int64_t* counts,
                                               const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                               const HierarchyBudget& budget, RandomSource& rng,
                                               const Interrupts& interrupts) {
  HierarchyReleaseResult out;
  out.integer_output = true;
  out.level_columns = column_indices(cells, hierarchy.levels);
  const HierarchyTree tree = HierarchyTree::from_cell_keys(cells, out.level_columns, interrupts);
  hierarchy::require_integer_cascade_size(tree.n_nodes());
  const auto fixed = fixed_nodes_of_margins(tree, cells, request, interrupts);
  const auto calibrated =
      calibrate(tree, cascade_shape(tree, hierarchy, fixed, interrupts), request, hierarchy, budget, interrupts);
  auto released = hierarchy::release_integer_cascade(tree, calibrated.law, counts, rng, interrupts);
  out.integer_values = std::move(released.node_values);
  describe_nodes(tree, out, interrupts);
  if (request.with_stddev) {
    // The closed form (the upper end of integer_node_variance's bounds): the
    // exact sd to within the certified factor published.
    out.noise_sd = hierarchy::node_variances(tree, calibrated.law, interrupts);
    for (std::size_t v = 0; v < out.noise_sd.size(); ++v) {
      interrupts.poll_every(v);
      out.noise_sd[v] = std::sqrt(out.noise_sd[v]);
    }
  }
  out.metadata_json = metadata(tree, request, hierarchy, calibrated, fixed, released.attempts);
  return out;
}

}  // namespace invariant_dp
