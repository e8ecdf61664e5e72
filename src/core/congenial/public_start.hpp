// The chains' starting table, computed from the public invariant totals
// only (never from the confidential cells; congenial digest §7.5): the
// non-negative least-squares point nearest the zero table, i.e. the
// minimum-norm table with the declared totals (for one margin: each group's
// total spread evenly), rounded to integers keeping the totals
// (projection/controlled_rounding.hpp). Deterministic, so two databases with
// equal totals start at the same table.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../projection/linear_invariants.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts);

}  // namespace invariant_dp
