// Exact margins of a hierarchy release as tree nodes (for
// CascadeLaw::conditioned_on): a margin over key columns keeps each of its
// groups' totals exact, and the cascade can only condition on groups that
// are whole nodes (cascade_law.hpp explains why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// The node of each group of the margin (key column indices of `keys`; empty
// for the grand total), ascending; in a one-child chain, the deepest node. tree must be built from keys. InvalidArgument naming
// the margin when a group's cells are not exactly one node's leaves.
std::vector<std::uint32_t> margin_nodes(const HierarchyTree& tree, const CellKeys& keys,
                                        const std::vector<std::size_t>& margin_columns, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
