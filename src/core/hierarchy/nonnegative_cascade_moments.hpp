// The bias and variance of every node of the non-negative cascade's law
// (NONNEGATIVE.md, section 5), computed from the law, not simulated: the
// marginal of each node's noise by sum-product on the tree, the messages
// of the backward pass (nonnegative_cascade_messages.hpp, restricted to
// their windows) going up, their complements going down.
//
// For a split u whose noise has the marginal P(e_u = t) = Psi_u(t) h_u(t)
// (Psi_u the rest of the tree's weight; at a pinned node the point mass at
// 0), the children's joint law is proportional to
// Psi_u(s_1 + ... + s_m) prod_j g_j(s_j). With Q_1 = Psi_u and
// Q_{k+1}(y) = sum_s g_k(s) Q_k(y + s) (the weight of the children before k
// given the rest y), child k has the marginal
//   P(s_k = s) proportional to g_k(s) sum_r F_{k+1}(r) Q_k(s + r),
// F_{k+1} the suffix function of the children after it (F_{m+1} the point
// mass at 0). A subtree child passes Psi = that sum (times its chain's
// exp(-rho |s|)) to its own split; a leaf needs only its three moments,
//   sum_r F_{k+1}(r) sum_s s^j g_k(s) Q_k(s + r),  j = 0, 1, 2,
// whose inner sums are geometric recursions (O(window) per leaf).
//
// Accuracy: the windows leave out about exp(-24) of each node's mass; every other step is a sum of positive terms in double (the mean of a
// leaf subtracts its two sides once). The stat test checks the figures
// against enumeration on small trees and against simulated draws.
//
// Privacy: the figures are functions of the counts passed in. At the true
// counts they are not covered by the release's guarantee (a leaf's bias
// says whether its count is near 0); a release publishes them at its own
// released counts (nonnegative_cascade_release.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "hierarchy_tree.hpp"
#include "nonnegative_cascade_law.hpp"
#include "nonnegative_cascade_messages.hpp"

namespace invariant_dp::hierarchy {

struct NonnegativeMoments {
  std::vector<double> bias;      // per node: E[r_v] - x_v (0 where pinned)
  std::vector<double> variance;  // per node: Var[r_v]
};

// The moments' windows: wider than the sampler's, since what they leave out
// is an error here (about exp(-24) of each node's mass, 4e-11).
NonnegativeOptions nonnegative_moment_windows();

// leaf_counts: one count >= 0 per leaf, in leaf order. options.dominating
// is ignored (the moments use the law restricted to the windows).
NonnegativeMoments nonnegative_cascade_moments(const HierarchyTree& tree, const NonnegativeLaw& law,
                                               const std::int64_t* leaf_counts, const Interrupts& interrupts,
                                               NonnegativeOptions options = nonnegative_moment_windows());

}  // namespace invariant_dp::hierarchy
