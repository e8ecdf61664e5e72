// The closed-form covariance of cascade noise (for a perfect binary tree
// the Sigma_k of Dharangutte, Gao, Gong, Wang 2024, arXiv:2402.07066,
// Definition 3.1; any tree, fan-out and per-level targets: DERIVATIONS.md,
// section 2; conditioned laws as in cascade_law.hpp), for the published
// noise law and for range queries over the ordered leaves.
//
// Write the noise as the root X plus independent split increments: a split
// s into m children adds D_s with Cov(D_s) = tau_s^2 (I - J/m). A weighted
// sum w.Z of leaves is then f(root) X + sum_s sum_c f(c) D_{s,c}, where
// f(u) = (1/m_u) sum_c f(c) and f(leaf) = w_leaf, so
//   Var(w.Z) = f(root)^2 v_0 + sum_s tau_s^2 (sum_c f(c)^2 - (sum_c f(c))^2 / m_s)
// (pinned nodes drop their terms). For a range only the nodes the range cuts
// partially have unequal f among their children: O(depth * fan-out).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// Cov(Z_i, Z_j) of leaves i and j (leaf order): O(depth).
double leaf_covariance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j);

// Var of the sum of the released leaves lo..hi (leaf order, inclusive).
double range_variance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t lo, std::uint32_t hi);

// Var of the noise of a node (v_depth unconditioned; smaller below a cut): O(depth).
double node_variance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t node);

// node_variance of every node, in one pass down the tree (nodes are in level
// order, so a parent's comes before its children's): O(nodes), polled.
std::vector<double> node_variances(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
