// The rule every release applies to its cells' true counts before any noise:
// there is at least one cell and no count is negative. The flat, hierarchy
// and crossed releases each call it (once, on the cells they are given).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"

namespace invariant_dp {

// Throws InvalidData when n is 0 (with a hint to pass a domain query) or
// when a count is negative; polls interrupts along the counts.
void check_cell_counts(std::size_t n, const std::int64_t* counts, const Interrupts& interrupts);

}  // namespace invariant_dp
