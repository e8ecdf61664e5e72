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

// Splices "hierarchy": {...} into a release's metadata object.
std::string with_hierarchy(const std::string& metadata, const std::string& hierarchy_json) {
  const std::size_t close = metadata.rfind('}');
  return metadata.substr(0, close) + ", \"hierarchy\": " + hierarchy_json + "}";
}

hierarchy::CalibratedLaw calibrate(const HierarchyTree& tree, const CascadeLaw& shape, const ReleaseRequest& request,
                                   const HierarchyRequest& hierarchy, const HierarchyBudget& budget,
                                   const Interrupts& interrupts) {
  const hierarchy::Protected protect = protected_by(request);
  switch (cascade_budget(hierarchy, budget)) {
    case CascadeBudget::EpsilonDelta:
      return hierarchy::calibrate_epsilon_delta(tree, shape, request.epsilon, request.delta, protect, interrupts);
    case CascadeBudget::Rho: return hierarchy::calibrate_rho(tree, shape, hierarchy.rho, request.delta, protect, interrupts);
    case CascadeBudget::VarianceTargets: break;
  }
  return {shape, hierarchy::cost_of_targets(tree, shape, request.delta, protect, interrupts)};
}

std::string cascade_metadata(const HierarchyTree& tree, const ReleaseRequest& request,
                             const HierarchyRequest& hierarchy, const hierarchy::CalibratedLaw& calibrated,
                             const std::vector<std::uint32_t>& fixed) {
  const auto& c = calibrated.calibration;
  std::ostringstream out;
  out << "{\"mechanism\": \"cascade\", \"family\": " << json_quoted(fixed.empty() ? "none" : "conditioning")
      << ", \"output\": \"real\", \"epsilon\": " << json_number(c.epsilon)
      << ", \"delta\": " << json_number(c.delta) << ", \"exact\": true, \"rho\": " << json_number(c.rho) << ", "
      << cascade_privacy_fields(request, !fixed.empty()) << ", \"noise\": {\"law\": "
      << json_quoted("Gaussian cascade (Cascade Sampling): every node's noise is N(0, level_variance[depth]), "
                     "children sum to their parent; floating-point Gaussian draws (Mironov 2012 caveat)")
      << ", \"level_variance\": " << level_variances_json(tree, calibrated.law)
      << ", \"calibration\": " << c.to_json() << "}, " << cascade_invariants_field(request, fixed)
      << ", \"cells\": " << tree.n_leaves() << ", \"hierarchy\": " << hierarchy_tree_json(tree, hierarchy.levels) << "}";
  return out.str();
}

HierarchyReleaseResult cascade_release(const CellKeys& cells, const std::int64_t* counts, const ReleaseRequest& request,
                                       const HierarchyRequest& hierarchy, const HierarchyBudget& budget,
                                       RandomSource& rng, const Interrupts& interrupts) {
  HierarchyReleaseResult out;
  out.level_columns = column_indices(cells, hierarchy.levels);
  const HierarchyTree tree = HierarchyTree::from_cell_keys(cells, out.level_columns, interrupts);
  const auto fixed = fixed_nodes_of_margins(tree, cells, request, interrupts);
  const auto calibrated =
      calibrate(tree, cascade_shape(tree, hierarchy, fixed, interrupts), request, hierarchy, budget, interrupts);
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
  out.metadata_json = cascade_metadata(tree, request, hierarchy, calibrated, fixed);
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
  out.metadata_json = with_hierarchy(leaves.metadata_json, hierarchy_tree_json(tree, hierarchy.levels));
  return out;
}

}  // namespace

// The tree's shape for the metadata: enough to rebuild it (dp.range_variance).
std::string hierarchy_tree_json(const hierarchy::HierarchyTree& tree, const std::vector<std::string>& levels) {
  std::ostringstream out;
  out << "{\"levels\": [";
  for (std::size_t i = 0; i < levels.size(); ++i) out << (i ? ", " : "") << json_quoted(levels[i]);
  out << "], \"level_names\": [";
  for (unsigned d = 0; d <= tree.height(); ++d) out << (d ? ", " : "") << json_quoted(tree.level_name(d));
  // Every node is a leaf or internal: no pass over the nodes. The children
  // list below runs over at most kMaxPublishedInternalNodes nodes.
  const std::size_t internal = tree.n_nodes() - tree.n_leaves();
  out << "], \"nodes\": " << tree.n_nodes() << ", \"leaves\": " << tree.n_leaves()
      << ", \"internal_nodes\": " << internal
      << ", \"node_order\": \"level order: the grand total, then each depth in leaf order\""
      << ", \"rollup\": \"every internal node is the sum of its children's released values, in a fixed order\"";
  if (internal <= kMaxPublishedInternalNodes) {
    out << ", \"children\": [";
    bool first = true;
    for (std::uint32_t v = 0; v < tree.n_nodes() && !tree.is_leaf(v); ++v) {
      out << (first ? "" : ", ") << tree.n_children(v);
      first = false;
    }
    out << "]";
  }
  out << "}";
  return out.str();
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
