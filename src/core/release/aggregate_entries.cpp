#include "aggregate_entries.hpp"

#include <string>
#include <vector>

#include "../errors.hpp"
#include "../mechanisms/noise_calibration.hpp"
#include "../samplers/conditioned_laplace.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

// dp.noisy_count runs once per group: the last calibration is kept, since a
// discrete Gaussian's is a numerical search. One per backend thread.
const NoiseLaw& calibration_of(const ReleaseRequest& request) {
  thread_local ReleaseRequest last;
  thread_local NoiseLaw law;
  thread_local bool valid = false;
  if (!valid || last.mechanism != request.mechanism || last.epsilon != request.epsilon ||
      last.delta != request.delta || last.neighbours != request.neighbours) {
    valid = false;
    law = calibrate_noise(request);
    last = request;
    valid = true;
  }
  return law;
}

}  // namespace

std::int64_t noisy_count(std::int64_t count, const RawRequest& raw, RandomSource& rng) {
  const ReleaseRequest request = validate_request(raw);
  if (!request.mechanism->integer_output || request.mechanism->allows_invariants)
    throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" is not available in dp.noisy_count",
                          {}, "Use discrete_laplace or discrete_gaussian.");
  const NoiseLaw& law = calibration_of(request);
  const std::int64_t noise = law.kind == NoiseKind::DiscreteLaplace ? sample_discrete_laplace(rng, law.exact_parameter)
                                                                    : sample_discrete_gaussian(rng, law.exact_parameter);
  return checked_add(count, noise, kNoisyCountOutOfRange);
}

void total_preserving_counts(const std::int64_t* counts, std::size_t n, double epsilon, RandomSource& rng,
                             const Interrupts& interrupts, std::int64_t* noisy) {
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = epsilon;
  const NoiseLaw law = calibrate_noise(validate_request(raw));
  const std::vector<std::uint32_t> one_group(n, 0);
  std::vector<std::int64_t> z(n);
  sample_laplace_with_zero_group_sums(rng, law.exact_parameter, {one_group.data(), n, 1}, z.data(), interrupts);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    noisy[i] = checked_add(counts[i], z[i], kNoisyCountOutOfRange);
  }
}

}  // namespace invariant_dp
