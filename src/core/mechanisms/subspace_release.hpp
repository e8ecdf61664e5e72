// The subspace mechanisms (subspace_gaussian, subspace_laplace): y = x +
// Pi_N e, e i.i.d. Gaussian or Laplace of the law's scale, Pi_N the
// orthogonal projector onto the null space of the margins (Gao, Gong, Yu
// 2022, arXiv:2108.11527, Cor. 3.5 and 3.8). Every declared margin is kept
// up to float8 round-off, and E[y] = x.
#pragma once

#include "mechanism_behaviour.hpp"

namespace invariant_dp {

// Writes y in place on a partition or no invariant when the draw may
// (ReleaseDraw::real_destination). Returns the expected total squared
// error: the trace of unit_variance * Pi_N, the null space's dimension
// times the unit variance (a projector's trace is its rank), or with the
// per-cell sds their squares' sum.
double release_subspace(const ReleaseDraw& draw);

}  // namespace invariant_dp
