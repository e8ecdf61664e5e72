// The backend's random sources, kept for the life of the backend process:
// one buffered OS CSPRNG, and a seeded stream that restarts whenever the
// superuser-only seed setting changes (seed_generation). A backend runs one
// query at a time, so no locking is needed.
#pragma once

#include "../random_source.hpp"
#include "invariant_dp_core.h"

namespace invariant_dp {

RandomSource& session_random_source(const idp_randomness* randomness);

}  // namespace invariant_dp
