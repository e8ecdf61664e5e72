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

CalibratedIntegerLaw calibrate_integer_cascade(const HierarchyTree& tree, const CascadeLaw& shape,
                                               const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                               const HierarchyBudget& budget, const Interrupts& interrupts) {
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

void integer_cascade_metadata(const HierarchyTree& tree, const ReleaseRequest& request,
                              const HierarchyRequest& hierarchy, const CalibratedIntegerLaw& calibrated,
                              const std::vector<std::uint32_t>& fixed, std::uint64_t attempts,
                              HierarchyReleaseResult& out) {
  const auto& c = calibrated.calibration;
  const auto& p = c.privacy;
  accuracy::PublishedLaw& law = out.law;
  law = cascade_published_law(request, fixed, tree.n_leaves());
  law.noise_text = "lattice Gaussian with the cascade's covariance: integer leaf noise z with P(z) proportional to "
                   "exp(-z' Sigma^-1 z / 2) (on the integer vectors that keep every fixed node's total), Sigma the "
                   "Cascade Sampling covariance of level_variance; every node an integer, the sum of its "
                   "children; mean 0; each node's variance lies in [level_variance_lower_bound[depth], "
                   "level_variance[depth]] (a one-child node's: its parent's), any linear query's in "
                   "[(1 - variance_deficit_bound) w' Sigma w, w' Sigma w]";
  law.level_variance = {level_variances(tree, calibrated.law)};
  law.level_variance_lower = c.level_variance_lower;
  law.deficit_bound = hierarchy::published_deficit_bound(c.variance_deficit_bound);
  law.calibration_json = c.to_json();
  accuracy::PublishedSampler sampler;
  sampler.present = true;
  sampler.method = "Klein's sampler along the tree with the correction coins of Brakerski, Langlois, Peikert, "
                   "Regev and Stehle 2013 (Lemma 2.3), restarted on a failed coin";
  sampler.has_attempts = true;
  sampler.attempts = attempts;
  sampler.acceptance_lower_bound = c.acceptance_bound;
  law.set_sampler(std::move(sampler));
  law.trees = {published_tree(tree, hierarchy.levels)};
  accuracy::MetadataObject& m = out.metadata;
  m.add("mechanism", json_quoted(law.mechanism));
  m.add("family", json_quoted(fixed.empty() ? "none" : "conditioning"));
  m.add("output", "\"integer\"");
  m.add("error_law", accuracy::error_law_json(law));
  m.add("epsilon", json_number(p.epsilon));
  m.add("delta", json_number(p.delta));
  m.add("exact", "true");
  m.add("rho", json_number(p.rho));
  add_cascade_privacy_fields(m, request, !fixed.empty());
  m.add("noise", accuracy::noise_json(law));
  m.add("sampler", accuracy::sampler_json(law));
  m.add("invariants", accuracy::invariants_json(law));
  m.add("cells", std::to_string(tree.n_leaves()));
  m.add("hierarchy", accuracy::hierarchy_json(law));
  out.metadata_json = m.text();
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
  const auto calibrated = calibrate_integer_cascade(tree, cascade_shape(tree, hierarchy, fixed, interrupts), request,
                                                    hierarchy, budget, interrupts);
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
  integer_cascade_metadata(tree, request, hierarchy, calibrated, fixed, released.attempts, out);
  return out;
}

}  // namespace invariant_dp
