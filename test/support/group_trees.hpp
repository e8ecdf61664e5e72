// Test helper: the two-level trees the non-negative cascade's tests use, a
// root over `groups` nodes of `leaves` leaves each (groups first in node
// order, then each group's leaves).
#pragma once

#include <cstdint>
#include <vector>

#include "hierarchy/hierarchy_tree.hpp"
#include "interrupts.hpp"

namespace invariant_dp::hierarchy {

inline HierarchyTree groups_tree(int groups, int leaves) {
  std::vector<std::int64_t> parent{-1};
  for (int g = 0; g < groups; ++g) parent.push_back(0);
  for (int g = 0; g < groups; ++g)
    for (int l = 0; l < leaves; ++l) parent.push_back(1 + g);
  return HierarchyTree::from_parents(parent, Interrupts());
}

}  // namespace invariant_dp::hierarchy
