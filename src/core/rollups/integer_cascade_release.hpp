// The release of one hierarchy with mechanism "integer_cascade"
// (hierarchy/integer_cascade.hpp): integer counts at every level, each node
// the exact sum of its children, declared margins (whole nodes) exact, the
// noise an exact lattice Gaussian with the cascade's covariance. Calibrated
// like "cascade" (epsilon and delta, the option "rho", or per-level
// targets), but (epsilon, delta) comes from rho-zCDP by the conversion of
// the other lattice Gaussians (integer_cascade_calibration.hpp), and the
// metadata publishes each level's variance with its certified lower bound.
#pragma once

#include <cstdint>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../random_source.hpp"
#include "hierarchy_release.hpp"
#include "../request/hierarchy_request.hpp"

namespace invariant_dp {

// TooLarge (54000) beyond kMaxIntegerCascadeNodes, before the law is
// calibrated; OutOfRange (22003) when the noise is too small for the exact
// sampler or a total overflows int64; the cascade's errors otherwise.
HierarchyReleaseResult integer_cascade_release(const CellKeys& cells, const std::int64_t* counts,
                                               const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                               const HierarchyBudget& budget, RandomSource& rng,
                                               const Interrupts& interrupts);

}  // namespace invariant_dp
