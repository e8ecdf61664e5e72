// The C entry point of dp.range_variance and dp.range_variance_bounds:
// converts, calls the core's entry (release/range_variance_entry.hpp),
// converts back.
#include <vector>

#include "../release/range_variance_entry.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"

using namespace invariant_dp;
using namespace invariant_dp::capi;

extern "C" {

idp_status idp_cascade_range_variance(const char* error_law, const uint32_t* children, size_t n_internal,
                                      const double* level_variance, size_t n_levels, const uint32_t* fixed_nodes,
                                      size_t n_fixed, double deficit_bound, uint64_t first, uint64_t last,
                                      const idp_interrupts* interrupts, double* lower, double* upper,
                                      idp_error* error) {
  return guarded(error, [&] {
    const RangeVarianceBounds bounds =
        cascade_range_variance(error_law != nullptr ? error_law : "", children, n_internal,
                               std::vector<double>(level_variance, level_variance + n_levels),
                               std::vector<std::uint64_t>(fixed_nodes, fixed_nodes + n_fixed), deficit_bound, first,
                               last, interrupts_of(interrupts));
    *lower = bounds.lower;
    *upper = bounds.upper;
  });
}

}  // extern "C"
