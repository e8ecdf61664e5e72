// Privacy of cascade noise: the Mahalanobis sensitivity of the protected
// moves (Dharangutte, Gao, Gong, Wang 2024, arXiv:2402.07066, Theorem 3.8;
// the form for any tree, fan-out and per-level targets is ours,
// DERIVATIONS.md, section 3).
//
// Releasing x + Z, Z ~ N(0, Sigma), is for a move dx the scalar Gaussian
// mechanism with sensitivity sqrt(dx^T Sigma^-1 dx) and unit noise, so the
// privacy of the release is set by the largest such quadratic form over the
// neighbouring moves. In the increment form (cascade_covariance.hpp) the
// quadratic form is (sum dx)^2 / v_0 + sum_s ||dD_s||^2 / tau_s^2, with
// dD_{s,c} = dx(c) - dx(s)/m_s. Hence, with a_s = (m_s - 1)/(m_s tau_s^2)
// (= (m-1)^2/(m^2 v_child - v_s), v_s = node_variance) over the
// splits s (one-child nodes add nothing):
//   add_remove, move e_i:     Sigma^-1_ii = 1/v_0 + sum_{s ancestor of i} a_s
//   replace_one, e_i - e_j:   2/tau_w^2 + sum_{s on i's path below w} a_s
//                                       + sum_{s on j's path below w} a_s
// where w is the lowest common ancestor (the ancestors above w see no change;
// this equals Sigma^-1_ii + Sigma^-1_jj - 2 Sigma^-1_ij). No matrix is ever
// inverted; the maxima are one bottom-up pass (the largest path sums below
// each node). Under a conditioned law only replace_one moves inside one cut
// node keep the exact totals; the same formula is the quadratic form under
// the pseudo-inverse of the conditioned covariance (the increments above the
// cut vanish). test_cascade_covariance.cpp (expect_matches_dense) checks all
// of it against the inverse of an explicitly built covariance, and
// test_cascade_conditioning.cpp the conditioned laws.
#pragma once

#include <cstdint>

#include "../interrupts.hpp"
#include "../privacy/neighbours.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// Sigma^-1_ij of an unconditioned law (leaf order): O(depth).
double precision_entry(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j);

// dx^T Sigma^+ dx for dx = e_i - e_j. InvalidArgument under a conditioned law
// if the move changes an exact total.
double replace_one_cost(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j);

// max over the protected moves of dx^T Sigma^+ dx: O(nodes), two levels of
// memory. add_remove under a conditioned law: InvalidArgument (one added
// person changes an exact total). 0 when no move is possible (one cell under
// replace_one, or every cell pinned). Polls per child visited, so a tree of
// 10^7 nodes (or one node of 10^7 children) stops promptly on cancel.
double max_sensitivity_squared(const HierarchyTree& tree, const CascadeLaw& law, Neighbours neighbours,
                               const Interrupts& interrupts);

// Whom a cascade's epsilon protects: one record moving one leaf, or with a
// privacy unit every row of one unit, at most unit_mass = G R rows
// (max_groups_per_unit times max_rows_per_group, privacy/contribution_bounds.hpp).
struct Protected {
  Neighbours neighbours = Neighbours::ReplaceOne;
  double unit_mass = 1;  // 1: one record
  Protected(Neighbours n, double mass = 1) : neighbours(n), unit_mass(mass) {}  // NOLINT: implicit on purpose
};

// max over the protected moves of dx^T Sigma^+ dx. For a unit: in the norm
// |dx|_A = sqrt(dx^T A dx), A = Sigma^+, the triangle inequality bounds a
// sum of moves by the sum of their norms. A unit's move dx has positive and
// negative parts of mass P, N <= unit_mass. Under exact totals, neighbours
// agree on them, so dx keeps every fixed node's total and splits into
// P = N pair moves e_i - e_j within one fixed node: |dx|_A^2 <= unit_mass^2
// times the replace_one maximum. Without exact totals, replace_one: min(P, N)
// pair moves and |P - N| single-leaf moves, so unit_mass^2 times the larger
// of the replace_one and add_remove maxima; add_remove: P + N <= unit_mass
// single-leaf moves, unit_mass^2 times the add_remove maximum. A bound, not
// the exact maximum: a unit's cells may lie far apart in the tree, and the
// bound does not look where.
double protected_sensitivity_squared(const HierarchyTree& tree, const CascadeLaw& law, const Protected& protect,
                                     const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
