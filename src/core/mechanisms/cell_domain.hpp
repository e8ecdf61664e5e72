// Releasing over a declared domain (subspace_dp digest, section 9, "domain
// completeness"): the cells are the domain's rows, zero cells included, so
// the set of released cells does not depend on the data. Source rows must
// name domain cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/key_rows.hpp"

namespace invariant_dp {

// The count of each domain row: the source count of the same key tuple, or
// 0. Throws InvalidData for a repeated domain row, a source row outside the
// domain or a repeated source row, naming its key. Both have the same columns.
std::vector<std::int64_t> counts_on_domain(const KeyRows& domain, const KeyRows& source,
                                           const std::int64_t* source_counts, const Interrupts& interrupts);

}  // namespace invariant_dp
