// The release of one hierarchy with mechanism "nonnegative_cascade"
// (hierarchy/nonnegative_cascade.hpp, hierarchy/NONNEGATIVE.md): integer
// counts at every level, every node >= 0 and the sum of its children,
// declared margins (whole nodes) exact, drawn exactly from discrete Laplace
// noise on every free node conditioned on consistency and non-negative
// leaves. Pure epsilon-DP: calibrated from epsilon (the relative
// level_variance, or the default split) or from absolute level_variance
// targets with epsilon NULL (their cost reported). Its catalogue row does
// not take "rho" (a Gaussian base has no bound under conditioning:
// NONNEGATIVE.md, section 2); "crossed" is refused here
// (check_nonnegative_cascade_request).
//
// The law depends on the counts, so its per-node bias and variance do too:
// the release computes them at its own released counts (a function of the
// release, covered by its guarantee) when asked for a standard deviation
// or an interval, and publishes per level their means.
#pragma once

#include <cstdint>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../random_source.hpp"
#include "../request/hierarchy_request.hpp"
#include "hierarchy_release.hpp"

namespace invariant_dp {

// The request checks of this mechanism beyond the cascades': InvalidArgument
// for "crossed" (its law is drawn on one tree).
void check_nonnegative_cascade_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy);

// TooLarge (54000, with a hint) before any window is allocated when the
// windows would not fit; OutOfRange (22003) when a level's epsilon leaves
// (2^-40, 512] or a total overflows int64; the cascades' errors otherwise.
HierarchyReleaseResult nonnegative_cascade_release(const CellKeys& cells, const std::int64_t* counts,
                                                   const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                                   const HierarchyBudget& budget, RandomSource& rng,
                                                   const Interrupts& interrupts);

}  // namespace invariant_dp
