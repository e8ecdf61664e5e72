// Orchestrates a hierarchy release (hierarchy_release.hpp).
#include "hierarchy_release.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "../errors.hpp"
#include "../hierarchy/cascade_calibration.hpp"
#include "../hierarchy/cascade_covariance.hpp"
#include "../hierarchy/cascade_sampler.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../hierarchy/rollup.hpp"
#include "../json_text.hpp"
#include "../mechanisms/noise_calibration.hpp"
#include "../mechanisms/release.hpp"
#include "cascade_release_common.hpp"
#include "integer_cascade_release.hpp"
#include "nonnegative_cascade_release.hpp"

namespace invariant_dp {
namespace {

using hierarchy::CascadeLaw;
using hierarchy::HierarchyTree;

hierarchy::CalibratedLaw calibrate_cascade(const HierarchyTree& tree, const CascadeLaw& shape,
                                           const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                           const HierarchyBudget& budget, const Interrupts& interrupts) {
  const hierarchy::Protected protect = protected_by(request);
  switch (cascade_budget(hierarchy, budget)) {
    case CascadeBudget::EpsilonDelta:
      return hierarchy::calibrate_epsilon_delta(tree, shape, request.epsilon, request.delta, protect, interrupts);
    case CascadeBudget::Rho: return hierarchy::calibrate_rho(tree, shape, hierarchy.rho, request.delta, protect, interrupts);
    case CascadeBudget::VarianceTargets: break;
  }
  return {shape, hierarchy::cost_of_targets(tree, shape, request.delta, protect, interrupts)};
}

void cascade_metadata(const HierarchyTree& tree, const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                      const hierarchy::CalibratedLaw& calibrated, const std::vector<std::uint32_t>& fixed,
                      HierarchyReleaseResult& out) {
  const auto& c = calibrated.calibration;
  accuracy::PublishedLaw& law = out.law;
  law = cascade_published_law(request, fixed, tree.n_leaves());
  law.noise_text = "Gaussian cascade (Cascade Sampling): every node's noise is N(0, level_variance[depth]), "
                   "children sum to their parent; floating-point Gaussian draws (Mironov 2012 caveat)";
  law.level_variance = {level_variances(tree, calibrated.law)};
  law.calibration_json = c.to_json();
  law.trees = {published_tree(tree, hierarchy.levels)};
  accuracy::MetadataObject& m = out.metadata;
  m.add("mechanism", json_quoted(law.mechanism));
  m.add("family", json_quoted(fixed.empty() ? "none" : "conditioning"));
  m.add("output", "\"real\"");
  m.add("error_law", accuracy::error_law_json(law));
  m.add("epsilon", json_number(c.epsilon));
  m.add("delta", json_number(c.delta));
  m.add("exact", "true");
  m.add("rho", json_number(c.rho));
  add_cascade_privacy_fields(m, request, !fixed.empty());
  m.add("noise", accuracy::noise_json(law));
  m.add("invariants", accuracy::invariants_json(law));
  m.add("cells", std::to_string(tree.n_leaves()));
  m.add("hierarchy", accuracy::hierarchy_json(law));
  out.metadata_json = m.text();
}

HierarchyReleaseResult cascade_release(const CellKeys& cells, const std::int64_t* counts, const ReleaseRequest& request,
                                       const HierarchyRequest& hierarchy, const HierarchyBudget& budget,
                                       RandomSource& rng, const Interrupts& interrupts) {
  HierarchyReleaseResult out;
  out.level_columns = column_indices(cells, hierarchy.levels);
  const HierarchyTree tree = HierarchyTree::from_cell_keys(cells, out.level_columns, interrupts);
  const auto fixed = fixed_nodes_of_margins(tree, cells, request, interrupts);
  const auto calibrated = calibrate_cascade(tree, cascade_shape(tree, hierarchy, fixed, interrupts), request, hierarchy,
                                            budget, interrupts);
  if (!fixed.empty()) {
    double largest = 0;
    for (unsigned d = 0; d <= tree.height(); ++d) largest = std::max(largest, calibrated.law.level_variance(d));
    check_float8_margins(std::sqrt(largest), tree.n_nodes());
  }

  for (std::size_t i = 0; i < cells.n_cells(); ++i) {
    interrupts.poll_every(i);
    if (counts[i] > kMaxExactRealCount)
      throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
  }
  auto released = hierarchy::release_cascade(tree, calibrated.law, counts, rng, interrupts);
  out.values = std::move(released.node_values);
  describe_nodes(tree, out, interrupts);
  if (request.with_stddev) {
    out.noise_sd = hierarchy::node_variances(tree, calibrated.law, interrupts);
    for (std::size_t v = 0; v < out.noise_sd.size(); ++v) {
      interrupts.poll_every(v);
      out.noise_sd[v] = std::sqrt(std::max(0.0, out.noise_sd[v]));
    }
  }
  cascade_metadata(tree, request, hierarchy, calibrated, fixed, out);
  return out;
}

HierarchyReleaseResult rolled_up_release(const CellKeys& cells, const std::int64_t* counts,
                                         const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                         RandomSource& rng, const Interrupts& interrupts) {
  if (request.with_stddev && !request.margins.empty())
    throw InvalidArgument("stddev of rollup rows needs mechanism \"cascade\" or no margins",
                          "With exact margins the leaves' noise is correlated in a way only the cascade publishes "
                          "in closed form.",
                          "Drop {\"stddev\": true}, or use mechanism => 'cascade' (real counts) or "
                          "'integer_cascade' (integers).");
  HierarchyReleaseResult out;
  out.level_columns = column_indices(cells, hierarchy.levels);
  const HierarchyTree tree = HierarchyTree::from_cell_keys(cells, out.level_columns, interrupts);
  const ReleaseResult leaves = run_release(cells, counts, request, rng, interrupts);
  out.integer_output = leaves.integer_output;
  if (leaves.integer_output)
    out.integer_values =
        hierarchy::rollup(tree, tree.to_leaf_order(leaves.integer_values.data(), interrupts), interrupts);
  else
    out.values = hierarchy::rollup(tree, tree.to_leaf_order(leaves.values.data(), interrupts), interrupts);
  describe_nodes(tree, out, interrupts);
  if (request.with_stddev) {
    // Without margins the leaves' noise is independent: variances add.
    std::vector<double> variance(cells.n_cells());
    for (std::size_t i = 0; i < variance.size(); ++i) {
      interrupts.poll_every(i);
      variance[i] = leaves.noise_sd[i] * leaves.noise_sd[i];
    }
    out.noise_sd = hierarchy::rollup(tree, tree.to_leaf_order(variance.data(), interrupts), interrupts);
    for (std::size_t v = 0; v < out.noise_sd.size(); ++v) {
      interrupts.poll_every(v);
      out.noise_sd[v] = std::sqrt(out.noise_sd[v]);
    }
  }
  out.law = leaves.law;
  out.law.trees = {published_tree(tree, hierarchy.levels)};
  out.metadata = leaves.metadata;
  out.metadata.add("hierarchy", accuracy::hierarchy_json(out.law));
  out.metadata_json = out.metadata.text();
  return out;
}

}  // namespace

// The tree's shape for the metadata: enough to rebuild it (dp.range_variance).
accuracy::PublishedTree published_tree(const hierarchy::HierarchyTree& tree, const std::vector<std::string>& levels) {
  accuracy::PublishedTree out;
  out.levels = levels;
  for (unsigned d = 0; d <= tree.height(); ++d) out.level_names.push_back(tree.level_name(d));
  out.cells_below = out.level_names.size() == levels.size() + 2;
  out.nodes = tree.n_nodes();
  out.leaves = tree.n_leaves();
  // Every node is a leaf or internal: no pass over the nodes. The children
  // list runs over at most kMaxPublishedInternalNodes nodes.
  const std::size_t internal = tree.n_nodes() - tree.n_leaves();
  out.children_published = internal <= kMaxPublishedInternalNodes;
  for (std::uint32_t v = 0; out.children_published && v < tree.n_nodes() && !tree.is_leaf(v); ++v)
    out.children.push_back(tree.n_children(v));
  return out;
}

HierarchyReleaseResult run_hierarchy_release(const CellKeys& cells, const std::int64_t* counts,
                                             const CheckedRequest& checked, RandomSource& rng,
                                             const Interrupts& interrupts) {
  const ReleaseRequest& request = checked.release;
  if (request.mechanism->calibrated_on_tree && request.mechanism->non_negative)
    return nonnegative_cascade_release(cells, counts, request, checked.hierarchy, checked.budget, rng, interrupts);
  if (request.mechanism->calibrated_on_tree)
    return request.mechanism->integer_output
               ? integer_cascade_release(cells, counts, request, checked.hierarchy, checked.budget, rng, interrupts)
               : cascade_release(cells, counts, request, checked.hierarchy, checked.budget, rng, interrupts);
  return rolled_up_release(cells, counts, request, checked.hierarchy, rng, interrupts);
}

}  // namespace invariant_dp
