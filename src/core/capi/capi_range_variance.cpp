// The C entry point of dp.range_variance and dp.range_variance_bounds: the
// variance of a range of a cascade or integer cascade release's leaves, from
// its published noise law.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "../errors.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/published_shape.hpp"
#include "../rollups/hierarchy_release.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

extern "C" {

idp_status idp_cascade_range_variance(const uint32_t* children, size_t n_internal, const double* level_variance,
                                      size_t n_levels, const uint32_t* fixed_nodes, size_t n_fixed,
                                      double deficit_bound, uint64_t first, uint64_t last,
                                      const idp_interrupts* interrupts, double* lower, double* upper,
                                      idp_error* error) {
  return guarded(error, [&] {
    // Anyone may call this with any arrays: the listed nodes are bounded,
    // and nothing is held per leaf (a shape of billions of leaves costs the
    // memory of its internal nodes).
    if (n_internal > kMaxPublishedInternalNodes)
      throw TooLarge("the published tree has too many internal nodes",
                     std::to_string(n_internal) + " are listed; a cascade release publishes at most " +
                         std::to_string(kMaxPublishedInternalNodes) + ".",
                     "Pass the noise law of a cascade release, from dp.last_release() or dp.draws.noise_law.");
    const Interrupts polling = interrupts_of(interrupts);
    polling.poll();
    const hierarchy::PublishedShape shape(children, n_internal, polling);
    const double closed_form =
        shape.range_variance(std::vector<double>(level_variance, level_variance + n_levels),
                             std::vector<std::uint64_t>(fixed_nodes, fixed_nodes + n_fixed), first, last, polling);
    if (!(deficit_bound >= 0) || !std::isfinite(deficit_bound))
      throw InvalidArgument("the noise law has no valid variance_deficit_bound",
                            "An integer_cascade law publishes a finite, non-negative bound.");
    const auto bounds = hierarchy::integer_variance_bounds(closed_form, deficit_bound);
    *upper = bounds.upper;
    // The real-valued cascade's closed form is its variance.
    *lower = deficit_bound == 0 ? bounds.upper : bounds.lower;
    const double both[2] = {*lower, *upper};
    refuse_non_finite(both, 2, "range variance");
  });
}

}  // extern "C"
