// Releasing over a declared domain (subspace_dp digest, section 9, "domain
// completeness"): the cells are the domain's rows, zero cells included, so
// the set of released cells does not depend on the data. Source rows must
// name domain cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {

// The count of each domain row: the source count of the same key tuple, or
// 0. Throws InvalidData for a source row outside the domain or a repeated
// source row. Key arrays are row-major with n_columns entries per row.
std::vector<std::int64_t> counts_on_domain(std::size_t n_columns, std::size_t n_domain_rows,
                                           const char* const* domain_keys, std::size_t n_source_rows,
                                           const char* const* source_keys, const std::int64_t* source_counts,
                                           const std::vector<std::string>& column_names,
                                           const Interrupts& interrupts);

}  // namespace invariant_dp
