// What the releases of one hierarchy share (hierarchy_release.cpp for
// "cascade" and the rollups, integer_cascade_release.cpp for
// "integer_cascade"): the tree's columns and rows, the exact margins as
// nodes, the shape of the noise law, which budget calibrates it, and the
// metadata fields both cascades publish alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../accuracy/published_law_json.hpp"
#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/cascade_privacy.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "hierarchy_release.hpp"

namespace invariant_dp {

std::vector<std::size_t> column_indices(const CellKeys& cells, const std::vector<std::string>& names);

// Fills the rows' cells, depths and leaf flags of a release of `tree`.
void describe_nodes(const hierarchy::HierarchyTree& tree, HierarchyReleaseResult& out, const Interrupts& interrupts);

// The nodes of every declared margin (each must be whole nodes).
std::vector<std::uint32_t> fixed_nodes_of_margins(const hierarchy::HierarchyTree& tree, const CellKeys& cells,
                                                  const ReleaseRequest& request, const Interrupts& interrupts);

// The relative (or, with epsilon NULL, absolute) per-level variances the
// request asks for, conditioned on the fixed nodes.
hierarchy::CascadeLaw cascade_shape(const hierarchy::HierarchyTree& tree, const HierarchyRequest& hierarchy,
                                    const std::vector<std::uint32_t>& fixed, const Interrupts& interrupts);

// How a cascade is calibrated: InvalidArgument when both epsilon and rho
// are given, NullValue when neither nor absolute targets are.
enum class CascadeBudget { EpsilonDelta, Rho, VarianceTargets };
CascadeBudget cascade_budget(const HierarchyRequest& hierarchy, const HierarchyBudget& budget);

// "neighbours", "privacy_unit" and "privacy": the guarantee in words.
void add_cascade_privacy_fields(accuracy::MetadataObject& metadata, const ReleaseRequest& request,
                                bool has_fixed_nodes);

// Whom a cascade's calibration protects: one record, or one privacy unit.
hierarchy::Protected protected_by(const ReleaseRequest& request);

// The published law of a cascade over one tree or two, as far as the two
// cascades share it: the mechanism, its error law (its behaviour's), the
// margins, the fixed nodes (the list left out beyond
// kMaxPublishedInternalNodes), the cells; the caller adds the noise, the
// sampler and the trees.
accuracy::PublishedLaw cascade_published_law(const ReleaseRequest& request, const std::vector<std::uint32_t>& fixed,
                                             std::uint64_t cells);
// A law's per-level variances, the grand total first.
std::vector<double> level_variances(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law);

}  // namespace invariant_dp
