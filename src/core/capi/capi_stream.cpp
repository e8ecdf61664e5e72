// The C entry points of the streaming cascade (invariant_dp_stream.h).
#include <cmath>
#include <string>

#include "../calibration/analytic_gaussian.hpp"
#include "../errors.hpp"
#include "../hierarchy/streaming_cascade.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_stream.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;
using hierarchy::StreamingCascade;

namespace {

// The stored state, checked against the public parameters the catalog
// keeps beside it: a state from another stream (or an edited catalog row)
// would silently change the noise law or redraw released leaves.
StreamingCascade stored_stream(const char* state, double variance, std::uint32_t horizon, std::uint64_t n_released) {
  if (state == nullptr) {
    if (n_released != 0)
      throw InvalidData("the stream has released periods but no state",
                        std::to_string(n_released) + " periods are released.",
                        "The state was lost: no further period can be appended; register a new stream.");
    return StreamingCascade(variance, horizon);
  }
  StreamingCascade stream = StreamingCascade::deserialize(state);
  if (stream.variance() != variance || stream.horizon() != horizon)
    throw InvalidData("the stream's state does not match its registered variance and horizon");
  if (stream.n_released() != n_released)
    throw InvalidData("the stream's state does not match its release table",
                      "The state holds " + std::to_string(stream.n_released()) + " periods, the release table " +
                          std::to_string(n_released) + ".",
                      "Released rows must not be deleted or added by hand.");
  return stream;
}

}  // namespace

extern "C" {

idp_status idp_stream_variance(double epsilon, double delta, uint32_t horizon, bool add_remove, double* variance,
                               idp_error* error) {
  return guarded(error, [&] {
    if (horizon > 62) throw InvalidArgument("horizon must be between 0 and 62", "At most 2^horizon periods are released.");
    const Neighbours neighbours = add_remove ? Neighbours::AddRemove : Neighbours::ReplaceOne;
    const double m = StreamingCascade::unit_sensitivity_squared(horizon, neighbours);
    // Horizon 0 under replace_one: one leaf, a record cannot move; calibrate as add_remove.
    const double sensitivity = std::sqrt(m > 0 ? m : 1.0);
    const double sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity);
    *variance = sigma * sigma;
  });
}

idp_status idp_stream_append(const char* state, double variance, uint32_t horizon, uint64_t n_released, uint64_t count,
                             const idp_randomness* randomness, const idp_interrupts* interrupts, double* noise,
                             char** new_state, idp_error* error) {
  *new_state = nullptr;
  return guarded(error, [&] {
    StreamingCascade stream = stored_stream(state, variance, horizon, n_released);
    const std::vector<double> drawn =
        stream.append(count, session_random_source(randomness), interrupts_of(interrupts));
    for (std::size_t i = 0; i < drawn.size(); ++i) noise[i] = drawn[i];
    *new_state = malloc_copy(stream.serialize());
  });
}

idp_status idp_stream_range_variance(double variance, uint64_t first, uint64_t last, double* range_variance,
                                     idp_error* error) {
  return guarded(error, [&] { *range_variance = StreamingCascade::prefix_range_variance(variance, first, last); });
}

}  // extern "C"
