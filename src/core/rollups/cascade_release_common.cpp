// What the releases of one hierarchy share (cascade_release_common.hpp).
#include "cascade_release_common.hpp"

#include <sstream>

#include "../errors.hpp"
#include "../hierarchy/published_shape.hpp"
#include "../mechanisms/mechanism_behaviour.hpp"
#include "../mechanisms/release_metadata.hpp"
#include "../hierarchy/cascade_margins.hpp"
#include "../json_text.hpp"

namespace invariant_dp {

using hierarchy::CascadeLaw;
using hierarchy::HierarchyTree;

std::vector<std::size_t> column_indices(const CellKeys& cells, const std::vector<std::string>& names) {
  std::vector<std::size_t> indices;
  for (const std::string& name : names) indices.push_back(cells.column_index(name));
  return indices;
}

void describe_nodes(const HierarchyTree& tree, HierarchyReleaseResult& out, const Interrupts& interrupts) {
  const std::size_t n = tree.n_nodes();
  out.node_cell.resize(n);
  out.node_depth.resize(n);
  out.node_is_leaf.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    interrupts.poll_every(v);
    out.node_cell[v] = tree.leaf_cell(tree.representative_leaf(v));
    out.node_is_leaf[v] = tree.is_leaf(v);
    out.node_depth[v] = tree.depth(v);
  }
}

std::vector<std::uint32_t> fixed_nodes_of_margins(const HierarchyTree& tree, const CellKeys& cells,
                                                  const ReleaseRequest& request, const Interrupts& interrupts) {
  std::vector<std::uint32_t> fixed;
  for (const auto& margin : request.margins) {
    const auto nodes = hierarchy::margin_nodes(tree, cells, column_indices(cells, margin), interrupts);
    fixed.insert(fixed.end(), nodes.begin(), nodes.end());
  }
  return fixed;
}

CascadeLaw cascade_shape(const HierarchyTree& tree, const HierarchyRequest& hierarchy,
                         const std::vector<std::uint32_t>& fixed, const Interrupts& interrupts) {
  CascadeLaw shape = hierarchy.level_variance.empty() ? CascadeLaw::uniform(tree, 1.0, interrupts)
                                                      : CascadeLaw(tree, hierarchy.level_variance, interrupts);
  return fixed.empty() ? shape : shape.conditioned_on(tree, fixed, interrupts);
}

CascadeBudget cascade_budget(const HierarchyRequest& hierarchy, const HierarchyBudget& budget) {
  if (budget.has_epsilon && hierarchy.rho > 0)
    throw InvalidArgument("give epsilon or the option \"rho\", not both",
                          "The cascade is calibrated to one target: (epsilon, delta) or rho-zCDP.");
  if (budget.has_epsilon) return CascadeBudget::EpsilonDelta;
  if (hierarchy.rho > 0) return CascadeBudget::Rho;
  if (!hierarchy.level_variance.empty()) return CascadeBudget::VarianceTargets;
  throw NullValue("epsilon must not be NULL", {},
                  "Pass epsilon, or the option \"rho\", or absolute per-level targets "
                  "{\"level_variance\": [...]} whose privacy cost the release reports.");
}

void add_cascade_privacy_fields(accuracy::MetadataObject& metadata, const ReleaseRequest& request,
                                bool has_fixed_nodes) {
  metadata.add("neighbours", json_quoted(neighbours_name(request.neighbours)));
  metadata.add("privacy_unit", privacy_unit_json(request));
  metadata.add("privacy",
               json_quoted("(epsilon, delta)-differential privacy and rho-zCDP for " + neighbours_text(request) +
                           (has_fixed_nodes ? " and agree on every declared margin; the margins are released exactly"
                                            : "") +
                           (request.bounds.active() ? "; a unit's sensitivity is bounded by (G R)^2 times one "
                                                      "record's (src/core/hierarchy/cascade_privacy.hpp)"
                                                    : "")));
}

hierarchy::Protected protected_by(const ReleaseRequest& request) {
  return hierarchy::Protected(request.neighbours, request.bounds.l1_factor());
}

accuracy::PublishedLaw cascade_published_law(const ReleaseRequest& request, const std::vector<std::uint32_t>& fixed,
                                             std::uint64_t cells) {
  accuracy::PublishedLaw law;
  law.mechanism = request.mechanism->name;
  law.set_error_law(request.mechanism->behaviour().error_law());
  law.integer_output = request.mechanism->integer_output;
  law.margins = request.margins;
  if (fixed.size() <= kMaxPublishedInternalNodes) law.fixed_nodes = fixed;
  law.cells = std::int64_t(cells);
  return law;
}

std::vector<double> level_variances(const HierarchyTree& tree, const CascadeLaw& law) {
  std::vector<double> out;
  for (unsigned d = 0; d <= tree.height(); ++d) out.push_back(law.level_variance(d));
  return out;
}

}  // namespace invariant_dp
