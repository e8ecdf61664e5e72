// Cascade Sampling (Dharangutte, Gao, Gong, Wang 2024, "Differentially
// Private Range Queries with Correlated Input Perturbation", 2024,
// arXiv:2402.07066: Algorithm 1, Section 3.2; Algorithm 3, Appendix D.2;
// fan-out above 2 and per-level variances are ours, DERIVATIONS.md,
// section 1).
//
// Output law: leaf noise Z ~ N(0, Sigma) where every node's noise (the sum
// of its leaves' noise) is N(0, v_depth), children sum to their parent and
// Sigma is given in closed form by cascade_covariance.hpp; conditioned laws
// as in cascade_law.hpp. The noise does not depend on the data: the same
// random stream gives the same noise for any counts.
// Privacy: cascade_privacy.hpp (Mahalanobis sensitivity, the paper's
// Theorem 3.8) and
// cascade_calibration.hpp. Floating-point Gaussians are not bit-exact DP
// (Mironov 2012), as for every real-valued mechanism of the project.
// Cost: O(nodes) time, n draws for a binary tree, two levels of memory.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// The noise of every leaf, in leaf order.
std::vector<double> cascade_leaf_noise(const HierarchyTree& tree, const CascadeLaw& law, RandomSource& rng,
                                       const Interrupts& interrupts);

struct CascadeRelease {
  std::vector<double> leaf_noise;   // leaf order
  std::vector<double> node_values;  // node order: released leaves and their rollups
};

// counts_by_cell: one count per leaf in CellKeys cell order (tree.leaf_cell).
// Released leaf = count + noise; every internal node is the rollup (fold of
// its children) of the released leaves.
CascadeRelease release_cascade(const HierarchyTree& tree, const CascadeLaw& law, const std::int64_t* counts_by_cell,
                               RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
