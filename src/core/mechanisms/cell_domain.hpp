// Releasing over a declared domain: the cells are the domain's rows, zero
// cells included, so the set of released cells does not depend on the data
// (a release that dropped empty groups would reveal which groups are empty;
// the papers' histograms run over the whole, fixed attribute domain, e.g.
// hist over X in Gao, Gong, Yu 2022, arXiv:2108.11527, Section 2). Source
// rows must name domain cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/key_rows.hpp"

namespace invariant_dp {

// What to do with a source row whose key tuple is not a domain row.
enum class OutsideDomain { Refuse, Drop };

// The count of each domain row: the source count of the same key tuple, or
// 0. Throws InvalidData for a repeated domain row, a source row outside the
// domain (unless outside is Drop: it is left out) or a repeated source row,
// naming its key. Both have the same columns.
std::vector<std::int64_t> counts_on_domain(const KeyRows& domain, const KeyRows& source,
                                           const std::int64_t* source_counts, OutsideDomain outside,
                                           const Interrupts& interrupts);

}  // namespace invariant_dp
