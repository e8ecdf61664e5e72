// Independent exact integer noise per cell: discrete_laplace,
// discrete_gaussian, and integer_laplace and integer_gaussian without
// margins. y = x + z, z i.i.d. of the law's exact parameter.
#pragma once

#include "mechanism_behaviour.hpp"

namespace invariant_dp {

// Writes y in place when the draw may (ReleaseDraw::integer_destination);
// every cell has the law's sd, spelled out per cell only when asked for.
void release_independent_integers(const ReleaseDraw& draw);

}  // namespace invariant_dp
