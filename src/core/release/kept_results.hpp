// What the core keeps in a process between calls, scoped to one role: the
// lattice bases of general margins (lattice/lattice_basis_cache.hpp), the
// l1 table cells' quantiles and sums' laws (accuracy/laplace_table_cell.hpp,
// laplace_table_sum.hpp) and the covariance scales of short tables
// (accuracy/table_covariance_scale.hpp).
// All depend on the keys and public parameters only, never the counts, but
// a kept result says which key sets or shapes were released in this
// backend, and its absence or presence shows in the time a call takes. A backend may switch
// roles (SET ROLE, SECURITY DEFINER functions, a pooler reusing it), so
// every call that may read them first names its role, and a new role
// starts from nothing.
#pragma once

#include <cstdint>

namespace invariant_dp {

// Drops everything kept when `role` differs from the last one named.
void keep_results_for(std::uint32_t role);

}  // namespace invariant_dp
