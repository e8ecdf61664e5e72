// The core's one entry for dp.privatize: a checked request and the cells it
// reads in, the release table out. On the way down, once: the cells'
// units and domain checked against the request, each unit's contribution
// bounded and partitions selected (released_cells.hpp), then the crossed,
// hierarchy or flat release, its intervals when asked for
// (release_intervals.hpp), and no value that is not finite returned.
#pragma once

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "request_checks.hpp"
#include "release_input.hpp"
#include "release_table.hpp"

namespace invariant_dp {

ReleaseTable release(const CheckedRequest& checked, const ReleaseInput& input, RandomSource& rng,
                     const Interrupts& interrupts);

}  // namespace invariant_dp
