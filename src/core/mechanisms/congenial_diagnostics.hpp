// dp.diagnose for the congenial mechanism. Its chains depend on the table
// (the target is centred at x and truncated at 0), and diagnostics are
// published, so they never read the data: they run on a public stand-in,
// every cell equal to `surrogate_count` (options {"surrogate_count": c},
// default 1: small cells, where non-negativity binds and mixing is hardest),
// with that table's margins. Rows:
//   release_iterations: the MIS steps or walk sweeps a release runs;
//   acceptance_moves: the lattice walk's local-move acceptance;
//   acceptance_independence: the Algorithm 1 proposal acceptance (MIS, or
//     the walk's one independence proposal per sweep), -1 when unavailable;
//   rejection_acceptance: proposals accepted per proposal by the exact
//     per-group rejection (partitions and no margin);
//   chains_never_moved: how many of the 4 chains accepted no move at all
//     (each would release its start; their R-hat says nothing of it);
//   rhat_l1, rhat_y1: split R-hat of |y - x|_1 and of the first cell over 4
//     chains, each run for the release's iterations from its own start (MIS
//     and the walk: a noisy table drawn for each chain; the table chain: the
//     public start, then that start moved by a chain at a quarter of 1/b),
//     then 1000 recorded draws.
#pragma once

#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../random_source.hpp"
#include "diagnostics.hpp"
#include "release_request.hpp"

namespace invariant_dp {

std::vector<DiagnosticRecord> congenial_diagnostics(const CellKeys& cells, const ReleaseRequest& request,
                                                    std::int64_t surrogate_count, RandomSource& rng,
                                                    const Interrupts& interrupts);

}  // namespace invariant_dp
